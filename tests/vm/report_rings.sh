#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# numa: yes
# timeout: 600
# The report path with real samples: page-fault samples (NUMA hinting
# faults of a workload) through a context whose rings hold only 16 reports,
# so bursts cross the high watermark. Checks debugfs ctx<id>/rings while it
# runs (size, early wakes, enqueue/dequeue bounds), perf_stats once it is
# stopped (every callback classified once, a CPU RUNNING), and that the
# rings file follows the context's stop (header only) and deletion (gone).
# Formats: Documentation/perf_stats.rst.
. /tests/lib.sh

CTX=rings
RING=16
WAIT=${REPORT_RINGS_WAIT:-10}
D=/sys/kernel/debug/damon_perf
F=$D/perf_stats

need_damonctl "report rings with page-fault samples"
check "NUMA balancing on with fast scans" numa_balancing_fast
load_module damon_perf || finish
workload_started -s 32 -o 8 -h 4 -t 0 -n 2

check "damonctl start with $RING-entry rings" \
	damonctl start -n $CTX -p "$WORKLOAD_PID" -e page-faults --period 1 \
	--exclude-kernel --ring-size $RING --sample-us 100000 \
	--aggr-us 1000000
dir=$(ls -d $D/ctx* 2>/dev/null | head -n 1)
R=$dir/rings
check "ctx rings file exists" test -r "$R"
sleep "$WAIT"
snap=/tmp/rings.txt
cat "$R" > $snap
diag "$(cat $snap)"

check "rings table: header, one row per possible CPU, total" awk -v n="$(
	ls -d /sys/devices/system/cpu/cpu[0-9]* | wc -l)" '
	NR == 1 { if ($1 != "cpu" || $2 != "size") exit 1; f = NF; next }
	NF != f { exit 1 }
	{ rows++; last = $1 }
	END { exit !(rows == n + 1 && last == "total") }' $snap
check "every ring has $RING entries" awk -v s=$RING '
	NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
	$h["size"] != s { exit 1 }' $snap
check "no ring holds more than its size, none dequeued more than queued" awk '
	NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
	$1 == "total" { next }
	$h["occupancy"] > $h["size"] || $h["dequeue"] > $h["enqueue"] ||
	$h["peak"] > $h["size"] { exit 1 }' $snap
renq=$(col enqueue total $snap)
rdeq=$(col dequeue total $snap)
expect_ge "reports queued in the context's rings" "$renq" 1
expect_ge "reports drained by the kdamond" "$rdeq" 1
expect_ge "high watermark woke the kdamond early" "$(col early_wake total $snap)" 1
diag "ring overflow $(col overflow total $snap) busy_drop $(col busy_drop total $snap)"

check "damonctl stop --keep" damonctl stop --keep $CTX
check "perf_stats balanced after the stop" stats_balanced
check "stopped context: rings file holds only the header" \
	sh -c "test \$(wc -l < $R) -eq 1"
stop_workload

diag "$(cat $F)"
cb=$(col callback total $F)
sum=$(awk '
	NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
	$1 == "total" { print $h["sample_valid"] + $h["sample_null"] +
		$h["sample_addr_zero"] + $h["sample_kernel"] +
		$h["sample_invalid_phys"] + $h["sample_no_phys"] +
		$h["sample_untranslated"] + $h["sample_phys_only"] +
		$h["sample_teardown"] }' $F)
if [ -n "$cb" ] && [ "$cb" -gt 0 ] && [ "$cb" = "$sum" ]; then
	ok "every callback classified once ($cb)"
else
	not_ok "every callback classified once (callback '$cb', classes '$sum')"
fi
# Each valid sample is offered to a ring once, and every offer is counted
# once (a sample racing the stop may be dropped before the offer).
offers=$(awk '
	NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
	$1 == "total" { print $h["enqueue"] + $h["overflow"] + $h["busy_drop"] +
		$h["no_probe"] + $h["no_ring"] }' $F)
expect_ge "valid samples cover every counted ring offer" \
	"$(col sample_valid total $F)" "$offers"
expect_ge "ring offers counted" "$offers" 1
expect_ge "perf_stats counts at least the context's enqueues" \
	"$(col enqueue total $F)" "$renq"
if awk '$2 == "RUNNING" && $1 != "total" { f = 1 } END { exit !f }' $F; then
	ok "a CPU reached RUNNING"
else
	not_ok "a CPU reached RUNNING"
fi

check "damonctl stop (delete)" damonctl stop $CTX
check_fail "deleted context: rings file gone" test -e "$R"
unload_module damon_perf
finish
