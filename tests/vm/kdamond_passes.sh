#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kernels: bookworm sid
# timeout: 400
# The kdamond's passes, in both modes, on the same workload. By default
# reports are credited to the sample interval of their timestamp and the
# kdamond wakes once per pass (here one per aggregation: 100 ms of twenty
# 5 ms sample intervals), plus once per ring high watermark; with the
# module parameter sample_wakeups=1 it wakes at every sample interval, as
# it used to. The workload is a steady stream of page faults (-f: the
# 4 MiB hot range is dropped after every pass, so every touch faults),
# one fault in 64 sampled. (A ring fills in less than a pass under a
# heavier stream: passes then shorten, down to one interval; the kdamond
# never sleeps longer than half a ring takes to fill at the last pass's
# rate.)
#
# Both modes must give the same answer: the hottest region of the mapping
# on the hot range in at least 90 % of the aggregations, nr_accesses at
# most the aggregation's twenty sample intervals, and every sample
# accounted (perf_stats balanced). KUnit
# (drain_should_credit_passes_as_interval_drains,
# drain_should_replay_recorded_stream_both_ways) and kdamond_replay.sh
# prove both credit one stream identically; here each mode sees its own
# live stream of the same workload, so their answers are compared.
# And the wakeups: the kdamond's sleeps (voluntary context switches) per
# aggregation at most 2 + the rings' early wakes per aggregation with
# timestamps, at least a quarter of the sample intervals with
# sample_wakeups (a kdamond that wakes late under a loaded emulator
# skips the intervals it overslept: 13.66 of 20 beside other VMs).
. /tests/lib.sh

CTX=passes
AGGRS=${PASSES_AGGRS:-30}
INTERVALS=20
# one fault in PERIOD sampled: about 1,500 samples a second here, a few
# in every sample interval of the hot range, well below a pass's ring
PERIOD=64
PARAM=/sys/module/damon_perf/parameters/sample_wakeups

need_damonctl "kdamond passes"
diag_machine
load_module damon_perf || finish
check "module parameter sample_wakeups exists" test -w $PARAM
# One window an aggregation: a carried aggregation (the sample floor,
# access-semantics.rst) spans several, and its presence counts may then
# exceed one window's sample intervals, which this script bounds.
check "one window an aggregation (max_carried=0)" \
	sh -c 'echo 0 > /sys/module/damon_perf/parameters/max_carried'
workload_started -s 64 -o 16 -h 4 -t 0 -n 2 -f
hs=$((WORKLOAD_HOT_START))
he=$((WORKLOAD_HOT_END))
ms=$((WORKLOAD_BASE))
me=$((WORKLOAD_BASE + WORKLOAD_SIZE))

# kdamonds: "PID" of every thread named kdamond.N
kdamonds() {
	for _c in /proc/[0-9]*/comm; do
		case "$(cat "$_c" 2>/dev/null)" in
		kdamond.*) _p=${_c#/proc/}; echo "${_p%/comm}" ;;
		esac
	done
}
# sleeps PID: voluntary context switches of PID
sleeps() { awk '/^voluntary_ctxt_switches/ { print $2 }' "/proc/$1/status"; }

# passes_read FILE: of a damonctl record (one aggregation a line, each
# region an object with "start", "end", "nr_accesses" and "probe_hits"
# and no object inside), every aggregation but the first: "GOT TOPS
# FULL MAXACC FIRST_SEQ LAST_SEQ", where TOPS counts those whose hottest
# region on the mapping (most nr_accesses, then probe hits) overlaps the
# hot range, FULL sums the hot range's largest nr_accesses and MAXACC is
# the largest nr_accesses on the mapping.
passes_read() {
	awk -v ms="$ms" -v me="$me" -v hs="$hs" -v he="$he" '
	function num(str, key) {
		if (!match(str, "\"" key "\":\\[?[0-9]+"))
			return -1
		str = substr(str, RSTART, RLENGTH)
		gsub(/[^0-9]/, "", str)
		return str + 0
	}
	{
		seq = num($0, "seq")
		if (NR == 1)
			first = seq
		last = seq
		if (NR == 1)
			next
		got++
		n = split($0, r, /\{/)
		tn = -1; th = -1; ts = 0; te = 0; h = 0
		for (i = 2; i <= n; i++) {
			s = num(r[i], "start"); e = num(r[i], "end")
			a = num(r[i], "nr_accesses"); p = num(r[i], "probe_hits")
			if (s < 0 || e < 0 || a < 0 || !(s < me && e > ms))
				continue
			if (a > tn || (a == tn && p > th)) {
				tn = a; th = p; ts = s; te = e
			}
			if (s < he && e > hs && a > h)
				h = a
			if (a > maxacc)
				maxacc = a
		}
		if (tn >= 0 && ts < he && te > hs)
			tops++
		full += h
	}
	END { print got + 0, tops + 0, full + 0, maxacc + 0, first + 0, last + 0 }' "$1"
}

# run MODE: monitor AGGRS aggregations with sample_wakeups=MODE; sets
# wakes_x100 (sleeps per aggregation x 100), early_x100, tops (hottest on
# the hot range), got, full_x100 (mean share of the intervals the hot
# range was counted in, x 100) and maxacc
run() {
	mode=$1
	echo "$mode" > $PARAM
	before=$(kdamonds | sort)
	echo reset > "$PERF_STATS"
	check "damonctl start (sample_wakeups=$mode)" damonctl start -n $CTX \
		-p "$WORKLOAD_PID" -e page-faults --period $PERIOD --exclude-kernel \
		--sample-us 5000 --aggr-us 100000 --ring-size 4096
	kd=$(kdamonds | sort | grep -vxF "$before" | head -n 1)
	[ -n "$kd" ] || kd=$(kdamonds | head -n 1)
	# AGGRS + 1 aggregations in one recording (the first, which may be
	# the context's first, is not counted), read afterwards: one process
	# for the lot, where a report a poll read one aggregation in six.
	# The sleeps are divided by the aggregations of their own window,
	# the kdamond's seq read before the first count and after the last:
	# the recording's alone leave out those while damonctl starts and
	# exits (14 more than its 31 in a run under load, which put 2.12 sleeps
	# an aggregation over a bound of 2 under load).
	q0=$(damonctl report $CTX --json 2>/dev/null | snap_seq)
	s0=$(sleeps "$kd")
	e0=$(col early_wake)
	damonctl record $CTX -o /tmp/p.jsonl --count $((AGGRS + 1)) \
		--duration 120 > /dev/null 2>&1
	s1=$(sleeps "$kd")
	e1=$(col early_wake)
	q1=$(damonctl report $CTX --json 2>/dev/null | snap_seq)
	# shellcheck disable=SC2046 # into $1..$6
	set -- $(passes_read /tmp/p.jsonl)
	got=${1:-0} tops=${2:-0} full=${3:-0} maxacc=${4:-0}
	aggrs=$((${q1:-0} - ${q0:-0}))
	diag "sample_wakeups=$mode: kdamond seq $q0 to $q1 around the counts, recording seq ${5:-0} to ${6:-0}"
	[ $aggrs -gt 0 ] || aggrs=1
	wakes_x100=$(((s1 - s0) * 100 / aggrs))
	early_x100=$(((e1 - e0) * 100 / aggrs))
	full_x100=$((full * 100 / (got > 0 ? got : 1) / INTERVALS))
	diag "sample_wakeups=$mode: kdamond $kd, $aggrs aggregations ($got counted)," \
		"sleeps/aggregation $(awk -v w=$wakes_x100 'BEGIN { print w / 100 }')," \
		"early wakes/aggregation $(awk -v w=$early_x100 'BEGIN { print w / 100 }')," \
		"hottest on the hot range $tops of $got, hot range counted in" \
		"$full_x100 % of the intervals, largest nr_accesses $maxacc"
	damonctl stop $CTX > /dev/null 2>&1
	if sb=$(stats_balanced); then
		ok "sample_wakeups=$mode: every sample accounted ($sb)"
	else
		not_ok "sample_wakeups=$mode: perf_stats balanced: $sb"
	fi
	if [ "$got" -eq 0 ] || [ "$maxacc" -eq 0 ]; then
		tail -n 1 /tmp/p.jsonl | tr '{' '\n' | while read -r l; do diag "region: $l"; done
	fi
}

# answer NAME: the checks of one mode's answer (tops, got, maxacc of run)
answer() {
	if [ "$got" -gt 0 ] && [ $((tops * 100)) -ge $((got * 90)) ]; then
		ok "$1: the hottest region on the hot range in $tops of $got aggregations"
	else
		not_ok "$1: the hottest region on the hot range in $tops of $got aggregations (want 90 %)"
	fi
	if [ "$maxacc" -le $INTERVALS ] && [ "$maxacc" -gt 0 ]; then
		ok "$1: nr_accesses at most the $INTERVALS sample intervals (largest $maxacc)"
	else
		not_ok "$1: nr_accesses between 1 and the $INTERVALS sample intervals (largest $maxacc)"
	fi
}

run 1
answer sample_wakeups
i_wakes=$wakes_x100 i_full=$full_x100
run 0
answer timestamps
p_wakes=$wakes_x100 p_early=$early_x100 p_full=$full_x100
# each mode saw its own live stream: how often the hot range was counted
# follows that stream's rate, not the mode
diag "the hot range counted in $p_full % of the intervals with timestamps," \
	"$i_full % with sample_wakeups"
if [ "$i_wakes" -ge $((INTERVALS * 100 / 4)) ]; then
	ok "sample_wakeups: $i_wakes/100 kdamond sleeps per aggregation (at least $((INTERVALS / 4)))"
else
	not_ok "sample_wakeups: $i_wakes/100 kdamond sleeps per aggregation (want at least $((INTERVALS / 4)))"
fi
if [ "$p_wakes" -le $((200 + p_early)) ]; then
	ok "timestamps: $p_wakes/100 kdamond sleeps per aggregation (at most 2 + $p_early/100 early wakes)"
else
	not_ok "timestamps: $p_wakes/100 kdamond sleeps per aggregation (want at most 2 + $p_early/100 early wakes)"
fi
echo 0 > $PARAM
stop_workload
unload_module damon_perf
finish
