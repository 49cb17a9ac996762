#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# arches: x86_64 arm64
# kernels: stock debug
# An unprivileged user (uid 65534) gets EPERM for every command, doit and
# dump alike, and receives no AGGREGATION notification: subscribing is
# refused, and joining the "monitor" multicast group is refused where the
# kernel checks it (GENL_MCAST_CAP_SYS_ADMIN) and never carries a message
# where it cannot. Root, as the control, gets both. The same uid with only
# CAP_PERFMON (tests/vm/capexec.c) may do everything: every command and
# dump, monitoring by subscription; with only CAP_NET_ADMIN it gets EPERM.
# At Debian's perf_event_paranoid 3 (the default of its kernels with
# SECURITY_PERF_EVENTS_RESTRICT, Debian 12's stock one included) its start
# is refused with EACCES, as its perf_event_open() would be; the rest runs
# at 2.
# The debugfs files are root-only by their own modes (checked with debugfs
# mounted world-searchable), for the CAP_PERFMON user too.
# The contexts monitor a sleeping process, root's for root and uid 65534's
# for the CAP_PERFMON user (who may target only what it may ptrace,
# ctl_owner.sh): who may do what does not depend on what the target does,
# and a busy one (the workload) made every step five times slower on the
# arm64 VM (TCG), 155 s instead of 31 s.
. /tests/lib.sh

# perm "desc" EPERM cmd...: one test of cmd's exit and output: EPERM 1
# wants exit 1 with "(EPERM)" in the output, EPERM 0 exit 0 or 1 without.
perm() {
	_desc=$1 _want=$2
	shift 2
	_out=$("$@" 2>&1)
	_rc=$?
	diag "$_out"
	_got=0
	echo "$_out" | grep -q '(EPERM)' && _got=1
	if [ $_got = "$_want" ] && [ $_rc -le 1 ] &&
		{ [ "$_want" = 0 ] || [ $_rc -eq 1 ]; }; then
		ok "$_desc"
	elif [ "$_want" = 1 ]; then
		not_ok "$_desc (exit $_rc, want 1 and EPERM)"
	else
		not_ok "$_desc (exit $_rc)"
	fi
}
# eperm "desc" cmd...: as nobody, exit 1 with "(EPERM)" in the output.
eperm() {
	_pd=$1
	shift
	perm "$_pd" 1 as_nobody "$*"
}

# requests FN PREFIX ID NAME NEW...: FN "PREFIX<NEW>" damonctl debug raw
# <request> for each request NEW: a command (CTX_GET) or a dump
# (CTX_GET/dump), against context ID where it names one, CTX_NEW creating
# a context NAME.
requests() {
	_fn=$1 _pre=$2 _id=$3 _name=$4
	shift 4
	for _r in "$@"; do
		_c=${_r%/dump}
		_d=$_c
		case $_r in
		CTX_NEW | CTX_GET/dump | STATS_GET* | MONITOR_*) _a= ;;
		*) _a="-a $A_CTX_ID:u32:$_id " ;;
		esac
		[ "$_c" = "$_r" ] || { _a="$_a--dump "; _d="$_c dump"; }
		eval "_a=\"\$_a--cmd \$CMD_$_c\""
		case $_c in
		CTX_NEW) _a="$_a -a $A_CTX_NAME:str:$_name" ;;
		TARGET_DEL) _a="$_a -a $A_TARGET_ID:u32:1" ;;
		PROBE_DEL) _a="$_a -a $A_PROBE_IDX:u32:1" ;;
		esac
		# shellcheck disable=SC2086 # the words of the request
		"$_fn" "$_pre$_d" damonctl debug raw $_a
	done
}

if [ ! -x /bin/damonctl ]; then
	todo "unprivileged access" "damonctl not in the image"
	finish
fi
check "nobody is uid 65534" sh -c '[ "$(su -s /bin/sh nobody -c "id -u")" = 65534 ]'
load_module damon_perf || finish
start_sleeper
check "root starts a context" damonctl start -n priv -p "$SLEEPER" \
	--sample-us 5000 --aggr-us 100000 --update-us 500000
ID=$(damonctl status --json | grep '"id"' | head -n 1 | tr -dc 0-9)

eperm "status" damonctl status
eperm "start" damonctl start -n mine -p "$SLEEPER"
eperm "stop" damonctl stop priv
eperm "tune" damonctl tune priv --aggr-us 200000
eperm "report" damonctl report
eperm "stats" damonctl stats
eperm "monitor" damonctl monitor --count 1 --duration 5
eperm "record" damonctl record -o - --count 1 --duration 5
requests eperm "" "$ID" mine CTX_NEW CTX_DEL CTX_GET CTX_GET/dump SET_ATTRS \
	TARGET_ADD TARGET_DEL PROBE_ADD PROBE_DEL SET_FILTERS START STOP \
	SNAPSHOT_GET/dump STATS_GET/dump MONITOR_SUBSCRIBE MONITOR_UNSUBSCRIBE

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
	_pd=$1
	shift
	perm "$_pd" 0 pm "$@"
}
check "capexec: uid 65534 with CAP_PERFMON only" sh -c \
	'capexec 65534 perfmon cat /proc/self/status | grep -q "^CapEff:.*0000004000000000$"'
capexec 65534 none sleep 600 &
PM_SLEEPER=$!
PARANOID=/proc/sys/kernel/perf_event_paranoid
saved_paranoid=$(cat $PARANOID)
echo 3 > $PARANOID
_out=$(pm damonctl start -n pm3 -p "$PM_SLEEPER" 2>&1)
_rc=$?
diag "$_out"
if [ $_rc -eq 1 ] && echo "$_out" | grep -q '(EACCES)'; then
	ok "CAP_PERFMON at perf_event_paranoid 3: start refused (EACCES)"
else
	not_ok "CAP_PERFMON at perf_event_paranoid 3: start (exit $_rc, want 1 and EACCES)"
fi
check "perf_event_paranoid 3: the refused start left nothing running" sh -c \
	"! damonctl status pm3 2>/dev/null | grep -q running"
damonctl stop pm3 > /dev/null 2>&1
echo 2 > $PARANOID
check "CAP_PERFMON: status" pm damonctl status
check "CAP_PERFMON: start" pm damonctl start -n pm -p "$PM_SLEEPER" \
	--sample-us 5000 --aggr-us 100000 --update-us 500000
PM=$(damonctl status --json | tr -d ' \n' |
	sed -n 's/.*"id":\([0-9]*\),"name":"pm".*/\1/p')
check "CAP_PERFMON: tune" pm damonctl tune pm --aggr-us 200000
check "CAP_PERFMON: report" pm damonctl report pm
check "CAP_PERFMON: stats" pm damonctl stats
check "CAP_PERFMON: monitor by subscription" \
	pm damonctl monitor --count 1 --duration 20 pm
requests allowed "CAP_PERFMON: " "${PM:-0}" pm2 CTX_GET CTX_GET/dump \
	SET_ATTRS TARGET_ADD TARGET_DEL PROBE_ADD PROBE_DEL SET_FILTERS START \
	SNAPSHOT_GET/dump STATS_GET/dump MONITOR_SUBSCRIBE MONITOR_UNSUBSCRIBE \
	AUX_ATTACH CTX_NEW
check "CAP_PERFMON: delete pm2" pm damonctl stop pm2
perm "CAP_NET_ADMIN only: EPERM" 1 capexec 65534 12 damonctl status

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
requests allowed "CAP_PERFMON: " "${PM:-0}" - STOP CTX_DEL
echo "$saved_paranoid" > $PARANOID

stop_sleeper
kill "$PM_SLEEPER" 2>/dev/null
wait "$PM_SLEEPER" 2>/dev/null
unload_module damon_perf
finish
