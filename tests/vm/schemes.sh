#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# flavours: test prod
# kernels: debug stock
# numa: yes
# timeout: 900
# damonctl schemes on real aggregations, with the ground truth of
# move_pages(2) queries of every page (/bin/pagenodes).
#
# migrate_cold: the workload (64 MiB, a 4 MiB hot range faulted in again
# on every pass, -f) runs on CPU 0, so every page starts on node 0 and the
# hot range stays there. A scheme moves idle regions (nr_accesses 0, age
# >= 3) of the mapping to node 1: at least 95 % of the cold pages reach
# node 1 within a bounded number of aggregations, at most 5 % of the hot
# pages sit there, and the scheme's sz_applied is at least the bytes found
# moved and at most that plus the hot range (a hot page moved and dropped
# by the next pass).
#
# pageout: with swap (a loop device on a tmpfs file; where the kernel has
# no swap or no loop module the three checks are skipped), a scheme pages
# out idle regions (nr_accesses 0, age >= 5) of the mapping. The samples
# are the workload's own refaults (-f: the hot range dropped after every
# pass, so that each touch of the next is a page fault; -w: written, so
# that each is a page of its own, which a pageout writes to swap, not the
# shared zero page), NUMA balancing off: a steady stream on every kernel.
# (NUMA balancing's hinting faults come one per page per scan pass; on
# 6.12 a pass came about once a second, so a 1 s aggregation now and then
# held none on the hot range, which then merged with the idle 32 MiB
# below it and took its age, size weighted, 4 to 10: old enough for the
# scheme; Documentation/schemes.rst.) Ground truth: the cold pages are
# never touched again, so a cold page without a frame (/bin/pagenodes
# absent) was paged out; at least 90 % of them are; the pages written to
# swap (pswpout) beyond those, hot pages paged out, are at most 5 % of the
# hot range; sz_applied covers every page written to swap; nothing fails.
. /tests/lib.sh

CTX=schemes
AGGR_US=200000
# Each run of damonctl schemes takes RUN aggregations, at most RUNS runs.
RUN=${SCHEMES_RUN:-10}
RUNS=${SCHEMES_RUNS:-8}

need_damonctl "damonctl schemes"
diag_machine
load_module damon_perf || finish



# failed_sum FILE...: the pages of every failed_pages entry
failed_sum() {
	cat "$@" | awk '/"failed_pages"/ { f = 1; if ($0 ~ /\{\}/) f = 0; next }
		f && /\}/ { f = 0; next }
		f { gsub(/[^0-9]/, "", $2); s += $2 }
		END { print s + 0 }'
}

# scheme_file FILE ACTION EXTRA AGE: idle regions of the mapping, at
# least AGE aggregations old
scheme_file() {
	cat > "$1" <<EOF
{"schemes": [{"name": "idle", "action": "$2"$3,
  "pattern": {"nr_accesses": {"min": 0, "max": 0}, "age": {"min": $4}},
  "filters": [{"type": "addr", "start": "$(printf '%#x' "$ms")",
               "end": "$(printf '%#x' "$me")", "allow": true}]}]}
EOF
}

# --- migrate_cold ---
echo 0 > /proc/sys/kernel/numa_balancing
taskset -p 1 $$ > /dev/null
workload_started -s 64 -o 16 -h 4 -t 0 -n 2 -f
taskset -p 3 $$ > /dev/null 2>&1
hs=$((WORKLOAD_HOT_START))
he=$((WORKLOAD_HOT_END))
ms=$((WORKLOAD_BASE))
me=$((WORKLOAD_BASE + WORKLOAD_SIZE))
cold_pages=$(((me - ms - (he - hs)) / 4096))
hot_pages=$(((he - hs) / 4096))
# shellcheck disable=SC2046 # into $1..$4
set -- $(nodes "$WORKLOAD_PID" $ms $me)
n1_before=${2:-0}
diag "before: node0=$1 node1=$2 absent=$3 other=$4 pages of the mapping"
check "damonctl start: page-fault probe on the workload" \
	damonctl start -n $CTX -p "$WORKLOAD_PID" -e page-faults --period 1 \
	--exclude-kernel --aggr-us $AGGR_US --ring-size 4096
scheme_file /tmp/cold.json migrate_cold ', "node": 1' 3
rm -f /tmp/cold.*.out
run=0 moved=0
while [ $run -lt "$RUNS" ]; do
	run=$((run + 1))
	damonctl schemes -c /tmp/cold.json $CTX --json -n "$RUN" \
		> /tmp/cold.$run.out 2> /tmp/cold.err
	# shellcheck disable=SC2046
	set -- $(nodes "$WORKLOAD_PID" $ms $hs) $(nodes "$WORKLOAD_PID" $he $me)
	moved=$(($2 + $6))
	[ $((moved * 100)) -ge $((cold_pages * 95)) ] && break
done
# shellcheck disable=SC2046
set -- $(nodes "$WORKLOAD_PID" $hs $he)
hot_n1=${2:-0}
# shellcheck disable=SC2046
set -- $(nodes "$WORKLOAD_PID" $ms $me)
found=$((${2:-0} - n1_before))
applied=$(jsum sz_applied /tmp/cold.*.out)
tried=$(jsum sz_tried /tmp/cold.*.out)
failed=$(failed_sum /tmp/cold.*.out)
diag "after $((run * RUN)) aggregations: $moved of $cold_pages cold pages on" \
	"node 1, $hot_n1 of $hot_pages hot pages; sz_tried=$tried" \
	"sz_applied=$applied ($((applied / 4096)) pages), found moved" \
	"$found pages, failed $failed pages"
while read -r l; do diag "stderr: $l"; done < /tmp/cold.err
if [ $((moved * 100)) -ge $((cold_pages * 95)) ]; then
	ok "migrate_cold: $moved of $cold_pages cold pages on node 1 within $((run * RUN)) aggregations"
else
	not_ok "migrate_cold: $moved of $cold_pages cold pages on node 1 (want 95 %)"
fi
if [ $((hot_n1 * 100)) -le $((hot_pages * 5)) ]; then
	ok "migrate_cold: $hot_n1 of $hot_pages hot pages on node 1 (at most 5 %)"
else
	not_ok "migrate_cold: $hot_n1 of $hot_pages hot pages on node 1 (want at most 5 %)"
fi
if [ "$applied" -ge $((found * 4096)) ] &&
	[ "$applied" -le $((found * 4096 + he - hs)) ] &&
	[ "$applied" -le "$tried" ] && [ "$failed" -eq 0 ]; then
	ok "migrate_cold: sz_applied $applied matches the $found pages found moved"
else
	not_ok "migrate_cold: sz_applied $applied vs $found pages found moved" \
		"(sz_tried $tried, failed $failed)"
fi
damonctl stop $CTX > /dev/null 2>&1
stop_workload

# --- pageout ---
# setup_swap: a 128 MiB swap device, or a reason on stdout
setup_swap() {
	[ -e /proc/swaps ] || { echo "no swap in this kernel"; return 1; }
	[ -f /lib/damon_perf/extra/loop.ko ] ||
		{ echo "no loop module for this kernel"; return 1; }
	insmod /lib/damon_perf/extra/loop.ko 2>/dev/null
	[ -b /dev/loop0 ] || mknod /dev/loop0 b 7 0 2>/dev/null
	dd if=/dev/zero of=/tmp/swapfile bs=1M count=128 2>/dev/null &&
		losetup /dev/loop0 /tmp/swapfile &&
		mkswap /dev/loop0 > /dev/null &&
		swapon /dev/loop0 ||
		{ echo "swap on /dev/loop0 failed"; return 1; }
}
# cold_absent PID: pages without a frame in the mapping's cold ranges
cold_absent() {
	# shellcheck disable=SC2046 # into $1..$8
	set -- $(nodes "$1" $ms $hs) $(nodes "$1" $he $me)
	echo $((${3:-0} + ${7:-0}))
}

if why=$(setup_swap); then
	echo 0 > /proc/sys/kernel/numa_balancing
	workload_started -s 64 -o 16 -h 4 -t 0 -n 2 -f -w
	hs=$((WORKLOAD_HOT_START))
	he=$((WORKLOAD_HOT_END))
	ms=$((WORKLOAD_BASE))
	me=$((WORKLOAD_BASE + WORKLOAD_SIZE))
	cold_pages=$(((me - ms - (he - hs)) / 4096))
	hot_pages=$(((he - hs) / 4096))
	absent0=$(cold_absent "$WORKLOAD_PID")
	swpout0=$(vmstat pswpout)
	swpin0=$(vmstat pswpin)
	check "damonctl start: page-fault probe (the workload's refaults)" \
		damonctl start -n $CTX -p "$WORKLOAD_PID" -e page-faults \
		--period 1 --exclude-kernel --aggr-us 1000000 --ring-size 4096
	scheme_file /tmp/out.json pageout '' 5
	rm -f /tmp/out.*.out
	run=0 out=0
	while [ $run -lt "$RUNS" ]; do
		run=$((run + 1))
		damonctl schemes -c /tmp/out.json $CTX --json -n "$RUN" \
			> /tmp/out.$run.out 2> /tmp/out.err
		out=$(($(cold_absent "$WORKLOAD_PID") - absent0))
		[ $((out * 100)) -ge $((cold_pages * 90)) ] && break
	done
	# pages written to swap: the cold ones paged out and any hot one
	swpout=$(($(vmstat pswpout) - swpout0))
	hot_out=$((swpout - out))
	swpin=$(($(vmstat pswpin) - swpin0))
	applied=$(jsum sz_applied /tmp/out.*.out)
	failed=$(failed_sum /tmp/out.*.out)
	diag "pageout: after $((run * RUN)) aggregations $out of $cold_pages" \
		"cold pages paged out ($absent0 absent before), $swpout pages" \
		"written to swap, $swpin swapped in, sz_applied $applied," \
		"failed $failed pages, $(awk '/^SwapFree:/ { print $2 }' /proc/meminfo) KiB swap free"
	while read -r l; do diag "stderr: $l"; done < /tmp/out.err
	if [ $((out * 100)) -ge $((cold_pages * 90)) ]; then
		ok "pageout: $out of $cold_pages cold pages paged out within $((run * RUN)) aggregations"
	else
		not_ok "pageout: $out of $cold_pages cold pages paged out (want 90 %)"
	fi
	if [ $((hot_out * 100)) -le $((hot_pages * 5)) ]; then
		ok "pageout: the hot range stayed resident ($hot_out of $hot_pages hot pages paged out)"
	else
		not_ok "pageout: the hot range stayed resident ($hot_out of $hot_pages hot pages paged out: $swpout written to swap, $out cold; want at most 5 %)"
	fi
	if [ "$applied" -ge $((swpout * 4096)) ] && [ "$failed" -eq 0 ]; then
		ok "pageout: sz_applied $applied covers the $((swpout * 4096)) bytes written to swap, no failure"
	else
		not_ok "pageout: sz_applied $applied vs $((swpout * 4096)) bytes written to swap, $failed pages failed"
	fi
	damonctl stop $CTX > /dev/null 2>&1
	stop_workload
	swapoff /dev/loop0 2>/dev/null
	# the next script in the batch starts without this one's 128 MiB
	losetup -d /dev/loop0 2>/dev/null
	rm -f /tmp/swapfile
else
	skip "pageout: cold pages paged out" "$why"
	skip "pageout: the hot range stayed resident" "$why"
	skip "pageout: sz_applied covers the bytes written to swap" "$why"
fi
unload_module damon_perf
finish
