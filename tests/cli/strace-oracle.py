#!/usr/bin/env python3
"""
strace-oracle.py TPCTL: each command of the corpus under `strace -f -o` and
under `tpctl strace -f -o`, compared process by process (pids mapped in the
order they appear) after both sides lose what a reader without the strings
cannot know: quoted strings, structs, arrays, addresses and comments become
"_", an unfinished call is joined with its resumption, the padding before
" = " is one space.  Prints TAP: a line per command (at least 90 % of
strace's lines equal), the total (at least 95 %), and the lines that differ
as comments.  Then `-c -f` over a few commands: the calls and errors of
every syscall in tpctl's table equal strace's (execve's calls within one).
SEGV in the corpus is a program that writes through a null pointer, built
here with cc.  The caller holds the live-tracefs lock.
"""
import difflib
import os
import re
import resource
import subprocess
import sys
import tempfile

CORPUS = [
    "true",
    "cat /etc/hostname",
    "ls /",
    "cat /nonexistent",
    "sh -c 'echo hi | cat'",
    "sh -c 'exit 3'",
    "sh -c 'kill -TERM $$'",
    "sh -c 'sleep 0.05 & wait'",
    "head -c 100 /dev/zero",
    "dd if=/dev/zero of=/dev/null bs=512 count=20",
    "sh -c 'mkdir /tmp/tpctl-oracle.$$ && rmdir /tmp/tpctl-oracle.$$'",
    "sh -c 'yes | head -1'",
    "env true",
    "sh -c 'ls /nonexistent; true'",
    # killed by a fault: --- SIGSEGV {si_code=SEGV_MAPERR ...} --- and +++ killed by SIGSEGV +++
    "SEGV",
    # a signal caught: its --- line, rt_sigreturn, the handler's write
    "sh -c 'trap \"echo got\" USR1; kill -USR1 $$; exit 0'",
    # a child's SIGCHLD left at its default action (ignored): strace sees it stop perl
    "perl -e 'if (fork) { wait } else { exit 0 }'",
]
SUMMARY = [
    "ls /",
    "cat /nonexistent",
    "sh -c 'echo hi | cat'",
    "dd if=/dev/zero of=/dev/null bs=512 count=20",
]
SEGV_C = "int main(void) { *(volatile int *)0 = 1; return 0; }\n"
QUOTED = r'"(\\.|[^"\\])*"(\.\.\.)?'
# paths kept (tpctl strace --strings): the strings of these calls are data or
# what the kernel wrote back, which tpctl does not fetch (prctl's name is
# behind an unsigned long); readlink's path is its first string, the rest its
# answer
DATA_CALLS = ("read", "write", "pread64", "pwrite64", "getrandom", "sendto", "recvfrom",
              "getcwd", "prctl")
ANSWER_AFTER_FIRST = ("readlink", "readlinkat")


def keep_strings(text, kept):
    """the paths of a line set aside in kept (a mark NUL N NUL in their place), the rest _"""
    name = re.match(r"\w+", text)
    name = name.group(0) if name else ""
    n = [0]

    def one(m):
        n[0] += 1
        if name in DATA_CALLS or (name in ANSWER_AFTER_FIRST and n[0] > 1):
            return "_"
        kept.append(m.group(0))
        return "\0%d\0" % (len(kept) - 1)
    return re.sub(QUOTED, one, text)


def norm_args(text, paths=False):
    """paths: the strings tpctl strace --strings fetches stay (outside structs and arrays)"""
    kept = []
    text = keep_strings(text, kept) if paths else re.sub(QUOTED, "_", text)
    for _ in range(5):
        text = re.sub(r"\{[^{}]*\}", "_", text)
        text = re.sub(r"\[[^\[\]]*\]", "_", text)
    text = re.sub(r" ?/\* .*? \*/", "", text)
    text = re.sub(r"0x[0-9a-f]+", "_", text)
    text = re.sub(r"(?<=[(, ])\?(?=[,)])", "_", text)
    text = text.replace("~_", "_")
    # the tracer is the parent of the command: its pid differs
    text = re.sub(r"^getppid\(\) += \d+", "getppid() = _", text)
    text = re.sub(r"\0(\d+)\0", lambda m: kept[int(m.group(1))], text)
    return re.sub(r"\s+= ", " = ", text)


def lines_by_pid(path):
    procs, order, pending = {}, [], {}
    for line in open(path, errors="replace"):
        m = re.match(r"(\d+)\s+(.*)$", line.rstrip("\n"))
        if not m:
            continue
        pid, text = m.group(1), m.group(2)
        if pid not in procs:
            procs[pid] = []
            order.append(pid)
        if text.endswith(" <unfinished ...>"):
            pending[pid] = text[: -len(" <unfinished ...>")]
            continue
        r = re.match(r"<\.\.\. \w+ resumed>(.*)$", text)
        if r and pid in pending:
            text = pending.pop(pid) + r.group(1)
        procs[pid].append(text)
    for pid, text in pending.items():
        procs[pid].append(text + " <unfinished ...>")
    return [procs[p] for p in order], order


def mapped(lists, order, paths=False):
    """the pids in the text are "P" (which process a line is of is the comparison's)"""
    out = []
    for lines in lists:
        out.append([re.sub(r"\b\d+\b", lambda m: "P" if m.group(0) in order else m.group(0),
                           norm_args(t, paths)) for t in lines])
    return out


def pair(s, t):
    """each of strace's processes with the closest of tpctl's, greedily"""
    left, out = list(range(len(t))), []
    for sl in s:
        best, score = None, -1.0
        for j in left:
            r = difflib.SequenceMatcher(None, sl, t[j], autojunk=False).ratio()
            if r > score:
                best, score = j, r
        if best is not None:
            left.remove(best)
        out.append(t[best] if best is not None else [])
    return out


def command(cmd, tmp):
    """SEGV: the program built in tmp"""
    if cmd != "SEGV":
        return cmd
    if not os.path.exists(tmp + "/segv"):
        with open(tmp + "/segv.c", "w") as f:
            f.write(SEGV_C)
        subprocess.run(["cc", "-o", tmp + "/segv", tmp + "/segv.c"], check=True)
    return tmp + "/segv"


def compare(s_path, t_path, paths=False):
    """strace's processes and, paired with each, tpctl's: their lines normalised"""
    s, so = lines_by_pid(s_path)
    t, to = lines_by_pid(t_path)
    s, t = mapped(s, so, paths), mapped(t, to, paths)
    return s, pair(s, t)


def score(s, t):
    """(strace's lines that tpctl's equal, strace's lines, the lines that differ)"""
    eq, diffs = 0, []
    for i, sl in enumerate(s):
        tl = t[i]
        sm = difflib.SequenceMatcher(None, sl, tl, autojunk=False)
        eq += sum(b.size for b in sm.get_matching_blocks())
        for tag, a1, a2, b1, b2 in sm.get_opcodes():
            if tag != "equal":
                diffs += ["- " + x for x in sl[a1:a2]] + ["+ " + x for x in tl[b1:b2]]
    return eq, sum(len(x) for x in s), diffs


def run(tpctl, cmd, tmp):
    cmd = command(cmd, tmp)
    subprocess.run("strace -f -o %s/s.txt %s >/dev/null 2>&1" % (tmp, cmd), shell=True)
    subprocess.run("%s strace -f -o %s/t.txt -- %s >/dev/null 2>&1" % (tpctl, tmp, cmd),
                   shell=True)
    return compare(tmp + "/s.txt", tmp + "/t.txt")


def table(path):
    """-c's table: {syscall: (calls, errors)}, the total row left out"""
    rows = {}
    for line in open(path, errors="replace"):
        f = line.split()
        if len(f) in (5, 6) and re.fullmatch(r"[\d.]+", f[0]) and f[-1] != "total":
            rows[f[-1]] = (int(f[3]), int(f[4]) if len(f) == 6 else 0)
    return rows


def summary(tpctl, cmd, tmp, n):
    """-c -f: tpctl's calls and errors against strace's, syscall by syscall"""
    subprocess.run("strace -c -f -o %s/sc.txt %s >/dev/null 2>&1" % (tmp, cmd), shell=True)
    subprocess.run("%s strace -c -f -o %s/tc.txt -- %s >/dev/null 2>&1" % (tpctl, tmp, cmd),
                   shell=True)
    s, t = table(tmp + "/sc.txt"), table(tmp + "/tc.txt")
    bad = []
    for name in sorted(set(s) | set(t)):
        sc, tc = s.get(name, (0, 0)), t.get(name, (0, 0))
        # two runs of the command, not one: execve's count differs by strace's own
        # exec, and where a SIGCHLD lands (the sigreturn after its handler, the wait
        # it interrupts) by the timing of each run
        slack = 1 if name in ("execve", "rt_sigreturn", "wait4") else 0
        if abs(sc[0] - tc[0]) > slack or abs(sc[1] - tc[1]) > (slack if name != "execve" else 0):
            bad.append("%s: strace %d calls %d errors, tpctl %d calls %d errors" %
                       ((name,) + sc + tc))
    print("%s %d - -c -f %s: calls and errors of %d syscalls equal strace's" %
          ("ok" if s and not bad else "not ok", n, cmd, len(s)))
    for b in bad:
        print("#   " + b)


def main():
    tpctl = sys.argv[1]
    total = equal = 0
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))    # SEGV leaves no core file
    print("1..%d" % (len(CORPUS) + 1 + len(SUMMARY)))
    with tempfile.TemporaryDirectory() as tmp:
        for n, cmd in enumerate(CORPUS, 1):
            eq, ns, diffs = score(*run(tpctl, cmd, tmp))
            pct = 100.0 * eq / ns if ns else 0
            total += ns
            equal += eq
            print("%s %d - %s: %d of %d strace lines equal (%.1f %%)" %
                  ("ok" if pct >= 90 else "not ok", n, cmd, eq, ns, pct))
            for d in diffs[:40]:
                print("#   " + d)
    pct = 100.0 * equal / total if total else 0
    print("%s %d - overall: %d of %d lines equal (%.1f %%)" %
          ("ok" if pct >= 95 else "not ok", len(CORPUS) + 1, equal, total, pct))
    with tempfile.TemporaryDirectory() as tmp:
        for n, cmd in enumerate(SUMMARY, len(CORPUS) + 2):
            summary(tpctl, cmd, tmp, n)


if __name__ == "__main__":
    main()
