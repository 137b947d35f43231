# make check-stress: the CLI tests STRESS_N times (default 5) idle, then as
# many times beside a CPU hog on every CPU, with a summary of what failed in
# which run (tests/stress.sh).  Not run by make check or CI.
.PHONY: check-stress
check-stress: all $(UNIT_BINS)
	tests/stress.sh
