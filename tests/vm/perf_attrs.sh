#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Probe attributes the kernel refuses, each with a message naming the field
# (at probe add) or the probe, CPU and PMU type (at start, when the perf
# core refuses to create the counter); none leaves anything armed, and the
# log stays clean.
. /tests/lib.sh

need_damonctl "probe attribute errors"
load_module damon_perf || finish
start_sleeper
check "context 'bad'" ctx_new bad
raw TARGET_ADD -a "$A_CTX_NAME:str:bad" \
	-a "$A_TARGET:nest:$(nla_u32 $TARGET_A_PID $SLEEPER)" >/dev/null 2>&1 ||
	diag "target add failed (start tests below may fail for it)"

# At probe add: the field is named.
expect_err "software config that is no software event" EINVAL \
	"config 99 is not a software event" probe_add bad 1 99 1
expect_err "sample_period with bit 63 set" EINVAL "sample_period .* out of range" \
	probe_add bad 1 2 $((1 << 63))
expect_err "sample_freq above the default max sample rate" EINVAL \
	"sample_freq 200000 out of range" probe_add bad 1 2 200000 freq
expect_err "breakpoint probes" EOPNOTSUPP "breakpoint" probe_add bad 5 0 1
check "no probe was added" sh -c \
	"damonctl status bad --json | tr -d ' \n' | grep -q '\"probes\":\[\]'"

# At start: the perf core refuses, the message names probe, CPU and type.
check "a probe on an unknown PMU type is accepted at add" \
	probe_add bad 42 0 1
expect_err "start: unknown PMU type" ENOENT \
	"probe 1 on cpu [0-9]+: PMU type 42 no such PMU or event" ctx_start bad
check "context not running after the refused start" sh -c \
	"! damonctl status bad | grep -q running"
check "delete it" ctx_del bad

# A good probe still works after all that.
check "page-fault probe starts" start_faults good $SLEEPER
check "delete it" damonctl stop good
check "perf_stats balanced after the stop" stats_balanced
stop_sleeper
unload_module damon_perf
finish
