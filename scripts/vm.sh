#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Boot a test kernel under qemu (TCG) with a busybox initramfs and run a
# test script (or several, one after the other, in one boot) as the
# payload of /init.
#
#   scripts/vm.sh [--kernel debug|stock|trixie|sid|arm64] [--prod] [--numa|--tier]
#                 [--timeout SECS] [--log FILE] [--ko DIR] [--mem MB] [--cpus N]
#                 [--append ARGS] [--tcg single|multi] [--quiet|--payload]
#                 tests/vm/NAME.sh [tests/vm/NAME2.sh...]
#
#   --kernel   stock (default): Debian 12's packaged kernel (6.1); debug: the
#              debug test kernel (KASAN, lockdep, KUnit, kmemleak; built once
#              and cached by scripts/kernel/build.sh); trixie, sid: Debian
#              13's (6.12) and unstable's (7.2) stock kernels, fetched once
#              and cached by scripts/kernel/stock.sh; arm64: Debian 12's
#              arm64 kernel (6.1, scripts/kernel/arm64.sh) under
#              qemu-system-aarch64 -M virt -cpu max, the module, damonctl
#              and the test programs cross-built
#   --prod     the production build (scripts/kbuild.sh --prod: the module
#              users load, no test hook, no test export, no test module)
#              instead of the test build; DAMON_PERF_FLAVOUR=prod does the
#              same. A script whose header says "# needs: test-build" (it
#              loads a test module or calls a test export) is refused.
#              The guest sees DAMON_PERF_FLAVOUR=test|prod.
#   --numa     two NUMA nodes (one CPU and half the memory each)
#   --tier     two NUMA nodes as two memory tiers: node 0 with both CPUs,
#              node 1 without CPUs and, in the ACPI HMAT (-machine
#              hmat=on), 2.5 times node 0's latency and a third of its
#              bandwidth, as CXL memory; 6.10 and later derive a lower
#              tier for it (memory_tiering, demotion targets, NUMA
#              balancing's tiering mode 2), 6.1 keeps one tier (x86 only)
#   --timeout  seconds before the VM is killed; default: a boot allowance
#              (120 stock, 180 debug and arm64) plus each script's own time
#              limit (its "# timeout:" header, else 120 stock, 300 debug and
#              arm64, as /init applies them; DAMON_PERF_SCRIPT_TIMEOUT=N in
#              --append replaces them all), at least 180 stock, 600 debug
#              and arm64
#   --mem      guest memory in MiB (default 1024 stock, 768 debug)
#   --cpus     vCPUs, 1 to 8 (default 2; with --numa always 2, one a node;
#              with --tier always 2, both on node 0)
#   --tcg      QEMU's TCG threading: single (every vCPU on one host
#              thread; the default on x86) or multi (one host thread per
#              vCPU; the default on arm64); see the comment at -accel below
#   --log      console log (default build/logs/NAME-KERNEL.log, or
#              batch-KERNEL.log for several scripts; NAME-KERNEL-prod.log
#              with --prod); the run's image and pid file in build/vm
#              take its name, so runs side by side need their own logs
#   --ko       directory with the .ko files (default: scripts/kbuild.sh of
#              the flavour)
#   --quiet    do not echo the console; print only the verdict
#   --payload  echo only what the script prints (no boot, no kernel lines)
#
# Exit status: the script's, from the DAMON_PERF_EXIT=<rc> marker /init
# prints; 1 when the kernel log shows a splat (scripts/logcheck splat);
# 124 on timeout; 125 when the VM ended without the marker (a crash, or a
# script stuck in the kernel: /init's watchdog prints DAMON_PERF_HUNG and
# powers off WATCH_GRACE s after the script's own limit; if the guest
# cannot, this kills qemu HOST_GRACE s later, "vm: HUNG" in the log).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib/kernels.sh"

flavour=${DAMON_PERF_FLAVOUR:-test}
kernel=stock numa=0 tier=0 timeout='' log='' ko='' mem='' cpus=2 append='' quiet=0 tcg='' scripts=()
usage() { sed -n '/^#   scripts/,/^# Exit/p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) kernel=$2; shift 2 ;;
	--prod) flavour=prod; shift ;;
	--numa) numa=1; shift ;;
	--tier) numa=1 tier=1; shift ;;
	--timeout) timeout=$2; shift 2 ;;
	--log) log=$2; shift 2 ;;
	--ko) ko=$2; shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	--cpus) cpus=$2; shift 2 ;;
	--append) append=$2; shift 2 ;;
	--tcg) tcg=$2; shift 2 ;;
	--quiet) quiet=1; shift ;;
	--payload) quiet=2; shift ;;
	-h|--help) usage ;;
	-*) echo "vm: unknown option $1" >&2; usage ;;
	*) scripts+=("$1"); shift ;;
	esac
done
[ ${#scripts[@]} -gt 0 ] || usage
case "$kernel" in stock|debug|trixie|sid|arm64) ;; *) echo "vm: --kernel stock|debug|trixie|sid|arm64" >&2; exit 2 ;; esac
case "$tcg" in ''|single|multi) ;; *) echo "vm: --tcg single|multi" >&2; exit 2 ;; esac
case "$flavour" in test|prod) ;; *) echo "vm: DAMON_PERF_FLAVOUR test or prod, not '$flavour'" >&2; exit 2 ;; esac
arch=$(kernel_arch "$kernel")
if [ "$arch" = aarch64 ] && [ $tier -eq 1 ]; then
	echo "vm: --tier describes its tiers in x86's ACPI HMAT; not with --kernel arm64" >&2
	exit 2
fi
if [ "$arch" = aarch64 ]; then
	DAMON_PERF_ARM64_DIR=$(arm64_dir)
	DAMON_PERF_SYSROOT=$DAMON_PERF_ARM64_DIR/sysroot
	export DAMON_PERF_ARM64_DIR DAMON_PERF_SYSROOT
fi
tests=
limits=()
# python3 and the kernel's YNL CLI go into the image only when a script
# says "# needs: python3" (scripts/initramfs.sh --python)
python=()
for script in "${scripts[@]}"; do
	[ -f "$script" ] || script=$top/tests/vm/$(basename "$script")
	[ -f "$script" ] || { echo "vm: no such test script $script" >&2; exit 2; }
	# tests/vm/bench/ (make bench) goes into the image as /tests/bench/.
	case "$(cd "$(dirname "$script")" && pwd)" in
	"$top/tests/vm") sub= ;;
	"$top/tests/vm/bench") sub=bench/ ;;
	*) echo "vm: $script: only scripts in tests/vm/ and tests/vm/bench/ go into the image" >&2; exit 2 ;;
	esac
	tests+=${tests:+,}$sub$(basename "$script")
	# the script's limit as /init computes it
	n=$(sed -nE 's/^# *timeout: *([0-9]+).*/\1/p' "$script" | head -n 1)
	[ -n "$n" ] || case "$kernel" in debug|arm64) n=300 ;; *) n=120 ;; esac
	limits+=("$n")
	grep -qE '^# *needs:.*\bpython3\b' "$script" && python=(--python)
	if [ "$flavour" = prod ] && grep -qE '^# *needs:.*\btest-build\b' "$script"; then
		echo "vm: $(basename "$script") needs the test build (# needs: test-build): not run against the production build" >&2
		exit 2
	fi
done
# DAMON_PERF_SCRIPT_TIMEOUT=N on the command line replaces every limit.
for w in $append; do
	case "$w" in DAMON_PERF_SCRIPT_TIMEOUT=*)
		for i in "${!limits[@]}"; do limits[i]=${w#*=}; done ;;
	esac
done
if [ ${#scripts[@]} -eq 1 ]; then
	name=$(basename "${scripts[0]}" .sh)
else
	name='batch'
fi
# The VM's limit, unless given: the boot, plus each script's own limit as
# /init applies it (scripts/initramfs.sh), so that /init, not this
# timeout, stops a script that runs too long.
if [ -z "$timeout" ]; then
	case "$kernel" in
	debug|arm64) boot=180 least=600 ;;
	*) boot=120 least=180 ;;
	esac
	timeout=$boot
	for n in "${limits[@]}"; do timeout=$((timeout + n)); done
	[ "$timeout" -ge "$least" ] || timeout=$least
fi
# Less memory boots faster and makes kmemleak scans shorter on the debug
# kernel (it walks every struct page).
[ -n "$mem" ] || { [ "$kernel" = debug ] && mem=768 || mem=1024; }
case $cpus in
[1-8]) ;;
*) echo "vm: --cpus must be 1 to 8, not '$cpus'" >&2; exit 2 ;;
esac
if [ $numa -eq 1 ] && [ "$cpus" != 2 ]; then
	echo "vm: --numa and --tier boot 2 vCPUs; --cpus $cpus cannot go with them" >&2
	exit 2
fi
# the files of a run: NAME-KERNEL, NAME-KERNEL-prod for the production build,
# or with --log the log's name (two runs side by side must not share an
# image or a pid file: make check's batches of one kernel, batch-debug and
# batch-debug-numa, run in two lanes at once and each names its own log)
run=$name-$kernel$([ "$flavour" = test ] || echo "-$flavour")
if [ -n "$log" ]; then
	run=$(basename "$log" .log)
else
	log=$top/build/logs/$run.log
fi
mkdir -p "$(dirname "$log")" "$top/build/vm"

image=$(kernel_boot_image "$kernel")
[ -r "$image" ] || { echo "vm: kernel image $image not readable" >&2; exit 1; }
[ -n "$ko" ] || ko=$("$top/scripts/kbuild.sh" --flavour "$flavour" "$kernel" | tail -n 1)
initrd=$top/build/vm/$run.cpio
# damonctl for arm64 (scripts/lib/kernels.sh), incrementally
if [ "$arch" = aarch64 ] && [ -z "${DAMONCTL:-}" ]; then
	arm64_damonctl "$DAMON_PERF_SYSROOT" || exit 1
fi
DAMON_PERF_MODROOT=$(kernel_modroot "$kernel") \
	"$top/scripts/initramfs.sh" --arch "$arch" "${python[@]}" --ko "$ko" --out "$initrd"

console=ttyS0
[ "$arch" = aarch64 ] && console=ttyAMA0
cmdline="console=$console,115200 panic=-1 printk.time=1 loglevel=7"
cmdline+=" DAMON_PERF_TEST=$tests DAMON_PERF_KERNEL=$kernel DAMON_PERF_FLAVOUR=$flavour"
# no_timer_check: x86's check_timer() counts timer ticks over a busy wait;
# a host busy enough to deschedule the vCPU then panics the boot with
# "IO-APIC + timer doesn't work" (seen once on 6.12 at load average 16).
[ "$arch" = aarch64 ] || cmdline+=" no_timer_check"
[ -z "$append" ] || cmdline+=" $append"
# The VM's console is a terminal, so tools inside would colour it and
# redraw the screen; the user's stdout decides instead. When it is not a
# terminal: no colour (NO_COLOR, no-color.org) and no cursor movement
# (TERM=dumb); NO_COLOR set here passes on as well. The kernel hands the
# NAME=value words of its command line to /init as environment.
if [ ! -t 1 ]; then
	cmdline+=" NO_COLOR=1 TERM=dumb"
elif [ -n "${NO_COLOR:-}" ]; then
	cmdline+=" NO_COLOR=1"
fi

# With --numa, one socket per node: CPUs sharing a last-level cache across
# nodes make the kernel WARN in topology_sane().
smp=$cpus
[ $numa -eq 0 ] || [ $tier -eq 1 ] || smp=2,sockets=2,cores=1,threads=1
# la57=off: 4-level paging. With 5-level paging, 6.1's identify_cpu()
# clears the CPU's capability bits, LA57 included, before it reads them
# again; KASAN computes its shadow bounds from that bit, so an interrupt in
# that window is reported as a wild-memory-access in do_raw_spin_lock
# (seen once in about eight debug boots, before any module is loaded).
# TCG threading. x86 (every kernel): thread=single, one host thread for
# all vCPUs. With one host thread per vCPU (thread=multi), a jump label
# patched while another vCPU runs that code ends now and then in "int3:"
# or "Oops: int3" in do_user_addr_fault: the page-fault software event's
# key (perf_swevent_enabled[PERF_COUNT_SW_PAGE_FAULTS]) flips whenever a
# page-fault counter is the first created or the last released, by
# damon_perf or by perf_event_open() from userspace alike, and a vCPU runs
# the int3 of text_poke_bp() after the patch finished and synced every
# CPU, which only stale translated code can do. Seen on 6.12 (twice), on
# Debian 12's 6.1 (attack_netlink), and reproduced without the
# module by tests/vm/keyflip.sh (Documentation/testing.rst, "Code
# patching under TCG"). With one thread, translation and the patching
# stores never run at the same time. arm64 patches a branch with one
# aligned store and no int3, and keeps thread=multi. --tcg overrides.
accel=tcg
[ "$arch" = aarch64 ] || accel=tcg,thread=single
[ -z "$tcg" ] || accel=tcg,thread=$tcg
if [ "$arch" = aarch64 ]; then
	# -M virt with a GICv3 (the arm64 kernel's default, and what pseudo-NMI
	# would need); -cpu max, pointer authentication with QEMU's own cheap
	# algorithm instead of QARMA (the kernel uses it on every function
	# return; QARMA under TCG makes the boot several times slower).
	qemu=(qemu-system-aarch64 -M "virt,gic-version=3" -accel "$accel"
		-cpu "max,pauth-impdef=on" -smp "$smp" -m "${mem}M")
else
	qemu=(qemu-system-x86_64 -accel "$accel" -cpu "max,la57=off" -smp "$smp" -m "${mem}M")
fi
qemu+=(-nographic -nodefaults -monitor none -serial stdio -no-reboot
	-kernel "$image" -initrd "$initrd" -append "$cmdline")
if [ $tier -eq 1 ]; then
	# The HMAT's figures (ns, bytes/s) are a DDR5 node and a CXL
	# expander's: 6.10+ set node 0's as the DRAM reference
	# (mt_set_default_dram_perf) and give node 1, without CPUs, an
	# abstract distance of 576 x (250 / 100) x (30 / 10) = 4320 at its
	# memory_tier_late_init(), a tier below node 0's.
	half=$((mem / 2))
	lb=hierarchy=memory,data-type
	qemu+=(-machine hmat=on
		-object "memory-backend-ram,size=${half}M,id=m0"
		-object "memory-backend-ram,size=$((mem - half))M,id=m1"
		-numa "node,nodeid=0,cpus=0-1,memdev=m0"
		-numa "node,nodeid=1,memdev=m1,initiator=0"
		-numa "hmat-lb,initiator=0,target=0,$lb=access-latency,latency=100"
		-numa "hmat-lb,initiator=0,target=0,$lb=access-bandwidth,bandwidth=30G"
		-numa "hmat-lb,initiator=0,target=1,$lb=access-latency,latency=250"
		-numa "hmat-lb,initiator=0,target=1,$lb=access-bandwidth,bandwidth=10G")
elif [ $numa -eq 1 ]; then
	half=$((mem / 2))
	qemu+=(-object "memory-backend-ram,size=${half}M,id=m0"
		-object "memory-backend-ram,size=$((mem - half))M,id=m1"
		-numa "node,nodeid=0,cpus=0,memdev=m0"
		-numa "node,nodeid=1,cpus=1,memdev=m1")
fi

# Host watchdog, for a guest too wedged for its own (/init's): kill qemu
# when a script has run WATCH_GRACE + HOST_GRACE s past its limit, or when
# the boot, the steps between two scripts or the end (kmemleak scan, power
# off) take more than OUTSIDE s. It reads the markers from the log, which
# the pipeline below writes a line at a time.
WATCH_GRACE=180 HOST_GRACE=120 OUTSIDE=600
pidfile=$top/build/vm/$run.pid
hung=$log.hung
rm -f "$pidfile" "$hung"
qemu+=(-pidfile "$pidfile")
host_watch() {
	local cur='' since i lim last what
	since=$(date +%s)
	while sleep 10; do
		last=$(grep -aE '^DAMON_PERF_(START|BEGIN|END) ' "$log" 2>/dev/null | tail -n 1 || true)
		[ "$last" = "$cur" ] || { cur=$last; since=$(date +%s); }
		# a script: its limit and the graces; the boot (before START),
		# the steps between scripts and the end (kmemleak scan): OUTSIDE
		lim=$OUTSIDE what="the boot or the steps between scripts"
		case "$cur" in
		DAMON_PERF_BEGIN*)
			for i in "${!limits[@]}"; do
				[ "$cur" = "DAMON_PERF_BEGIN test=$(echo "$tests" | cut -d, -f$((i + 1)))" ] &&
					lim=$((limits[i] + WATCH_GRACE + HOST_GRACE))
			done
			what=${cur#DAMON_PERF_BEGIN test=} ;;
		esac
		if [ $(( $(date +%s) - since )) -gt "$lim" ]; then
			echo "vm: HUNG: $what on $kernel made no progress in ${lim}s; qemu killed" > "$hung"
			[ -s "$pidfile" ] && kill -9 "$(cat "$pidfile")" 2>/dev/null
			return
		fi
	done
}

echo "vm: ${tests//,/ } on $kernel ($image, $flavour build), $([ $tier -eq 1 ] && echo '2 memory tiers, ' || { [ $numa -eq 1 ] && echo '2 NUMA nodes, '; })timeout ${timeout}s, log $log" >&2
start=$(date +%s)
: > "$log"
host_watch &
watch_pid=$!
set +e
if [ $quiet -eq 1 ]; then
	timeout -k 5 "$timeout" "${qemu[@]}" </dev/null 2>&1 | stdbuf -oL tr -d '\r' > "$log"
elif [ $quiet -eq 2 ]; then
	timeout -k 5 "$timeout" "${qemu[@]}" </dev/null 2>&1 | stdbuf -oL tr -d '\r' | tee "$log" |
		awk '/^DAMON_PERF_EXIT=/ {f = 0} f && !/^\[ *[0-9]+\.[0-9]+\]/ && !/^DAMON_PERF_/ {print; fflush()}
			/^DAMON_PERF_START/ {f = 1}'
else
	timeout -k 5 "$timeout" "${qemu[@]}" </dev/null 2>&1 | stdbuf -oL tr -d '\r' | tee "$log"
fi
qrc=${PIPESTATUS[0]}
set -e
kill "$watch_pid" 2>/dev/null || true
wait "$watch_pid" 2>/dev/null || true
took=$(( $(date +%s) - start ))
if [ -s "$hung" ]; then
	cat "$hung" >> "$log"
	echo "$(cat "$hung") (log $log)" >&2
	rm -f "$pidfile" "$hung"
	exit 125
fi
rm -f "$pidfile" "$hung"

if [ "$qrc" -eq 124 ] || [ "$qrc" -eq 137 ]; then
	msg="vm: TIMEOUT: $name on $kernel did not finish within ${timeout}s"
	echo "$msg" >> "$log"
	echo "$msg (log $log)" >&2
	exit 124
fi
rc=$(grep -ao 'DAMON_PERF_EXIT=[0-9]*' "$log" | tail -n 1 | cut -d= -f2)
if [ -z "$rc" ]; then
	msg="vm: $name on $kernel ended without DAMON_PERF_EXIT (kernel crash? qemu exit $qrc)"
	echo "$msg" >> "$log"
	echo "$msg (log $log)" >&2
	exit 125
fi
lc=0
verdict=$("$top/scripts/logcheck" vm "$log" --kernel "$kernel") || lc=$?
if [ $lc -ne 0 ]; then
	echo "vm: failed tests:" >&2
	echo "$verdict" | grep -E '^(not ok|# line)' | head -n 20 | sed 's/^/  /' >&2
fi
if [ "$rc" -eq 0 ] && ! "$top/scripts/logcheck" splat "$log" >/dev/null; then
	rc=1
fi
echo "vm: ${tests//,/ } on $kernel: exit $rc in ${took}s, $(echo "$verdict" | grep "^RESULT " | tail -n 1) (log $log)" >&2
exit "$rc"
