#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kernels: bookworm
# timeout: 1800
# make bench, VM part: damon_perf's cost as curves, one parameter at a
# time, on Debian's stock 6.1 (no debug options). Not part of make check;
# scripts/bench.sh boots it (once per vCPU count) and plots its lines
# (scripts/lib/bench_curves.py).
#
# Every point: fresh /bin/workload processes with -f (every touch of the
# hot range faults: a steady stream of page faults, no NUMA balancing),
# a damon_perf vaddr context on them (page-fault probe, --exclude-kernel,
# sample 10 ms, aggregation 100 ms, ring 4096), BENCH_WARMUP seconds
# (default 2), then a window of BENCH_WINDOW seconds (default 5) over
# which it reads the kdamond's CPU time (/proc/PID/schedstat) and
# perf_stats (callback, handler_ns, dequeue). Curves (BENCH_CURVES, comma-
# separated; default "rate,regions,targets,cpus"):
#   rate     one 64 MiB process (16 MiB hot), probe period 1000 .. 1
#            (BENCH_CURVE_PERIODS): the sample rate
#   regions  one 256 MiB process (64 MiB hot), period 10, min = max
#            regions 10 .. 10000 (the module's largest)
#   targets  1 .. 16 processes of 16 MiB (4 MiB hot, one thread each),
#            period 10, one context with every one as a target
#   cpus     the rate curve's period-10 point on this VM's vCPU count
# Prints one line per point:
#   BENCH curve curve=NAME x=N cpus=N samples_per_s=F kdamond_ms_per_s=F
#         kdamond_ns_per_sample=F handler_ns_per_sample=F drained=N
. /tests/lib.sh

window=${BENCH_WINDOW:-5}
warmup=${BENCH_WARMUP:-2}
curves=$(echo "${BENCH_CURVES:-rate,regions,targets,cpus}" | tr ',' ' ')
periods=$(echo "${BENCH_CURVE_PERIODS:-1000 300 100 30 10 3 1}" | tr ',' ' ')
cpus=$(grep -c '^processor' /proc/cpuinfo)
PIDS=

# spawn N ARGS...: N workload processes, their PIDs in PIDS
spawn() {
	_n=$1
	shift
	_thp=/sys/kernel/mm/transparent_hugepage/enabled
	[ -w $_thp ] && echo never > $_thp
	PIDS=
	_i=0
	while [ $_i -lt "$_n" ]; do
		_i=$((_i + 1))
		rm -f /tmp/curve.$_i
		/bin/workload "$@" > /tmp/curve.$_i 2>&1 &
		PIDS="$PIDS $!"
	done
	# every one past its first touch (or the reason it ended)
	_i=0
	for _pid in $PIDS; do
		_i=$((_i + 1))
		while ! grep -q '^WORKLOAD pid=' /tmp/curve.$_i 2>/dev/null; do
			if ! kill -0 "$_pid" 2>/dev/null; then
				diag "workload $_i: $(cat /tmp/curve.$_i)"
				return 1
			fi
			sleep 0.1
		done
	done
}

reap() {
	# shellcheck disable=SC2086 # one PID a word
	[ -n "$PIDS" ] && kill $PIDS 2>/dev/null
	for _p in $PIDS; do wait "$_p" 2>/dev/null; done
	PIDS=
}

# kdamond_ns: the CPU time of the (only) damon_perf kdamond, in ns
kdamond_ns() {
	for _t in /proc/[0-9]*; do
		case "$(cat "$_t/comm" 2>/dev/null)" in
		kdamond.*) awk '{ print $1 }' "$_t/schedstat"; return ;;
		esac
	done
	echo 0
}

# uptime_cs: /proc/uptime in centiseconds
uptime_cs() { awk '{ printf "%.0f\n", $1 * 100 }' /proc/uptime; }

# point CURVE X PERIOD REGIONS: one context on PIDS, one BENCH line
point() {
	_p=""
	for _pid in $PIDS; do _p="$_p -p $_pid"; done
	_min=10 _max=1000
	[ "$4" != - ] && _min=$4 _max=$4
	# shellcheck disable=SC2086 # -p PID, several
	damonctl start -n curve $_p -e page-faults --period "$3" \
		--exclude-kernel --sample-us 10000 --aggr-us 100000 \
		--min-nr-regions "$_min" --max-nr-regions "$_max" \
		--ring-size 4096 > /dev/null || return 1
	sleep "$warmup"
	_k0=$(kdamond_ns) _c0=$(col callback) _h0=$(col handler_ns)
	_d0=$(col dequeue) _t0=$(uptime_cs)
	sleep "$window"
	_k1=$(kdamond_ns) _c1=$(col callback) _h1=$(col handler_ns)
	_d1=$(col dequeue) _t1=$(uptime_cs)
	damonctl stop curve > /dev/null || return 1
	awk -v c="$1" -v x="$2" -v cpus="$cpus" -v k=$((_k1 - _k0)) \
		-v n=$((_c1 - _c0)) -v h=$((_h1 - _h0)) -v d=$((_d1 - _d0)) \
		-v t=$((_t1 - _t0)) 'BEGIN {
		s = t / 100
		printf "BENCH curve curve=%s x=%s cpus=%d samples_per_s=%.0f kdamond_ms_per_s=%.3f kdamond_ns_per_sample=%.0f handler_ns_per_sample=%.0f drained=%d\n",
			c, x, cpus, n / s, k / 1e6 / s, n ? k / n : 0,
			n ? h / n : 0, d
	}'
}

# curve NAME: every point of it, one check
curve() {
	_fails=0
	case $1 in
	rate|cpus)
		spawn 1 -s 64 -h 16 -t 0 -f || return 1
		if [ "$1" = cpus ]; then
			point cpus "$cpus" 10 - || _fails=$((_fails + 1))
		else
			for _per in $periods; do
				point rate "$_per" "$_per" - || _fails=$((_fails + 1))
			done
		fi ;;
	regions)
		spawn 1 -s 256 -h 64 -t 0 -f || return 1
		for _r in 10 100 1000 10000; do
			point regions "$_r" 10 "$_r" || _fails=$((_fails + 1))
		done ;;
	targets)
		for _n in 1 2 4 8 16; do
			spawn "$_n" -s 16 -o 0 -h 4 -t 0 -f -n 1 || return 1
			point targets "$_n" 10 - || _fails=$((_fails + 1))
			reap
		done ;;
	*)
		diag "no curve $1"
		return 1 ;;
	esac
	reap
	return $_fails
}

need_damonctl "the curves bench"
diag_machine
load_module damon_perf || finish
for c in $curves; do
	rc=0
	curve "$c" || rc=$?
	reap
	check "curve $c: every point measured" test $rc = 0
done
check "perf_stats add up" stats_balanced
unload_module damon_perf
finish
