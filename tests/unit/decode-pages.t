#!/bin/sh
# Hand-built ring-buffer pages through the reader and the output layer: padding,
# time extends, absolute stamps, lost-event pages, the CPU merge, every field kind,
# stack records (as text, held into their event in JSON, and on their own).
bin=$(dirname "$0")/bin/decode-pages
[ -x "$bin" ] || { echo "1..0 # SKIP $bin not built (run make check)"; exit 0; }
exec "$bin"
