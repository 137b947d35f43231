# Scaling benchmark (not part of make check): P producers pinned to CPUs 1..P at
# full speed, 1,000,000 getpid events each, read by stream --json | wc -l,
# record and count --engine user, default buffer and 64 MiB: lost %, CPU-us per
# event, events/s, three runs; see bench/scale.py and bench/RESULTS-scale.md.
#   make bench-scale                       P=1
#   make bench-scale SCALE_ARGS='--producers 14'
#   make bench-scale SCALE_ARGS='--producers 1 --pin-consumer 0 --events 3000000'

SCALE_ARGS ?=

.PHONY: bench-scale
bench-scale: tpctl bench/gen
	python3 bench/scale.py $(SCALE_ARGS)
