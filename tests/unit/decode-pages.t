#!/bin/sh
# Hand-built ring-buffer pages through the reader and the output layer: padding,
# time extends, absolute stamps, lost-event pages, the CPU merge, every field kind,
# stack records (as text, held into their event in JSON, and on their own).
bin=$(dirname "$0")/bin/decode-pages
[ -x "$bin" ] || { printf '1..1\nnot ok 1 - %s not built (make check-unit)\n' "$bin"; exit 1; }
exec "$bin"
