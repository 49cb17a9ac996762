#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kernels: bookworm
# timeout: 600
# make bench, VM part: damon_perf's report path in true NMI context, on
# Debian's stock 6.1 kernel (no debug options), through damon_perf_nmitest
# (tests/nmi). Not part of make check; scripts/bench.sh boots it and
# tabulates its lines.
#   access  ns per damon_perf_report_access() in NMI (a self-NMI whose
#           handler times a batch of calls) and in process context
#           (preemption off), against a per-CPU counter increment and an
#           empty batch (the clock's own cost); min and median of
#           BENCH_NMI_ITERS batches (default 2000) of 64 calls, one ring of
#           the default size, emptied off the clock after every batch.
#   drops   a started paddr context with default attributes (ring 256,
#           sample interval 5 ms) and a producer per CPU: an hrtimer every
#           200 us sends a self-NMI whose handler queues the reports due at
#           the target rate (10 k to 1 M reports/s per CPU, 1 s a step), at
#           most the ring's high watermark (192) per NMI, with and without
#           the high-watermark wake of the kdamond. A late timer loses the
#           time beyond that: "achieved" is the rate really offered.
# Prints one line per measurement:
#   BENCH nmi access ctx=nmi|process op=OP batches=N batch=N min_ns=F median_ns=F
#   BENCH nmi access ratio ctx=... report_access/counter_inc median_x100=N min_x100=N
#   BENCH nmi drops wake=on|off rate=N achieved=N nmi_rate=N cpus=N produced=N dropped=N ...
. /tests/lib.sh

D=/sys/kernel/debug/damon_perf_nmitest
LONGEST=/sys/kernel/debug/x86/nmi_longest_ns
iters=${BENCH_NMI_ITERS:-2000}

load_module damon_perf || finish
load_module damon_perf_nmitest access_iters="$iters" || finish
saved=
if [ -w $LONGEST ]; then
	saved=$(cat $LONGEST)
	echo 10000000000 > $LONGEST
fi
for f in access drops; do
	out=$(cat $D/$f 2>&1)
	echo "$out" | grep -v '^errors ' | sed 's/^/BENCH nmi /'
	check "$f ran without errors" \
		sh -c "echo \"\$1\" | grep -qx 'errors 0'" sh "$out"
done
[ -n "$saved" ] && echo "$saved" > $LONGEST
unload_module damon_perf_nmitest
unload_module damon_perf
finish
