#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# save-fixtures.sh OUT DEST: turn what the last VM run captured (OUT, i.e.
# tests/vm/work/out) into the decode fixtures DEST (tests/unit/fixtures/vm-6.1),
# in the layout of tests/unit/fixtures/host:
#   header_page, header_event        events/header_page, events/header_event
#   formats/sample-trace:<event>     every event's format file
#   cpu<N>.raw                       trace_pipe_raw pages of CPU N (whole pages)
#   trace                            the kernel's `trace` text of those records
#   saved_cmdlines, uname
set -eu
out=$1
dest=$2
[ -f "$out/fixture/trace" ] || { echo "save-fixtures: no capture in '$out' (run make check-vm)" >&2; exit 1; }
[ "$(cat "$out/fixture/rawdump.rc")" = 0 ] || { echo "save-fixtures: the raw capture failed" >&2; exit 1; }
rm -rf "$dest.tmp"
mkdir -p "$dest.tmp/formats"
cp "$out/kernel/events/header_page" "$out/kernel/events/header_event" "$dest.tmp/"
for f in "$out"/kernel/events/sample-trace/*/format; do
	ev=$(basename "$(dirname "$f")")
	cp "$f" "$dest.tmp/formats/sample-trace:$ev"
done
cp "$out"/fixture/raw/cpu*.raw "$out/fixture/trace" "$out/fixture/saved_cmdlines" \
	"$out/uname" "$dest.tmp/"
chmod -R u+rwX,go+rX "$dest.tmp"
[ -f "$dest/README" ] && cp "$dest/README" "$dest.tmp/README"
rm -rf "$dest"
mv "$dest.tmp" "$dest"
echo "save-fixtures: $(ls "$dest" | wc -l) files in $dest"
