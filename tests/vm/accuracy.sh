#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kernels: bookworm
# numa: yes
# timeout: 300
# Accuracy of the regions against a workload's ground truth, per
# aggregation, for both split modes (Documentation/access-semantics.rst).
#
# The workload (tests/vm/workload.c) prints its hot ranges; damonctl record
# writes every aggregation as a JSON line; acc_score compares them:
#   P  precision: of the bytes of the mapping in regions with
#      nr_accesses >= 1, the share inside the hot ranges;
#   R  recall: of the hot ranges' bytes, the share in such regions
#      (Rmin: the worst hot range);
#   nr byte-weighted mean nr_accesses over each hot range (intensities).
# Page-fault probe at period 1, sample 10 ms, aggregation 1 s, default
# region bounds, NUMA balancing provoking hinting faults.
#
# make check runs the guard: one scenario (two hot ranges of 2 MiB and
# 1 MiB in 256 MiB), split samples must reach
# P and Rmin >= 0.8 by the 3rd aggregation and hold them; split random is
# only printed. With
# ACCURACY_FULL=1 on the kernel command line it runs the scenarios of
# the benchmark table (ACCURACY_ONLY=name,name: some of them, as one boot
# has this script's 300 s) and asserts nothing:
#   scripts/vm.sh --kernel stock --numa --mem 2048 \
#       --append "ACCURACY_FULL=1 ACCURACY_ONLY=512M-1M,1G-1M" \
#       tests/vm/accuracy.sh
. /tests/lib.sh

CTX=acc
AGGRS=${ACCURACY_AGGRS:-10}

# acc_truth WORKLOAD_OUT: the ground truth in decimal, one line each:
#   map START END | range I START END WEIGHT | move I START END T_NS
acc_truth() {
	sed -n 's/^WORKLOAD pid=[^ ]* base=\([^ ]*\) size=\([^ ]*\).*/\1 \2/p' "$1" |
	while read -r b s; do echo "map $((b)) $((b + s))"; done
	sed -n 's/^WORKLOAD range i=\([0-9]*\) start=\([^ ]*\) end=\([^ ]*\) weight=\([0-9]*\).*/\1 \2 \3 \4/p' "$1" |
	while read -r i s e w; do echo "range $i $((s)) $((e)) $w"; done
	sed -n 's/^WORKLOAD move i=\([0-9]*\) start=\([^ ]*\) end=\([^ ]*\) .* t_ns=\([0-9]*\).*/\1 \2 \3 \4/p' "$1" |
	while read -r i s e t; do echo "move $i $((s)) $((e)) $t"; done
}

# acc_score TRUTH RECORDING: one line per aggregation,
#   SEQ P R RMIN NR_REGIONS MOVED SAMPLES FULL nr0 nr1 ...
# (P, R as fractions, "-" without a sample in the mapping: no data; MOVED:
# 1 when the aggregation ended after a move; SAMPLES: the first probe's
# hits in regions on the mapping; FULL: 1 when each hot range drew at
# least 0.9 samples per page, i.e. the NUMA scan that makes the page
# faults covered all of them within this aggregation).
acc_score() {
	awk '
	function max(a, b) { return a > b ? a : b }
	function min(a, b) { return a < b ? a : b }
	FNR == NR {
		# + 0: numbers, not strings, in every comparison below
		if ($1 == "map") { ms = $2 + 0; me = $3 + 0 }
		if ($1 == "range") { hs[$2 + 0] = $3 + 0; he[$2 + 0] = $4 + 0
				     nh = max(nh, $2 + 1) }
		if ($1 == "move") { mi = $2 + 0; mvs = $3 + 0; mve = $4 + 0
				    mt = $5 + 0; mv = 1 }
		next
	}
	{
		line = $0
		seq = 0; t = 0
		if (match(line, /"seq":[0-9]+/))
			seq = substr(line, RSTART + 6, RLENGTH - 6) + 0
		if (match(line, /"time_ns":[0-9]+/))
			t = substr(line, RSTART + 10, RLENGTH - 10) + 0
		for (i = 0; i < nh; i++) { s[i] = hs[i]; e[i] = he[i] }
		moved = 0
		if (mv && t > mt) { s[mi] = mvs; e[mi] = mve; moved = 1 }
		sel = 0; hit = 0; n = 0; smp = 0
		for (i = 0; i < nh; i++) { cov[i] = 0; acc[i] = 0; hh[i] = 0 }
		rest = line
		while (match(rest, /"end":[0-9]+,"nr_accesses":[0-9]+,[^}]*"start":[0-9]+/)) {
			obj = substr(rest, RSTART, RLENGTH)
			rest = substr(rest, RSTART + RLENGTH)
			n++
			match(obj, /"end":[0-9]+/); re = substr(obj, RSTART + 6, RLENGTH - 6) + 0
			match(obj, /"nr_accesses":[0-9]+/); rn = substr(obj, RSTART + 14, RLENGTH - 14) + 0
			match(obj, /"start":[0-9]+/); rs = substr(obj, RSTART + 8, RLENGTH - 8) + 0
			cs = max(rs, ms); ce = min(re, me)
			if (ce <= cs) continue
			rh = 0
			if (match(obj, /"probe_hits":\[[0-9]+/))
				rh = substr(obj, RSTART + 14, RLENGTH - 14) + 0
			smp += rh
			if (rn >= 1) sel += ce - cs
			for (i = 0; i < nh; i++) {
				os = max(cs, s[i]); oe = min(ce, e[i])
				if (oe <= os) continue
				acc[i] += (oe - os) * rn
				hh[i] += rh * (oe - os) / (re - rs)
				if (rn >= 1) { cov[i] += oe - os; hit += oe - os }
			}
		}
		hot = 0; rmin = 1; full = 1
		for (i = 0; i < nh; i++) {
			hot += e[i] - s[i]
			rmin = min(rmin, cov[i] / (e[i] - s[i]))
			if (hh[i] < 0.9 * (e[i] - s[i]) / 4096) full = 0
		}
		if (smp)
			printf "%d %.3f %.3f %.3f %d %d %d %d", seq, \
			       sel ? hit / sel : 0, hot ? hit / hot : 0, rmin, \
			       n, moved, smp, full
		else
			printf "%d - - - %d %d 0 0", seq, n, moved
		for (i = 0; i < nh; i++) printf " %.1f", acc[i] / (e[i] - s[i])
		printf "\n"
	}' "$1" "$2"
}

# acc_run SPLIT NAME WORKLOAD_ARGS...: one scenario in one split mode;
# leaves the scores in /tmp/acc-NAME-SPLIT.score and prints them.
acc_run() {
	_split=$1 _name=$2
	shift 2
	_rec=/tmp/acc-$_name-$_split.jsonl
	_score=/tmp/acc-$_name-$_split.score
	: > "$_score"
	if ! start_workload "$@"; then
		diag "$_name: workload did not start"
		return 1
	fi
	cp /tmp/workload.out "/tmp/acc-$_name.out"
	damonctl record -o "$_rec" -n "$AGGRS" $CTX > /tmp/acc-record.log 2>&1 &
	_recpid=$!
	sleep 0.3	# subscribed before the first aggregation
	if ! damonctl start -n $CTX -p "$WORKLOAD_PID" -e page-faults \
		--period 1 --exclude-kernel --sample-us 10000 \
		--aggr-us 1000000 --ring-size 4096 --split "$_split" \
		> /tmp/acc-start.log 2>&1; then
		diag "$(cat /tmp/acc-start.log)"
		kill "$_recpid" 2>/dev/null
		stop_workload
		return 1
	fi
	wait "$_recpid"
	damonctl stop $CTX > /dev/null 2>&1	# and deletes it
	stop_workload
	sed -n '/^WORKLOAD move/p' /tmp/workload.out >> "/tmp/acc-$_name.out"
	acc_truth "/tmp/acc-$_name.out" > /tmp/acc-truth
	acc_score /tmp/acc-truth "$_rec" > "$_score"
	diag "$_name, split $_split: seq P R Rmin nr_regions moved samples full nr(range)..."
	diag "$(awk 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
		$1 == "total" { printf "perf_stats: sample_valid %s match %s overflow %s ring_peak %s\n",
			$h["sample_valid"], $h["match"], $h["overflow"], $h["ring_peak"] }' \
		/sys/kernel/debug/damon_perf/perf_stats 2>/dev/null)"
	diag "$(cat "$_score")"
}

# acc_dump RECORDING SEQ: the regions with nr_accesses >= 1 of aggregation
# SEQ, as "start-end nr hits" (hex), for a failure's diagnostics.
acc_dump() {
	awk -v q="$2" 'index($0, "\"seq\":" q ",") {
		rest = $0
		while (match(rest, /"end":[0-9]+,"nr_accesses":[0-9]+,"probe_hits":\[[0-9]+/)) {
			obj = substr(rest, RSTART, RLENGTH)
			rest = substr(rest, RSTART + RLENGTH)
			match(obj, /"end":[0-9]+/); e = substr(obj, RSTART + 6, RLENGTH - 6)
			match(obj, /"nr_accesses":[0-9]+/); n = substr(obj, RSTART + 14, RLENGTH - 14)
			match(obj, /"probe_hits":\[[0-9]+/); h = substr(obj, RSTART + 14, RLENGTH - 14)
			match(rest, /"start":[0-9]+/); st = substr(rest, RSTART + 8, RLENGTH - 8)
			if (n + 0 >= 1) printf "%s-%s %d %d\n", st, e, n, h
		}
	}' "$1" | while read -r r n h; do
		echo "$(printf '%#x-%#x' "${r%-*}" "${r#*-}") nr $n hits $h"
	done
}

# acc_summary NAME SPLIT: "detect D follow F" (aggregations; - = never).
acc_summary() {
	awk '
		$6 == 1 && !m { m = $1 }
		$2 == "-" { next }
		!d && $2 >= 0.9 && $4 >= 0.9 { d = $1 }
		m && !f && $2 >= 0.9 && $4 >= 0.9 { f = $1 - m + 1 }
		END { printf "detect %s follow %s\n", d ? d : "-",
		      m ? (f ? f : "-") : "n/a" }' "/tmp/acc-$1-$2.score"
}

if [ ! -x /bin/damonctl ]; then
	skip "accuracy of the regions" "damonctl not in the image"
	finish
fi
check "NUMA balancing on with fast scans" numa_balancing_fast
# One scan covers the whole workload: every hot page faults once per scan.
# Restored at the end: later scripts of the same boot see the default.
SCAN_SIZE=/sys/kernel/debug/sched/numa_balancing/scan_size_mb
old_scan_size=$(cat $SCAN_SIZE 2>/dev/null)
[ -w $SCAN_SIZE ] && echo 4096 > $SCAN_SIZE
restore_scan_size() {
	[ -n "$old_scan_size" ] && echo "$old_scan_size" > $SCAN_SIZE
}
load_module damon_perf || { restore_scan_size; finish; }

if [ "${ACCURACY_FULL:-0}" = 1 ]; then
	AGGRS=${ACCURACY_AGGRS:-10}
	WORKLOAD_WAIT=900	# a 1 GiB memset takes a while under TCG
	# name and workload arguments (offsets and sizes in KiB)
	set -- \
	"64M-4M|-s 64 -r 16384,4096 -t 0 -n 2" \
	"256M-2M|-s 256 -r 102400,2048 -t 0 -n 2" \
	"512M-1M|-s 512 -r 307200,1024 -t 0 -n 2" \
	"1G-1M|-s 1024 -r 614400,1024 -t 0 -n 2" \
	"256M-3ranges|-s 256 -r 16384,4096,10 -r 102400,2048,5,w,rand -r 204800,1024,2,r -t 0 -n 2" \
	"256M-move|-s 256 -r 32768,2048 -m 6:200 -t 0 -n 2"
	# ACCURACY_ONLY=a,b: only these scenarios (one boot has the 300 s of
	# this script's timeout; two or three scenarios fit)
	for sc in "$@"; do
		name=${sc%%|*}
		case ",${ACCURACY_ONLY:-$name}," in *",$name,"*) ;; *) continue ;; esac
		for split in samples random; do
			# shellcheck disable=SC2086
			acc_run $split "$name" ${sc#*|} || not_ok "$name $split ran"
		done
	done
	echo "# ACCURACY table: scenario split aggregation P R Rmin nr_regions"
	for sc in "$@"; do
		name=${sc%%|*}
		[ -f "/tmp/acc-$name-samples.score" ] || continue
		for split in samples random; do
			awk -v n="$name" -v s="$split" \
				'{ printf "# ACCURACY %s %s %d %s %s %s %d\n", n, s, $1, $2, $3, $4, $5 }' \
				"/tmp/acc-$name-$split.score"
			echo "# ACCURACY-SUMMARY $name $split $(acc_summary "$name" "$split")"
		done
	done
	ok "accuracy benchmark ran"
	restore_scan_size
	unload_module damon_perf
	finish
fi

# --- the split mode end to end -----------------------------------------
sleep 600 &
idle=$!
check "start --split random" damonctl start -n $CTX -p $idle -e page-faults \
	--period 1 --split random
if damonctl status --json 2>&1 | grep -q '"split": *"random"'; then
	ok "status --json shows split random"
else
	not_ok "status --json shows split random"
fi
expect_err "tune --split while running is refused" EBUSY \
	"split mode changes only while stopped" damonctl tune $CTX --split samples
if out=$(damonctl tune $CTX --split halves 2>&1); then
	not_ok "--split halves is refused (unexpected success)"
elif echo "$out" | grep -q -- "--split must be samples or random"; then
	ok "--split halves is refused: $out"
else
	not_ok "--split halves is refused with a clear message: $out"
fi
damonctl stop $CTX > /dev/null 2>&1
kill $idle 2>/dev/null
wait $idle 2>/dev/null

# --- the guard ----------------------------------------------------------
GUARD="-s 256 -r 65536,2048 -r 163840,1024 -t 0 -n 2"
# shellcheck disable=SC2086
if acc_run samples guard $GUARD; then
	ok "split samples: recorded $(wc -l < /tmp/acc-guard-samples.score) aggregations"
else
	not_ok "split samples: scenario ran"
fi
# shellcheck disable=SC2086
if acc_run random guard $GUARD; then
	ok "split random: recorded $(wc -l < /tmp/acc-guard-random.score) aggregations"
else
	not_ok "split random: scenario ran"
fi
diag "samples: $(acc_summary guard samples); random: $(acc_summary guard random)"

# From the 3rd aggregation on: P >= 0.8 in the aggregations with samples,
# R >= 0.8 in those whose samples covered both hot ranges (the NUMA
# scanner that makes the page faults runs in bursts, seconds apart on a
# loaded host, and a burst may straddle two aggregations).
# A burst that straddles two aggregations leaves one of them with part of
# a range sampled: at most a quarter of the aggregations may fall short.
verdict=$(awk '
	$1 >= 3 && $2 != "-" { n++; if ($2 < 0.8) { bad = bad " " $1 ":P=" $2; nb[$1] = 1 } }
	$1 >= 3 && $8 == 1 { f++; if ($4 < 0.8) { bad = bad " " $1 ":Rmin=" $4; nb[$1] = 1 } }
	END { for (q in nb) k++; printf "%d %d %d|%s\n", n, f, k, bad }' \
	/tmp/acc-guard-samples.score)
set -- ${verdict%%|*}
bad=${verdict#*|}
short=$3
random_sampled=$(awk '$2 != "-"' /tmp/acc-guard-random.score | wc -l)
if [ "$1" -eq 0 ] && [ "$random_sampled" -eq 0 ]; then
	skip "split samples: P and R >= 0.8 from the 3rd aggregation on" \
		"no page-fault samples at all in either run (NUMA scanner starved)"
elif [ "$1" -ge 1 ] && [ "$2" -ge 1 ] && [ $((short * 4)) -le "$1" ]; then
	ok "split samples: P and R >= 0.8 from the 3rd aggregation on" \
		"($1 aggregations with samples, $2 covering both ranges;" \
		"$short short:${bad:- none})"
else
	not_ok "split samples: P and R >= 0.8 from the 3rd aggregation on" \
		"($1 with samples, $2 covering both ranges; below:$bad)"
	for q in $(echo "$bad" | tr ' ' '\n' | sed 's/:.*//' | sort -u); do
		diag "aggregation $q, regions with nr_accesses >= 1:"
		diag "$(acc_dump /tmp/acc-guard-samples.jsonl "$q")"
	done
fi
restore_scan_size
unload_module damon_perf
finish
