#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kernels: stock debug
# An unprivileged user (uid 65534) gets EPERM for every command, doit and
# dump alike, and receives no AGGREGATION notification: subscribing is
# refused, and joining the "monitor" multicast group is refused where the
# kernel checks it (GENL_MCAST_CAP_SYS_ADMIN) and never carries a message
# where it cannot. Root, as the control, gets both.
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
stop_workload
unload_module damon_perf
finish
