#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kernels: debug
# numa: yes
# timeout: 600
# The largest context validation accepts, with samples flowing: 16 paddr
# ranges (DAMON_PERF_MAX_TARGETS) of 10000 regions each
# (DAMON_PERF_NR_REGIONS_MAX), 160000 regions, and the page-fault probe
# translating a workload's NUMA hinting faults. The drain's snapshot of
# the regions (32 bytes each, 5 MiB: beyond kmalloc's limit) must be
# allocated on every pass: samples are credited, the kernel log stays
# clean (no WARNING from the allocator), and after the stop every report
# the rings accepted was credited or counted by reason.
. /tests/lib.sh

CTX=max
TARGETS=16
REGIONS=10000
WAIT=${REGIONS_MAX_WAIT:-120}

# ranges N MIN_PAGES: "-r START-END" N times, the largest top-level System
# RAM range cut in N equal page-aligned pieces; nothing when a piece would
# hold fewer than MIN_PAGES pages. awk prints decimals and the shell
# (64-bit arithmetic) the hex, as ram_ranges in lib.sh does: busybox awk's
# %x is 32-bit.
ranges() {
	awk -F' : ' -v n="$1" -v min="$2" '
	function hex(s,   i, v) {
		s = tolower(s)
		v = 0
		for (i = 1; i <= length(s); i++)
			v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v
	}
	$2 == "System RAM" && $1 !~ /^ / {
		split($1, a, "-")
		s = int((hex(a[1]) + 4095) / 4096) * 4096
		e = int((hex(a[2]) + 1) / 4096) * 4096
		if (e - s > best_e - best_s) { best_s = s; best_e = e }
	}
	END {
		piece = int((best_e - best_s) / n / 4096) * 4096
		if (piece / 4096 < min)
			exit 1
		for (i = 0; i < n; i++)
			printf "%.0f %.0f\n", best_s + i * piece,
				best_s + (i + 1) * piece
	}' /proc/iomem > /tmp/ranges || return 1
	while read -r _s _e; do
		printf -- '-r 0x%x-0x%x ' "$_s" "$_e"
	done < /tmp/ranges
}

need_damonctl "the largest context with samples flowing"
diag_machine
check "NUMA balancing on with fast scans" numa_balancing_fast
load_module damon_perf || finish
workload_started -s 64 -o 16 -h 4 -t 0 -n 2

if ! r=$(ranges $TARGETS $REGIONS); then
	not_ok "System RAM holds $TARGETS ranges of $REGIONS pages"
	stop_workload
	unload_module damon_perf
	finish
fi
diag "ranges: $r"
echo reset > "$PERF_STATS"
# Long intervals: every pass copies 160000 regions, every aggregation
# walks them, under TCG with KASAN.
# shellcheck disable=SC2086 # $r: the -r options
check "damonctl start: $TARGETS paddr ranges of $REGIONS regions" \
	workload_paused damonctl start -n $CTX --ops paddr $r -e page-faults \
	--period 1 --exclude-kernel --phys-addr --sample-us 100000 \
	--aggr-us 2000000 --update-us 2000000 --min-nr-regions $REGIONS \
	--max-nr-regions $REGIONS --ring-size 8192

nr=$(damonctl status $CTX --json 2>/dev/null |
	awk '$1 == "\"nr_regions\":" { gsub(/[^0-9]/, "", $2); n += $2 }
	END { print n + 0 }')
expect_ge "regions of the context" "$nr" $((TARGETS * REGIONS))

waited=0
while [ "$(col match)" -lt 100 ] 2>/dev/null && [ $waited -lt "$WAIT" ]; do
	sleep 1
	waited=$((waited + 1))
done
diag "after ${waited} s: sample_valid $(col sample_valid) enqueue" \
	"$(col enqueue) dequeue $(col dequeue) match $(col match)" \
	"miss_nomem $(col miss_nomem) overflow $(col overflow)"
expect_ge "reports credited to regions" "$(col match)" 100
nr=$(damonctl status $CTX --json 2>/dev/null |
	awk '$1 == "\"nr_regions\":" { gsub(/[^0-9]/, "", $2); n += $2 }
	END { print n + 0 }')
diag "regions while running: $nr"

check "damonctl stop" damonctl stop $CTX
diag "after the stop: enqueue $(col enqueue) dequeue $(col dequeue)" \
	"match $(col match) stale $(col stale) miss_region $(col miss_region)" \
	"miss_nomem $(col miss_nomem)"
check "perf_stats balanced after the stop (reports = credited + counted)" \
	stats_balanced
nomem=$(col miss_nomem)
if [ "${nomem:-x}" = 0 ]; then
	ok "no pass lacked memory for its snapshot"
else
	not_ok "no pass lacked memory for its snapshot (miss_nomem '$nomem')"
fi
stop_workload
unload_module damon_perf
finish
