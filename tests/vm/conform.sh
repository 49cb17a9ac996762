#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# needs: test-build
# kernels: debug stock
# timeout: 300
# Conformance PMUs (x86): damon_perf_conform (tests/conform) registers
# damon_perf_pebs and damon_perf_ibs, PMUs that deliver samples as Intel
# PEBS (auto-reload, large PEBS, the drain's perf_event_output() and
# perf_event_overflow() split, the drain at disable) and AMD IBS Op (one
# overflow per op, the period rules of 6.1/6.12 and of 7.2, valid bits)
# do, from a real NMI.
# damon_perf arms their counters through its own probe path; reading
# debugfs damon_perf_conform/run offers a seeded stream per CPU per case,
# changes fixed periods through the CPU budget's path every batch, and
# checks that every record the driver offered became a report with the
# fields the driver filled or a loss counted by reason in perf_stats. Each
# case is stopped and restarted: the PMI of a record pending as a stop
# begins lands after the context is unpublished and must be counted
# (sample_teardown), so offered = accounted holds through stop and restart.
. /tests/lib.sh

D=/sys/kernel/debug/damon_perf_conform
LONGEST=/sys/kernel/debug/x86/nmi_longest_ns

if [ "$(uname -m)" != x86_64 ]; then
	skip "conformance PMUs" "x86 only (self-NMI)"
	finish
fi
load_module damon_perf || finish
if ! load_module damon_perf_conform; then
	unload_module damon_perf
	finish
fi
check "conformance PMUs damon_perf_pebs and damon_perf_ibs are registered" \
	test -f /sys/bus/event_source/devices/damon_perf_pebs/type -a \
	     -f /sys/bus/event_source/devices/damon_perf_ibs/type

saved=
if [ -w $LONGEST ]; then
	saved=$(cat $LONGEST)
	echo 10000000000 > $LONGEST
fi

out=$(cat $D/run 2>&1)
echo "$out" | sed "s/^/# /"
# one total per driver: "<driver>: N offered, N accounted"
echo "$out" | grep -E '^(pebs|ibs .*): [0-9]+ offered, [0-9]+ accounted$' |
while IFS= read -r line; do
	echo "$line"
done > /tmp/conform.totals
check "three driver totals (pebs, ibs under 6.1/6.12 and 7.2 rules)" \
	test "$(wc -l < /tmp/conform.totals)" -eq 3
while IFS= read -r line; do
	n=$(echo "$line" | sed -E 's/.*: ([0-9]+) offered, ([0-9]+) accounted$/\1 \2/')
	check "$line" sh -c 'set -- $1; [ "$1" -gt 0 ] && [ "$1" = "$2" ]' sh "$n"
done < /tmp/conform.totals
fails=$(echo "$out" | grep -E '^(FAIL|errors )' | head -8)
check "every report as the driver filled it, errors 0" \
	sh -c "echo \"\$1\" | grep -qx 'errors 0'" sh "$fails"

[ -n "$saved" ] && echo "$saved" > $LONGEST
unload_module damon_perf_conform
unload_module damon_perf
finish
