# Record/report benchmark (not part of make check): tpctl record vs trace-cmd
# record on 1,000,000 getpid events (loss, CPU), and the offline decode of
# the file by tpctl report vs trace-cmd report (callgrind instructions per
# event, wall time); see bench/record.py and bench/RESULTS-record.md.
#   make bench-record                  the full run (several minutes, needs root)
#   make bench-record BENCH_ARGS=--quick

BENCH_ARGS ?=

.PHONY: bench-record
bench-record: tpctl bench/gen
	python3 bench/record.py $(BENCH_ARGS)
