# shellcheck shell=sh
# tpctl strace --strings: a corpus of busybox commands under Debian's strace
# -f -o and under tpctl strace -f --strings -o, each into strace/N.s and
# strace/N.t, the command in strace/N.cmd.  Compared on the host, process
# by process, paths kept (tests/vm/66-strace.t).
S=$OUT/strace
mkdir -p $S

# the corpus: files, processes, pipes, errors, signals, exits
strace_corpus() {
	cat <<'CORPUS'
cat /etc/passwd
ls /
cat /nonexistent
sh -c 'echo hi | cat'
sh -c 'exit 3'
sh -c 'mkdir /tmp/st.d && rmdir /tmp/st.d'
sh -c 'touch /tmp/st.f && mv /tmp/st.f /tmp/st.g && rm /tmp/st.g'
sh -c 'ln -s /etc/passwd /tmp/st.l && readlink /tmp/st.l && rm /tmp/st.l'
sh -c 'cd /tmp && ls'
stat /etc/passwd /nonexistent
head -c 100 /dev/zero
dd if=/dev/zero of=/dev/null bs=512 count=20
sh -c 'ls /nonexistent; true'
sh -c 'kill -TERM $$'
env true
sh -c 'chmod 600 /etc/passwd && test -r /etc/passwd'
CORPUS
}

if tpctl strace --help 2>/dev/null | grep -q -- --strings; then
	n=0
	strace_corpus | while IFS= read -r cmd; do
		n=$((n + 1))
		echo "$cmd" >$S/$n.cmd
		mark "strace_$n"
		eval "timeout 60 strace -f -o $S/$n.s $cmd" >/dev/null 2>&1
		eval "timeout 60 tpctl strace -f --strings -o $S/$n.t -- $cmd" >/dev/null 2>$S/$n.err
		echo $? >$S/$n.rc
	done
fi
