#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# arches: x86_64 arm64
# timeout: 600
# CPU hotplug while a page-fault probe samples: cpu1 goes offline and
# comes back several times. Its counter is released and re-created each
# time (samples on cpu1 resume after every online), samples keep flowing,
# no creation fails, and stopping and unloading leave a clean log (the
# harness checks for leaks and splats).
. /tests/lib.sh

CTX=hotplug
CYCLES=${PERF_HOTPLUG_CYCLES:-5}
F=/sys/kernel/debug/damon_perf/perf_stats
ONLINE=/sys/devices/system/cpu/cpu1/online

need_damonctl "CPU hotplug while sampling"
if [ ! -w "$ONLINE" ]; then
	skip "CPU hotplug while sampling" "cpu1 cannot be taken offline here"
	finish
fi
numa_balancing_fast
load_module damon_perf || finish
# One thread per CPU, so both CPUs take faults.
start_workload -s 64 -o 16 -h 4 -t 0 -n 2 || { not_ok "workload started"; finish; }
ok "workload started"
check "damonctl start: page-fault probe" \
	damonctl start -n $CTX -p "$WORKLOAD_PID" -e page-faults --period 1 \
	--exclude-kernel
sleep 3
diag "$(cat $F)"
before=$(col sample_valid)

i=1
fail=0
resumed=0
while [ $i -le "$CYCLES" ]; do
	# perf_stats lists online CPUs only: take cpu1's count just before.
	pre=$(col sample_valid 1)
	if ! echo 0 > $ONLINE; then
		fail=$((fail + 1))
		diag "cycle $i: offlining cpu1 failed"
	fi
	sleep 1
	if ! echo 1 > $ONLINE; then
		fail=$((fail + 1))
		diag "cycle $i: onlining cpu1 failed"
	fi
	# The counter is re-created by a work item once the CPU is up.
	j=0
	now=
	while [ $j -lt 30 ]; do
		sleep 0.2
		now=$(col sample_valid 1)
		[ -n "$now" ] && [ -n "$pre" ] && [ "$now" -gt "$pre" ] && break
		j=$((j + 1))
	done
	if [ -n "$now" ] && [ -n "$pre" ] && [ "$now" -gt "$pre" ]; then
		resumed=$((resumed + 1))
	else
		diag "cycle $i: cpu1 sample_valid '$pre' -> '$now' within 6 s"
	fi
	sleep 1
	i=$((i + 1))
done
check "cpu1 offlined and onlined $CYCLES times while armed ($fail failed)" \
	[ $fail -eq 0 ]
check "samples on cpu1 resumed after every online ($resumed/$CYCLES)" \
	[ $resumed -eq "$CYCLES" ]
sleep 2
after=$(col sample_valid)
if [ -n "$after" ] && [ "$after" -gt "$before" ]; then
	ok "samples kept flowing ($before -> $after)"
else
	not_ok "samples kept flowing ($before -> $after)"
fi
diag "$(cat $F)"
af=$(status_field $CTX arm_failures)
if [ "$af" = 0 ]; then
	ok "no counter creation failed"
else
	not_ok "no counter creation failed (arm_failures '$af')"
fi
check "context still running" sh -c "damonctl status $CTX | grep -q running"
check "damonctl stop" damonctl stop $CTX
check "perf_stats balanced after the stop" stats_balanced
# Hotplug with nothing armed.
check "cpu1 offline with nothing armed" sh -c "echo 0 > $ONLINE"
check "cpu1 online with nothing armed" sh -c "echo 1 > $ONLINE"
stop_workload
unload_module damon_perf
finish
