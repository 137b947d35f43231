# Stream benchmark (not part of make check): tpctl stream (text and JSON) vs cat
# trace_pipe vs trace-cmd stream on getpid events: the unpinned case, the
# producer pinned to another CPU than the reader (10,000,000 events, default
# and 16 MiB buffers), a paced rate ladder, promptness and memory; see
# bench/run.py and bench/RESULTS.md.
#   make bench               the full run (about a quarter of an hour, needs root)
#   make bench BENCH_ARGS=--quick
#   make bench BENCH_ARGS='--only pinned --readers json,cat'

BENCH_ARGS ?=

.PHONY: bench
bench: tpctl bench/gen
	python3 bench/run.py $(BENCH_ARGS)

bench/gen: bench/gen.c
	$(CC) -O2 -Wall -Wextra -Werror -o $@ $<
