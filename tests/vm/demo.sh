#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# numa: yes
# kernels: stock
# timeout: 300
# The demo payload (make demo): monitor a real workload with real samples.
#
# /bin/workload keeps touching a 4 MiB hot range of a 64 MiB mapping from
# two threads; NUMA balancing turns its accesses into hinting page faults,
# and the software page-fault event delivers them, with their data
# addresses, to damon_perf. damonctl then shows what the module saw: the
# hottest regions, the working set, a heatmap over time, and the counters.
. /tests/lib.sh

say() { printf '\n== %s\n' "$*"; }

say "damon_perf demo on the $DAMON_PERF_KERNEL kernel ($(uname -r)):" \
	"$(nproc) CPUs, $(ls -d /sys/devices/system/node/node* 2>/dev/null | wc -l) NUMA nodes"
check "NUMA balancing on with fast scans" numa_balancing_fast
load_module damon_perf || finish
[ -x /bin/damonctl ] || { not_ok "damonctl in the image"; finish; }

start_workload -s 64 -o 16 -h 4 -t 0 -n 2 || { not_ok "workload started"; finish; }
say "workload: pid $WORKLOAD_PID, 64 MiB mapping, hot range" \
	"$WORKLOAD_HOT_START-$WORKLOAD_HOT_END (4 MiB)"

# Hinting faults come in bursts, one per NUMA scan of the hot pages: a
# 1 s aggregation sees several scans, and a 4096-entry ring absorbs a burst.
START="damonctl start -n demo -p $WORKLOAD_PID -e page-faults --period 1
	--exclude-kernel --sample-us 10000 --aggr-us 1000000 --ring-size 4096"
say $START
check "monitoring started" $START
damonctl status demo

say "damonctl record -o /tmp/demo.jsonl --duration 15"
check "recorded 15 s of aggregations" \
	damonctl record -o /tmp/demo.jsonl --duration 15 demo

say "damonctl report --hot 5 (the latest aggregation)"
damonctl report --hot 5 demo
say "damonctl report -i /tmp/demo.jsonl --heatmap (address over time)"
damonctl report -i /tmp/demo.jsonl --heatmap --rows 16 --cols 60
say "damonctl stats (per-CPU sampling counters, total)"
damonctl stats

# The verdict: in an aggregation that holds a burst of samples (at least
# MIN_HITS probe hits), most hits fall in regions on the hot range.
# Hinting faults come in bursts, sparser on 6.12 and later, and between
# bursts the workload's own text and stack take a few faults too: the
# latest aggregation alone may say nothing. The bound only catches a
# kernel that delivers nothing.
MIN_HITS=100
top='' last='' n=0
while [ $n -lt 300 ]; do
	damonctl report --json demo > /tmp/agg.json 2>&1
	seq=$(sed -n 's/^ *"seq": *\([0-9]*\).*/\1/p' /tmp/agg.json | head -n 1)
	if [ -n "$seq" ] && [ "$seq" != "$last" ]; then
		last=$seq
		# "hot all percent": probe hits on the hot range, in all regions
		# (objects dumped one key per line).
		top=$(awk -v min=$MIN_HITS -v hs="$((WORKLOAD_HOT_START))" \
			-v he="$((WORKLOAD_HOT_END))" '
			/"regions": \[/ { in_r = 1; next }
			!in_r { next }
			/"probe_hits": \[/ { want = 1; next }
			want { gsub(/[^0-9]/, ""); hit = $0; want = 0; next }
			/"start":/ { gsub(/[^0-9]/, ""); s = $0 }
			/"end":/ { gsub(/[^0-9]/, ""); e = $0 }
			/"target_id":/ { all += hit; if (s + 0 < he + 0 && e + 0 > hs + 0) hot += hit }
			END { if (all >= min) print hot + 0, all, int(hot * 100 / all) }' /tmp/agg.json)
		[ -n "$top" ] && break
	fi
	sleep 0.3
	n=$((n + 1))
done
set -- $top
if [ -n "$top" ] && [ "$3" -ge 50 ]; then
	ok "aggregation $last: $3% of its samples ($1 of $2) on the hot range"
else
	not_ok "most samples of an aggregation on the hot range ('$top')"
fi

check "damonctl stop" damonctl stop demo
check "perf_stats balanced after the stop" stats_balanced
stop_workload
unload_module damon_perf
finish
