# SPDX-License-Identifier: GPL-2.0
# TAP helpers for the VM test scripts (busybox sh). Source it first:
#
#   . /tests/lib.sh
#   plan 3                      # optional; finish prints it otherwise
#   load_module damon_perf      # counts as a test
#   check "debugfs dir exists" test -d /sys/kernel/debug/damon_perf
#   unload_module damon_perf
#   finish                      # prints the plan if none, exits 0/1
#
# Output follows TAP: "ok N - desc", "not ok N - desc", diagnostics "# ...".
# The host counts these lines (scripts/logcheck tap), adds one test for a
# clean kernel log, and sums them into make check's final line.

DAMON_PERF_MODDIR=${DAMON_PERF_MODDIR:-/lib/damon_perf}
DAMON_PERF_KERNEL=${DAMON_PERF_KERNEL:-unknown}
_tap_n=0
_tap_failed=0
_tap_planned=

plan() {
	_tap_planned=$1
	echo "1..$1"
}

ok() {
	_tap_n=$((_tap_n + 1))
	echo "ok $_tap_n - $*"
}

not_ok() {
	_tap_n=$((_tap_n + 1))
	_tap_failed=$((_tap_failed + 1))
	echo "not ok $_tap_n - $*"
}

# skip "desc" "reason": a test that cannot run here (counted, not failed).
skip() {
	_tap_n=$((_tap_n + 1))
	echo "ok $_tap_n - $1 # SKIP ${2:-}"
}

# todo "desc" "reason": a known gap; reported as not ok # TODO (not failed).
todo() {
	_tap_n=$((_tap_n + 1))
	echo "not ok $_tap_n - $1 # TODO ${2:-}"
}

diag() {
	echo "$*" | sed 's/^/# /'
}

# check "desc" cmd args...: one test, ok when cmd exits 0. The command's
# output is shown as diagnostics.
check() {
	_desc=$1
	shift
	if _out=$("$@" 2>&1); then
		[ -n "$_out" ] && diag "$_out"
		ok "$_desc"
	else
		_rc=$?
		[ -n "$_out" ] && diag "$_out"
		not_ok "$_desc (exit $_rc: $*)"
		return 1
	fi
}

# check_fail "desc" cmd args...: ok when cmd fails (exit != 0).
check_fail() {
	_desc=$1
	shift
	if _out=$("$@" 2>&1); then
		[ -n "$_out" ] && diag "$_out"
		not_ok "$_desc (unexpected success: $*)"
		return 1
	fi
	[ -n "$_out" ] && diag "$_out"
	ok "$_desc"
}

# as_nobody cmd args...: run as the unprivileged user (uid 65534).
as_nobody() {
	su -s /bin/sh nobody -c "$*"
}

module_loaded() {
	grep -q "^$1 " /proc/modules
}

# load_module NAME [params...]: insmod /lib/damon_perf/NAME.ko, one test.
load_module() {
	_m=$1
	shift
	if [ ! -f "$DAMON_PERF_MODDIR/$_m.ko" ]; then
		not_ok "load $_m (no $DAMON_PERF_MODDIR/$_m.ko in the image)"
		return 1
	fi
	check "load $_m" insmod "$DAMON_PERF_MODDIR/$_m.ko" "$@"
}

# unload_module NAME: rmmod, and the module must be gone. One test.
unload_module() {
	if ! _out=$(rmmod "$1" 2>&1); then
		diag "$_out"
		not_ok "unload $1 (rmmod failed)"
		return 1
	fi
	if module_loaded "$1"; then
		not_ok "unload $1 (still in /proc/modules)"
		return 1
	fi
	ok "unload $1"
}

# kunit_results: print every suite's debugfs results as diagnostics (the
# console KTAP is what the host counts; prefixed lines are not counted).
kunit_results() {
	for _r in /sys/kernel/debug/kunit/*/results; do
		[ -f "$_r" ] || continue
		sed "s|^|# kunit-results $(basename "$(dirname "$_r")"): |" "$_r"
	done
}

# numa_balancing_fast: turn NUMA balancing on with short scan periods, so a
# multi-threaded workload takes hinting faults within a second.
numa_balancing_fast() {
	echo 1 > /proc/sys/kernel/numa_balancing || return 1
	_d=/sys/kernel/debug/sched/numa_balancing
	[ -d "$_d" ] || return 0
	echo 100 > $_d/scan_delay_ms
	echo 100 > $_d/scan_period_min_ms
	echo 200 > $_d/scan_period_max_ms
}

# start_workload ARGS...: start /bin/workload in the background (waiting
# up to WORKLOAD_WAIT tenths of a second, default 100, for its line); sets
# WORKLOAD_PID, WORKLOAD_HOT_START, WORKLOAD_HOT_END (hex) once it printed
# its line. Output in /tmp/workload.out.
start_workload() {
	# 4 KiB pages even where madvise(MADV_NOHUGEPAGE) does not exist.
	_thp=/sys/kernel/mm/transparent_hugepage/enabled
	[ -w $_thp ] && echo never > $_thp
	rm -f /tmp/workload.out
	/bin/workload "$@" > /tmp/workload.out 2>&1 &
	WORKLOAD_PID=$!
	_i=0
	while ! grep -q '^WORKLOAD pid=' /tmp/workload.out 2>/dev/null; do
		_i=$((_i + 1))
		[ $_i -gt "${WORKLOAD_WAIT:-100}" ] && { cat /tmp/workload.out; return 1; }
		kill -0 "$WORKLOAD_PID" 2>/dev/null || { cat /tmp/workload.out; return 1; }
		sleep 0.1
	done
	_line=$(grep '^WORKLOAD pid=' /tmp/workload.out)
	WORKLOAD_HOT_START=$(echo "$_line" | sed 's/.*hot_start=\([^ ]*\).*/\1/')
	WORKLOAD_HOT_END=$(echo "$_line" | sed 's/.*hot_end=\([^ ]*\).*/\1/')
	diag "$_line"
}

stop_workload() {
	[ -n "${WORKLOAD_PID:-}" ] || return 0
	kill "$WORKLOAD_PID" 2>/dev/null
	wait "$WORKLOAD_PID" 2>/dev/null
	WORKLOAD_PID=
}

# finish: print the plan when none was given, check the count, exit.
finish() {
	if [ -z "$_tap_planned" ]; then
		echo "1..$_tap_n"
	elif [ "$_tap_planned" -ne "$_tap_n" ]; then
		echo "# planned $_tap_planned tests, ran $_tap_n"
		exit 1
	fi
	[ "$_tap_failed" -eq 0 ] || exit 1
	exit 0
}

# expect_err DESC ERRNO_NAME REGEX CMD...: CMD must fail, print (ERRNO_NAME)
# and match REGEX (its one-line error), else the test fails.
expect_err() {
	_d=$1 _e=$2 _p=$3
	shift 3
	if _out=$("$@" 2>&1); then
		diag "$_out"
		not_ok "$_d (unexpected success)"
		return 1
	fi
	diag "$_out"
	if echo "$_out" | grep -q "($_e)" && echo "$_out" | grep -qE "$_p"; then
		ok "$_d"
	else
		not_ok "$_d (want $_e and /$_p/)"
	fi
}

