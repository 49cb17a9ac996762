#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# timeout: 600
# Stopping, restarting and destroying a context while samples flow; a
# running context pins the module (rmmod gets EBUSY); a stopped one is torn
# down on unload. The harness fails the run on any splat or leak report.
. /tests/lib.sh

raw_start() { raw START -a "$A_CTX_NAME:str:$1"; }
raw_del() { raw CTX_DEL -a "$A_CTX_NAME:str:$1"; }
start_ctx() {
	damonctl start -n "$1" -p "$WORKLOAD_PID" -e page-faults --period 1 \
		--exclude-kernel
}
# flowing DESC: sample_valid grows within 5 s.
flowing() {
	_a=$(col sample_valid)
	_i=0
	while [ $_i -lt 25 ]; do
		sleep 0.2
		_b=$(col sample_valid)
		if [ "$_b" -gt "$_a" ]; then
			ok "$1 ($_a -> $_b)"
			return 0
		fi
		_i=$((_i + 1))
	done
	not_ok "$1 (sample_valid stuck at $_a)"
}
# quiet DESC: sample_valid does not move over 1 s.
quiet() {
	_a=$(col sample_valid)
	sleep 1
	_b=$(col sample_valid)
	if [ "$_a" = "$_b" ]; then ok "$1"; else not_ok "$1 ($_a -> $_b)"; fi
}

need_damonctl "context lifecycle while sampling"
numa_balancing_fast
load_module damon_perf || finish
start_workload -s 64 -o 16 -h 4 -t 0 -n 2 || { not_ok "workload started"; finish; }
ok "workload started"

check "start" start_ctx life
flowing "samples flow"
check_fail "rmmod while a context runs fails" rmmod damon_perf
check "module still loaded" module_loaded damon_perf
check "stop, keeping the context" damonctl stop life --keep
check "perf_stats balanced after the stop" stats_balanced
quiet "no samples once stopped"
check "restart the stopped context" raw_start life
flowing "samples flow again after the restart"
i=1
while [ $i -le 5 ]; do
	damonctl stop life --keep >/dev/null && raw_start life >/dev/null ||
		break
	i=$((i + 1))
done
if [ $i -gt 5 ]; then ok "five quick stop/start cycles"; else
	not_ok "five quick stop/start cycles (failed at $i)"; fi
flowing "samples flow after the cycles"
check "destroy while running" raw_del life
check "perf_stats balanced after the destroy" stats_balanced
quiet "no samples once destroyed"
check "start a new context on the same PMU" start_ctx life2
flowing "samples flow in the new context"
check "stop and delete it" damonctl stop life2
check "perf_stats balanced after the stop" stats_balanced
check "leave a stopped context with a probe behind" start_ctx life3
check "stop it, keeping it" damonctl stop life3 --keep
stop_workload
unload_module damon_perf
check "debugfs gone after unload" test ! -e /sys/kernel/debug/damon_perf
finish
