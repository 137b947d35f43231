#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The structure of src/ (docs/DESIGN.md section 3): the call graph between its files, drawn
# by tests/deps.py from the objects' symbols (nm), has no circle but the allowed ones and
# no call up HACKING.md's layers, the map places every file, and only the commands include
# cmd.h.  Its whole report is printed as diagnostics.  Then deps.py must fail on faults
# planted in a copy of the objects' nm listing (no second build): a leaf that calls a
# command, a file the map does not place, a file that includes cmd.h.  Last, no file of
# src/ or tests/ cites a document outside the repository, and no function of src/ is over
# 100 lines but the two per-record printers HACKING.md names (tests/funclen.py), which must
# fail on a long function planted in a copy.
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "1..7"
n=0
fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); fail=1; echo "not ok $n - $1"; }

out=$(python3 "$top/tests/deps.py" --dir "$top/src" 2>&1)
rc=$?
printf '%s\n' "$out" | sed 's/^/# /'
if [ "$rc" -eq 0 ]; then
	ok "no circle, no call up the layers, every file in the map, cmd.h in the commands only"
else
	notok "the structure of src/ (tests/deps.py exit $rc)"
fi

# planted: the output of deps.py --nm on the listing with LINE added must name WANT
planted() {
	what=$1 line=$2 want=$3
	shift 3
	{ cat "$tmp/nm"; printf '%s\n' "$line"; } > "$tmp/planted"
	out=$(python3 "$top/tests/deps.py" --quiet --nm "$tmp/planted" "$@" 2>&1)
	rc=$?
	if [ "$rc" -eq 1 ] && printf '%s\n' "$out" | grep -qxF -- "$want"; then
		ok "planted: $what fails"
	else
		printf '%s\n' "$out" | sed 's/^/# /'
		notok "planted: $what fails (exit $rc, want 1 and: $want)"
	fi
}
(cd "$top" && nm -P -g -A src/*.o) > "$tmp/nm" 2> "$tmp/nm.err" ||
	{ sed 's/^/# /' "$tmp/nm.err"; }
planted "a call from util.c (leaves) to cmd_list.c (the commands)" \
	"src/util.o: cmd_list U" \
	"CLIMB util.c (leaves) -> cmd_list.c (main and the commands): cmd_list" \
	--dir "$top/src"
planted "a file HACKING.md's map does not place" \
	"src/zz_planted.o: zz_planted T 0 10" \
	"MAP src/zz_planted.c is not in HACKING.md's map: give it a line under its layer" \
	--dir "$top/src"
mkdir "$tmp/src"
{ echo '#include "cmd.h"'; cat "$top/src/names.c"; } > "$tmp/src/names.c"
cp "$top/src/cmd_list.c" "$top/src/tpctl.c" "$tmp/src/"
planted "an include of cmd.h in names.c" "" \
	"INCLUDE src/names.c includes cmd.h (the commands): only tpctl.c and cmd_*.c may" \
	--dir "$tmp/src"

# Citations: every X.md that a file of src/ or tests/ names is in the repository (at the
# top or beside the file), and none points outside it (../shared, shared/DESIGN.md).
out=$(cd "$top" && python3 -c '
import os, re, sys
TEXT = (".c", ".h", ".t", ".py", ".sh", ".mk", ".md", ".supp", ".zsh", ".proto")
SKIP = ("tests/vm/work", "tests/unit/bin", "tests/fuzz/corpus")
bad = 0
paths = sorted(os.path.join(d, f) for top in ("src", "tests") for d, _, fs in os.walk(top)
               if not d.startswith(SKIP) for f in fs if f.endswith(TEXT))
for path in paths:
    if path == "tests/unit/structure.t":
        continue
    text = open(path, errors="replace").read()
    for i, line in enumerate(text.splitlines(), 1):
        for m in re.finditer(r"[\w./-]*\.md\b", line):
            doc = m.group(0)
            if m.start() and line[m.start() - 1] == "$" and "/" in doc:
                doc = doc.split("/", 1)[1]    # $TOP/README.md: from the top
            if not (os.path.isfile(doc) or
                    os.path.isfile(os.path.join(os.path.dirname(path), doc))):
                print("%s:%d: cites %s, which is not in the repository" % (path, i, doc))
                bad += 1
        if re.search(r"\.\./shared\b|\bshared/DESIGN", line):
            print("%s:%d: cites a path outside the repository" % (path, i))
            bad += 1
sys.exit(1 if bad else 0)
' 2>&1)
rc=$?
if [ "$rc" -eq 0 ]; then
	ok "no file of src/ or tests/ cites a document outside the repository"
else
	printf '%s\n' "$out" | sed 's/^/# /'
	notok "no file of src/ or tests/ cites a document outside the repository"
fi
out=$(python3 "$top/tests/funclen.py" --dir "$top/src" 2>&1)
rc=$?
printf '%s\n' "$out" | sed 's/^/# /'
if [ "$rc" -eq 0 ]; then
	ok "no function of src/ over 100 lines but HACKING.md's exceptions"
else
	notok "functions of src/ over 100 lines (tests/funclen.py exit $rc)"
fi
mkdir "$tmp/src"
{
	printf 'int planted(void)\n{\n'
	i=0
	while [ $i -lt 100 ]; do echo "	i++;"; i=$((i + 1)); done
	printf '}\n'
} > "$tmp/src/planted.c"
out=$(python3 "$top/tests/funclen.py" --dir "$tmp/src" 2>&1)
rc=$?
if [ "$rc" -eq 1 ] && printf '%s\n' "$out" | grep -q '^LONG planted.c:2 planted() 102 lines$'; then
	ok "planted: a function of 102 lines fails"
else
	printf '%s\n' "$out" | sed 's/^/# /'
	notok "planted: a function of 102 lines fails (exit $rc)"
fi
exit $fail
