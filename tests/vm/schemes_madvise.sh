#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kernels: stock
# numa: yes
# timeout: 900
# The madvise actions of damonctl schemes, each checked by its effect on a
# real process and its stats against that effect. Ground truth: the page
# cache (mincore(2) of the file, /bin/pagestate -f), the pages' flags
# (/proc/PID/pagemap and /proc/kpageflags, /bin/pagestate) and smaps,
# never the tool's stats.
#
# The workload runs on CPU 0, the tests on CPU 1. pageout, cold and willneed
# act on a 32 MiB file on a FAT file system on a loop device (a block
# file system, so that a clean page leaves the page cache when paged out;
# the kernel's loop, nls_cp437, fat and msdos modules: the three checks
# of each are skipped, with the reason, where one is missing), mapped
# shared by the workload (-F, MADV_RANDOM: a fault reads only its page),
# a 4 MiB hot range at 8 MiB, whose pages it drops after every pass (-f):
# the samples are its own page faults, NUMA balancing off (hinting faults
# come one per page per scan pass: on 6.12 an aggregation sometimes held
# none on the hot range, which then merged with idle memory, as
# schemes.sh says). collapse acts on anonymous
# memory, with NUMA balancing's hinting faults (fast scans) as samples (a
# refault would drop the huge pages).
#
# Each scheme is applied once per damonctl schemes run ("apply_interval_us"
# of an hour, runs of one aggregation, at most RUNS runs, until the effect
# is there), limited to the mapping by an addr filter; idle regions
# (nr_accesses 0, age >= AGE) for pageout, cold and willneed, hot ones
# (nr_accesses >= 1) for collapse. Per action:
#
# pageout: every page resident first (the first touch); at least 90 % of
#   the cold pages leave the page cache, at least 95 % of the hot ones stay.
# cold: the file read twice with read(2) first (its pages active on the
#   classic LRU; the multi-generational LRU, which keeps no active flag,
#   is switched off for the test and back); at least 90 % of the cold
#   pages inactive afterwards (KPF_ACTIVE clear); hot pages deactivated
#   (active before the runs, inactive after) at most those advised (what
#   sz_applied counts beyond the cold pages) and 5 %: where the monitor
#   took part of the hot range for idle, it was advised too. -f maps and
#   drops the hot pages all the time, so their state is read through the
#   page-cache frames learned over a second of passes (pagestate -w). An
#   estimate from the pages mapped at one moment failed on 7.2: 184 of
#   437 mapped inactive, scaled to 431 of 1024, against 209 advised (the
#   pages mapped are the stretch a pass has reached, not a sample).
# willneed: the file dropped from the page cache and only the hot range
#   touched (-T); the loop device's read-ahead raised to 64 MiB before the
#   workload opens the file (MADV_WILLNEED reads at most one read-ahead
#   window per call); at least 90 % of the cold pages in the page cache.
# collapse: 32 MiB of anonymous memory, 2 MiB aligned, faulted in with
#   THP "never" (4 KiB pages), then THP "madvise" (khugepaged leaves a
#   mapping without MADV_HUGEPAGE alone; MADV_COLLAPSE does not need it),
#   bound to node 0 with NUMA balancing's flag (workload -N 0): hinting
#   faults without migrations (a page under migration is a non-present
#   PTE, for which MADV_COLLAPSE fails its block with EINVAL):
#   at least 95 % of the 4 MiB hot range in transparent huge pages
#   (KPF_THP), AnonHugePages of the mapping in smaps at least the hot size.
#
# Stats, each action: the pages changed (left the cache, deactivated,
# entered the cache, became huge) in each run are at most the run's
# sz_applied (nothing changes without being counted); in the first run
# that applied anything, at least its sz_applied less 5 % (per-CPU LRU
# batches) and less the hot range for pageout, cold and willneed (advised
# hot pages are touched again), 4 MiB per piece for collapse
# (MADV_COLLAPSE collapses only the aligned 2 MiB blocks within a piece);
# no page failed.
. /tests/lib.sh

CTX=madv
AGGR_US=500000
AGE=${SCHEMES_AGE:-4}
RUNS=${SCHEMES_RUNS:-40}
FAT=/tmp/fatmnt
DATA=$FAT/data

need_damonctl "damonctl schemes"
diag_machine
load_module damon_perf || finish

# st PID START END KEY: a pagestate count of the range
st() {
	/bin/pagestate "$1" "$2" "$3" | sed -n "s/.* $4=\([0-9]*\).*/\1/p"
}
# incore START END: the pages of [START, END) of the mapping in the page cache
incore() {
	/bin/pagestate -f $DATA $(($1 - ms)) $(($2 - $1)) |
		sed -n 's/.* incore=\([0-9]*\).*/\1/p'
}
# jnum KEY FILE: the first "KEY": N of the file
jnum() { sed -n "s/.*\"$1\": \([0-9]*\).*/\1/p" "$2" | head -n 1; }
# failed_sum FILE: the pages of its failed_pages entries
failed_sum() {
	awk '/"failed_pages"/ { f = 1; if ($0 ~ /\{\}/) f = 0; next }
		f && /\}/ { f = 0; next }
		f { gsub(/[^0-9]/, "", $2); s += $2 }
		END { print s + 0 }' "$1"
}

# scheme_file ACTION PATTERN: /tmp/madv.json, once per run, the mapping only
scheme_file() {
	cat > /tmp/madv.json <<EOF
{"schemes": [{"name": "$1", "action": "$1", "pattern": $2,
  "apply_interval_us": "3600 s",
  "filters": [{"type": "addr", "start": "$(printf '%#x' "$ms")",
               "end": "$(printf '%#x' "$me")", "allow": true}]}]}
EOF
}
IDLE="{\"nr_accesses\": {\"min\": 0, \"max\": 0}, \"age\": {\"min\": $AGE}}"
HOT='{"nr_accesses": {"min": 1}}'

# changed: the count a section measures (set by the section's measure())
# runs_until DONE: damonctl schemes runs of one aggregation until DONE
# succeeds, at most RUNS; checks each run's change against its sz_applied
# and records the first applying run's figures (first_sz, first_nr,
# first_chg), the totals (sum_sz, sum_failed) and the runs (runs)
runs_until() {
	runs=0 sum_sz=0 sum_failed=0 first_sz='' over=''
	rm -f /tmp/madv.err
	measure
	while [ $runs -lt "$RUNS" ]; do
		runs=$((runs + 1))
		_before=$changed
		damonctl schemes -c /tmp/madv.json $CTX --json -n 1 \
			> /tmp/madv.out 2>> /tmp/madv.err
		settle
		_sz=$(jnum sz_applied /tmp/madv.out)
		_sz=${_sz:-0}
		sum_sz=$((sum_sz + _sz))
		sum_failed=$((sum_failed + $(failed_sum /tmp/madv.out)))
		_chg=$((changed - _before))
		[ $((_chg * 4096)) -gt "$_sz" ] &&
			over="${over}run $runs: $_chg pages for sz_applied $_sz; "
		if [ -z "$first_sz" ] && [ "$_sz" -gt 0 ]; then
			first_sz=$_sz first_chg=$_chg
			first_nr=$(jnum nr_applied /tmp/madv.out)
		fi
		"$@" && break
	done
	first_sz=${first_sz:-0} first_chg=${first_chg:-0} first_nr=${first_nr:-0}
	while read -r l; do
		case "$l" in applying*) ;; *) diag "stderr: $l" ;; esac
	done < /tmp/madv.err
}
# settle: measure until two reads agree (read-ahead and LRU batches land)
settle() {
	_i=0
	measure
	while [ $_i -lt 20 ]; do
		_prev=$changed
		sleep 0.2
		measure
		[ "$changed" = "$_prev" ] && break
		_i=$((_i + 1))
	done
}
# stats_check ACTION LESS: the tests of the stats; LESS is the bytes of
# the first applying run's sz_applied that need not have changed
stats_check() {
	if [ -z "$over" ]; then
		ok "$1: no run changed more pages than its sz_applied ($runs runs, sz_applied $sum_sz in all)"
	else
		not_ok "$1: pages changed beyond sz_applied: $over"
	fi
	_want=$((first_sz - $2 - first_sz / 20))
	if [ "$first_sz" -gt 0 ] && [ $((first_chg * 4096)) -ge "$_want" ] &&
		[ "$sum_failed" -eq 0 ]; then
		ok "$1: the first application's sz_applied $first_sz ($first_nr pieces) changed $first_chg pages (want at least $((_want > 0 ? _want / 4096 : 0))), none failed"
	else
		not_ok "$1: the first application's sz_applied $first_sz ($first_nr pieces) changed $first_chg pages (want at least $((_want > 0 ? _want / 4096 : 0))), $sum_failed pages failed"
	fi
}

# workload_on ARGS: the workload on CPU 0, its ranges in hs he ms me
workload_on() {
	taskset -p 1 $$ > /dev/null
	workload_started "$@"
	taskset -p 2 $$ > /dev/null 2>&1
	hs=$((WORKLOAD_HOT_START))
	he=$((WORKLOAD_HOT_END))
	ms=$((WORKLOAD_BASE))
	me=$((WORKLOAD_BASE + WORKLOAD_SIZE))
	hot_pages=$(((he - hs) / 4096))
	cold_pages=$(((me - ms) / 4096 - hot_pages))
	check "damonctl start: page-fault probe (hinting faults)" \
		damonctl start -n $CTX -p "$WORKLOAD_PID" -e page-faults \
		--period 1 --exclude-kernel --aggr-us $AGGR_US --ring-size 4096
	check "the monitor saw the hot range accessed" hot_seen
}
# hot_seen: wait, at most 60 aggregations, until a report shows the hot
# range accessed, so that no scheme runs on the monitor's first guesses
hot_seen() {
	_seq0=
	while :; do
		damonctl report $CTX --json > /tmp/madv.rep 2>/dev/null
		_seq=$(snap_seq /tmp/madv.rep)
		_seq0=${_seq0:-$_seq}
		regions /tmp/madv.rep > /tmp/madv.reg
		[ -n "$(regions_on /tmp/madv.reg "$hs" "$he" | awk '$3 > 0')" ] &&
			return 0
		[ $((${_seq:-0} - ${_seq0:-0})) -ge 60 ] && return 1
		sleep 0.5
	done
}
workload_off() {
	damonctl stop $CTX > /dev/null 2>&1
	stop_workload
}

# setup_fat: the file system and the 32 MiB file, or a reason on stdout
LOOPDEV=
setup_fat() {
	for m in loop nls_cp437 fat msdos; do
		[ -f /lib/damon_perf/extra/$m.ko ] ||
			{ echo "no $m module for this kernel"; return 1; }
		grep -q "^$m " /proc/modules ||
			insmod /lib/damon_perf/extra/$m.ko ||
			{ echo "insmod $m failed"; return 1; }
	done
	for i in 0 1 2 3 4 5 6 7; do
		[ -b /dev/loop$i ] || mknod /dev/loop$i b 7 $i 2>/dev/null
	done
	LOOPDEV=$(losetup -f) || { echo "no free loop device"; return 1; }
	dd if=/dev/zero of=/tmp/fat.img bs=1M count=48 2>/dev/null &&
		losetup "$LOOPDEV" /tmp/fat.img &&
		mkdosfs "$LOOPDEV" > /dev/null &&
		mkdir -p $FAT && mount -t msdos "$LOOPDEV" $FAT &&
		dd if=/dev/zero of=$DATA bs=1M count=32 2>/dev/null && sync ||
		{ echo "a FAT file system on $LOOPDEV failed"; return 1; }
}
teardown_fat() {
	umount $FAT 2>/dev/null
	[ -n "$LOOPDEV" ] && losetup -d "$LOOPDEV" 2>/dev/null
	rm -f /tmp/fat.img
	for m in msdos fat nls_cp437; do rmmod $m 2>/dev/null; done
}
drop_caches() { sync; echo 3 > /proc/sys/vm/drop_caches; }

echo 0 > /proc/sys/kernel/numa_balancing
if why=$(setup_fat); then
	# (set in the subshell of setup_fat: read it again)
	LOOPDEV=$(awk -v m=$FAT '$2 == m { print $1 }' /proc/mounts)
	# --- pageout ---
	drop_caches
	workload_on -F $DATA -s 32 -o 8 -h 4 -f -t 0 -n 2
	# changed: cold pages no longer in the page cache
	measure() {
		changed=$((cold_pages - $(incore "$ms" "$hs") - $(incore "$he" "$me")))
	}
	pageout_done() { [ $((changed * 100)) -ge $((cold_pages * 90)) ]; }
	rss0=$(awk '/^VmRSS:/ { print $2 }' "/proc/$WORKLOAD_PID/status")
	measure
	diag "pageout: before, $((cold_pages - changed)) of $cold_pages cold pages in the page cache"
	scheme_file pageout "$IDLE"
	runs_until pageout_done
	hot_in=$(incore "$hs" "$he")
	rss1=$(awk '/^VmRSS:/ { print $2 }' "/proc/$WORKLOAD_PID/status")
	diag "pageout: $changed of $cold_pages cold pages left the page cache in $runs runs, $hot_in of $hot_pages hot pages in it; VmRSS $rss0 -> $rss1 KiB; sz_applied $sum_sz"
	if pageout_done; then
		ok "pageout: $changed of $cold_pages cold pages left the page cache"
	else
		not_ok "pageout: $changed of $cold_pages cold pages left the page cache (want 90 %)"
	fi
	if [ $((hot_in * 100)) -ge $((hot_pages * 95)) ]; then
		ok "pageout: $hot_in of $hot_pages hot pages stayed in the page cache"
	else
		not_ok "pageout: $hot_in of $hot_pages hot pages stayed in the page cache (want 95 %)"
	fi
	stats_check pageout $((he - hs))
	workload_off

	# --- cold ---
	lrugen=/sys/kernel/mm/lru_gen/enabled
	lrugen0=
	if [ -w $lrugen ]; then
		lrugen0=$(cat $lrugen)
		echo n > $lrugen
	fi
	drop_caches
	workload_on -F $DATA -s 32 -o 8 -h 4 -f -t 0 -n 2 -a
	# hot_mask: the hot pages' LRU state, one character per page (A
	# active, i inactive, . not seen): -f maps and drops them all the
	# time, so their page-cache frames are learned over a second of
	# passes, and read once
	hot_mask() {
		/bin/pagestate -w 1000 -m "$WORKLOAD_PID" "$hs" "$he" |
			sed -n 's/^PAGEMASK //p'
	}
	# mask_count RE MASK: the pages whose character matches RE
	mask_count() { echo "$2" | awk -v r="^$1\$" '{ for (i = 1; i <= length($0); i++) n += substr($0, i, 1) ~ r } END { print n + 0 }'; }
	# mask_both RE0 RE1 MASK0 MASK1: the pages matching RE0 in MASK0 and
	# RE1 in MASK1
	mask_both() {
		awk -v r0="^$1\$" -v r1="^$2\$" -v a="$3" -v b="$4" 'BEGIN {
			for (i = 1; i <= length(a); i++)
				n += substr(a, i, 1) ~ r0 && substr(b, i, 1) ~ r1
			print n + 0 }'
	}
	# changed: cold pages not active
	measure() {
		changed=$((cold_pages - $(st "$WORKLOAD_PID" "$ms" "$hs" active) - $(st "$WORKLOAD_PID" "$he" "$me" active)))
	}
	cold_done() { [ $((changed * 100)) -ge $((cold_pages * 90)) ]; }
	measure
	mask0=$(hot_mask)
	diag "cold: before, $((cold_pages - changed)) of $cold_pages cold pages active, $(mask_count A "$mask0") of $hot_pages hot ones ($(mask_count '[Ai]' "$mask0") seen)"
	if [ $(((cold_pages - changed) * 100)) -ge $((cold_pages * 90)) ]; then
		scheme_file cold "$IDLE"
		runs_until cold_done
		mask1=$(hot_mask)
		# deactivated: active before, inactive on an LRU list after;
		# seen: a frame on an LRU list both times
		hot_off=$(mask_both A i "$mask0" "$mask1")
		hot_seen=$(mask_both '[Ai]' '[Ai]' "$mask0" "$mask1")
		diag "cold: $changed of $cold_pages cold pages inactive after $runs runs; hot pages active $(mask_count A "$mask0") before, $(mask_count A "$mask1") after, $hot_off deactivated ($hot_seen of $hot_pages seen both times); sz_applied $sum_sz"
		if cold_done; then
			ok "cold: $changed of $cold_pages cold pages deactivated"
		else
			not_ok "cold: $changed of $cold_pages cold pages deactivated (want 90 %)"
		fi
		# hot pages deactivated at most the hot pages advised, what
		# sz_applied counts beyond the cold pages deactivated, and 5 %
		hot_adv=$((sum_sz / 4096 - changed))
		hot_adv=$((hot_adv > 0 ? hot_adv : 0))
		if [ $((hot_seen * 100)) -ge $((hot_pages * 95)) ] &&
			[ "$hot_off" -le $((hot_adv + hot_pages / 20)) ]; then
			ok "cold: $hot_off of $hot_pages hot pages deactivated, $hot_adv advised ($hot_seen seen)"
		else
			not_ok "cold: $hot_off of $hot_pages hot pages deactivated, $hot_adv advised ($hot_seen seen; want at most the advised and 5 %, of 95 % seen)"
		fi
		stats_check cold $((he - hs))
	else
		for t in "cold pages deactivated" "hot pages deactivated" \
			"no run beyond sz_applied" "first application"; do
			not_ok "cold: $t: only $((cold_pages - changed)) of $cold_pages cold pages active before (read twice; want 90 %)"
		done
	fi
	workload_off
	[ -n "$lrugen0" ] && echo "$lrugen0" > $lrugen

	# --- willneed ---
	ra=/sys/block/${LOOPDEV#/dev/}/queue/read_ahead_kb
	ra0=$(cat "$ra")
	echo 65536 > "$ra"
	drop_caches
	workload_on -F $DATA -s 32 -o 8 -h 4 -f -t 0 -n 2 -T
	# changed: cold pages in the page cache
	measure() {
		changed=$(($(incore "$ms" "$hs") + $(incore "$he" "$me")))
	}
	willneed_done() { [ $((changed * 100)) -ge $((cold_pages * 90)) ]; }
	measure
	cold_in0=$changed
	diag "willneed: before, $changed of $cold_pages cold pages in the page cache"
	scheme_file willneed "$IDLE"
	runs_until willneed_done
	diag "willneed: $changed of $cold_pages cold pages in the page cache after $runs runs; sz_applied $sum_sz"
	if willneed_done && [ $((cold_in0 * 100)) -le $((cold_pages * 10)) ]; then
		ok "willneed: $changed of $cold_pages cold pages read into the page cache ($cold_in0 before)"
	else
		not_ok "willneed: $changed of $cold_pages cold pages in the page cache, $cold_in0 before (want 90 %, from at most 10 %)"
	fi
	stats_check willneed $((he - hs))
	workload_off
	echo "$ra0" > "$ra"
else
	for a in pageout cold willneed; do
		skip "$a: its effect on a file mapping" "$why"
	done
fi
teardown_fat

# --- collapse ---
thp=/sys/kernel/mm/transparent_hugepage/enabled
if [ -w $thp ]; then
	# the hot range must keep its age (nr_accesses >= 1 in every
	# aggregation): from 6.4 on fast scans give bursts up to 2.9 s apart
	# (lib.sh), and on 7.2 the region aged enough in 1 of 40 runs (2 of
	# the 4 MiB collapsed); steady scans keep the bursts within 0.8 s
	# shellcheck disable=SC2046 # major and minor into $1 $2
	set -- $(uname -r | sed 's/^\([0-9]*\)\.\([0-9]*\).*/\1 \2/')
	if [ "$1" -gt 6 ] || { [ "$1" -eq 6 ] && [ "$2" -ge 4 ]; }; then
		check "NUMA balancing on with steady scans" numa_balancing_steady
	else
		check "NUMA balancing on with fast scans" numa_balancing_fast
	fi
	thp0=$(sed 's/.*\[\(.*\)\].*/\1/' $thp)
	workload_on -H -s 32 -o 8 -h 4 -t 0 -n 2 -N 0
	echo madvise > $thp
	# changed: pages in transparent huge pages, the whole mapping
	measure() { changed=$(st "$WORKLOAD_PID" "$ms" "$me" thp); }
	hot_thp() { [ $(($(st "$WORKLOAD_PID" "$hs" "$he" thp) * 100)) -ge $((hot_pages * 95)) ]; }
	measure
	diag "collapse: before, $changed pages of the mapping in huge pages, AnonHugePages $(anon_huge "$WORKLOAD_PID" "$ms") KiB"
	scheme_file collapse "$HOT"
	runs_until hot_thp
	hot_in=$(st "$WORKLOAD_PID" "$hs" "$he" thp)
	ahp=$(anon_huge "$WORKLOAD_PID" "$ms")
	diag "collapse: $hot_in of $hot_pages hot pages, $changed of the mapping's $(((me - ms) / 4096)) in huge pages after $runs runs, AnonHugePages ${ahp:-?} KiB; sz_applied $sum_sz"
	if [ $((hot_in * 100)) -ge $((hot_pages * 95)) ] &&
		[ "${ahp:-0}" -ge $(((he - hs) / 1024)) ]; then
		ok "collapse: $hot_in of $hot_pages hot pages in huge pages, AnonHugePages ${ahp} KiB"
	else
		not_ok "collapse: $hot_in of $hot_pages hot pages in huge pages, AnonHugePages ${ahp:-?} KiB (want 95 % and $(((he - hs) / 1024)) KiB)"
	fi
	stats_check collapse $((first_nr * 4 * 1024 * 1024))
	workload_off
	echo "$thp0" > $thp
else
	skip "collapse: hot range in huge pages" "no transparent huge pages in this kernel"
fi
unload_module damon_perf
finish
