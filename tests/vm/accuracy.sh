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
#   nr byte-weighted mean nr_accesses over each hot range (intensities),
#      and rank: whether they order as the ranges' weights.
# Page-fault probe at period 1, sample 10 ms, aggregation 1 s, default
# region bounds, NUMA balancing provoking hinting faults. A vaddr context
# monitors every workload process (-P) and is scored on their mappings; a
# paddr context covers System RAM (--phys-addr) and is scored against the
# frames of the hot pages (pagemap at the end of the run). The workload
# runs on CPU 0 (ACCURACY_PIN=0: anywhere, but paddr): a paddr context's hot pages
# then stay put, and for every context the NUMA scans come about twice
# as often (see the scan settings below).
#
# make check runs the guard: one scenario (two hot ranges of 2 MiB and
# 1 MiB in 256 MiB), split samples must reach
# P and Rmin >= 0.8 and PA (precision over the whole address space) >= 0.9
# by the 3rd aggregation and hold them; split random is
# only printed. With
# ACCURACY_FULL=1 (tests/vm/bench/accuracy.sh, make bench: its timeout
# fits them all) it runs the scenarios of the benchmark table
# (ACCURACY_ONLY=name,name: some of them) and asserts nothing:
#   scripts/vm.sh --kernel stock --numa --mem 2048 \
#       --append "ACCURACY_ONLY=512M-1M,1G-1M" tests/vm/bench/accuracy.sh
. /tests/lib.sh

CTX=acc
AGGRS=${ACCURACY_AGGRS:-10}

# acc_truth WORKLOAD_OUT: the ground truth in decimal, one line each:
#   map PID START END | range K PID START END WEIGHT | move PID:I START END T_NS
# (K: the hot range's index over all processes, in the order printed; I:
# the index within its process).
acc_truth() {
	sed -n 's/^WORKLOAD pid=\([0-9]*\) base=\([^ ]*\) size=\([^ ]*\).*/\1 \2 \3/p' "$1" |
	while read -r p b s; do echo "map $p $((b)) $((b + s))"; done
	sed -n 's/^WORKLOAD range i=\([0-9]*\) start=\([^ ]*\) end=\([^ ]*\) weight=\([0-9]*\).* pid=\([0-9]*\).*/\5 \2 \3 \4/p' "$1" |
	while read -r p s e w; do echo "$p $((s)) $((e)) $w"; done |
	awk '{ print "range", k++, $1, $2, $3, $4 }'
	sed -n 's/^WORKLOAD move i=\([0-9]*\) start=\([^ ]*\) end=\([^ ]*\) .* pid=\([0-9]*\) t_ns=\([0-9]*\).*/\4 \1 \2 \3 \5/p' "$1" |
	while read -r p i s e t; do echo "move $p:$i $((s)) $((e)) $t"; done
}

# acc_targets: "target ID PID" for every target of the context
# (damonctl status --json; recordings name targets by id only).
acc_targets() {
	damonctl status --json $CTX 2>/dev/null | tr -d ' \n' |
	awk '{
		rest = $0
		while (match(rest, /"id":[0-9]+,"nr_regions":[0-9]+,"pid":[0-9]+/)) {
			o = substr(rest, RSTART, RLENGTH); rest = substr(rest, RSTART + RLENGTH)
			split(o, f, /[:,]/); print "target", f[2], f[6]
		}
	}'
}

# acc_frames PID TRUTH: "frame K PADDR" for every present page of PID's
# mapping (the truth's map line) from /proc/PID/pagemap (bit 63 present,
# bits 0-54 the PFN, of which the low 36 are read), K the index of the hot
# range the page lies in, -1 for the mapping's other pages; ascending by
# PADDR.
acc_frames() {
	awk -v p="$1" '$1 == "map" && $2 == p { print $3, $4 }' "$2" |
	while read -r s e; do
		dd if="/proc/$1/pagemap" bs=65536 iflag=skip_bytes,count_bytes \
			skip=$((s / 4096 * 8)) count=$(((e - s) / 4096 * 8)) 2>/dev/null |
		od -An -v -tx8 | awk -v p="$1" -v s="$s" -v truth="$2" '
		function hex(s,   i, v) {
			v = 0
			for (i = 1; i <= length(s); i++)
				v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return v
		}
		BEGIN {
			nr = 0
			while ((getline l < truth) > 0) {
				split(l, f, " ")
				if (f[1] == "range" && f[3] == p) {
					rk[nr] = f[2]; rs[nr] = f[4] + 0; re[nr] = f[5] + 0; nr++
				}
			}
			a = s + 0
		}
		{
			for (i = 1; i <= NF; i++) {
				if (index("89abcdef", substr($i, 1, 1))) {
					k = -1
					for (j = 0; j < nr; j++)
						if (a >= rs[j] && a < re[j]) k = rk[j]
					printf "frame %d %.0f\n", k, hex(substr($i, 8)) * 4096
				}
				a += 4096
			}
		}'
	done | sort -n -k3,3
}

# acc_score TRUTH RECORDING: one line per aggregation,
#   SEQ P R RMIN NR_REGIONS MOVED SAMPLES FULL RANK PW PA nr0 nr1 ...
# (P, R as fractions, "-" without a sample in the mapping: no data; MOVED:
# 1 when the aggregation ended after a move; SAMPLES: the first probe's
# hits in regions on the mappings; FULL: 1 when each hot range drew at
# least 0.9 samples per page, i.e. the NUMA scan that makes the page
# faults covered all of them within this aggregation; RANK: 1 when every
# hot range with a higher weight has a higher nr (mean nr_accesses over
# its bytes) than every one with a lower weight, 0 when not, - when the
# weights are all the same or nothing was sampled). vaddr: the regions
# of each workload process (TRUTH's "target ID PID" lines), clipped to
# its mapping. With
# "frame" lines in TRUTH (paddr): every region counts (all of RAM), and
# a hot range is the frames its pages had at the end; P is then the share
# of all the bytes of RAM in regions with nr_accesses >= 1 that are frames
# of hot pages (the other processes' accessed pages, shell and damonctl,
# count against it), PW the same share of only the workload mapping's
# frames in such regions (hot against the workload's own cold pages:
# the question a vaddr context answers; "-" for vaddr, where P is that).
# PA: precision over the whole address space: for vaddr the share of the
# bytes of all the workload processes' regions with nr_accesses >= 1
# (stacks, heap and code included, not clipped to the mapping) that are
# hot; for paddr the same as P.
acc_score() {
	awk '
	function max(a, b) { return a > b ? a : b }
	function min(a, b) { return a < b ? a : b }
	function num(o, key,   v) {
		if (!match(o, "\"" key "\":[0-9]+")) return 0
		v = substr(o, RSTART, RLENGTH); sub(/.*:/, "", v); return v + 0
	}
	# first frame at or above a (binary search over fa[0..nf))
	function lb(a,   lo, hi, m) {
		lo = 0; hi = nf
		while (lo < hi) { m = int((lo + hi) / 2); if (fa[m] < a) lo = m + 1; else hi = m }
		return lo
	}
	FNR == NR {
		# + 0: numbers, not strings, in every comparison below
		if ($1 == "map") { ms[$2 + 0] = $3 + 0; me[$2 + 0] = $4 + 0 }
		if ($1 == "range") { k = $2 + 0; rp[k] = $3 + 0; hs[k] = $4 + 0
				     he[k] = $5 + 0; w[k] = $6 + 0; nh = max(nh, k + 1) }
		if ($1 == "move") { mi[$2] = 1; mvs[$2] = $3 + 0; mve[$2] = $4 + 0
				    mt[$2] = $5 + 0; mv = 1 }
		if ($1 == "target") tp[$2 + 0] = $3 + 0
		if ($1 == "frame") { fk[nf + 0] = $2 + 0; fa[nf + 0] = $3 + 0
				     nf++; if ($2 >= 0) nfk[$2 + 0]++ }
		next
	}
	{
		line = $0
		seq = num(line, "seq"); t = num(line, "time_ns")
		for (i = 0; i < nh; i++) {
			s[i] = hs[i]; e[i] = he[i]
		}
		# a move names its range by pid:index within the process
		moved = 0
		for (key in mi) {
			if (t <= mt[key]) continue
			split(key, pk, ":"); n0 = 0
			for (i = 0; i < nh; i++)
				if (rp[i] == pk[1] && n0++ == pk[2]) {
					s[i] = mvs[key]; e[i] = mve[key]; moved = 1
				}
		}
		sel = 0; hit = 0; n = 0; smp = 0; selw = 0; sela = 0
		for (i = 0; i < nh; i++) { cov[i] = 0; acc[i] = 0; hh[i] = 0 }
		rest = line
		while (match(rest, /"end":[0-9]+,"nr_accesses":[0-9]+,[^}]*"start":[0-9]+,"target_id":[0-9]+/)) {
			obj = substr(rest, RSTART, RLENGTH)
			rest = substr(rest, RSTART + RLENGTH)
			n++
			re = num(obj, "end"); rn = num(obj, "nr_accesses")
			rs = num(obj, "start"); pid = tp[num(obj, "target_id")]
			rh = 0
			if (match(obj, /"probe_hits":\[[0-9]+/))
				rh = substr(obj, RSTART + 14, RLENGTH - 14) + 0
			if (nf) {
				smp += rh
				if (rn >= 1) sel += re - rs
				for (j = lb(rs); j < nf && fa[j] < re; j++) {
					i = fk[j]
					if (rn >= 1) selw += 4096
					if (i < 0) continue
					acc[i] += 4096 * rn
					hh[i] += rh * 4096 / (re - rs)
					if (rn >= 1) { cov[i] += 4096; hit += 4096 }
				}
				continue
			}
			if (!(pid in ms)) continue
			# the whole address space: stacks, heap, code too
			if (rn >= 1) sela += re - rs
			cs = max(rs, ms[pid]); ce = min(re, me[pid])
			if (ce <= cs) continue
			smp += rh
			if (rn >= 1) sel += ce - cs
			for (i = 0; i < nh; i++) {
				if (rp[i] != pid) continue
				os = max(cs, s[i]); oe = min(ce, e[i])
				if (oe <= os) continue
				acc[i] += (oe - os) * rn
				hh[i] += rh * (oe - os) / (re - rs)
				if (rn >= 1) { cov[i] += oe - os; hit += oe - os }
			}
		}
		hot = 0; rmin = 1; full = 1
		for (i = 0; i < nh; i++) {
			sz[i] = nf ? 4096 * nfk[i] : e[i] - s[i]
			if (!sz[i]) continue
			hot += sz[i]
			rmin = min(rmin, cov[i] / sz[i])
			if (hh[i] < 0.9 * sz[i] / 4096) full = 0
		}
		rank = "-"
		for (i = 0; i < nh; i++)
			for (j = 0; j < nh; j++)
				if (w[i] > w[j] && sz[i] && sz[j]) {
					if (rank == "-") rank = 1
					if (acc[i] / sz[i] <= acc[j] / sz[j]) rank = 0
				}
		pw = nf ? sprintf("%.3f", selw ? hit / selw : 0) : "-"
		pa = nf ? pw : sprintf("%.3f", sela ? hit / sela : 0)
		if (smp)
			printf "%d %.3f %.3f %.3f %d %d %d %d %s %s %s", seq, \
			       sel ? hit / sel : 0, hot ? hit / hot : 0, rmin, \
			       n, moved, smp, full, rank, pw, pa
		else
			printf "%d - - - %d %d 0 0 - - -", seq, n, moved
		for (i = 0; i < nh; i++) printf " %.1f", sz[i] ? acc[i] / sz[i] : 0
		printf "\n"
	}' "$1" "$2"
}

# acc_run SPLIT NAME OPS WORKLOAD_ARGS...: one scenario in one split mode,
# OPS vaddr (a context on every workload process) or paddr (over System
# RAM, --phys-addr); the workload on CPU 0 unless ACCURACY_PIN=0 (always
# for paddr: its pages stay where the final pagemap read finds them); leaves
# the scores in
# /tmp/acc-NAME-SPLIT.score and prints them.
acc_run() {
	_split=$1 _name=$2 _ops=$3
	shift 3
	_rec=/tmp/acc-$_name-$_split.jsonl
	_score=/tmp/acc-$_name-$_split.score
	: > "$_score"
	_pin=$PIN
	[ "$_ops" = paddr ] && _pin=1
	[ "$_pin" = 1 ] && taskset -p 1 $$ > /dev/null
	start_workload "$@"
	_rc=$?
	[ "$_pin" = 1 ] && taskset -p ffffffff $$ > /dev/null
	# -P: the parent's own line comes after every child's
	_i=0
	while [ $_rc -eq 0 ] &&
	      ! grep -q "^WORKLOAD pid=$WORKLOAD_PID " /tmp/workload.out; do
		_i=$((_i + 1))
		[ $_i -gt "${WORKLOAD_WAIT:-100}" ] && _rc=1
		sleep 0.1
	done
	if [ $_rc -ne 0 ]; then
		diag "$_name: workload did not start"
		stop_workload
		return 1
	fi
	cp /tmp/workload.out "/tmp/acc-$_name.out"
	if [ "$_ops" = paddr ]; then
		# shellcheck disable=SC2046
		set -- --ops paddr $(ram_ranges) --phys-addr
	else
		set --
		for _p in $(sed -n 's/^WORKLOAD pid=\([0-9]*\) .*/\1/p' /tmp/workload.out); do
			set -- "$@" -p "$_p"
		done
	fi
	_seq0=$(scan_seqs)
	damonctl record -o "$_rec" -n "$AGGRS" $CTX > /tmp/acc-record.log 2>&1 &
	_recpid=$!
	# ACCURACY_TRACE_SCANS=1: the NUMA scanner's passes and the workload
	# threads' CPU time every 0.2 s ("uptime seq runtime_ms...")
	_trpid=
	if [ "${ACCURACY_TRACE_SCANS:-0}" = 1 ]; then
		while kill -0 "$_recpid" 2>/dev/null; do
			_l="$(cut -d' ' -f1 /proc/uptime) $(sed -n 's/^mm->numa_scan_seq *: *//p' \
				"/proc/$WORKLOAD_PID/sched" 2>/dev/null)"
			for _t in /proc/"$WORKLOAD_PID"/task/*; do
				_l="$_l $(sed -n 's/^se.sum_exec_runtime *: *\([0-9]*\).*/\1/p' "$_t/sched" 2>/dev/null)"
			done
			echo "$_l"
			sleep 0.2
		done > /tmp/acc-scantrace &
		_trpid=$!
	fi
	sleep 0.3	# subscribed before the first aggregation
	if ! workload_paused damonctl start -n $CTX "$@" -e page-faults \
		--period 1 --exclude-kernel --sample-us 10000 \
		--aggr-us 1000000 --ring-size 4096 --split "$_split" \
		> /tmp/acc-start.log 2>&1; then
		diag "$(cat /tmp/acc-start.log)"
		kill "$_recpid" 2>/dev/null
		stop_workload
		return 1
	fi
	wait "$_recpid"
	[ -n "$_trpid" ] && wait "$_trpid" && diag "$_name scan trace:" && diag "$(cat /tmp/acc-scantrace)"
	_seq1=$(scan_seqs)
	# passes of the NUMA scanner during the run, per process: "N,N"
	for _a in $_seq1; do
		for _b in $_seq0; do
			[ "${_a%%:*}" = "${_b%%:*}" ] &&
				printf '%s\n' $((${_a#*:} - ${_b#*:}))
		done
	done | tr '\n' ',' | sed 's/,$//' > "/tmp/acc-$_name-$_split.passes"
	sed -n '/^WORKLOAD move/p' /tmp/workload.out >> "/tmp/acc-$_name.out"
	acc_truth "/tmp/acc-$_name.out" > /tmp/acc-truth
	acc_targets >> /tmp/acc-truth
	if [ "$_ops" = paddr ]; then
		acc_frames "$WORKLOAD_PID" /tmp/acc-truth > /tmp/acc-frames
		cat /tmp/acc-frames >> /tmp/acc-truth
	fi
	workload_paused damonctl stop $CTX > /dev/null 2>&1	# and deletes it
	stop_workload
	acc_score /tmp/acc-truth "$_rec" > "$_score"
	diag "$_name: NUMA scan passes (pid:numa_scan_seq) before $_seq0, after $_seq1"
	diag "$_name ($_ops), split $_split: seq P R Rmin nr_regions moved samples full rank Pw Pa nr(range)..."
	diag "$(awk 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
		$1 == "total" { printf "perf_stats: sample_valid %s match %s overflow %s ring_peak %s\n",
			$h["sample_valid"], $h["match"], $h["overflow"], $h["ring_peak"] }' \
		/sys/kernel/debug/damon_perf/perf_stats 2>/dev/null)"
	diag "$(cat "$_score")"
}

# acc_summary NAME SPLIT [PCOL]: "detect D held H follow F rank K/N"
# (P from column PCOL of the score, default 2; 10: PW)
# (aggregations; D: the first with P and Rmin >= 0.9, - = never; H: of
# the aggregations with samples from D on, those with P and Rmin >= 0.9;
# F: after the move, the aggregations until the first with P and
# Rmin >= 0.9 on the moved range, n/a without a move; K/N: aggregations
# ranking the intensities right of those with samples and a ranking).
acc_summary() {
	awk -v c="${3:-2}" '
		$6 == 1 && !m { m = $1 }
		$2 == "-" { next }
		{ good = $c >= 0.9 && $4 >= 0.9 }
		!d && good { d = $1 }
		d { hn++; hk += good }
		m && !f && good { f = $1 - m + 1 }
		$9 != "-" { rn++; rk += $9 }
		END { printf "detect %s held %s follow %s rank %s\n", d ? d : "-",
		      d ? hk "/" hn : "-", m ? (f ? f : "-") : "n/a",
		      rn ? rk "/" rn : "n/a" }' "/tmp/acc-$1-$2.score"
}

if [ ! -x /bin/damonctl ]; then
	skip "accuracy of the regions" "damonctl not in the image"
	finish
fi
check "NUMA balancing on with fast scans" numa_balancing_fast
# The sample source is NUMA hinting faults: a touched page faults once
# after each scan of the NUMA balancer, so the scan rate is the sample
# rate, chosen here as a user picks a PMU period. The kernel never scans
# faster than 2560 MiB a second (kernel/sched/fair.c task_scan_min(),
# MAX_SCAN_WINDOW): the period is at least 1000 ms * scan_size_mb / 2560,
# so a scan_size_mb of 2560 or more means a scan a second at best, about
# one per 1 s aggregation and none in some. 512 MiB a scan and a
# 100 ms period give that floor, 200 ms: a scan of the first 512 MiB of a
# process's resident memory five times a second, every page of a mapping
# of up to about 500 MiB five times per aggregation, of 1 GiB about
# twice (the scan goes on where it stopped). Fewer come: the kernel also
# holds the scan to 3% of the threads' CPU time (task_numa_work(): the
# next scan waits 32 times the CPU time the last one took), and under
# TCG a scan of 256 MiB of PTEs takes tens of milliseconds, more when the
# workload's threads run on both CPUs (each scan's TLB flush then
# reaches the other vCPU): measured, about 1.2 passes a second over
# 256 MiB on two CPUs, 2.5 with the workload on CPU 0 (PIN). Restored at
# the end: later scripts of the same boot see what they saw before.
NB=/sys/kernel/debug/sched/numa_balancing
SCAN_SIZE_MB=${ACCURACY_SCAN_SIZE_MB:-512}
SCAN_PERIOD_MS=${ACCURACY_SCAN_PERIOD_MS:-100}
PIN=${ACCURACY_PIN:-1}
scan_saved=
for _k in scan_delay_ms scan_period_min_ms scan_period_max_ms scan_size_mb; do
	[ -r $NB/$_k ] && scan_saved="$scan_saved $_k=$(cat $NB/$_k)"
done
if [ -w $NB/scan_size_mb ]; then
	echo "$SCAN_PERIOD_MS" > $NB/scan_delay_ms
	echo "$SCAN_PERIOD_MS" > $NB/scan_period_max_ms
	echo "$SCAN_PERIOD_MS" > $NB/scan_period_min_ms
	echo "$SCAN_SIZE_MB" > $NB/scan_size_mb
fi
restore_scan_size() {
	for _kv in $scan_saved; do
		echo "${_kv#*=}" > "$NB/${_kv%%=*}"
	done
}
_floor=1000
[ "$SCAN_SIZE_MB" -lt 2560 ] && _floor=$((1000 / (2560 / SCAN_SIZE_MB)))
_set=""
for _k in scan_delay_ms scan_period_min_ms scan_period_max_ms scan_size_mb; do
	_set="$_set $_k=$(cat $NB/$_k 2>/dev/null || echo -)"
done
echo "# ACCURACY-SETTING numa_balancing$_set floor_ms=$_floor workload_on_cpu0=$PIN (was:${scan_saved:- unknown})"

# scan_seqs: "PID:numa_scan_seq" of every workload process (the NUMA
# balancer's completed passes over its address space, /proc/PID/sched).
scan_seqs() {
	for _p in $(sed -n 's/^WORKLOAD pid=\([0-9]*\) .*/\1/p' /tmp/workload.out); do
		printf '%s:%s ' "$_p" "$(sed -n 's/^mm->numa_scan_seq *: *//p' \
			"/proc/$_p/sched" 2>/dev/null)"
	done
}
load_module damon_perf || { restore_scan_size; finish; }

if [ "${ACCURACY_FULL:-0}" = 1 ]; then
	AGGRS=${ACCURACY_AGGRS:-10}
	WORKLOAD_WAIT=900	# a 1 GiB memset takes a while under TCG
	# name, context (vaddr|paddr) and workload arguments (-r offsets and
	# sizes in KiB, weight 1..10, r|w, seq|rand; -m SECS:OFF_MB moves
	# the first range; -P processes)
	set -- \
	"64M-4M|vaddr|-s 64 -r 16384,4096 -t 0 -n 2" \
	"256M-2M|vaddr|-s 256 -r 102400,2048 -t 0 -n 2" \
	"512M-1M|vaddr|-s 512 -r 307200,1024 -t 0 -n 2" \
	"1G-1M|vaddr|-s 1024 -r 614400,1024 -t 0 -n 2" \
	"1G-1M-f|vaddr|-s 1024 -r 614400,1024 -f -t 0 -n 2" \
	"256M-3ranges|vaddr|-s 256 -r 16384,4096,10 -r 102400,2048,5,w,rand -r 204800,1024,2,r -t 0 -n 2" \
	"256M-3ranges-f|vaddr|-s 256 -r 16384,4096,10 -r 102400,2048,5,w,rand -r 204800,1024,2,r -f -t 0 -n 2" \
	"256M-move|vaddr|-s 256 -r 32768,2048 -m 6:200 -t 0 -n 2" \
	"2x128M-procs|vaddr|-s 128 -r 32768,2048 -r 98304,1024,3,w,rand -P 2 -t 0 -n 2" \
	"256M-2ranges-paddr|paddr|-s 256 -r 65536,2048 -r 163840,1024,3 -t 0 -n 2"
	# ACCURACY_ONLY=a,b: only these scenarios
	for sc in "$@"; do
		name=${sc%%|*}
		case ",${ACCURACY_ONLY:-$name}," in *",$name,"*) ;; *) continue ;; esac
		rest=${sc#*|}
		for split in samples random; do
			# shellcheck disable=SC2086
			acc_run $split "$name" ${rest%%|*} ${rest#*|} ||
				not_ok "$name $split ran"
		done
	done
	echo "# ACCURACY table: scenario split aggregation P R Rmin nr_regions rank nr(range)..."
	echo "# (NAME:own: a paddr scenario scored on the workload's own frames, P = Pw)"
	for sc in "$@"; do
		name=${sc%%|*}
		[ -f "/tmp/acc-$name-samples.score" ] || continue
		for split in samples random; do
			for own in 0 1; do
				[ $own = 1 ] && [ "$(awk '$10 != "-"' \
					"/tmp/acc-$name-$split.score" | wc -l)" -eq 0 ] && continue
				n=$name
				[ $own = 1 ] && n=$name:own
				awk -v n="$n" -v s="$split" -v o=$own '{
					printf "# ACCURACY %s %s %d %s %s %s %d %s", n, s, $1, o ? $10 : $2, $3, $4, $5, $9
					for (i = 12; i <= NF; i++) printf " %s", $i
					printf "\n" }' "/tmp/acc-$name-$split.score"
				echo "# ACCURACY-SUMMARY $n $split $(acc_summary "$name" "$split" $((own ? 10 : 2))) passes $(cat "/tmp/acc-$name-$split.passes" 2>/dev/null)"
			done
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
if acc_run samples guard vaddr $GUARD; then
	ok "split samples: recorded $(wc -l < /tmp/acc-guard-samples.score) aggregations"
else
	not_ok "split samples: scenario ran"
fi
# shellcheck disable=SC2086
if acc_run random guard vaddr $GUARD; then
	ok "split random: recorded $(wc -l < /tmp/acc-guard-random.score) aggregations"
else
	not_ok "split random: scenario ran"
fi
diag "samples: $(acc_summary guard samples); random: $(acc_summary guard random)"

# From the 3rd aggregation on: P >= 0.8 in the aggregations with samples
# and PA, the precision over the whole address space (the stack, heap and
# code the workload touches on one or two of their pages too), >= 0.9;
# R >= 0.8 in those whose samples covered both hot ranges (the NUMA
# scanner that makes the page faults runs in bursts, seconds apart on a
# loaded host, and a burst may straddle two aggregations).
# A burst that straddles two aggregations leaves one of them with part of
# a range sampled: at most a quarter of the aggregations may fall short.
# Aggregations are counted as measurements: one carried below the sample
# floor repeats the measurement before it (the same regions), so it is
# not counted again (a stray sample on one page of a 192-page region is
# no evidence in the measurement that has it, and the next one cuts it
# out; the two carried between them had counted it three times).
carried=$(sed -n 's/.*"confidence":"carried".*"seq":\([0-9]*\),.*/\1/p' \
	/tmp/acc-guard-samples.jsonl | tr '\n' ' ')
diag "carried aggregations (not counted): ${carried:-none}"
verdict=$(awk -v carried=" $carried" '
	index(carried, " " $1 " ") { next }
	$1 >= 3 && $2 != "-" { n++; if ($2 < 0.8) { bad = bad " " $1 ":P=" $2; nb[$1] = 1 } }
	$1 >= 3 && $11 != "-" && $11 < 0.9 { bad = bad " " $1 ":PA=" $11; nb[$1] = 1 }
	$1 >= 3 && $8 == 1 { f++; if ($4 < 0.8) { bad = bad " " $1 ":Rmin=" $4; nb[$1] = 1 } }
	END { for (q in nb) k++; printf "%d %d %d|%s\n", n, f, k, bad }' \
	/tmp/acc-guard-samples.score)
set -- ${verdict%%|*}
bad=${verdict#*|}
short=$3
random_sampled=$(awk '$2 != "-"' /tmp/acc-guard-random.score | wc -l)
if [ "$1" -eq 0 ] && [ "$random_sampled" -eq 0 ]; then
	skip "split samples: P and R >= 0.8, PA >= 0.9 from the 3rd aggregation on" \
		"no page-fault samples at all in either run (NUMA scanner starved)"
elif [ "$1" -ge 1 ] && [ "$2" -ge 1 ] && [ $((short * 4)) -le "$1" ]; then
	ok "split samples: P and R >= 0.8, PA >= 0.9 from the 3rd aggregation on" \
		"($1 aggregations with samples, $2 covering both ranges;" \
		"$short short:${bad:- none})"
else
	not_ok "split samples: P and R >= 0.8, PA >= 0.9 from the 3rd aggregation on" \
		"($1 with samples, $2 covering both ranges; below:$bad)"
	for q in $(echo "$bad" | tr ' ' '\n' | sed 's/:.*//' | sort -u); do
		# every region, KiB from address 0 (nN: nr_accesses, s: the
		# span of its samples)
		diag "aggregation $q, regions (KiB from address 0):"
		diag "$(regions_of_aggregation /tmp/acc-guard-samples.jsonl "$q" 0 281474976710656)"
	done
fi
restore_scan_size
unload_module damon_perf
finish
