#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kernels: sid
# numa: yes
# timeout: 2400
# make bench, VM part: intervals tuning against DAMON's own intervals
# auto-tuning, on Debian unstable's 7.2 (DAMON built in, intervals_goal
# since 6.15), two NUMA nodes, in two scenarios (BENCH_TUNING_SCENARIOS,
# default "burst hinting"):
#   burst    tests/vm/steady.sh's workload: a 2 MiB hot range of a 64 MiB
#            mapping touched 500 ms of every second, a fault on every
#            touch (-f): bursts of the access stream itself;
#   hinting  a 2 MiB hot range of a 256 MiB mapping read all the time by
#            two threads, NUMA balancing with fast scans: the page-fault
#            probe sees the hinting faults, which come in bursts (the
#            scanner), while the accesses do not.
# Not part of make check; scripts/bench.sh boots it with nopcid and
# tabulates and plots its lines (scripts/lib/bench_tuning.py).
#
# The emulator setting that lets DAMON see: QEMU's soft TLB keeps the
# accessed bit from being set again after DAMON clears it, unless CR3
# writes flush it; nopcid and a busy process on each CPU (context
# switches) do. Before any DAMON figure the script checks that DAMON saw
# the hot range (a region with nr_accesses >= 1 inside it) and says so;
# where it did not, its row is marked fair=no and is no comparison. In
# the burst scenario it cannot: the workload drops the hot range
# (MADV_DONTNEED) after each pass, and a page that is not mapped when
# DAMON checks it shows no accessed bit (any machine, not only the
# emulator), while each refault is a page-fault sample.
#
# Monitors, each alone on a fresh workload, BENCH_TUNING_AGGRS (default
# 20) aggregations each:
#   dp_fixed   damonctl start, page faults at period 1, sample 10 ms,
#              aggregation 200 ms fixed, the sample floor off
#              (max_carried=0): the before
#   dp_goal    the same with --samples-goal = two seconds' samples at the
#              rate dp_fixed measured, 2 aggregations a step (max 4 s)
#   damon      DAMON vaddr, 10..1000 regions, sample 5 ms, aggregation
#              100 ms, intervals_goal as damo's documentation recommends
#              for it (access_bp 400, aggrs 3, min 5 ms, max 10 s),
#              per-aggregation regions from the damon_aggregated
#              tracepoint
# and prints per aggregation
#   BENCH tuning scen=NAME mon=NAME seq=N p=F r=F aggr_us=N
# (p: bytes of regions with nr_accesses >= 1 inside the hot range over
# those bytes inside the mapping, 0 when none; r: the hot range's share
# they cover; steady.sh's scores) and per monitor
#   BENCH tuning-sum scen=NAME mon=NAME aggrs=N empty=N fair=yes|no|- ...
. /tests/lib.sh

AGGRS=${BENCH_TUNING_AGGRS:-20}
PARAM=/sys/module/damon_perf/parameters/max_carried
D=/sys/kernel/mm/damon/admin/kdamonds
T=/sys/kernel/tracing

need_damonctl "the tuning bench"
load_module damon_perf || finish
grep -qw nopcid /proc/cmdline || diag "booted without nopcid: DAMON may see nothing"
[ -d $T/events ] || mount -t tracefs nodev $T 2>/dev/null
saved=$(cat $PARAM)
echo 0 > $PARAM

BUSY=
for _c in $(seq 1 "$(grep -c '^processor' /proc/cpuinfo)"); do
	sh -c 'while :; do :; done' &
	BUSY="$BUSY $!"
done

# score FILE (lines "SEQ AGGR_US START END NR_ACCESSES"): "SEQ P R AGGR_US"
score() {
	awk -v ms="$base" -v me="$end" -v hs="$hs" -v he="$he" '
	function max(a, b) { return a > b ? a : b }
	function min(a, b) { return a < b ? a : b }
	BEGIN { ms += 0; me += 0; hs += 0; he += 0 }
	{
		s = $1 + 0
		if (!(s in us)) { order[++n] = s; us[s] = $2 }
		if ($5 < 1) next
		cs = max($3 + 0, ms); ce = min($4 + 0, me)
		if (ce <= cs) next
		sel[s] += ce - cs
		os = max(cs, hs); oe = min(ce, he)
		if (oe > os) hit[s] += oe - os
	}
	END {
		for (i = 1; i <= n; i++) {
			s = order[i]
			printf "%d %.3f %.3f %d\n", s,
			       sel[s] ? hit[s] / sel[s] : 0, hit[s] / (he - hs), us[s]
		}
	}' "$1"
}

# report NAME FAIR: the BENCH lines of /tmp/tune-NAME.score
report() {
	while read -r _s _p _r _u; do
		echo "BENCH tuning scen=$SCEN mon=$1 seq=$_s p=$_p r=$_r aggr_us=$_u"
	done < "/tmp/tune-$1.score"
	awk -v m="$1" -v f="$2" -v sc="$SCEN" '
	{ n++; if ($2 + $3 == 0) e++; if ($1 > 2) { k++; p += $2; r += $3;
	  if ($2 < 0.9 || $3 < 0.9) low++ } last = $4 }
	END { printf "BENCH tuning-sum scen=%s mon=%s aggrs=%d empty=%d fair=%s p_mean=%.3f r_mean=%.3f below_0.9=%d last_aggr_us=%d\n",
	      sc, m, n, e + 0, f, k ? p / k : 0, k ? r / k : 0, low + 0, last }' \
		"/tmp/tune-$1.score"
}

fresh_workload() {
	stop_workload
	# shellcheck disable=SC2086 # the scenario's options
	workload_started $WL || return 1
	base=$((WORKLOAD_BASE))
	end=$((WORKLOAD_BASE + WORKLOAD_SIZE))
	hs=$((WORKLOAD_HOT_START))
	he=$((WORKLOAD_HOT_END))
}

# dp NAME START-OPTIONS...: damon_perf over AGGRS aggregations
dp() {
	_n=$1
	shift
	fresh_workload || return 1
	damonctl record -o "/tmp/tune-$_n.jsonl" -n "$AGGRS" tb \
		> /dev/null 2>&1 &
	_rec=$!
	sleep 0.3
	workload_paused damonctl start -n tb -p "$WORKLOAD_PID" \
		-e page-faults --period 1 --exclude-kernel --sample-us 10000 \
		--aggr-us 200000 --ring-size 4096 --replace "$@" > /dev/null ||
		{ kill $_rec; return 1; }
	wait $_rec
	damonctl status tb | grep "intervals goal" | sed 's/^/# /'
	workload_paused damonctl stop tb > /dev/null 2>&1
	# one line per region: SEQ AGGR_US START END NR_ACCESSES
	awk '
	function num(o, key,   v) {
		if (!match(o, "\"" key "\":[0-9]+")) return ""
		v = substr(o, RSTART, RLENGTH); sub(/.*:/, "", v); return v
	}
	{
		s = num($0, "seq"); u = num($0, "aggr_us"); rest = $0
		while (match(rest, /"end":[0-9]+,"nr_accesses":[0-9]+,[^}]*"start":[0-9]+/)) {
			o = substr(rest, RSTART, RLENGTH)
			rest = substr(rest, RSTART + RLENGTH)
			print s, u, num(o, "start"), num(o, "end"), num(o, "nr_accesses")
		}
	}' "/tmp/tune-$_n.jsonl" > "/tmp/tune-$_n.regions"
	score "/tmp/tune-$_n.regions" > "/tmp/tune-$_n.score"
}

# DAMON with its intervals auto-tuning, per aggregation from the trace
damon_run() {
	fresh_workload || return 1
	# DAMON's own modules (7.2's DAMON_STAT runs from boot) hold DAMON
	for _m in damon_stat damon_reclaim damon_lru_sort; do
		_e=/sys/module/$_m/parameters/enabled
		[ "$(cat $_e 2>/dev/null)" = Y ] || continue
		echo N > $_e && diag "$_m turned off for the run"
	done
	echo 0 > $T/tracing_on
	echo 16384 > $T/buffer_size_kb
	echo > $T/trace
	echo 1 > $T/events/damon/damon_aggregated/enable || return 1
	echo 1 > $D/nr_kdamonds || return 1
	c=$D/0/contexts/0
	echo 1 > $D/0/contexts/nr_contexts || return 1
	echo vaddr > $c/operations || return 1
	echo 5000 > $c/monitoring_attrs/intervals/sample_us
	echo 100000 > $c/monitoring_attrs/intervals/aggr_us
	echo 1000000 > $c/monitoring_attrs/intervals/update_us
	g=$c/monitoring_attrs/intervals/intervals_goal
	[ -d $g ] || { diag "no intervals_goal on this kernel"; return 1; }
	echo 400 > $g/access_bp
	echo 3 > $g/aggrs
	echo 5000 > $g/min_sample_us
	echo 10000000 > $g/max_sample_us
	echo 1000 > $c/monitoring_attrs/nr_regions/max
	echo 10 > $c/monitoring_attrs/nr_regions/min
	echo 1 > $c/targets/nr_targets
	echo "$WORKLOAD_PID" > $c/targets/0/pid_target || return 1
	echo 1 > $T/tracing_on
	echo on > $D/0/state || return 1
	# AGGRS aggregations (a new one starts where the addresses go down),
	# at most 10 minutes
	_i=0
	while [ $_i -lt 600 ]; do
		_n=$(awk '/damon_aggregated/ { match($0, / [0-9]+-[0-9]+:/)
			split(substr($0, RSTART + 1, RLENGTH - 2), a, "-")
			v = a[1] + 0; if (v < p) n++; p = v }
			END { print n + 0 }' $T/trace)
		[ "$_n" -gt "$AGGRS" ] && break
		sleep 1
		_i=$((_i + 1))
	done
	echo update_tuned_intervals > $D/0/state 2>/dev/null &&
		diag "$SCEN: DAMON tuned: sample $(cat $c/monitoring_attrs/intervals/sample_us) us, aggregation $(cat $c/monitoring_attrs/intervals/aggr_us) us"
	echo off > $D/0/state
	echo 0 > $T/tracing_on
	echo 0 > $T/events/damon/damon_aggregated/enable
	echo 0 > $D/nr_kdamonds
	# "TASK [CPU] FLAGS TIME: damon_aggregated: target_id=0 nr_regions=N
	# START-END: NR AGE" (decimal addresses)
	awk -v want="$AGGRS" '/damon_aggregated/ {
		split($0, f, "damon_aggregated: "); t = $4; sub(/:$/, "", t)
		match(f[2], / [0-9]+-[0-9]+:/)
		split(substr(f[2], RSTART + 1, RLENGTH - 2), a, "-")
		rest = substr(f[2], RSTART + RLENGTH); split(rest, b, " ")
		s = a[1] + 0
		if (s < last) { seq++; if (seq > want) exit;
			us[seq] = int((t - tprev) * 1000000); tprev = t }
		if (!seq) { seq = 1; tprev = t }
		last = s
		print seq, us[seq] + 0, a[1], a[2], b[1]
	}' $T/trace > /tmp/tune-damon.regions
	score /tmp/tune-damon.regions > /tmp/tune-damon.score
	awk -v hs="$hs" -v he="$he" '$5 >= 1 && $3 < he + 0 && $4 > hs + 0 { f = 1 }
		END { exit !f }' /tmp/tune-damon.regions
}

for SCEN in ${BENCH_TUNING_SCENARIOS:-burst hinting}; do
	case $SCEN in
	burst)
		WL="-s 64 -r 16384,2048,5 -f -t 0 -n 2"
		echo 0 > /proc/sys/kernel/numa_balancing ;;
	hinting)
		WL="-s 256 -o 64 -h 2 -t 0 -n 2"
		check "NUMA balancing on with fast scans" numa_balancing_fast ;;
	*) not_ok "scenario $SCEN is burst or hinting"; continue ;;
	esac
	dp dp_fixed && report dp_fixed -
	rate=$(awk '
		function num(o, key,   v) {
			if (!match(o, "\"" key "\":[0-9]+")) return 0
			v = substr(o, RSTART, RLENGTH); sub(/.*:/, "", v); return v + 0
		}
		num($0, "seq") > 2 { n += num($0, "nr_samples"); u += num($0, "aggr_us") }
		END { if (u) printf "%d", n * 1000000 / u; else print 0 }' \
		/tmp/tune-dp_fixed.jsonl)
	diag "$SCEN dp_fixed: $rate samples per second"
	[ "$rate" -ge 1 ] || rate=1
	dp dp_goal --samples-goal $((2 * rate)) --goal-aggrs 2 \
		--max-aggr-us 4000000 && report dp_goal -
	if damon_run; then
		ok "$SCEN: DAMON saw the hot range (a region with nr_accesses >= 1 in it)"
		report damon yes
	else
		# a zapped page leaves no accessed bit: the burst scenario's
		# faults come from MADV_DONTNEED, which DAMON cannot see
		skip "$SCEN: DAMON compared" "DAMON saw no access in the hot range (nopcid: $(grep -cw nopcid /proc/cmdline))"
		[ -s /tmp/tune-damon.score ] && report damon no
	fi
done

stop_workload
for _b in $BUSY; do kill "$_b" 2>/dev/null; done
echo "$saved" > $PARAM
unload_module damon_perf
finish
