#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kernels: stock
# numa: yes
# timeout: 600
# Promotion: damonctl schemes migrate_hot moves a hot range from node 1
# (the slow tier) to node 0 (the fast one). Ground truth: the frame of
# every page (/proc/PID/pagemap, /bin/pagenodes -m: an idle page NUMA
# balancing left PROT_NONE reads as absent to a move_pages(2) query on
# 6.1) and the kernel's migration counters (/proc/vmstat
# pgmigrate_success, numa_pages_migrated), not the tool's stats.
#
# The workload maps 64 MiB bound to node 1 (-N 1: MPOL_BIND with
# MPOL_F_NUMA_BALANCING), two threads on CPU 0 read an 8 MiB hot range.
# NUMA balancing is on with fast scans: its hinting faults are the
# page-fault probe's samples, but with that binding it migrates a page
# only for a CPU of node 1, so it moves none of the mapping here (the
# numa_misplaced migrations of the workload's threads at most 1 % of the
# hot pages: a stray library or stack page): the rest is the engine's.
# NUMA balancing migrates other processes' pages too (damonctl's and
# the shell's, the trace of a batch on 7.2 says), which
# numa_pages_migrated counts with the workload's: 22 pages, beyond the
# 1 %, failed this test in another batch on 7.2.
#
# Checks, after each run of RUN aggregations (at most RUNS runs): at least
# 95 % of the hot pages on node 0; then RUN more aggregations, and over
# the whole run at most 5 % of the cold pages on node 0 and at most 1.5x
# the hot pages migrated by move_pages(2) (no ping-pong). The migrations
# are counted by reason and task (the migrate:mm_migrate_pages
# tracepoint, which fires in the task that migrates), where the kernel
# has it: pgmigrate_success also counts compaction's and any other
# migration of the machine; without the tracepoint, pgmigrate_success
# less numa_pages_migrated, and numa_pages_migrated.
. /tests/lib.sh

CTX=promote
AGGR_US=500000
RUN=${SCHEMES_RUN:-5}
RUNS=${SCHEMES_RUNS:-10}

need_damonctl "damonctl schemes"
diag_machine
load_module damon_perf || finish


check "NUMA balancing on with fast scans" numa_balancing_fast
taskset -p 1 $$ > /dev/null
workload_started -s 64 -o 16 -h 8 -t 0 -n 2 -N 1
taskset -p 3 $$ > /dev/null 2>&1
diag "$(grep '^WORKLOAD bind' /tmp/workload.out)"
hs=$((WORKLOAD_HOT_START))
he=$((WORKLOAD_HOT_END))
ms=$((WORKLOAD_BASE))
me=$((WORKLOAD_BASE + WORKLOAD_SIZE))
hot_pages=$(((he - hs) / 4096))
cold_pages=$(((me - ms) / 4096 - hot_pages))
# shellcheck disable=SC2046 # into $1..$4
set -- $(nodes "$WORKLOAD_PID" $ms $me)
diag "before: node0=$1 node1=$2 absent=$3 other=$4 pages of the mapping"
if [ $((${2:-0} * 100 * 4096)) -ge $(((me - ms) * 99)) ]; then
	ok "the mapping starts on node 1 ($2 of $(((me - ms) / 4096)) pages)"
else
	not_ok "the mapping starts on node 1 ($2 of $(((me - ms) / 4096)) pages)"
fi
check "damonctl start: page-fault probe (hinting faults)" \
	damonctl start -n $CTX -p "$WORKLOAD_PID" -e page-faults --period 1 \
	--exclude-kernel --aggr-us $AGGR_US --ring-size 4096
cat > /tmp/promote.json <<EOF
{"schemes": [{"name": "promote", "action": "migrate_hot", "node": 0,
  "pattern": {"nr_accesses": {"min": 1}},
  "filters": [{"type": "addr", "start": "$(printf '%#x' "$ms")",
               "end": "$(printf '%#x' "$me")", "allow": true}]}]}
EOF
mig0=$(vmstat pgmigrate_success)
numa0=$(vmstat numa_pages_migrated)
traced=0
migrations_traced && traced=1
rm -f /tmp/promote.*.out
run=0 hot0=0
while [ $run -lt "$RUNS" ]; do
	run=$((run + 1))
	damonctl schemes -c /tmp/promote.json $CTX --json -n "$RUN" \
		> /tmp/promote.$run.out 2> /tmp/promote.err
	# shellcheck disable=SC2046
	set -- $(nodes "$WORKLOAD_PID" $hs $he)
	hot0=${1:-0}
	diag "after $((run * RUN)) aggregations: $hot0 of $hot_pages hot pages on node 0"
	[ $((hot0 * 100)) -ge $((hot_pages * 95)) ] && break
done
reached=$((run * RUN))
# the steady state: no page should move back and forth
damonctl schemes -c /tmp/promote.json $CTX --json -n "$RUN" \
	> /tmp/promote.steady.out 2>> /tmp/promote.err
# shellcheck disable=SC2046
set -- $(nodes "$WORKLOAD_PID" $hs $he)
hot0_end=${1:-0}
# shellcheck disable=SC2046
set -- $(nodes "$WORKLOAD_PID" $ms $hs) $(nodes "$WORKLOAD_PID" $he $me)
cold0=$((${1:-0} + ${5:-0}))
migrations_counted "$mig0" "$numa0" $traced
migrated=$MIG_ALL numa=$MIG_NUMA engine=$MIG_ENGINE
applied=$(jsum sz_applied /tmp/promote.*.out)
diag "PROMOTE aggregations=$((reached + RUN)) hot_on_node0=$hot0_end/$hot_pages" \
	"reached_95pct_at=$reached cold_on_node0=$cold0/$cold_pages" \
	"pages_migrated=$migrated engine=$engine (x$(awk -v m="$engine" -v h="$hot_pages" \
	'BEGIN { printf "%.2f", m / h }') of hot) numa_balancing_migrated=$numa" \
	"sz_applied_pages=$((applied / 4096))"
while read -r l; do diag "stderr: $l"; done < /tmp/promote.err
if [ $((hot0 * 100)) -ge $((hot_pages * 95)) ]; then
	ok "promotion: $hot0 of $hot_pages hot pages on node 0 within $reached aggregations"
else
	not_ok "promotion: $hot0 of $hot_pages hot pages on node 0 after $reached aggregations (want 95 %)"
fi
if [ $((hot0_end * 100)) -ge $((hot_pages * 95)) ]; then
	ok "promotion: the hot range stays on node 0 ($hot0_end of $hot_pages pages)"
else
	not_ok "promotion: the hot range stays on node 0 ($hot0_end of $hot_pages pages)"
fi
if [ $((cold0 * 100)) -le $((cold_pages * 5)) ]; then
	ok "promotion: $cold0 of $cold_pages cold pages moved to node 0 (at most 5 %)"
else
	not_ok "promotion: $cold0 of $cold_pages cold pages moved to node 0 (want at most 5 %)"
fi
if [ $((engine * 2)) -le $((hot_pages * 3)) ]; then
	ok "promotion: $engine pages migrated for $hot_pages hot (at most 1.5x)"
else
	not_ok "promotion: $engine pages migrated for $hot_pages hot (want at most 1.5x)"
fi
if [ $((numa * 100)) -le "$hot_pages" ] &&
	[ $((applied / 4096)) -le "$engine" ]; then
	ok "promotion: the engine's migrations ($numa by NUMA balancing, sz_applied $((applied / 4096)) of $engine pages)"
else
	not_ok "promotion: NUMA balancing migrated $numa pages (want at most 1 % of the hot ones), sz_applied $((applied / 4096)) pages of $engine migrated"
fi
damonctl stop $CTX > /dev/null 2>&1
stop_workload
unload_module damon_perf
finish
