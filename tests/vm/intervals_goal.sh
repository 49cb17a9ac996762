#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kernels: bookworm trixie sid
# timeout: 540
# Intervals tuning (Documentation/access-semantics.rst, "Intervals
# tuning") on steady.sh's bursty live source: the page-fault probe at
# period 1 on a workload whose 2 MiB hot range (of 64 MiB) is touched in 5
# of every 10 slots of 100 ms, faulting on every touch: 500 ms of dense
# samples, then 500 ms without one. The floor is off (max_carried=0), so
# the answer can come only from the tuning.
#   1. aggregation 200 ms fixed: some aggregations after the second
#      publish an empty hot set (the gaps are real), and the samples per
#      second give the rate;
#   2. the same with --samples-goal = the samples of two seconds at that
#      rate, 2 aggregations a step, at most 4 s: the interval lengthens
#      past the gaps' 500 ms (status says so, the recording's aggr_us
#      too: at least 600 ms; an interval that holds the goal is 2 to 4 s
#      at the measured rate, and still 0.8 to 1.6 s at 2.5 times that
#      rate, as a later run of this source may give), and every
#      aggregation after the first of 600 ms or more has P and R >= 0.9,
#      none empty;
#   3. a goal 20 times lower while it runs: the tuning restarts from
#      aggr_us and shortens the interval, not below its lower bound;
#   4. probe period 1000, the longest interval 400 ms, a goal it cannot
#      hold there: without a CPU budget the period stays; with a 50%
#      budget the tuning lets the budget lower it (period_div), and the
#      samples grow.
# P and R as in steady.sh, over each aggregation's regions with accesses.
. /tests/lib.sh

CTX=goal
PARAM=/sys/module/damon_perf/parameters/max_carried

need_damonctl "intervals tuning"
load_module damon_perf || finish
saved=$(cat $PARAM)
echo 0 > $PARAM
workload_started -s 64 -r 16384,2048,5 -f -t 0 -n 2

base=$((WORKLOAD_BASE))
end=$((WORKLOAD_BASE + WORKLOAD_SIZE))
hs=$((WORKLOAD_HOT_START))
he=$((WORKLOAD_HOT_END))

# score RECORDING: "SEQ P R NR_SAMPLES AGGR_US"
score() {
	score_aggregations "$1" "$base" "$end" "$hs" "$he" nr_samples aggr_us
}

# run NAME AGGRS START-OPTIONS...: record AGGRS aggregations of a fresh
# context (probe period $PERIOD); the scores in /tmp/goal-NAME.score.
PERIOD=1
run() {
	_n=$1 _a=$2
	shift 2
	damonctl record -o "/tmp/goal-$_n.jsonl" -n "$_a" $CTX \
		> "/tmp/goal-$_n.log" 2>&1 &
	_rec=$!
	sleep 0.3	# subscribed before the first aggregation
	if ! workload_paused damonctl start -n $CTX -p "$WORKLOAD_PID" \
		-e page-faults --period "$PERIOD" --exclude-kernel \
		--sample-us 10000 --aggr-us 200000 --ring-size 4096 --replace \
		"$@" \
		> /tmp/goal-start.log 2>&1; then
		diag "$(cat /tmp/goal-start.log)"
		kill $_rec 2>/dev/null
		return 1
	fi
	wait $_rec
	_rc=$?
	score "/tmp/goal-$_n.jsonl" > "/tmp/goal-$_n.score"
	diag "$_n: seq P R nr_samples aggr_us"
	while read -r _l; do echo "# GOAL $_n $_l"; done < "/tmp/goal-$_n.score"
	return $_rc
}

# 1. fixed
check "recorded 20 aggregations of 200 ms" run fixed 20
damonctl status --json $CTX > /tmp/goal-fixed.json 2>&1
if grep -q '"aggr_us"' /tmp/goal-fixed.json &&
   ! grep -q '"tuning"' /tmp/goal-fixed.json; then
	ok "no goal: status shows no tuning"
else
	not_ok "no goal: status shows no tuning ($(head -c 300 /tmp/goal-fixed.json))"
fi
workload_paused damonctl stop $CTX > /dev/null 2>&1
empty=$(awk '$1 > 2 && $2 + $3 == 0' /tmp/goal-fixed.score | wc -l)
if [ "$empty" -ge 1 ]; then
	ok "fixed 200 ms: $empty aggregations after the second publish an empty hot set"
else
	not_ok "fixed 200 ms: some aggregation after the second publishes an empty hot set (the workload made no gap)"
fi
# samples of two seconds at the rate of aggregations 3..20
rate=$(awk '$1 > 2 { n += $4; us += $5 }
	END { if (us) printf "%d", n * 1000000 / us; else print 0 }' \
	/tmp/goal-fixed.score)
goal=$((2 * rate))
diag "rate: $rate samples per second"
if [ "$rate" -lt 20 ]; then
	not_ok "the source gives at least 20 samples per second ($rate)"
	echo "$saved" > $PARAM
	stop_workload
	finish
fi

# 2. the goal: one second's samples
check "recorded 16 aggregations with --samples-goal $goal" \
	run goal 16 --samples-goal "$goal" --goal-aggrs 2 --max-aggr-us 4000000
damonctl status --json $CTX > /tmp/goal-status.json 2>&1
damonctl status $CTX > /tmp/goal-status.txt 2>&1
grep "intervals goal" /tmp/goal-status.txt | sed 's/^/# /'
tuned=$(tr ',' '\n' < /tmp/goal-status.json | awk -F: '
	/"tuning"/ { t = 1 } t && /"aggr_us"/ { gsub(/[^0-9]/, "", $NF); print $NF; exit }')
ups=$(tr ',' '\n' < /tmp/goal-status.json | awk -F: '
	/"ups"/ { gsub(/[^0-9]/, "", $NF); print $NF; exit }')
if [ "${tuned:-0}" -ge 600000 ] && [ "${ups:-0}" -ge 2 ]; then
	ok "status: tuned to $tuned us from 200000 ($ups steps lengthened it)"
else
	not_ok "status: tuned to at least 600000 us from 200000 in 2 steps or more (aggr_us ${tuned:-none}, ups ${ups:-none})"
fi
check "status says the goal and what it chose" \
	grep -q "intervals goal: $goal samples per aggregation" /tmp/goal-status.txt
# after the first aggregation longer than the gaps
first=$(awk '$5 >= 600000 { print $1; exit }' /tmp/goal-goal.score)
n=$(awk -v f="${first:-999}" '$1 > f' /tmp/goal-goal.score | wc -l)
bad=$(awk -v f="${first:-999}" '$1 > f && ($2 < 0.9 || $3 < 0.9) { printf "%s ", $1 }' /tmp/goal-goal.score)
if [ -n "$first" ] && [ "$first" -le 8 ] && [ "$n" -ge 8 ] && [ -z "$bad" ]; then
	ok "tuned: P and R >= 0.9 in all $n aggregations after the first of 600 ms or more (aggregation $first)"
else
	not_ok "tuned: P and R >= 0.9 in every aggregation after the first of 600 ms or more (first ${first:-none}, $n scored; below: ${bad:-none})"
fi

# 3. a lower goal while it runs: the interval shortens
low=$((goal / 20))
[ "$low" -ge 1 ] || low=1
check "tune --samples-goal $low while running" \
	workload_paused damonctl tune $CTX --samples-goal "$low"
damonctl record -o /tmp/goal-low.jsonl -n 16 $CTX > /dev/null 2>&1
damonctl status --json $CTX > /tmp/goal-low.json 2>&1
downs=$(tr ',' '\n' < /tmp/goal-low.json | awk -F: '
	/"downs"/ { gsub(/[^0-9]/, "", $NF); print $NF; exit }')
lo=$(tr ',' '\n' < /tmp/goal-low.json | awk -F: '
	/"tuning"/ { t = 1 } t && /"min_aggr_us"/ { gsub(/[^0-9]/, "", $NF); print $NF; exit }')
now=$(tr ',' '\n' < /tmp/goal-low.json | awk -F: '
	/"tuning"/ { t = 1 } t && /"aggr_us"/ { gsub(/[^0-9]/, "", $NF); print $NF; exit }')
# short windows fall into the gaps and lengthen again: the steps count
if [ "${downs:-0}" -ge 1 ] && [ "${now:-0}" -ge "${lo:-1}" ]; then
	ok "a 20x lower goal: $downs steps shortened the interval since the change (now $now us, bound $lo)"
else
	not_ok "a 20x lower goal shortens the interval within its bound (downs ${downs:-none}, now ${now:-none}, bound ${lo:-none})"
fi

workload_paused damonctl stop $CTX > /dev/null 2>&1

# 4. past the longest interval, within a CPU budget, the period: probe
# period 1000 (about rate/1000 samples a second), a goal of a fifth of
# a second's samples at period 1 that even 400 ms cannot hold at 1000;
# the periods may go lower only with the budget
pgoal=$((rate / 5))
[ "$pgoal" -ge 20 ] || pgoal=20
# period_of JSON: the probe's effective period; div_of JSON: period_div
period_of() {
	tr ',' '\n' < "$1" | awk -F: '/"effective_period"/ {
		gsub(/[^0-9]/, "", $NF); print $NF; exit }'
}
div_of() {
	tr ',' '\n' < "$1" | awk -F: '/"period_div"/ {
		gsub(/[^0-9]/, "", $NF); print $NF; exit }'
}
PERIOD=1000
check "recorded 16 aggregations at period 1000 without a budget" \
	run nobudget 16 --samples-goal "$pgoal" --goal-aggrs 2 \
	--max-aggr-us 400000
damonctl status --json $CTX > /tmp/goal-nobudget.json 2>&1
p0=$(period_of /tmp/goal-nobudget.json)
d0=$(div_of /tmp/goal-nobudget.json)
workload_paused damonctl stop $CTX > /dev/null 2>&1
if [ "${p0:-0}" -eq 1000 ] && [ "${d0:-0}" -eq 1 ]; then
	ok "without a budget the period stays 1000 (period_div 1)"
else
	not_ok "without a budget the period stays 1000 (effective ${p0:-none}, period_div ${d0:-none})"
fi
check "recorded 24 aggregations at period 1000 with a 50% budget" \
	run budget 24 --samples-goal "$pgoal" --goal-aggrs 2 \
	--max-aggr-us 400000 --cpu-budget 50
damonctl status --json $CTX > /tmp/goal-budget.json 2>&1
damonctl status $CTX | grep "intervals goal" | sed 's/^/# /'
p1=$(period_of /tmp/goal-budget.json)
d1=$(div_of /tmp/goal-budget.json)
workload_paused damonctl stop $CTX > /dev/null 2>&1
# the last quarter's samples against the first aggregations' at 1000
s0=$(awk '$1 >= 3 && $1 <= 6 { n += $4 } END { print n + 0 }' /tmp/goal-budget.score)
s1=$(awk '$1 >= 19 { n += $4 } END { print n + 0 }' /tmp/goal-budget.score)
if [ "${d1:-0}" -ge 4 ] && [ "${p1:-1000}" -lt 500 ] &&
   [ "${p1:-0}" -ge $((1000 / ${d1:-1})) ] && [ "$s1" -gt $((2 * s0)) ]; then
	ok "with a budget the period went down to $p1 (period_div $d1), samples $s0 -> $s1 over 4 and 6 aggregations"
else
	not_ok "with a budget the period goes down within period_div (effective ${p1:-none}, period_div ${d1:-none}, samples $s0 -> $s1)"
fi

echo "$saved" > $PARAM
stop_workload
unload_module damon_perf
finish
