#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# needs: test-build
# arches: x86_64 arm64
# kernels: debug
# timeout: 600
# ARM SPE end to end through the user-facing path: the arm_spe_test PMU
# (tests/testpmu, in test builds: the debug kernel, and Debian's arm64
# kernel in the arm64 tier) writes SPE records for a workload's hot range
# into perf AUX buffers as arm_spe_pmu.c has the hardware write them
# (a page at a time below the consumer's tail, padding, the COLLISION
# flag for a lost sample, TRUNCATED and the event stopped when the buffer
# is full); `damonctl spe attach` opens it on every CPU, hands the
# buffers to a running vaddr context with AUX_ATTACH and stays in the
# foreground; the context's hottest region must overlap the hot range.
# 10% of the records are of a kind the module must lose, each by its own
# reason: no data address (aux_no_addr), a live process that is no target
# and one that has exited (miss_tgid), an address in no region
# (miss_region). With the PMU paused, every sample it offered must be
# accounted for, record by record: the test PMU hooks the drain (test
# builds) and counts the outcome of each AUX report by the kind of its
# record; each of the workload's records must have credited a region,
# each other one be lost by its kind's reason, and the samples the driver
# itself dropped (COLLISION flags, aux_collision) are reported apart. The
# 2-page buffers must have truncated and restarted.
# Then: SIGINT detaches cleanly (exit 0) while the context runs on, a
# second attach exits by itself when the context stops, perf_stats adds
# up, and every module unloads.
. /tests/lib.sh

CTX=spe
EVENT=arm_spe_test//
WAIT=${SPE_E2E_WAIT:-12}

# Raw AUX_ATTACH requests (damonctl debug raw) for the kernel's checks.
# a full, well-formed AUX nest (fd $1, AUX size $2, probe index $3, extra
# hex $4)
aux_nest() {
	echo "$(nla_u32 $AUX_A_CPU 0)$(nla_u32 $AUX_A_FD "$1")$(nla_u64 $AUX_A_USER_PAGE 4096)$(nla_u64 $AUX_A_AUX_ADDR 65536)$(nla_u64 $AUX_A_AUX_SIZE "$2")$(nla_u32 $AUX_A_PID 0)$(nla_u8 $AUX_A_PROBE_IDX "${3:-1}")${4:-}"
}
# refused DESC PATTERN CTX NEST: AUX_ATTACH is refused (exit 1) with an
# extack message matching PATTERN.
refused() {
	_out=$(raw AUX_ATTACH \
		-a $A_CTX_NAME:str:"$3" ${4:+-a $A_AUX:nest:$4} 2>&1)
	_rc=$?
	if [ $_rc -eq 1 ] && echo "$_out" | grep -q "$2"; then
		ok "$1 ($_out)"
	else
		not_ok "$1 (exit $_rc: $_out)"
	fi
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

# attach_bg OUT ARGS...: damonctl spe attach ARGS in the background (pid in
# apid, output in OUT) until it says "attached" or exits, 10 s at most.
attach_bg() {
	_o=$1
	shift
	damonctl spe attach "$@" > "$_o" 2>&1 &
	apid=$!
	_i=0
	while [ $_i -lt 50 ] && ! grep -q '^attached' "$_o"; do
		kill -0 $apid 2>/dev/null || break
		sleep 0.2
		_i=$((_i + 1))
	done
}

need_damonctl "SPE end to end"
if [ ! -f "$DAMON_PERF_MODDIR/damon_perf_testpmu.ko" ]; then
	skip "SPE end to end" "no test PMU module (test builds only)"
	finish
fi
load_module damon_perf || finish
workload_started -s 64 -o 16 -h 4 -t 0 -n 1
# Its mapping and pid are what the test PMU's records name; its own loop
# would only take a vCPU from every step (TCG): stopped until the end.
kill -STOP "$WORKLOAD_PID"
hs=$((WORKLOAD_HOT_START))
he=$((WORKLOAD_HOT_END))
base=$((WORKLOAD_BASE))
size=$((WORKLOAD_SIZE))
# CPU-wide events: the test PMU tags records with the workload's pid in
# CONTEXT packets, as SPE does with CONFIG_PID_IN_CONTEXTIDR. 128 records
# a tick (about 45 bytes each) fill more than the page a transaction of a
# 2-page buffer gets, so every tick that finds the buffer empty ends in a
# buffer-full event and a TRUNCATED begin; 2% of the samples collide.
# 10% of the records are lost by a known reason, in turn: no data address,
# a live process that is no target (a sleep), one that has exited (a shell
# that printed its pid), the workload's address 0x10040 (below
# mmap_min_addr's default, in no region).
sleep 600 &
fpid=$!
gpid=$(sh -c 'echo $$')
load_module damon_perf_testpmu hot_start=$hs hot_len=$((he - hs)) \
	cold_start=$base cold_len=$size hot_pct=80 period_us=4000 batch=128 \
	collide_pct=2 ctx_pid="$WORKLOAD_PID" loss_pct=10 foreign_pid=$fpid \
	gone_pid="$gpid" unmapped_addr=$((0x10040)) || finish
TP=/sys/module/damon_perf_testpmu/parameters

check "damonctl start: vaddr context on the workload" \
	damonctl start -n $CTX -p "$WORKLOAD_PID" --exclude-kernel

refused "AUX_ATTACH without the AUX nest" "nest) required" $CTX
refused "AUX_ATTACH without an AUX address" "aux needs" $CTX \
	"$(nla_u32 $AUX_A_CPU 0)$(nla_u32 $AUX_A_FD 0)$(nla_u64 $AUX_A_USER_PAGE 4096)"
refused "AUX_ATTACH with probe index 4" "ERANGE" $CTX "$(aux_nest 0 65536 4)"
refused "AUX_ATTACH with an empty AUX area" "ERANGE" $CTX "$(aux_nest 0 0)"
refused "AUX_ATTACH with an unknown AUX attribute" "EINVAL\|EOPNOTSUPP\|nknown" \
	$CTX "$(aux_nest 0 65536 1 "$(nla_u32 $((AUX_A_MAX + 1)) 1)")"
# slot 1 is the page-fault probe's: AUX requests name slot 2
refused "AUX_ATTACH to a perf probe's slot" "perf probe" $CTX \
	"$(aux_nest 1000 65536 1)"
refused "AUX_ATTACH with a closed fd" "bad file descriptor" $CTX \
	"$(aux_nest 1000 65536 2)"
refused "AUX_ATTACH with a non-perf fd" "not a perf event" $CTX \
	"$(aux_nest 0 65536 2)"
check "a second, configured context" \
	raw CTX_NEW -a $A_CTX_NAME:str:idle
refused "AUX_ATTACH to a context that is not running" "not running" idle \
	"$(aux_nest 0 65536)"
check "delete it" raw CTX_DEL -a $A_CTX_NAME:str:idle

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

# only the test PMU's AUX reports count below; these are its baselines
base_no_addr=$(col aux_no_addr) base_coll=$(col aux_collision)
attach_bg /tmp/attach.out $CTX -e $EVENT --aux-pages 2
diag "$(cat /tmp/attach.out)"
if grep -q "^attached $(nproc) AUX buffer" /tmp/attach.out; then
	ok "spe attach: one AUX buffer per CPU handed over"
else
	not_ok "spe attach: one AUX buffer per CPU handed over"
fi

sleep "$WAIT"
top=
i=0
while [ $i -lt 10 ]; do
	damonctl report $CTX --json --hot 1 > /tmp/hot.json 2>&1 &&
		top=$(regions /tmp/hot.json | head -n 1)
	set -- $top
	diag "try $i: hottest ${top:-none}"
	[ -n "$top" ] && [ "${3:-0}" -gt 0 ] &&
		overlaps "$1" "$2" "$hs" "$he" && break
	sleep 1
	i=$((i + 1))
done
damonctl report $CTX 2>&1 | head -n 12 | while read -r l; do diag "$l"; done
F=/sys/kernel/debug/damon_perf/perf_stats
[ -r $F ] && diag "$(cat $F)"
expect_hottest "$top" 1 "$hs" "$he" /tmp/hot.json
if regions /tmp/hot.json 2 | awk '$4 > 0 { f = 1 } END { exit !f }'; then
	ok "AUX samples count in probe slot 2 (page-faults has slot 1)"
else
	not_ok "AUX samples count in probe slot 2"
fi

# Share of the AUX hits (probe slot 2) of several snapshots that land in
# regions overlapping the hot range (80% of the test PMU's records).
: > /tmp/all.tsv
i=0
while [ $i -lt 6 ]; do
	damonctl report $CTX --json > /tmp/all.json 2>&1 &&
		regions /tmp/all.json 2 >> /tmp/all.tsv
	sleep 0.5
	i=$((i + 1))
done
# shellcheck disable=SC2046 # into $1 $2 $3
set -- $(hot_share /tmp/all.tsv 4 "$hs" "$he")
if [ "$3" -gt 0 ] && [ "$1" -ge 60 ]; then
	ok "$1% of the AUX hits of 6 snapshots ($2 of $3) on the hot range"
else
	not_ok "most AUX hits on the hot range ($1%: $2 of $3)"
fi

# Offered against accounted. Paused, the PMU ends its transactions (a
# buffer-full event: a pending collision is flagged) and takes no sample;
# the context drains what they hold. Each sample offered is a record
# written or a collision flagged (stats). A record of no data address is
# counted by the parser (aux_no_addr); every other one must come out of
# the drain as a report whose outcome the test PMU counts by the record's
# kind (outcomes: "KIND written N credited N tgid N region N ..."); a
# COLLISION flag is the driver's own drop (aux_collision).
# kind KIND COLUMN: that count of the outcomes line of KIND
kind() {
	awk -v k="$1" -v c="$2" '$1 == k {
		for (i = 2; i < NF; i += 2) if ($i == c) print $(i + 1) }' \
		$TP/outcomes
}
# consumed KIND: the reports of KIND the drain consumed, whatever became
# of them
consumed() {
	awk -v k="$1" '$1 == k { for (i = 4; i < NF; i += 2) s += $(i + 1) }
		END { print s + 0 }' $TP/outcomes
}
echo 1 > $TP/paused
# until offered = accounted a second apart (every CPU's tick has seen the
# pause), or nothing changed for 3 s (a module that loses records never
# gets there), 60 s at most
i=0 last='' still=0
while [ $i -lt 120 ]; do
	# shellcheck disable=SC2046 # written W collided C truncated T pad_bytes P
	set -- $(cat $TP/stats)
	written=$2 collided=$4 truncated=$6
	no_addr=$(($(col aux_no_addr) - base_no_addr))
	colls=$(($(col aux_collision) - base_coll))
	# every report the drain consumed, whatever its kind and outcome
	reports=$(awk '{ for (i = 4; i < NF; i += 2) s += $(i + 1) }
		END { print s + 0 }' $TP/outcomes)
	offered=$((written + collided))
	accounted=$((reports + no_addr + colls))
	if [ "$offered $accounted" = "$last" ]; then
		still=$((still + 1))
	else
		still=0
	fi
	last="$offered $accounted"
	[ "$offered" -eq "$accounted" ] && [ $still -ge 2 ] && break
	[ $still -ge 6 ] && break
	sleep 0.5
	i=$((i + 1))
done
diag "test PMU: $(cat $TP/stats)"
while read -r l; do diag "outcomes: $l"; done < $TP/outcomes
diag "perf_stats: aux_record $(col aux_record) aux_no_addr $(col aux_no_addr) aux_collision $(col aux_collision) aux_truncated $(col aux_truncated) aux_partial $(col aux_partial)"
credited=$(kind hit credited)
lost=$((no_addr + reports - credited))
line="$offered offered, $accounted accounted: $credited credited, $lost lost by damon_perf ($no_addr no address, $(($(kind foreign tgid) + $(kind gone tgid))) miss_tgid, $(kind unmapped region) miss_region); $collided dropped by the driver ($colls COLLISION flags)"
if [ "$written" -gt 0 ] && [ "$offered" -eq "$accounted" ] &&
	[ "$(col aux_partial)" -eq 0 ]; then
	ok "spe: $line"
else
	not_ok "spe: $line"
fi
# per_kind KIND OUTCOME WRITTEN: every record of KIND written came out of
# the drain once, all as OUTCOME
per_kind() {
	_n=$(consumed "$1") _o=$(kind "$1" "$2")
	if [ "$3" -gt 0 ] && [ "$_n" -eq "$3" ] && [ "$_o" -eq "$3" ]; then
		ok "spe: each of the $3 $1 records $2 ($(grep "^$1 " $TP/outcomes))"
	else
		not_ok "spe: each of the $3 $1 records $2: $_n drained, $_o $2 ($(grep "^$1 " $TP/outcomes))"
	fi
}
per_kind hit credited "$(kind hit written)"
per_kind foreign tgid "$(kind foreign written)"
per_kind gone tgid "$(kind gone written)"
per_kind unmapped region "$(kind unmapped written)"
nw=$(kind no_addr written)
if [ "$nw" -gt 0 ] && [ "$no_addr" -eq "$nw" ] &&
	[ "$(consumed no_addr)" -eq 0 ]; then
	ok "spe: each of the $nw records without a data address counted aux_no_addr, none reported"
else
	not_ok "spe: records without a data address: $nw written, aux_no_addr +$no_addr, $(consumed no_addr) reported"
fi
if [ "$(consumed other)" -eq 0 ]; then
	ok "spe: no AUX report of a record the test PMU did not write"
else
	not_ok "spe: AUX reports of no record written ($(grep '^other ' $TP/outcomes))"
fi
if [ "$collided" -gt 0 ] && [ "$colls" -eq "$collided" ]; then
	ok "each collided sample a COLLISION flag ($collided)"
else
	not_ok "each collided sample a COLLISION flag ($collided collided, aux_collision +$colls)"
fi
# 2 pages hold at most 8192 / 16 records (23 bytes: the smallest one, no
# data address): more were written only if the PMU ran again after a
# TRUNCATED stop.
if [ "$truncated" -gt 0 ] && [ "$(col aux_truncated)" -gt 0 ] &&
	[ "$written" -gt $(($(nproc) * 8192 / 16)) ]; then
	ok "TRUNCATED $truncated times (aux_truncated $(col aux_truncated)), restarted: $written records"
else
	not_ok "TRUNCATED and restarted ($truncated TRUNCATED, aux_truncated $(col aux_truncated), $written records)"
fi
echo 0 > $TP/paused

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
attach_bg /tmp/attach2.out $CTX -e $EVENT --aux-pages 4 --poll-ms 100
check "re-attach after a detach" grep -q '^attached' /tmp/attach2.out
sleep 2
check "damonctl stop" damonctl stop $CTX
check "perf_stats balanced after the stop" stats_balanced
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
kill -CONT "$WORKLOAD_PID"
stop_workload
kill "$fpid" 2>/dev/null
wait "$fpid" 2>/dev/null
unload_module damon_perf_testpmu
unload_module damon_perf
finish
