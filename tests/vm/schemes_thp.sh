#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kernels: bookworm
# numa: yes
# timeout: 600
# Promotion with transparent huge pages (THP always, as Debian runs it):
# damonctl schemes migrate_hot moves a hot range from node 1 to node 0
# while the mapping is in 2 MiB huge pages, with one engine process for
# the whole test (THP_AGGRS aggregations, at least 60). The hot range
# starts and ends inside huge pages (-o 17 -h 8: [17, 25) MiB of a 2 MiB
# aligned mapping), so two huge pages straddle its edges: the engine
# decides each once by its own hotness and moves it whole, never back
# and forth. Ground truth: the frame of every page (pagenodes -m) and the
# kernel's migration counters, as in schemes_promote.sh.
#
# Checks: the mapping is in huge pages (AnonHugePages of its VMA > 0,
# else nothing here is about THP) and on node 1; after the run at least
# 95 % of the hot pages in huge pages wholly inside the range on node 0
# and all hot pages but those of the straddling huge pages (each half
# hot: it goes where its region's hotness sends it); at most the two
# straddling huge pages' worth of cold pages on node 0; move_pages(2) migrated at most 1.1x the
# hot size plus two huge pages; no page failed with EBUSY (a huge page's
# tail pages are not failures).
. /tests/lib.sh

CTX=thp
AGGR_US=500000
AGGRS=${THP_AGGRS:-60}

need_damonctl "damonctl schemes"
diag_machine
load_module damon_perf || finish

thp=/sys/kernel/mm/transparent_hugepage/enabled
if [ ! -w $thp ]; then
	skip "THP always" "no $thp (a kernel without THP)"
	finish
fi
hp=$(cat /sys/kernel/mm/transparent_hugepage/hpage_pmd_size 2>/dev/null)
hp=${hp:-2097152}
hp_pages=$((hp / 4096))
check "NUMA balancing on with fast scans" numa_balancing_fast
taskset -p 1 $$ > /dev/null
WORKLOAD_THP=always workload_started -H -s 64 -o 17 -h 8 -t 0 -n 2 -N 1
taskset -p 3 $$ > /dev/null 2>&1
diag "THP $(cat $thp), huge page $hp bytes"
hs=$((WORKLOAD_HOT_START))
he=$((WORKLOAD_HOT_END))
ms=$((WORKLOAD_BASE))
me=$((WORKLOAD_BASE + WORKLOAD_SIZE))
hot_pages=$(((he - hs) / 4096))
cold_pages=$(((me - ms) / 4096 - hot_pages))

huge_kb=$(anon_huge "$WORKLOAD_PID" "$ms")
if [ "${huge_kb:-0}" -gt 0 ]; then
	ok "the mapping is in huge pages (AnonHugePages ${huge_kb} kB)"
else
	not_ok "the mapping is in huge pages (AnonHugePages ${huge_kb:-none})"
	stop_workload
	unload_module damon_perf
	finish
fi
# shellcheck disable=SC2046 # into $1..$4
set -- $(nodes "$WORKLOAD_PID" $ms $me)
if [ $((${2:-0} * 100 * 4096)) -ge $(((me - ms) * 99)) ]; then
	ok "the mapping starts on node 1 ($2 of $(((me - ms) / 4096)) pages)"
else
	not_ok "the mapping starts on node 1 ($2 of $(((me - ms) / 4096)) pages)"
fi
check "damonctl start: page-fault probe (hinting faults)" \
	damonctl start -n $CTX -p "$WORKLOAD_PID" -e page-faults --period 1 \
	--exclude-kernel --aggr-us $AGGR_US --ring-size 4096
cat > /tmp/thp.json <<EOF
{"schemes": [{"name": "promote", "action": "migrate_hot", "node": 0,
  "pattern": {"nr_accesses": {"min": 1}},
  "filters": [{"type": "addr", "start": "$(printf '%#x' "$ms")",
               "end": "$(printf '%#x' "$me")", "allow": true}]}]}
EOF
mig0=$(vmstat pgmigrate_success)
numa0=$(vmstat numa_pages_migrated)
traced=0
migrations_traced && traced=1 && aggregations_traced
# one engine process for every aggregation of the test
damonctl schemes -c /tmp/thp.json $CTX --json -n "$AGGRS" \
	> /tmp/thp.out 2> /tmp/thp.err &
engine_pid=$!
t=0
while kill -0 $engine_pid 2>/dev/null; do
	sleep 5
	t=$((t + 5))
	# shellcheck disable=SC2046
	set -- $(nodes "$WORKLOAD_PID" $hs $he) \
		$(nodes "$WORKLOAD_PID" $ms $hs) $(nodes "$WORKLOAD_PID" $he $me)
	diag "after ${t} s: ${1:-0} of $hot_pages hot pages," \
		"$((${5:-0} + ${9:-0})) of $cold_pages cold pages on node 0"
done
wait $engine_pid
rc=$?
# shellcheck disable=SC2046
set -- $(nodes "$WORKLOAD_PID" $hs $he)
hot0=${1:-0}
# the hot pages in huge pages wholly inside the range: the straddling
# ones are half hot, and each goes wherever its own hotness sends it
is=$(((hs + hp - 1) / hp * hp))
ie=$((he / hp * hp))
inner_pages=$(((ie - is) / 4096))
# shellcheck disable=SC2046
set -- $(nodes "$WORKLOAD_PID" $is $ie)
inner0=${1:-0}
# shellcheck disable=SC2046
set -- $(nodes "$WORKLOAD_PID" $ms $hs) $(nodes "$WORKLOAD_PID" $he $me)
cold0=$((${1:-0} + ${5:-0}))
migrations_counted "$mig0" "$numa0" $traced
engine=$MIG_ENGINE numa=$MIG_NUMA
applied=$(jsum sz_applied /tmp/thp.out)
aggrs=$(jsum aggregations /tmp/thp.out)
below=$(jsum nr_below_floor /tmp/thp.out)
ebusy=$(jsum EBUSY /tmp/thp.out)
huge_end=$(anon_huge "$WORKLOAD_PID" "$ms")
diag "THP aggregations=$aggrs hot_on_node0=$hot0/$hot_pages" \
	"cold_on_node0=$cold0/$cold_pages pages_migrated=$engine (x$(awk \
	-v m="$engine" -v h="$hot_pages" 'BEGIN { printf "%.2f", m / h }')" \
	"of hot) numa_balancing_migrated=$numa" \
	"sz_applied_pages=$((applied / 4096)) ebusy=$ebusy" \
	"below_floor=$below" \
	"AnonHugePages_end=${huge_end:-0}kB"
while read -r l; do diag "stderr: $l"; done < /tmp/thp.err
# the regions over the mapping (MiB from its start), the first 20
# aggregations: why what moved moved
[ "$traced" = 1 ] && aggregations_of $ms $me | head -n 20 |
	while read -r l; do diag "regions: $l"; done
if [ "$rc" = 0 ] && [ "$aggrs" -ge "$AGGRS" ]; then
	ok "one engine process for $aggrs aggregations"
else
	not_ok "one engine process for $AGGRS aggregations (exit $rc, $aggrs applied)"
fi
if [ "$inner_pages" -gt 0 ] &&
   [ $((inner0 * 100)) -ge $((inner_pages * 95)) ] &&
   [ $((hot0 + 2 * hp_pages)) -ge "$hot_pages" ]; then
	ok "thp: $inner0 of the $inner_pages hot pages in whole huge pages on node 0 ($hot0 of all $hot_pages)"
else
	not_ok "thp: 95 % of the $inner_pages hot pages in whole huge pages on node 0, and all but the straddling ones ($inner0 inner, $hot0 of all $hot_pages)"
fi
if [ "$cold0" -le $((2 * hp_pages)) ]; then
	ok "thp: $cold0 of $cold_pages cold pages on node 0 (at most the 2 straddling huge pages, $((2 * hp_pages)))"
else
	not_ok "thp: $cold0 of $cold_pages cold pages on node 0 (want at most $((2 * hp_pages)))"
fi
if [ $((engine * 10)) -le $((hot_pages * 11 + 20 * hp_pages)) ]; then
	ok "thp: $engine pages migrated for $hot_pages hot (at most 1.1x + 2 huge pages)"
else
	not_ok "thp: $engine pages migrated for $hot_pages hot (want at most 1.1x + 2 huge pages)"
fi
if [ "$ebusy" = 0 ]; then
	ok "thp: no page failed with EBUSY"
else
	not_ok "thp: $ebusy pages failed with EBUSY"
fi
damonctl stop $CTX > /dev/null 2>&1
stop_workload
unload_module damon_perf
finish
