#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kernels: stock
# timeout: 600
# Sample periods of a software probe. With
# PERF_SAMPLE_PERIOD in sample_type, 6.1's perf_swevent_event() overflowed
# on every event whatever sample_period said, and rate multiplied samples by
# a period that was never applied. The page-fault probe on a workload that
# faults its hot range in again on every pass (workload -f: a steady stream
# of faults) must give about faults/N samples at period N (the faults read
# from /proc/PID/stat around the run), each region's rate must be the sum
# of its samples' periods over the aggregation, and in frequency mode
# (which the module adapts itself for software events) the probe must take
# about sample_freq samples per second from the start, and the rate must
# estimate the faults per second, not the samples per second.
. /tests/lib.sh

CTX=period
SECS=${PERF_PERIOD_SECS:-3}
need_damonctl "sample periods of a software probe"
load_module damon_perf || finish
workload_started -s 8 -o 0 -h 8 -t 0 -n 1 -w -f

# run_period N: samples and faults of SECS seconds at period N, then the
# rows "hits rate aggr_us" of the next aggregations (faults come in bursts:
# one aggregation may have none) in /tmp/period-N.tsv. Prints "SAMPLES
# FAULTS_IN_WINDOW FAULTS_AROUND".
run_period() {
	echo reset > "$PERF_STATS"
	fa=$(faults)
	workload_paused damonctl start -n $CTX -p "$WORKLOAD_PID" \
		-e page-faults --period "$1" --exclude-kernel --sample-us 10000 \
		--aggr-us 500000 > /tmp/start.out 2>&1 ||
		{ cat /tmp/start.out; echo "0 0 0"; return; }
	f0=$(faults)
	sleep "$SECS"
	f1=$(faults)
	: > /tmp/period-$1.tsv
	last=
	i=0
	while [ $i -lt 5 ]; do
		i=$((i + 1))
		damonctl report $CTX --json > /tmp/p.json 2>&1 || continue
		region_rates /tmp/p.json > /tmp/p.tsv
		seq=$(awk '$1 == "aggr" { print $3 }' /tmp/p.tsv)
		[ "$seq" != "$last" ] && awk '
			$1 == "aggr" { aggr = $2; next } { h[NR] = $3; r[NR] = $4 }
			END { for (i in h) print h[i], r[i], aggr }' /tmp/p.tsv \
			>> /tmp/period-$1.tsv
		last=$seq
		sleep 0.3
	done
	workload_paused damonctl stop $CTX > /dev/null 2>&1
	fb=$(faults)
	echo "period $1: match $(col match) miss_region $(col miss_region)" \
		"miss_tgid $(col miss_tgid) stale $(col stale)" \
		"hits in $(wc -l < /tmp/period-$1.tsv) rows:" \
		"$(awk '{ h += $1 } END { print h + 0 }' /tmp/period-$1.tsv)" \
		> /tmp/period-$1.diag
	echo "$(samples) $((f1 - f0)) $((fb - fa))"
}

# expect_period N SAMPLES IN AROUND: N x samples between 0.6 x the faults
# of the armed window and 1.4 x the faults around it (plus one period).
expect_period() {
	if awk -v n="$1" -v s="$2" -v lo="$3" -v hi="$4" 'BEGIN {
		exit !(lo >= 100 && s * n >= 0.6 * lo && s * n <= 1.4 * hi + n) }'
	then
		ok "period $1: $2 samples for $3..$4 faults (x$1 = $(($2 * $1)))"
	else
		not_ok "period $1: $2 samples for $3..$4 faults (want about faults/$1)"
	fi
}

# shellcheck disable=SC2046 # into $1 $2 $3
set -- $(run_period 10)
diag "$(cat /tmp/period-10.diag)"
expect_period 10 "$@"
# shellcheck disable=SC2046 # into $1 $2 $3
set -- $(run_period 100)
diag "$(cat /tmp/period-100.diag)"
expect_period 100 "$@"

# Every report at period N carries N: in each region of each aggregation,
# rate x aggregation = hits x N (at least one region of the two runs with
# hits: at period 100 a slow machine may leave few).
if awk '
	FILENAME ~ /-10[.]/ { n = 10 } FILENAME ~ /-100[.]/ { n = 100 }
	{ want = $1 * n * 1000000; got = $2 * $3; hits += $1 }
	# rate and aggr_us are whole numbers: each truncation costs one unit
	got < 0.99 * want - $3 - $2 || got > 1.01 * want { bad++ }
	END { exit !(hits > 0 && !bad) }' /tmp/period-10.tsv /tmp/period-100.tsv
then
	ok "periods 10 and 100: every region's rate is its hits x the period" \
		"per aggregation ($(cat /tmp/period-10.tsv /tmp/period-100.tsv |
		awk '{ h += $1 } END { print h }') hits)"
else
	diag "$(awk '$1 || $2' /tmp/period-10.tsv /tmp/period-100.tsv)"
	not_ok "periods 10 and 100: rate is hits x the period per aggregation"
fi

# Frequency mode. For a software event the module adapts each CPU's period
# itself (Documentation/probes.rst, "Frequency mode"): the perf core's own
# adaptation runs away on a dense fault stream (from period 1 to 10^5 and
# more within a few overflows) and then delivers a few samples in seconds.
# So: about sample_freq samples per second of a workload that faults far
# more often than that (at least half of them), and rate estimating
# the faults per second (the sum of the samples' periods), not the samples
# per second. Measured from the start, where the runaway happens.
FREQ=100
echo reset > "$PERF_STATS"
# the samples' periods (the damon_perf_sample tracepoint), shown per second
T=/sys/kernel/tracing
[ -d $T/events/damon_perf ] || T=/sys/kernel/debug/tracing
if [ -w $T/events/damon_perf/damon_perf_sample/enable ]; then
	# one clock for both CPUs' samples
	echo global > $T/trace_clock 2>/dev/null
	echo > $T/trace
	echo 1 > $T/events/damon_perf/damon_perf_sample/enable
fi
f0=$(faults)
t0=$(awk '{ print int($1 * 1000) }' /proc/uptime)
check "damonctl start --freq $FREQ" workload_paused damonctl start \
	-n $CTX -p "$WORKLOAD_PID" -e page-faults --freq $FREQ \
	--exclude-kernel --sample-us 10000 --aggr-us 1000000
: > /tmp/freq.tsv
last=
i=0
while [ $i -lt 14 ]; do
	sleep 0.5
	i=$((i + 1))
	damonctl report $CTX --json > /tmp/freq.json 2>&1 || continue
	region_rates /tmp/freq.json > /tmp/freq1.tsv
	seq=$(awk '$1 == "aggr" { print $3 }' /tmp/freq1.tsv)
	[ "$seq" = "$last" ] && continue
	last=$seq
	# rate, hits, aggregation (us)
	awk '$1 == "aggr" { a = $2; next } { r += $4; h += $3 }
		END { print r + 0, h + 0, a + 0 }' /tmp/freq1.tsv >> /tmp/freq.tsv
done
f1=$(faults)
t1=$(awk '{ print int($1 * 1000) }' /proc/uptime)
check "damonctl stop" workload_paused damonctl stop $CTX
fps=$(( (f1 - f0) * 1000 / (t1 - t0 + 1) ))
# shellcheck disable=SC2046 # into $1 $2 $3 $4
set -- $(awk '{ r += $1; h += $2; a += $3; n++ }
	END { if (n) printf "%d %d %d %d\n", r / n, h, n, a / 1000;
	      else print "0 0 0 0" }' /tmp/freq.tsv)
diag "freq $FREQ: $3 aggregations ($4 ms), mean rate $1/s from $2" \
	"samples; the workload faulted $fps/s"
if [ -w $T/events/damon_perf/damon_perf_sample/enable ]; then
	echo 0 > $T/events/damon_perf/damon_perf_sample/enable
	diag "freq $FREQ: per second from the first sample, samples/largest period:" \
		"$(sed -n 's/^.* \([0-9]*\.[0-9]*\): damon_perf_sample:.* period=\([0-9]*\) .*/\1 \2/p' \
		$T/trace | awk 'NR == 1 { t = int($1) } { s = int($1) - t; n[s]++
			if ($2 > m[s]) m[s] = $2; if (s > top) top = s }
		END { if (NR) for (i = 0; i <= top; i++) printf "%d/%d ", n[i], m[i] }')"
fi
# Samples: at least half of sample_freq over the aggregations' time,
# when the workload faults 4x more often than that. Rate: the kernel's
# period follows the fault rate of each measurement, so the estimate is
# looser than at a fixed period: within 3x, and far above the samples per
# second (the comparison needs faults well above sample_freq).
sps=0
[ "$4" -gt 0 ] && sps=$(($2 * 1000 / $4))
if [ "$fps" -ge $((4 * FREQ)) ] && [ "$3" -ge 3 ] &&
	[ "$(($2 * 2 * 1000))" -ge "$((FREQ * $4))" ] &&
	awk -v r="$1" -v f="$fps" -v s="$sps" 'BEGIN {
		exit !(r >= f / 3 && r <= 3 * f && (f < 1000 || r >= 5 * s)) }'
then
	ok "freq $FREQ: $sps samples/s, rate $1/s estimates the $fps faults/s"
else
	not_ok "freq $FREQ: $sps samples/s (want >= $((FREQ / 2))), rate $1/s" \
		"estimates the $fps faults/s (within 3x)"
	diag "perf_event_max_sample_rate $(cat /proc/sys/kernel/perf_event_max_sample_rate)"
	diag "$(dmesg | grep -i 'perf: interrupt took too long' | tail -n 2)"
fi

stop_workload
unload_module damon_perf
finish
