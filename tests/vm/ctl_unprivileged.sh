#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kernels: stock debug
# An unprivileged user (uid 65534) gets EPERM for every command, doit and
# dump alike, and receives no AGGREGATION notification: subscribing is
# refused, and joining the "monitor" multicast group is refused where the
# kernel checks it (GENL_MCAST_CAP_SYS_ADMIN) and never carries a message
# where it cannot. Root, as the control, gets both.
. /tests/lib.sh

CTX_NEW=1 CTX_DEL=2 CTX_GET=3 SET_ATTRS=4 TARGET_ADD=5 TARGET_DEL=6
PROBE_ADD=7 PROBE_DEL=8 SET_FILTERS=9 START=10 STOP=11 SNAPSHOT_GET=12
STATS_GET=13 SUBSCRIBE=14 UNSUBSCRIBE=15
A_CTX_ID=2 A_CTX_NAME=3 A_TARGET_ID=8 A_PROBE_IDX=10

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

# start_target ARGS: the workload, or a sleeping process where it cannot
# run (what is monitored matters less here than that it exists).
start_target() {
	start_workload "$@" && return 0
	diag "workload did not start; monitoring a sleeping process instead"
	sleep 3600 &
	WORKLOAD_PID=$!
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
eperm "CTX_NEW" damonctl debug raw --cmd $CTX_NEW -a $A_CTX_NAME:str:mine
eperm "CTX_DEL" $C --cmd $CTX_DEL
eperm "CTX_GET" $C --cmd $CTX_GET
eperm "CTX_GET dump" damonctl debug raw --dump --cmd $CTX_GET
eperm "SET_ATTRS" $C --cmd $SET_ATTRS
eperm "TARGET_ADD" $C --cmd $TARGET_ADD
eperm "TARGET_DEL" $C --cmd $TARGET_DEL -a $A_TARGET_ID:u32:1
eperm "PROBE_ADD" $C --cmd $PROBE_ADD
eperm "PROBE_DEL" $C --cmd $PROBE_DEL -a $A_PROBE_IDX:u32:1
eperm "SET_FILTERS" $C --cmd $SET_FILTERS
eperm "START" $C --cmd $START
eperm "STOP" $C --cmd $STOP
eperm "SNAPSHOT_GET dump" $C --dump --cmd $SNAPSHOT_GET
eperm "STATS_GET dump" damonctl debug raw --dump --cmd $STATS_GET
eperm "MONITOR_SUBSCRIBE" damonctl debug raw --cmd $SUBSCRIBE
eperm "MONITOR_UNSUBSCRIBE" damonctl debug raw --cmd $UNSUBSCRIBE

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
