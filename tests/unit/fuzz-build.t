#!/bin/bash
# The fuzz targets build and run: no project header may stand in for a system
# header (the fuzz and unit builds find src/ with -iquote, but a name shared
# with one in the compiler's include path is still a trap), every target of
# tests/fuzz/fuzz.mk compiles with clang's -fsanitize=fuzzer, and each runs
# over its seed corpus and its saved regressions (tests/fuzz/regress/) without
# a crash.  Where clang or libFuzzer's runtime is missing, the build checks
# skip, saying so; the header check always runs.
cd "$(dirname "$0")/../.." || exit 1
targets=$(sed -n 's/^FUZZ_TARGETS ?= //p' tests/fuzz/fuzz.mk)
n_targets=$(wc -w <<<"$targets")
echo "1..$((2 + 2 * n_targets))"

# 1: src/*.h against the include directories of cc and of the libraries
dirs=$(echo | ${CC:-cc} -E -Wp,-v - 2>&1 >/dev/null | sed -n 's/^ \(\/.*\)/\1/p')
dirs="$dirs $(pkg-config --cflags-only-I libtracefs libtraceevent libtracecmd libbpf 2>/dev/null |
	tr ' ' '\n' | sed -n 's/^-I//p')"
clash=
for h in src/*.h; do
	b=${h#src/}
	for d in $dirs; do
		[ -e "$d/$b" ] && clash="$clash $h($d/$b)"
	done
done
if [ -z "$clash" ]; then
	echo "ok 1 - no src/*.h shares its name with a header of the include path"
else
	echo "not ok 1 - project headers named as system headers:$clash"
fi

# 2: the targets build
fuzzer_ok() {
	command -v clang >/dev/null || return 1
	printf 'int LLVMFuzzerTestOneInput(const char *d, long n){(void)d;(void)n;return 0;}\n' |
		clang -fsanitize=fuzzer -x c -o /dev/null - 2>/dev/null
}
if ! fuzzer_ok; then
	why="clang with libFuzzer (-fsanitize=fuzzer) is not installed (make deps)"
	for i in $(seq 2 $((2 + 2 * n_targets))); do echo "ok $i # SKIP $why"; done
	exit 0
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if make -s fuzz-build fuzz-seeds >"$log" 2>&1; then
	echo "ok 2 - make fuzz-build: every target builds"
else
	echo "not ok 2 - make fuzz-build failed"
	tail -30 "$log" | sed 's/^/# /'
fi

# 3..: each target built, and over its seeds and regressions without a crash
n=2
for t in $targets; do
	bin=tests/fuzz/build/fuzz_$t
	n=$((n + 1))
	if [ -x "$bin" ]; then
		echo "ok $n - $bin built"
	else
		echo "not ok $n - $bin not built"
	fi
	n=$((n + 1))
	# dat's saved inputs crash libtracecmd or libtraceevent themselves, which
	# report contains in its child (fuzz-regress.t replays them so); this
	# build decodes in its own process, so it runs dat's seeds only
	corpora=()
	regress=tests/fuzz/regress/$t
	[ "$t" = dat ] && regress=
	for d in tests/fuzz/build/seeds/$t $regress; do
		[ -d "$d" ] && corpora+=("$d")
	done
	# todo-* inputs are known crashes of system libraries (tests/fuzz/RESULTS.md): not run here
	inputs=()
	for d in "${corpora[@]}"; do
		for f in "$d"/*; do
			case ${f##*/} in todo-*) ;; *) [ -f "$f" ] && inputs+=("$f") ;; esac
		done
	done
	if [ ! -x "$bin" ]; then
		echo "not ok $n - $t: not built, not run"
	elif [ ${#inputs[@]} -eq 0 ]; then
		# with no file named, libFuzzer would fuzz on without end
		echo "not ok $n - $t: no seed or regression input"
	elif ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1:suppressions=$PWD/tests/fuzz/asan.supp \
		UBSAN_OPTIONS=halt_on_error=1 \
		"$bin" -runs=0 -timeout=20 -rss_limit_mb=4096 "${inputs[@]}" >"$log" 2>&1; then
		echo "ok $n - $t: ${#inputs[@]} seed and regression inputs, no crash"
	else
		echo "not ok $n - $t: a seed or regression input crashes"
		grep -a -m5 -E 'ERROR|SUMMARY|Running:' "$log" | sed 's/^/# /'
		tail -5 "$log" | sed 's/^/# /'
	fi
done
