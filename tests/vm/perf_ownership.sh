#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Per-PMU ownership and the probe limit: a second context asking for a PMU
# type another context owns gets EBUSY with a message naming the owner; a
# context may use a distinct PMU meanwhile; ownership follows the probes
# (released with the last one); a context holds at most 3 probes and the
# 4th gets ENOSPC.
. /tests/lib.sh

need_damonctl "PMU ownership"
load_module damon_perf || finish
start_sleeper

check "owner: context 'own1' with a page-fault probe" \
	start_faults own1 $SLEEPER
id1=$(damonctl status --json | tr -d ' \n' |
	sed -n 's/.*"id":\([0-9]*\),"name":"own1".*/\1/p')
[ -n "$id1" ] || id1='[0-9]+'
expect_err "second context on PMU type 1 gets EBUSY naming the owner" \
	EBUSY "PMU type 1 is owned by context 'own1' \\(id $id1\\)" \
	damonctl start -n own2 -p $SLEEPER -e cpu-clock --period 100000
check "the refused context left nothing behind" \
	sh -c "! damonctl status | grep -q own2"

# A distinct PMU (tracepoint, type 2) for another context meanwhile.
check "configured context 'own3'" ctx_new own3
tp=$(cat /sys/kernel/debug/tracing/events/sched/sched_switch/id 2>/dev/null ||
	cat /sys/kernel/tracing/events/sched/sched_switch/id 2>/dev/null)
if [ -n "$tp" ]; then
	check "own3 may drive a distinct PMU (tracepoint, type 2)" \
		probe_add own3 2 "$tp"
else
	skip "own3 may drive a distinct PMU" "no sched_switch tracepoint id"
fi
expect_err "own3 still may not take PMU type 1" EBUSY \
	"owned by context 'own1'" probe_add own3 1 2

# Up to 3 probes per context.
check "stop own1, keeping it" damonctl stop own1 --keep
check "own1: second probe of its own PMU type" probe_add own1 1 2
check "own1: third probe" probe_add own1 1 2
expect_err "own1: fourth probe gets ENOSPC" ENOSPC "3 perf probes" \
	probe_add own1 1 2

# Ownership is released with the owner's last probe.
check "delete own1" damonctl stop own1
check "own3 now may take PMU type 1" probe_add own3 1 2
check "delete own3" ctx_del own3
check "own2 may start on PMU type 1 now" start_faults own2 $SLEEPER
check "delete own2" damonctl stop own2
check "perf_stats balanced after the stop" stats_balanced
stop_sleeper
unload_module damon_perf
finish
