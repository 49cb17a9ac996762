#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# needs: test-build
# kernels: debug stock
# timeout: 240
# Hardware-shaped samples from a real NMI (x86): damon_perf_nmitest
# (tests/nmi) registers the damon_perf_nmi test PMU, damon_perf arms its
# counters through its own probe path, and a self-NMI (local APIC, NMI
# vector) fills perf_sample_data as 6.1's Intel PEBS, AMD IBS Op and an
# ARM SPE record do and calls damon_perf's overflow handler. Reading
# debugfs damon_perf_nmitest/fields runs 18 cases (each shape on vaddr and
# paddr contexts, periods from 1 to 2^40, kernel, physical-only and
# address-less samples) on every CPU and checks every field of every
# report, in_nmi() in the handler and the perf_stats deltas. handover
# raises the NMIs from a kthread (current is not the sampled task) and
# exited_fire/exited_drain drain the samples of a process that has exited,
# each record checked against its drain outcome. The debug kernel adds
# lockdep, KASAN and DEBUG_ATOMIC_SLEEP: any splat fails the run.
. /tests/lib.sh

D=/sys/kernel/debug/damon_perf_nmitest
LONGEST=/sys/kernel/debug/x86/nmi_longest_ns

if [ "$(uname -m)" != x86_64 ]; then
	skip "hardware-shaped samples" "x86 only (self-NMI)"
	finish
fi
load_module damon_perf || finish
if ! load_module damon_perf_nmitest; then
	unload_module damon_perf
	finish
fi
check "test PMU damon_perf_nmi is registered" \
	test -f /sys/bus/event_source/devices/damon_perf_nmi/type

# Under TCG a handler of a few hundred instructions can exceed the 1 ms
# after which x86 logs "NMI handler took too long" (benign, but noise).
saved=
if [ -w $LONGEST ]; then
	saved=$(cat $LONGEST)
	echo 10000000000 > $LONGEST
fi

# Twice: the second run starts from the first run's module state.
for run in 1 2; do
	out=$(cat $D/fields 2>&1)
	echo "$out" | sed "s/^/# run $run: /"
	summary=$(echo "$out" | grep '^fields:')
	diag "run $run: $summary"
	# the FAIL lines and the error count, so a failure names its case
	fails=$(echo "$out" | grep -E '^(FAIL|errors )' | head -8)
	check "run $run: every field of every report as sent, errors 0" \
		sh -c "echo \"\$1\" | grep -qx 'errors 0'" sh "$fails"
	check "run $run: all 18 cases ran" \
		sh -c "echo \"\$1\" | grep -q 'cases 18/18 '" sh "$summary"
	reports=$(echo "$summary" | sed -n 's/.* reports \([0-9]*\) .*/\1/p')
	# 14 of the 18 cases make reports, 40 per case per CPU
	want=$((14 * 40 * $(nproc)))
	check "run $run: $reports reports, want $want" \
		test "${reports:-0}" -eq "$want"
	check "run $run: the handler ran in NMI context (not_nmi 0 no_event 0)" \
		sh -c "echo \"\$1\" | grep -q 'not_nmi 0 no_event 0 '" sh "$summary"
done

# Samples handled while another task is current, and samples of a task
# that has exited (tests/nmi/nmitest.c, "handover" and "exited"): every
# record is checked against its expected outcome; each case prints
# "N offered, N accounted".
out=$(cat $D/handover 2>&1)
echo "$out" | sed "s/^/# handover: /"
fails=$(echo "$out" | grep -E '^(FAIL|errors )' | head -8)
check "handover: every record as its case wants, errors 0" \
	sh -c "echo \"\$1\" | grep -qx 'errors 0'" sh "$fails"
# 6 cases, 40 records per CPU each; 5 of them make reports
want=$((6 * 40 * $(nproc)))
check "handover: 6 cases, $want records offered, each accounted" \
	sh -c "echo \"\$1\" | grep -q '^handover: cases 6 offered $want reports $((5 * 40 * $(nproc))) ' &&
	       test \$(echo \"\$1\" | grep -c ': \\([0-9]*\\) offered, \\1 accounted:') -eq 6" sh "$out"
# exited_fire in a process that exits (cat), exited_drain after it is reaped
fire=$(cat $D/exited_fire 2>&1)
out=$(cat $D/exited_drain 2>&1)
printf '%s\n%s\n' "$fire" "$out" | sed "s/^/# exited: /"
fails=$(printf '%s\n%s\n' "$fire" "$out" | grep -E '^(FAIL|errors )' | head -8)
check "exited: every record as wanted, errors 0 (fire and drain)" \
	sh -c "test \"\$(echo \"\$1\" | grep -cx 'errors 0')\" -eq 2" sh "$fails"
n=$((40 * $(nproc)))
check "exited: before the update 40 credited, after it $((n - 40)) miss_tgid, $n offered, $n accounted" \
	sh -c "echo \"\$1\" | grep -q ' 40 reports, 40 credited\$' &&
	       echo \"\$1\" | grep -q 'regions_update -3, $((n - 40)) reports, $((n - 40)) missed\$' &&
	       echo \"\$1\" | grep -q '^exited: $n offered, $n accounted: .* match +40 miss_tgid +$((n - 40)) '" sh "$out"

# What the test consumed itself, perf_stats balances: every callback is
# classed once, every accepted report was consumed, nothing refused.
check "perf_stats: callback = sum of sample_*, enqueue = dequeue, no refusal" \
	awk '
		NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
		$1 == "total" {
			s = 0
			for (n in h)
				if (n ~ /^sample_/ && n != "sample_translated")
					s += $h[n]
			printf "callback=%d sample_*=%d enqueue=%d dequeue=%d overflow=%d busy_drop=%d translated=%d\n",
			       $h["callback"], s, $h["enqueue"], $h["dequeue"],
			       $h["overflow"], $h["busy_drop"], $h["sample_translated"]
			exit !($h["callback"] == s && $h["enqueue"] == $h["dequeue"] &&
			       $h["overflow"] == 0 && $h["busy_drop"] == 0 &&
			       $h["callback"] > 0)
		}' "$PERF_STATS"

[ -n "$saved" ] && echo "$saved" > $LONGEST
unload_module damon_perf_nmitest
unload_module damon_perf
finish
