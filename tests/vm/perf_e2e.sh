#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# numa: yes
# timeout: 600
# End to end with real samples: the software page-fault event (period 1,
# user mode only) on a workload that keeps touching a 4 MiB hot range of a
# 64 MiB mapping, with NUMA balancing provoking hinting faults every scan
# period. The aggregation snapshot read with damonctl must show the hot
# range as hottest, and most samples must land in it.
. /tests/lib.sh

# --- commands (damonctl syntax: Documentation/damonctl.rst) ---
CTX=e2e
EVENT=page-faults
WAIT=${PERF_E2E_WAIT:-15}
F=/sys/kernel/debug/damon_perf/perf_stats

if [ ! -x /bin/damonctl ]; then
	skip "end to end with page-fault samples" "damonctl not in the image"
	finish
fi
nodes=$(ls -d /sys/devices/system/node/node* 2>/dev/null | wc -l)
diag "$(nproc) CPUs, $nodes NUMA nodes, kernel $DAMON_PERF_KERNEL"
check "NUMA balancing on with fast scans" numa_balancing_fast
load_module damon_perf || finish
if start_workload -s 64 -o 16 -h 4 -t 0 -n 2; then
	ok "workload started"
else
	not_ok "workload started"
	finish
fi
hs=$((WORKLOAD_HOT_START))
he=$((WORKLOAD_HOT_END))

check "damonctl start: page-fault probe on the workload" \
	damonctl start -n $CTX -p "$WORKLOAD_PID" -e $EVENT --period 1 \
	--exclude-kernel

# Wait for samples, then for an aggregation whose hottest region has
# accesses.
i=0
while [ $i -lt "$WAIT" ]; do
	sleep 1
	i=$((i + 1))
done
top=
i=0
while [ $i -lt 20 ]; do
	damonctl report $CTX --json --hot 1 > /tmp/hot.json 2>&1 &&
		top=$(regions /tmp/hot.json | head -n 1)
	set -- $top
	[ -n "$top" ] && [ "${3:-0}" -gt 0 ] && break
	sleep 1
	i=$((i + 1))
done
# Several aggregations: one alone may hold few samples.
: > /tmp/all.tsv
i=0
while [ $i -lt 8 ]; do
	damonctl report $CTX --json > /tmp/all.json 2>&1 &&
		regions /tmp/all.json >> /tmp/all.tsv
	sleep 0.5
	i=$((i + 1))
done
damonctl report $CTX 2>&1 | head -n 20 | while read -r l; do diag "$l"; done

valid=$(col sample_valid)
match=$(col match)
diag "perf_stats total: sample_valid=$valid match=$match" \
	"miss_tgid=$(col miss_tgid) miss_region=$(col miss_region)"
if [ -n "$valid" ] && [ "$valid" -ge 1000 ]; then
	ok "samples flowed ($valid valid in ${WAIT}+ s)"
else
	not_ok "samples flowed (sample_valid '$valid' < 1000)"
fi
if [ -n "$match" ] && [ "$match" -gt 0 ]; then
	ok "reports matched regions ($match)"
else
	not_ok "reports matched regions (match '$match')"
fi

set -- $top
if [ -n "$top" ] && overlaps "$1" "$2" "$hs" "$he"; then
	ok "hottest region $(printf '%#x-%#x' "$1" "$2") (nr_accesses $3)" \
		"overlaps the hot range $(printf '%#x-%#x' "$hs" "$he")"
else
	diag "$(cat /tmp/hot.json)"
	not_ok "hottest region '$top' overlaps the hot range" \
		"$(printf '%#x-%#x' "$hs" "$he")"
fi

# Share of those aggregations' samples in regions overlapping the hot range.
share=$(awk -v hs="$hs" -v he="$he" '
	{ all += $4; if ($1 < he && $2 > hs) hot += $4 }
	END { if (all) printf "%d %d %d\n", hot * 100 / all, hot, all;
	      else print "0 0 0" }' /tmp/all.tsv)
set -- $share
if [ "$3" -gt 0 ] && [ "$1" -ge 80 ]; then
	ok "$1% of 8 snapshots' samples ($2 of $3) in regions on the hot range"
else
	not_ok "most samples in the hot range ($1%: $2 of $3)"
fi

check "damonctl stop" damonctl stop $CTX
stop_workload
unload_module damon_perf
finish
