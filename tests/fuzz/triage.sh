#!/bin/sh
# triage.sh TARGET FILE...: run each crash input once through the fuzz target
# and print one line per file: the sanitizer's summary and the first frame
# in tpctl's own code (or the first library frame when none is ours).
cd "$(dirname "$0")/../.." || exit 1
t=$1
shift
for f in "$@"; do
	out=$(FUZZ_KEEP_STDERR=1 ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1:suppressions=$PWD/tests/fuzz/asan.supp \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		"tests/fuzz/build/fuzz_$t" "$f" 2>&1)
	sum=$(printf '%s\n' "$out" | grep -a -m1 -E "^SUMMARY|^fuzz[_a-z]*: |runtime error" | cut -c1-110)
	ours=$(printf '%s\n' "$out" | grep -a -m1 -E " in [a-z_]+ .*/(src|tests/fuzz)/" |
		sed 's/.* in \([a-z_0-9]*\) .*\/\([a-z_]*\.c:[0-9]*\).*/\1 \2/')
	lib=$(printf '%s\n' "$out" | grep -a -m1 -E "#[0-9]+ .*\.so" | sed 's/.*(\(.*\.so[.0-9]*\)+\(0x[0-9a-f]*\)).*/\1+\2/')
	echo "${f##*/}: ${sum:-no crash} | ${ours:--} | ${lib:--}"
done
