#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kernels: stock
# timeout: 600
# The CPU budget (kmod/budget.c) on the page-fault probe at period 1 and a
# workload that faults its hot range in again on every pass (workload -f).
# Without a budget the period stays 1 and every fault is a sample. Tuned to
# the smallest budget (0.01 % of one CPU, far below what a handler per
# fault costs), the period rises at each aggregation: once it is at least
# 8, a window has at most about faults/8 samples. Tuned back to 0, the
# period returns to 1 and every report carries period 1 again: each
# region's rate x aggregation equals its hits (a software event's
# hw.last_period is what data->period reports; a period change that does
# not reset it would leave the raised period in every later sample). All
# thresholds are counts and ratios, waits are bounded polls.
. /tests/lib.sh

CTX=budget
F=/sys/kernel/debug/damon_perf/perf_stats
AGGR_US=250000

# st KEY: the number after "KEY": in damonctl status --json (first one).
st() { status_field $CTX "$1"; }

# wait_for KEY OP VALUE: poll the status, up to 240 x 0.25 s.
wait_for() {
	_i=0
	while [ $_i -lt 240 ]; do
		_v=$(st "$1")
		[ -n "$_v" ] && test "$_v" "$2" "$3" && return 0
		_i=$((_i + 1))
		sleep 0.25
	done
	return 1
}

# report_seq: the seq of the context's latest aggregation.
report_seq() {
	damonctl report $CTX --json 2>/dev/null | snap_seq
}

# tune_period BUDGET OP VALUE WHAT: tune the budget to BUDGET (% of one
# CPU); the effective period must come to be OP VALUE (WHAT says so).
tune_period() {
	expect_exit 0 "damonctl tune --cpu-budget $1" damonctl tune $CTX --cpu-budget "$1"
	if wait_for effective_period "$2" "$3"; then
		ok "budget $1 %: the period $4 (is $(st effective_period))"
	else
		not_ok "budget $1 %: the period $4 (is $(st effective_period)," \
			"raises $(st raises), lowers $(st lowers))"
	fi
}

# window SECS: "SAMPLES FAULTS_IN FAULTS_AROUND" of SECS seconds.
window() {
	fa=$(faults)
	echo reset > "$F"
	f0=$(faults)
	sleep "$1"
	f1=$(faults)
	# and the reports a full ring refused (a big ring makes those rare)
	s=$(samples overflow)
	fb=$(faults)
	echo "$s $((f1 - f0)) $((fb - fa))"
}

if [ ! -x /bin/damonctl ]; then
	skip "CPU budget" "damonctl not in the image"
	finish
fi
load_module damon_perf || finish
if ! start_workload -s 8 -o 0 -h 8 -t 0 -n 1 -w -f; then
	not_ok "workload started"
	finish
fi

expect_exit 0 "damonctl start without a budget" workload_paused damonctl start -n $CTX \
	-p "$WORKLOAD_PID" -e page-faults --period 1 --exclude-kernel \
	--sample-us 10000 --aggr-us $AGGR_US --ring-size 4096

# 1. no budget: several aggregations, the period stays 1
# shellcheck disable=SC2046 # the window fields, split on purpose
set -- $(window 2)
seq0=$(report_seq)
p=$(st effective_period)
r=$(st raises)
diag "no budget: $1 samples, $2..$3 faults, period $p, raises $r, seq $seq0"
if [ "$p" = 1 ] && [ "$r" = 0 ] && [ "${seq0:-0}" -ge 4 ] &&
	awk -v s="$1" -v lo="$2" -v hi="$3" 'BEGIN {
		exit !(lo >= 100 && s >= 0.6 * lo && s <= 1.4 * hi + 1) }'
then
	ok "no budget: the period stays 1, one sample per fault ($1 for $2 faults)"
else
	not_ok "no budget: period $p (want 1), raises $r (want 0), $1 samples for $2..$3 faults"
fi
damonctl status $CTX | grep -q "cpu budget: off" &&
	ok "status says the budget is off" ||
	not_ok "status says the budget is off ($(damonctl status $CTX | grep budget))"

# 2. the smallest budget: the period rises
tune_period 0.01 -ge 8 "rose to at least 8"
p0=$(st effective_period)
# shellcheck disable=SC2046 # the window fields, split on purpose
set -- $(window 2)
p1=$(st effective_period)
diag "budget 0.01 %: $1 samples, $2..$3 faults, period $p0 .. $p1," \
	"raises $(st raises), cost $(damonctl status $CTX | grep budget)"
# every sample of the window has period >= p0 (it only rises), plus one
# sample per CPU for the events counted before each change; and at least
# half the faults are accounted for at p1, where that means 10 samples or
# more (a slow kernel may have climbed past the faults of a window)
if awk -v s="$1" -v lo="$2" -v hi="$3" -v p0="$p0" -v p1="$p1" 'BEGIN {
	exit !(lo >= 100 && p0 >= 8 && s * p0 <= 1.2 * hi + 64 * p0 &&
	       (lo < 20 * p1 || s * p1 >= 0.5 * lo)) }'
then
	ok "budget 0.01 %: samples per fault drop to about 1/period ($1 samples, $2 faults, period $p0..$p1)"
else
	not_ok "budget 0.01 %: $1 samples for $2..$3 faults at period $p0..$p1"
fi
r=$(st raises)
# The smallest budget is about what the kdamond's passes cost at any
# period, so a measurement may fall below it now and then and lower once.
l=$(st lowers)
[ "${r:-0}" -ge 3 ] && [ "$r" -gt $((2 * ${l:-0})) ] &&
	ok "budget 0.01 %: $r raises, $l lowerings" ||
	not_ok "budget 0.01 %: raises $r (want >= 3 and over twice the $l lowerings)"
damonctl status $CTX | grep -q "cpu budget: 0.01%" &&
	damonctl status $CTX | grep -q "effective period" &&
	ok "status shows the budget and the effective period" ||
	not_ok "status shows the budget and the effective period: $(damonctl status $CTX)"

# 3. budget off again: back to period 1, and reports carry 1 again
tune_period 0 -eq 1 "is back to 1"
[ "$(st lowers)" -ge 1 ] && ok "budget 0: lowered $(st lowers)x" ||
	not_ok "budget 0: lowered (lowers $(st lowers))"
seq1=$(report_seq)
# shellcheck disable=SC2046 # the window fields, split on purpose
set -- $(window 2)
diag "budget 0: $1 samples, $2..$3 faults, from seq $seq1"
awk -v s="$1" -v lo="$2" -v hi="$3" 'BEGIN {
	exit !(lo >= 100 && s >= 0.6 * lo && s <= 1.4 * hi + 1) }' &&
	ok "budget 0: one sample per fault again ($1 for $2 faults)" ||
	not_ok "budget 0: $1 samples for $2..$3 faults (want about one each)"
: > /tmp/budget.tsv
last=
i=0
while [ $i -lt 8 ]; do
	i=$((i + 1))
	damonctl report $CTX --json > /tmp/b.json 2>&1 || continue
	# "hits rate aggr_us seq" per region
	region_rates /tmp/b.json | awk '$1 == "aggr" { a = $2; s = $3; next }
		{ h[++n] = $3; r[n] = $4 }
		END { for (i = 1; i <= n; i++) print h[i], r[i], a, s }' > /tmp/b.tsv
	seq=$(awk 'NR == 1 { print $4 }' /tmp/b.tsv)
	# aggregations wholly after the one that lowered the period
	[ -n "$seq" ] && [ "$seq" != "$last" ] && [ "$seq" -gt $((seq1 + 1)) ] &&
		cat /tmp/b.tsv >> /tmp/budget.tsv
	last=$seq
	sleep 0.3
done
if awk '
	{ want = $1 * 1000000; got = $2 * $3; hits += $1 }
	got < want - $3 - $2 || got > want * 1.01 { bad++ }
	END { exit !(hits > 0 && !bad) }' /tmp/budget.tsv
then
	ok "budget 0: every region's rate is its hits x 1" \
		"($(awk '{ h += $1 } END { print h }' /tmp/budget.tsv) hits)"
else
	diag "$(awk '$1 || $2' /tmp/budget.tsv | head -20)"
	not_ok "budget 0: every region's rate is its hits x 1 per aggregation"
fi

# 4. bounds: the tool refuses before the kernel is asked, the kernel too
expect_exit 2 "damonctl tune --cpu-budget 100.01" damonctl tune $CTX --cpu-budget 100.01
expect_exit 2 "damonctl tune --cpu-budget -1" damonctl tune $CTX --cpu-budget -1
expect_exit 0 "damonctl tune --cpu-budget 100" damonctl tune $CTX --cpu-budget 100

check "damonctl stop" workload_paused damonctl stop $CTX
stop_workload
unload_module damon_perf
finish
