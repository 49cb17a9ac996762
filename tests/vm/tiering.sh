#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kernels: stock
# numa: tier
# timeout: 900
# Tiering on a machine with two memory tiers (scripts/vm.sh --tier: node
# 0 holds both CPUs, node 1 none and, in the ACPI HMAT, 2.5 times the
# latency and a third of the bandwidth, as CXL memory).
#
# 1. The tiers, as the kernel derives them: from 6.10 on
#    memory_tier_late_init() gives a node without CPUs the abstract
#    distance of its HMAT figures, so node 1 is in a tier of its own below
#    node 0's (/sys/devices/virtual/memory_tiering) and node 0 demotes to
#    it ("Demotion targets for Node 0"); before 6.10 every node with
#    memory is in the DRAM tier, which this checks as well.
# 2. The kernel's own tiering sees the workload (6.10 on): with
#    kernel.numa_balancing=2 and demotion enabled, a hot range that
#    starts on node 1 (workload -S 1: placed there, then unbound) is
#    promoted to node 0 by NUMA balancing alone. That is the premise of
#    make bench's tiering comparison.
# 3. damonctl schemes acting continuously: one engine process for
#    AGGRS aggregations (at least 60) promotes a hot range bound to node
#    1 (-N 1: NUMA balancing, in its mode 1 here, moves none of it), with
#    THP never and with THP always. Ground truth from the page frames
#    (pagenodes -m) and the kernel's migration counters. Checks, THP
#    never: at least 95 % of the hot pages on node 0, at most 1 % of the
#    cold pages, at most 1.1x the hot pages migrated; THP always (the
#    hot range [17, 25) MiB starts and ends inside huge pages): 95 % of
#    the hot pages in whole huge pages, at most the two straddling huge
#    pages of cold memory, 1.1x plus two huge pages migrated, no EBUSY.
. /tests/lib.sh

AGGR_US=500000
AGGRS=${TIERING_AGGRS:-60}
# part 2's bound: polls of a second until 95 % of the hot range is on
# node 0 (a hang bound, not a speed: the promotion took 6 to 20 s here)
POLLS=${TIERING_POLLS:-240}

need_damonctl "damonctl schemes"
diag_machine
load_module damon_perf || finish

# --- 1. the tiers -------------------------------------------------------
# shellcheck disable=SC2046 # into $1 $2
set -- $(uname -r | sed 's/^\([0-9]*\)\.\([0-9]*\).*/\1 \2/')
hmat_tiers=0
[ "$1" -gt 6 ] || { [ "$1" -eq 6 ] && [ "$2" -ge 10 ]; } && hmat_tiers=1
mt=/sys/devices/virtual/memory_tiering
# tier_of NODE: the memory_tierN whose nodelist ("0", "1", "0-1") holds
# NODE
tier_of() {
	for _t in "$mt"/memory_tier*; do
		[ -f "$_t/nodelist" ] || continue
		for _r in $(tr ',' ' ' < "$_t/nodelist"); do
			if [ "$1" -ge "${_r%-*}" ] && [ "$1" -le "${_r#*-}" ]; then
				echo "${_t##*/}"
				return
			fi
		done
	done
}
for t in "$mt"/memory_tier*; do
	[ -d "$t" ] && diag "${t##*/}: nodes $(cat "$t/nodelist")"
done
diag "$(dmesg | grep -a -m 2 'Demotion targets for Node' | sed 's/^\[[^]]*\] //' | tr '\n' ' ')"
t0=$(tier_of 0) t1=$(tier_of 1)
if [ $hmat_tiers = 1 ]; then
	# a tier's number is its abstract distance's chunk: lower is faster
	if [ -n "$t0" ] && [ -n "$t1" ] && [ "${t0#memory_tier}" -lt "${t1#memory_tier}" ]; then
		ok "tiers: node 0 in $t0, node 1 in $t1 below it (from the HMAT)"
	else
		not_ok "tiers: node 1 in a tier below node 0's (node 0: '$t0', node 1: '$t1')"
	fi
	if dmesg | grep -aq 'Demotion targets for Node 0: preferred: 1'; then
		ok "tiers: node 0 demotes to node 1"
	else
		not_ok "tiers: node 0 demotes to node 1 ($(dmesg | grep -a 'Demotion targets for Node 0'))"
	fi
else
	# before 6.10 no tier comes from the HMAT: one tier, both nodes
	if [ -n "$t0" ] && [ "$t0" = "$t1" ]; then
		ok "tiers: one tier ($t0) for both nodes, as $(uname -r) has no HMAT tiers"
	else
		not_ok "tiers: one tier for both nodes before 6.10 (node 0: '$t0', node 1: '$t1')"
	fi
fi

# --- 2. the kernel's own tiering: NUMA balancing mode 2 -----------------
if [ $hmat_tiers = 1 ]; then
	# fast scans, but NUMA balancing off until the mapping is on node 1
	numa_balancing_fast
	echo 0 > /proc/sys/kernel/numa_balancing
	echo 1 > /sys/kernel/mm/numa/demotion_enabled
	workload_started -s 64 -o 16 -h 8 -t 0 -n 2 -S 1
	hs=$((WORKLOAD_HOT_START)) he=$((WORKLOAD_HOT_END))
	ms=$((WORKLOAD_BASE)) me=$((WORKLOAD_BASE + WORKLOAD_SIZE))
	hot_pages=$(((he - hs) / 4096))
	# shellcheck disable=SC2046 # into $1..$4
	set -- $(nodes "$WORKLOAD_PID" $ms $me)
	if [ $((${2:-0} * 100 * 4096)) -ge $(((me - ms) * 99)) ]; then
		ok "mode 2: the mapping starts on node 1 (${2:-0} of $(((me - ms) / 4096)) pages)"
	else
		not_ok "mode 2: the mapping starts on node 1 (${2:-0} of $(((me - ms) / 4096)) pages)"
	fi
	p0=$(vmstat pgpromote_success)
	echo 2 > /proc/sys/kernel/numa_balancing
	n=0 hot0=0
	while [ $n -lt "$POLLS" ]; do
		sleep 1
		n=$((n + 1))
		# shellcheck disable=SC2046
		set -- $(nodes "$WORKLOAD_PID" $hs $he)
		hot0=${1:-0}
		[ $((n % 10)) = 0 ] && diag "mode 2: after ${n} s, $hot0 of $hot_pages hot pages on node 0"
		[ $((hot0 * 100)) -ge $((hot_pages * 95)) ] && break
	done
	# shellcheck disable=SC2046
	set -- $(nodes "$WORKLOAD_PID" $ms $hs) $(nodes "$WORKLOAD_PID" $he $me)
	diag "mode 2: after ${n} polls: hot $hot0/$hot_pages on node 0, cold" \
		"$((${1:-0} + ${5:-0})) of $(((me - ms) / 4096 - hot_pages)) on node 0," \
		"pgpromote_success +$(($(vmstat pgpromote_success) - p0))"
	if [ $((hot0 * 100)) -ge $((hot_pages * 95)) ]; then
		ok "mode 2: NUMA balancing promoted $hot0 of $hot_pages hot pages to node 0"
	else
		not_ok "mode 2: NUMA balancing promoted 95 % of the hot pages ($hot0 of $hot_pages in $n polls)"
	fi
	stop_workload
	echo 1 > /proc/sys/kernel/numa_balancing
	echo 0 > /sys/kernel/mm/numa/demotion_enabled
fi

# --- 3. damonctl schemes, one engine process, THP never and always ------
thp=/sys/kernel/mm/transparent_hugepage/enabled
hp=$(cat /sys/kernel/mm/transparent_hugepage/hpage_pmd_size 2>/dev/null)
hp=${hp:-2097152}
hp_pages=$((hp / 4096))
check "NUMA balancing on with fast scans" numa_balancing_fast
for mode in never always; do
	if [ $mode = always ] && [ ! -w $thp ]; then
		skip "THP always" "no $thp (a kernel without THP)"
		continue
	fi
	if [ $mode = always ]; then
		WORKLOAD_THP=always workload_started -H -s 64 -o 17 -h 8 -t 0 -n 2 -N 1
	else
		workload_started -s 64 -o 16 -h 8 -t 0 -n 2 -N 1
	fi
	hs=$((WORKLOAD_HOT_START)) he=$((WORKLOAD_HOT_END))
	ms=$((WORKLOAD_BASE)) me=$((WORKLOAD_BASE + WORKLOAD_SIZE))
	hot_pages=$(((he - hs) / 4096))
	cold_pages=$(((me - ms) / 4096 - hot_pages))
	huge_kb=$(anon_huge "$WORKLOAD_PID" "$ms")
	diag "THP $mode: AnonHugePages ${huge_kb:-0} kB"
	if [ $mode = always ] && [ "${huge_kb:-0}" -le 0 ]; then
		not_ok "THP $mode: the mapping is in huge pages"
	fi
	# shellcheck disable=SC2046
	set -- $(nodes "$WORKLOAD_PID" $ms $me)
	if [ $((${2:-0} * 100 * 4096)) -ge $(((me - ms) * 99)) ]; then
		ok "THP $mode: the mapping starts on node 1 ($2 of $(((me - ms) / 4096)) pages)"
	else
		not_ok "THP $mode: the mapping starts on node 1 (${2:-0} of $(((me - ms) / 4096)) pages)"
	fi
	check "THP $mode: damonctl start (hinting faults)" \
		damonctl start -n tier -p "$WORKLOAD_PID" -e page-faults --period 1 \
		--exclude-kernel --aggr-us $AGGR_US --ring-size 4096
	cat > /tmp/tier.json <<EOF
{"schemes": [{"name": "promote", "action": "migrate_hot", "node": 0,
  "pattern": {"nr_accesses": {"min": 1}},
  "filters": [{"type": "addr", "start": "$(printf '%#x' "$ms")",
               "end": "$(printf '%#x' "$me")", "allow": true}]}]}
EOF
	mig0=$(vmstat pgmigrate_success)
	numa0=$(vmstat numa_pages_migrated)
	traced=0
	migrations_traced && traced=1
	# the aggregations the engine acts on, for the diagnosis of a failure
	damonctl record -o /tmp/tier.rec -n $((AGGRS + 5)) tier \
		> /dev/null 2>&1 &
	rec=$!
	damonctl schemes -c /tmp/tier.json tier --json -n "$AGGRS" \
		> /tmp/tier.out 2> /tmp/tier.err &
	engine=$!
	t=0
	while kill -0 $engine 2>/dev/null; do
		sleep 5
		t=$((t + 5))
		# shellcheck disable=SC2046
		set -- $(nodes "$WORKLOAD_PID" $hs $he) \
			$(nodes "$WORKLOAD_PID" $ms $hs) $(nodes "$WORKLOAD_PID" $he $me)
		diag "THP $mode, after ${t} s: ${1:-0} of $hot_pages hot pages," \
			"$((${5:-0} + ${9:-0})) of $cold_pages cold pages on node 0"
	done
	wait $engine
	rc=$?
	kill $rec 2>/dev/null
	wait $rec
	# shellcheck disable=SC2046
	set -- $(nodes "$WORKLOAD_PID" $hs $he)
	hot0=${1:-0}
	# shellcheck disable=SC2046
	set -- $(nodes "$WORKLOAD_PID" $ms $hs) $(nodes "$WORKLOAD_PID" $he $me)
	cold0=$((${1:-0} + ${5:-0}))
	migrations_counted "$mig0" "$numa0" $traced
	aggrs=$(jsum aggregations /tmp/tier.out)
	ebusy=$(jsum EBUSY /tmp/tier.out)
	diag "THP $mode: aggregations=$aggrs hot_on_node0=$hot0/$hot_pages" \
		"cold_on_node0=$cold0/$cold_pages migrated=$MIG_ENGINE" \
		"numa_balancing_migrated=$MIG_NUMA ebusy=$ebusy"
	while read -r l; do diag "stderr: $l"; done < /tmp/tier.err
	if [ "$rc" = 0 ] && [ "$aggrs" -ge "$AGGRS" ]; then
		ok "THP $mode: one engine process for $aggrs aggregations"
	else
		not_ok "THP $mode: one engine process for $AGGRS aggregations (exit $rc, $aggrs applied)"
	fi
	if [ $mode = never ]; then
		hot_ok=$((hot0 * 100 >= hot_pages * 95))
		cold_max=$((cold_pages / 100))
		mig_max=$((hot_pages * 11 / 10))
		what="1 % of the cold pages"
	else
		# the hot pages in huge pages wholly inside the range: each
		# straddling one is half hot and goes where its hotness sends it
		is=$(((hs + hp - 1) / hp * hp)) ie=$((he / hp * hp))
		# shellcheck disable=SC2046
		set -- $(nodes "$WORKLOAD_PID" $is $ie)
		hot_ok=$((${1:-0} * 100 >= (ie - is) / 4096 * 95 &&
			hot0 + 2 * hp_pages >= hot_pages))
		cold_max=$((2 * hp_pages))
		mig_max=$((hot_pages * 11 / 10 + 2 * hp_pages))
		what="the two straddling huge pages"
	fi
	if [ "$hot_ok" = 1 ]; then
		ok "THP $mode: $hot0 of $hot_pages hot pages on node 0"
	else
		not_ok "THP $mode: 95 % of the hot pages on node 0 ($hot0 of $hot_pages)"
	fi
	if [ "$cold0" -le "$cold_max" ]; then
		ok "THP $mode: $cold0 of $cold_pages cold pages on node 0 (at most $what, $cold_max)"
	else
		not_ok "THP $mode: $cold0 of $cold_pages cold pages on node 0 (want at most $what, $cold_max)"
		# why: the regions and the runs of sampled pages the engine
		# acted on
		for seq in $(sed -n 's/.*"seq":\([0-9]*\).*/\1/p' /tmp/tier.rec); do
			diag "THP $mode regions $(regions_of_aggregation /tmp/tier.rec "$seq" "$ms" "$me")"
		done
		grep -o '"sampled_runs":[^]]*]]' /tmp/tier.rec | sort | uniq -c |
			while read -r l; do diag "THP $mode $l"; done
	fi
	if [ "$MIG_ENGINE" -le "$mig_max" ]; then
		ok "THP $mode: $MIG_ENGINE pages migrated for $hot_pages hot (at most $mig_max)"
	else
		not_ok "THP $mode: $MIG_ENGINE pages migrated for $hot_pages hot (want at most $mig_max)"
	fi
	if [ "$ebusy" = 0 ]; then
		ok "THP $mode: no page failed with EBUSY"
	else
		not_ok "THP $mode: $ebusy pages failed with EBUSY"
	fi
	check "THP $mode: damonctl stop" damonctl stop tier
	stop_workload
done
check "perf_stats balanced after the stops" stats_balanced
unload_module damon_perf
finish
