#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The command blocks of README.md, for tests/cli/readme.t.

A command block is a fenced block with lines that start with "$ ": each such
line is a command (a line ending in |, \\, && or || goes on with the next
line), the lines after it up to the next command its shown output.  "sudo "
where a command starts is dropped (the tests run as root).  What a command
must do:

- shown output whose first line is a "tpctl: ..." error: fail (status 1 or
  more), with that line as the first line of its standard error;
- followed by "echo $?" and a number: exit with that number;
- "echo $?" itself: print the number shown;
- anything else: exit 0.

Prints bash assignments of arrays, one entry per command, in README order:
C_BLOCK (the block's number), C_LINE (the README line of the "$ "), C_CMD,
C_WANT (a status, or "fail"), C_ERR (the first stderr line wanted, or
empty), C_OUT (the first stdout line wanted, or empty).
"""
import re
import shlex
import sys

CONT = ("|", "\\", "&&", "||")
SUDO = re.compile(r"(^|[;&|(]\s*)sudo\s+")


def blocks(lines):
    """(first line number, [(line number, text)]) of every fenced block."""
    inside, cur, start = False, [], 0
    for n, line in enumerate(lines, 1):
        if line.startswith("```"):
            if inside:
                yield start, cur
            inside, cur, start = not inside, [], n
        elif inside:
            cur.append((n, line.rstrip("\n")))


def commands(body):
    """[(line number, command, [output lines])] of one block."""
    out, i = [], 0
    while i < len(body):
        n, line = body[i]
        i += 1
        if not line.startswith("$ "):
            if out:
                out[-1][2].append(line)
            continue
        cmd = line[2:]
        while cmd.rstrip().endswith(CONT) and i < len(body):
            cmd += "\n" + body[i][1]
            i += 1
        out.append((n, SUDO.sub(r"\1", cmd), []))
    return out


def main():
    lines = open(sys.argv[1] if len(sys.argv) > 1 else "README.md").readlines()
    rows = []
    nblock = 0
    for _, body in blocks(lines):
        cmds = commands(body)
        if not cmds:
            continue
        nblock += 1
        for k, (n, cmd, shown) in enumerate(cmds):
            first = next((s for s in shown if s.strip()), "")
            want, err, out = "0", "", ""
            if cmd.strip() == "echo $?":
                out = first.strip()
            elif first.startswith("tpctl: "):
                want, err = "fail", first
            if k + 1 < len(cmds) and cmds[k + 1][1].strip() == "echo $?":
                nxt = next((s for s in cmds[k + 1][2] if s.strip()), "").strip()
                if nxt.isdigit():
                    want = nxt
            rows.append((nblock, n, cmd, want, err, out))
    for i, row in enumerate(rows):
        names = ("C_BLOCK", "C_LINE", "C_CMD", "C_WANT", "C_ERR", "C_OUT")
        print(" ".join("%s[%d]=%s" % (name, i, shlex.quote(str(v)))
                       for name, v in zip(names, row)))


if __name__ == "__main__":
    main()
