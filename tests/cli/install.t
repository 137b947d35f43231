#!/bin/bash
# `make install DESTDIR=... PREFIX=/usr` puts the binary, every man page, the
# three completions and every plugin in place, as copies of the tree's files;
# `make uninstall` with the same variables removes all of it (only empty
# directories may stay).  No root needed, nothing outside the temp dir touched.
. "$(dirname "$0")/lib.sh"
cd "$TOP" || exit 1
MAKE=${MAKE:-make}
DEST=$TMP/dest
mkdir "$DEST"

# what must be installed: "source<TAB>destination", relative to the tree / $DEST/usr
{
	printf 'tpctl\tbin/tpctl\n'
	for f in man/*.1; do printf '%s\tshare/man/man1/%s\n' "$f" "${f#man/}"; done
	printf 'completions/tpctl.bash\tshare/bash-completion/completions/tpctl\n'
	printf 'completions/_tpctl\tshare/zsh/vendor-completions/_tpctl\n'
	printf 'completions/tpctl.fish\tshare/fish/vendor_completions.d/tpctl.fish\n'
	for f in plugins/*.so; do
		[ -e "$f" ] && printf '%s\tlib/tpctl/plugins/%s\n' "$f" "${f#plugins/}"
	done
} > "$TMP/manifest"

# make may print "Nothing to be done"; only its status and the files count
$MAKE -s install DESTDIR="$DEST" PREFIX=/usr > "$TMP/out" 2>&1
r=$?; ok $r "make install DESTDIR=... PREFIX=/usr"
[ $r -eq 0 ] || diag "$TMP/out"

n_man=$(ls man/*.1 | wc -l)
n_plug=$(ls plugins/*.so 2>/dev/null | wc -l)
echo "# expecting the binary, $n_man man pages, 3 completions, $n_plug plugins"

bad=
while IFS=$'\t' read -r src dst; do
	cmp -s "$src" "$DEST/usr/$dst" || bad="$bad $dst"
done < "$TMP/manifest"
[ -z "$bad" ]; ok $? "every file is installed as a copy of the tree's${bad:+ (wrong or missing:$bad)}"

[ -x "$DEST/usr/bin/tpctl" ]; ok $? "the binary is executable"
"$DEST/usr/bin/tpctl" --version > "$TMP/out" 2>&1
grep -qx "tpctl [0-9][0-9.]*" "$TMP/out"; ok $? "the installed binary runs"

# nothing but what the manifest names (and directories)
(cd "$DEST/usr" && find . ! -type d | sed 's|^\./||' | sort) > "$TMP/installed"
cut -f2 "$TMP/manifest" | sort > "$TMP/expected"
test_cmp "install puts exactly these files" "$TMP/expected" "$TMP/installed"

modes=$(cd "$DEST/usr" && stat -c '%a %n' share/man/man1/* share/*/*/* 2>/dev/null |
	grep -v '^644 ')
[ -z "$modes" ]; ok $? "man pages and completions are mode 644${modes:+ ($modes)}"

if command -v man > /dev/null; then
	MANPATH=$DEST/usr/share/man man -w tpctl-list > "$TMP/out" 2>&1
	grep -qx "$DEST/usr/share/man/man1/tpctl-list.1" "$TMP/out"
	ok $? "man finds the installed pages"
	[ $? -eq 0 ] || diag "$TMP/out"
fi

$MAKE -s uninstall DESTDIR="$DEST" PREFIX=/usr > "$TMP/out" 2>&1
r=$?; ok $r "make uninstall DESTDIR=... PREFIX=/usr"
[ $r -eq 0 ] || diag "$TMP/out"
find "$DEST" ! -type d > "$TMP/left"
[ ! -s "$TMP/left" ]; ok $? "uninstall leaves nothing but directories"
[ -s "$TMP/left" ] && diag "$TMP/left"

plan $_n
done_testing
