#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Boot Debian's own kernel in qemu (TCG) with the sample-trace module, tpctl
# and its libraries in a busybox initramfs.
#
#   run-vm.sh check   run tests/vm/guest/check.sh in the VM, unpack its results
#                     into tests/vm/work/out (then prove tests/vm/*.t checks them)
#   run-vm.sh demo    the same VM with an interactive shell on this terminal
#   run-vm.sh prepare only install, download and build (no boot)
#
# Everything downloaded or built lives in tests/vm/work/ (not tracked by git)
# and is reused by later runs.  Environment:
#   TPCTL        tpctl binary to put in the VM (default ./tpctl)
#   PLUGINDIR    where that tpctl looks for its plugins (Makefile's PLUGINDIR)
#   PLUGINS      plugin .so files to install there (default plugins/*.so)
#   VM_TIMEOUT   seconds before a check boot is killed (default 1500: the
#                emulated CPU is slow on a loaded host)
#   VM_MEM, VM_SMP  qemu -m and -smp (default 512M, 2)
#   VM_ONLY      run only the guest parts (tests/vm/guest/parts/*NAME*.sh) whose
#                name holds this word, after loading the module: a quick run
#                while working on one part (the other checks then fail)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
work=$here/work
mode=${1:-check}

TPCTL=${TPCTL:-$top/tpctl}
PLUGINDIR=${PLUGINDIR:-/usr/local/lib/tpctl/plugins}
VM_TIMEOUT=${VM_TIMEOUT:-1500}
VM_MEM=${VM_MEM:-512M}
VM_SMP=${VM_SMP:-2}
LIBTE_PLUGINS=/usr/lib/x86_64-linux-gnu/traceevent/plugins

say() { echo "vm: $*" >&2; }
die() { echo "vm: error: $*" >&2; exit 1; }

# Host packages, installed only when missing so that reruns stay offline.
deps() {
	local p missing=() sudo=
	for p in qemu-system-x86 busybox-static cpio linux-headers-amd64 gcc make libc6-dev \
		 python3 libtraceevent1-plugin strace; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'ok installed' ||
			missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	[ "$(id -u)" = 0 ] || sudo=sudo
	say "installing ${missing[*]}"
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
		"${missing[@]}" >&2
}

# The kernel the headers were built for: the image of the same ABI and version.
kernel() {
	local hdr ver deb
	hdr=$(dpkg-query -W -f='${Depends}' linux-headers-amd64 | grep -o 'linux-headers-[^ ,]*')
	[ -n "$hdr" ] || die "cannot tell which linux-headers package linux-headers-amd64 uses"
	krel=${hdr#linux-headers-}
	kdir=/usr/src/$hdr
	[ -d "$kdir" ] || die "'$kdir' is missing"
	ver=$(dpkg-query -W -f='${Version}' "$hdr")
	kimg=$work/kernel-$krel/boot/vmlinuz-$krel
	[ -f "$kimg" ] && return 0
	mkdir -p "$work/dl"
	deb=$(ls "$work/dl/linux-image-${krel}_${ver}_"*.deb 2>/dev/null | head -1 || true)
	if [ -z "$deb" ]; then
		say "downloading linux-image-$krel $ver"
		# apt-get download writes to the current directory, which root's
		# sandbox user _apt may not be able to enter.
		local apt=(apt-get -q)
		[ "$(id -u)" = 0 ] && apt+=(-o APT::Sandbox::User=root)
		(cd "$work/dl" && { "${apt[@]}" download "linux-image-$krel=$ver" ||
			{ "${apt[@]}" update -qq && "${apt[@]}" download "linux-image-$krel=$ver"; }; }) >&2 ||
			die "cannot download linux-image-$krel=$ver (the headers' version)"
		deb=$(ls "$work/dl/linux-image-${krel}_"*.deb | head -1)
	fi
	rm -rf "$work/kernel-$krel.tmp"
	dpkg-deb -x "$deb" "$work/kernel-$krel.tmp"
	mv "$work/kernel-$krel.tmp" "$work/kernel-$krel"
	[ -f "$kimg" ] || die "no kernel image in '$deb'"
}

# Build from a copy so that the source tree stays free of Kbuild output.
module() {
	local b=$work/module-$krel
	mkdir -p "$b"
	cp "$top"/module/Makefile "$top"/module/*.c "$top"/module/*.h "$b"/
	make -s -C "$b" KDIR="$kdir" >"$work/module-build.log" 2>&1 ||
		{ cat "$work/module-build.log" >&2; die "module build failed"; }
	# The module must build without a single warning.
	if grep -qi 'warning' "$work/module-build.log"; then
		cat "$work/module-build.log" >&2
		die "module build has warnings"
	fi
	ko=$b/sample_trace.ko
}

# Every tests/vm/*.c is a static program of the guest's /usr/bin.
rawdump() {
	local c t
	for c in "$here"/*.c; do
		t=$(basename "$c" .c)
		if [ ! -x "$work/$t" ] || [ "$c" -nt "$work/$t" ]; then
			gcc -O2 -Wall -Wextra -Werror -static -o "$work/$t" "$c"
		fi
	done
}

# Copy a binary and every shared library it needs, at the same paths.
copy_elf() {
	local f=$1 dest=$2 lib
	install -D -m 755 "$f" "$root$dest"
	for lib in $(ldd "$f" 2>/dev/null | grep -o '/[^ ]*' || true); do
		[ -e "$root$lib" ] || install -D -m 755 "$lib" "$root$lib"
	done
}

initramfs() {
	local f
	root=$work/root
	rm -rf "$root"
	mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,out,lib/modules,etc}
	cp /bin/busybox "$root/bin/busybox"
	for f in $(/bin/busybox --list); do
		[ "$f" = busybox ] || ln -sf busybox "$root/bin/$f"
	done
	if [ -x "$TPCTL" ]; then
		copy_elf "$TPCTL" /usr/bin/tpctl
	else
		say "warning: no tpctl binary at '$TPCTL': the tpctl checks will fail"
	fi
	# System libtraceevent plugins (and what they link), then ours.
	for f in "$LIBTE_PLUGINS"/*.so; do
		[ -e "$f" ] && copy_elf "$f" "$f"
	done
	for f in ${PLUGINS:-$top/plugins/*.so}; do
		[ -e "$f" ] && copy_elf "$f" "$PLUGINDIR/$(basename "$f")"
	done
	cp "$ko" "$root/lib/modules/sample_trace.ko"
	for f in "$here"/*.c; do
		f=$(basename "$f" .c)
		install -m 755 "$work/$f" "$root/usr/bin/$f"
	done
	# strace: the guest compares what tpctl saw with it
	copy_elf "$(command -v strace)" /usr/bin/strace
	install -m 755 "$here/guest/init" "$root/init"
	install -m 755 "$here/guest/check.sh" "$root/usr/bin/vm-check"
	mkdir -p "$root/usr/share/vm-check"
	for f in "$here"/guest/parts/*.sh; do
		[ -e "$f" ] && install -m 644 "$f" "$root/usr/share/vm-check/"
	done
	echo "root:x:0:0:root:/:/bin/sh" >"$root/etc/passwd"
	echo "$PLUGINDIR" >"$root/etc/tpctl-plugindir"
	(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$work/initramfs.gz"
}

prepare() {
	deps
	mkdir -p "$work"
	kernel
	module
	rawdump
	initramfs
	say "kernel $krel, initramfs $(du -k "$work/initramfs.gz" | cut -f1) KiB"
}

# One host thread runs both virtual CPUs (thread=single).  With a thread per
# CPU (qemu's default for TCG), the guest froze now and then while two
# processes turned syscall tracepoints on and off at once, which patches
# kernel code on one CPU while the other runs it: soft lockups at the int3 of
# the patched jump in syscall_trace_enter, or no message at all.  A guest
# doing only that (25 rounds of two tpctl count sessions on syscall events
# beside a workload) froze in 2 of 3 boots with a thread per CPU and in none
# of 6 with one thread; the whole check is no slower (about 35 s).
qemu_args() {
	args=(-accel tcg,thread=single -m "$VM_MEM" -smp "$VM_SMP" -kernel "$kimg"
	      -initrd "$work/initramfs.gz" -no-reboot)
}

# The guest prints its results as a base64 tar between two marker lines.
unpack() {
	local log=$1 out=$work/out
	rm -rf "$out"
	mkdir -p "$out"
	sed -n '/^@@TPCTL-VM-BEGIN@@/,/^@@TPCTL-VM-END@@/p' "$log" | tr -d '\r' |
		grep -E '^[A-Za-z0-9+/=]+$' | base64 -d | tar -xzf - -C "$out" ||
		{ say "cannot unpack the results from the serial log"; return 1; }
	grep -q '^@@TPCTL-VM-END@@' "$log" || { say "results are truncated"; return 1; }
}

case $mode in
prepare)
	prepare
	;;
check)
	prepare
	qemu_args
	log=$work/serial.log
	klog=$work/kernel.log
	rm -f "$log" "$klog" "$work/out.ok"
	say "booting (timeout ${VM_TIMEOUT}s, serial log in $log, kernel log in $klog)"
	start=$(date +%s)
	rc=0
	# The results come on the first serial port, the kernel's messages
	# (every level, with the guest's step markers) on the second.
	timeout -k 10 "$VM_TIMEOUT" qemu-system-x86_64 "${args[@]}" \
		-display none -monitor none -serial "file:$log" -serial "file:$klog" </dev/null \
		-append "console=ttyS1 loglevel=7 panic=-1 tpctl.mode=check tpctl.out=ttyS0${VM_ONLY:+ tpctl.only=$VM_ONLY}" \
		>&2 || rc=$?
	end=$(date +%s)
	echo "$((end - start))" >"$work/boot-seconds"
	[ $rc -eq 124 ] && say "qemu timed out after ${VM_TIMEOUT}s"
	[ $rc -ne 0 ] && say "qemu exited with status $rc"
	if unpack "$log"; then
		touch "$work/out.ok"
		say "VM run took $((end - start)) s"
	else
		tail -n 30 "$log" >&2 || true
		say "the end of the kernel's log:"
		tail -n 60 "$klog" >&2 || true
	fi
	# The checks in tests/vm/*.t report a missing or broken run as failures.
	exit 0
	;;
demo)
	prepare
	qemu_args
	say "booting; leave the shell with 'exit' (or Ctrl-a x)"
	exec qemu-system-x86_64 "${args[@]}" -nographic \
		-append 'console=ttyS0 panic=-1 quiet tpctl.mode=demo'
	;;
*)
	echo "usage: $0 check|demo|prepare" >&2
	exit 2
	;;
esac
