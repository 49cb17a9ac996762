#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make demo: install what the demo needs, build the module for Debian's
# stock kernel and damonctl, boot a 2-node NUMA VM and run the demo payload
# (tests/vm/demo.sh): load the module, show damonctl's view and the
# observability counters, then promote the hot range to node 0 with
# damonctl schemes. Ends with where the recording and its heatmap image
# are, and what to run on a real machine.
#
#   scripts/demo.sh [--kernel stock|debug|trixie|sid] [--all]   (--all: whole console)
#
# Only what the demo runs is installed and built (scripts/deps.sh demo-tools
# and demo-vm; the damonctl target; damon_perf.ko alone), in the build
# directories make check uses, configured as it configures them, so that
# it finds them up to date. What is independent overlaps: damonctl builds
# while the packages for the module and the VM install, the module builds
# beside it, and the stock kernel image is fetched meanwhile
# (scripts/kernel/stock-image.sh). Each step line gives the seconds since
# the start; the background jobs print theirs when they end.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
kernel=stock
show=--payload
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) kernel=$2; shift 2 ;;
	--all) show=; shift ;;
	*) echo "usage: $0 [--kernel stock|debug|trixie|sid] [--all]" >&2; exit 2 ;;
	esac
done
t0=$(date +%s)
step() { echo "demo: [$(( $(date +%s) - t0 ))s] $*" >&2; }
logs=build/logs
mkdir -p "$logs" build/demo
jobs_=()
kill_jobs() {
	local j
	for j in "${jobs_[@]}"; do kill "$j" 2>/dev/null || true; done
}
trap kill_jobs EXIT

step "packages for damonctl (scripts/deps.sh demo-tools)"
scripts/deps.sh demo-tools >&2

# configured as make check's userland tier configures it (ccache, the
# same build type and directory), so that make check after the demo finds
# damonctl built and compiles only its tests
step "damonctl, in the background (log $logs/demo-damonctl.log)"
ccache_cmake=()
. scripts/lib/kernels.sh
ccache_env
(
	s=$(date +%s)
	if { cmake -S tools -B build/tools -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		"${ccache_cmake[@]}" && cmake --build build/tools -j2 --target damonctl
	} > "$logs/demo-damonctl.log" 2>&1; then
		step "damonctl built ($(( $(date +%s) - s ))s)"
	else
		step "damonctl did not build ($logs/demo-damonctl.log); continuing without it"
	fi
) &
ctl_job=$!
jobs_+=("$ctl_job")

step "packages for the module and the VM (scripts/deps.sh demo-vm)"
scripts/deps.sh demo-vm >&2
img_job=
if [ "$kernel" = stock ] && [ -z "${KERNEL_STOCK:-}" ]; then
	# the image the VM boots, when /boot has none for the headers
	(
		s=$(date +%s)
		scripts/kernel/stock-image.sh > /dev/null &&
			step "stock kernel image ready ($(( $(date +%s) - s ))s)"
	) &
	img_job=$!
	jobs_+=("$img_job")
fi

step "module for the $kernel kernel"
ko=$(scripts/kbuild.sh --module-only "$kernel" | tail -n 1)
step "module built"
rc=0
[ -z "$img_job" ] || wait "$img_job" || rc=$?
[ $rc -eq 0 ] || { step "no kernel image to boot"; exit 1; }
wait "$ctl_job" || true
jobs_=()

step "booting the VM (2 CPUs, 2 NUMA nodes, TCG)"
log=$logs/demo-$kernel.log
scripts/vm.sh --kernel "$kernel" --numa --ko "$ko" $show --log "$log" tests/vm/demo.sh || rc=$?
step "done (exit $rc; console log $log)"

# The recording, from the console, and its heatmap image.
rec=build/demo/demo.jsonl svg=build/demo/heatmap.svg
sed -n 's/^DAMON_PERF_REC //p' "$log" > "$rec"
if [ -s "$rec" ] && [ -x build/tools/damonctl ] &&
	build/tools/damonctl report -i "$rec" --heatmap -o "$svg" 2> /dev/null; then
	echo "Recording: $rec; heatmap image: $svg (damonctl report -i $rec --heatmap)"
else
	echo "Recording: $rec (no heatmap image: damonctl or the recording missing, see $log)"
fi
echo "On a real machine, load the module for the running kernel (needs linux-headers-\$(uname -r)): make module && sudo insmod kmod/damon_perf.ko"
echo "Then start on a process with the machine's PMU event from 'damonctl events' (Intel cpu/mem-loads,ldlat=30/P, AMD ibs_op//, ARM arm_spe//): sudo build/tools/damonctl start -n app -p PID -e EVENT"
exit $rc
