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

# Soak benchmark (not part of make check): tpctl serve with a count, a hist and
# a latency metric by comm, scraped every second, while bench/churn makes
# short-lived processes with changing names; a line every 10 s: RSS, the
# tasks tracked, the open STARTs, the series and the scrape time, which must
# stay flat.  Needs root.
#   make bench-soak                   10 minutes, 500 processes a second
#   make bench-soak SOAK_S=3600 SOAK_RATE=1000
SOAK_S ?= 600
SOAK_RATE ?= 500

.PHONY: bench-soak
bench-soak: tpctl bench/churn
	python3 bench/soak.py --seconds $(SOAK_S) --rate $(SOAK_RATE)

bench/churn: bench/churn.c
	$(CC) -O2 -Wall -Wextra -Werror -o $@ $<
