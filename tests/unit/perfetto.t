#!/bin/sh
# report --perfetto on saved pages, without tracefs or root: the dat fixture
# (sched events of the host kernel) written as trace.dat versions 7 and 6,
# converted, decoded by our own decoder (tests/cli/perfetto-check.py) and
# compared with report --json of the same file; protoc must parse it.
cd "$(dirname "$0")/../.." || exit 1
TOP=$(pwd)
bin=tests/unit/bin/dat
fix=tests/unit/dat
proto=tests/cli/perfetto.proto
if ! command -v protoc > /dev/null || ! command -v python3 > /dev/null; then
	echo "1..0 # skip no protoc or python3"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "1..8"
n=0
check() {
	n=$((n + 1))
	if eval "$2" > "$tmp/log" 2>&1; then
		echo "ok $n - $1"
	else
		echo "not ok $n - $1"
		sed 's/^/# /' "$tmp/log"
	fi
}

for v in 7 6; do
	$bin $fix "$tmp/f$v.dat" --version $v
	"$TOP"/tpctl report --json "$tmp/f$v.dat" > "$tmp/f$v.json"
	check "v$v: report --perfetto exits 0 and prints nothing" \
		"\"$TOP\"/tpctl report \"$tmp/f$v.dat\" --perfetto \"$tmp/f$v.pf\" > \"$tmp/out\" &&
		 ! [ -s \"$tmp/out\" ] && [ -s \"$tmp/f$v.pf\" ]"
	# the fixture's UNAME option is trace-cmd's form: "Linux fixture 6.18 x86_64"
	check "v$v: every record of report --json, with its values and the file's release" \
		"python3 tests/cli/perfetto-check.py $proto $tmp/f$v.pf $tmp/f$v.json --release 6.18 \
		 --allow-dropped sched_process_exit:group_dead"
	check "v$v: protoc --decode_raw parses it" "protoc --decode_raw < $tmp/f$v.pf > /dev/null"
done
check "versions 6 and 7 give the same trace" "cmp $tmp/f6.pf $tmp/f7.pf"
check "the fixture's tasks are named in the process tree" \
	"protoc --decode=perfetto.protos.Trace -I tests/cli $proto < $tmp/f7.pf |
	 grep -A2 'pid: 17087\$' | grep -q 'cmdline: \"ls\"'"
