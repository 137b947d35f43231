#!/bin/sh
# Runs bench/scale.py on a machine where nothing can be installed, from the bundle that
# ../shared/tools/devbench/bundle.sh makes in .dev/ (tpctl, its shared libraries and the
# loader), with bench/gen built static as .dev/bin/bgen:
#   make && bash ../shared/tools/devbench/bundle.sh && gcc -O2 -static -o .dev/bin/bgen bench/gen.c
# then, there, in the project's root:  sh bench/device-scale.sh "1 2 4 8 14" [scale.py options]
# Each P of the first argument is one bench/scale.py run with the options that follow.
# BIN=NAME runs .dev/bin/NAME instead of .dev/bin/tpctl: another build of tpctl put
# beside it (same libraries), for a ratio measured in the same start of the machine, e.g.
#   git worktree add /tmp/base 71f059e && make -C /tmp/base && cp /tmp/base/tpctl .dev/bin/tpbase
#   BIN=tpbase sh bench/device-scale.sh 14 --consumers jsonnull; sh bench/device-scale.sh 14 ...
set -e
D=$(pwd)/.dev
cat > "$D/tp" <<W
#!/bin/sh
exec "$D/lib/ld-linux-x86-64.so.2" --library-path "$D/lib" "$D/bin/${BIN:-tpctl}" "\$@"
W
chmod +x "$D/tp"
cp "$D/bin/bgen" bench/gen
mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing
ps=$1; shift
for p in $ps; do
	python3 bench/scale.py --tpctl "$D/tp" --producers "$p" "$@"
done
