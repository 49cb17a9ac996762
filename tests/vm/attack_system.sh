#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kernels: debug bookworm
# timeout: 1800
# Attack tiers around the module (the netlink ones are attack_netlink.sh):
#  - CPU hotplug torture: cpu1 offlined and onlined ATTACK_HOTPLUG times
#    (default 200; ATTACK_LONG=1: 1000) while a page-fault probe samples;
#    every 25th cycle samples on cpu1 must resume (its counter re-created),
#    no creation fails, the context runs on and stops cleanly;
#  - concurrency: four processes create, start, tune, stop and destroy
#    contexts at once (ATTACK_CONC rounds of 12 damonctl runs each, default
#    4; ATTACK_LONG=1: 16) while samples flow,
#    against targets that fork, exec and exit
#    mid-run, with rmmod attempted throughout: it must fail while a context
#    runs and succeed after; every damonctl exits 0 or 1 (a refusal with a
#    message), none crashes or hangs. A PMU type has one owner context at
#    a time (kmod/probe.c), so the workers' page-fault contexts race for
#    the software PMU (the anchor holds the tracepoint PMU): what must
#    succeed follows from that. Every status succeeds; the first start of
#    the tier finds the software PMU free, so at least one round's own
#    context starts; and in a round whose own context started (a round
#    "won"), the rest of that context's life is decided: tune, report,
#    stop --keep and stop succeed; the round's other starts (another
#    context on the PMU it owns) and a second start of its name are
#    refused; stopping the round's refused context finds nothing;
#  - fault injection: nlattack inject fails each allocation of context
#    creation, target and probe add, filters and start (probe arm, rings,
#    kdamond) in turn (fail-nth, task-local: failslab, fail_page_alloc and
#    the module's own sites, kmod/fault.h);
#    each fails with an error, nothing is left half-built, a retry succeeds.
# The harness then checks the log (KASAN, lockdep) and kmemleak.
# Fault injection needs the debug kernel.
# Longer runs: scripts/vm.sh --kernel debug --timeout 7200 --append
#   "ATTACK_LONG=1 DAMON_PERF_SCRIPT_TIMEOUT=6000" tests/vm/attack_system.sh
. /tests/lib.sh

LONG=${ATTACK_LONG:-0}
HOTPLUG=${ATTACK_HOTPLUG:-$([ "$LONG" = 1 ] && echo 1000 || echo 200)}
CONC=${ATTACK_CONC:-$([ "$LONG" = 1 ] && echo 16 || echo 4)}
ONLINE=/sys/devices/system/cpu/cpu1/online

load_module damon_perf || finish
start_workload -s 16 -o 4 -h 4 -t 0 -n 2 || { not_ok "workload started"; finish; }
ok "workload started"
# The workload's threads (and the forker below) run at the lowest
# priority: they fault and fork whenever a CPU would otherwise idle, and
# leave the CPUs to the hotplug loop and the workers first (at the
# default priority they held both vCPUs: a damonctl run of the
# concurrency tier took about 1.5 s on 6.1, 2.8 s on the debug kernel).
lowest() { for _t in "$@"; do renice -n 19 -p "${_t##*/}" > /dev/null; done; }
lowest "/proc/$WORKLOAD_PID/task/"*

# ---- CPU hotplug torture ----
if [ -w "$ONLINE" ]; then
	check "hotplug: page-fault probe" damonctl start -n hp -p "$WORKLOAD_PID" \
		-e page-faults --period 1 --exclude-kernel --sample-us 5000 \
		--aggr-us 100000
	i=1 bad=0 checked=0 resumed=0
	while [ $i -le "$HOTPLUG" ]; do
		echo 0 > $ONLINE || bad=$((bad + 1))
		echo 1 > $ONLINE || bad=$((bad + 1))
		if [ $((i % 25)) -eq 0 ]; then
			checked=$((checked + 1))
			pre=$(col sample_valid 1)
			j=0
			while [ $j -lt 50 ]; do
				sleep 0.2
				now=$(col sample_valid 1)
				[ -n "$now" ] && [ -n "$pre" ] && [ "$now" -gt "$pre" ] &&
					{ resumed=$((resumed + 1)); break; }
				j=$((j + 1))
			done
			[ $j -lt 50 ] || diag "cycle $i: cpu1 sample_valid stuck at '$pre'"
		fi
		i=$((i + 1))
	done
	if [ $bad -eq 0 ]; then
		ok "hotplug: cpu1 offlined and onlined $HOTPLUG times while sampling"
	else
		not_ok "hotplug: $bad of $((2 * HOTPLUG)) transitions failed"
	fi
	if [ $resumed -eq $checked ] && [ $checked -gt 0 ]; then
		ok "hotplug: cpu1's counter came back ($resumed of $checked checks)"
	else
		not_ok "hotplug: cpu1's counter came back ($resumed of $checked checks)"
	fi
	af=$(status_field hp arm_failures)
	if [ "$af" = 0 ]; then ok "hotplug: no counter creation failed"
	else not_ok "hotplug: no counter creation failed (arm_failures '$af')"; fi
	check "hotplug: context still running" sh -c "damonctl status hp | grep -q running"
	check "hotplug: stop" damonctl stop hp
	check "hotplug: perf_stats balanced" stats_balanced
else
	skip "CPU hotplug torture" "cpu1 cannot be taken offline here"
fi

# ---- fault injection ----
if fault_injection_prepare; then
	# Injected page allocation failures print warnings with a stack (a
	# vmalloc error, for one); keep them off the console, and look for
	# real problems in the kernel log ourselves.
	echo "damon_perf: fault injection begins" > /dev/kmsg
	saved=$(cut -f1 /proc/sys/kernel/printk)
	echo 3 > /proc/sys/kernel/printk
	out=$(nlattack inject "$WORKLOAD_PID" 2>&1)
	rc=$?
	echo "$saved" > /proc/sys/kernel/printk
	diag "$out"
	if [ $rc -eq 0 ]; then
		ok "fault injection: $(echo "$out" | sed -n 's/^nlattack: inject: total: //p')"
	else
		not_ok "fault injection (exit $rc)"
	fi
	probs=$(kernel_reports_since 'damon_perf: fault injection begins')
	if [ -z "$probs" ]; then
		ok "fault injection: no BUG, WARNING, KASAN or lockdep report"
	else
		diag "$probs"
		not_ok "fault injection: kernel reports"
	fi
	check "fault injection: no context left" sh -c "damonctl status | grep -q 'no contexts'"
else
	skip "fault injection" "no fail-nth or failslab (debug kernel only)"
fi

# ---- concurrency ----
# Targets: the workload, a shell that forks and execs without pause, and
# short-lived processes that exit mid-run.
sh -c 'while :; do /bin/true; done' &
FORKER=$!
lowest $FORKER
# The anchor on the tracepoint PMU (sched_switch of the workload), so that
# the software PMU (page faults) is free for the workers' contexts: a PMU
# type has one owner context, and with the anchor on page faults every
# start of the workers was refused.
tp=$(cat /sys/kernel/debug/tracing/events/sched/sched_switch/id 2>/dev/null ||
	cat /sys/kernel/tracing/events/sched/sched_switch/id 2>/dev/null)
check "concurrency: an anchor context runs throughout (tracepoint PMU)" \
	damonctl start -n anchor -p "$WORKLOAD_PID" -e "tracepoint/config=${tp:-0}/" \
	--period 1 --sample-us 2000 --aggr-us 50000
# worker N: ATTACK_CONC rounds of create/start/tune/stop/destroy; the exit
# codes of a round's 12 runs, in order, are a line "N ROUND RC..." of
# /tmp/conc.rounds; exit codes other than 0 and 1 (2: stop or report of a
# context that is gone or never started, damonctl names it) are written
# to /tmp/conc.bad.
worker() {
	_w=$1 _r=0
	while [ $_r -lt "$CONC" ]; do
		sleep 5 &
		_short=$!
		_codes=
		for _c in \
			"start -n w$_w -p $WORKLOAD_PID -e page-faults --period 1 --exclude-kernel --sample-us 2000 --aggr-us 40000" \
			"start -n s$_r$_w -p $_short -e page-faults --period 3 --exclude-kernel" \
			"start -n shared -p $FORKER -e page-faults --period 2 --exclude-kernel" \
			"tune w$_w --aggr-us 80000" "tune shared --sample-us 4000 --aggr-us 40000" \
			"status" "report w$_w" "stop w$_w --keep" "start -n w$_w -p $WORKLOAD_PID" \
			"stop w$_w" "stop shared" "stop s$_r$_w"; do
			# shellcheck disable=SC2086
			timeout 60 damonctl $_c > /dev/null 2>&1
			_rc=$?
			_codes="$_codes $_rc"
			case "$_rc:$_c" in 0:* | 1:* | 2:stop* | 2:report*) ;;
			*) echo "worker $_w round $_r: damonctl $_c: exit $_rc" >> /tmp/conc.bad ;;
			esac
		done
		echo "$_w $_r$_codes" >> /tmp/conc.rounds
		kill $_short 2>/dev/null
		wait $_short 2>/dev/null
		_r=$((_r + 1))
	done
}
# rmmod throughout: must always fail (the anchor runs).
rmmodder() {
	while [ ! -f /tmp/conc.done ]; do
		if rmmod damon_perf 2>/dev/null; then
			echo "rmmod succeeded while the anchor ran" >> /tmp/conc.bad
			return
		fi
		echo x >> /tmp/conc.rmmod
		sleep 0.1
	done
}
rm -f /tmp/conc.rounds /tmp/conc.bad /tmp/conc.done /tmp/conc.rmmod
rmmodder &
RM=$!
pids=
for w in 1 2 3 4; do
	worker $w &
	pids="$pids $!"
done
# A hang shows as the workers never finishing: after 300 s, list the
# blocked tasks (sysrq w) so the log says where.
(sleep 300; [ -f /tmp/conc.done ] || { echo "# concurrency: still running after 300 s";
	echo "# rounds so far: $(cat /tmp/conc.rounds 2>/dev/null | tr '\n' ';')"
	for t in /proc/[0-9]*; do
		_st=$(sed -n 's/^State:[[:space:]]*//p' $t/status 2>/dev/null)
		case "$_st:$(cat $t/comm 2>/dev/null)" in
		D*) ;;
		*:damonctl | *:kdamond* | *:damon_perf*) ;;
		*) continue ;;
		esac
		echo "# task ${t#/proc/} $(cat $t/comm) [$_st] $(tr '\0' ' ' < $t/cmdline)"
		sed 's/^/#   /' $t/stack 2>/dev/null
	done
	sed 's/^/# /' "$PERF_STATS" 2>/dev/null | head -n 4; }) &
WD=$!
for p in $pids; do wait "$p"; done
touch /tmp/conc.done
kill $WD 2>/dev/null
wait $RM
check "concurrency: the forker ran throughout" kill -0 $FORKER
kill $FORKER 2>/dev/null
wait $FORKER 2>/dev/null
ops=$(awk '{ n += NF - 2 } END { print n + 0 }' /tmp/conc.rounds 2>/dev/null)
refused=$(awk '{ for (i = 3; i <= NF; i++) n += $i == 1 } END { print n + 0 }' \
	/tmp/conc.rounds 2>/dev/null)
rm_tries=$(wc -l < /tmp/conc.rmmod 2>/dev/null || echo 0)
diag "$ops damonctl runs ($refused refused with a message), $rm_tries rmmod attempts refused"
diag "rounds (worker, round, exit codes):"
diag "$(cat /tmp/conc.rounds 2>/dev/null)"
if [ ! -s /tmp/conc.bad ] && [ "$ops" -eq $((4 * CONC * 12)) ]; then
	ok "concurrency: $ops operations by 4 processes, each succeeded or was refused"
else
	diag "$(cat /tmp/conc.bad 2>/dev/null)"
	not_ok "concurrency: $ops operations by 4 processes"
fi
# The floors (the header says why each holds). Fields: worker, round,
# then the exit codes of: 3 start w, 4 start s, 5 start shared, 6 tune w,
# 7 tune shared, 8 status, 9 report w, 10 stop w --keep, 11 start w
# again, 12 stop w, 13 stop shared, 14 stop s.
# shellcheck disable=SC2046 # the counts into $1..$5
set -- $(awk '
	{ n++; st += $8 == 0 }
	$3 == 0 {
		won++
		if ($4 == 1 && $5 == 1 && $6 == 0 && $9 == 0 && $10 == 0 &&
		    $11 == 1 && $12 == 0 && $14 == 2)
			kept++
		else
			bad = bad " w" $1 "r" $2
	}
	END { printf "%d %d %d %d %s\n", n, st, won, kept, bad ? bad : "-" }' \
	/tmp/conc.rounds 2>/dev/null)
rounds=${1:-0} statuses=${2:-0} won=${3:-0} kept=${4:-0}
shift 4 2>/dev/null
if [ "$rounds" -eq $((4 * CONC)) ] && [ "$statuses" -eq "$rounds" ]; then
	ok "concurrency: status succeeded in every round ($statuses of $rounds)"
else
	not_ok "concurrency: status succeeded in every round ($statuses of $rounds, want $((4 * CONC)))"
fi
if [ "$won" -ge 1 ]; then
	ok "concurrency: a worker's own context started in $won of $rounds rounds (floor 1)"
else
	not_ok "concurrency: no worker's own context ever started ($rounds rounds): every start refused"
fi
if [ "$won" -ge 1 ] && [ "$kept" -eq "$won" ]; then
	ok "concurrency: in each of the $won rounds won, tune, report, stop --keep and stop succeeded, 2 other starts and the second start were refused"
else
	not_ok "concurrency: $kept of $won rounds won went as they must (not: $*)"
fi
if [ "$rm_tries" -gt 0 ] && ! grep -q rmmod /tmp/conc.bad 2>/dev/null; then
	ok "concurrency: rmmod refused while running ($rm_tries attempts)"
else
	not_ok "concurrency: rmmod refused while running ($rm_tries attempts)"
fi
check "concurrency: the anchor still runs" sh -c "damonctl status anchor | grep -q running"
# Tear everything down: every context stops and goes.
for c in $(damonctl status --json | sed -n 's/.*"name": *"\([^"]*\)".*/\1/p'); do
	damonctl stop "$c" > /dev/null 2>&1
done
check "concurrency: no context left" sh -c "damonctl status | grep -q 'no contexts'"
check "concurrency: perf_stats balanced" stats_balanced

stop_workload
unload_module damon_perf
finish
