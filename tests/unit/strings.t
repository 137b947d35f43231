#!/bin/bash
# --strings decoded without a kernel: a strings probe's format from Debian's
# 6.1 and records built byte by byte (tests/unit/strings.c).
cd "$(dirname "$0")/../.." || exit 1
bin=tests/unit/bin/strings
[ -x "$bin" ] || { echo "1..0 # SKIP $bin not built (run make check)"; exit 0; }
exec "$bin" tests/unit/fixtures
