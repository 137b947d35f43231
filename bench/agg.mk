# count/hist benchmark (not part of make check): the user engine of tpctl count
# and hist against tpctl stream --json on the same events, a generator at full
# speed on CPU 1 and the reader on CPU 0, default buffer (loss, CPU per event,
# and with --callgrind instructions per event); see bench/agg.py and
# bench/RESULTS-agg.md.
#   make bench-agg                            three runs (needs root)
#   make bench-agg AGG_BENCH_ARGS=--callgrind  and instructions per event

AGG_BENCH_ARGS ?=

.PHONY: bench-agg
bench-agg: tpctl bench/gen
	python3 bench/agg.py $(AGG_BENCH_ARGS)
