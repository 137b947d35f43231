#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""
sysdec_gen.py - the tables of src/sysdec.c from this system's headers.

The C preprocessor lists every macro the kernel's uapi headers (and the few
glibc headers that hold the rest: R_OK, AF_*, SOCK_*) define; each table is
the macros of one prefix, their values evaluated here.  Nothing is typed by
hand that a header has: the syscall numbers (asm/unistd_64.h), signals, open/mmap/clone/at/seek/fcntl/wait/futex/... flags and constants.
What no header says (strace's print order of a few flags, the kernel's
internal ERESTART* texts) is in sysdec.c; errno names are errname.c's
(src/gen/errname_gen.sh).

    usage: sysdec_gen.py [CC] > src/sysdec_tab.h
"""
import re
import subprocess
import sys

HEADERS = """asm/unistd_64.h asm/signal.h asm-generic/signal-defs.h
linux/fcntl.h asm-generic/fcntl.h linux/mman.h asm/mman.h asm-generic/mman-common.h
linux/sched.h linux/fs.h asm/prctl.h asm-generic/resource.h asm-generic/ioctls.h
linux/time.h linux/futex.h linux/random.h linux/wait.h linux/stat.h linux/prctl.h
linux/eventpoll.h linux/fadvise.h asm-generic/siginfo.h linux/falloc.h linux/close_range.h linux/limits.h""".split()
GLIBC = "unistd.h sys/socket.h".split()

# name: (prefix regex, kind, names left out); kind "flags" (bits, printed
# with |), "enum" (one value), "mode" (a field of values under a mask)
TABLES = [
    ("nr", r"__NR_", "enum", ()),
    ("signal", r"SIG[A-Z0-9]+$", "enum", ("SIGIOT", "SIGUNUSED", "SIGPOLL", "SIGRTMIN", "SIGRTMAX",
                                          "SIGSTKSZ", "SIGSTKFLT_", "SIG_BLOCK")),
    ("sigprocmask", r"SIG_(BLOCK|UNBLOCK|SETMASK)$", "enum", ()),
    ("open", r"O_[A-Z]+$", "flags", ("O_RDONLY", "O_WRONLY", "O_RDWR", "O_ACCMODE", "O_NDELAY",
                                     "O_FSYNC", "O_RSYNC", "O_ASYNC")),
    ("prot", r"PROT_", "flags", ()),
    ("map", r"MAP_(?!HUGE_)[A-Z0-9_]+$", "flags", ("MAP_SHARED", "MAP_PRIVATE", "MAP_SHARED_VALIDATE",
                                          "MAP_TYPE", "MAP_FILE", "MAP_ANON", "MAP_HUGE_SHIFT",
                                          "MAP_HUGE_MASK", "MAP_UNINITIALIZED", "MAP_EXECUTABLE")),
    ("maptype", r"MAP_(SHARED|PRIVATE|SHARED_VALIDATE)$", "enum", ()),
    ("clone", r"CLONE_[A-Z_]+$", "flags", ("CLONE_ARGS_SIZE_VER0", "CLONE_ARGS_SIZE_VER1",
                                           "CLONE_ARGS_SIZE_VER2", "CLONE_NEWTIME")),
    ("at", r"AT_(SYMLINK_NOFOLLOW|REMOVEDIR|SYMLINK_FOLLOW|NO_AUTOMOUNT|EMPTY_PATH|EACCESS|"
     r"STATX_FORCE_SYNC|STATX_DONT_SYNC|RECURSIVE)$", "flags", ()),
    ("seek", r"SEEK_", "enum", ("SEEK_MAX",)),
    ("fcntl", r"F_[A-Z0-9_]+$", "enum", ("F_OK", "F_LINUX_SPECIFIC_BASE", "F_OWNER_TID",
                                         "F_OWNER_PID", "F_OWNER_PGRP", "F_RDLCK", "F_WRLCK",
                                         "F_UNLCK", "F_EXLCK", "F_SHLCK", "F_SEAL_SEAL",
                                         "F_SEAL_SHRINK", "F_SEAL_GROW", "F_SEAL_WRITE",
                                         "F_SEAL_FUTURE_WRITE", "F_SEAL_EXEC", "F_GETLK64",
                                         "F_SETLK64", "F_SETLKW64", "F_LOCK", "F_TLOCK",
                                         "F_ULOCK", "F_TEST")),
    ("fdflags", r"FD_CLOEXEC$", "flags", ()),
    ("rlimit", r"RLIMIT_", "enum", ("RLIMIT_NLIMITS", "RLIM_NLIMITS")),
    ("archprctl", r"ARCH_", "enum", ()),
    ("ioctl", r"(TC|TIO|FIO)[A-Z0-9]+$", "enum", ("TCSANOW", "TCSADRAIN", "TCSAFLUSH",
                                                 "TCOOFF", "TCOON", "TCIOFF", "TCION",
                                                 "TCIFLUSH", "TCOFLUSH", "TCIOFLUSH")),
    ("clock", r"CLOCK_[A-Z_]+$", "enum", ("CLOCK_SGI_CYCLE",)),
    ("timerflags", r"TIMER_ABSTIME$", "flags", ()),
    ("futex", r"FUTEX_[A-Z_]+$", "enum", ("FUTEX_PRIVATE_FLAG", "FUTEX_CLOCK_REALTIME",
                                          "FUTEX_CMD_MASK", "FUTEX_WAITERS", "FUTEX_OWNER_DIED",
                                          "FUTEX_TID_MASK", "FUTEX_BITSET_MATCH_ANY",
                                          "FUTEX_OP_SET", "FUTEX_OP_ADD", "FUTEX_OP_OR",
                                          "FUTEX_OP_ANDN", "FUTEX_OP_XOR", "FUTEX_OP_OPARG_SHIFT",
                                          "FUTEX_OP_CMP_EQ", "FUTEX_OP_CMP_NE", "FUTEX_OP_CMP_LT",
                                          "FUTEX_OP_CMP_LE", "FUTEX_OP_CMP_GT", "FUTEX_OP_CMP_GE",
                                          "FUTEX_32", "FUTEX_WAITV_MAX")),
    ("grnd", r"GRND_", "flags", ()),
    ("wait", r"(W[A-Z]+|__W[A-Z]+)$", "flags", ("WAIT_ANY", "WAIT_MYPGRP", "__WORDSIZE", "WSTOPPED")),
    ("idtype", r"P_(ALL|PID|PGID|PIDFD)$", "enum", ()),
    ("access", r"[RWX]_OK$", "flags", ()),
    ("sa", r"SA_[A-Z]+$", "flags", ("SA_NOMASK", "SA_ONESHOT", "SA_STACK")),
    ("madv", r"MADV_", "enum", ()),
    # the options only: not the values of their arguments (PR_SET_MM_*, PR_PAC_AP*KEY, ...)
    ("prctl", r"PR_(?!SET_MM_|MCE_KILL_(?!GET$)|PAC_AP|SCHED_CORE_|SVE_VL_|SVE_SET_VL_ONEXEC|"
     r"SET_VMA_|SET_PTRACER_ANY)(SET|GET|CAPBSET|MCE|TASK|SCHED|PAC|MPX|SVE)_[A-Z_]+$", "enum",
     ()),
    ("af", r"AF_[A-Z0-9]+$", "enum", ("AF_MAX", "AF_FILE", "AF_LOCAL", "AF_ROUTE")),
    ("socktype", r"SOCK_(STREAM|DGRAM|RAW|RDM|SEQPACKET|DCCP|PACKET)$", "enum", ()),
    ("sockflags", r"SOCK_(NONBLOCK|CLOEXEC)$", "flags", ()),
    ("statx", r"STATX_[A-Z_]+$", "flags", ("STATX__RESERVED", "STATX_ALL", "STATX_BASIC_STATS",
                                           "STATX_ATTR_COMPRESSED", "STATX_ATTR_IMMUTABLE",
                                           "STATX_ATTR_APPEND", "STATX_ATTR_NODUMP",
                                           "STATX_ATTR_ENCRYPTED", "STATX_ATTR_AUTOMOUNT",
                                           "STATX_ATTR_MOUNT_ROOT", "STATX_ATTR_VERITY",
                                           "STATX_ATTR_DAX")),
    ("epollctl", r"EPOLL_CTL_", "enum", ()),
    ("epollflags", r"EPOLL_CLOEXEC$", "flags", ()),
    ("falloc", r"FALLOC_FL_", "flags", ()),
    ("unlinkat", r"AT_REMOVEDIR$", "flags", ()),
    ("fadvise", r"POSIX_FADV_", "enum", ()),
    ("si", r"SI_(USER|KERNEL|QUEUE|TIMER|MESGQ|ASYNCIO|SIGIO|TKILL|DETHREAD|ASYNCNL)$", "enum", ()),
    ("cld", r"CLD_[A-Z]+$", "enum", ()),
    ("segv", r"SEGV_[A-Z]+$", "enum", ()),
    ("bus", r"BUS_[A-Z_]+$", "enum", ()),
    ("fpe", r"FPE_[A-Z]+$", "enum", ()),
    ("ill", r"ILL_[A-Z]+$", "enum", ()),
    ("trap", r"TRAP_[A-Z]+$", "enum", ()),
    ("poll", r"POLL_[A-Z]+$", "enum", ()),
]

# strace writes these flags highest first (SOCK_CLOEXEC|SOCK_NONBLOCK)
DESCENDING = ("sockflags",)
# and these after the others (O_RDONLY|O_CLOEXEC|O_DIRECTORY)
LAST = {"open": ("O_DIRECTORY",)}
ENUM_RE = re.compile(r"^\s*(SOCK_[A-Z]+)\s*=\s*(\d+)", re.M)


def macros(cc):
    src = "".join("#include <%s>\n" % h for h in HEADERS)
    out = subprocess.run([cc, "-E", "-dM", "-x", "c", "-"], input=src, capture_output=True,
                         text=True, check=True).stdout
    src = "".join("#include <%s>\n" % h for h in GLIBC)
    glibc = subprocess.run([cc, "-E", "-dM", "-x", "c", "-"], input=src, capture_output=True,
                           text=True, check=True).stdout
    body = {}
    for text in (out, glibc):
        for line in text.splitlines():
            m = re.match(r"#define (\w+) (.*)$", line)
            if m and m.group(1) not in body:
                body[m.group(1)] = m.group(2).strip()
    text = subprocess.run([cc, "-E", "-x", "c", "-"], input=src, capture_output=True,
                          text=True, check=True).stdout
    for m in ENUM_RE.finditer(text):
        body[m.group(1)] = m.group(2)
    return body


def evaluate(body, name, seen=()):
    expr = body.get(name)
    if expr is None or name in seen or "(" in expr and re.search(r"\b_IO", expr):
        return None
    expr = re.sub(r"\b(0[xX][0-9a-fA-F]+|\d+)[uUlL]+\b", r"\1", expr)
    expr = re.sub(r"\b0([0-7]+)\b", r"0o\1", expr)

    def ident(m):
        v = evaluate(body, m.group(0), seen + (name,))
        if v is None:
            raise ValueError(m.group(0))
        return str(v)
    try:
        expr = re.sub(r"\b[A-Za-z_]\w*\b", ident, expr)
        if not re.fullmatch(r"[0-9xXa-fA-Fo()|&<>+\-~ ]*", expr):
            return None
        return int(eval(expr, {"__builtins__": {}}))
    except (ValueError, SyntaxError, TypeError, ZeroDivisionError):
        return None


def table(body, name, prefix, kind, skip):
    rows, seen = [], set()
    for mac in body:
        if not re.match(prefix, mac) or mac in skip:
            continue
        v = evaluate(body, mac)
        if v is None or v < 0 and kind != "enum" or (kind == "flags" and v == 0):
            continue
        label = mac[len("__NR_"):] if name == "nr" else mac
        if v in seen:
            continue
        seen.add(v)
        rows.append((v & 0xffffffffffffffff, label))
    return rows


def main():
    cc = sys.argv[1] if len(sys.argv) > 1 else "cc"
    body = macros(cc)
    print("/* Generated by src/gen/sysdec_gen.py from this system's headers: do not edit. */")
    for name, prefix, kind, skip in TABLES:
        rows = table(body, name, prefix, kind, skip)
        if name in DESCENDING:
            rows.sort(reverse=True)
        elif kind == "flags":     # the bits with most set first: composites before their parts
            rows.sort(key=lambda r: (r[0] & (r[0] - 1) == 0, r[0]))
        else:                     # enums: by value, for the binary search
            rows.sort()
        if name in LAST:
            rows.sort(key=lambda r: r[1] in LAST[name])
        print("static const struct sysdec_xlat xl_%s[] = {" % name)
        for v, label in rows:
            print("\t{ %#xULL, \"%s\" }," % (v, label))
        print("};")
    print("#define SYSDEC_NR_COUNT %d" % (max(v for v, _ in table(body, "nr", *TABLES[0][1:])) + 1))


if __name__ == "__main__":
    main()
