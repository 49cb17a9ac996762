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
	seq=$(snap_seq /tmp/agg.json)
	if [ -n "$seq" ] && [ "$seq" != "$last" ]; then
		last=$seq
		# "percent hot all": probe hits in regions on the hot range,
		# in all regions; none unless all >= MIN_HITS.
		regions /tmp/agg.json > /tmp/agg.tsv
		top=$(hot_share /tmp/agg.tsv 4 "$((WORKLOAD_HOT_START))" \
			"$((WORKLOAD_HOT_END))" | awk -v min=$MIN_HITS '$3 >= min')
		[ -n "$top" ] && break
	fi
	sleep 0.3
	n=$((n + 1))
done
set -- $top
if [ -n "$top" ] && [ "$1" -ge 50 ]; then
	ok "aggregation $last: $1% of its samples ($2 of $3) on the hot range"
else
	not_ok "most samples of an aggregation on the hot range ('$top')"
fi

check "damonctl stop" damonctl stop demo
check "perf_stats balanced after the stop" stats_balanced
stop_workload
unload_module damon_perf
finish
