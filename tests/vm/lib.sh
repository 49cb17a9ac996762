# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
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

# The numbers of include/uapi/linux/damon_perf.h (CMD_CTX_NEW, A_CTX_NAME,
# PROBE_A_TYPE, ...), generated when the image is built.
# shellcheck source=/dev/null
. /tests/uapi.sh

DAMON_PERF_MODDIR=${DAMON_PERF_MODDIR:-/lib/damon_perf}
PERF_STATS=/sys/kernel/debug/damon_perf/perf_stats
DAMON_PERF_KERNEL=${DAMON_PERF_KERNEL:-unknown}
# the module's build in the image: test (scripts/kbuild.sh's default) or
# prod (scripts/vm.sh --prod: no test hook, export or module)
DAMON_PERF_FLAVOUR=${DAMON_PERF_FLAVOUR:-test}
_tap_n=0
_tap_failed=0
_tap_planned=

plan() {
	_tap_planned=$1
	echo "1..$1"
}

# _tap ok|"not ok" TEXT: the next numbered result line.
_tap() {
	_tap_n=$((_tap_n + 1))
	echo "$1 $_tap_n - $2"
}
ok() { _tap ok "$*"; }
not_ok() {
	_tap_failed=$((_tap_failed + 1))
	_tap "not ok" "$*"
}
# skip "desc" "reason": a test that cannot run here. make check counts it
# as skipped when tests/skips.allow names it, with this reason, for the
# kernel it ran on, and as failed otherwise: say in the reason what is
# missing (a kernel option, a CPU), so an entry can name it.
skip() { _tap ok "$1 # SKIP ${2:-}"; }
# todo "desc" "reason": a known gap, "not ok # TODO"; counted as a skip is.
todo() { _tap "not ok" "$1 # TODO ${2:-}"; }

diag() {
	echo "$*" | sed 's/^/# /'
}

# _run cmd args...: run cmd, its output (shown as diagnostics) in _out, its
# exit status in _rc and returned.
_run() {
	_out=$("$@" 2>&1)
	_rc=$?
	[ -z "$_out" ] || diag "$_out"
	return $_rc
}

# check "desc" cmd args...: one test, ok when cmd exits 0. The command's
# output is shown as diagnostics.
check() {
	_desc=$1
	shift
	_run "$@" && { ok "$_desc"; return 0; }
	not_ok "$_desc (exit $_rc: $*)"
	return 1
}

# check_fail "desc" cmd args...: ok when cmd fails (exit != 0).
check_fail() {
	_desc=$1
	shift
	_run "$@" || { ok "$_desc"; return 0; }
	not_ok "$_desc (unexpected success: $*)"
	return 1
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

# score_aggregations FILE MS ME HS HE [KEY...]: per line of a damonctl
# recording (compact JSON, one aggregation a line), "SEQ P R" and the
# value of each KEY ("-" when missing). P: of the mapping's [MS, ME) bytes
# in regions with nr_accesses >= 1, the share inside the hot range
# [HS, HE) (0 when none: an empty hot set); R: of the hot range's bytes,
# the share in such regions.
score_aggregations() {
	_f=$1 _ms=$2 _me=$3 _hs=$4 _he=$5
	shift 5
	awk -v ms="$_ms" -v me="$_me" -v hs="$_hs" -v he="$_he" -v keys="$*" '
	function max(a, b) { return a > b ? a : b }
	function min(a, b) { return a < b ? a : b }
	function val(o, key,   v) {
		if (!match(o, "\"" key "\":(\"[^\"]*\"|[0-9]+)")) return "-"
		v = substr(o, RSTART, RLENGTH); sub(/^[^:]*:/, "", v)
		gsub(/"/, "", v); return v
	}
	# + 0: numbers, not strings, in every comparison below
	BEGIN { ms += 0; me += 0; hs += 0; he += 0; nk = split(keys, k, " ") }
	{
		sel = 0; hit = 0; rest = $0
		while (match(rest, /"end":[0-9]+,"nr_accesses":[0-9]+,[^}]*"start":[0-9]+/)) {
			obj = substr(rest, RSTART, RLENGTH)
			rest = substr(rest, RSTART + RLENGTH)
			if (val(obj, "nr_accesses") + 0 < 1) continue
			cs = max(val(obj, "start") + 0, ms); ce = min(val(obj, "end") + 0, me)
			if (ce <= cs) continue
			sel += ce - cs
			os = max(cs, hs); oe = min(ce, he)
			if (oe > os) hit += oe - os
		}
		line = sprintf("%d %.3f %.3f", val($0, "seq"), sel ? hit / sel : 0,
			       hit / (he - hs))
		for (i = 1; i <= nk; i++) line = line " " val($0, k[i])
		print line
	}' "$_f"
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

# numa_balancing_steady: numa_balancing_fast, and hinting faults on a
# mapping the workload keeps reading at a steady pace on 6.4 and later.
# There task_numa_work() skips a VMA in which the scanning thread took no
# hinting fault within the last one or two VMA_PID_RESET_PERIODs (4 x
# scan_delay_ms: 400 ms after numa_balancing_fast), and once every VMA
# was skipped it forces the scan of one VMA per pass (6.7+), round robin:
# the faults came in bursts up to 2.9 s apart (schemes_phase, 6.12). A
# scan delay of 1 s keeps the access record 4 to 8 s, so the mapping is
# scanned once per sequence, and a period of 100 ms makes a sequence
# short: bursts at most 0.80 s apart on 6.12 and 7.2 (0.62 s typical).
# The cost: a new process or VMA waits 1 s for its first scan.
numa_balancing_steady() {
	numa_balancing_fast || return 1
	_d=/sys/kernel/debug/sched/numa_balancing
	[ -d "$_d" ] || return 0
	echo 1000 > $_d/scan_delay_ms
	echo 100 > $_d/scan_period_max_ms
}

# migrations_traced: trace every migrate_pages() call from now on (the
# migrate:mm_migrate_pages tracepoint: pages moved and why); false when the
# kernel has no such event.
migrations_traced() {
	_T=/sys/kernel/tracing
	[ -d $_T/events/migrate ] || _T=/sys/kernel/debug/tracing
	[ -w $_T/events/migrate/mm_migrate_pages/enable ] || return 1
	echo 8192 > $_T/buffer_size_kb 2>/dev/null
	echo 0 > $_T/tracing_on
	echo > $_T/trace
	echo 1 > $_T/events/migrate/mm_migrate_pages/enable
	echo 1 > $_T/tracing_on
}

# migrations_by_reason: "REASON PAGES" for each reason of the pages
# migrate_pages() moved since migrations_traced (syscall_or_cpuset:
# move_pages(2) and mbind(2); compaction, numa_misplaced, ...), and
# "lost N" when the trace buffer overran.
migrations_by_reason() {
	sed -n 's/.*nr_succeeded=\([0-9]*\).* reason=\([a-z_]*\).*/\2 \1/p' \
		"$_T/trace" | awk '{ s[$1] += $2 } END { for (r in s) print r, s[r] }'
	awk '/^# entries-in-buffer/ { split($3, a, "/"); if (a[2] > a[1]) print "lost", a[2] - a[1] }' \
		"$_T/trace"
}

# migrated_by REASON: the pages migrate_pages() moved for REASON since
# migrations_traced.
migrated_by() {
	migrations_by_reason | awk -v r="$1" '$1 == r { n = $2 } END { print n + 0 }'
}

# migrations_by_task REASON: "TASK-TID PAGES" for each task that moved
# pages for REASON since migrations_traced (the task the event fired in:
# for numa_misplaced the one that took the hinting fault).
migrations_by_task() {
	sed -n "s/^ *\(.*-[0-9]*\) *\[[0-9]*\].* mm_migrate_pages: nr_succeeded=\([0-9]*\) .* reason=$1\$/\1 \2/p" \
		"$_T/trace" | awk '{ s[$1] += $2 } END { for (t in s) print t, s[t] }'
}

# migrated_in PID REASON: the pages migrate_pages() moved for REASON in
# the threads of process PID (its /proc/PID/task now) since
# migrations_traced.
migrated_in() {
	_tids=' '
	for _d in "/proc/$1/task/"*; do _tids="$_tids${_d##*/} "; done
	migrations_by_task "$2" | awk -v t="$_tids" '
		{ n = split($1, a, "-"); if (index(t, " " a[n] " ")) s += $2 }
		END { print s + 0 }'
}

# migrations_counted MIG0 NUMA0 TRACED: set MIG_ALL (pages every
# migration moved since /proc/vmstat's pgmigrate_success was MIG0),
# MIG_NUMA (NUMA balancing's, since numa_pages_migrated was NUMA0) and
# MIG_ENGINE (the rest). TRACED 1: migrations_traced ran, so diag the
# reasons and, unless the trace overran, count as MIG_ENGINE move_pages(2)'s
# alone and as MIG_NUMA those of the workload's threads.
# shellcheck disable=SC2034 # MIG_ENGINE: for the scripts
migrations_counted() {
	MIG_ALL=$(($(vmstat pgmigrate_success) - $1))
	MIG_NUMA=$(($(vmstat numa_pages_migrated) - $2))
	MIG_ENGINE=$((MIG_ALL - MIG_NUMA))
	[ "$3" = 1 ] || return 0
	diag "migrations by reason: $(migrations_by_reason | tr '\n' ' ')"
	diag "NUMA balancing's by task: $(migrations_by_task numa_misplaced | tr '\n' ' ')"
	if [ "$(migrated_by lost)" = 0 ]; then
		MIG_ENGINE=$(migrated_by syscall_or_cpuset)
		MIG_NUMA=$(migrated_in "$WORKLOAD_PID" numa_misplaced)
	fi
}

# nodes PID START END: "NODE0 NODE1 ABSENT OTHER" pages of the range, each
# page's node that of its frame (pagenodes -m), or move_pages(2)'s answer
# on a kernel without memory blocks in sysfs (the debug kernel)
nodes() {
	_m=-m
	[ -f /sys/devices/system/memory/block_size_bytes ] || _m=
	# shellcheck disable=SC2086 # no -m: no argument
	/bin/pagenodes $_m "$1" "$2" "$3" |
		sed -n 's/.*node0=\([0-9]*\) node1=\([0-9]*\) absent=\([0-9]*\) other=\([0-9]*\).*/\1 \2 \3 \4/p'
}

# vmstat KEY: its value in /proc/vmstat (0 without it)
vmstat() { awk -v k="$1" '$1 == k { v = $2 } END { print v + 0 }' /proc/vmstat; }

# jsum KEY FILE...: the sum of every "KEY": N in the files (damonctl
# schemes --json output)
jsum() {
	_k=$1
	shift
	cat "$@" 2>/dev/null | sed -n "s/.*\"$_k\": \([0-9]*\).*/\1/p" |
		awk '{ s += $1 } END { print s + 0 }'
}

# aggregations_traced: trace the module's damon_perf_aggregated events
# too (one per region and aggregation), into migrations_traced's buffer.
aggregations_traced() {
	echo 1 > "$_T/events/damon_perf/damon_perf_aggregated/enable"
}

# aggregations_of START END: since aggregations_traced, one line per
# aggregation, "TIME [OFF+SIZE nNR aAGE]..." for each region that
# overlaps [START, END): OFF and SIZE in MiB (OFF from START), nr_accesses
# and age.
aggregations_of() {
	grep damon_perf_aggregated "$_T/trace" | awk -v ms="$1" -v me="$2" '
		{
			t = $4; sub(":", "", t)
			split($(NF - 2), r, "-"); sub(":", "", r[2])
			s = r[1] + 0; e = r[2] + 0
			if (t - last > 0.1) {
				if (line != "") print line
				line = sprintf("%.2f", t)
				last = t
			}
			if (e > ms && s < me)
				line = line sprintf(" [%d+%d n%d a%d]",
					(s - ms) / 1048576, (e - s) / 1048576,
					$(NF - 1), $NF)
		}
		END { if (line != "") print line }'
}

# start_workload ARGS...: start /bin/workload in the background (waiting
# up to WORKLOAD_WAIT tenths of a second, default 100, for its line); sets
# WORKLOAD_PID, WORKLOAD_HOT_START, WORKLOAD_HOT_END (hex) once it printed
# its line. Output in /tmp/workload.out. THP is set to WORKLOAD_THP
# (default never: 4 KiB pages even where madvise(MADV_NOHUGEPAGE) does not
# exist; always, as Debian runs it, for the tiering tests). WORKLOAD_UID
# runs it as that uid without capabilities (capexec), root's by default.
start_workload() {
	_thp=/sys/kernel/mm/transparent_hugepage/enabled
	[ -w $_thp ] && echo "${WORKLOAD_THP:-never}" > $_thp
	rm -f /tmp/workload.out
	# shellcheck disable=SC2086 # empty, or the capexec words
	${WORKLOAD_UID:+capexec $WORKLOAD_UID none} /bin/workload "$@" \
		> /tmp/workload.out 2>&1 &
	WORKLOAD_PID=$!
	_i=0
	while ! grep -q '^WORKLOAD pid=' /tmp/workload.out 2>/dev/null; do
		_i=$((_i + 1))
		[ $_i -gt "${WORKLOAD_WAIT:-100}" ] && { cat /tmp/workload.out; return 1; }
		kill -0 "$WORKLOAD_PID" 2>/dev/null || { cat /tmp/workload.out; return 1; }
		sleep 0.1
	done
	_line=$(grep '^WORKLOAD pid=' /tmp/workload.out)
	# shellcheck disable=SC2034 # for the scripts
	WORKLOAD_HOT_START=$(echo "$_line" | sed 's/.*hot_start=\([^ ]*\).*/\1/')
	# shellcheck disable=SC2034 # for the scripts
	WORKLOAD_HOT_END=$(echo "$_line" | sed 's/.*hot_end=\([^ ]*\).*/\1/')
	# shellcheck disable=SC2034 # for the scripts
	WORKLOAD_BASE=$(echo "$_line" | sed 's/.* base=\([^ ]*\).*/\1/')
	# shellcheck disable=SC2034 # for the scripts
	WORKLOAD_SIZE=$(echo "$_line" | sed 's/.* size=\([^ ]*\).*/\1/')
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


# stats_balanced: perf_stats adds up. Call it once no context runs (after
# every stop), before the module is unloaded: the stop drains the rings
# one last time, so every report the rings accepted was consumed, and
# every report that reached the rings was accepted or refused by reason.
# On the total row:
#   enqueue == dequeue
#   dequeue == match + stale + miss_* (every drained report, by outcome)
#   callback == sample_* (every overflow callback, by class; not
#     sample_translated, a note on samples classed elsewhere)
#   sample_valid <= enqueue + overflow + busy_drop + no_probe + no_ring
#     (every valid sample was queued or refused by reason; AUX and
#     injected reports enqueue without a callback, hence <=)
# Prints the numbers; exits non-zero with the broken equations.
# Fault injection for fail-nth users (debug kernel): failslab and
# fail_page_alloc fail any allocation, sleeping ones and order 0 included,
# silently. Returns 1 where the kernel has no fault injection.
fault_injection_prepare() {
	[ -w /proc/self/fail-nth ] && [ -d /sys/kernel/debug/failslab ] || return 1
	for _f in failslab fail_page_alloc; do
		_d=/sys/kernel/debug/$_f
		[ -d $_d ] || continue
		echo N > $_d/ignore-gfp-wait
		echo 0 > $_d/verbose
		[ -f $_d/min-order ] && echo 0 > $_d/min-order
		[ -f $_d/ignore-gfp-highmem ] && echo N > $_d/ignore-gfp-highmem
	done
	return 0
}

# Kernel reports (BUG, WARNING, KASAN, lockdep, kmemleak) logged after
# the line MARK was written to /dev/kmsg; empty when there are none.
kernel_reports_since() {
	dmesg | sed -n "/$1/,\$p" |
		grep -E 'BUG:|WARNING:|KASAN|UBSAN|lockdep|circular locking|possible recursive|inconsistent lock|bad unlock|Oops|general protection|unreferenced object'
}

stats_balanced() {
	awk '
		NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
		$1 == "total" { for (n in h) v[n] = $h[n]; found = 1 }
		END {
			if (!found) { print "perf_stats: no total row"; exit 1 }
			miss = 0; samples = 0
			for (n in h) {
				if (n ~ /^miss_/) miss += v[n]
				# sample_translated notes a translation of a
				# sample classed elsewhere, not a class
				if (n ~ /^sample_/ && n != "sample_translated")
					samples += v[n]
			}
			drained = v["match"] + v["stale"] + miss
			refused = v["overflow"] + v["busy_drop"] + v["no_probe"] + \
				  v["no_ring"]
			printf "perf_stats: enqueue=%.0f dequeue=%.0f match=%.0f " \
			       "stale=%.0f miss=%.0f callback=%.0f sample_*=%.0f " \
			       "sample_valid=%.0f refused=%.0f\n", v["enqueue"], \
			       v["dequeue"], v["match"], v["stale"], miss, \
			       v["callback"], samples, v["sample_valid"], refused
			bad = 0
			if (v["enqueue"] != v["dequeue"]) {
				print "enqueue != dequeue"; bad = 1 }
			if (v["dequeue"] != drained) {
				print "dequeue != match + stale + miss_*"; bad = 1 }
			if (v["callback"] != samples) {
				print "callback != sum of sample_*"; bad = 1 }
			if (v["sample_valid"] > v["enqueue"] + refused) {
				print "sample_valid > enqueue + refused"; bad = 1 }
			exit bad
		}' /sys/kernel/debug/damon_perf/perf_stats
}

# expect_exit CODE "desc" cmd args...: one test, ok when cmd exits CODE.
expect_exit() {
	_want=$1
	_desc=$2
	shift 2
	_run "$@"
	if [ "$_rc" -eq "$_want" ]; then
		ok "$_desc"
	else
		not_ok "$_desc (exit $_rc, want $_want: $*)"
	fi
}

# expect_ge "desc" A B: one test, ok when A >= B (both numbers; an empty
# one fails).
expect_ge() {
	if [ -n "$2" ] && [ -n "$3" ] && [ "$2" -ge "$3" ]; then
		ok "$1 ($2 >= $3)"
	else
		not_ok "$1 ('$2' < '$3')"
	fi
}

# has "desc" PATTERN cmd args...: ok when cmd succeeds and prints PATTERN.
has() {
	_desc=$1
	_pat=$2
	shift 2
	if _out=$("$@" 2>&1) && echo "$_out" | grep -q -- "$_pat"; then
		diag "$(echo "$_out" | head -n 12)"
		ok "$_desc"
	else
		diag "$_out"
		not_ok "$_desc (no '$_pat' from: $*)"
	fi
}

# --- raw requests (damonctl debug raw -a TYPE:hex:...) ---
# le16/le32/le64 VALUE: little-endian hex (64-bit shell arithmetic, so
# le64 takes every u64 written as a signed number, e.g. -1 for 2^64-1).
le16() { printf '%02x%02x' $(($1 & 255)) $((($1 >> 8) & 255)); }
le32() { le16 $(($1 & 65535)); le16 $((($1 >> 16) & 65535)); }
le64() { le32 $(($1 & 0xffffffff)); le32 $((($1 >> 32) & 0xffffffff)); }
# nla TYPE HEX: one attribute (header, payload, padding) as hex.
nla() {
	_n=$((${#2} / 2))
	printf '%s%s%s' "$(le16 $((4 + _n)))" "$(le16 "$1")" "$2"
	_p=$(((4 - _n % 4) % 4))
	while [ $_p -gt 0 ]; do printf 00; _p=$((_p - 1)); done
}
# nest TYPE HEX: nla with NLA_F_NESTED, which strict validation requires.
nest() { nla $(($1 | NLA_F_NESTED)) "$2"; }
nla_u8() { nla "$1" "$(printf %02x $(($2 & 255)))"; }
nla_u32() { nla "$1" "$(le32 "$2")"; }
nla_u64() { nla "$1" "$(le64 "$2")"; }
nla_flag() { nla "$1" ""; }
# nla_str TYPE STRING: a NUL-terminated string.
nla_str() { nla "$1" "$(printf %s "$2" | od -An -tx1 | tr -d ' \n')00"; }

# raw CMD [damonctl debug raw args...]: one request, by command name
# (CTX_NEW, PROBE_ADD, ...).
raw() {
	_c=$1
	shift
	eval "_c=\$CMD_$_c"
	damonctl debug raw --cmd "$_c" "$@"
}

# ctx_new NAME (a vaddr context), ctx_start NAME, ctx_del NAME: raw
# requests by context name.
ctx_new() { raw CTX_NEW -a "$A_CTX_NAME:str:$1" -a "$A_CTX_OPS:u32:$OPS_VADDR"; }
ctx_start() { raw START -a "$A_CTX_NAME:str:$1"; }
ctx_del() { raw CTX_DEL -a "$A_CTX_NAME:str:$1"; }

# --- perf_stats and snapshots ---
# col NAME [ROW] [FILE]: field NAME of row ROW (a CPU number, default
# total) of perf_stats (or FILE, the same format), by header name.
col() {
	awk -v c="$1" -v r="${2:-total}" '
		NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
		$1 == r { if (c in h) print $h[c]; exit }' "${3:-$PERF_STATS}"
}

# regions FILE [SLOT]: "start end nr_accesses probe_hits[SLOT - 1]" per
# region (SLOT 1, the first probe, by default; 0 where the region has no
# such slot), from damonctl report --json (objects dumped with sorted
# keys, one per line: the hits one a line between "probe_hits": [ and ]).
regions() {
	awk -v slot="${2:-1}" '
		/"regions": \[/ { in_r = 1; next }
		!in_r { next }
		/"probe_hits": \[/ { in_h = ($0 !~ /\]/); k = 0; hit = 0; next }
		in_h && /\]/ { in_h = 0; next }
		in_h { if (++k == slot) { gsub(/[^0-9]/, ""); hit = $0 }; next }
		/"start":/ { gsub(/[^0-9]/, ""); s = $0 }
		/"end":/ { gsub(/[^0-9]/, ""); e = $0 }
		/"nr_accesses":/ { gsub(/[^0-9]/, ""); n = $0 }
		/"target_id":/ { print s, e, n, hit }' "$1"
}

# regions_on FILE S E: the rows ("start end ...", as regions prints them)
# of FILE that overlap [S, E).
regions_on() {
	awk -v s="$2" -v e="$3" '$1 < e && $2 > s' "$1"
}

# snap_seq [FILE]: the aggregation number (the first "seq") of a damonctl
# report --json in FILE, or on stdin.
snap_seq() {
	sed -n 's/^ *"seq": *\([0-9]*\).*/\1/p' ${1:+"$1"} | head -n 1
}

# region_rates FILE: "start end probe_hits[0] rate" per region, then "aggr
# AGGR_US SEQ" (damonctl report --json: an array of aggregations, sorted
# keys, one per line; aggr_us and seq only at the top).
region_rates() {
	awk '
		/"aggr_us":/ { gsub(/[^0-9]/, ""); aggr = $0 }
		/"seq":/ { gsub(/[^0-9]/, ""); seq = $0 }
		/"regions": \[/ { in_r = 1; next }
		!in_r { next }
		/"probe_hits": \[/ { want_hit = 1; next }
		want_hit { gsub(/[^0-9]/, ""); hit = $0; want_hit = 0; next }
		/"rate":/ { gsub(/[^0-9]/, ""); rate = $0 }
		/"start":/ { gsub(/[^0-9]/, ""); s = $0 }
		/"end":/ { gsub(/[^0-9]/, ""); e = $0 }
		/"target_id":/ { print s, e, hit, rate }
		END { print "aggr", aggr, seq }' "$1"
}

# hot_share FILE COL HS HE: "PERCENT HOT ALL", ALL the sum of column COL
# over the rows ("start end ...") of FILE, HOT over the rows overlapping
# [HS, HE).
hot_share() {
	awk -v c="$2" -v hs="$3" -v he="$4" '
		{ all += $c; if ($1 < he && $2 > hs) hot += $c }
		END { if (all) printf "%d %d %d\n", hot * 100 / all, hot, all;
		      else print "0 0 0" }' "$1"
}

# expect_hottest TOP MIN HS HE JSON: one test, the hottest region TOP
# ("start end nr_accesses" of regions; empty for none) has MIN accesses or
# more and overlaps the hot range [HS, HE); the report JSON is shown when
# not.
expect_hottest() {
	_top=$1 _min=$2 _hs=$3 _he=$4 _json=$5
	# shellcheck disable=SC2086 # into $1 $2 $3
	set -- $_top
	if [ -n "$_top" ] && [ "${3:-0}" -ge "$_min" ] &&
		overlaps "$1" "$2" "$_hs" "$_he"; then
		ok "hottest region $(printf '%#x-%#x' "$1" "$2") (nr_accesses $3)" \
			"overlaps the hot range $(printf '%#x-%#x' "$_hs" "$_he")"
	else
		diag "$(head -c 2000 "$_json")"
		not_ok "hottest region '$_top' overlaps the hot range" \
			"$(printf '%#x-%#x' "$_hs" "$_he")"
	fi
}

# overlaps S E HS HE: [S, E) and [HS, HE) intersect (awk: 64-bit safe).
overlaps() {
	awk -v s="$1" -v e="$2" -v hs="$3" -v he="$4" \
		'BEGIN { exit !(s + 0 < he + 0 && e + 0 > hs + 0) }'
}

# workload_progress [TRIES]: send SIGUSR1 to the workload and wait for its
# next progress line (TRIES x 50 ms, default 200; a workload hammering
# 1 GiB under TCG answers late); sets P_PASSES and P_NS. Reset _prog_n=0
# when a new workload starts.
_prog_n=0
workload_progress() {
	kill -USR1 "$WORKLOAD_PID"
	_prog_n=$((_prog_n + 1))
	_i=0
	while [ "$(grep -c '^WORKLOAD progress' /tmp/workload.out)" -lt $_prog_n ]; do
		_i=$((_i + 1))
		[ $_i -gt "${1:-200}" ] && return 1
		sleep 0.05
	done
	_l=$(grep '^WORKLOAD progress' /tmp/workload.out | tail -n 1)
	# shellcheck disable=SC2034 # read by the bench scripts
	P_PASSES=$(echo "$_l" | sed 's/.*passes=\([0-9]*\).*/\1/')
	# shellcheck disable=SC2034 # read by the bench scripts
	P_NS=$(echo "$_l" | sed 's/.*t_ns=\([0-9]*\).*/\1/')
}

# regions_of_aggregation FILE SEQ MS ME: the regions of aggregation SEQ
# of a damonctl recording that overlap [MS, ME), one line "SEQ: [OFF+SIZE
# nNR aAGE sFROM-TO]..." (KiB from MS; s: the span of its samples, where
# it had any): why an aggregation scored what it did.
regions_of_aggregation() {
	awk -v seq="$2" -v ms="$3" -v me="$4" '
	function val(o, key,   v) {
		if (!match(o, "\"" key "\":[0-9]+")) return 0
		v = substr(o, RSTART, RLENGTH); sub(/^[^:]*:/, "", v); return v
	}
	BEGIN { ms += 0; me += 0 }
	val($0, "seq") == seq {
		rest = $0; line = ""
		while (match(rest, /\{"age":[0-9]+,"end":[0-9]+,"nr_accesses":[0-9]+,[^}]*"start":[0-9]+/)) {
			o = substr(rest, RSTART, RLENGTH)
			rest = substr(rest, RSTART + RLENGTH)
			s = val(o, "start") + 0; e = val(o, "end") + 0
			if (e <= ms || s >= me) continue
			# %.0f: busybox awk %d stops at 2^31 (a stack in KiB)
			line = line sprintf(" [%.0f+%.0f n%d a%d", int((s - ms) / 1024),
					    int((e - s) / 1024), val(o, "nr_accesses"),
					    val(o, "age"))
			# the span of its samples, where it had any
			if (val(o, "sampled_end") + 0 > val(o, "sampled_start") + 0)
				line = line sprintf(" s%.0f-%.0f",
					int((val(o, "sampled_start") - ms) / 1024),
					int((val(o, "sampled_end") - ms) / 1024))
			line = line "]"
		}
		print seq ":" line
	}' "$1"
}

# anon_huge PID ADDR: AnonHugePages (KiB) of the VMA of PID holding ADDR
# (it may have merged with a neighbour); addresses compared as padded hex
# strings (busybox awk's numbers lose precision above 2^53)
anon_huge() {
	awk -v s="$(printf '%16x' "$2")" '
		/^[0-9a-f]+-[0-9a-f]+ / {
			split($1, r, "-")
			in_m = sprintf("%16s", r[1]) <= s &&
				s < sprintf("%16s", r[2])
		}
		in_m && /^AnonHugePages:/ { print $2 }' "/proc/$1/smaps"
}

# cpu_ms PID: the CPU time of PID (a process, or a thread as
# /proc/PID/task/TID) in ms, to 0.1 ms: /proc/PID/schedstat's time on CPU
# (ns), else utime + stime (USER_HZ 100: 10 ms steps, too coarse for a
# kdamond that sleeps most of a window)
cpu_ms() {
	if [ -r "/proc/$1/schedstat" ]; then
		awk '{ printf "%.1f\n", $1 / 1e6 }' "/proc/$1/schedstat"
	else
		awk '{ sub(/^.*\) /, ""); print ($12 + $13) * 10 }' "/proc/$1/stat"
	fi 2>/dev/null
}

# ram_ranges: "-r START-END" for every top-level System RAM range of at
# least 1 MiB, page aligned (/proc/iomem ends are inclusive). awk prints
# the numbers in decimal and the shell (64-bit arithmetic) in hex: busybox
# awk's %x converts to a 32-bit int, so 0x80000000 came out as 0x7fffffff
# on arm64 (the conversion saturates there; on x86 it happens to give
# 0x80000000, and anything above it would be wrong too).
ram_ranges() {
	awk -F' : ' '$2 == "System RAM" && $1 !~ /^ / {
		split($1, a, "-")
		s = int((hex(a[1]) + 4095) / 4096) * 4096
		e = int((hex(a[2]) + 1) / 4096) * 4096
		if (e - s >= 1048576)
			printf "%.0f %.0f\n", s, e
	}
	function hex(s,   i, v) {
		s = tolower(s)
		v = 0
		for (i = 1; i <= length(s); i++)
			v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v
	}' /proc/iomem | while read -r _s _e; do
		printf -- '-r 0x%x-0x%x ' "$_s" "$_e"
	done
}

# workload_paused CMD...: run CMD with the workload stopped. Creating the
# first or releasing the last page-fault counter flips a static key,
# patching the page-fault path with int3 while the workload's CPU runs it;
# multi-threaded TCG then now and then runs the stale int3 and dies of
# "int3" in do_user_addr_fault (Documentation/testing.rst, "Code patching
# under TCG"). scripts/vm.sh's single-threaded TCG is the fix; this stays
# as a second guard.
workload_paused() {
	kill -STOP "$WORKLOAD_PID"
	"$@"
	_rc=$?
	kill -CONT "$WORKLOAD_PID"
	return $_rc
}

# need_damonctl DESC: without /bin/damonctl in the image (no build/tools),
# DESC is skipped and the script ends.
need_damonctl() {
	[ -x /bin/damonctl ] && return 0
	skip "$1" "damonctl not in the image"
	finish
}

# workload_started ARGS: start_workload ARGS as a test; the script ends
# when it does not start.
workload_started() {
	if start_workload "$@"; then
		ok "workload started"
	else
		not_ok "workload started"
		finish
	fi
}

# workload_on_cpu0 ARGS: workload_started ARGS with every thread on CPU 0,
# so on node 0 with its pages from the start: with two threads, NUMA
# balancing's hinting faults keep coming but no page migrates, and a frame
# read from pagemap stays the page's (the paddr tests' ground truth).
workload_on_cpu0() {
	taskset -p 1 $$ > /dev/null
	workload_started "$@"
	taskset -p ffffffff $$ > /dev/null
}

# diag_machine: the CPUs, NUMA nodes and kernel the numbers come from.
diag_machine() {
	_nodes=$(find /sys/devices/system/node -maxdepth 1 -name 'node[0-9]*' \
		2>/dev/null | wc -l)
	diag "$(nproc) CPUs, $_nodes NUMA nodes, kernel $DAMON_PERF_KERNEL"
}

# start_sleeper / stop_sleeper: a process that only sleeps (pid in
# SLEEPER), a target that takes no faults of its own.
start_sleeper() {
	sleep 600 &
	SLEEPER=$!
}
stop_sleeper() {
	kill "$SLEEPER" 2>/dev/null
	wait "$SLEEPER" 2>/dev/null
}

# status_field CTX KEY: the number after the first "KEY": of damonctl
# status CTX --json (a quoted one too, e.g. "cost": "0.42"); empty when
# there is none.
status_field() {
	damonctl status "$1" --json 2>/dev/null |
		awk -v k="\"$2\":" '$1 == k { gsub(/[^0-9.]/, "", $2); print $2; exit }'
}

# faults: minor + major page faults of the workload so far (its
# /proc/PID/stat).
faults() {
	awk '{ print $10 + $12 }' "/proc/$WORKLOAD_PID/stat"
}

# samples [overflow]: reports of the workload's thread group, which
# perf_stats routes to its target (matched, or missed by address; other
# processes' are miss_tgid); with "overflow", plus the reports a full ring
# refused (at period 1 on one workload they are nearly all its own).
samples() {
	_s=$(($(col match) + $(col miss_region) + $(col miss_boundary)))
	[ "${1:-}" = overflow ] && _s=$((_s + $(col overflow)))
	echo "$_s"
}

# probe_add CTX TYPE CONFIG [PERIOD [freq]]: a raw PROBE_ADD of one probe,
# user mode only, sample period PERIOD (default 1; a frequency with
# "freq"). Raw: damonctl's commands do not expose adding one probe to an
# existing context, on purpose.
probe_add() {
	_f=
	[ "${5:-}" = freq ] && _f=$(nla_flag $PROBE_A_FREQ)
	raw PROBE_ADD -a "$A_CTX_NAME:str:$1" \
		-a "$A_PROBE:nest:$(nla_u32 $PROBE_A_TYPE "$2")$(nla_u64 $PROBE_A_CONFIG "$3")$(nla_u64 $PROBE_A_SAMPLE_PERIOD "${4:-1}")$(nla_flag $PROBE_A_EXCLUDE_KERNEL)$_f"
}

# start_faults NAME PID: damonctl start, context NAME on process PID with
# the page-fault probe (every user-space fault).
start_faults() {
	damonctl start -n "$1" -p "$2" -e page-faults --period 1 --exclude-kernel
}

# start_target ARGS: the workload, or a sleeping process where it cannot
# run (what is monitored matters less than that it exists).
start_target() {
	start_workload "$@" && return 0
	diag "workload did not start; monitoring a sleeping process instead"
	sleep 3600 &
	WORKLOAD_PID=$!
}

# ring_bytes ENTRIES: the report rings of one context of ENTRIES per CPU,
# in bytes, over every possible CPU (kmod/ring.c: a 56-byte entry and a
# 192-byte ring structure a CPU; /sys/devices/system/cpu/possible is a
# list of ranges, e.g. 0-1 or 0,2-3).
ring_bytes() {
	awk -F, -v n="$1" '{ for (i = 1; i <= NF; i++) { k = split($i, r, "-");
		c += k == 2 ? r[2] - r[1] + 1 : 1 } }
		END { printf "%.0f\n", c * (n * 56 + 192) }' \
		/sys/devices/system/cpu/possible
}
