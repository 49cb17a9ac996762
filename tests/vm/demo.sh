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

# The verdict: the hottest region overlaps the hot range.
damonctl report --hot 1 --json demo > /tmp/hot.json 2>&1
top=$(regions /tmp/hot.json | head -n 1)
set -- $top
if [ -n "$top" ] &&
	overlaps "$1" "$2" "$((WORKLOAD_HOT_START))" "$((WORKLOAD_HOT_END))"; then
	ok "hottest region $(printf '%#x-%#x' "$1" "$2") overlaps the hot range"
else
	not_ok "hottest region '$top' overlaps the hot range"
fi

check "damonctl stop" damonctl stop demo
stop_workload
unload_module damon_perf
finish
