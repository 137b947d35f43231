#!/bin/bash
# tpctl strace: strace's lines over a corpus (tests/cli/strace-oracle.py, at
# least 95 % of strace's lines equal, no command below 90 %), -c's calls and
# errors, JSON through jq, bad -e sets, a dead pid, a closed pipe, -y refused,
# a fault's --- line and +++ killed by +++ with the status strace gives,
# --strings (its paths, or exit 1 where the kernel has no event probes).
. "$(dirname "$0")/lib.sh"
command -v strace >/dev/null || { echo "1..0 # SKIP strace is not installed"; exit 0; }
[ -d /sys/kernel/tracing/events/raw_syscalls ] ||
	{ echo "1..0 # SKIP no raw_syscalls events"; exit 0; }
exec bash -c '
cd "$(dirname "$0")/../.." || exit 1
T=./tpctl
python3 tests/cli/strace-oracle.py "$T" | sed "s/^1\.\.\([0-9]*\)$/1..$((0))/" > /tmp/tpctl-strace-oracle.$$
n=$(grep -c "^\(not \)\?ok" /tmp/tpctl-strace-oracle.$$)
echo "1..$((n + 10))"
grep -v "^1\.\." /tmp/tpctl-strace-oracle.$$
rm -f /tmp/tpctl-strace-oracle.$$
i=$n
ok() { i=$((i + 1)); if eval "$2"; then echo "ok $i - $1"; else echo "not ok $i - $1"; fi; }
ok "-e trace=bogus: usage error naming it, with the closest" \
	"$T strace -e trace=opnat -- true 2>&1 | grep -q \"unknown syscall .opnat.*openat\" && { $T strace -e trace=opnat -- true 2>/dev/null; [ \$? -eq 2 ]; }"
ok "-e trace=%bogus: usage error" "$T strace -e trace=%bogus -- true 2>/dev/null; [ \$? -eq 2 ]"
ok "-p of a pid that does not exist: usage error" "$T strace -p 999999999 2>/dev/null; [ \$? -eq 2 ]"
ok "the command exit status passes through" "$T strace -o /dev/null -- sh -c \"exit 7\" 2>/dev/null; [ \$? -eq 7 ]"
ok "--json: every line parses with jq, openat is there" \
	"$T strace --json -- cat /etc/hostname 2>/dev/null | jq -e -s \"map(select(.syscall == \\\"openat\\\")) | length > 0\" >/dev/null"
ok "-y: refused (exit 2) with the reason" \
	"$T strace -y -- true 2>&1 | grep -q \"^tpctl: strace: -y: .*/proc/PID/fd\" && { $T strace -y -- true 2>/dev/null; [ \$? -eq 2 ]; }"
d=$(mktemp -d)
printf "int main(void) { *(volatile int *)0 = 1; return 0; }\n" > "$d/segv.c"
cc -o "$d/segv" "$d/segv.c"
(ulimit -c 0; $T strace -o "$d/out" -- "$d/segv" 2>/dev/null)
rc=$?
ok "a fault: --- SIGSEGV {si_signo=SIGSEGV, si_code=SEGV_MAPERR, ...} ---" \
	"grep -q \"^--- SIGSEGV {si_signo=SIGSEGV, si_code=SEGV_MAPERR, \" \"$d/out\""
ok "+++ killed by SIGSEGV +++ last, status 128 + 11 as strace" \
	"[ \"\$(tail -1 \"$d/out\")\" = \"+++ killed by SIGSEGV +++\" ] && [ $rc -eq 139 ]"
$T strace --strings -e trace=openat -o "$d/str" -- cat /etc/hostname >/dev/null 2>"$d/str.err"
rc=$?
ok "--strings: openat with its path, or where the kernel has no event probes exit 1 naming them" \
	"if [ $rc -eq 1 ]; then grep -q \"^tpctl: strace: .--strings. needs event probes\" \"$d/str.err\"; else grep -q \"^openat(AT_FDCWD, \\\"/etc/hostname\\\", O_RDONLY\" \"$d/str\"; fi"
rm -rf "$d"
ok "a closed pipe ends it quietly" "$T strace -- sh -c \"cat /etc/hostname; cat /etc/hostname\" 2>/dev/null | head -1 >/dev/null; [ \${PIPESTATUS[0]} -eq 0 ]"
' "$0"
