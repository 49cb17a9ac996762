#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kernels: bookworm
# numa: yes
# timeout: 480
# A damo-written percentage threshold promotes the hot range, not the
# cold one, while the aggregations' observed maximum nr_accesses is low:
# damo's JSON, migrate_hot to node 0 with "nr_accesses": {"min": "20%"},
# one engine process for SCHEMES_AGGRS aggregations (default 70) without
# a restart. The context samples every 50 ms of 500 ms aggregations, so
# its maximum is 10 and 20 % of it is 2 (DAMOS's
# damon_max_nr_accesses()); the page-fault probe's hinting faults keep the
# observed maximum at a few, of which 20 % floored to 0: every region
# matched and the cold pages, oldest, went first. SCHEMES_THP (kernel
# command line, default never) sets THP for the workload: always is
# Debian's default.
#
# Debian 12's 6.1 only: from 6.4 on, task_numa_work() skips VMAs without
# recent faults and the hinting faults come in bursts 0.6 to 2.9 s apart,
# so this probe gives the hot range one or two of a window's ten sample
# intervals, and a measurement carried over W windows is judged against
# 20 % of 10 W: on 6.12, 52 of 70 aggregations carried and none matched;
# with one window a measurement (max_carried=0) and steady scans 6.12
# promoted the hot range alone, while 7.2 published a few-sample
# aggregation whose region joined the hot range to 3670 cold pages at
# nr_accesses 3 and promoted them. What the percentage means there is the
# probe's rate, not the conversion this script tests.
#
# Ground truth: the frame of every page (/bin/pagenodes -m), read every
# second while the engine runs; the migrations by reason and task (the
# migrate:mm_migrate_pages tracepoint) tell the engine's from NUMA
# balancing's, and the module's damon_perf_aggregated events give the
# observed maximum of each aggregation.
#
# Checks: at least 95 % of the hot pages on node 0 by the end and at the
# end; at most 1 % of the cold pages ever on node 0; at most 1.5x the hot
# pages migrated by move_pages(2); the observed maximum at most 4 (20 %
# of it floors to 0) in at least half of the aggregations, so the test
# is the case it is for.
. /tests/lib.sh

CTX=pct
SAMPLE_US=50000
AGGR_US=500000
AGGRS=${SCHEMES_AGGRS:-70}
THP=${SCHEMES_THP:-never}

need_damonctl "damonctl schemes"
diag_machine
load_module damon_perf || finish

check "NUMA balancing on with fast scans" numa_balancing_fast
taskset -p 1 $$ > /dev/null
# -H: no MADV_NOHUGEPAGE, the mapping 2 MiB aligned (THP always)
huge=
[ "$THP" = never ] || huge=-H
# shellcheck disable=SC2086 # no -H: no argument
WORKLOAD_THP=$THP workload_started -s 64 -o 16 -h 8 -t 0 -n 2 -N 1 $huge
taskset -p 3 $$ > /dev/null 2>&1
diag "THP $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)"
hs=$((WORKLOAD_HOT_START))
he=$((WORKLOAD_HOT_END))
ms=$((WORKLOAD_BASE))
me=$((WORKLOAD_BASE + WORKLOAD_SIZE))
hot_pages=$(((he - hs) / 4096))
cold_pages=$(((me - ms) / 4096 - hot_pages))
diag "AnonHugePages: $(awk '/^AnonHugePages/ { s += $2 } END { print s + 0 }' \
	/proc/"$WORKLOAD_PID"/smaps) kB"
# shellcheck disable=SC2046 # into $1..$4
set -- $(nodes "$WORKLOAD_PID" $ms $me)
if [ $((${2:-0} * 100 * 4096)) -ge $(((me - ms) * 99)) ]; then
	ok "the mapping starts on node 1 ($2 of $(((me - ms) / 4096)) pages)"
else
	not_ok "the mapping starts on node 1 ($2 of $(((me - ms) / 4096)) pages)"
fi
check "damonctl start: page-fault probe, $SAMPLE_US us samples" \
	damonctl start -n $CTX -p "$WORKLOAD_PID" -e page-faults --period 1 \
	--exclude-kernel --sample-us $SAMPLE_US --aggr-us $AGGR_US \
	--ring-size 4096
# damo's JSON (damo 3.3 writes a percentage so, "max" as ULONG_MAX %)
cat > /tmp/pct.json <<EOF2
[{"action": "migrate_hot", "target_nid": 0,
  "access_pattern": {"sz_bytes": {"min": "4.000 KiB", "max": "max"},
    "nr_accesses": {"min": "20 %", "max": "18,446,744,073,709,551,615 %"}},
  "filters": [{"filter_type": "addr", "matching": true, "allow": true,
    "address_range": {"start": "$ms", "end": "$me"}}]}]
EOF2
mig0=$(vmstat pgmigrate_success)
numa0=$(vmstat numa_pages_migrated)
traced=0
migrations_traced && traced=1 && aggregations_traced
# every aggregation's regions, to name those that took cold pages along
damonctl record -o /tmp/pct.jsonl $CTX 2> /dev/null &
rec=$!
damonctl schemes -c /tmp/pct.json $CTX --json -n "$AGGRS" \
	> /tmp/pct.out 2> /tmp/pct.err &
eng=$!
t0=$(date +%s) t=0 reached='' cold_max=0 hot0=0 reads=0
while kill -0 $eng 2>/dev/null; do
	sleep 1
	t=$(($(date +%s) - t0)) reads=$((reads + 1))
	# shellcheck disable=SC2046
	set -- $(nodes "$WORKLOAD_PID" $hs $he)
	hot0=${1:-0}
	# shellcheck disable=SC2046
	set -- $(nodes "$WORKLOAD_PID" $ms $hs) $(nodes "$WORKLOAD_PID" $he $me)
	cold0=$((${1:-0} + ${5:-0}))
	[ "$cold0" -gt "$cold_max" ] && cold_max=$cold0
	if [ -z "$reached" ] && [ $((hot0 * 100)) -ge $((hot_pages * 95)) ]; then
		reached=$t
	fi
	[ $((reads % 5)) = 0 ] && diag "${t}s: hot on node 0 $hot0/$hot_pages, cold $cold0/$cold_pages"
	[ $t -gt $((AGGRS * AGGR_US / 1000000 + 120)) ] && kill $eng
done
wait $eng
rc=$?
kill $rec 2> /dev/null
wait $rec 2> /dev/null
# the regions of the mapping at 2 or more (20 % of 10) that hold cold
# pages: "seq start-end nr_accesses cold-pages"
awk -v ms="$ms" -v me="$me" -v hs="$hs" -v he="$he" '
	function max(a, b) { return a > b ? a : b }
	function min(a, b) { return a < b ? a : b }
	function num(o, key,   v) {
		if (!match(o, "\"" key "\":[0-9]+")) return -1
		v = substr(o, RSTART, RLENGTH); sub(/.*:/, "", v); return v + 0
	}
	BEGIN { ms += 0; me += 0; hs += 0; he += 0 }
	{
		rest = $0
		while (match(rest, /"end":[0-9]+,"nr_accesses":[0-9]+,[^}]*"start":[0-9]+/)) {
			obj = substr(rest, RSTART, RLENGTH)
			rest = substr(rest, RSTART + RLENGTH)
			if (num(obj, "nr_accesses") < 2) continue
			cs = max(num(obj, "start"), ms); ce = min(num(obj, "end"), me)
			if (ce <= cs) continue
			cold = ce - cs - max(0, min(ce, he) - max(cs, hs))
			if (cold > 0)
				printf "%d %.0f-%.0f %d %d\n", num($0, "seq"), cs, ce,
				       num(obj, "nr_accesses"), cold / 4096
		}
	}' /tmp/pct.jsonl 2> /dev/null | head -n 8 | while read -r l; do
	diag "cold in a region at 20 %: $l"
done
# shellcheck disable=SC2046
set -- $(nodes "$WORKLOAD_PID" $hs $he)
hot0_end=${1:-0}
migrations_counted "$mig0" "$numa0" $traced
engine=$MIG_ENGINE numa=$MIG_NUMA
applied=$(jsum sz_applied /tmp/pct.out)
aggrs=$(jsum aggregations /tmp/pct.out)
low=0 n=0 peak=0
if [ $traced = 1 ]; then
	# the highest nr_accesses of each aggregation (every region of the
	# context: the engine took 20 % of this)
	maxes=$(grep damon_perf_aggregated "$_T/trace" | awk '
		{ t = $4; sub(":", "", t); n = $(NF - 1) + 0
		  if (t - last > 0.1) { if (NR > 1) print m; m = 0; last = t }
		  if (n > m) m = n }
		END { print m }')
	for m in $maxes; do
		n=$((n + 1))
		[ "$m" -le 4 ] && low=$((low + 1))
		[ "$m" -gt "$peak" ] && peak=$m
	done
	diag "observed maximum by aggregation: $(echo "$maxes" | tr '\n' ' ')"
fi
diag "PERCENT thp=$THP aggregations=$aggrs hot_on_node0=$hot0_end/$hot_pages" \
	"reached_95pct_at=${reached:-never}s cold_on_node0_max=$cold_max/$cold_pages" \
	"pages_migrated_engine=$engine (x$(awk -v m="$engine" -v h="$hot_pages" \
	'BEGIN { printf "%.2f", m / h }') of hot) numa_balancing_migrated=$numa" \
	"sz_applied_pages=$((applied / 4096)) observed_max_low=$low/$n peak=$peak"
diag "engine: tried $(jsum nr_tried /tmp/pct.out) regions" \
	"$(($(jsum sz_tried /tmp/pct.out) / 4096)) pages," \
	"applied $(jsum nr_applied /tmp/pct.out)," \
	"aggregations acted on $(jsum nr_aggregations /tmp/pct.out)," \
	"below the floor $(jsum nr_below_floor /tmp/pct.out)"
while read -r l; do diag "stderr: $l"; done < /tmp/pct.err
if [ "$rc" = 0 ] && [ "${aggrs:-0}" -ge 60 ]; then
	ok "one engine process for $aggrs aggregations"
else
	not_ok "one engine process for ${aggrs:-0} aggregations (exit $rc; want 60)"
fi
if [ -n "$reached" ] && [ $((hot0_end * 100)) -ge $((hot_pages * 95)) ]; then
	ok "20 %: $hot0_end of $hot_pages hot pages on node 0 (95 % at ${reached}s)"
else
	not_ok "20 %: $hot0_end of $hot_pages hot pages on node 0 (95 % at ${reached:-never}s)"
fi
if [ $((cold_max * 100)) -le "$cold_pages" ]; then
	ok "20 %: at most $cold_max of $cold_pages cold pages on node 0 (1 %)"
else
	not_ok "20 %: $cold_max of $cold_pages cold pages on node 0 (want at most 1 %)"
fi
if [ $((engine * 2)) -le $((hot_pages * 3)) ]; then
	ok "20 %: $engine pages migrated for $hot_pages hot (at most 1.5x)"
else
	not_ok "20 %: $engine pages migrated for $hot_pages hot (want at most 1.5x)"
fi
if [ $traced = 0 ]; then
	skip "the observed maximum is low" "no tracing"
elif [ $((low * 2)) -ge "$n" ] && [ "$n" -gt 0 ]; then
	ok "the observed maximum is at most 4 in $low of $n aggregations"
else
	not_ok "the observed maximum is at most 4 in $low of $n aggregations (want half)"
fi
damonctl stop $CTX > /dev/null 2>&1
stop_workload
unload_module damon_perf
finish
