#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kernels: stock debug
# timeout: 300
# Targets named from where the requester stands. A vaddr target whose
# thread-group leader called pthread_exit() stays alive in its other
# threads (its mm is theirs). In a PID namespace (busybox unshare -p -f),
# target pids and tid filter values are that namespace's: they are
# translated on input, status shows them as the reader's namespace sees
# them, and a tid filter given inside the namespace matches the thread's
# samples. Needs /bin/nsprobe (tests/vm/nsprobe.c).
. /tests/lib.sh

if [ ! -x /bin/damonctl ] || [ ! -x /bin/nsprobe ]; then
	todo "targets across PID namespaces" "damonctl or nsprobe not in the image"
	finish
fi
load_module damon_perf || finish

# wait_line FILE PATTERN: until FILE has a line matching PATTERN (10 s).
wait_line() {
	_i=0
	while ! grep -q "$2" "$1" 2>/dev/null; do
		_i=$((_i + 1))
		[ $_i -gt 100 ] && return 1
		sleep 0.1
	done
}
# hits FILE: whether a recorded aggregation credited some region.
hits() { grep -qE '"nr_accesses": ?[1-9]' "$1"; }
START="-e page-faults --sample-us 5000 --aggr-us 100000 --update-us 200000"

# --- the leader calls pthread_exit(); the process lives on -------------
/bin/nsprobe -x -t 60 > /tmp/lx.out 2>&1 &
wait_line /tmp/lx.out '^NSPROBE' || diag "$(cat /tmp/lx.out)"
pid=$(sed -n 's/^NSPROBE pid=\([0-9]*\).*/\1/p' /tmp/lx.out)
sleep 0.2
diag "leader $pid: $(grep State /proc/$pid/status)"
check "start on a process whose leader exited" \
	damonctl start -n lx -p "$pid" $START
# ten update intervals: each one looked for the target's mm
check "ten update intervals pass" \
	damonctl record -o /tmp/lx.rec --count 10 --duration 60 lx
if damonctl status lx | grep -q running &&
   ! damonctl status lx | grep -q exited; then
	ok "the target is alive and the context runs"
else
	diag "$(damonctl status lx)"
	not_ok "the target is alive and the context runs"
fi
if hits /tmp/lx.rec; then ok "its worker's faults are credited"
else not_ok "its worker's faults are credited"; fi
damonctl stop lx >/dev/null 2>&1
kill "$pid" 2>/dev/null
wait 2>/dev/null

# --- a PID namespace ------------------------------------------------------
rm -f /tmp/ns.*
cat > /tmp/ns.sh <<'EOF'
/bin/nsprobe -t 120 > /tmp/ns.probe 2>&1 &
i=0
while ! grep -q '^NSPROBE' /tmp/ns.probe 2>/dev/null; do
	i=$((i + 1)); [ $i -gt 100 ] && break; sleep 0.1
done
set -- $(sed -n 's/^NSPROBE pid=\([0-9]*\) tid=\([0-9]*\).*/\1 \2/p' /tmp/ns.probe)
echo "$1 $2" > /tmp/ns.ids
i=0
while [ ! -s /tmp/ns.gtid ] && [ $i -lt 100 ]; do i=$((i + 1)); sleep 0.1; done
damonctl start -n nsbad -p "$1" -f "tid:$(cat /tmp/ns.gtid)" $START > /tmp/ns.bad 2>&1
echo $? > /tmp/ns.bad.rc
damonctl stop nsbad > /dev/null 2>&1
# keep the worker's samples, drop every other (the first match decides)
damonctl start -n ns -p "$1" -f "tid:$2" -f "!cpumask:0-$(($(nproc) - 1))" \
	$START > /tmp/ns.start 2>&1
echo $? > /tmp/ns.start.rc
damonctl status ns > /tmp/ns.status 2>&1
touch /tmp/ns.ready
while [ ! -e /tmp/ns.stop ]; do sleep 0.1; done
EOF
START=$START unshare -p -f sh /tmp/ns.sh &
nspid=$!
wait_line /tmp/ns.ids '.'
read -r lpid ltid < /tmp/ns.ids
gpid=$(pidof nsprobe | tr ' ' '\n' | sort -n | tail -n 1)
gtid=$(for t in "/proc/$gpid/task/"*; do
	t=${t##*/}
	[ "$t" = "$gpid" ] || { echo "$t"; break; }
done)
echo "$gtid" > /tmp/ns.gtid
i=0
while [ ! -e /tmp/ns.ready ] && [ $i -lt 200 ]; do i=$((i + 1)); sleep 0.1; done
diag "inside: pid $lpid tid $ltid; outside: pid $gpid tid $gtid"
if [ "$(cat /tmp/ns.start.rc)" = 0 ]; then
	ok "start inside the namespace with its own pid and tid"
else
	diag "$(cat /tmp/ns.start)"
	not_ok "start inside the namespace with its own pid and tid"
fi
if [ "$(cat /tmp/ns.bad.rc)" != 0 ] && grep -q "no thread" /tmp/ns.bad; then
	ok "a tid the namespace cannot see is refused"
else
	diag "$(cat /tmp/ns.bad)"
	not_ok "a tid the namespace cannot see is refused"
fi
diag "$(cat /tmp/ns.status)"
if grep -qw "pid $lpid" /tmp/ns.status &&
   grep -qw "tids $ltid" /tmp/ns.status; then
	ok "status inside shows the namespace's pid and tid"
else
	not_ok "status inside shows the namespace's pid and tid ($lpid, $ltid)"
fi
damonctl status ns > /tmp/ns.status.out 2>&1
diag "$(cat /tmp/ns.status.out)"
if grep -qw "pid $gpid" /tmp/ns.status.out &&
   grep -qw "tids $gtid" /tmp/ns.status.out; then
	ok "status outside shows the global pid and tid"
else
	not_ok "status outside shows the global pid and tid ($gpid, $gtid)"
fi
check "three aggregations" \
	damonctl record -o /tmp/ns.rec --count 3 --duration 60 ns
if hits /tmp/ns.rec; then
	ok "the tid filter given inside keeps the thread's samples"
else
	not_ok "the tid filter given inside keeps the thread's samples"
fi
damonctl stop >/dev/null 2>&1
touch /tmp/ns.stop
wait "$nspid" 2>/dev/null
unload_module damon_perf
finish
