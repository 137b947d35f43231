#!/bin/bash
# The decode core on saved raw pages (tests/unit/fixtures/*/, made by capture.sh
# on a real kernel): the text must be the kernel's own `trace` text for the same
# records, line for line; the NDJSON must parse (python3) and agree with that
# text; a page that follows overwritten events must give a "lost" record.
# Every fixture directory with header_page, formats/, cpu0.raw and trace is used.
cd "$(dirname "$0")/../.." || exit 1
bin=tests/unit/bin/decode-fixtures
[ -x "$bin" ] || { printf '1..1\nnot ok 1 - %s not built (make check-unit)\n' "$bin"; exit 1; }
known=tests/unit/fixtures/known-text-differences
# tpctl's own plugins (built by make) print some events as the kernel does
export TPCTL_PLUGIN_DIR=$PWD/plugins
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

dirs=()
for d in tests/unit/fixtures/*/; do
	d=${d%/}
	[ -f "$d/header_page" ] && [ -d "$d/formats" ] && [ -f "$d/cpu0.raw" ] &&
		[ -f "$d/trace" ] && dirs+=("$d")
done
[ ${#dirs[@]} -gt 0 ] || { echo "1..0 # SKIP no fixture directories"; exit 0; }
echo "1..$((${#dirs[@]} * 6))"
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); echo "not ok $n - $1"; }

for d in "${dirs[@]}"; do
	name=$(basename "$d")
	if "$bin" text "$d" > "$tmp/text" 2> "$tmp/err"; then
		ok "$name: every format parses and every page decodes"
	else
		notok "$name: every format parses and every page decodes"
		sed 's/^/# /' "$tmp/err" | head -20
	fi
	# the text plans (src/textplan.c) against libtraceevent, record by record
	TPCTL_TEXTPLAN=check "$bin" text "$d" > "$tmp/text.check" 2> "$tmp/err.check"
	TPCTL_TEXTPLAN=0 "$bin" text "$d" > "$tmp/text.tep" 2> /dev/null
	if ! grep -q "text plan of" "$tmp/err.check" && cmp -s "$tmp/text" "$tmp/text.tep" &&
		cmp -s "$tmp/text" "$tmp/text.check"; then
		ok "$name: text plans write what libtraceevent writes, record for record"
	else
		notok "$name: text plans write what libtraceevent writes"
		grep -A2 "text plan of" "$tmp/err.check" | head -12 | sed 's/^/# /'
		diff -a "$tmp/text.tep" "$tmp/text" | head -6 | sed 's/^/# /'
	fi
	# same number of records, and identical lines apart from the parts of the
	# known events that the kernel itself cannot print reproducibly
	grep -av '^#' "$d/trace" > "$tmp/trace"
	a=$(wc -l < "$tmp/text") b=$(wc -l < "$tmp/trace")
	tests/unit/known-mask.py "$known" < "$tmp/text" > "$tmp/text.cmp" 2> "$tmp/masked"
	tests/unit/known-mask.py "$known" < "$tmp/trace" > "$tmp/trace.cmp" 2> /dev/null
	diff -a "$tmp/trace.cmp" "$tmp/text.cmp" > "$tmp/diff"
	if [ "$a" = "$b" ] && [ "$a" -gt 0 ] && [ ! -s "$tmp/diff" ]; then
		ok "$name: $a lines identical to the kernel's trace ($(cat "$tmp/masked") in known events)"
	else
		notok "$name: text is the kernel's ($a lines, kernel $b)"
		head -20 "$tmp/diff" | sed 's/^/# /'
	fi
	"$bin" json "$d" > "$tmp/json" 2> /dev/null
	python3 - "$tmp/json" "$tmp/trace" "$name" "$d/formats" > "$tmp/py" <<'PY'
import json, os, re, sys
jpath, tpath, name, fdir = sys.argv[1:5]
# name=%conv of each event's print fmt: which text values are decimal, hex or strings
conv = {}
for fn in os.listdir(fdir):
    txt = open(os.path.join(fdir, fn), "rb").read().decode("utf-8", "replace")
    ev = re.search(r"^name: (\S+)", txt, re.M).group(1)
    pf = re.search(r'^print fmt: "((?:[^"\\]|\\.)*)"', txt, re.M)
    conv[ev] = dict(re.findall(r"([A-Za-z_][A-Za-z0-9_]*)=%[-+ #0]*\d*(?:ll|l|h|hh|z)?([duxs])",
                               pf.group(1) if pf else ""))
recs, bad = [], []
for i, raw in enumerate(open(jpath, "rb")):
    try:
        recs.append(json.loads(raw.decode("utf-8")))
    except Exception as e:
        bad.append("line %d: %s" % (i + 1, e))
text = open(tpath, "rb").read().decode("utf-8", "replace").split("\n")[:-1]
res = []
res.append((not bad and len(recs) == len(text),
            "%s: %d JSON lines parse, one per kernel line (%d)" % (name, len(recs), len(text))))
hdr = re.compile(r"^ *(.{1,16}?)-(\d+) +\[(\d{3})\] (\S{5}) +(\d+)\.(\d{6}): (.*)$")
checks, errs = 0, []
# a task's name as the records so far give it: JSON's name at the event's time,
# where the kernel's text has the name saved_cmdlines held when it was read
names = {}
PAIRS = (("comm", "pid"), ("prev_comm", "prev_pid"), ("next_comm", "next_pid"),
         ("parent_comm", "parent_pid"), ("newcomm", "pid"))
for r, line in zip(recs, text):
    m = hdr.match(line)
    if not m or r.get("type") != "event":
        errs.append("no header match: %r" % line[:80]); continue
    comm, pid, cpu, flags, sec, usec, rest = m.groups()
    fl = r.get("fields") or {}
    for c, p in PAIRS:
        if isinstance(fl.get(c), str):
            names[fl.get(p, r["pid"])] = fl[c][:15]
    if r.get("event") == "sched_process_exec" and isinstance(fl.get("filename"), str):
        names[r["pid"]] = fl["filename"].rsplit("/", 1)[-1][:15]
    us = (r["ts_ns"] + 500) // 1000
    want = (comm, int(pid), int(cpu), flags, int(sec), int(usec))
    jcomm = comm if r["comm"] == names.get(r["pid"]) else r["comm"]
    got = (jcomm, r["pid"], r["cpu"], r["flags"], us // 1000000, us % 1000000)
    checks += 1
    if want != got:
        errs.append("header %r != %r" % (got, want)); continue
    f = r["fields"]
    if rest.startswith(r["event"] + ": "):
        body = rest[len(r["event"]) + 2:]
        # every name=value pair of the text whose value is a plain decimal or
        # a string must be the JSON field of that name
        cv = conv.get(r["event"], {})
        for k, v in re.findall(r"(?:^| )([A-Za-z_][A-Za-z0-9_]*)=(\S+)", body):
            if k not in f or k not in cv:
                continue
            jv, c = f[k], cv[k]
            if isinstance(jv, int) and c in "dux":
                try:
                    tv = int(v, 16 if c == "x" else 10)
                except ValueError:
                    continue
                checks += 1
                # the text may print a wider field through a narrower cast
                if (tv - jv) % (1 << 32):
                    errs.append("%s %s=%s json %r" % (r["event"], k, v, jv))
            elif isinstance(jv, str) and c == "s" and jv and not re.search(r"\s", jv):
                checks += 1
                if v != jv:
                    errs.append("%s %s=%s json %r" % (r["event"], k, v, jv))
    elif rest.startswith("sys_") and "(" in rest:
        for k, v in re.findall(r"([A-Za-z_][A-Za-z0-9_]*): (0x[0-9a-f]+|\d+)", rest):
            checks += 1
            # the text is the 8 bytes stored, JSON the declared type's
            # (an int dfd of 0xffffff9c is -100, a u32 the low half of 8 bytes): a
            # value of 32 bits agrees in the text's low 32 bits
            tv = int(v, 0)
            if k in f and (tv - f[k]) % (1 << (32 if -(1 << 31) <= f[k] < 1 << 32 else 64)):
                errs.append("%s %s=%s json %r" % (r["event"], k, v, f[k]))
    elif " -> 0x" in rest:
        checks += 1
        if int(rest.split(" -> ")[1], 16) != f["ret"] % (1 << 64):
            errs.append("%s ret %s json %r" % (r["event"], rest, f["ret"]))
    elif r["system"] == "ftrace":
        checks += 1
        # the text is "func: " + buf, buf with its own newline
        if not (f["buf"].rstrip("\n") and rest.endswith(f["buf"].rstrip("\n").replace("\ufffd", "\ufffd"))):
            errs.append("print %r vs %r" % (f["buf"], rest))
res.append((not errs and checks > len(recs),
            "%s: %d JSON values equal the kernel's text" % (name, checks)))
for ok, msg in res:
    print(("ok" if ok else "not ok") + " - " + msg)
for e in (bad + errs)[:15]:
    print("# " + e)
PY
	# number the two python results
	while IFS= read -r l; do
		case $l in
		"ok - "*|"not ok - "*) n=$((n + 1)); echo "${l/ - / $n - }" ;;
		*) echo "$l" ;;
		esac
	done < "$tmp/py"
	[ "$(grep -c '^ok\|^not ok' "$tmp/py")" = 2 ] || { notok "$name: JSON checker ran"; notok "$name: JSON checker ran"; }
	"$bin" lost "$d" > "$tmp/lost" 2> /dev/null
	if [ ! -s "$d/lost.raw" ]; then
		n=$((n + 1)); echo "ok $n # SKIP $name: no lost.raw"
	elif head -1 "$tmp/lost" | python3 -c 'import json,sys; r=json.loads(sys.stdin.read()); sys.exit(0 if r["type"] == "lost" and r["cpu"] == 0 and (r["count"] is None or r["count"] > 0) else 1)'; then
		ok "$name: a page after overwritten events starts with a lost record ($(head -1 "$tmp/lost"))"
	else
		notok "$name: a page after overwritten events starts with a lost record"
		head -2 "$tmp/lost" | sed 's/^/# /'
	fi
done
