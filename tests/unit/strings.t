#!/bin/bash
# --strings decoded without a kernel: a strings probe's format from Debian's
# 6.1 and records built byte by byte (tests/unit/strings.c).
cd "$(dirname "$0")/../.." || exit 1
bin=tests/unit/bin/strings
[ -x "$bin" ] || { printf '1..1\nnot ok 1 - %s not built (make check-unit)\n' "$bin"; exit 1; }
exec "$bin" tests/unit/fixtures
