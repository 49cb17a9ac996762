#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# needs: test-build
# kernels: debug
# timeout: 400
# Stop, hotplug and the other generic netlink families while a CPU's
# kworkers starve. The kdamond drains a context's AUX buffers with
# per-CPU works, holding aux_lock and cpus_read_lock() until each has run
# on its CPU; STOP holds genl_mutex (the family is not parallel_ops) and
# damon_perf_lock and then waits for aux_lock. With a SCHED_FIFO task
# spinning on CPU 1 (/bin/rthog), CPU 1's kworker runs only in the time RT
# throttling leaves to other classes (sched_rt_runtime_us of
# sched_rt_period_us), so every drain waits for that share; with
# throttling switched off (sched_rt_runtime_us -1) the kworker, and with
# it the drain, STOP and everything that needs genl_mutex or CPU hotplug,
# waits until the RT task yields, as lru_add_drain_all() and every other
# flush of per-CPU work does. This test shows that with the kernel's
# default throttling each of them completes: an nlctrl family lookup
# (which takes genl_mutex too), offlining and onlining CPU 1 while drains
# run, and STOP; then perf_stats balance. A hang ends in the script's
# timeout, and each step has its own generous bound for a clear message.
. /tests/lib.sh

CTX=starve
EVENT=arm_spe_test//
BOUND=120

need_damonctl "stop under a starved kworker"
if [ ! -f "$DAMON_PERF_MODDIR/damon_perf_testpmu.ko" ]; then
	skip "stop under a starved kworker" "no test PMU module (debug kernel only)"
	finish
fi
if [ ! -x /bin/rthog ]; then
	skip "stop under a starved kworker" "no /bin/rthog in the image"
	finish
fi
if [ "$(nproc)" -lt 2 ] || [ ! -w /sys/devices/system/cpu/cpu1/online ]; then
	skip "stop under a starved kworker" "needs CPU 1 and its hotplug"
	finish
fi
rt=$(cat /proc/sys/kernel/sched_rt_runtime_us)
per=$(cat /proc/sys/kernel/sched_rt_period_us)
diag "RT throttling: $rt us of every $per us"
check "RT throttling is on (the kernel's default)" test "$rt" -gt 0 -a "$rt" -lt "$per"

load_module damon_perf || finish
workload_started -s 16 -o 0 -h 4 -t 0 -n 1
hs=$((WORKLOAD_HOT_START))
he=$((WORKLOAD_HOT_END))
load_module damon_perf_testpmu hot_start=$hs hot_len=$((he - hs)) \
	cold_start=$((WORKLOAD_BASE)) cold_len=$((WORKLOAD_SIZE)) hot_pct=80 \
	period_us=500 batch=8 ctx_pid="$WORKLOAD_PID" || finish
check "damonctl start" damonctl start -n $CTX -p "$WORKLOAD_PID" \
	--exclude-kernel --sample-us 5000 --aggr-us 100000

# wait_line FILE WORD PID: until FILE has a line starting with WORD or PID
# exits, 10 s at most (a bound on a hang, not a measure).
wait_line() {
	_i=0
	while [ $_i -lt 50 ] && ! grep -q "^$2" "$1"; do
		kill -0 "$3" 2>/dev/null || break
		sleep 0.2
		_i=$((_i + 1))
	done
}

damonctl spe attach $CTX -e $EVENT --aux-pages 16 > /tmp/attach.out 2>&1 &
apid=$!
wait_line /tmp/attach.out attached $apid
diag "$(cat /tmp/attach.out)"
check "spe attach: one AUX buffer per CPU" \
	grep -q "^attached $(nproc) AUX buffer" /tmp/attach.out

# reports reach the context before the hog starts: a count, not a time
r0=$(samples)
i=0
while [ $i -lt 100 ] && [ "$(samples)" -le "$r0" ]; do
	sleep 0.2
	i=$((i + 1))
done
r1=$(samples)
diag "reports before the hog: $r0 then $r1"
check "reports flow before the hog" test "$r1" -gt "$r0"

/bin/rthog 1 > /tmp/rthog.out 2>&1 &
hog=$!
wait_line /tmp/rthog.out hogging $hog
diag "$(cat /tmp/rthog.out)"
check "an RT task spins on CPU 1" grep -q '^hogging CPU 1 ' /tmp/rthog.out

# bounded STEP DESC CMD...: CMD completes within BOUND seconds, exit 0.
bounded() {
	_d=$1
	shift
	if timeout "$BOUND" "$@" > /tmp/bounded.out 2>&1; then
		ok "$_d"
	else
		_rc=$?
		diag "$(cat /tmp/bounded.out)"
		not_ok "$_d (exit $_rc; 124: still waiting after ${BOUND}s)"
	fi
}
s0=$(samples)
bounded "nlctrl and the family answer while CPU 1 starves (damonctl status)" \
	damonctl status
bounded "CPU 1 goes offline while drains run" \
	sh -c 'echo 0 > /sys/devices/system/cpu/cpu1/online'
bounded "CPU 1 comes back online" \
	sh -c 'echo 1 > /sys/devices/system/cpu/cpu1/online'
# the hog lost its CPU when CPU 1 went down and spins on CPU 0 now: the
# drains of CPU 0's buffer starve in turn
diag "hog now on CPU $(awk '{ print $39 }' /proc/$hog/stat 2>/dev/null)"
bounded "damonctl status again" damonctl status
s1=$(samples)
diag "reports while the hog ran: $((s1 - s0))"
bounded "STOP while a CPU starves" damonctl stop $CTX
check_fail "the context is gone" sh -c "damonctl status | grep -q '$CTX'"
kill $hog 2>/dev/null
wait $hog 2>/dev/null
kill $apid 2>/dev/null
wait $apid 2>/dev/null
check "perf_stats balanced after the stop" stats_balanced
stop_workload
unload_module damon_perf_testpmu
unload_module damon_perf
finish
