#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The structure of src/ (DESIGN.md section 3): the call graph between its files, drawn
# by tests/deps.py from the objects' symbols (nm), has no circle but the allowed ones.
# Its whole report (circles, and which files call tracefs_* besides tfs.c) is printed as
# diagnostics.
top=$(cd "$(dirname "$0")/../.." && pwd)
echo "1..1"
out=$(python3 "$top/tests/deps.py" --dir "$top/src" 2>&1)
rc=$?
printf '%s\n' "$out" | sed 's/^/# /'
if [ "$rc" -eq 0 ]; then
	echo "ok 1 - no circle between the files of src/ (tests/deps.py)"
else
	echo "not ok 1 - no circle between the files of src/ (tests/deps.py exit $rc)"
	exit 1
fi
