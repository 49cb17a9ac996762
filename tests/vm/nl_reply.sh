#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kernels: stock debug
# A request whose reply cannot be sent changes nothing: PROBE_ADD from a
# socket whose receive queue is full (netlink refuses the reply) leaves no
# probe and no PMU ownership behind (another context adds a probe of the
# same PMU type), and once the sender read its queue a retry adds exactly
# one probe (tests/vm/nlattack/inject.c, mode replyfail).
. /tests/lib.sh

load_module damon_perf || finish
if workload_started; then
	out=$(nlattack replyfail "$WORKLOAD_PID" 2>&1)
	rc=$?
	diag "$out"
	if [ $rc -eq 0 ]; then
		ok "PROBE_ADD with a reply refused: no probe, no PMU ownership, one probe on retry"
	else
		not_ok "PROBE_ADD with a reply refused (exit $rc)"
	fi
	stop_workload
fi
unload_module damon_perf
finish
