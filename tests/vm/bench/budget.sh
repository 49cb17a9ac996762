#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kernels: stock
# timeout: 1800
# make bench, VM part: the CPU budget (kmod/budget.c). Not part of make
# check (tests/vm/bench/ is not among the scripts scripts/check.sh runs);
# scripts/bench.sh boots it and tabulates its lines.
#
# One fresh /bin/workload per run (-f: it faults its 8 MiB hot range in
# again after every pass, a steady stream of page faults; 1 thread) under
# the page-fault probe at period 1, sample 10 ms, aggregation 250 ms, with
# no budget and with each budget of BENCH_BUDGETS (percent of one CPU,
# default "0.5 1 5"). After BENCH_WARMUP seconds (default 4: 16
# aggregations, time for the period to climb) a window of BENCH_WINDOW
# seconds (default 5) measures, and one line per run is printed:
#   BENCH budget budget=PCT|none passes=N window_ns=N faults=N samples=N
#         handler_ns=N drain_ns=N kdamond_ms=N period0=N period1=N
#         cost=PCT raises=N lowers=N
# passes: workload passes over the window; faults: its page faults
# (/proc/PID/stat); samples: reports routed to its target (perf_stats);
# handler_ns, drain_ns: perf_stats over the window (every CPU);
# kdamond_ms: utime + stime of the kdamond; period0, period1: the probe's
# effective period at the start and the end of the window; cost: what the
# budget measured over the last aggregation; raises, lowers: period steps
# since the start.
. /tests/lib.sh

budgets=$(echo "${BENCH_BUDGETS:-0.5 1 5}" | tr ',' ' ')
window=${BENCH_WINDOW:-5}
warmup=${BENCH_WARMUP:-4}
F=/sys/kernel/debug/damon_perf/perf_stats

[ -x /bin/damonctl ] || { not_ok "damonctl in the image"; finish; }
load_module damon_perf || finish

st() { status_field bench "$1"; }

run() {
	b=$1
	_prog_n=0
	start_workload -s 8 -o 0 -h 8 -t 0 -n 1 -f || { not_ok "$b: workload"; return 1; }
	opt=
	[ "$b" != none ] && opt="--cpu-budget $b"
	kill -STOP "$WORKLOAD_PID"
	damonctl start -n bench -p "$WORKLOAD_PID" -e page-faults --period 1 \
		--exclude-kernel --sample-us 10000 --aggr-us 250000 $opt \
		>/dev/null || { kill -CONT "$WORKLOAD_PID"; not_ok "$b: started"; stop_workload; return 1; }
	kill -CONT "$WORKLOAD_PID"
	KD_PID=
	for t in /proc/[0-9]*; do
		case "$(cat $t/comm 2>/dev/null)" in kdamond.*) KD_PID=${t#/proc/} ;; esac
	done
	sleep "$warmup"
	echo reset > "$F"
	c0=$(cpu_ms "$KD_PID")
	f0=$(faults)
	pe0=$(st effective_period)
	workload_progress || { not_ok "$b: progress line"; return 1; }
	p0=$P_PASSES t0=$P_NS
	sleep "$window"
	workload_progress || { not_ok "$b: progress line"; return 1; }
	f1=$(faults)
	c1=$(cpu_ms "$KD_PID")
	s=$(samples)
	hn=$(col handler_ns)
	dn=$(col drain_ns)
	pe1=$(st effective_period)
	cost=$(st cost)
	ra=$(st raises)
	lo=$(st lowers)
	kill -STOP "$WORKLOAD_PID"
	damonctl stop bench >/dev/null
	kill -CONT "$WORKLOAD_PID"
	stop_workload
	echo "BENCH budget budget=$b passes=$((P_PASSES - p0)) window_ns=$((P_NS - t0))" \
		"faults=$((f1 - f0)) samples=$s handler_ns=$hn drain_ns=$dn" \
		"kdamond_ms=$(awk -v a="$c0" -v b="$c1" 'BEGIN { printf "%d", b - a }') period0=$pe0 period1=$pe1 cost=$cost" \
		"raises=$ra lowers=$lo"
	ok "budget $b"
}

run none
for b in $budgets; do
	run "$b"
done
unload_module damon_perf
finish
