#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kernels: stock debug
# timeout: 600
# Notifications to a subscriber whose receive buffer is full are dropped,
# counted and said. damonctl record and damonctl monitor subscribe with the
# smallest receive buffer (--rcvbuf 1: the kernel's minimum, room for about
# one notification) and are stopped (SIGSTOP) for at least 10 aggregations
# of the context, counted by its seq (damonctl report --json), not by time.
# Meanwhile the module counts each drop in the subscription (debugfs
# "subscribers"). Resumed, each meets ENOBUFS, goes on receiving, and at
# the end (SIGINT) says "missed N aggregations of context work (receive
# buffer overran)"; N is the sum of the seq gaps in what it received, and
# record's lines carry each gap as "missed"; the two N together are the
# drops the module counted, but for those after a reader's last line (a
# gap it never sees: at most two a reader allowed).
. /tests/lib.sh

need_damonctl "aggregations missed for a full receive buffer"
load_module damon_perf || finish

SUBS=/sys/kernel/debug/damon_perf/subscribers
# dropped: the drops of every subscription
dropped() { awk 'NR > 1 { s += $3 } END { print s + 0 }' $SUBS; }
# seq_now: the context's latest aggregation
seq_now() { damonctl report work --json | snap_seq; }
# lines FILE: its lines (0 when it does not exist yet)
lines() { if [ -f "$1" ]; then wc -l < "$1"; else echo 0; fi; }
# wait_for CMD N: until CMD prints at least N (up to 60 s; the aggregations
# come every 0.1 s)
wait_for() {
	_i=0
	while [ "$($1)" -lt "$2" ] && [ $_i -lt 600 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	[ "$($1)" -ge "$2" ]
}
# gaps FILE: the sum of the seq gaps between its consecutive lines
gaps() {
	sed -n 's/.*"seq":\([0-9]*\).*/\1/p' "$1" |
		awk 'NR > 1 && $1 > last + 1 { s += $1 - last - 1 }
		     { last = $1 } END { print s + 0 }'
}
# missed FILE: the sum of the "missed" fields of its lines (compact JSON)
missed() {
	sed -n 's/.*"missed":\([0-9]*\).*/\1/p' "$1" |
		awk '{ s += $1 } END { print s + 0 }'
}
# said FILE: N of "missed N aggregations of context work (...)" at the end
said() {
	sed -En 's/^damonctl: missed ([0-9]+) aggregations? of context work( in [0-9]+ gaps)? \(receive buffer overran\)$/\1/p' "$1"
}

start_target -s 16 -o 4 -h 8 -t 0
check "start a context aggregating every 0.1 s" \
	damonctl start -n work -p "$WORKLOAD_PID" -e page-faults \
	--sample-us 5000 --aggr-us 100000 --update-us 500000
has "debugfs lists the subscriptions" "portid all dropped" cat $SUBS

damonctl record -o /tmp/rec.jsonl --rcvbuf 1 work 2> /tmp/rec.err &
REC=$!
damonctl monitor --json --rcvbuf 1 work > /tmp/mon.jsonl 2> /tmp/mon.err &
MON=$!
rec_lines() { lines /tmp/rec.jsonl; }
mon_lines() { lines /tmp/mon.jsonl; }
wait_for rec_lines 2 && wait_for mon_lines 2
if ! check "record and monitor receive aggregations" \
	test "$(rec_lines)" -ge 2 -a "$(mon_lines)" -ge 2; then
	# what the one that did not said, and no wait for a dead reader
	diag "record: $(cat /tmp/rec.err 2>/dev/null)"
	diag "monitor: $(cat /tmp/mon.err 2>/dev/null)"
	kill -INT $REC 2>/dev/null
	kill -INT $MON 2>/dev/null
	damonctl stop work > /dev/null 2>&1
	stop_workload
	unload_module damon_perf
	finish
fi

# one kill per reader: busybox kill stops at a pid it cannot signal
kill -STOP $REC
kill -STOP $MON
s0=$(seq_now)
seq_10() { echo $(($(seq_now) - s0)); }
wait_for seq_10 10
expect_ge "10 aggregations while they are stopped" "$(seq_10)" 10
d_stopped=$(dropped)
expect_ge "the module counted drops (2 subscribers, 10 aggregations)" \
	"$d_stopped" 10

r0=$(rec_lines)
m0=$(mon_lines)
kill -CONT $REC
kill -CONT $MON
rec_more() { echo $(($(rec_lines) - r0)); }
mon_more() { echo $(($(mon_lines) - m0)); }
wait_for rec_more 5 && wait_for mon_more 5
# no aggregation after the stop's: no drop after the count is read (the
# subscriptions, and their counts, live until the readers exit)
check "stop the context" damonctl stop work
d_end=$(dropped)
kill -INT $REC
kill -INT $MON
wait $REC
rec_rc=$?
wait $MON
mon_rc=$?
diag "dropped: $d_stopped while stopped, $d_end in all"
diag "record: $(cat /tmp/rec.err)"
diag "monitor: $(cat /tmp/mon.err)"

check "record went on after ENOBUFS and ended cleanly" test $rec_rc -eq 0
check "monitor went on after ENOBUFS and ended cleanly" test $mon_rc -eq 0
rec_said=$(said /tmp/rec.err)
mon_said=$(said /tmp/mon.err)
expect_ge "record says the aggregations it missed" "${rec_said:-0}" 1
expect_ge "monitor says the aggregations it missed" "${mon_said:-0}" 1
rec_gaps=$(gaps /tmp/rec.jsonl)
mon_gaps=$(gaps /tmp/mon.jsonl)
check "record's count is its seq gap ($rec_said = $rec_gaps)" \
	test "${rec_said:-x}" = "$rec_gaps"
check "monitor's count is its seq gap ($mon_said = $mon_gaps)" \
	test "${mon_said:-x}" = "$mon_gaps"
check "record's lines carry the gap (\"missed\": $(missed /tmp/rec.jsonl))" \
	test "$(missed /tmp/rec.jsonl)" = "$rec_gaps"
# a reader sees a drop as a gap only when a later aggregation reaches it:
# the module may count up to two more per reader, lost after its last line
check "the seq gaps are the drops the module counted, but for the last ones ($rec_gaps + $mon_gaps <= $d_end <= $rec_gaps + $mon_gaps + 4)" \
	test $((rec_gaps + mon_gaps)) -le "$d_end" -a "$d_end" -le $((rec_gaps + mon_gaps + 4))
has "the gap was said when it came" \
	"missed [0-9]* aggregations* of context work (seq [0-9]* to [0-9]*; receive buffer overran)" \
	cat /tmp/rec.err
check "the subscriptions ended with their sockets" \
	test "$(wc -l < $SUBS)" -eq 1

stop_workload
unload_module damon_perf
finish
