#!/bin/bash
# make deb, then the package as a machine gets it: lintian (no error, no
# warning but those debian/tpctl.lintian-overrides explains), the files it
# holds, `dpkg -i`, the installed /usr/bin/tpctl on the live tracefs with its
# plugins found where the package put them, man, the unit (systemd-analyze
# verify, installed disabled), then `dpkg -P` and none of its files left.
# The package is purged whatever happens (trap); the tree's files and git
# status are as they were.  Skips, saying so, without the Debian tools; builds
# and lints but installs nothing without root, where a tpctl package or a
# file the package would own is already there, or without tracefs.
. "$(dirname "$0")/../cli/lib.sh"
cd "$TOP" || exit 1
MAKE=${MAKE:-make}

for t in dpkg-buildpackage dh lintian; do
	command -v $t > /dev/null ||
		skip_all "$t is not installed (make deps installs the Debian packaging tools)"
done
dpkg-checkbuilddeps > "$TMP/bdeps" 2>&1 ||
	skip_all "build dependencies missing (make deps): $(sed 's/.*: //' "$TMP/bdeps")"

VERSION=$(sed -n 's/^VERSION *:= *//p' Makefile)
MA=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
PLUGDIR=/usr/lib/$MA/tpctl/plugins
UNIT=/lib/systemd/system/tpctl-serve.service
FUNIT=/lib/systemd/system/tpctl-flight.service
LOCK=/tmp/tpctl-deb.lock
installed=

deb_cleanup() {
	if [ -n "$installed" ]; then
		dpkg -P tpctl > /dev/null 2>&1 || echo "# could not purge tpctl" >&2
	fi
	_cleanup
}
trap deb_cleanup EXIT

# --- build --------------------------------------------------------------------
tree_state() {
	if git rev-parse --is-inside-work-tree > /dev/null 2>&1; then
		git status --porcelain --untracked-files=all
	fi
	git ls-files -z --cached --others --exclude-standard 2> /dev/null |
		xargs -0 md5sum 2> /dev/null
}
tree_state > "$TMP/tree.before"
start=$SECONDS
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL $MAKE -s deb DEB_DIR="$TMP/build" DEB_OUT="$TMP" \
	> "$TMP/build.log" 2>&1
r=$?; ok $r "make deb ($((SECONDS - start)) s)"
[ $r -eq 0 ] || { tail -40 "$TMP/build.log" > "$TMP/tail"; diag "$TMP/tail"; }
DEB=$TMP/tpctl_${VERSION}_$(dpkg-architecture -qDEB_HOST_ARCH).deb
[ -f "$DEB" ]; ok $? "make deb writes ${DEB##*/}"
[ -f "$DEB" ] || { echo "Bail out! no package"; exit 1; }

tree_state > "$TMP/tree.after"
test_cmp "the tree's files and git status are as before make deb" "$TMP/tree.before" \
	"$TMP/tree.after"

v=$(dpkg-deb -f "$DEB" Version)
[ "$v" = "$VERSION" ]; ok $? "the package's version is the Makefile's VERSION ($v, $VERSION)"

# a changelog that says another version stops make deb before it builds
mkdir -p "$TMP/skew/debian"
cp Makefile "$TMP/skew/"
sed '1s/(.*)/(0.0.1)/' debian/changelog > "$TMP/skew/debian/changelog"
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL $MAKE -s -C "$TMP/skew" deb \
	DEB_DIR="$TMP/skew-build" DEB_OUT="$TMP/skew" > "$TMP/out" 2>&1
r=$?
[ $r -ne 0 ] && grep -q "changelog's version is 0.0.1, the Makefile's VERSION $VERSION" \
	"$TMP/out" && [ ! -d "$TMP/skew-build" ]
ok $? "make deb refuses a debian/changelog whose version is not VERSION"
diag "$TMP/out"

# --- lintian ------------------------------------------------------------------
# the .changes: the binary package, its dbgsym, the buildinfo
lintian --pedantic --display-info --show-overrides "$TMP/build"/tpctl_*.changes > "$TMP/lintian" 2>&1
grep -v 'running with root privileges is not recommended' "$TMP/lintian" > "$TMP/lint"
echo "# lintian --pedantic --display-info: $(grep -c '^[EWIPO]:' "$TMP/lint") tags, $(grep -c '^O:' "$TMP/lint") overridden"
! grep -q '^E:' "$TMP/lint"; ok $? "lintian: no error"
! grep -q '^W:' "$TMP/lint"; ok $? "lintian: no warning that debian/ does not explain"
diag "$TMP/lint"
# every override says why: a comment right above it
awk '/^[^#[:space:]]/ && prev !~ /^#/ { print; bad = 1 } { prev = $0 } END { exit bad }' \
	debian/*lintian-overrides > "$TMP/bare"
ok $? "each lintian override has its reason above it"
diag "$TMP/bare"

# --- the files ----------------------------------------------------------------
dpkg -c "$DEB" | awk '{ print $6 }' | sed 's|^\./|/|' | grep -v '/$' | sort > "$TMP/files"
{
	echo /usr/bin/tpctl
	for f in plugins/*.c; do f=${f#plugins/}; echo "$PLUGDIR/${f%.c}.so"; done
	for f in man/*.1; do echo "/usr/share/man/man1/${f#man/}.gz"; done
	echo /usr/share/bash-completion/completions/tpctl
	echo /usr/share/zsh/vendor-completions/_tpctl
	echo /usr/share/fish/vendor_completions.d/tpctl.fish
	echo "$UNIT"
	echo "$FUNIT"
	echo /usr/share/doc/tpctl/examples/prometheus.yml
	echo /usr/share/doc/tpctl/copyright
	echo /usr/share/doc/tpctl/changelog.gz
} | sort > "$TMP/want"
comm -23 "$TMP/want" "$TMP/files" > "$TMP/missing"
[ ! -s "$TMP/missing" ]; ok $? "dpkg -c: the binary, $(ls plugins/*.c | wc -l) plugin(s), $(ls man/*.1 | wc -l) man pages, 3 completions, the units, the example, copyright, changelog"
diag "$TMP/missing"
dpkg-deb --fsys-tarfile "$DEB" | tar -xO ".$UNIT" > "$TMP/unit" 2> /dev/null
dpkg-deb --fsys-tarfile "$DEB" | tar -xO ".$FUNIT" >> "$TMP/unit" 2> /dev/null
grep -q '^ExecStart=/usr/bin/tpctl serve ' "$TMP/unit" &&
	grep -q '^ExecStart=/usr/bin/tpctl record --flight ' "$TMP/unit"
ok $? "the units (serve, flight recorder) run /usr/bin/tpctl"

# --- installed ----------------------------------------------------------------
why=
[ "$(id -u)" = 0 ] || why="not root"
if [ -z "$why" ]; then
	# one install at a time on this machine (another checkout's make check)
	exec 9> "$LOCK"
	flock -w 900 9 || why="$LOCK held by another run"
fi
if [ -z "$why" ]; then
	st=$(dpkg-query -W -f '${db:Status-Status}' tpctl 2> /dev/null)
	[ -n "$st" ] && [ "$st" != not-installed ] && why="a tpctl package is on this machine ($st)"
fi
if [ -z "$why" ]; then
	while read -r f; do
		if [ -e "$f" ] || [ -L "$f" ]; then why="$f is there already"; break; fi
	done < "$TMP/files"
fi
if [ -z "$why" ] && [ ! -r "$TRACEFS/available_events" ]; then
	mount -t tracefs nodev "$TRACEFS" 2> /dev/null
	[ -r "$TRACEFS/available_events" ] || why="no tracefs at $TRACEFS"
fi

if [ -n "$why" ]; then
	for t in "dpkg -i" "tpctl --version" "tpctl list" "tpctl stream" "plugins loaded" \
		"man -w" "unit disabled" "systemd-analyze verify" "dpkg -P" "no file left" \
		"no unit state left"; do
		skip "$t: $why"
	done
	plan $_n
	done_testing
fi

# the unit's links and deb-systemd-helper's state: installed disabled adds
# none, and purging leaves them as they were
unit_state() {
	find /etc/systemd/system /var/lib/systemd/deb-systemd-helper-enabled \
		/var/lib/systemd/deb-systemd-helper-masked -name 'tpctl-*' 2> /dev/null | sort
}
unit_state > "$TMP/units.before"
installed=1
dpkg -i "$DEB" > "$TMP/out" 2>&1
r=$?; ok $r "dpkg -i ${DEB##*/}"
[ $r -eq 0 ] || diag "$TMP/out"
dpkg -L tpctl 2> /dev/null | while read -r f; do [ -d "$f" ] || echo "$f"; done |
	sort > "$TMP/owned"

# the installed one, never a tpctl on PATH, with no plugin dir from the environment
T="env -u TPCTL_PLUGIN_DIR -u TPCTL_NO_PLUGINS /usr/bin/tpctl"
$T --version > "$TMP/out" 2>&1
grep -qx "tpctl $VERSION" "$TMP/out"; ok $? "/usr/bin/tpctl --version says $VERSION"
diag "$TMP/out"

$T list sched:sched_switch > "$TMP/out" 2> "$TMP/err"
r=$?
[ $r -eq 0 ] && grep -qx 'sched:sched_switch' "$TMP/out"
ok $? "/usr/bin/tpctl list sched:sched_switch prints the event"
diag "$TMP/out" "$TMP/err"

# libtraceevent dlopen()s each plugin it finds: ld.so's LD_DEBUG=files names
# the files opened.  Nothing beside the binary (/usr/bin/plugins) may stand in
# for the compiled-in directory.
LD_DEBUG=files timeout 30 $T stream sched:sched_switch --count 1 > "$TMP/out" 2> "$TMP/err"
r=$?
[ $r -eq 0 ] && [ "$(wc -l < "$TMP/out")" = 1 ] && grep -q 'sched_switch: prev_comm=' "$TMP/out"
ok $? "/usr/bin/tpctl stream sched:sched_switch --count 1 prints one event"
[ "$_last" = ok ] && diag "$TMP/out"
[ "$_last" = ok ] || { grep -v 'file=\|^ *[0-9]*:\s*$' "$TMP/err" > "$TMP/err2"; diag "$TMP/out" "$TMP/err2"; }
bad=
for f in plugins/*.c; do
	f=${f#plugins/}
	grep -q "file=$PLUGDIR/${f%.c}.so .*dynamically loaded" "$TMP/err" || bad="$bad ${f%.c}.so"
done
[ -z "$bad" ] && [ ! -e /usr/bin/plugins ]
ok $? "it loads the package's plugins from $PLUGDIR, with no variable set${bad:+ (not loaded:$bad)}"

env -u MANPATH man -w tpctl-stream > "$TMP/out" 2>&1
grep -qx /usr/share/man/man1/tpctl-stream.1.gz "$TMP/out"; ok $? "man -w tpctl-stream: $(cat "$TMP/out")"

# installed disabled: no link in a target's .wants (deb-systemd-helper's
# .dsh-also notes that there is none)
unit_state | grep -v '^/var/lib/systemd/' > "$TMP/units.installed"
grep -v '^/var/lib/systemd/' "$TMP/units.before" > "$TMP/units.links"
test_cmp "the units are installed disabled" "$TMP/units.links" "$TMP/units.installed"
if command -v systemd-analyze > /dev/null; then
	systemd-analyze verify "$UNIT" "$FUNIT" > "$TMP/verify" 2>&1
	ok $? "systemd-analyze verify $UNIT $FUNIT"
	diag "$TMP/verify"
else
	skip "no systemd-analyze here: the unit not verified"
fi

dpkg -P tpctl > "$TMP/out" 2>&1
r=$?; ok $r "dpkg -P tpctl"
[ $r -eq 0 ] && installed=
diag "$TMP/out"
[ -s "$TMP/owned" ] && while read -r f; do
	if [ -e "$f" ] || [ -L "$f" ]; then echo "$f"; fi
done < "$TMP/owned" > "$TMP/left"
for d in "$PLUGDIR" "/usr/lib/$MA/tpctl" /usr/share/doc/tpctl; do
	[ -e "$d" ] && echo "$d"
done >> "$TMP/left"
[ -s "$TMP/owned" ] && [ ! -s "$TMP/left" ]
ok $? "none of the package's $(wc -l < "$TMP/owned") files (dpkg -L) is left, nor its directories"
diag "$TMP/left"
unit_state > "$TMP/units.after"
test_cmp "the unit's links and state are as before (deb-systemd-helper, .wants)" \
	"$TMP/units.before" "$TMP/units.after"

plan $_n
done_testing
