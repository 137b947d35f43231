# Stream benchmark (not part of make check): tpctl stream vs cat trace_pipe vs
# trace-cmd stream on 1,000,000 getpid events; see bench/run.py and bench/RESULTS.md.
#   make bench               the full run (a few minutes, needs root)
#   make bench BENCH_ARGS=--quick

BENCH_ARGS ?=

.PHONY: bench
bench: tpctl bench/gen
	python3 bench/run.py $(BENCH_ARGS)

bench/gen: bench/gen.c
	$(CC) -O2 -Wall -Wextra -Werror -o $@ $<
