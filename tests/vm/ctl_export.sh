#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kernels: bookworm
# timeout: 300
# damonctl export: --once for a running context writes damon_perf.prom (no
# temporary file left) whose per-context metrics agree with damonctl status
# (id, state, targets, probes), with report --json of the same aggregation
# (regions, a non-zero working set) while it runs, and once it is stopped
# with report --json and status (stale drops); --interval rewrites until SIGTERM and exits 0;
# without the module the file says damon_perf_up 0 and --once exits 3;
# an exporter lives through module reloads (down while unloaded, up again).
. /tests/lib.sh

if [ ! -x /bin/damonctl ]; then
	todo "damonctl export" "damonctl not in the image"
	finish
fi
load_module damon_perf || finish
f=/tmp/prom/damon_perf.prom
# metric NAME [LABELS]: the value of NAME{ctx="exp"LABELS} in the file
metric() {
	grep -F "$1{ctx=\"exp\"${2:-}}" "$f" | head -n 1 | sed 's/.* //'
}
# field KEY: the first "KEY": value of the context in status --json
field() {
	damonctl status --json exp | grep -m 1 "^      \"$1\":" |
		sed 's/.*: "*\([^",]*\)"*,*$/\1/'
}
same() { # same DESC GOT WANT
	if [ -n "$2" ] && [ "$2" = "$3" ]; then ok "$1 ($2)"; else not_ok "$1 (export '$2', want '$3')"; fi
}

# -f: the hot range faults again and again, so every aggregation sees it
start_target -s 64 -o 8 -h 16 -t 0 -f
check "start a context" damonctl start -n exp -p "$WORKLOAD_PID" \
	-e page-faults --sample-us 5000 --aggr-us 2000000 --update-us 2000000
sleep 5
mkdir -p /tmp/prom
check "export --once" damonctl export --textfile /tmp/prom --once
check "damon_perf.prom written" test -s "$f"
check "no temporary file left" test ! -e /tmp/prom/.damon_perf.prom.tmp
diag "$(head -n 40 "$f")"
has "damon_perf_up 1" '^damon_perf_up 1$' cat "$f"
id=$(field id)
has "ctx_info: the id and state status shows" \
	"^damon_perf_ctx_info{ctx=\"exp\",id=\"$id\",ops=\"vaddr\",state=\"running\"} 1\$" cat "$f"
same "running" "$(metric damon_perf_ctx_running)" 1
same "targets as in status" "$(metric damon_perf_ctx_targets)" \
	"$(damonctl status --json exp | grep -c '"nr_regions"')"
same "probes as in status" "$(metric damon_perf_ctx_probes)" \
	"$(damonctl status --json exp | grep -c '"idx"')"
r=$(metric damon_perf_ctx_regions)
check "regions counted ($r)" test "${r:-0}" -gt 0
w=$(metric damon_perf_ctx_working_set_bytes)
m=$(metric damon_perf_ctx_monitored_bytes)
check "working set ($w) within the monitored bytes ($m)" test "${w:-x}" -le "${m:-0}"
has "samples of probe 1" '^damon_perf_ctx_samples{ctx="exp",probe="1"} [0-9]' cat "$f"
has "the per-CPU counters of stats --openmetrics" \
	'^damon_perf_callback_total{cpu="0"} [0-9]' cat "$f"
has "counters typed for the Prometheus text format" \
	'^# TYPE damon_perf_callback_total counter$' cat "$f"

# while it runs: export and report --json of the same aggregation (2 s
# apart; retried, up to 30 times, until both saw the same sequence
# number: on a loaded host the two calls may straddle an aggregation)
i=0
while [ $i -lt 30 ]; do
	damonctl export --textfile /tmp/prom --once exp
	damonctl report --json exp > /tmp/report.json 2>&1
	seq=$(snap_seq /tmp/report.json)
	[ -n "$seq" ] && [ "$seq" = "$(metric damon_perf_ctx_aggregation_seq)" ] && break
	i=$((i + 1))
done
same "running: the aggregation report --json shows" \
	"$(metric damon_perf_ctx_aggregation_seq)" "$seq"
wr=$(sed -n 's/.*"working_set_bytes": \([0-9]*\).*/\1/p' /tmp/report.json | head -n 1)
same "running: working set bytes as report --json" \
	"$(metric damon_perf_ctx_working_set_bytes)" "$wr"
check "running: a working set of the refaulting hot range ($wr bytes)" test "${wr:-0}" -gt 0
same "running: regions as report --json lists" "$(metric damon_perf_ctx_regions)" \
	"$(grep -c '"nr_accesses"' /tmp/report.json)"

# frozen: the last aggregation stays, so report --json gives the same
check "stop --keep" damonctl stop exp --keep
check "export --once of the stopped context" \
	damonctl export --textfile /tmp/prom --once exp
damonctl report --json exp > /tmp/report.json 2>&1
same "regions as report --json lists" "$(metric damon_perf_ctx_regions)" \
	"$(grep -c '"nr_accesses"' /tmp/report.json)"
same "working set bytes as report --json" \
	"$(metric damon_perf_ctx_working_set_bytes)" \
	"$(sed -n 's/.*"working_set_bytes": \([0-9]*\).*/\1/p' /tmp/report.json | head -n 1)"
same "stale drops as status" "$(metric damon_perf_ctx_drops_total ',reason="stale"')" \
	"$(field stale_drops)"
same "state stopped" "$(metric damon_perf_ctx_running)" 0
expect_exit 2 "export of a context that does not exist: usage error" \
	damonctl export --textfile /tmp/prom --once nosuch
expect_exit 2 "export into a missing directory: usage error" \
	damonctl export --textfile /tmp/nosuchdir --once

# --interval: rewritten until SIGTERM
mkdir -p /tmp/prom2
damonctl export --textfile /tmp/prom2 --interval 0.2 &
pid=$!
i=0
while [ ! -s /tmp/prom2/damon_perf.prom ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
check "--interval writes the file" test -s /tmp/prom2/damon_perf.prom
rm -f /tmp/prom2/damon_perf.prom
i=0
while [ ! -s /tmp/prom2/damon_perf.prom ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
check "--interval writes it again" test -s /tmp/prom2/damon_perf.prom
kill -TERM $pid
wait $pid
rc=$?
same "--interval exits 0 on SIGTERM" "$rc" 0
check "stop" damonctl stop
stop_workload

# across module reloads: the exporter says the module is down while it is,
# then finds the family again (generic netlink gives it a new id) and
# goes on; the second reload is quick, so its next request may go to the
# old id and be resent to the new one
mkdir -p /tmp/prom3
damonctl export --textfile /tmp/prom3 --interval 0.5 &
pid=$!
# has_line RE: the exporter's file has a line RE within 30 s
has_line() {
	i=0
	while ! grep -q "$1" /tmp/prom3/damon_perf.prom 2>/dev/null &&
		[ $i -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	grep -q "$1" /tmp/prom3/damon_perf.prom
}
check "reload: the exporter says up" has_line '^damon_perf_up 1$'
unload_module damon_perf
check "reload: the module unloaded, the exporter says down" \
	has_line '^damon_perf_up 0$'
load_module damon_perf
check "reload: loaded again, the exporter says up" has_line '^damon_perf_up 1$'
# shellcheck disable=SC2016 # $1 is the inner sh's
check "reload: a quick rmmod and insmod" sh -c 'rmmod damon_perf && insmod "$1"' sh \
	"$DAMON_PERF_MODDIR/damon_perf.ko"
rm -f /tmp/prom3/damon_perf.prom
check "reload: after a quick reload, up" has_line '^damon_perf_up 1$'
check "reload: the exporter still runs" kill -0 $pid
kill -TERM $pid
wait $pid
same "reload: the exporter exits 0 on SIGTERM" "$?" 0
unload_module damon_perf
expect_exit 3 "export --once without the module: exit 3" \
	damonctl export --textfile /tmp/prom --once
has "without the module: damon_perf_up 0" '^damon_perf_up 0$' cat "$f"
finish
