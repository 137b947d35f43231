#!/bin/bash
# The folded and SVG writers (tests/unit/flame.c), then its SVG of hostile
# names through xmllint: well-formed XML, one <svg> element, the names text.
cd "$(dirname "$0")/../.." || exit 1
bin=tests/unit/bin/flame
[ -x "$bin" ] || { printf '1..1\nnot ok 1 - %s not built (make check-unit)\n' "$bin"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$bin" "$tmp/h.svg" | sed 's/^1\.\.14$/1..16/'
if ! command -v xmllint >/dev/null; then
	echo "ok 15 # SKIP xmllint is not installed (make deps)"
	echo "ok 16 # SKIP xmllint is not installed (make deps)"
	exit 0
fi
if xmllint --noout "$tmp/h.svg" 2>"$tmp/err"; then
	echo "ok 15 - xmllint: the SVG of hostile names is well-formed"
else
	echo "not ok 15 - xmllint: the SVG of hostile names is not well-formed"
	sed 's/^/# /' "$tmp/err"
fi
svgs=$(xmllint --xpath 'count(//*[local-name()="svg"])' "$tmp/h.svg" 2>/dev/null)
titles=$(xmllint --xpath 'count(//*[local-name()="title"][starts-with(., "<svg onload=1> (")])' \
	"$tmp/h.svg" 2>/dev/null)
if [ "$svgs" = 1 ] && [ "$titles" = 1 ]; then
	echo "ok 16 - one <svg> element, the name '<svg onload=1>' as the text of a <title>"
else
	echo "not ok 16 - svg elements: $svgs, titles with the name: $titles"
fi
