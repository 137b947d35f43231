# latency benchmark (not part of make check): tpctl latency syscall at full speed
# against tpctl count on the same two events; see bench/latency.py.
#   make bench-latency
#   make bench-latency LATENCY_BENCH_ARGS='--events 2000000 --runs 3'

LATENCY_BENCH_ARGS ?=

.PHONY: bench-latency
bench-latency: tpctl bench/gen
	python3 bench/latency.py $(LATENCY_BENCH_ARGS)
