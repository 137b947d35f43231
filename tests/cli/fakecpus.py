#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A --tracefs tree of plain files with many busy CPUs (tfs.c's tfs_ncpus():
as many CPUs as its per_cpu directories): K CPUs' sub-buffers of
sys_enter_getpid records, task 1000 + c on CPU c, stamped so that the CPUs'
records interleave one by one (as producers at full speed on every CPU do),
or, with ties, every CPU's k-th record stamped alike.  Used by
tests/cli/stream-many-cpus.t and bench/fake-cpus-cg.py.

  tests/cli/fakecpus.py DIR CPUS RECORDS [--ties]
"""
import os
import re
import shutil
import struct
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LIVE = "/sys/kernel/tracing"
FIXTURE = os.path.join(TOP, "tests", "unit", "fixtures", "host")
SUBBUF = 4096


def source_files():
    """header_page and the getpid format: this machine's, or the fixture's."""
    fmt = os.path.join(LIVE, "events", "syscalls", "sys_enter_getpid", "format")
    if os.path.exists(fmt):
        return os.path.join(LIVE, "events", "header_page"), fmt
    return (os.path.join(FIXTURE, "header_page"),
            os.path.join(FIXTURE, "formats", "syscalls:sys_enter_getpid"))


def make_tree(root, ncpu, n, ties=False):
    header, fmt = source_files()
    ev = os.path.join(root, "events", "syscalls", "sys_enter_getpid")
    os.makedirs(ev)
    os.makedirs(os.path.join(root, "instances"))
    os.makedirs(os.path.join(root, "options"))
    shutil.copy(header, os.path.join(root, "events", "header_page"))
    shutil.copy(fmt, os.path.join(ev, "format"))
    text = open(fmt).read()
    eid = int(re.search(r"^ID: (\d+)", text, re.M).group(1))
    files = {
        "available_events": "syscalls:sys_enter_getpid\n",
        "set_event": "syscalls:sys_enter_getpid\n",
        "tracing_on": "0\n",
        "buffer_size_kb": "1408\n",
        "trace_clock": "[local] global\n",
        "saved_cmdlines": "".join("%d prod%d\n" % (1000 + c, c) for c in range(ncpu)),
        "events/syscalls/enable": "1\n",
        "events/syscalls/sys_enter_getpid/enable": "1\n",
        "events/syscalls/sys_enter_getpid/filter": "none\n",
    }
    for name, data in files.items():
        with open(os.path.join(root, name), "w") as f:
            f.write(data)
    per = n // ncpu
    for c in range(ncpu):
        d = os.path.join(root, "per_cpu", "cpu%d" % c)
        os.makedirs(d)
        with open(os.path.join(d, "stats"), "w") as f:
            f.write("entries: 0\noverrun: 0\ncommit overrun: 0\nbytes: 0\n"
                    "oldest event ts: 0.0\nnow ts: 0.0\ndropped events: 0\nread events: 0\n")
        step = 100 if ties else 100 * ncpu
        ts, out, k = 1000000000 + (0 if ties else 100 * c), bytearray(), 0
        while k < per:
            page = bytearray(SUBBUF)
            struct.pack_into("<Q", page, 0, ts)
            off, first = 16, True
            while k < per and off + 16 <= SUBBUF:
                delta = 0 if first else step
                first = False
                ts += delta
                # type_len 3: 12 bytes of record (common header, __syscall_nr)
                struct.pack_into("<IHBBii", page, off, delta << 5 | 3, eid, 0, 0, 1000 + c, 39)
                off, k = off + 16, k + 1
            struct.pack_into("<Q", page, 8, off - 16)
            ts += step
            out += page
        with open(os.path.join(d, "trace_pipe_raw"), "wb") as f:
            f.write(out)


if __name__ == "__main__":
    if len(sys.argv) < 4:
        sys.exit("usage: fakecpus.py DIR CPUS RECORDS [--ties]")
    make_tree(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), "--ties" in sys.argv[4:])
