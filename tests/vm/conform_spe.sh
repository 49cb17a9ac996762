#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# needs: test-build
# arches: x86_64 arm64
# kernels: debug stock
# timeout: 600
# ARM SPE conformance PMU: damon_perf_conform_spe (tests/conform/spe.c)
# registers arm_spe_conform, a PMU whose callbacks are drivers/perf/
# arm_spe_pmu.c's (6.1 and 6.12/7.2 rules) over imitated SPE registers:
# perf_aux_output_begin() at start and after every buffer-management
# interrupt, the driver's limit (watermark, alignment, padding when a
# record cannot fit), perf_aux_output_end() with the size written and the
# TRUNCATED / COLLISION flags, the event stopped on a full buffer until
# damon_perf frees space and enables it. /bin/spe_conform opens it on every
# CPU, maps the buffers and attaches them; reading
# damon_perf_conform_spe/run offers a seeded record stream per CPU per case
# and checks that every record offered became a report with the fields
# written or a loss damon_perf counted by reason in perf_stats.
. /tests/lib.sh

if [ ! -x /bin/spe_conform ]; then
	skip "SPE conformance PMU" "no /bin/spe_conform in the image"
	finish
fi
load_module damon_perf || finish
if ! load_module damon_perf_conform_spe; then
	unload_module damon_perf
	finish
fi
check "conformance PMU arm_spe_conform is registered" \
	test -f /sys/bus/event_source/devices/arm_spe_conform/type

out=$(/bin/spe_conform 4 2>&1)
echo "$out" | sed "s/^/# /"
line=$(echo "$out" | grep -E '^spe: [0-9]+ offered, [0-9]+ accounted$')
n=$(echo "$line" | sed -E 's/.*: ([0-9]+) offered, ([0-9]+) accounted$/\1 \2/')
check "${line:-spe: no total}" sh -c 'set -- $1; [ "${1:-0}" -gt 0 ] && [ "$1" = "$2" ]' sh "$n"
check "every case filled the buffer, truncated and padded somewhere" \
	sh -c 'echo "$1" | grep -q "TRUNCATED [1-9]" &&
	       echo "$1" | grep -q "pad bytes [1-9]" &&
	       echo "$1" | grep -q "flagged [1-9]"' sh "$out"
fails=$(echo "$out" | grep -E '^(FAIL|errors |error=)' | head -8)
check "every report as the record was written, errors 0" \
	sh -c "echo \"\$1\" | grep -qx 'errors 0'" sh "$fails"

unload_module damon_perf_conform_spe
unload_module damon_perf
finish
