#!/bin/sh
# oncpu.c: where a switch in the kernel did not record is placed, per kind of
# record (the inference of latency sched and latency offcpu).  The program
# prints TAP.
bin=$(dirname "$0")/bin/oncpu
[ -x "$bin" ] || { printf '1..1\nnot ok 1 - %s not built (make check-unit)\n' "$bin"; exit 1; }
exec "$bin"
