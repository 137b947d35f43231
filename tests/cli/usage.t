#!/bin/bash
# Global options, help, version, exit statuses, and the message for non-root users.
. "$(dirname "$0")/lib.sh"
plan 16

expect_status "--help exits 0" 0 "$TPCTL" --help
grep -q '^usage: tpctl ' "$TMP/out"; ok $? "--help prints usage on stdout"
expect_status "--version exits 0" 0 "$TPCTL" --version
grep -qx 'tpctl [0-9][0-9.]*' "$TMP/out"; ok $? "--version prints the version"
expect_status "no command is a usage error" 2 "$TPCTL"
expect_status "an unknown command is a usage error" 2 "$TPCTL" frobnicate
grep -qx "tpctl: unknown command 'frobnicate'; try 'tpctl --help'" "$TMP/err"
ok $? "and names it"
expect_status "a command prefix is not a command" 2 "$TPCTL" lis
expect_status "an unknown global option" 2 "$TPCTL" --bogus list
expect_status "-i without its argument" 2 "$TPCTL" -i
grep -q "needs an argument" "$TMP/err"; ok $? "says the option needs an argument"
expect_status "an unknown command option" 2 "$TPCTL" list --bogus
grep -qx "tpctl: list: unknown option '--bogus'" "$TMP/err"; ok $? "names the option"
for c in list format enable disable filter status reset; do
	"$TPCTL" "$c" --help > "$TMP/out" || break
	grep -q "^usage: tpctl $c" "$TMP/out" || break
done
[ "$c" = reset ]; ok $? "every control command has --help (stopped at $c)"

if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null && [ -d /sys/kernel/tracing/events ]; then
	setpriv --reuid=65534 --regid=65534 --clear-groups "$TPCTL" list > "$TMP/out" 2> "$TMP/err"
	[ $? -eq 1 ]; ok $? "as a non-root user: exit 1"
	grep -q "Permission denied; run as root, or mount tracefs with gid=" "$TMP/err"
	ok $? "with a message that says what to do"
else
	skip "needs root and setpriv to try a non-root user"
	skip "needs root and setpriv to try a non-root user"
fi
done_testing
