#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# numa: yes
# kernels: stock
# timeout: 360
# The demo payload (make demo): monitor a real workload with real samples,
# then act on the answer.
#
# /bin/workload keeps touching a 4 MiB hot range of a 64 MiB mapping from
# two threads; NUMA balancing turns its accesses into hinting page faults,
# and the software page-fault event delivers them, with their data
# addresses, to damon_perf. damonctl then shows what the module saw: the
# hottest regions, the working set, a heatmap over time, and the counters.
#
# The action: the mapping starts on node 1 (the slow tier; -N 1 binds it
# there with MPOL_F_NUMA_BALANCING) while the threads run on CPU 0 (node
# 0), and `damonctl schemes` with a migrate_hot scheme promotes the hot
# range to node 0. The pages per node before and after come from the page
# frames (/proc/PID/pagemap, /bin/pagenodes -m), the pages migrated from
# the kernel's counters (the migrate tracepoint, or /proc/vmstat), not
# from damonctl: NUMA balancing migrates pages too, but under that
# binding only for a CPU of node 1, where the workload never runs, and
# the demo prints what it moved (tests/vm/schemes_promote.sh checks the
# same at length). The recording goes to the console as DAMON_PERF_REC
# lines, from which scripts/demo.sh writes build/demo/demo.jsonl.
. /tests/lib.sh

say() { printf '\n== %s\n' "$*"; }

say "damon_perf demo on the $DAMON_PERF_KERNEL kernel ($(uname -r)):" \
	"$(nproc) CPUs, $(ls -d /sys/devices/system/node/node* 2>/dev/null | wc -l) NUMA nodes"
check "NUMA balancing on with fast scans" numa_balancing_fast
load_module damon_perf || finish
[ -x /bin/damonctl ] || { not_ok "damonctl in the image"; finish; }

# the workload's threads on CPU 0 (node 0), its memory bound to node 1
taskset -p 1 $$ > /dev/null
start_workload -s 64 -o 16 -h 4 -t 0 -n 2 -N 1 || { not_ok "workload started"; finish; }
taskset -p 3 $$ > /dev/null 2>&1
say "workload: pid $WORKLOAD_PID, 64 MiB mapping on node 1, hot range" \
	"$WORKLOAD_HOT_START-$WORKLOAD_HOT_END (4 MiB), threads on CPU 0 (node 0)"

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
# for scripts/demo.sh: the recording, a line at a time (not shown)
sed 's/^/DAMON_PERF_REC /' /tmp/demo.jsonl

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

# --- acting on the answer: promote the hot range to node 0 -------------
hs=$((WORKLOAD_HOT_START)) he=$((WORKLOAD_HOT_END))
ms=$((WORKLOAD_BASE)) me=$((WORKLOAD_BASE + WORKLOAD_SIZE))
hot_pages=$(((he - hs) / 4096))
cat > /tmp/promote.json <<EOF
{"schemes": [{"name": "promote", "action": "migrate_hot", "node": 0,
  "pattern": {"nr_accesses": {"min": 1}},
  "filters": [{"type": "addr", "start": "$(printf '%#x' "$ms")",
               "end": "$(printf '%#x' "$me")", "allow": true}]}]}
EOF
say "acting on it: damonctl schemes -c promote.json demo -n 5 (migrate_hot to" \
	"node 0, within the workload's mapping), until the hot range is on node 0"
cat /tmp/promote.json
# shellcheck disable=SC2046 # into $1..$4
set -- $(nodes "$WORKLOAD_PID" $hs $he)
echo "before: hot range $(printf '%#x-%#x' $hs $he), $hot_pages pages:" \
	"node0=${1:-?} node1=${2:-?} (page frames, /proc/$WORKLOAD_PID/pagemap)"
mig0=$(vmstat pgmigrate_success)
numa0=$(vmstat numa_pages_migrated)
traced=0
migrations_traced && traced=1
run=0 hot0=0 hot1=0
while [ $run -lt 6 ]; do
	run=$((run + 1))
	damonctl schemes -c /tmp/promote.json demo -n 5 > /tmp/promote.out 2>&1
	# shellcheck disable=SC2046
	set -- $(nodes "$WORKLOAD_PID" $hs $he)
	hot0=${1:-0} hot1=${2:-0}
	echo "after $((run * 5)) aggregations: node0=$hot0 node1=$hot1"
	[ $((hot0 * 100)) -ge $((hot_pages * 95)) ] && break
done
# shellcheck disable=SC2046
set -- $(nodes "$WORKLOAD_PID" $ms $hs) $(nodes "$WORKLOAD_PID" $he $me)
cold0=$((${1:-0} + ${5:-0})) cold1=$((${2:-0} + ${6:-0}))
migrations_counted "$mig0" "$numa0" $traced > /dev/null
cat /tmp/promote.out
echo "after: hot range node0=$hot0 node1=$hot1 of $hot_pages pages; the rest" \
	"of the mapping node0=$cold0 node1=$cold1 (page frames)"
echo "pages migrated (the kernel's count): $MIG_ENGINE by damonctl's" \
	"move_pages(2), $MIG_NUMA of the workload's by NUMA balancing"
if [ $((hot0 * 100)) -ge $((hot_pages * 95)) ]; then
	ok "promotion: $hot0 of $hot_pages hot pages on node 0 after $((run * 5)) aggregations"
else
	not_ok "promotion: $hot0 of $hot_pages hot pages on node 0 after $((run * 5)) aggregations (want 95 %)"
fi

check "damonctl stop" damonctl stop demo
check "perf_stats balanced after the stop" stats_balanced
stop_workload
unload_module damon_perf
finish
