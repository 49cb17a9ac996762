#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# arches: x86_64 arm64
# kernels: stock debug
# timeout: 600
# max_ring_kb at its bound: the report rings of all running contexts
# together stay within the module parameter. A start whose rings would
# exceed it is refused with E2BIG and a message naming the limit, the
# size asked and the memory in use, and leaves no context behind; rings
# of exactly max_ring_kb start; a stop returns their memory to the limit.
# The size checked is the one the module counts (Documentation/
# admin-guide.rst, "Module parameters"): every possible CPU's 56-byte
# entries and its 192-byte ring structure.
. /tests/lib.sh

P=/sys/module/damon_perf/parameters/max_ring_kb
D=/sys/kernel/debug/damon_perf
SIZE=4096

need_damonctl "max_ring_kb"
load_module damon_perf || finish
echo "damon_perf: ring_cap begins" > /dev/kmsg

bytes=$(ring_bytes $SIZE)
kb=$(((bytes + 1023) / 1024))
diag "rings of $SIZE entries on $(cat /sys/devices/system/cpu/possible) take $bytes bytes ($kb KiB)"

has "max_ring_kb defaults to 256 MiB" '^262144$' cat $P
no_ctx() { ! ls -d $D/ctx* > /dev/null 2>&1; }
start_sleeper

check "max_ring_kb set to 1" sh -c "echo 1 > $P"
expect_err "rings over max_ring_kb are refused, sizes named" E2BIG \
	"rings of $kb KiB over max_ring_kb 1 \(0 KiB in use\)" \
	damonctl start -n a -p "$SLEEPER" -e page-faults --period 1 \
	--ring-size $SIZE
check "the refused start leaves no context" no_ctx

check "max_ring_kb set to $((kb - 1)), 1 KiB below the rings" \
	sh -c "echo $((kb - 1)) > $P"
expect_err "rings 1 KiB over max_ring_kb are refused" E2BIG \
	"rings of $kb KiB over max_ring_kb $((kb - 1)) " \
	damonctl start -n a -p "$SLEEPER" -e page-faults --period 1 \
	--ring-size $SIZE
check "the refused start leaves no context" no_ctx

check "max_ring_kb set to $kb, the rings' size" sh -c "echo $kb > $P"
check "rings of exactly max_ring_kb start" \
	damonctl start -n a -p "$SLEEPER" -e page-faults --period 1 \
	--ring-size $SIZE
# the second context has no probe: the first owns the software PMU
check "a second context 'b' on the sleeper, no probe" ctx_new b
check "its target" raw TARGET_ADD -a "$A_CTX_NAME:str:b" \
	-a "$A_TARGET:nest:$(nla_u32 $TARGET_A_PID "$SLEEPER")"
check "its rings: 16 entries" damonctl tune b --ring-size 16
expect_err "a second context over the limit is refused, the first counted" \
	E2BIG "over max_ring_kb $kb \($kb KiB in use\)" ctx_start b
has "the first context still runs" 'running' damonctl status a
check "the second does not" sh -c "! damonctl status b | grep -q running"
check "stop and delete the first context" damonctl stop a
check "the second's rings: $SIZE entries" damonctl tune b --ring-size $SIZE
check "the first's rings' memory is free again: the second starts" \
	ctx_start b
check "stop and delete the second context" damonctl stop b
check "no context left" no_ctx
check "perf_stats balanced" stats_balanced
check "max_ring_kb back to its default" sh -c "echo 262144 > $P"
stop_sleeper

probs=$(kernel_reports_since 'damon_perf: ring_cap begins')
if [ -z "$probs" ]; then
	ok "no kernel report"
else
	diag "$probs"
	not_ok "no kernel report"
fi
unload_module damon_perf
finish
