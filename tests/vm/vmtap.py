# SPDX-License-Identifier: GPL-2.0-or-later
"""Shared by tests/vm/*.t: TAP output and readers for what the VM sent back.

The VM run (tests/vm/run-vm.sh check) leaves in tests/vm/work/out/ the
stdout, stderr and exit status of every tpctl step (<step>.out/.err/.rc) next
to the kernel's own view of the same thing (trace text, format files, enable
and filter files).  The checks here compare the two.
"""
import glob
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
WORK = os.path.join(HERE, "work")
OUT = os.path.join(WORK, "out")


class Tap:
    def __init__(self):
        self.n = 0
        self.failed = 0

    def diag(self, text, err=False):
        for line in str(text).splitlines() or [""]:
            print("# " + line)
        if err:
            # a failure's diag also on stderr, where prove shows it without -v
            # (a CI log's tail): the first 3,000 characters
            out = "".join("# %s\n" % l for l in str(text).splitlines())
            sys.stderr.write(out[:3000] + ("# ...\n" if len(out) > 3000 else ""))

    def ok(self, cond, name, diag=None):
        self.n += 1
        print("%s %d - %s" % ("ok" if cond else "not ok", self.n, name))
        if not cond:
            self.failed += 1
            sys.stdout.flush()
            sys.stderr.write("# not ok %d - %s\n" % (self.n, name))
            if diag:
                self.diag(diag, err=True)
        sys.stdout.flush()
        return cond

    def skip(self, name, reason):
        self.n += 1
        print("ok %d - %s # SKIP %s" % (self.n, name, reason))

    def done(self):
        print("1..%d" % self.n)
        sys.exit(1 if self.failed else 0)


def results_or_fail(tap):
    """One failing check, with the end of the serial log, when the VM run is missing."""
    if os.path.exists(os.path.join(WORK, "out.ok")):
        return True
    log = os.path.join(WORK, "serial.log")
    tail = ""
    if os.path.exists(log):
        with open(log, "rb") as f:
            tail = f.read()[-3000:].decode("utf-8", "replace")
    tap.ok(False, "the VM run sent its results back (run: make check-vm)",
           "no results in %s\n%s" % (OUT, tail))
    # prove shows stderr without -v: one line on where the guest was
    sys.stderr.write("# no VM results; %s\n" % kernel_summary())
    tap.done()


def part_or_skip(tap, part, what):
    """The checks of a guest part (its results in OUT/part): one skip and the end without them."""
    results_or_fail(tap)
    if not os.path.exists(path(part)):
        tap.skip(what, "the guest ran no %s part" % part)
        tap.done()


def kernel_summary():
    """The guest's last step marker and the kernel's first complaint, from kernel.log."""
    step, bug = "no step started", "no oops, lockup or stall reported"
    try:
        with open(os.path.join(WORK, "kernel.log"), "rb") as f:
            lines = f.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return "no kernel log"
    for line in lines:
        m = re.search(r"tpctl-vm: step (\S+)", line)
        if m:
            step = "last step " + m.group(1)
        elif bug.startswith("no ") and re.search(
                r"BUG:|Oops|soft lockup|rcu.*stall|hung_task|blocked for more than", line):
            bug = line.strip()
    return "%s; %s" % (step, bug)


def path(name):
    return os.path.join(OUT, name)


def read(name, default=b""):
    try:
        with open(path(name), "rb") as f:
            return f.read()
    except OSError:
        return default


def text(name):
    return read(name).decode("utf-8", "replace")


def rc(step):
    try:
        return int(read(step + ".rc").strip())
    except ValueError:
        return None


def step_diag(step):
    return "exit status %s\nstderr: %s\nstdout: %s" % (
        rc(step), text(step + ".err")[:1500], text(step + ".out")[:1500])


def json_doc(step):
    """The step's stdout as one JSON document, or None."""
    try:
        return json.loads(read(step + ".out"))
    except ValueError:
        return None


def ndjson(step):
    """The step's stdout as NDJSON: (objects, bad lines)."""
    objs, bad = [], []
    for line in read(step + ".out").split(b"\n"):
        if not line.strip():
            continue
        try:
            objs.append(json.loads(line))
        except ValueError:
            bad.append(line)
    return objs, bad


def module_events():
    """Event names declared in module/sample_trace_events.h, in order."""
    with open(os.path.join(TOP, "module", "sample_trace_events.h")) as f:
        src = f.read()
    names = []
    for m in re.finditer(r"^(TRACE_EVENT\w*|DEFINE_EVENT\w*)\(\s*(\w+)(?:,\s*(\w+))?", src, re.M):
        macro, a, b = m.groups()
        names.append(b if macro.startswith("DEFINE_EVENT") else a)
    return names


def module_features():
    """The ST_HAVE_* flags the module was built with (from the Kbuild .cmd file)."""
    feats = set()
    for cmd in glob.glob(os.path.join(WORK, "module-*", ".sample_trace.o.cmd")):
        with open(cmd) as f:
            feats |= set(re.findall(r"-DST_HAVE_(\w+)", f.read()))
    return feats


def parse_format(data):
    """A tracefs format file: name, id, fields [(name, type, offset, size, signed)], print fmt."""
    fmt = {"fields": []}
    for line in data.decode("utf-8", "replace").splitlines():
        if line.startswith("name: "):
            fmt["name"] = line[6:].strip()
        elif line.startswith("ID: "):
            fmt["id"] = int(line[4:])
        elif line.startswith("print fmt: "):
            fmt["print_fmt"] = line[len("print fmt: "):]
        else:
            m = re.match(r"\s*field:(.*);\s*offset:(\d+);\s*size:(\d+);\s*signed:(\d+);", line)
            if m:
                decl = m.group(1).strip()
                fm = re.match(r"(.*?)\s*\b(\w+)(\[.*\])?$", decl)
                name = fm.group(2)
                ftype = (fm.group(1) + (fm.group(3) or "")).strip()
                fmt["fields"].append((name, ftype, int(m.group(2)), int(m.group(3)),
                                      m.group(4) == "1"))
    return fmt


TRACE_LINE = re.compile(rb"^\s*(.*)-(\d+)\s+\[(\d+)\]\s+(\S+)\s+(\d+)\.(\d+): ([\w-]+): (.*)$")


def trace_records(data):
    """Records of a kernel `trace` text: dicts with comm, pid, cpu, flags, ts_us, event, body."""
    recs = []
    for line in data.split(b"\n"):
        if not line or line.startswith(b"#"):
            continue
        m = TRACE_LINE.match(line)
        if not m:
            recs.append({"unparsed": line})
            continue
        comm, pid, cpu, flags, sec, usec, event, body = m.groups()
        recs.append({"comm": comm.decode("utf-8", "replace"), "pid": int(pid), "cpu": int(cpu),
                     "flags": flags.decode(), "ts_us": int(sec) * 1000000 + int(usec),
                     "event": event.decode(), "body": body, "line": line})
    return recs


def trace_lines(data):
    """The record lines of a kernel `trace` text (the # header dropped)."""
    return [l for l in data.split(b"\n") if l and not l.startswith(b"#")]


def mask_bits(hexmask):
    """Set bit numbers of a kernel %*pb bitmask ("00000000,00000003" -> [0, 1])."""
    value = int(hexmask.replace(",", ""), 16)
    return [i for i in range(value.bit_length()) if value >> i & 1]


def _s(b):
    return b.decode("utf-8", "replace")


# What the kernel's text says about each field, per event (see the TP_printk
# of module/sample_trace_events.h).  Values are in the JSON form of docs/DESIGN.md section 2:
# strings (invalid UTF-8 as U+FFFD), integers, integer arrays, bit lists.
_SIMPLE = re.compile(rb"^foo (.*) (-?\d+)$")
_BODIES = {
    "foo_bar": re.compile(rb"^foo=(.*) bar=(-?\d+) state=\S* flags=\S* list=\{(.*)\} str=(.*)"
                          rb" bits=([0-9a-f,]+)(?: cpum=([0-9a-f,]+))?(?: vstr=(.*))?$", re.S),
    "foo_with_template_print": re.compile(rb"^bar (.*) (-?\d+) level=\w+$"),
    "foo_rel_loc": re.compile(rb"^foo_rel_loc (.*), (-?\d+), ([0-9a-f,]+)(?:, ([0-9a-f,]+))?$",
                              re.S),
}


def expected_fields(event, body):
    """Field values of one record, from the kernel's text, or None if it does not parse."""
    m = _BODIES.get(event, _SIMPLE).match(body)
    if not m:
        return None
    g = m.groups()
    if event == "foo_bar":
        f = {"foo": _s(g[0]), "bar": int(g[1]),
             "list": [int(x, 0) for x in _s(g[2]).split(",") if x],
             "str": _s(g[3]), "bits": mask_bits(_s(g[4]))}
        if g[5] is not None:
            f["cpum"] = mask_bits(_s(g[5]))
        if g[6] is not None:
            f["vstr"] = _s(g[6])
        return f
    if event == "foo_rel_loc":
        f = {"foo": _s(g[0]), "bar": int(g[1]), "bitmask": mask_bits(_s(g[2]))}
        if g[3] is not None:
            f["cpumask"] = mask_bits(_s(g[3]))
        return f
    return {"foo": _s(g[0]), "bar": int(g[1])}


def words_to_bits(words, width=64):
    """An array of unsigned longs (low word first) as a bit list."""
    bits = []
    for i, w in enumerate(words):
        bits += [i * width + b for b in range(width) if int(w) >> b & 1]
    return bits


def compare_fields(want, got):
    """Differences between expected field values and a JSON record's fields."""
    diffs = []
    for name, value in want.items():
        if name not in got:
            diffs.append("field %r missing" % name)
            continue
        have = got[name]
        if isinstance(value, list) and name in ("bits", "cpum", "bitmask", "cpumask"):
            # A bit list per docs/DESIGN.md section 2; an array of words also says the same thing.
            if have != value and not (isinstance(have, list) and words_to_bits(have) == value):
                diffs.append("%s: kernel %r, tpctl %r" % (name, value, have))
        elif have != value:
            diffs.append("%s: kernel %r, tpctl %r" % (name, value, have))
    return diffs
