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
# The drivers' silent drops are taken on a seeded share of records: PEBS
# records with stale status bits and old-format collisions, IBS (7.2 rules,
# exclude_kernel, software filter) ops of kernel code or of kernel data
# addresses. They are reported apart from what the module accounted, and
# must add up: generated = offered + dropped by the driver, each reason
# exactly as the records written call for, each taken at least once.
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
# apart, what each driver dropped where the module never sees it:
# "<driver>: G generated, dropped by the driver: stale N collision N
# kernel-ip N kernel-addr N output N"; G = offered + dropped
echo "$out" | grep -E '^(pebs|ibs .*): [0-9]+ generated, dropped by the driver:( [a-z-]+ [0-9]+)+$' \
	> /tmp/conform.drops
check "three driver drop lines" test "$(wc -l < /tmp/conform.drops)" -eq 3
# drops DRIVER REASON: the count of one reason on DRIVER's line
drops() {
	grep -F "$1: " /tmp/conform.drops |
	sed -E "s/.* $2 ([0-9]+)( .*)?\$/\\1/"
}
while IFS= read -r line; do
	d=${line%%: *}
	gen=$(echo "$line" | sed -E 's/.*: ([0-9]+) generated.*/\1/')
	off=$(grep -F "$d: " /tmp/conform.totals | sed -E 's/.*: ([0-9]+) offered.*/\1/')
	sum=0
	for r in stale collision kernel-ip kernel-addr output; do
		sum=$((sum + $(drops "$d" $r)))
	done
	check "$d: $gen generated = $off offered + $sum dropped by the driver" \
		test "$gen" -eq "$((off + sum))"
done < /tmp/conform.drops
# which paths each driver must have taken, and no other
check "pebs: stale records and old-format collisions dropped, nothing else" \
	sh -c '[ "$1" -gt 0 ] && [ "$2" -gt 0 ] && [ "$3" = 0 ] && [ "$4" = 0 ] && [ "$5" = 0 ]' sh \
	"$(drops pebs stale)" "$(drops pebs collision)" \
	"$(drops pebs kernel-ip)" "$(drops pebs kernel-addr)" "$(drops pebs output)"
check "ibs (6.1/6.12 rules): kernel ops and addresses offered, none dropped" \
	test "$(grep -F 'ibs (6.1/6.12 rules): ' /tmp/conform.drops |
		sed -E 's/.*: ([0-9]+) generated.*/\1/')" -eq \
	     "$(grep -F 'ibs (6.1/6.12 rules): ' /tmp/conform.totals |
		sed -E 's/.*: ([0-9]+) offered.*/\1/')"
check "ibs (7.2 rules): kernel IPs and kernel data addresses discarded, nothing else" \
	sh -c '[ "$1" -gt 0 ] && [ "$2" -gt 0 ] && [ "$3" = 0 ] && [ "$4" = 0 ] && [ "$5" = 0 ]' sh \
	"$(drops 'ibs (7.2 rules)' kernel-ip)" "$(drops 'ibs (7.2 rules)' kernel-addr)" \
	"$(drops 'ibs (7.2 rules)' stale)" "$(drops 'ibs (7.2 rules)' collision)" \
	"$(drops 'ibs (7.2 rules)' output)"
fails=$(echo "$out" | grep -E '^(FAIL|errors )' | head -8)
check "every report as the driver filled it, errors 0" \
	sh -c "echo \"\$1\" | grep -qx 'errors 0'" sh "$fails"

[ -n "$saved" ] && echo "$saved" > $LONGEST
unload_module damon_perf_conform
unload_module damon_perf
finish
