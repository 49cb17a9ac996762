#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# needs: test-build
# kernels: bookworm
# timeout: 120
# One recorded report stream, credited per sample interval and per pass.
# damon_perf_replay (tests/replay) records the reports of a live context
# as the kdamond drains them (drain.c's test hook): each with its CPU,
# timestamp, address, period and probe, the pass that drained it (first
# interval, length, start, stale bound), the pass's regions and its
# aggregation. The workload is kdamond_passes.sh's (a steady stream of
# page faults, here one in 128 sampled; 5 ms sample intervals, 100 ms
# aggregations), monitored until REPLAY_REPORTS reports (4000) over 12
# aggregations at least are in. The stream goes out as text and back in
# (REPLAY_DUMP=1 on the kernel command line prints it;
# tests/replay/mkheader.sh turns it into KUnit's tests/kunit/replay_stream.h)
# and is replayed through the module's drain and regions both ways, in
# presence and count mode: a drain per sample interval, each taking the
# pass's reports of its interval (late ones, taken before the pass began,
# in the first, straddling ones, taken after it ended, in the last), and
# a drain per pass crediting each report to the interval of its
# timestamp.
#
# Checks: every region's nr_accesses, events and probe hits and the
# samples kept for the split equal both ways in both modes (digests
# equal, no mismatch); every report credited both ways as many times as
# the live kdamond did (perf_stats match), none lost to the recorder; and
# the stream is not trivial: those reports and aggregations, regions
# counted in more than one interval, late or straddling reports.
. /tests/lib.sh

CTX=replay
WANT=${REPLAY_REPORTS:-4000}
AGGRS=12
# one fault in PERIOD sampled: tens of samples per aggregation here
PERIOD=128
D=/sys/kernel/debug/damon_perf_replay

need_damonctl "kdamond replay"
load_module damon_perf || finish
load_module damon_perf_replay || finish
workload_started -s 64 -o 16 -h 4 -t 0 -n 2 -f

# field NAME FILE: the value after NAME on the first line of FILE that has it
field() {
	awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) { print $(i + 1); exit } }' "$2"
}

echo reset > "$PERF_STATS"
check "recorder started" sh -c "echo start $((WANT * 2)) > $D/record"
check "damonctl start" damonctl start -n $CTX -p "$WORKLOAD_PID" \
	-e page-faults --period $PERIOD --exclude-kernel \
	--sample-us 5000 --aggr-us 100000 --ring-size 4096
n=0
while { [ "$(field reports $D/record)" -lt "$WANT" ] ||
	[ "$(field aggregations $D/record)" -lt $AGGRS ]; } && [ $n -lt 600 ]; do
	n=$((n + 1))
	sleep 0.1
done
damonctl stop $CTX > /dev/null 2>&1
echo stop > $D/record
cat $D/record > /tmp/rec
diag "recorded: $(cat /tmp/rec)"
live_match=$(col match)
live_stale=$(col stale)
live_dequeue=$(col dequeue)
stop_workload
reports=$(field reports /tmp/rec)
if [ "$(field lost /tmp/rec)" = 0 ] && [ "$(field other /tmp/rec)" = 0 ] &&
	[ "$reports" = "$live_dequeue" ]; then
	ok "every drained report recorded ($reports of $live_dequeue)"
else
	not_ok "every drained report recorded: $(cat /tmp/rec), dequeue $live_dequeue"
fi

cat $D/stream > /tmp/s1
if [ -n "${REPLAY_DUMP:-}" ]; then
	echo "replay-stream-begin"
	cat /tmp/s1
	echo "replay-stream-end $live_match"
fi
cat /tmp/s1 > $D/stream
cat $D/stream > /tmp/s2
check "the stream reads back as written ($(wc -l < /tmp/s1) lines)" \
	cmp -s /tmp/s1 /tmp/s2

if ! cat $D/run > /tmp/run; then
	not_ok "replay ran"
	finish
fi
while read -r l; do diag "$l"; done < /tmp/run
for mode in presence count; do
	grep "^$mode " /tmp/run > /tmp/m
	# shellcheck disable=SC2046 # credited, stale, digest: two ways each
	set -- $(awk '{ for (i = 1; i < NF; i++) if ($i == "credited" || $i == "stale" || $i == "digest") print $(i + 1), $(i + 2) }' /tmp/m)
	ci=${1:-x} cp=${2:-y} si=${3:-x} sp=${4:-y} di=${5:-x} dp=${6:-y}
	mm=$(field mismatches /tmp/m)
	if [ "$mm" = 0 ] && [ "$di" = "$dp" ]; then
		ok "$mode: both ways give the same regions and samples (digest $di)"
	else
		not_ok "$mode: $mm mismatches, digests $di $dp: $(grep '^first' /tmp/run)"
	fi
	if [ "$ci" = "$cp" ] && [ "$si" = "$sp" ] &&
		[ "$cp" = "$live_match" ] && [ "$sp" = "$live_stale" ]; then
		ok "$mode: $cp reports credited and $sp stale both ways, as live"
	else
		not_ok "$mode: credited $ci/$cp, stale $si/$sp both ways; live $live_match, $live_stale"
	fi
done
grep '^presence ' /tmp/run > /tmp/m
aggrs=$(field aggregations /tmp/m)
multi=$(field multi /tmp/m)
late=$(($(field late_first /tmp/m) + $(field late /tmp/m) + $(field straddling /tmp/m)))
if [ "$(field reports /tmp/m)" -ge "$WANT" ] && [ "$aggrs" -ge $AGGRS ] &&
	[ "$multi" -ge 3 ] && [ "$late" -gt 0 ]; then
	ok "the stream: $reports reports, $aggrs aggregations, $multi regions counted in several intervals, $late late or straddling"
else
	not_ok "the stream: $reports reports (want $WANT), $aggrs aggregations (want $AGGRS), $multi regions counted in several intervals (want 3), $late late or straddling (want 1)"
fi

# Hostile streams: a line it does not know is refused at the write; a
# region that is empty or out of order makes the run fail with EINVAL
# (no region list the module could not hold), the same stream with the
# region mended runs.
check "stream: an unknown line is refused" \
	sh -c "! printf 'S 1 1 5000000 1 1 1\nX 1\n' > $D/stream"
bad() { printf 'S 1 1 5000000 1 2 1\nP 1 1 0 0 0 2\nG %s\nG %s\nR 0 1 4096 1 1 8 1\n' "$1" "$2" > $D/stream; }
bad "8192 4096" "8192 12288"
check "stream: an empty region fails the run" sh -c "! cat $D/run > /dev/null 2>&1"
bad "8192 12288" "4096 8192"
check "stream: regions out of order fail the run" sh -c "! cat $D/run > /dev/null 2>&1"
bad "4096 8192" "8192 12288"
check "stream: the same regions in order run" sh -c "cat $D/run | grep -q '^presence .* mismatches 0 '"
unload_module damon_perf_replay
unload_module damon_perf
finish
