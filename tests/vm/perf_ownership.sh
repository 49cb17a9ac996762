#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Per-PMU ownership and the probe limit: a second context asking for a PMU
# type another context owns gets EBUSY with a message naming the owner; a
# context may use a distinct PMU meanwhile; ownership follows the probes
# (released with the last one); a context holds at most 3 probes and the
# 4th gets ENOSPC.
. /tests/lib.sh

# Raw requests (include/uapi/linux/damon_perf.h) for what damonctl's
# commands do not expose on purpose: adding one probe to an existing
# context.
CMD_CTX_NEW=1
CMD_CTX_DEL=2
CMD_PROBE_ADD=7
A_CTX_NAME=3
A_CTX_OPS=4
A_PROBE=$((0x8000 | 9))		# nested
P_TYPE=3
P_CONFIG=4
P_SAMPLE_PERIOD=7
P_EXCLUDE_KERNEL=14

le16() { printf '%02x%02x' $(($1 & 255)) $((($1 >> 8) & 255)); }
le32() { le16 $(($1 & 65535)); le16 $((($1 >> 16) & 65535)); }
nla_u32() { le16 8; le16 "$1"; le32 "$2"; }
nla_u64() { le16 12; le16 "$1"; le32 "$2"; le32 0; }
nla_flag() { le16 4; le16 "$1"; }

# probe_add CTX TYPE CONFIG: one probe, period 1, user mode only.
probe_add() {
	damonctl debug raw --cmd $CMD_PROBE_ADD -a "$A_CTX_NAME:str:$1" \
		-a "$A_PROBE:hex:$(nla_u32 $P_TYPE "$2")$(nla_u64 $P_CONFIG "$3")$(nla_u64 $P_SAMPLE_PERIOD 1)$(nla_flag $P_EXCLUDE_KERNEL)"
}
ctx_new() {
	damonctl debug raw --cmd $CMD_CTX_NEW -a "$A_CTX_NAME:str:$1" \
		-a "$A_CTX_OPS:u32:0"
}
ctx_del() {
	damonctl debug raw --cmd $CMD_CTX_DEL -a "$A_CTX_NAME:str:$1"
}

if [ ! -x /bin/damonctl ]; then
	skip "PMU ownership" "damonctl not in the image"
	finish
fi
load_module damon_perf || finish
sleep 600 &
SLEEPER=$!

check "owner: context 'own1' with a page-fault probe" \
	damonctl start -n own1 -p $SLEEPER -e page-faults --period 1 \
	--exclude-kernel
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
check "own2 may start on PMU type 1 now" \
	damonctl start -n own2 -p $SLEEPER -e page-faults --period 1 \
	--exclude-kernel
check "delete own2" damonctl stop own2
check "perf_stats balanced after the stop" stats_balanced
kill $SLEEPER 2>/dev/null
wait $SLEEPER 2>/dev/null
unload_module damon_perf
finish
