#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kernels: bookworm trixie sid
# numa: yes
# timeout: 300
# The sample floor (Documentation/access-semantics.rst, "The sample floor")
# on a bursty live source: the page-fault probe at period 1 on a workload
# whose hot range (2 MiB of 64 MiB) is touched in 5 of every 10 slots of
# 100 ms, faulting on every touch (-f): 500 ms of dense samples, then
# 500 ms without one, longer than the 200 ms aggregation. Ground truth: the
# hot range the workload prints. Per aggregation (damonctl record):
#   P  of the mapping's bytes in regions with nr_accesses >= 1, the share
#      inside the hot range (0 when none: an empty hot set);
#   R  of the hot range's bytes, the share in such regions.
# Without the floor (max_carried=0) the gaps publish empty hot sets; with
# it (the default) every aggregation after the first two must have P and
# R >= 0.9, the gaps carried (confidence carried, nr_samples below the
# floor) and their measurement extended into the next burst. Both series
# are printed ("# STEADY ...").
. /tests/lib.sh

CTX=steady
AGGRS=${STEADY_AGGRS:-30}
PARAM=/sys/module/damon_perf/parameters/max_carried

need_damonctl "the sample floor"
load_module damon_perf || finish
workload_started -s 64 -r 16384,2048,5 -f -t 0 -n 2

base=$((WORKLOAD_BASE))
end=$((WORKLOAD_BASE + WORKLOAD_SIZE))
hs=$((WORKLOAD_HOT_START))
he=$((WORKLOAD_HOT_END))

# score RECORDING: "SEQ P R CONFIDENCE NR_SAMPLES FLOOR CARRIED WINDOWS"
score() {
	score_aggregations "$1" "$base" "$end" "$hs" "$he" \
		confidence nr_samples floor carried windows
}

# run NAME MAX_CARRIED: one context over AGGRS aggregations; the scores in
# /tmp/steady-NAME.score.
run() {
	echo "$2" > $PARAM
	damonctl record -o "/tmp/steady-$1.jsonl" -n "$AGGRS" $CTX \
		> "/tmp/steady-$1.log" 2>&1 &
	_rec=$!
	sleep 0.3	# subscribed before the first aggregation
	if ! workload_paused damonctl start -n $CTX -p "$WORKLOAD_PID" \
		-e page-faults --period 1 --exclude-kernel --sample-us 10000 \
		--aggr-us 200000 --ring-size 4096 > /tmp/steady-start.log 2>&1; then
		diag "$(cat /tmp/steady-start.log)"
		kill $_rec 2>/dev/null
		return 1
	fi
	wait $_rec
	_rc=$?
	workload_paused damonctl stop $CTX > /dev/null 2>&1
	score "/tmp/steady-$1.jsonl" > "/tmp/steady-$1.score"
	diag "$1 (max_carried=$2): seq P R confidence nr_samples floor carried windows"
	while read -r _l; do echo "# STEADY $1 $_l"; done < "/tmp/steady-$1.score"
	# the regions of an aggregation that answered, but not exactly
	awk '$1 > 2 && $2 + $3 > 0 && ($2 < 0.9 || $3 < 0.9) { print $1 }' \
		"/tmp/steady-$1.score" | while read -r _s; do
		diag "$1 regions $(regions_of_aggregation "/tmp/steady-$1.jsonl" \
			"$_s" "$base" "$end")"
	done
	return $_rc
}

saved=$(cat $PARAM)
check "recorded $AGGRS aggregations without the floor" run before 0
check "recorded $AGGRS aggregations with the floor" run after 10
echo "$saved" > $PARAM
stop_workload

# the scenario has gaps: without the floor they read "nothing is hot"
empty=$(awk '$1 > 2 && $2 + $3 == 0' /tmp/steady-before.score | wc -l)
if [ "$empty" -ge 1 ]; then
	ok "without the floor, $empty aggregations after the second publish an empty hot set"
else
	not_ok "without the floor, some aggregation after the second publishes an empty hot set (the workload made no gap)"
fi

n=$(awk '$1 > 2' /tmp/steady-after.score | wc -l)
bad=$(awk '$1 > 2 && ($2 < 0.9 || $3 < 0.9) { printf "%s ", $1 }' /tmp/steady-after.score)
if [ "$n" -ge $((AGGRS - 2)) ] && [ -z "$bad" ]; then
	ok "with the floor, P and R >= 0.9 in all $n aggregations after the second"
else
	not_ok "with the floor, P and R >= 0.9 in every aggregation after the second ($n scored; below: ${bad:-none})"
fi
carried=$(awk '$4 == "carried" && $5 < $6 && $7 >= 1' /tmp/steady-after.score | wc -l)
extended=$(awk '$4 == "met" && $8 > 1' /tmp/steady-after.score | wc -l)
if [ "$carried" -ge 1 ] && [ "$extended" -ge 1 ]; then
	ok "gaps carried ($carried, below the floor) and measurements extended into the burst ($extended)"
else
	not_ok "gaps carried ($carried) and measurements extended ($extended)"
fi
low=$(awk '$4 == "low" { printf "%s ", $1 }' /tmp/steady-after.score)
if [ -z "$low" ]; then
	ok "no aggregation ran out of carries"
else
	not_ok "no aggregation ran out of carries (low: $low)"
fi

unload_module damon_perf
finish
