#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# needs: test-build
# kernels: debug
# cpus: 3
# timeout: 600
# Stop, hotplug and the other generic netlink families while a CPU's
# kworkers starve for ever. The kdamond drains a context's AUX buffers
# with per-CPU works; STOP holds genl_mutex (the family is not
# parallel_ops) and damon_perf_lock and then needs aux_lock, which the
# kdamond holds while it waits for the works. With a SCHED_FIFO task
# spinning on CPU 1 (/bin/rthog) and RT throttling off
# (sched_rt_runtime_us -1), CPU 1's kworker never runs. The kdamond
# waits for a drain a bounded time and holds no cpus_read_lock() while
# it waits, and a teardown cancels the works not yet run instead of
# flushing them (kmod/aux.c), so each of these completes: an nlctrl
# family lookup (which takes genl_mutex too), offlining and onlining CPU
# 2 (CPU 1's own hotplug needs its cpuhp thread, which the RT task
# starves as well, whatever the module does: hence three vCPUs), and
# STOP; then perf_stats balance and count the drains that could not run.
# A hang ends in each step's own bound, with a message.
. /tests/lib.sh

CTX=starve
EVENT=arm_spe_test//
BOUND=60

need_damonctl "stop under a starved kworker"
if [ ! -f "$DAMON_PERF_MODDIR/damon_perf_testpmu.ko" ]; then
	skip "stop under a starved kworker" "no test PMU module (debug kernel only)"
	finish
fi
if [ ! -x /bin/rthog ]; then
	skip "stop under a starved kworker" "no /bin/rthog in the image"
	finish
fi
if [ "$(nproc)" -lt 3 ] || [ ! -w /sys/devices/system/cpu/cpu2/online ]; then
	not_ok "three vCPUs, CPU 2 hotpluggable (the script's '# cpus: 3')"
	finish
fi
rt=$(cat /proc/sys/kernel/sched_rt_runtime_us)
diag "RT throttling: $rt us of every $(cat /proc/sys/kernel/sched_rt_period_us) us"

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

# this shell and what it starts keep off CPU 1; then no RT throttling
taskset -p 5 $$ > /dev/null
taskset -a -p 5 "$WORKLOAD_PID" > /dev/null
check "RT throttling off" sh -c 'echo -1 > /proc/sys/kernel/sched_rt_runtime_us'
late0=$(col aux_drain_late)
busy0=$(col aux_drain_busy)
/bin/rthog 1 > /tmp/rthog.out 2>&1 &
hog=$!
wait_line /tmp/rthog.out hogging $hog
diag "$(cat /tmp/rthog.out)"
check "an RT task spins on CPU 1, its ksoftirqd above it" grep -q "^hogging CPU 1 .*ksoftirqd/1 at FIFO" /tmp/rthog.out

# bounded DESC CMD...: CMD completes within BOUND seconds, exit 0 (a
# bound on a hang, not a measure). Not timeout(1): a task blocked in the
# kernel (D state) ignores its signals, and timeout waits for it.
bounded() {
	_d=$1
	shift
	"$@" > /tmp/bounded.out 2>&1 &
	_p=$!
	_i=0
	while kill -0 $_p 2> /dev/null && [ $_i -lt $((BOUND * 5)) ]; do
		sleep 0.2
		_i=$((_i + 1))
	done
	if kill -0 $_p 2> /dev/null; then
		not_ok "$_d (still waiting after ${BOUND}s: $(tr '\0' ' ' < /proc/$_p/cmdline) in $(cat /proc/$_p/wchan 2> /dev/null))"
		return
	fi
	if wait $_p; then
		ok "$_d"
	else
		_rc=$?
		diag "$(cat /tmp/bounded.out)"
		not_ok "$_d (exit $_rc)"
	fi
}
s0=$(samples)
# the drains of CPU 1 stop: a count, bounded
i=0
while [ $i -lt 100 ] && [ $(($(col aux_drain_busy) - busy0)) -lt 3 ]; do
	sleep 0.2
	i=$((i + 1))
done
diag "drains of CPU 1 not queued (the last not run): $(($(col aux_drain_busy) - busy0)), late: $(($(col aux_drain_late) - late0))"
check "CPU 1's drains starve (aux_drain_busy grows)" \
	test $(($(col aux_drain_busy) - busy0)) -ge 3
bounded "nlctrl and the family answer while CPU 1 starves (damonctl status)" \
	damonctl status
bounded "CPU 2 goes offline while CPU 1 starves" \
	sh -c 'echo 0 > /sys/devices/system/cpu/cpu2/online'
bounded "CPU 2 comes back online" \
	sh -c 'echo 1 > /sys/devices/system/cpu/cpu2/online'
s1=$(samples)
diag "reports while the hog ran: $((s1 - s0))"
check "reports still flow from the other CPUs' buffers" test "$s1" -gt "$s0"
bounded "damonctl status again" damonctl status
bounded "STOP while CPU 1 starves" damonctl stop $CTX
check_fail "the context is gone" sh -c "damonctl status | grep -q '$CTX'"
bounded "the attaching process's socket is released while CPU 1 starves" \
	sh -c "kill $apid; while kill -0 $apid 2>/dev/null; do sleep 0.1; done"
kill $hog 2>/dev/null
wait $hog 2>/dev/null
# rthog gives its ksoftirqd back at SIGTERM: policy (stat field 41) 0
ks=$(grep -lx 'ksoftirqd/1' /proc/[0-9]*/comm | head -n 1)
ks=${ks%/comm}
check "ksoftirqd/1 back to SCHED_OTHER after the hog" \
	test "$(awk '{ print $41 }' "$ks/stat" 2>/dev/null)" = 0
echo "$rt" > /proc/sys/kernel/sched_rt_runtime_us
kill $apid 2>/dev/null
wait $apid 2>/dev/null
check "perf_stats balanced after the stop" stats_balanced
stop_workload
unload_module damon_perf_testpmu
unload_module damon_perf
finish
