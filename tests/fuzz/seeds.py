#!/usr/bin/env python3
# Seed corpora for the fuzz targets, made from the unit-test fixtures.
#   seeds.py TOP OUTDIR [DAT_WRITER]
# OUTDIR/<target>/<sha1> for every target of fuzz.mk.  DAT_WRITER is
# tests/unit/bin/dat (it writes trace.dat files from tests/unit/dat).
import hashlib
import os
import random
import re
import struct
import subprocess
import sys
import tempfile

top, out = sys.argv[1], sys.argv[2]
dat_writer = sys.argv[3] if len(sys.argv) > 3 else None
fix = os.path.join(top, "tests", "unit", "fixtures")


def put(target, data):
    d = os.path.join(out, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, hashlib.sha1(data).hexdigest()), "wb") as f:
        f.write(data)


def pages(path, size=4096):
    try:
        raw = open(path, "rb").read()
    except OSError:
        return []
    return [raw[i:i + size] for i in range(0, len(raw) - size + 1, size)]


# page: one flag byte (bit 0 json, bit 1 vm-6.1 formats, bit 2 two CPUs, bit 3 stacks
# held), pages
for name, flag in (("host", 0), ("vm-6.1", 2)):
    d = os.path.join(fix, name)
    allp = []
    for raw in ("cpu0.raw", "cpu1.raw", "lost.raw"):
        allp += pages(os.path.join(d, raw))
    for i, p in enumerate(allp):
        put("page", bytes([flag | (i & 1)]) + p)
    if len(allp) >= 2:
        put("page", bytes([flag | 5]) + allp[0] + allp[-1])

# page, events held for their stacks (bit 3): a marker write followed by its kernel
# stack (10 frames) and user stack, on one hand-built page of the host's layout
def fmt_id(name):
    m = re.search(r"^ID: (\d+)", open(os.path.join(fix, "host", "formats", name)).read(), re.M)
    return int(m.group(1))


def rec(payload, delta=0):
    payload += b"\0" * (-len(payload) % 4)
    return struct.pack("<I", (len(payload) // 4) | delta << 5) + payload


try:
    hdr = lambda i: struct.pack("<HBBi", i, 1, 0, 42)
    body = rec(hdr(fmt_id("ftrace:print")) + struct.pack("<Q", 0xffffffff81000000) + b"hi\n\0")
    body += rec(hdr(fmt_id("ftrace:kernel_stack")) + struct.pack("<ii", 10, 0) +
                b"".join(struct.pack("<Q", 0xffffffff81000000 + 0x100 * i) for i in range(10)), 10)
    body += rec(hdr(fmt_id("ftrace:user_stack")) + struct.pack("<Ii", 42, 0) +
                struct.pack("<8Q", 0x7f0000001234, 0x401000, 0, 0, 0, 0, 0, 0), 10)
    page = struct.pack("<QQ", 1000000000, len(body)) + body
    page += b"\0" * (4096 - len(page))
    for flag in (8 | 1, 8 | 1 | 4, 0):
        put("page", bytes([flag]) + page)
except OSError:
    pass

# format: flag byte (system), 16-bit length, format text, a record for it
field_re = re.compile(r"field:(.*?);\s*offset:(\d+);\s*size:(\d+);")
for name in ("host", "vm-6.1"):
    d = os.path.join(fix, name, "formats")
    if not os.path.isdir(d):
        continue
    for fn in sorted(os.listdir(d)):
        text = open(os.path.join(d, fn), "rb").read()
        sysname = fn.split(":")[0]
        flag = {"syscalls": 1, "ftrace": 2, "sched": 3}.get(sysname, 0)
        fields = [(m.group(1), int(m.group(2)), int(m.group(3)))
                  for m in field_re.finditer(text.decode("latin-1"))]
        end = max([o + s for _, o, s in fields] or [8])
        rec = bytearray(random.Random(fn).randbytes(end))
        tail = b"hello\0"
        for decl, off, size in fields:
            if decl.startswith(("__data_loc", "__rel_loc")) and size == 4:
                base = len(rec) - (off + 4 if decl.startswith("__rel_loc") else 0)
                struct.pack_into("<I", rec, off, (len(tail) << 16) | base)
        rec += tail
        put("format", bytes([flag]) + struct.pack("<H", len(text)) + text + bytes(rec))

# dat: trace.dat files from the dat writer (version 7 and 6, complete and cut short)
if dat_writer and os.access(dat_writer, os.X_OK):
    with tempfile.TemporaryDirectory() as tmp:
        for extra in ([], ["--kill", "1"], ["--kill", "2"], ["--version", "6"],
                      ["--version", "6", "--kill", "2"]):
            f = os.path.join(tmp, "t.dat")
            if subprocess.call([dat_writer, os.path.join(top, "tests", "unit", "dat"), f] + extra,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) == 0:
                data = open(f, "rb").read()
                put("dat", data)
                put("dat", data + b"\0")	# odd length: reported as JSON
                # length 4n+2: written as a Perfetto trace
                put("dat", data + b"\0" * ((2 - len(data)) % 4 or 4))

# json: writer programs (see fuzz_json.c), random and hand-made
rnd = random.Random(6)
for n in (8, 32, 128, 512, 2048):
    for _ in range(4):
        put("json", rnd.randbytes(n))
hostile = [b"\xc0\xaf", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"a\0b", b"\x01\x1f\x7f\"\\",
           b"\xe2\x82", b"\xf0\x9f\x98\x80"]
for pretty in (0, 1):
    prog = bytes([pretty, 0])  # an object; then member h: string h for each h
    for h in hostile:
        prog += bytes([3, len(h)]) + h + bytes([0, len(h)]) + h   # member h: string h
    prog += bytes([9])
    put("json", prog)

# flame: stacks (see fuzz_flame.c: frames, then each frame's kind, name length, name; then
# five bytes of weight and a shift), random and with names that are markup or split lines
for n in (16, 64, 256, 1024):
    for _ in range(4):
        put("flame", rnd.randbytes(n))
names = [b"<svg onload=1>", b"a;b", b"x\ny", b"&amp;", b"]]>", b"\xef\xbf\xbe", b"\xff\xfe", b"'\""]
prog = b""
for i, h in enumerate(names):
    prog += bytes([2, 0, 4]) + b"comm" + bytes([i % 3, len(h)]) + h + bytes([0, 0, 1, 0, i + 1, 0])
put("flame", prog)

# traceset: a flag byte (even: -e trace=, odd: -e signal=), then the set
for s in (b"open,read,write", b"!write", b"%file,%network", b"all", b"none", b"!%desc,close",
          b"%process,!read", b"execve,,exit_group,", b"%net,%signal,%ipc,%memory", b"opne"):
    put("traceset", b"\0" + s)
for s in (b"SIGINT,TERM,9", b"!SIGCHLD", b"all", b"none", b"64,1,usr1", b"!chld,SIGWINCH"):
    put("traceset", b"\1" + s)

# stopon: the --stop-on argument, with the fields of the host fixture's events
for name in sorted(os.listdir(os.path.join(fix, "host", "formats"))):
    text = open(os.path.join(fix, "host", "formats", name), "rb").read().decode("latin-1")
    fields = [m.group(1).split()[-1].split("[")[0]
              for m in field_re.finditer(text) if not m.group(1).startswith("__data_loc")]
    fields = [f for f in fields if not f.startswith("common_")] or ["common_pid"]
    put("stopon", name.encode())
    put("stopon", ("%s if %s == 1" % (name, fields[0])).encode())
    put("stopon", ("  %s\tif (%s > 2 && common_pid != 0) || %s & 4" %
                   (name, fields[-1], fields[0])).encode())
for s in (b"sched:sched_switch if prev_comm ~ \"bash*\"", b"sched:sched_switch if",
          b"sched:sched_switch if  ", b"nosuch", b"a:b:c", b"ftrace:print if buf == 'x\\'y'",
          b"sched:sched_switch if next_pid == 1\ntraceon"):
    put("stopon", s)

# sysdec: a call (see fuzz_sysdec.c): number (2 bytes), six arguments and the return value
# (8 bytes each), a byte of -s << 1 | returned, a mask of the string arguments, the strings
def call(name, args, ret, strs=b"", mask=0, strsize=32, returned=1):
    nr = {"read": 0, "write": 1, "openat": 257, "mmap": 9, "ioctl": 16, "clone": 56,
          "rt_sigaction": 13, "futex": 202, "execve": 59, "fcntl": 72}[name]
    args = (list(args) + [0] * 6)[:6]
    return (struct.pack("<H", nr) + b"".join(struct.pack("<Q", a & (2**64 - 1)) for a in args) +
            struct.pack("<q", ret) + bytes([(strsize & 0x7f) << 1 | returned, mask]) + strs)


for c in (call("openat", [-100, 0x7f0000001000, 0o2101102, 0o644], 3, b"/etc/hostname\0", 2),
          call("openat", [-100, 0x7f0000001000, ~0, ~0], -2, b"\xff\n\"x\0", 2),
          call("write", [1, 0x7f0000002000, 12], 12, b"hello\tworld\n", 2),
          call("read", [3, 0x7f0000002000, -1], -14),
          call("mmap", [0, 4096, 3, 0x22, -1, 0], 0x7f0000003000),
          call("ioctl", [1, 0x5401, 0x7ffe0000], -25), call("ioctl", [1, ~0, ~0], 0),
          call("clone", [~0, 0, 0, 0, 0], 1234), call("rt_sigaction", [2, 0x1000, 0, 8], 0),
          call("futex", [0x1000, ~0, 1, 0, 0, 0], -110),
          call("execve", [0x1000, 0x2000, 0x3000], 0, b"/bin/true\0", 1, 0),
          call("fcntl", [3, 4, ~0], 0, returned=0)):
    put("sysdec", c)
