#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build the VM's initramfs: busybox, an /init that runs one test script,
# the modules, damonctl with its shared libraries, the workload, the tests.
#
#   scripts/initramfs.sh [--arch x86_64|aarch64] [--python] --ko KO_DIR
#                        --out FILE.cpio[.gz]
#
# --arch aarch64 (default: the host's, x86_64): an arm64 image from the
# sysroot of scripts/kernel/arm64.sh (its busybox-static, damonctl's shared
# libraries and loader); the test programs are cross-built static with
# aarch64-linux-gnu-gcc, damonctl is build/tools-arm64/damonctl.
#
# Layout inside the image:
#   /init                   mounts, runs each script of $DAMON_PERF_TEST
#                           between DAMON_PERF_BEGIN/END markers, unloads
#                           what a script left loaded (DAMON_PERF_LEFTOVER),
#                           scans for leaks (kmemleak), prints
#                           DAMON_PERF_EXIT=<rc>, powers off
#   /bin/busybox + applets  /sbin /usr/bin /usr/sbin link to /bin
#   /lib/damon_perf/*.ko    every module of KO_DIR (+ deps/ from the
#                           kernel's own modules when a .ko needs them,
#                           under $DAMON_PERF_MODROOT/lib/modules, default /)
#                           and extra/loop.ko when the kernel has it as a
#                           module (tests load it themselves)
#   /bin/damonctl           build/tools/damonctl when built, with what ldd
#                           lists (and the loader) at the same paths
#   /bin/workload           tests/vm/workload.c, static
#   /bin/<name>             every other tests/vm/*.c, tests/vm/<name>/*.c
#                           (one program) and tests/testpmu/*_user.c
#   /tests/*.sh             tests/vm/*.sh (lib.sh included)
#   /tests/ynl_policy.txt   the policies of the netlink spec, one line per
#                           command and attribute (scripts/lib/ynl-policy.py)
#   /tests/uapi.sh          include/uapi/linux/damon_perf.h's numbers as
#                           shell variables (scripts/lib/uapi-sh.sh)
#   /tests/bench/*.sh       tests/vm/bench/*.sh (make bench only)
#   /bin/python3, /opt/ynl  with --python (x86_64; scripts/vm.sh gives it
#                           when a script says "# needs: python3"): Debian
#                           12's /usr/bin/python3.11 with its shared
#                           libraries, the kernel's YNL CLI
#                           (/opt/ynl/cli.py, lib/) of the 6.12 tree
#                           (ynl_tree, scripts/lib/kernels.sh), the spec as
#                           /opt/ynl/damon_perf.yaml, and only the stdlib
#                           and PyYAML modules the CLI loads, as .pyc
#                           (scripts/lib/ynl-python.py); 13 MiB more
#   /etc/passwd, /etc/group root and nobody (65534), for EPERM tests
#
# The test to run, the kernel and the module's build come from the kernel
# command line (DAMON_PERF_TEST=a.sh[,b.sh...] DAMON_PERF_KERNEL=stock|debug
# DAMON_PERF_FLAVOUR=test|prod, scripts/vm.sh): the kernel hands
# unknown name=value parameters to init as environment variables.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
ko=
out=
arch=x86_64
python=0
while [ $# -gt 0 ]; do
	case "$1" in
	--arch) arch=$2; shift 2 ;;
	--python) python=1; shift ;;
	--ko) ko=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	*) echo "usage: $0 [--arch ARCH] [--python] --ko KO_DIR --out FILE.cpio[.gz]" >&2; exit 2 ;;
	esac
done
[ -n "$ko" ] && [ -n "$out" ] || { echo "usage: $0 --ko KO_DIR --out FILE.cpio[.gz]" >&2; exit 2; }
[ -f "$ko/damon_perf.ko" ] || { echo "initramfs: $ko/damon_perf.ko missing" >&2; exit 1; }
# is_static ELF: no program interpreter (runs without a loader).
is_static() { ! readelf -l "$1" 2>/dev/null | grep -q 'program interpreter'; }
hostbox=$(command -v busybox || true)
[ -n "$hostbox" ] && is_static "$hostbox" ||
	{ echo "initramfs: need a static busybox (apt-get install busybox-static)" >&2; exit 1; }
case "$arch" in
x86_64) cross='' sysroot='' busybox=$hostbox bindir=$top/build/bin
	ctl=${DAMONCTL:-$top/build/tools/damonctl} ;;
aarch64) cross=aarch64-linux-gnu- bindir=$top/build/bin-aarch64
	sysroot=${DAMON_PERF_SYSROOT:-$("$top/scripts/kernel/arm64.sh" | tail -n 1)/sysroot}
	busybox=$sysroot/bin/busybox
	ctl=${DAMONCTL:-$top/build/tools-arm64/damonctl}
	[ -x "$busybox" ] && is_static "$busybox" ||
		{ echo "initramfs: no static arm64 busybox in $sysroot" >&2; exit 1; } ;;
*) echo "initramfs: --arch x86_64|aarch64" >&2; exit 2 ;;
esac

mkdir -p "$top/build" "$(dirname "$out")"
stage=$(mktemp -d "$top/build/initramfs.XXXXXX")
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{bin,dev,etc,lib,proc,sys,tmp,root,run,tests,lib/damon_perf,usr}
ln -s bin "$stage/sbin"
ln -s ../bin "$stage/usr/bin"
ln -s ../bin "$stage/usr/sbin"

cp "$busybox" "$stage/bin/busybox"
# The applet list from the host's busybox-static: the arm64 one does not
# run here, and both are Debian 12's busybox-static, one configuration.
for a in $("$hostbox" --list); do
	[ "$a" = busybox ] || ln -s busybox "$stage/bin/$a"
done

printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/sh\n' \
	> "$stage/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' > "$stage/etc/group"
printf '/bin/sh\n' > "$stage/etc/shells"

# Modules, and any module of the target kernel they depend on.
cp "$ko"/*.ko "$stage/lib/damon_perf/"
release=$(modinfo -F vermagic "$ko/damon_perf.ko" | awk '{print $1}')
deps=()
add_deps() {
	local d f
	for d in $(modinfo -F depends "$1" | tr ',' ' '); do
		[ -f "$ko/$d.ko" ] && continue
		case " ${deps[*]:-} " in *" $d "*) continue ;; esac
		f=$(modinfo -b "${DAMON_PERF_MODROOT:-/}" -k "$release" -n "$d" 2>/dev/null || true)
		[ -f "$f" ] || { echo "initramfs: $1 needs $d, not found for $release" >&2; exit 1; }
		add_deps "$f"
		deps+=("$d")
		mkdir -p "$stage/lib/damon_perf/deps"
		case "$f" in
		*.xz) xz -dc "$f" > "$stage/lib/damon_perf/deps/$d.ko" ;;
		*.zst) zstd -qdc "$f" > "$stage/lib/damon_perf/deps/$d.ko" ;;
		*) cp "$f" "$stage/lib/damon_perf/deps/$d.ko" ;;
		esac
		echo "$d" >> "$stage/lib/damon_perf/deps/order"
	done
}
for m in "$ko"/*.ko; do add_deps "$m"; done

# Modules of the kernel that tests load themselves when they need them
# (loop: a swap device for schemes.sh; nls_cp437, fat, msdos: a block
# file system for schemes_madvise.sh), where the kernel has them as a
# module depending on none but the extra modules before it:
# /lib/damon_perf/extra/NAME.ko, which /init does not load (a test loads
# them in this order).
extra_mods="loop nls_cp437 fat msdos"
extra_got=" "
for x in $extra_mods; do
	f=$(modinfo -b "${DAMON_PERF_MODROOT:-/}" -k "$release" -n "$x" 2>/dev/null || true)
	# an unpacked image has no modules.dep for modinfo -n: by its name
	# (the debug kernel has no module directory at all)
	[ -f "$f" ] || f=$(find "${DAMON_PERF_MODROOT:-/}/lib/modules/$release/kernel" \
		-name "$x.ko*" 2>/dev/null | head -n 1 || true)
	[ -f "$f" ] || continue
	xdeps_ok=1
	for d in $(modinfo -F depends "$f" 2>/dev/null | tr ',' ' '); do
		case "$extra_got" in *" $d "*) ;; *) xdeps_ok=0 ;; esac
	done
	[ $xdeps_ok = 1 ] || continue
	extra_got="$extra_got$x "
	mkdir -p "$stage/lib/damon_perf/extra"
	case "$f" in
	*.xz) xz -dc "$f" > "$stage/lib/damon_perf/extra/$x.ko" ;;
	*.zst) zstd -qdc "$f" > "$stage/lib/damon_perf/extra/$x.ko" ;;
	*) cp "$f" "$stage/lib/damon_perf/extra/$x.ko" ;;
	esac
done

# Test programs, static: tests/vm/*.c (workload.c is /bin/workload),
# tests/vm/NAME/*.c (a program of several files, with a main.c) and
# tests/testpmu/*_user.c, each as /bin/<name> (they may include
# tests/vm/*.h). One that does not build is named in
# /etc/damon_perf_missing, which /init reports (a failure).
mkdir -p "$bindir"
for c in "$top"/tests/vm/*.c "$top"/tests/vm/*/main.c "$top"/tests/testpmu/*_user.c; do
	[ -f "$c" ] || continue
	case "$c" in
	*/main.c) dir=$(dirname "$c"); b=$(basename "$dir")
		prog_srcs=("$dir"/*.c) prog_deps=("$dir"/*.[ch]) ;;
	*) b=$(basename "$c" .c) prog_srcs=("$c") prog_deps=("$c") ;;
	esac
	bin=$bindir/$b
	# Rebuilt when a source of it or a header of tests/vm (shared by
	# several programs, tests/vm/auxbuf.h) is newer than the binary.
	stale=0
	for d in "${prog_deps[@]}" "$top"/tests/vm/*.h; do
		[ -f "$d" ] && [ "$d" -nt "$bin" ] && stale=1
	done
	if [ ! -x "$bin" ] || [ $stale = 1 ]; then
		# built aside and renamed: two images may be made at once
		if ! "${cross}gcc" -O2 -Wall -Wextra -static -pthread -I"$top/include/uapi" \
			-o "$bin.$$" "${prog_srcs[@]}" 2>"$bin.err" || ! mv -f "$bin.$$" "$bin"; then
			rm -f "$bin.$$"
			cat "$bin.err" >&2
			echo "initramfs: $c does not build; /bin/$b missing" >&2
			echo "$b" >> "$stage/etc/damon_perf_missing"
			continue
		fi
	fi
	cp "$bin" "$stage/bin/$b"
done

# damonctl and its shared libraries at their host paths.
# Stripped copies: a RelWithDebInfo damonctl and libstdc++ with symbols
# make a 50 MB image that boots seconds slower.
# needed_libs ELF: the shared libraries it needs, recursively, as paths in
# the sysroot (arm64; the host's ldd cannot run an arm64 program).
needed_libs() {
	local n d f
	for n in $(readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
		for d in lib/aarch64-linux-gnu usr/lib/aarch64-linux-gnu; do
			f=$sysroot/$d/$n
			[ -e "$f" ] || continue
			case " $seen " in *" /$d/$n "*) break ;; esac
			seen+=" /$d/$n"
			echo "/$d/$n"
			needed_libs "$f"
			break
		done
	done
}
if [ -x "$ctl" ] && [ -n "$sysroot" ]; then
	"${cross}strip" -o "$stage/bin/damonctl" "$ctl"
	seen=''
	for lib in $(needed_libs "$ctl") /lib/ld-linux-aarch64.so.1; do
		mkdir -p "$stage$(dirname "$lib")"
		"${cross}strip" --strip-unneeded -o "$stage$lib" "$(readlink -f "$sysroot$lib")" 2>/dev/null ||
			cp -L "$sysroot$lib" "$stage$lib"
	done
elif [ -x "$ctl" ]; then
	strip -o "$stage/bin/damonctl" "$ctl" 2>/dev/null || cp "$ctl" "$stage/bin/damonctl"
	ldd "$ctl" | awk '/=> \// {print $3} /^[ \t]*\/[^ ]+ \(/ {print $1}' |
	while read -r lib; do
		mkdir -p "$stage$(dirname "$lib")"
		strip --strip-unneeded -o "$stage$lib" "$lib" 2>/dev/null ||
			cp -L "$lib" "$stage$lib"
	done
	[ -e "$stage/lib64/ld-linux-x86-64.so.2" ] ||
		echo "initramfs: warning: no ELF loader copied for damonctl" >&2
else
	echo "initramfs: no damonctl ($ctl not built); tests needing it report TODO" >&2
fi

# The kernel's YNL CLI for the scripts that need python3: Debian's
# interpreter at its own path, linked as /bin/python3 (PATH=/bin), the
# modules the CLI loads and the shared libraries of both.
if [ $python = 1 ]; then
	[ "$arch" = x86_64 ] || { echo "initramfs: --python is x86_64 only" >&2; exit 1; }
	py=/usr/bin/python3.11
	[ -x $py ] || { echo "initramfs: --python needs $py (apt-get install python3)" >&2; exit 1; }
	# shellcheck source=lib/kernels.sh
	. "$top/scripts/lib/kernels.sh"
	ynltree=$(ynl_tree) || exit 1
	sos=$($py "$top/scripts/lib/ynl-python.py" "$stage" "$ynltree/tools/net/ynl" \
		"$top/Documentation/netlink/specs/damon_perf.yaml") ||
		{ echo "initramfs: scripts/lib/ynl-python.py failed (python3-yaml?)" >&2; exit 1; }
	# /usr/bin is a link to /bin in the image
	cp $py "$stage/bin/python3.11"
	ln -s python3.11 "$stage/bin/python3"
	for f in $py $sos; do ldd "$f"; done |
	awk '/=> \// {print $3} /^[ \t]*\/[^ ]+ \(/ {print $1}' | sort -u |
	while read -r lib; do
		[ -e "$stage$lib" ] && continue
		mkdir -p "$stage$(dirname "$lib")"
		strip --strip-unneeded -o "$stage$lib" "$lib" 2>/dev/null ||
			cp -L "$lib" "$stage$lib"
	done
fi

cp "$top"/tests/vm/*.sh "$stage/tests/"
# The uapi numbers as shell variables (CMD_CTX_NEW=1 ...), for lib.sh.
"$top/scripts/lib/uapi-sh.sh" > "$stage/tests/uapi.sh"
# The policies the netlink spec promises, for tests/vm/ynl_policy.sh.
"$top/scripts/lib/ynl-policy.py" > "$stage/tests/ynl_policy.txt" ||
	{ echo "initramfs: scripts/lib/ynl-policy.py failed (python3 with PyYAML)" >&2; exit 1; }
# make bench's VM scenarios (not run by make check), as /tests/bench/*.sh.
if [ -d "$top/tests/vm/bench" ]; then
	mkdir -p "$stage/tests/bench"
	cp "$top"/tests/vm/bench/*.sh "$stage/tests/bench/"
fi

cat > "$stage/init" <<'INIT'
#!/bin/sh
# damon_perf test VM init: runs /tests/$DAMON_PERF_TEST, then powers off.
export PATH=/bin HOME=/root
# devtmpfs first: everything after may open device nodes.
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t debugfs debugfs /sys/kernel/debug
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null ||
	mount -t tracefs tracefs /sys/kernel/debug/tracing 2>/dev/null
mount -t tmpfs tmpfs /tmp
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts 2>/dev/null
mount -t tmpfs tmpfs /dev/shm 2>/dev/null
ip link set lo up 2>/dev/null
hostname damon-perf-vm
export DAMON_PERF_KERNEL=${DAMON_PERF_KERNEL:-unknown}
export DAMON_PERF_FLAVOUR=${DAMON_PERF_FLAVOUR:-test}
# DAMON_PERF_TEST: one script, or several separated by commas (one boot for
# a batch). Each is framed by BEGIN/END markers that scripts/logcheck reads.
tests=$(echo "${DAMON_PERF_TEST:-basic.sh}" | tr ',' ' ')
echo "DAMON_PERF_START tests=$tests kernel=$DAMON_PERF_KERNEL build=$DAMON_PERF_FLAVOUR release=$(uname -r) cpus=$(nproc)"
if [ -f /lib/damon_perf/deps/order ]; then
	for d in $(cat /lib/damon_perf/deps/order); do
		insmod /lib/damon_perf/deps/$d.ko || echo "# init: insmod $d failed"
	done
fi
for m in $(cat /etc/damon_perf_missing 2>/dev/null); do
	echo "DAMON_PERF_MISSING $m (did not build)"
done
ours=$(for m in /lib/damon_perf/*.ko; do basename "$m" .ko; done)
# Hang watchdog. timeout(1) below kills a script at its limit, but a task
# stuck in the kernel (uninterruptible sleep) does not die, and the clean-up
# after a script (damonctl stop, rmmod) may block the same way; the rest of
# the batch would then wait for the host's limit, the sum of all the
# scripts' limits. WATCH_GRACE seconds after a script's own limit the
# watchdog prints DAMON_PERF_HUNG, the blocked tasks with their kernel
# stacks, and powers off; the host runs the scripts not yet run in a new
# boot. /.deadline holds "TEST DEADLINE" (uptime seconds) while one runs.
WATCH_GRACE=180
# dump_state WHY: every runnable (R) and blocked (D) task with its kernel
# stack, then the CPUs' backtraces (sysrq l) and the blocked tasks (sysrq
# w) where the kernel has them: a script stuck in a kernel loop shows up
# as an R task, one stuck waiting as a D task.
dump_state() {
	echo "# state: $1"
	for p in /proc/[0-9]*; do
		st=$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "$p/status" 2>/dev/null)
		case "$st" in R | D) ;; *) continue ;; esac
		[ "${p#/proc/}" = $$ ] && continue
		echo "# task: pid ${p#/proc/} state $st $(cat "$p/comm" 2>/dev/null):" \
			"$(tr '\0' ' ' < "$p/cmdline" 2>/dev/null | cut -c1-100)"
		sed 's/^/#   /' "$p/stack" 2>/dev/null
	done
	if [ -w /proc/sysrq-trigger ]; then
		echo l > /proc/sysrq-trigger
		echo w > /proc/sysrq-trigger
	fi
}
watchdog() {
	# (the clean-up below kills every process but init and this one, so
	# also this one's sleep: the loop must not end with it)
	while :; do
		sleep 5
		[ -s /.deadline ] || continue
		read -r wtest wdl < /.deadline
		[ "$(cut -d. -f1 /proc/uptime)" -gt "$wdl" ] || continue
		echo "DAMON_PERF_HUNG test=$wtest grace=${WATCH_GRACE}s"
		dump_state "$wtest hung ${WATCH_GRACE}s past its limit"
		sync
		poweroff -f
	done
}
watchdog &
wpid=$!
worst=0
for test in $tests; do
	echo "DAMON_PERF_BEGIN test=$test"
	start=$(cut -d. -f1 /proc/uptime)
	# Per-script time limit: its "# timeout: SECS" header, or a default.
	to=$(sed -n 's/^# *timeout: *\([0-9][0-9]*\).*/\1/p' "/tests/$test" | head -n 1)
	# (300 s on the debug kernel and on arm64, whose -cpu max TCG guest
	# runs the control-plane scripts at about half the x86 speed)
	case "$DAMON_PERF_KERNEL" in debug|arm64) d=300 ;; *) d=120 ;; esac
	[ -n "$to" ] || to=$d
	# DAMON_PERF_SCRIPT_TIMEOUT on the kernel command line: for long runs
	[ -z "${DAMON_PERF_SCRIPT_TIMEOUT:-}" ] || to=$DAMON_PERF_SCRIPT_TIMEOUT
	echo "$test $((start + to + WATCH_GRACE))" > /.deadline
	# What was running shortly before the limit, for a script that is
	# then killed: after the kill, a loop it drove is gone.
	(sleep $((to > 10 ? to - 5 : to)) && dump_state "$test 5 s before its limit") &
	dpid=$!
	(cd /tests && exec timeout -s KILL "$to" /bin/sh "/tests/$test")
	rc=$?
	kill "$dpid" 2>/dev/null
	[ $rc -eq 137 ] && echo "DAMON_PERF_TIMEOUT test=$test after ${to}s"
	# Nothing a script started may outlive it (kernel threads have no
	# command line).
	for p in /proc/[0-9]*; do
		p=${p#/proc/}
		[ "$p" -eq 1 ] || [ "$p" -eq $$ ] || [ "$p" -eq "$wpid" ] && continue
		[ -s /proc/$p/cmdline ] && kill -9 "$p" 2>/dev/null
	done
	# A test must unload what it loaded; say so, and clean up for the next
	# (a killed script may have left contexts running: stop them first,
	# or rmmod is refused and every later script fails to load).
	grep -q "^damon_perf " /proc/modules &&
		timeout -s KILL 120 damonctl stop >/dev/null 2>&1
	for pass in 1 2 3; do
		for m in $ours; do
			grep -q "^$m " /proc/modules || continue
			[ $pass -eq 1 ] && echo "DAMON_PERF_LEFTOVER test=$test module=$m"
			rmmod "$m" 2>/dev/null
		done
	done
	: > /.deadline
	echo "DAMON_PERF_END test=$test rc=$rc took=$(( $(cut -d. -f1 /proc/uptime) - start ))s"
	[ $rc -eq 0 ] || worst=$rc
	# A script killed at its limit, or one whose modules would not
	# unload, may leave the kernel in a state every later script would
	# inherit (and wait out its own limit in): the rest of the batch is
	# not run here, and the host runs it in a new boot.
	left=
	for m in $ours; do grep -q "^$m " /proc/modules && left="$left $m"; done
	if [ $rc -eq 137 ] || [ -n "$left" ]; then
		echo "DAMON_PERF_ABANDON after=$test${left:+ loaded=${left# }}"
		break
	fi
done
kill "$wpid" 2>/dev/null
# kmemleak only reports objects older than 5 s (measured at scan start):
# wait that long after the tests, so a leak of their last step shows here.
if [ -w /sys/kernel/debug/kmemleak ]; then
	sleep 5
	echo scan > /sys/kernel/debug/kmemleak
	leaks=$(cat /sys/kernel/debug/kmemleak)
	if [ -n "$leaks" ]; then
		echo "# kmemleak report:"
		echo "$leaks"
	else
		echo "# kmemleak: no leaks"
	fi
fi
echo "DAMON_PERF_EXIT=$worst"
sync
poweroff -f
INIT
chmod 0755 "$stage/init"

python3 "$top/scripts/lib/mkcpio.py" "$stage" "$out"
echo "initramfs: $out ($(du -k "$out" | cut -f1) KiB)" >&2
