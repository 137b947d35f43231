#!/bin/bash
# User stack frames named from the live process (libdwfl): a small program
# built here with frame pointers makes the getpid system call through libc's
# syscall(3) from a function of its own; `tpctl stream --user-stack --json`
# must name the first frame syscall in libc and a later one main in the
# program (the kernel walks the frame pointers from the caller's frame), with
# the files they are in, and the kernel's text (addresses) must stay as it is.
. "$(dirname "$0")/lib.sh"
need_tracefs
command -v python3 > /dev/null || skip_all "no python3"
CC=${CC:-cc}
command -v "$CC" > /dev/null || skip_all "no C compiler"
plan 5

cat > "$TMP/caller.c" <<'EOF'
#include <stdio.h>
#include <unistd.h>
#include <sys/syscall.h>

/* noinline, frame pointers: the kernel's user unwinder can walk to main */
__attribute__((noinline)) static long work(void)
{
	return syscall(SYS_getpid);
}

int main(void)
{
	int i;

	printf("%d\n", (int)getpid());
	fflush(stdout);
	for (i = 0; i < 3000; i++) {
		work();
		usleep(1000);
	}
	return 0;
}
EOF
"$CC" -O0 -g -fno-omit-frame-pointer -o "$TMP/caller" "$TMP/caller.c"
ok $? "a test program with frame pointers builds"

"$TMP/caller" > "$TMP/pid" &
cpid=$!
for i in $(seq 50); do [ -s "$TMP/pid" ] && break; sleep 0.1; done
"$TPCTL" stream syscalls:sys_enter_getpid --filter "common_pid == $cpid" --user-stack --json \
	--count 3 > "$TMP/json" 2> "$TMP/err"
ok $? "stream syscalls:sys_enter_getpid --user-stack --json --count 3 of the program"
diag "$TMP/err"
"$TPCTL" stream syscalls:sys_enter_getpid --filter "common_pid == $cpid" --user-stack \
	--count 2 > "$TMP/text" 2> "$TMP/err"
ok $? "the same as text"
kill $cpid 2> /dev/null
wait $cpid 2> /dev/null

python3 - "$TMP/json" "$TMP/caller" > "$TMP/py" 2>&1 <<'PY'
import json, os, sys
objs = [json.loads(l) for l in open(sys.argv[1])]
errs = []
if len(objs) != 3:
    errs.append("%d objects, want 3" % len(objs))
for o in objs:
    us = o.get("user_stack") or []
    if not us:
        errs.append("no user stack: %s" % o)
        continue
    f0 = us[0]
    if f0.get("sym") not in ("syscall", "__syscall") or \
       not os.path.basename(f0.get("obj", "")).startswith("libc.so"):
        errs.append("frame 0 is not syscall in libc: %s" % f0)
    mains = [f for f in us[1:] if f.get("sym") == "main"]
    if not mains or os.path.realpath(mains[0].get("obj", "")) != os.path.realpath(sys.argv[2]):
        errs.append("no frame is main in the program: %s" % us)
    for f in us:
        if "sym" in f and not (isinstance(f.get("off"), int) and f["off"] >= 0):
            errs.append("frame without an offset: %s" % f)
print("\n".join(errs) or "frames: %s" % [(f.get("sym"), f.get("off")) for f in objs[0]["user_stack"]])
sys.exit(1 if errs else 0)
PY
st=$?
ok $st "frame 0 is syscall in libc, a later one main in the program ($(head -1 "$TMP/py" | cut -c1-80))"
[ $st = 0 ] || diag "$TMP/py"
# the text stays the kernel's: addresses only
python3 - "$TMP/text" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().split("\n")[:-1]
ok = len(lines) >= 4 and all(re.match(r"^ =>  <[0-9a-f]{16}>$", l) for l in lines
                             if l.startswith(" =>"))
ok = ok and sum(l.endswith(": <user stack trace>") for l in lines) == 2
sys.exit(0 if ok else 1)
PY
ok $? "the text shows the kernel's addresses, no names"
done_testing
