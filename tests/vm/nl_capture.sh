#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kernels: bookworm
# The replies of the module as damonctl's codec tests read them
# (tests/user/data/netlink/): tests/vm/nlcapture.c drives a context on the
# workload and prints each reply's bytes as NLCAP lines, which
# tests/user/data/netlink/capture.sh cuts out of this script's console log
# to refresh the checked-in files. Here: the capture runs through, and
# each of its eight exchanges is there, whole (its lines hold as many bytes
# as its end line says).
. /tests/lib.sh

load_module damon_perf || finish
workload_started -s 64 -h 16 -t 0
diag "kernel $(uname -r), damon_perf $(cat /sys/module/damon_perf/version 2>/dev/null)"
echo "NLCAP kernel $(uname -r) damon_perf $(cat /sys/module/damon_perf/version 2>/dev/null)"
nlcapture "$WORKLOAD_PID" > /tmp/nlcap.out 2> /tmp/nlcap.err
rc=$?
cat /tmp/nlcap.out
if [ $rc -eq 0 ] && grep -q '^NLCAP done$' /tmp/nlcap.out; then
	ok "nlcapture: every exchange captured"
else
	diag "$(cat /tmp/nlcap.err)"
	not_ok "nlcapture: every exchange captured (exit $rc)"
fi
for n in ctx_new probe_add aggregation ctx_get_dump aggregation_trunc \
	snapshot_dump stats_dump error_ack; do
	want=$(sed -n "s/^NLCAP $n end \([0-9]*\) .*/\1/p" /tmp/nlcap.out)
	got=$(grep "^NLCAP $n [0-9a-f]*$" /tmp/nlcap.out | cut -d' ' -f3 | tr -d '\n' | wc -c)
	if [ -n "$want" ] && [ "$want" -gt 0 ] && [ "$got" -eq $((want * 2)) ]; then
		ok "capture $n: $want bytes in $(sed -n "s/^NLCAP $n end [0-9]* //p" /tmp/nlcap.out) messages"
	else
		not_ok "capture $n: ${want:-no} bytes said, $((got / 2)) printed"
	fi
done
stop_workload
unload_module damon_perf
finish
