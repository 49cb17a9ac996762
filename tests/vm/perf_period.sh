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
# of its samples' periods over the aggregation, and in frequency mode the
# rate must estimate the faults per second, not the samples per second.
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

# Frequency mode: the kernel adapts the period; rate must estimate the
# faults per second (sum of periods), not the 100 samples per second.
echo reset > "$PERF_STATS"
# the samples' periods (the damon_perf_sample tracepoint), shown when the
# check fails
T=/sys/kernel/tracing
[ -d $T/events/damon_perf ] || T=/sys/kernel/debug/tracing
if [ -w $T/events/damon_perf/damon_perf_sample/enable ]; then
	echo > $T/trace
	echo 1 > $T/events/damon_perf/damon_perf_sample/enable
fi
check "damonctl start --freq 100" workload_paused damonctl start \
	-n $CTX -p "$WORKLOAD_PID" -e page-faults --freq 100 --exclude-kernel \
	--sample-us 10000 --aggr-us 1000000
sleep 2
f0=$(faults)
t0=$(awk '{ print int($1 * 1000) }' /proc/uptime)
: > /tmp/freq.tsv
last=
i=0
while [ $i -lt 10 ]; do
	sleep 0.5
	i=$((i + 1))
	damonctl report $CTX --json > /tmp/freq.json 2>&1 || continue
	region_rates /tmp/freq.json > /tmp/freq1.tsv
	seq=$(awk '$1 == "aggr" { print $3 }' /tmp/freq1.tsv)
	[ "$seq" = "$last" ] && continue
	last=$seq
	awk '$1 != "aggr" { r += $4; h += $3 } END { print r + 0, h + 0 }' \
		/tmp/freq1.tsv >> /tmp/freq.tsv
done
f1=$(faults)
t1=$(awk '{ print int($1 * 1000) }' /proc/uptime)
check "damonctl stop" workload_paused damonctl stop $CTX
fps=$(( (f1 - f0) * 1000 / (t1 - t0) ))
# shellcheck disable=SC2046 # into $1 $2 $3
set -- $(awk '{ r += $1; h += $2; n++ }
	END { if (n) printf "%d %d %d\n", r / n, h, n; else print "0 0 0" }' \
	/tmp/freq.tsv)
diag "freq 100: $3 aggregations, mean rate $1/s from $2 samples;" \
	"the workload faulted $fps/s"
# The kernel adapts a frequency-mode period at each tick and cuts an
# interval short when the period drops (perf_adjust_period()), so the
# estimate is looser than at a fixed period: within 3x, and far above the
# samples per second that rate counted before periods were carried.
# (1 s aggregations: samples per aggregation are samples per second; the
# comparison with them needs faults well above 100/s.)
sps=0
[ "$3" -gt 0 ] && sps=$(($2 / $3))
if [ "$fps" -ge 200 ] && [ "$3" -ge 3 ] && [ "$2" -ge 20 ] &&
	awk -v r="$1" -v f="$fps" -v s="$sps" 'BEGIN {
		exit !(r >= f / 3 && r <= 3 * f && (f < 1000 || r >= 5 * s)) }'
then
	ok "freq 100: rate $1/s estimates the $fps faults/s ($sps samples/s)"
else
	not_ok "freq 100: rate $1/s estimates the $fps faults/s" \
		"(within 3x; $sps samples/s)"
	diag "perf_event_max_sample_rate $(cat /proc/sys/kernel/perf_event_max_sample_rate)"
	diag "$(dmesg | grep -i 'perf: interrupt took too long' | tail -n 2)"
	diag "samples (uptime s, period), the 40 before and after the largest period:"
	diag "$(sed -n 's/^.* \([0-9]*\.[0-9]*\): damon_perf_sample:.* period=\([0-9]*\) .*/\1 \2/p' \
		$T/trace 2>/dev/null | awk '{ t[NR] = $1; p[NR] = $2; if ($2 > m) { m = $2; k = NR } }
		END { for (i = k - 40; i <= k + 40; i++) if (i in t) print t[i], p[i] }' | tr '\n' ' ')"
fi
if [ -w $T/events/damon_perf/damon_perf_sample/enable ]; then
	echo 0 > $T/events/damon_perf/damon_perf_sample/enable
	diag "freq 100: the samples' periods: $(sed -n 's/^.* damon_perf_sample:.* period=\([0-9]*\) .*/\1/p' \
		$T/trace | sort -n | awk '{ p[NR] = $1 } END { if (NR) printf "%d samples, min %d median %d max %d",
			NR, p[1], p[int((NR + 1) / 2)], p[NR] }')"
fi

stop_workload
unload_module damon_perf
finish
