#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# needs: test-build
# kernels: debug
# The AUX transport end to end on the real perf AUX plumbing: the
# arm_spe_test PMU writes SPE records into per-CPU AUX buffers that a
# process mapped; damon_perf pins them, drains them on their CPU, parses
# them and queues reports (via the damon_perf_auxtest harness, which
# stands in for a monitoring context). The hot range must come out
# hottest, every buffer must be consumed up to its head, and bad attach
# requests must fail, among them a buffer attached twice, through its own
# event or through a second one writing into it (PERF_EVENT_IOC_SET_OUTPUT). Needs /bin/auxtest_user (tests/testpmu/auxtest_user.c).
. /tests/lib.sh

if [ ! -x /bin/auxtest_user ]; then
	skip "SPE AUX end to end" "no /bin/auxtest_user in the image"
	finish
fi
load_module damon_perf || finish
load_module damon_perf_testpmu hot_pct=80 period_us=200 batch=16 || finish
load_module damon_perf_auxtest || finish
check "test PMU is registered" \
	test -f /sys/bus/event_source/devices/arm_spe_test/type

# 4 AUX pages, consumed at least WRAPS times on every CPU: a count, not a
# duration (auxtest_user runs 4 s, then until the count is reached).
WRAPS=4
AUX_BYTES=$((4 * 4096))
out=$(/bin/auxtest_user 4 4 --wraps=$WRAPS 2>&1)
echo "$out" | sed 's/^/# /'
val() { echo "$out" | sed -n "s/^$1=\([-0-9]*\).*/\1/p" | head -n 1; }
fin() { echo "$out" | sed -n "s/^final.* $1 \([0-9]*\).*/\1/p"; }
expect() {	# expect DESC KEY VALUE
	if [ "$(val "$2")" = "$3" ]; then ok "$1"; else
		not_ok "$1 ($2=$(val "$2"), want $3)"; fi
}

expect "attach refuses a bad fd (EBADF)" neg_badfd -9
expect "attach refuses a non-perf fd (EINVAL)" neg_notperf -22
expect "attach refuses an event of another CPU (EINVAL)" neg_wrongcpu -22
expect "attach refuses swapped data/AUX mappings (EINVAL)" neg_swapped -22
expect "attach refuses a wrong AUX size (EINVAL)" neg_badsize -22
expect "attach refuses a pid the CPU-wide event does not follow (EINVAL)" \
	neg_wrongpid -22
expect "attach refuses a pid with no process (ESRCH)" neg_nopid -3
expect "attach to probe slot 1 succeeds" slot1_attach 0
expect "the same buffer for probe slot 2 is refused (EBUSY)" neg_samebuf -16
if echo "$out" | grep -q '^neg_samebuf_msg=.*attached already'; then
	ok "the refusal says the buffer is attached already"
else
	not_ok "the refusal says the buffer is attached already ($(echo "$out" | grep '^neg_samebuf_msg='))"
fi
expect "the same slot and CPU again is refused (EEXIST)" neg_sameslot -17
expect "once detached, the buffer attaches to slot 2" slot2_after_detach 0
# A second event of CPU 0 redirected into the first one's buffer
# (PERF_EVENT_IOC_SET_OUTPUT) shares its ring buffer: it is the same buffer.
expect "attach to slot 1 before a SET_OUTPUT event succeeds" setout_first 0
expect "an event writing into that buffer (SET_OUTPUT), slot 2, is refused (EBUSY)" \
	neg_setout -16
if echo "$out" | grep -q '^neg_setout_msg=.*attached already'; then
	ok "the SET_OUTPUT refusal says the buffer is attached already"
else
	not_ok "the SET_OUTPUT refusal says the buffer is attached already ($(echo "$out" | grep '^neg_setout_msg='))"
fi
expect "the SET_OUTPUT event's own attach succeeds once the first is detached" \
	setout_second_first 0
expect "then the first event for slot 2 is refused (EBUSY)" neg_setout_rev -16
expect "attach of CPU 0 succeeds" attach_cpu0 0
expect "attach of CPU 1 succeeds" attach_cpu1 0
expect "a second buffer for CPU 0 is refused (EEXIST)" neg_twice -17

reports=$(fin reports); hot=$(fin hot); other=$(fin other)
writes=$(fin writes); bad=$(fin bad); errors=$(fin errors)
reports=${reports:-0}; hot=${hot:-0}; other=${other:-0}
diag "reports=$reports hot=$hot other=$other writes=${writes:-?}"
if [ "$reports" -ge 1000 ]; then ok "drains queued $reports reports"
else not_ok "drains queued only $reports reports"; fi
if [ "$reports" -gt 0 ] && [ $((hot * 100 / reports)) -ge 70 ]; then
	ok "the hot range comes out hottest ($hot of $reports)"
else
	not_ok "the hot range comes out hottest ($hot of $reports)"
fi
if [ "${bad:-1}" = 0 ]; then ok "every report is AUX, probe 1, page aligned"
else not_ok "malformed reports: $bad"; fi
if [ "${errors:-1}" = 0 ]; then ok "the parser skipped no byte"
else not_ok "the parser skipped $errors bytes"; fi
if [ "${writes:-0}" -gt 0 ] && [ "${writes:-0}" -lt "$reports" ]; then
	ok "loads and stores both reported"
else not_ok "loads and stores both reported (writes=$writes)"; fi

for c in 0 1; do
	line=$(echo "$out" | grep "^cpu${c}_aux_head=")
	head=$(echo "$line" | sed -n 's/.*aux_head=\([0-9]*\).*/\1/p')
	tail=$(echo "$line" | sed -n 's/.*aux_tail=\([0-9]*\).*/\1/p')
	# the tail must have wrapped WRAPS times and trail the head by less
	# than the buffer
	if [ -n "$tail" ] && [ "$tail" -ge $((WRAPS * AUX_BYTES)) ] &&
	   [ $((head - tail)) -le 16384 ]; then
		ok "CPU $c: AUX wrapped and was consumed behind its head ($tail/$head)"
	else
		not_ok "CPU $c: AUX consumed behind its head (head=$head tail=$tail)"
	fi
done

# The process exits with its buffers still attached: the pins keep the
# pages alive, and unloading the harness tears everything down.
out=$(/bin/auxtest_user 1 2 --no-detach 2>&1)
echo "$out" | sed 's/^/# /'
expect "re-attach after detach succeeds" attach_cpu0 0
check "drain after the process exited" cat /sys/kernel/debug/damon_perf_auxtest/drain
unload_module damon_perf_auxtest

# A 16-entry ring: every drain stops at the first refused report and the
# AUX tail stays on that record, so what the ring took is exactly what the
# parser consumed, and the data behind it is drained later.
load_module damon_perf_auxtest ring_size=16 || finish
out=$(/bin/auxtest_user 2 4 2>&1)
echo "$out" | sed 's/^/# /'
reports=$(fin reports); records=$(fin records); refused=$(fin refused)
drains=$(fin drains); errors=$(fin errors)
diag "reports=$reports records=$records refused=$refused drains=$drains"
if [ "${refused:-0}" -gt 0 ]; then ok "a full ring stops the drain ($refused times)"
else not_ok "a full ring stops the drain (refused=$refused)"; fi
if [ -n "$reports" ] && [ "$reports" = "$records" ] && [ "$reports" -gt 0 ]; then
	ok "records consumed = reports accepted ($reports)"
else
	not_ok "records consumed = reports accepted ($records vs $reports)"
fi
if [ -n "$reports" ] && [ "$reports" -le $(( ${drains:-0} * 16 * 2 )) ]; then
	ok "no drain took more than the ring holds"
else
	not_ok "no drain took more than the ring holds ($reports in $drains drains)"
fi
if [ "${errors:-1}" = 0 ]; then ok "resuming at a refused record loses no sync"
else not_ok "resuming at a refused record: $errors bytes skipped"; fi
unload_module damon_perf_auxtest
unload_module damon_perf_testpmu
unload_module damon_perf
finish
