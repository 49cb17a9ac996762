#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kernels: stock debug
# An unprivileged user (uid 65534) gets EPERM for every command, doit and
# dump alike, and receives no AGGREGATION notification: subscribing is
# refused, and joining the "monitor" multicast group is refused where the
# kernel checks it (GENL_MCAST_CAP_SYS_ADMIN) and never carries a message
# where it cannot. Root, as the control, gets both. The same uid with only
# CAP_PERFMON (tests/vm/capexec.c) may do everything: every command and
# dump, monitoring by subscription; with only CAP_NET_ADMIN it gets EPERM.
# The debugfs files are root-only by their own modes (checked with debugfs
# mounted world-searchable), for the CAP_PERFMON user too.
. /tests/lib.sh

# eperm "desc" cmd...: as nobody, exit 1 with "(EPERM)" in the output.
eperm() {
	_desc=$1
	shift
	_out=$(as_nobody "$*" 2>&1)
	_rc=$?
	diag "$_out"
	if [ $_rc -eq 1 ] && echo "$_out" | grep -q '(EPERM)'; then
		ok "$_desc"
	else
		not_ok "$_desc (exit $_rc, want 1 and EPERM)"
	fi
}

if [ ! -x /bin/damonctl ]; then
	todo "unprivileged access" "damonctl not in the image"
	finish
fi
check "nobody is uid 65534" sh -c '[ "$(su -s /bin/sh nobody -c "id -u")" = 65534 ]'
load_module damon_perf || finish
start_target -s 32 -h 8 -t 0
check "root starts a context" damonctl start -n priv -p "$WORKLOAD_PID" \
	--sample-us 5000 --aggr-us 100000 --update-us 500000
ID=$(damonctl status --json | grep '"id"' | head -n 1 | tr -dc 0-9)

eperm "status" damonctl status
eperm "start" damonctl start -n mine -p "$WORKLOAD_PID"
eperm "stop" damonctl stop priv
eperm "tune" damonctl tune priv --aggr-us 200000
eperm "report" damonctl report
eperm "stats" damonctl stats
eperm "monitor" damonctl monitor --count 1 --duration 5
eperm "record" damonctl record -o - --count 1 --duration 5
C="damonctl debug raw -a $A_CTX_ID:u32:$ID"
eperm "CTX_NEW" damonctl debug raw --cmd $CMD_CTX_NEW -a $A_CTX_NAME:str:mine
eperm "CTX_DEL" $C --cmd $CMD_CTX_DEL
eperm "CTX_GET" $C --cmd $CMD_CTX_GET
eperm "CTX_GET dump" damonctl debug raw --dump --cmd $CMD_CTX_GET
eperm "SET_ATTRS" $C --cmd $CMD_SET_ATTRS
eperm "TARGET_ADD" $C --cmd $CMD_TARGET_ADD
eperm "TARGET_DEL" $C --cmd $CMD_TARGET_DEL -a $A_TARGET_ID:u32:1
eperm "PROBE_ADD" $C --cmd $CMD_PROBE_ADD
eperm "PROBE_DEL" $C --cmd $CMD_PROBE_DEL -a $A_PROBE_IDX:u32:1
eperm "SET_FILTERS" $C --cmd $CMD_SET_FILTERS
eperm "START" $C --cmd $CMD_START
eperm "STOP" $C --cmd $CMD_STOP
eperm "SNAPSHOT_GET dump" $C --dump --cmd $CMD_SNAPSHOT_GET
eperm "STATS_GET dump" damonctl debug raw --dump --cmd $CMD_STATS_GET
eperm "MONITOR_SUBSCRIBE" damonctl debug raw --cmd $CMD_MONITOR_SUBSCRIBE
eperm "MONITOR_UNSUBSCRIBE" damonctl debug raw --cmd $CMD_MONITOR_UNSUBSCRIBE

out=$(as_nobody damonctl debug join-monitor --wait 3 2>&1)
rc=$?
diag "$out"
if [ $rc -ne 0 ] && ! echo "$out" | grep -q 'received aggregation'; then
	ok "nobody receives nothing on the monitor group"
else
	not_ok "nobody receives nothing on the monitor group (exit $rc)"
fi
check "root receives on the monitor group" \
	damonctl debug join-monitor --wait 10
check "root receives by subscription" \
	damonctl monitor --count 2 --duration 20 --json
has_ctx() { damonctl status priv | grep -q running; }
check "the context is untouched" has_ctx
check "root stops it" damonctl stop

# Only CAP_PERFMON: allowed. allowed "desc" cmd...: exit 0 or 1, not EPERM.
pm() { capexec 65534 perfmon "$@"; }
allowed() {
	_desc=$1
	shift
	_out=$(pm "$@" 2>&1)
	_rc=$?
	diag "$_out"
	if [ $_rc -le 1 ] && ! echo "$_out" | grep -q '(EPERM)'; then
		ok "$_desc"
	else
		not_ok "$_desc (exit $_rc)"
	fi
}
check "capexec: uid 65534 with CAP_PERFMON only" sh -c \
	'capexec 65534 perfmon cat /proc/self/status | grep -q "^CapEff:.*0000004000000000$"'
check "CAP_PERFMON: status" pm damonctl status
check "CAP_PERFMON: start" pm damonctl start -n pm -p "$WORKLOAD_PID" \
	--sample-us 5000 --aggr-us 100000 --update-us 500000
PM=$(damonctl status --json | tr -d ' \n' |
	sed -n 's/.*"id":\([0-9]*\),"name":"pm".*/\1/p')
C="damonctl debug raw -a $A_CTX_ID:u32:${PM:-0}"
check "CAP_PERFMON: tune" pm damonctl tune pm --aggr-us 200000
check "CAP_PERFMON: report" pm damonctl report pm
check "CAP_PERFMON: stats" pm damonctl stats
check "CAP_PERFMON: monitor by subscription" \
	pm damonctl monitor --count 1 --duration 20 pm
allowed "CAP_PERFMON: CTX_GET" $C --cmd $CMD_CTX_GET
allowed "CAP_PERFMON: CTX_GET dump" damonctl debug raw --dump --cmd $CMD_CTX_GET
allowed "CAP_PERFMON: SET_ATTRS" $C --cmd $CMD_SET_ATTRS
allowed "CAP_PERFMON: TARGET_ADD" $C --cmd $CMD_TARGET_ADD
allowed "CAP_PERFMON: TARGET_DEL" $C --cmd $CMD_TARGET_DEL -a $A_TARGET_ID:u32:1
allowed "CAP_PERFMON: PROBE_ADD" $C --cmd $CMD_PROBE_ADD
allowed "CAP_PERFMON: PROBE_DEL" $C --cmd $CMD_PROBE_DEL -a $A_PROBE_IDX:u32:1
allowed "CAP_PERFMON: SET_FILTERS" $C --cmd $CMD_SET_FILTERS
allowed "CAP_PERFMON: START" $C --cmd $CMD_START
allowed "CAP_PERFMON: SNAPSHOT_GET dump" $C --dump --cmd $CMD_SNAPSHOT_GET
allowed "CAP_PERFMON: STATS_GET dump" damonctl debug raw --dump --cmd $CMD_STATS_GET
allowed "CAP_PERFMON: MONITOR_SUBSCRIBE" damonctl debug raw --cmd $CMD_MONITOR_SUBSCRIBE
allowed "CAP_PERFMON: MONITOR_UNSUBSCRIBE" damonctl debug raw --cmd $CMD_MONITOR_UNSUBSCRIBE
allowed "CAP_PERFMON: AUX_ATTACH" $C --cmd $CMD_AUX_ATTACH
allowed "CAP_PERFMON: CTX_NEW" damonctl debug raw --cmd $CMD_CTX_NEW -a $A_CTX_NAME:str:pm2
check "CAP_PERFMON: delete pm2" pm damonctl stop pm2
out=$(capexec 65534 12 damonctl status 2>&1)
rc=$?
diag "$out"
if [ $rc -eq 1 ] && echo "$out" | grep -q '(EPERM)'; then
	ok "CAP_NET_ADMIN only: EPERM"
else
	not_ok "CAP_NET_ADMIN only: EPERM (exit $rc)"
fi

# debugfs: root-only by the files' own modes, even where the mount lets
# everyone search it.
D=/sys/kernel/debug/damon_perf
RINGS=$(ls -d $D/ctx*/rings 2>/dev/null | head -n 1)
if mount -o remount,mode=0755 /sys/kernel/debug 2>/dev/null; then
	for f in $D/perf_stats $RINGS; do
		check_fail "nobody cannot read ${f#$D/}" as_nobody "cat $f"
		check_fail "CAP_PERFMON cannot read ${f#$D/}" pm cat "$f"
	done
	check_fail "nobody cannot reset perf_stats" as_nobody "echo reset > $D/perf_stats"
	check "modes have no group or other bits" sh -c \
		"! ls -l $D/perf_stats $RINGS | grep -v '^-..-------' | grep -q ."
	mount -o remount,mode=0700 /sys/kernel/debug
else
	skip "debugfs modes" "debugfs cannot be remounted"
fi
allowed "CAP_PERFMON: STOP" $C --cmd $CMD_STOP
allowed "CAP_PERFMON: CTX_DEL" $C --cmd $CMD_CTX_DEL

stop_workload
unload_module damon_perf
finish
