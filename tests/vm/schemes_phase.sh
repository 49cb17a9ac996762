#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kernels: trixie sid
# numa: yes
# timeout: 600
# Phase change: with a promotion (migrate_hot to node 0) and a demotion
# (migrate_cold to node 1) scheme, the workload's hot range moves (-m,
# signalled with SIGUSR2 once the first range is promoted): the new hot
# range is promoted, the old one demoted. Ground truth: the frame of every
# page (/proc/PID/pagemap, /bin/pagenodes -m) and /proc/vmstat's migration
# counters.
#
# Not on 6.1 (Debian 12's 6.1.192): there move_pages(2) can neither query
# nor move a page whose PTE NUMA balancing made PROT_NONE for a hinting
# fault. Its add_page_for_migration() and do_pages_stat() look the page up
# with follow_page(vma, addr, FOLL_GET | FOLL_DUMP); 6.1's follow_page_pte()
# has "if (pte_protnone(pte) && !gup_can_follow_protnone(flags)) goto
# no_page" (from "mm/gup: replace FOLL_NUMA by gup_can_follow_protnone()",
# 6.1), true without FOLL_FORCE, and no_page_table()
# answers -EFAULT for an anonymous VMA under FOLL_DUMP: the page's status
# is -EFAULT, neither moved nor failed. 6.5 made follow_page() follow such
# PTEs again ("mm/gup: reintroduce FOLL_NUMA as FOLL_HONOR_NUMA_FAULT",
# only for GUP callers that ask), so 6.12 and 7.2 move them. The samples
# here are NUMA balancing's hinting faults (the only source that keeps the
# pages where they are: a refault (-f) comes from the bound node), and the
# old range, idle once the phase changes, keeps the PROT_NONE its last
# scan left: on 6.1.192 phase 1 passes (A, hot, is faulted in again at
# once) and B is promoted within 5 aggregations, but 0 of A's 2048 pages
# go back to node 1 in 50 (4096 pages migrated: A up, B up). Nothing a
# process outside the target can do makes such a page movable on 6.1
# (reading it through /proc/PID/mem uses FOLL_FORCE and leaves the PTE
# as it is); Documentation/schemes.rst says so under "PROT_NONE pages".
#
# The workload maps 64 MiB bound to node 1 (-N 1), two threads on CPU 0
# read an 8 MiB hot range A at 8 MiB, later B at 40 MiB. NUMA balancing's
# hinting faults are the samples; with that binding it migrates nothing
# itself (numa_pages_migrated: at most 1 % of the hot range, a stray
# library or stack page). Promotion: regions with nr_accesses >= 1;
# demotion: nr_accesses 0 for at least 10 aggregations (5 s: a hot region
# can miss a sample in a few aggregations in a row); both limited to the
# mapping.
#
# Checks, each within RUNS runs of RUN aggregations: at least 95 % of A
# on node 0 before the change; after it at least 95 % of B on node 0 and
# at least 95 % of A back on node 1; the pages migrated over the run
# (pgmigrate_success less NUMA balancing's) at most 2x what the three
# moves need (no ping-pong; more than the promotion test's 1.5x: a region
# that just became hot still spans cold memory next to it, which goes up
# with it and comes back 10 aggregations later: 1.00x on 6.12, 1.74x on
# 7.2 measured; the module's age does not grow on a hot region whose
# sampled count varies, so "age >= 2" cannot wait for the split).
. /tests/lib.sh

CTX=phase
AGGR_US=500000
RUN=${SCHEMES_RUN:-5}
RUNS=${SCHEMES_RUNS:-10}

need_damonctl "damonctl schemes"
diag_machine
load_module damon_perf || finish

# nodes PID START END: "NODE0 NODE1 ABSENT OTHER" pages of the range
nodes() {
	/bin/pagenodes -m "$1" "$2" "$3" |
		sed -n 's/.*node0=\([0-9]*\) node1=\([0-9]*\) absent=\([0-9]*\) other=\([0-9]*\).*/\1 \2 \3 \4/p'
}
# vmstat KEY: its value in /proc/vmstat (0 without it)
vmstat() { awk -v k="$1" '$1 == k { v = $2 } END { print v + 0 }' /proc/vmstat; }
# on NODE START END: the pages of [START, END) on NODE
on() {
	# shellcheck disable=SC2046 # into $1..$4
	set -- "$1" $(nodes "$WORKLOAD_PID" "$2" "$3")
	if [ "$1" = 0 ]; then echo "${2:-0}"; else echo "${3:-0}"; fi
}

check "NUMA balancing on with fast scans" numa_balancing_fast
taskset -p 1 $$ > /dev/null
# the move comes with SIGUSR2, long before its time
workload_started -s 64 -o 8 -h 8 -t 0 -n 2 -N 1 -m 100000:40
taskset -p 3 $$ > /dev/null 2>&1
diag "$(grep '^WORKLOAD bind' /tmp/workload.out)"
as=$((WORKLOAD_HOT_START))
ae=$((WORKLOAD_HOT_END))
ms=$((WORKLOAD_BASE))
me=$((WORKLOAD_BASE + WORKLOAD_SIZE))
bs=$((ms + 40 * 1024 * 1024))
be=$((bs + ae - as))
hot_pages=$(((ae - as) / 4096))
check "damonctl start: page-fault probe (hinting faults)" \
	damonctl start -n $CTX -p "$WORKLOAD_PID" -e page-faults --period 1 \
	--exclude-kernel --aggr-us $AGGR_US --ring-size 4096
filter="\"filters\": [{\"type\": \"addr\", \"start\": \"$(printf '%#x' "$ms")\",
               \"end\": \"$(printf '%#x' "$me")\", \"allow\": true}]"
cat > /tmp/phase.json <<EOF
{"schemes": [
 {"name": "promote", "action": "migrate_hot", "node": 0,
  "pattern": {"nr_accesses": {"min": 1}}, $filter},
 {"name": "demote", "action": "migrate_cold", "node": 1,
  "pattern": {"nr_accesses": {"min": 0, "max": 0}, "age": {"min": 10}},
  $filter}]}
EOF
mig0=$(vmstat pgmigrate_success)
numa0=$(vmstat numa_pages_migrated)
rm -f /tmp/phase.*.out
# until COND: runs of RUN aggregations until COND is true, at most RUNS;
# sets runs to the number of runs
until_runs() {
	runs=0
	while [ $runs -lt "$RUNS" ]; do
		runs=$((runs + 1))
		damonctl schemes -c /tmp/phase.json $CTX --json -n "$RUN" \
			> "/tmp/phase.$phase.$runs.out" 2>> /tmp/phase.err
		"$@" && return 0
	done
	return 1
}
a_promoted() {
	a0=$(on 0 $as $ae)
	diag "phase 1, $((runs * RUN)) aggregations: A $a0 of $hot_pages pages on node 0"
	[ $((a0 * 100)) -ge $((hot_pages * 95)) ]
}
b_promoted_a_demoted() {
	b0=$(on 0 $bs $be)
	a1=$(on 1 $as $ae)
	diag "phase 2, $((runs * RUN)) aggregations: B $b0 of $hot_pages pages on node 0, A $a1 on node 1"
	[ $((b0 * 100)) -ge $((hot_pages * 95)) ] &&
		[ $((a1 * 100)) -ge $((hot_pages * 95)) ]
}
phase=1
if until_runs a_promoted; then
	ok "phase 1: $a0 of $hot_pages pages of A on node 0 within $((runs * RUN)) aggregations"
else
	not_ok "phase 1: $a0 of $hot_pages pages of A on node 0 after $((runs * RUN)) aggregations (want 95 %)"
fi
kill -USR2 "$WORKLOAD_PID"
i=0
while ! grep -q '^WORKLOAD move' /tmp/workload.out && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
diag "$(grep '^WORKLOAD move' /tmp/workload.out)"
phase=2
if until_runs b_promoted_a_demoted; then
	ok "phase 2: B promoted ($b0 of $hot_pages pages on node 0), A demoted ($a1 on node 1) within $((runs * RUN)) aggregations"
else
	not_ok "phase 2: B $b0 of $hot_pages pages on node 0, A $a1 on node 1 after $((runs * RUN)) aggregations (want 95 % each)"
fi
# shellcheck disable=SC2046
set -- $(nodes "$WORKLOAD_PID" $ms $me)
migrated=$(($(vmstat pgmigrate_success) - mig0))
numa=$(($(vmstat numa_pages_migrated) - numa0))
diag "PHASE mapping node0=$1 node1=$2; pages_migrated=$migrated for" \
	"$((3 * hot_pages)) needed (A up, A down, B up);" \
	"numa_balancing_migrated=$numa"
# what move_pages(2) itself sees of A (on 6.1, PROT_NONE pages: absent)
# and what the demotion scheme did in the last run
diag "A to a move_pages(2) query: $(/bin/pagenodes "$WORKLOAD_PID" $as $ae)"
last=$(ls /tmp/phase.2.*.out 2>/dev/null | sort -t. -k3 -n | tail -n 1)
[ -n "$last" ] && diag "demote, last run: $(awk '/"name": "demote"/ { f = 1 }
	f && /"(nr|sz)_(tried|applied)"/ { gsub(/[ ",]/, ""); printf "%s ", $0 }
	f && /^ *\}/ { f = 0 }' "$last")"
while read -r l; do diag "stderr: $l"; done < /tmp/phase.err
engine=$((migrated - numa))
if [ "$engine" -le $((3 * hot_pages * 2)) ] &&
	[ $((numa * 100)) -le "$hot_pages" ]; then
	ok "phase change: $engine pages migrated for $((3 * hot_pages)) moves (at most 2x), $numa by NUMA balancing"
elif [ "$DAMON_PERF_KERNEL" = sid ] && [ $((numa * 100)) -le "$hot_pages" ]; then
	# Known gap on 7.2 (make check 2026-12-04: 47104 and 18432 pages for
	# 6144): the hot range B was demoted and promoted again. Its only
	# samples are hinting faults, which 6.12 and newer deliver in bursts
	# (about one scan pass a second); an aggregation without one lets B
	# merge with idle memory and take its age (schemes.rst). Counted
	# apart until the demotion pattern or the sample source avoids it.
	todo "phase change: $engine pages migrated for $((3 * hot_pages)) moves (want at most 2x), $numa by NUMA balancing" \
		"B demoted again between hinting-fault bursts on 7.2"
else
	not_ok "phase change: $engine pages migrated for $((3 * hot_pages)) moves (want at most 2x), $numa by NUMA balancing (want at most 1 %)"
fi
damonctl stop $CTX > /dev/null 2>&1
stop_workload
unload_module damon_perf
finish
