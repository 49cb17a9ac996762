#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Probe attributes the kernel refuses, each with a message naming the field
# (at probe add) or the probe, CPU and PMU type (at start, when the perf
# core refuses to create the counter); none leaves anything armed, and the
# log stays clean.
. /tests/lib.sh

CMD_CTX_NEW=1
CMD_CTX_DEL=2
CMD_PROBE_ADD=7
CMD_START=10
A_CTX_NAME=3
A_CTX_OPS=4
A_PROBE=$((0x8000 | 9))		# nested
P_TYPE=3
P_CONFIG=4
P_SAMPLE_PERIOD=7
P_FREQ=8
P_EXCLUDE_KERNEL=14

le16() { printf '%02x%02x' $(($1 & 255)) $((($1 >> 8) & 255)); }
le32() { le16 $(($1 & 65535)); le16 $((($1 >> 16) & 65535)); }
nla_u32() { le16 8; le16 "$1"; le32 "$2"; }
# nla_u64 TYPE HIGH LOW
nla_u64() { le16 12; le16 "$1"; le32 "$3"; le32 "$2"; }
nla_flag() { le16 4; le16 "$1"; }

# probe_add CTX TYPE CONFIG PERIOD_HIGH PERIOD_LOW [freq]
probe_add() {
	_f=
	[ "${6:-}" = freq ] && _f=$(nla_flag $P_FREQ)
	damonctl debug raw --cmd $CMD_PROBE_ADD -a "$A_CTX_NAME:str:$1" \
		-a "$A_PROBE:hex:$(nla_u32 $P_TYPE "$2")$(nla_u64 $P_CONFIG 0 "$3")$(nla_u64 $P_SAMPLE_PERIOD "$4" "$5")$(nla_flag $P_EXCLUDE_KERNEL)$_f"
}
ctx_new() {
	damonctl debug raw --cmd $CMD_CTX_NEW -a "$A_CTX_NAME:str:$1" \
		-a "$A_CTX_OPS:u32:0"
}
ctx_del() { damonctl debug raw --cmd $CMD_CTX_DEL -a "$A_CTX_NAME:str:$1"; }
ctx_start() { damonctl debug raw --cmd $CMD_START -a "$A_CTX_NAME:str:$1"; }

if [ ! -x /bin/damonctl ]; then
	skip "probe attribute errors" "damonctl not in the image"
	finish
fi
load_module damon_perf || finish
sleep 600 &
SLEEPER=$!
check "context 'bad'" ctx_new bad
damonctl debug raw --cmd 5 -a "$A_CTX_NAME:str:bad" \
	-a "$((0x8000 | 7)):hex:$(nla_u32 3 $SLEEPER)" >/dev/null 2>&1 ||
	diag "target add failed (start tests below may fail for it)"

# At probe add: the field is named.
expect_err "software config that is no software event" EINVAL \
	"config 99 is not a software event" probe_add bad 1 99 0 1
expect_err "sample_period with bit 63 set" EINVAL "sample_period .* too large" \
	probe_add bad 1 2 $((0x80000000)) 0
expect_err "sample_freq above the default max sample rate" EINVAL \
	"sample_freq 200000 out of range" probe_add bad 1 2 0 200000 freq
expect_err "breakpoint probes" EOPNOTSUPP "breakpoint" probe_add bad 5 0 0 1
check "no probe was added" sh -c \
	"damonctl status bad --json | tr -d ' \n' | grep -q '\"probes\":\[\]'"

# At start: the perf core refuses, the message names probe, CPU and type.
check "a probe on an unknown PMU type is accepted at add" \
	probe_add bad 42 0 0 1
expect_err "start: unknown PMU type" ENOENT \
	"probe 1 on cpu [0-9]+: PMU type 42 no such PMU or event" ctx_start bad
check "context not running after the refused start" sh -c \
	"! damonctl status bad | grep -q running"
check "delete it" ctx_del bad

# A good probe still works after all that.
check "page-fault probe starts" damonctl start -n good -p $SLEEPER \
	-e page-faults --period 1 --exclude-kernel
check "delete it" damonctl stop good
check "perf_stats balanced after the stop" stats_balanced
kill $SLEEPER 2>/dev/null
wait $SLEEPER 2>/dev/null
unload_module damon_perf
finish
