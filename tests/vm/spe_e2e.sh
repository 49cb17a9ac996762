#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kernels: debug
# timeout: 600
# ARM SPE end to end through the user-facing path: the arm_spe_test PMU
# (tests/testpmu, debug kernel only) writes SPE records for a workload's
# hot range into perf AUX buffers; `damonctl spe attach` opens it on every
# CPU, hands the buffers to a running vaddr context with AUX_ATTACH and
# stays in the foreground; the context's hottest region must overlap the
# hot range. Then: SIGINT detaches cleanly (exit 0) while the context runs
# on, a second attach exits by itself when the context stops, and every
# module unloads.
. /tests/lib.sh

CTX=spe
EVENT=arm_spe_test//
WAIT=${SPE_E2E_WAIT:-12}

# regions FILE: "start end nr_accesses" per region of damonctl report --json.
regions() {
	awk '
		/"regions": \[/ { in_r = 1; next }
		!in_r { next }
		/"start":/ { gsub(/[^0-9]/, ""); s = $0 }
		/"end":/ { gsub(/[^0-9]/, ""); e = $0 }
		/"nr_accesses":/ { gsub(/[^0-9]/, ""); n = $0 }
		/"target_id":/ { print s, e, n }' "$1"
}

overlaps() {
	awk -v s="$1" -v e="$2" -v hs="$3" -v he="$4" \
		'BEGIN { exit !(s + 0 < he + 0 && e + 0 > hs + 0) }'
}

# wait_exit PID SECS: true once PID exited within SECS seconds.
wait_exit() {
	_i=0
	while kill -0 "$1" 2>/dev/null; do
		_i=$((_i + 1))
		[ $_i -gt $(($2 * 10)) ] && return 1
		sleep 0.1
	done
	return 0
}

if [ ! -x /bin/damonctl ]; then
	skip "SPE end to end" "damonctl not in the image"
	finish
fi
if [ ! -f "$DAMON_PERF_MODDIR/damon_perf_testpmu.ko" ]; then
	skip "SPE end to end" "no test PMU module (debug kernel only)"
	finish
fi
load_module damon_perf || finish
if start_workload -s 64 -o 16 -h 4 -t 0 -n 1; then
	ok "workload started"
else
	not_ok "workload started"
	finish
fi
hs=$((WORKLOAD_HOT_START))
he=$((WORKLOAD_HOT_END))
line=$(grep '^WORKLOAD pid=' /tmp/workload.out)
base=$(($(echo "$line" | sed 's/.* base=\([^ ]*\).*/\1/')))
size=$(($(echo "$line" | sed 's/.* size=\([^ ]*\).*/\1/')))
# CPU-wide events: the test PMU tags records with the workload's pid in
# CONTEXT packets, as SPE does with CONFIG_PID_IN_CONTEXTIDR.
load_module damon_perf_testpmu hot_start=$hs hot_len=$((he - hs)) \
	cold_start=$base cold_len=$size hot_pct=80 period_us=1000 batch=8 \
	ctx_pid="$WORKLOAD_PID" || finish

check "damonctl start: vaddr context on the workload" \
	damonctl start -n $CTX -p "$WORKLOAD_PID" --exclude-kernel

check_fail "spe attach to a missing context fails" \
	damonctl spe attach nosuch -e $EVENT
damonctl spe attach $CTX -e page-faults --aux-pages 4 > /tmp/bad.out 2>&1
rc=$?
diag "$(cat /tmp/bad.out)"
if [ $rc -ne 0 ] && [ "$(wc -l < /tmp/bad.out)" -eq 1 ]; then
	ok "spe attach of a PMU without AUX tracing fails with one line ($rc)"
else
	not_ok "spe attach of a PMU without AUX tracing (exit $rc)"
fi

damonctl spe attach $CTX -e $EVENT --aux-pages 16 > /tmp/attach.out 2>&1 &
apid=$!
i=0
while [ $i -lt 50 ] && ! grep -q '^attached' /tmp/attach.out; do
	kill -0 $apid 2>/dev/null || break
	sleep 0.2
	i=$((i + 1))
done
diag "$(cat /tmp/attach.out)"
if grep -q "^attached $(nproc) AUX buffer" /tmp/attach.out; then
	ok "spe attach: one AUX buffer per CPU handed over"
else
	not_ok "spe attach: one AUX buffer per CPU handed over"
fi

sleep "$WAIT"
top=
i=0
while [ $i -lt 20 ]; do
	damonctl report $CTX --json --hot 1 > /tmp/hot.json 2>&1 &&
		top=$(regions /tmp/hot.json | head -n 1)
	set -- $top
	[ -n "$top" ] && [ "${3:-0}" -gt 0 ] && break
	sleep 1
	i=$((i + 1))
done
damonctl report $CTX 2>&1 | head -n 12 | while read -r l; do diag "$l"; done
F=/sys/kernel/debug/damon_perf/perf_stats
[ -r $F ] && diag "$(cat $F)"
set -- $top
if [ -n "$top" ] && [ "${3:-0}" -gt 0 ] && overlaps "$1" "$2" "$hs" "$he"; then
	ok "hottest region $(printf '%#x-%#x' "$1" "$2") (nr_accesses $3)" \
		"overlaps the hot range $(printf '%#x-%#x' "$hs" "$he")"
else
	diag "$(cat /tmp/hot.json)"
	not_ok "hottest region '$top' overlaps the hot range" \
		"$(printf '%#x-%#x' "$hs" "$he")"
fi
if grep -q '"probe_hits"' /tmp/hot.json &&
   awk '/"probe_hits": \[/ { p = 1; n = 0; next }
	p && /\]/ { p = 0; next }
	p { n++; gsub(/[^0-9]/, ""); if (n == 2 && $0 + 0 > 0) f = 1 }
	END { exit !f }' /tmp/hot.json; then
	ok "AUX samples count in probe slot 2 (page-faults has slot 1)"
else
	not_ok "AUX samples count in probe slot 2"
fi

kill -INT $apid
if wait_exit $apid 10; then
	wait $apid
	rc=$?
	if [ $rc -eq 0 ]; then ok "SIGINT: spe attach exits 0"
	else not_ok "SIGINT: spe attach exits $rc"; fi
else
	not_ok "SIGINT: spe attach exits"
	kill -9 $apid 2>/dev/null
fi
diag "$(cat /tmp/attach.out)"
st=$(damonctl status $CTX 2>&1)
if echo "$st" | grep -q running; then ok "context still runs after detach"
else diag "$st"; not_ok "context still runs after detach"; fi

# Again, and let the context stop underneath.
damonctl spe attach $CTX -e $EVENT --aux-pages 4 --poll-ms 100 \
	> /tmp/attach2.out 2>&1 &
apid=$!
i=0
while [ $i -lt 50 ] && ! grep -q '^attached' /tmp/attach2.out; do
	kill -0 $apid 2>/dev/null || break
	sleep 0.2
	i=$((i + 1))
done
check "re-attach after a detach" grep -q '^attached' /tmp/attach2.out
sleep 2
check "damonctl stop" damonctl stop $CTX
if wait_exit $apid 10; then
	wait $apid
	rc=$?
	if [ $rc -eq 0 ] && grep -q "context stopped" /tmp/attach2.out; then
		ok "spe attach exits 0 when the context stops"
	else
		not_ok "spe attach exits when the context stops (exit $rc)"
	fi
else
	not_ok "spe attach exits when the context stops"
	kill -9 $apid 2>/dev/null
fi
diag "$(cat /tmp/attach2.out)"
stop_workload
unload_module damon_perf_testpmu
unload_module damon_perf
finish
