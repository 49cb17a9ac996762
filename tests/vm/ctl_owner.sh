#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kernels: stock debug
# timeout: 600
# Contexts belong to their creator: its euid and its PID namespace. Two
# users with CAP_PERFMON alone (tests/vm/capexec.c), A (uid 1000) and B
# (uid 1001), each with a context on a sleeping process of its own: B does
# not see A's context in the list, and every request naming it (each raw
# request that names a context, by id; damonctl tune by name) gets EACCES
# with the reason, so that A's context runs on untouched; B's
# subscription carries its own aggregations and none of A's. B cannot make A's process a target (no ptrace read access:
# EACCES with the reason), A can. Root (CAP_SYS_ADMIN) sees and changes
# every context. The same uid A in another PID namespace (busybox unshare
# -p -f) is another owner both ways: A outside does not see the context
# A created inside (on its process named by its pid there), A inside does
# not see A's outside one. A context another user owns is absent from
# the list, so damonctl's status, report and stop, which find a context
# by name in the list, say there is none; tune, and every request by id,
# get EACCES.
. /tests/lib.sh

need_damonctl "context ownership"
load_module damon_perf || finish

A=1000
B=1001
asa() { capexec $A perfmon "$@"; }
asb() { capexec $B perfmon "$@"; }
PARANOID=/proc/sys/kernel/perf_event_paranoid
saved_paranoid=$(cat $PARANOID)
# Debian's 3 refuses CAP_PERFMON alone (ctl_unprivileged.sh); 2 does not
echo 2 > $PARANOID
ATTRS="--sample-us 5000 --aggr-us 100000 --update-us 500000"

capexec $A none sleep 600 &
SLEEP_A=$!
capexec $B none sleep 600 &
SLEEP_B=$!
# as_uid PID UID: PID runs sleep as UID (capexec switched and exec'd),
# waited for up to 10 s
as_uid() {
	_i=0
	until grep -q "^Uid:[[:space:]]*$2[[:space:]]" "/proc/$1/status" &&
		[ "$(cat "/proc/$1/comm")" = sleep ]; do
		_i=$((_i + 1))
		[ $_i -gt 100 ] && return 1
		sleep 0.1
	done
}
check "A's sleeper runs as A" as_uid "$SLEEP_A" $A
check "B's sleeper runs as B" as_uid "$SLEEP_B" $B

# rawctx WHO... -- CMD NAME [damonctl debug raw args...]: a raw request
# naming context NAME, sent by WHO (a command prefix, or nothing)
rawctx() {
	_w=
	while [ "$1" != -- ]; do _w="$_w $1"; shift; done
	shift
	_c=
	eval "_c=\$CMD_$1"
	_n=$2
	shift 2
	$_w damonctl debug raw --cmd "$_c" -a "$A_CTX_NAME:str:$_n" "$@"
}
# target: the TARGET nest of pid $1
target() { echo "$A_TARGET:nest:$(nla_u32 "$TARGET_A_PID" "$1")"; }

# A's context has the default probe (page-faults); the PMU is one
# context's at a time (perf_ownership.sh), so every other context here
# has none: it still aggregates, and notifies, every interval.
# shellcheck disable=SC2086 # the words of ATTRS
check "A starts ownA on its own process" \
	asa damonctl start -n ownA -p "$SLEEP_A" $ATTRS
check "B creates ownB" rawctx asb -- CTX_NEW ownB -a "$A_CTX_OPS:u32:$OPS_VADDR"
check "B targets its own process" rawctx asb -- TARGET_ADD ownB "$(target "$SLEEP_B")"
check "B starts ownB" rawctx asb -- START ownB
ID_A=$(damonctl status --json | tr -d ' \n' |
	sed -n 's/.*"id":\([0-9]*\),"name":"ownA".*/\1/p')
diag "ownA is context ${ID_A:-?}"

# lists NAME WHO...: WHO's damonctl status lists context NAME
lists() {
	_n=$1
	shift
	"$@" damonctl status > /tmp/own.list 2>&1 || return 1
	grep -qw "$_n" /tmp/own.list
}
check "A lists ownA" lists ownA asa
check_fail "A does not list ownB" lists ownB asa
check "B lists ownB" lists ownB asb
check_fail "B does not list ownA" lists ownA asb
check "root lists ownA" lists ownA
check "root lists ownB" lists ownB

REASON="belongs to another user or PID namespace"
# hidden DESC CMD...: CMD fails finding no context by that name (damonctl
# resolves names by the dump, which shows only the caller's contexts)
hidden() {
	_d=$1
	shift
	if _out=$("$@" 2>&1); then
		diag "$_out"
		not_ok "$_d (unexpected success)"
	elif echo "$_out" | grep -q "no context named"; then
		ok "$_d"
	else
		diag "$_out"
		not_ok "$_d (want: no context named)"
	fi
}
hidden "B: status ownA finds no such context" asb damonctl status ownA
hidden "B: report ownA finds no such context" asb damonctl report ownA
hidden "B: stop ownA finds no such context" asb damonctl stop ownA
expect_err "B: tune ownA refused" EACCES "$REASON" \
	asb damonctl tune ownA --aggr-us 200000
# every command that names a context, by id, straight to the module
for r in CTX_GET SET_ATTRS TARGET_ADD TARGET_DEL PROBE_ADD PROBE_DEL \
	SET_FILTERS START STOP SNAPSHOT_GET/dump AUX_ATTACH CTX_DEL; do
	c=${r%/dump}
	d=
	[ "$c" = "$r" ] || d=--dump
	n=
	eval "n=\$CMD_$c"
	# shellcheck disable=SC2086 # $d: empty or --dump
	expect_err "B: raw $r on ownA refused" EACCES "$REASON" \
		asb damonctl debug raw $d --cmd "$n" -a "$A_CTX_ID:u32:${ID_A:-0}"
done
running() { damonctl status "$1" 2>/dev/null | grep -q running; }
check "ownA still runs" running ownA

# subscriptions: each user's its own aggregations only, root's all.
# own_monitor WHO AS OWN OTHER: AS's monitor of 4 aggregations holds OWN's
# and none of OTHER's (--duration only a backstop: the count ends it)
own_monitor() {
	"$2" damonctl monitor --count 4 --duration 300 --json \
		> /tmp/own.mon 2>&1
	_rc=$?
	_n=$(grep -c "\"ctx_name\": *\"$3\"" /tmp/own.mon)
	_x=$(grep -c "\"ctx_name\": *\"$4\"" /tmp/own.mon)
	if [ $_rc -eq 0 ] && [ "$_n" -ge 4 ] && [ "$_x" -eq 0 ]; then
		ok "$1's subscription: $_n aggregations of $3, none of $4"
	else
		diag "$(head -c 2000 /tmp/own.mon)"
		not_ok "$1's subscription: exit $_rc, $_n of $3, $_x of $4 (want 0)"
	fi
}
own_monitor B asb ownB ownA
own_monitor A asa ownA ownB
damonctl monitor --count 8 --duration 300 --json > /tmp/own.mon 2>&1
na=$(grep -c '"ctx_name": *"ownA"' /tmp/own.mon)
nb=$(grep -c '"ctx_name": *"ownB"' /tmp/own.mon)
if [ "$na" -ge 1 ] && [ "$nb" -ge 1 ]; then
	ok "root's subscription: both ($na of ownA, $nb of ownB)"
else
	not_ok "root's subscription: $na of ownA, $nb of ownB"
fi

# targets: ptrace read access, as perf_event_open() asks of a task event
check "B creates bada" rawctx asb -- CTX_NEW bada -a "$A_CTX_OPS:u32:$OPS_VADDR"
expect_err "B cannot target A's process" EACCES "no ptrace read access" \
	rawctx asb -- TARGET_ADD bada "$(target "$SLEEP_A")"
check "B can target its own process" \
	rawctx asb -- TARGET_ADD bada "$(target "$SLEEP_B")"
check "B deletes bada" rawctx asb -- CTX_DEL bada
check "root creates roota" rawctx -- CTX_NEW roota -a "$A_CTX_OPS:u32:$OPS_VADDR"
check "root targets A's process" \
	rawctx -- TARGET_ADD roota "$(target "$SLEEP_A")"
check "root targets B's process" \
	rawctx -- TARGET_ADD roota "$(target "$SLEEP_B")"
check "root deletes roota" rawctx -- CTX_DEL roota

# root: every context
check "root tunes ownB" damonctl tune ownB --aggr-us 200000
check "root reads ownA's regions" damonctl report ownA
check "root stops ownB" damonctl stop ownB
check_fail "ownB is gone" lists ownB

# A in another PID namespace is another owner
cat > /tmp/own_ns.sh <<'EOF'
. /tests/lib.sh
A=$1
# forked by a shell that already runs as A: A's from its start
capexec $A none sh -c 'sleep 600 & echo $! > /tmp/own_ns.d/pid; wait' &
i=0
while [ ! -s /tmp/own_ns.d/pid ] && [ $i -lt 100 ]; do i=$((i + 1)); sleep 0.1; done
cp /tmp/own_ns.d/pid /tmp/own_ns.pid
{
	capexec $A perfmon damonctl debug raw --cmd $CMD_CTX_NEW \
		-a "$A_CTX_NAME:str:nsA" -a "$A_CTX_OPS:u32:$OPS_VADDR" &&
	capexec $A perfmon damonctl debug raw --cmd $CMD_TARGET_ADD \
		-a "$A_CTX_NAME:str:nsA" \
		-a "$A_TARGET:nest:$(nla_u32 "$TARGET_A_PID" "$(cat /tmp/own_ns.pid)")"
} > /tmp/own_ns.start 2>&1
echo $? > /tmp/own_ns.start.rc
capexec $A perfmon damonctl status > /tmp/own_ns.list 2>&1
capexec $A perfmon damonctl debug raw --cmd $CMD_STOP \
	-a "$A_CTX_ID:u32:$2" > /tmp/own_ns.stop 2>&1
echo $? > /tmp/own_ns.stop.rc
touch /tmp/own_ns.ready
while [ ! -e /tmp/own_ns.end ]; do sleep 0.1; done
capexec $A perfmon damonctl debug raw --cmd $CMD_CTX_DEL \
	-a "$A_CTX_NAME:str:nsA" > /tmp/own_ns.del 2>&1
echo $? > /tmp/own_ns.del.rc
EOF
mkdir -p /tmp/own_ns.d && chmod 777 /tmp/own_ns.d
unshare -p -f sh /tmp/own_ns.sh $A "${ID_A:-0}" &
NS=$!
i=0
while [ ! -e /tmp/own_ns.ready ] && [ $i -lt 300 ]; do i=$((i + 1)); sleep 0.1; done
diag "inside: pid $(cat /tmp/own_ns.pid 2>/dev/null); $(cat /tmp/own_ns.start)"
check "A inside the namespace targets its process by its pid there" \
	[ "$(cat /tmp/own_ns.start.rc)" = 0 ]
diag "$(cat /tmp/own_ns.list)"
if grep -qw nsA /tmp/own_ns.list && ! grep -qw ownA /tmp/own_ns.list &&
	grep -qw "pid $(cat /tmp/own_ns.pid)" /tmp/own_ns.list; then
	ok "A inside lists nsA, its target by the pid there, and not ownA"
else
	not_ok "A inside lists nsA, its target by the pid there, and not ownA"
fi
diag "$(cat /tmp/own_ns.stop)"
if [ "$(cat /tmp/own_ns.stop.rc)" != 0 ] &&
	grep -q "(EACCES)" /tmp/own_ns.stop; then
	ok "A inside cannot stop ownA by id (EACCES)"
else
	not_ok "A inside cannot stop ownA by id"
fi
check_fail "A outside does not list nsA" lists nsA asa
hidden "A outside: stop nsA finds no such context" asa damonctl stop nsA
expect_err "A outside: tune nsA refused" EACCES "$REASON" \
	asa damonctl tune nsA --aggr-us 200000
check "root lists nsA" lists nsA
touch /tmp/own_ns.end
wait $NS
diag "$(cat /tmp/own_ns.del)"
check "A inside deletes nsA" [ "$(cat /tmp/own_ns.del.rc)" = 0 ]

check "A stops and deletes ownA" asa damonctl stop ownA
check_fail "ownA is gone" lists ownA
echo "$saved_paranoid" > $PARANOID
kill $SLEEP_A $SLEEP_B 2>/dev/null
wait $SLEEP_A $SLEEP_B 2>/dev/null
unload_module damon_perf
finish
