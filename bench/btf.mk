# Start-up cost of enum names from BTF (not part of make check); see
# bench/btf.py and bench/RESULTS-btf.md.
#   make bench-btf                  40 runs of each case (needs root)
#   make bench-btf BENCH_ARGS=--quick

.PHONY: bench-btf
bench-btf: tpctl
	python3 bench/btf.py $(BENCH_ARGS)
