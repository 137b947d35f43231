# Decode cost of stream with and without stacks (not part of make check):
# callgrind instructions per event of `tpctl -i X stream --drain [--json]` on
# getpid events, with and without kernel and user stacks; several builds can
# be compared on the same kind of data; see bench/stream-cg.py and
# bench/RESULTS-stacks.md.
#   make bench-cg                                    this build, no stacks
#   make bench-cg BENCH_CG_ARGS="--stacks"           with kernel and user stacks
#   make bench-cg BENCH_CG_ARGS="--tpctl OLD/tpctl --tpctl ./tpctl"

BENCH_CG_ARGS ?=

.PHONY: bench-cg
bench-cg: tpctl bench/gen
	python3 bench/stream-cg.py $(BENCH_CG_ARGS)
