#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# arches: x86_64
# kernels: stock
# timeout: 600
# The report rings are charged to the memory cgroup of the process that
# starts the context (cgroup v2, mounted here when the image has not):
# memory.current grows by about the rings' size when a start succeeds and
# falls back when the context is deleted; a start whose rings would take
# the cgroup over memory.max fails with ENOMEM and a message with their
# size, without the cgroup's OOM killer, and leaves no context and no
# charge behind. The debug kernel has no CONFIG_MEMCG (tinyconfig):
# tests/vm/ring_cap.sh tests the module's own limit there.
. /tests/lib.sh

CG=/sys/fs/cgroup
G=$CG/ringtest
D=/sys/kernel/debug/damon_perf
SIZE=65536

need_damonctl "ring memory charged to the memory cgroup"
if [ ! -f $CG/cgroup.controllers ]; then
	mkdir -p $CG
	check "cgroup2 mounted" mount -t cgroup2 cgroup2 $CG
fi
check "memory controller enabled" sh -c "echo +memory > $CG/cgroup.subtree_control"
check "cgroup created" mkdir -p $G
load_module damon_perf || finish
echo "damon_perf: ring_memcg begins" > /dev/kmsg

bytes=$(ring_bytes $SIZE)
ncpu=$((bytes / (SIZE * 56 + 192)))
kb=$(((bytes + 1023) / 1024))
diag "rings of $SIZE entries on $(cat /sys/devices/system/cpu/possible) take $bytes bytes ($kb KiB)"
MiB=1048576

# in_cg CMD...: run CMD as a process of the cgroup
in_cg() {
	sh -c 'echo $$ > '$G'/cgroup.procs && exec "$@"' in_cg "$@"
}
no_ctx() { ! ls -d $D/ctx* > /dev/null 2>&1; }
cur() { cat $G/memory.current; }
start_sleeper

# damonctl's own first charges (its page cache, if not cached yet) go
# before the measurement
in_cg damonctl status > /dev/null 2>&1
before=$(cur)
check "start in the cgroup with rings of $kb KiB" \
	in_cg damonctl start -n big -p "$SLEEPER" -e page-faults --period 1 \
	--ring-size $SIZE
after=$(cur)
delta=$((after - before))
diag "memory.current $before -> $after: +$delta bytes for rings of $bytes"
# per-CPU charge batching moves memory.current by up to 64 pages a CPU
expect_ge "memory.current grew by the rings' size (less 1 MiB)" \
	"$delta" $((bytes - MiB))
expect_ge "memory.current grew by no more than the rings' size (+ 3 MiB)" \
	$((bytes + 3 * MiB)) "$delta"
check "stop and delete the context" damonctl stop big
freed=$((after - $(cur)))
expect_ge "the charge went with the rings (less 1 MiB)" "$freed" \
	$((bytes - MiB))

# limit: what the cgroup holds now and half the rings
base=$(cur)
check "memory.max set to half the rings above memory.current" \
	sh -c "echo $((base + bytes / 2)) > $G/memory.max"
expect_err "a start over memory.max fails, the size named" ENOMEM \
	"rings of $kb KiB \($SIZE entries x $ncpu CPUs\): no memory or memcg limit" \
	in_cg damonctl start -n big -p "$SLEEPER" -e page-faults --period 1 \
	--ring-size $SIZE
check "the failed start leaves no context" no_ctx
left=$(($(cur) - base))
diag "memory.current after the failed start: $left bytes above before"
expect_ge "the failed start leaves no charge (less than 1 MiB)" $MiB "$left"
has "no OOM kill in the cgroup" '^oom_kill 0$' cat $G/memory.events
has "the OOM killer was not invoked" '^oom 0$' cat $G/memory.events
check "a start within the limit still succeeds" \
	in_cg damonctl start -n small -p "$SLEEPER" -e page-faults --period 1 \
	--ring-size 256
check "stop and delete it" damonctl stop small
check "no context left" no_ctx
check "perf_stats balanced" stats_balanced
stop_sleeper
echo max > $G/memory.max
rmdir $G 2>/dev/null

probs=$(kernel_reports_since 'damon_perf: ring_memcg begins')
if [ -z "$probs" ]; then
	ok "no kernel report"
else
	diag "$probs"
	not_ok "no kernel report"
fi
unload_module damon_perf
finish
