#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kernels: stock
# timeout: 900
# damonctl schemes unattended: one engine, started from a schemes file
# with a context of three targets (a workload, a sleeper, a shell that
# execs a workload later), two schemes (cold on idle regions, stat on
# everything), checked through its state file, status, JSON and the
# node_exporter textfile while it runs:
#
# - it started its context; status, status --json and export show the
#   stats of the state file (export's figure between two reads of it);
# - the sleeper exits: one exit counted and said once, the schemes go on
#   (sz_tried still grows);
# - the shell execs a workload: one exec counted and said once, the new
#   program's memory tried and advised;
# - damonctl stop, rmmod + insmod while it runs: the engine does not
#   start the context again under the module that deleted it; the
#   module's absence and return said once each, one reload counted with
#   its gap, the context started again without the dead sleeper,
#   aggregations flow again;
# - SIGTERM: exit 0, the final stats on stdout and in the state file
#   (running false), the context it started deleted.
#
# Then an engine as uid 65534 with CAP_PERFMON only, on its own context
# of its own process (a user without CAP_SYS_ADMIN reaches no other,
# ctl_owner.sh), with no CAP_SYS_NICE for process_madvise(): every page
# EPERM, counted, "no permission" said once; and the CPU
# budget: a tiny --cpu-budget defers most aggregations (passes + deferred
# = aggregations), none without one.
. /tests/lib.sh

ST=/run/damon-perf/schemes-eng.json

need_damonctl "damonctl schemes engine"
diag_machine
load_module damon_perf || finish

# jget KEY FILE: the first "KEY": N of FILE (0 when none)
jget() {
	_v=$(sed -n "s/^ *\"$1\": \([0-9]*\).*/\1/p" "$2" 2>/dev/null | head -n 1)
	echo "${_v:-0}"
}
# wait_state KEY MIN: until the state file's KEY reaches MIN (at most
# 120 s: a bound for a slow emulated machine, not a measure)
wait_state() {
	_i=0
	while [ "$(jget "$1" $ST)" -lt "$2" ]; do
		_i=$((_i + 1))
		[ $_i -gt 240 ] && return 1
		sleep 0.5
	done
}
# said TEXT: how many lines of the engine's stderr contain TEXT
said() { grep -c -- "$1" /tmp/eng.err; }

workload_started -s 32 -o 8 -h 4 -t 0 -n 1 -f
W=$WORKLOAD_PID
start_sleeper
rm -f /tmp/go
/bin/sh -c 'while [ ! -e /tmp/go ]; do sleep 0.2; done
	exec /bin/workload -s 16 -o 4 -h 2 -t 0 -n 1 -f' > /dev/null 2>&1 &
X=$!
cat > /tmp/eng.json <<EOF
{"contexts": [{"name": "eng", "targets": [{"pid": $W}, {"pid": $SLEEPER},
                                          {"pid": $X}],
               "intervals": {"aggr_us": 200000},
               "probes": [{"event": "page-faults", "period": 1,
                           "exclude_kernel": true}]}],
 "schemes": [{"name": "cold", "action": "cold",
              "pattern": {"nr_accesses": {"min": 0, "max": 0},
                          "age": {"min": 2}}},
             {"name": "all", "action": "stat"}]}
EOF
rm -rf /run/damon-perf
damonctl schemes -c /tmp/eng.json --json > /tmp/eng.out 2> /tmp/eng.err &
EP=$!

# --- running: its context, the state file, status, JSON, textfile ---
if wait_state aggregations 5 && wait_state sz_applied 1; then
	ok "engine: 5 aggregations, cold applied ($(jget sz_applied $ST) bytes)"
else
	not_ok "engine: 5 aggregations and cold applied (state: $(jget aggregations $ST) aggregations)"
	sed 's/^/# /' /tmp/eng.err
fi
check "engine started its context eng" sh -c \
	'damonctl status eng | grep -q running'
check "status shows the engine" sh -c \
	'damonctl status | grep -q "schemes engine eng (pid '$EP', running)"'
check "status --json has schemes_engines with both schemes" sh -c \
	'damonctl status --json | tr -d " \n" | grep -q "\"schemes_engines\":\[{.*\"name\":\"cold\".*\"name\":\"all\""'
mkdir -p /tmp/prom
cp $ST /tmp/s1.json
damonctl export --textfile /tmp/prom --once eng
cp $ST /tmp/s2.json
a1=$(sed -n '/"name": "all"/,$p' /tmp/s1.json | sed -n 's/^ *"sz_tried": \([0-9]*\).*/\1/p' | head -n 1)
a2=$(sed -n '/"name": "all"/,$p' /tmp/s2.json | sed -n 's/^ *"sz_tried": \([0-9]*\).*/\1/p' | head -n 1)
pv=$(sed -n 's/^damon_perf_scheme_tried_bytes_total{engine="eng",scheme="all",action="stat"} \([0-9]*\)$/\1/p' /tmp/prom/damon_perf.prom)
diag "textfile: stat sz_tried $pv, state file before $a1 after $a2"
if [ -n "$pv" ] && [ "$pv" -ge "${a1:-0}" ] && [ "$pv" -le "${a2:-0}" ] &&
	[ "$pv" -gt 0 ]; then
	ok "textfile: damon_perf_scheme_tried_bytes_total $pv is the state file's"
else
	not_ok "textfile: damon_perf_scheme_tried_bytes_total '$pv' vs state $a1 .. $a2"
fi
check "textfile: engine running, cpu seconds, events" sh -c \
	'grep -q "^damon_perf_schemes_engine_running{engine=\"eng\"} 1$" /tmp/prom/damon_perf.prom &&
	 grep -q "^damon_perf_schemes_engine_cpu_seconds_total{engine=\"eng\"} " /tmp/prom/damon_perf.prom &&
	 grep -q "^damon_perf_schemes_engine_target_events_total{engine=\"eng\",event=\"exits\"} 0$" /tmp/prom/damon_perf.prom'

# --- a target exits ---
kill "$SLEEPER"
wait "$SLEEPER" 2>/dev/null
if wait_state exits 1; then
	t0=$(jsum sz_tried $ST)
	n0=$(jget aggregations $ST)
	wait_state aggregations $((n0 + 5))
	t1=$(jsum sz_tried $ST)
	diag "after the exit: sz_tried $t0 -> $t1 over 5 aggregations"
	if [ "$t1" -gt "$t0" ] && [ "$(said "target pid $SLEEPER exited")" -eq 1 ]; then
		ok "target exit: counted, said once, the schemes go on"
	else
		not_ok "target exit: said $(said "target pid $SLEEPER exited") times, sz_tried $t0 -> $t1"
	fi
else
	not_ok "target exit counted"
fi

# --- a target execs ---
touch /tmp/go
if wait_state execs 1; then
	n0=$(jget aggregations $ST)
	wait_state aggregations $((n0 + 5))
	if [ "$(said "target pid $X runs a new program (exec)")" -eq 1 ] &&
		[ "$(jget execs $ST)" -eq 1 ] && [ "$(jget exits $ST)" -eq 1 ]; then
		ok "target exec: counted once, said once, no exit counted for it"
	else
		not_ok "target exec: said $(said "target pid $X runs a new program") times, execs $(jget execs $ST), exits $(jget exits $ST)"
	fi
else
	not_ok "target exec counted"
fi

# --- module reload mid-run ---
n0=$(jget aggregations $ST)
# a running context holds the module: stopped (and deleted) first, as an
# administrator would; the engine does not start it again while the
# module that saw it deleted stays
damonctl stop eng > /dev/null
sleep 2
if [ "$(jget contexts_created $ST)" -eq 1 ] && rmmod damon_perf; then
	i=0
	while [ "$(said "module is gone")" -lt 1 ] && [ $i -lt 100 ]; do
		sleep 0.2
		i=$((i + 1))
	done
	insmod "$DAMON_PERF_MODDIR/damon_perf.ko"
	# five aggregations after the reload: counted from the state the
	# engine wrote when it saw the module back (n0, read before the
	# stop, may already be five behind by then, the gap not yet closed)
	if wait_state module_reloads 1 && n0=$(jget aggregations $ST) &&
		wait_state aggregations $((n0 + 5)); then
		gap=$(jget gap_ns $ST)
		diag "reload: gap $gap ns, $(jget contexts_created $ST) contexts created"
		if [ "$(said "module is gone")" -eq 1 ] && [ "$(said "module is back")" -eq 1 ] &&
			[ "$gap" -gt 0 ] && [ "$(jget module_unloads $ST)" -eq 1 ] &&
			[ "$(jget contexts_created $ST)" -eq 2 ]; then
			ok "module reload: said once each, 1 reload, gap $gap ns, context started again"
		else
			not_ok "module reload: gone said $(said "module is gone"), back said $(said "module is back"), gap $gap, created $(jget contexts_created $ST)"
		fi
		damonctl status eng --json > /tmp/eng.status
		if grep -q "\"pid\": $W\(,\|\$\)" /tmp/eng.status &&
			grep -q "\"pid\": $X\(,\|\$\)" /tmp/eng.status &&
			! grep -q "\"pid\": $SLEEPER\(,\|\$\)" /tmp/eng.status; then
			ok "the context again has the two live targets, not the sleeper"
		else
			not_ok "the context again has the two live targets, not the sleeper"
			sed 's/^/# /' /tmp/eng.status
		fi
	else
		not_ok "module reload: aggregations again ($(jget aggregations $ST), was $n0)"
		sed 's/^/# /' /tmp/eng.err
	fi
else
	not_ok "rmmod damon_perf while the engine runs"
	module_loaded damon_perf || insmod "$DAMON_PERF_MODDIR/damon_perf.ko"
fi

# --- SIGTERM ---
kill -TERM $EP
wait $EP
rc=$?
out_n=$(jget aggregations /tmp/eng.out)
st_n=$(jget aggregations $ST)
diag "SIGTERM: exit $rc, $out_n aggregations, passes $(jget passes /tmp/eng.out), cpu $(jget process_cpu_ns /tmp/eng.out) ns over $(jget wall_ns /tmp/eng.out) ns"
if [ $rc -eq 0 ] && [ "$out_n" -gt 0 ] && [ "$out_n" -eq "$st_n" ] &&
	grep -q '"running": false' /tmp/eng.out && grep -q '"running": false' $ST; then
	ok "SIGTERM: exit 0, the final stats on stdout and in the state file"
else
	not_ok "SIGTERM: exit $rc, stdout $out_n aggregations, state $st_n"
fi
sed 's/^/# engine: /' /tmp/eng.err
check_fail "the context it started is deleted" damonctl status eng
# an aggregation taken while the module went away (the reload above) is
# skipped, not applied: passes + skipped is every aggregation
skipped=$(jget skipped /tmp/eng.out)
if [ "$(jget deferred /tmp/eng.out)" -eq 0 ] &&
	[ "$(($(jget passes /tmp/eng.out) + skipped))" -eq "$out_n" ] &&
	[ "$skipped" -le 2 ]; then
	ok "no CPU budget: nothing deferred ($skipped skipped around the reload)"
else
	not_ok "no CPU budget: deferred $(jget deferred /tmp/eng.out), passes $(jget passes /tmp/eng.out) + skipped $skipped of $out_n"
fi
stop_workload
kill "$X" 2>/dev/null

# --- a target without permission ---
WORKLOAD_UID=65534 workload_started -s 16 -o 4 -h 2 -t 0 -n 1 -f
PARANOID=/proc/sys/kernel/perf_event_paranoid
saved_paranoid=$(cat $PARANOID)
# Debian's 3 refuses CAP_PERFMON alone (ctl_unprivileged.sh); 2 does not
echo 2 > $PARANOID
check "uid 65534 starts context perm on its own process" \
	capexec 65534 perfmon damonctl start -n perm -p "$WORKLOAD_PID" \
	-e page-faults --period 1 --exclude-kernel --aggr-us 200000
echo "$saved_paranoid" > $PARANOID
mkdir -p /tmp/perm && chmod 777 /tmp/perm
cat > /tmp/perm.json <<EOF
{"schemes": [{"name": "cold", "action": "cold"}]}
EOF
capexec 65534 perfmon damonctl schemes -c /tmp/perm.json perm -n 8 --json \
	--state /tmp/perm/schemes-perm.json > /tmp/perm.out 2> /tmp/perm.err
rc=$?
sed 's/^/# /' /tmp/perm.err
eperm=$(sed -n 's/^ *"EPERM": \([0-9]*\).*/\1/p' /tmp/perm.out | head -n 1)
if [ $rc -eq 0 ] && [ "${eperm:-0}" -gt 0 ] && [ "$(jget eperm /tmp/perm.out)" -eq 1 ] &&
	[ "$(grep -c "no permission" /tmp/perm.err)" -eq 1 ] &&
	[ "$(jget sz_applied /tmp/perm.out)" -eq 0 ] &&
	[ "$(jget passes /tmp/perm.out)" -ge 2 ]; then
	ok "no permission: $eperm pages EPERM over $(jget passes /tmp/perm.out) passes, said once"
else
	not_ok "no permission: exit $rc, EPERM '${eperm:-}', said $(grep -c "no permission" /tmp/perm.err) times"
fi

# --- the CPU budget ---
damonctl schemes -c /tmp/perm.json perm -n 10 --json --no-state \
	--cpu-budget 0.01 > /tmp/budget.out 2> /tmp/budget.err
rc=$?
p=$(jget passes /tmp/budget.out)
d=$(jget deferred /tmp/budget.out)
diag "budget 0.01 %: $p passes, $d deferred, engine cpu $(jget engine_cpu_ns /tmp/budget.out) ns, process cpu $(jget process_cpu_ns /tmp/budget.out) ns"
if [ $rc -eq 0 ] && [ $((p + d)) -eq 10 ] && [ "$d" -ge 5 ] &&
	[ "$(jget engine_cpu_ns /tmp/budget.out)" -le "$(jget process_cpu_ns /tmp/budget.out)" ]; then
	ok "--cpu-budget 0.01: $d of 10 aggregations deferred"
else
	not_ok "--cpu-budget 0.01: exit $rc, $p passes, $d deferred"
fi
expect_exit 2 "--cpu-budget 101: usage error" damonctl schemes -c /tmp/perm.json --cpu-budget 101
damonctl stop perm > /dev/null 2>&1
stop_workload
unload_module damon_perf
finish
