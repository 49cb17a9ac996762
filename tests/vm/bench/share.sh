#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kernels: bookworm
# timeout: 900
# make bench, VM part: damon_perf's share of a sample's cost, against
# perf's own sample path for the same event, on Debian's stock 6.1 (no
# debug options). Not part of make check; scripts/bench.sh boots it and
# tabulates its lines.
#
# /bin/perfring opens on itself the event a page-fault probe opens (page
# faults, period 1, TIME | ADDR | DATA_SRC) with a 64-page ring buffer, as
# perf record would, and faults PAGES pages ROUNDS times (no huge pages);
# a damon_perf vaddr context samples it with the same event (ring 4096).
#   untraced damon_perf's context alone (perfring -n: no perf event),
#            REPS runs: perf_stats' handler_ns / callback, the module's
#            own local_clock() around its handler
#   whole    function_graph over both handlers on the same faults (both
#            events at once): overflow() and perf_event_output_forward()
#   parts    the same over damon_perf_report_access() and perf's four
#            steps: perf_prepare_sample(), perf_output_begin_forward(),
#            perf_output_sample(), perf_output_end()
# The function_graph durations include the tracer's own entry and exit,
# the same for every traced function: the untraced handler's mean shows
# how much. (The process's CPU time per fault, with and without either
# event, cannot show a sample's cost under TCG: about 1 us in 22 us per
# fault, below the runs' spread.)
# Prints:
#   BENCH share run setup=untraced|whole|parts rep=N event=0|1 faults=N samples=N lost=N cpu_ns=N
#   BENCH share untraced callbacks=N handler_ns=N ns_per_callback=F
#   BENCH share graph pass=whole|parts fn=NAME calls=N mean_ns=F median_ns=F
. /tests/lib.sh

PAGES=${BENCH_SHARE_PAGES:-4096}
ROUNDS=${BENCH_SHARE_ROUNDS:-4}
REPS=${BENCH_SHARE_REPS:-3}
T=/sys/kernel/tracing
[ -d $T/events ] || T=/sys/kernel/debug/tracing
CB=0
HN=0

# run SETUP REP [-n]: perfring (-n: without its event) under a damon_perf
# context on its PID; perf_stats are reset before the context starts and
# read after it stopped (CB, HN: callbacks and handler_ns summed over the
# runs)
run() {
	_setup=$1
	_rep=$2
	shift 2
	rm -f /tmp/go
	echo reset > "$PERF_STATS"
	/bin/perfring -w /tmp/go -p "$PAGES" -r "$ROUNDS" "$@" \
		> /tmp/perfring.out 2>&1 &
	_pid=$!
	damonctl start -n share -p "$_pid" -e page-faults --period 1 \
		--exclude-kernel --ring-size 4096 > /dev/null ||
		{ kill "$_pid"; return 1; }
	touch /tmp/go
	wait "$_pid"
	_rc=$?
	damonctl stop share > /dev/null
	stats_balanced || _rc=1
	CB=$((CB + $(col callback)))
	HN=$((HN + $(col handler_ns)))
	sed -n "s/^PERFRING /BENCH share run setup=$_setup rep=$_rep /p" \
		/tmp/perfring.out
	return $_rc
}

# graph PASS FILTER...: run under function_graph limited to FILTER, then
# one line per function with its durations
graph() {
	_pass=$1
	shift
	echo 0 > $T/tracing_on
	echo nop > $T/current_tracer
	echo 16384 > $T/buffer_size_kb
	: > $T/set_ftrace_filter
	for _f in "$@"; do
		echo "$_f" >> $T/set_ftrace_filter ||
			diag "$_pass: $_f cannot be traced"
	done
	echo function_graph > $T/current_tracer
	echo > $T/trace
	echo 1 > $T/tracing_on
	run "$_pass" 1 || return 1
	echo 0 > $T/tracing_on
	# " 1)   1.234 us    |  overflow [damon_perf]();": NAME and ns
	awk -F'|' '$1 ~ / us/ && NF >= 2 {
		d = $1; sub(/ us.*/, "", d); n = split(d, a, " ")
		f = $2; gsub(/[(){}; ]/, "", f); sub(/\[.*/, "", f)
		if (f != "") printf "%s %.0f\n", f, a[n] * 1000
	}' $T/trace | sort -k1,1 -k2,2n | awk -v p="$_pass" '
	function out() {
		if (n) printf "BENCH share graph pass=%s fn=%s calls=%d mean_ns=%.0f median_ns=%.0f\n",
			p, f, n, s / n, v[int((n + 1) / 2)]
	}
	$1 != f { out(); f = $1; n = 0; s = 0 }
	{ v[++n] = $2; s += $2 }
	END { out() }'
	grep -q 'LOST' $T/trace && diag "$_pass: the trace buffer overran"
	echo nop > $T/current_tracer
	: > $T/set_ftrace_filter
}

need_damonctl "the share bench"
diag_machine
load_module damon_perf || finish
rep=0
fails=0
while [ $rep -lt "$REPS" ]; do
	rep=$((rep + 1))
	run untraced $rep -n || fails=$((fails + 1))
done
check "$REPS runs of the context alone, perf_stats balanced after each" \
	test $fails = 0
awk -v c="$CB" -v h="$HN" 'BEGIN {
	printf "BENCH share untraced callbacks=%d handler_ns=%d ns_per_callback=%.0f\n",
		c, h, c ? h / c : 0 }'
if [ -w $T/current_tracer ] && grep -qw function_graph $T/available_tracers; then
	# outside check, which would turn the BENCH lines into comments
	rc=0
	graph whole 'overflow:mod:damon_perf' perf_event_output_forward ||
		rc=$?
	check "function_graph: whole handlers" test $rc = 0
	rc=0
	graph parts 'damon_perf_report_access:mod:damon_perf' \
		perf_prepare_sample perf_output_begin_forward \
		perf_output_sample perf_output_end || rc=$?
	check "function_graph: their parts" test $rc = 0
else
	skip "function_graph" "no function_graph tracer in this kernel"
fi
unload_module damon_perf
finish
