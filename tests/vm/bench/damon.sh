#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kernels: trixie
# numa: yes
# timeout: 3000
# make bench, VM part: damon_perf against in-kernel DAMON on the same
# workload in the same VM (2 NUMA nodes, Debian 13's stock 6.12 kernel,
# which has DAMON, DAMON_VADDR, DAMON_PADDR and DAMON_SYSFS built in).
# Not part of make check (tests/vm/bench/ is not among the scripts
# scripts/check.sh runs); scripts/bench.sh boots it and tabulates its lines.
#
# For each mapping size (BENCH_SIZES, MiB, default "64 256 1024") and hot
# set (small: 2 MiB in page order; large: a quarter of the mapping, at most
# 256 MiB, in random page order), one fresh /bin/workload (2 threads, reads)
# runs under each monitor in turn:
#   none        no monitoring
#   damon       DAMON through /sys/kernel/mm/damon/admin, vaddr, sample
#               10 ms, aggregation 1 s, 10..1000 regions
#   damon_page  the same at page granularity (min = max = pages of the
#               mapping + 256, so no two pages merge)
#   dp_pN       damon_perf (damonctl start), page-fault probe at period N
#               (BENCH_PERIODS, default "1 10 100"), same intervals,
#               10..1000 regions
#   dp_p1_10k   the same at period 1 with 10..10000 regions (the module's
#               largest)
#   dp_p10_sw   period 10 with the module parameter sample_wakeups=1: the
#               kdamond drains at every sample interval, as it did before
#               timestamp crediting
# and prints one line per run:
#   BENCH damon size=MiB hot=small|large mon=NAME passes=N window_ns=N
#         kdamond_ms=N prec=F rec=F seen=K/S nr_regions=N outside_kib=N
# passes: workload passes (its progress counter, SIGUSR1) over the window
# of BENCH_WINDOW seconds (default 10) that starts BENCH_WARMUP seconds
# (default 2) after monitoring started; kdamond_ms: the CPU time of the
# monitor's kdamond thread (/proc/PID/schedstat, to 0.1 ms) over the same
# window; prec and rec: the mean over S snapshots (BENCH_SNAPSHOTS, default 3, taken after
# the window, one aggregation apart) of the hot-set precision (bytes of
# regions with nr_accesses >= 1 inside the hot range / bytes of those
# regions inside the workload's mapping, as tests/vm/accuracy.sh scores)
# and recall (bytes of the hot range such regions cover / hot range), K of
# the S snapshots had such a region in the mapping; nr_regions: regions
# with nr_accesses >= 1 in the last snapshot (anywhere); outside_kib: the
# most KiB of such regions outside the mapping in one snapshot (the
# workload's stack, heap and libraries, which it does touch).
# BENCH_MONS (comma-separated) runs only the monitors named. DAMON's
# regions come from its tried_regions (a stat scheme matching
# nr_accesses >= 1, update_schemes_tried_regions), damon_perf's from
# `damonctl report --json`.
. /tests/lib.sh

sizes=${BENCH_SIZES:-64 256 1024}
sizes=$(echo "$sizes" | tr ',' ' ')
periods=$(echo "${BENCH_PERIODS:-1 10 100}" | tr ',' ' ')
window=${BENCH_WINDOW:-10}
warmup=${BENCH_WARMUP:-2}
snaps=${BENCH_SNAPSHOTS:-3}
hots=$(echo "${BENCH_HOTS:-small large}" | tr ',' ' ')
D=/sys/kernel/mm/damon/admin/kdamonds

check "NUMA balancing on with fast scans" numa_balancing_fast
have_damon=1
[ -d $D ] || { have_damon=0; skip "DAMON sysfs" "no $D in $(uname -r)"; }
[ -x /bin/damonctl ] || { not_ok "damonctl in the image"; finish; }
load_module damon_perf || finish

# score FILE: FILE has "start end nr_accesses" lines (decimal); prints
# "precision recall nr_regions outside_kib" of the regions with
# nr_accesses >= 1 against [HS, HE), scored on the workload's mapping
# [MS, ME) as tests/vm/accuracy.sh scores (each region clipped to it):
# precision is the share of their bytes in the mapping that lie in the
# hot range; outside_kib the KiB of such regions outside the mapping (the
# workload's stack, heap and libraries, which it does access: counted
# apart, not against the hot set). "- 0 N K" when none is in the mapping.
score() {
	awk -v hs="$HS" -v he="$HE" -v ms="$MS" -v me="$ME" '
		$3 >= 1 { n++
			s = $1 > ms ? $1 : ms; e = $2 < me ? $2 : me
			inmap = e > s ? e - s : 0
			b += inmap; out += ($2 - $1) - inmap
			s = $1 > hs ? $1 : hs; e = $2 < he ? $2 : he
			if (e > s) in_hot += e - s }
		END { if (!b) { printf "- 0 %d %.0f\n", n, out / 1024; exit }
			printf "%.3f %.3f %d %.0f\n", in_hot / b, in_hot / (he - hs), n, out / 1024 }' "$1"
}

# damon_on PID MIN MAX: start DAMON on PID; sets KD_PID.
damon_on() {
	echo 1 > $D/nr_kdamonds || return 1
	k=$D/0
	echo 1 > $k/contexts/nr_contexts || return 1
	c=$k/contexts/0
	echo vaddr > $c/operations || return 1
	echo 10000 > $c/monitoring_attrs/intervals/sample_us
	echo 1000000 > $c/monitoring_attrs/intervals/aggr_us
	echo 1000000 > $c/monitoring_attrs/intervals/update_us
	# max first: min may not exceed it
	echo "$3" > $c/monitoring_attrs/nr_regions/max || return 1
	echo "$2" > $c/monitoring_attrs/nr_regions/min || return 1
	echo 1 > $c/targets/nr_targets
	echo "$1" > $c/targets/0/pid_target || return 1
	echo 1 > $c/schemes/nr_schemes
	s=$c/schemes/0
	echo stat > $s/action || return 1
	echo 0 > $s/access_pattern/sz/min
	echo 18446744073709551615 > $s/access_pattern/sz/max
	echo 4294967295 > $s/access_pattern/nr_accesses/max
	echo 1 > $s/access_pattern/nr_accesses/min
	echo 4294967295 > $s/access_pattern/age/max
	echo 0 > $s/access_pattern/age/min
	echo on > $k/state || return 1
	KD_PID=$(cat $k/pid)
}

# damon_snapshot FILE: the regions DAMON's stat scheme matched last.
damon_snapshot() {
	echo update_schemes_tried_regions > $D/0/state || return 1
	: > "$1"
	for r in $D/0/contexts/0/schemes/0/tried_regions/[0-9]*; do
		[ -d "$r" ] || continue
		read -r s < "$r/start"; read -r e < "$r/end"
		read -r a < "$r/nr_accesses"
		echo "$s $e $a" >> "$1"
	done
}

damon_off() {
	echo clear_schemes_tried_regions > $D/0/state 2>/dev/null
	echo off > $D/0/state
	echo 0 > $D/nr_kdamonds
}

# dp_snapshot FILE: the latest aggregation of damon_perf's context bench.
dp_snapshot() {
	damonctl report --json bench > /tmp/dp.json 2>&1 || return 1
	# The keys of a region come in alphabetical order (age, end,
	# nr_accesses, ..., start, target_id): print at target_id.
	awk '/"start":/ { gsub(/[^0-9]/, ""); s = $0 }
		/"end":/ { gsub(/[^0-9]/, ""); e = $0 }
		/"nr_accesses":/ { gsub(/[^0-9]/, ""); a = $0 }
		/"target_id":/ { if (s != "" && e != "" && a != "") print s, e, a
			s = e = a = "" }' /tmp/dp.json > "$1"
}

# run SIZE HOT MON: one workload under one monitor; prints its BENCH line.
run() {
	size=$1 hot=$2 mon=$3
	if [ "$hot" = small ]; then
		hot_mb=2
		wargs="-s $size -o 16 -h 2"
	else
		hot_mb=$((size / 4))
		[ $hot_mb -gt 256 ] && hot_mb=256
		wargs="-s $size -r $((size / 4 * 1024)),$((hot_mb * 1024)),10,r,rand"
	fi
	_prog_n=0
	# start_workload waits 10 s for the ground-truth line; touching 1 GiB
	# under TCG on a loaded host can take longer: wait here first.
	_thp=/sys/kernel/mm/transparent_hugepage/enabled
	[ -w $_thp ] && echo never > $_thp
	# shellcheck disable=SC2086
	/bin/workload $wargs -t 0 -n 2 > /tmp/workload.out 2>&1 &
	WORKLOAD_PID=$!
	_i=0
	# this workload's whole line, up to its last field, read once
	_re="^WORKLOAD pid=$WORKLOAD_PID base=.* hot_end=0x[0-9a-f]*\$"
	while :; do
		_line=$(grep "$_re" /tmp/workload.out 2>/dev/null | head -n 1)
		[ -n "$_line" ] && break
		_i=$((_i + 1))
		if [ $_i -gt 1200 ] || ! kill -0 "$WORKLOAD_PID" 2>/dev/null; then
			cat /tmp/workload.out
			not_ok "$size MiB $hot $mon: workload started"
			stop_workload
			return 1
		fi
		sleep 0.1
	done
	diag "$_line"
	WORKLOAD_HOT_START=$(echo "$_line" | sed 's/.*hot_start=\([^ ]*\).*/\1/')
	WORKLOAD_HOT_END=$(echo "$_line" | sed 's/.*hot_end=\([^ ]*\).*/\1/')
	HS=$((WORKLOAD_HOT_START)) HE=$((WORKLOAD_HOT_END))
	MS=$(($(echo "$_line" | sed 's/.*base=\([^ ]*\).*/\1/')))
	ME=$((MS + $(echo "$_line" | sed 's/.*size=\([^ ]*\).*/\1/')))
	KD_PID=
	case $mon in
	none) ;;
	damon) damon_on "$WORKLOAD_PID" 10 1000 || { not_ok "$mon started"; stop_workload; return 1; } ;;
	damon_page)
		n=$((size * 256 + 256))
		damon_on "$WORKLOAD_PID" $n $n || { not_ok "$mon started"; stop_workload; return 1; } ;;
	dp_p*)
		p=${mon#dp_p}; p=${p%_10k}; p=${p%_sw}; maxr=1000
		case $mon in *_10k) maxr=10000 ;; esac
		sw=0
		case $mon in *_sw) sw=1 ;; esac
		echo $sw > /sys/module/damon_perf/parameters/sample_wakeups
		damonctl start -n bench -p "$WORKLOAD_PID" -e page-faults --period "$p" \
			--exclude-kernel --sample-us 10000 --aggr-us 1000000 \
			--update-us 1000000 --min-nr-regions 10 --max-nr-regions $maxr \
			--ring-size 4096 >/dev/null || { not_ok "$mon started"; stop_workload; return 1; }
		for t in /proc/[0-9]*; do
			case "$(cat $t/comm 2>/dev/null)" in kdamond.*) KD_PID=${t#/proc/} ;; esac
		done ;;
	esac
	sleep "$warmup"
	c0=0
	[ -n "$KD_PID" ] && c0=$(cpu_ms "$KD_PID")
	workload_progress 1200 || { not_ok "$size MiB $hot $mon: progress line"; mon_off; return 1; }
	p0=$P_PASSES t0=$P_NS
	sleep "$window"
	workload_progress 1200 || { not_ok "$size MiB $hot $mon: progress line"; mon_off; return 1; }
	c1=0
	[ -n "$KD_PID" ] && c1=$(cpu_ms "$KD_PID")
	kd=-
	[ -n "$KD_PID" ] && kd=$(awk -v a="$c0" -v b="$c1" 'BEGIN { printf "%.1f", b - a }')
	prec=- rec=- seen=- nr=- out=-
	if [ "$mon" != none ]; then
		sp=0 sr=0 k=0 i=0 out=0
		while [ $i -lt "$snaps" ]; do
			i=$((i + 1))
			case $mon in
			damon*) damon_snapshot /tmp/regions ;;
			*) sleep 1; dp_snapshot /tmp/regions ;;
			esac
			# shellcheck disable=SC2046 # into $1 $2 $3 $4
			set -- $(score /tmp/regions)
			nr=$3
			[ "$4" -gt "$out" ] && out=$4
			if [ "$1" != - ]; then
				k=$((k + 1))
				sp=$(awk -v a="$sp" -v b="$1" 'BEGIN { print a + b }')
				sr=$(awk -v a="$sr" -v b="$2" 'BEGIN { print a + b }')
			fi
		done
		# means over every snapshot: one that saw nothing counts 0 recall;
		# precision only over those that saw something
		rec=$(awk -v a="$sr" -v n="$snaps" 'BEGIN { printf "%.3f", a / n }')
		[ $k -gt 0 ] && prec=$(awk -v a="$sp" -v n="$k" 'BEGIN { printf "%.3f", a / n }')
		seen=$k/$snaps
	fi
	mon_off
	echo "BENCH damon size=$size hot=$hot hot_mb=$hot_mb mon=$mon passes=$((P_PASSES - p0))" \
		"window_ns=$((P_NS - t0)) kdamond_ms=$kd prec=$prec rec=$rec seen=$seen nr_regions=$nr" \
		"outside_kib=$out"
	ok "$size MiB, $hot hot set, $mon"
}

# mon_off: stop the run's monitor and workload (a failed run too, so the
# next one starts clean)
mon_off() {
	case $mon in
	damon*) damon_off ;;
	dp_p*) damonctl stop bench >/dev/null 2>&1 ;;
	esac
	stop_workload
}

mons="none"
[ $have_damon -eq 1 ] && mons="$mons damon damon_page"
for p in $periods; do mons="$mons dp_p$p"; done
mons="$mons dp_p1_10k dp_p10_sw"
# BENCH_MONS=none,dp_p1,...: only these monitors
[ -n "${BENCH_MONS:-}" ] && mons=$(echo "$BENCH_MONS" | tr ',' ' ')
for size in $sizes; do
	for hot in $hots; do
		for mon in $mons; do
			run "$size" "$hot" "$mon"
		done
	done
done
unload_module damon_perf
finish
