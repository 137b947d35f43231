#!/bin/bash
# The JSON writer: every line parses with python3's json, strings decode to what
# the escaping rules (docs/DESIGN.md section 2) say, integers stay exact to 64 bits.
bin=$(dirname "$0")/bin/json
[ -x "$bin" ] || { printf '1..1\nnot ok 1 - %s not built (make check-unit)\n' "$bin"; exit 1; }
"$bin" | python3 -c '
import json, sys
expect = {
    "ascii": "hello, world",
    "quote_backslash": "a\"b\\c",
    "controls": "\x01\x1f\n\t\r\x7f",
    "nul": "a\x00b",
    "utf8_2_3_4": "\u00e9\u20ac\U0001F600",
    "lone_continuation": "a\ufffdz",
    "truncated_3": "a\ufffd\ufffd",
    "overlong_slash": "\ufffd\ufffd",
    "overlong_3": "\ufffd\ufffd\ufffd",
    "surrogate": "\ufffd\ufffd\ufffd",
    "beyond_10ffff": "\ufffd\ufffd\ufffd\ufffd",
    "ff_fe": "\ufffd\ufffd",
    "max_10ffff": "\U0010FFFF",
    "integers": [-2**63, 2**63 - 1, 2**64 - 1, -1, 0],
}
lines = sys.stdin.buffer.read().split(b"\n")[:-1]
print("1..%d" % (len(expect) + 1))
n = 0
seen = set()
for raw in lines:
    n += 1
    try:
        rec = json.loads(raw.decode("utf-8"))
    except Exception as e:
        print("not ok %d - line %d does not parse: %s: %r" % (n, n, e, raw))
        continue
    c = rec["case"]
    seen.add(c)
    ok = rec["value"] == expect[c] and (c != "integers" or
        (rec["t"] is True and rec["n"] is None and rec["empty"] == [] and rec["nested"] == {}))
    print("%s %d - %s" % ("ok" if ok else "not ok", n, c))
    if not ok:
        print("# got %r want %r" % (rec["value"], expect[c]))
n += 1
print("%s %d - every case was written" % ("ok" if seen == set(expect) else "not ok", n))
'
