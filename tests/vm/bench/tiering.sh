#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kernels: trixie sid
# numa: tier
# timeout: 7200
# make bench, VM part: tiering, three systems each alone on the same
# workload, on a machine with two memory tiers (scripts/vm.sh --tier:
# node 1 without CPUs and slower in the ACPI HMAT, a tier below node 0's
# from 6.10 on), booted with nopcid and a busy process on each CPU so
# that DAMON's accessed bits work under the emulator. Not part of make
# check; scripts/bench.sh boots it and tabulates and plots its lines
# (scripts/lib/bench_tiering.py).
#
# Systems (BENCH_TIERING_SYSTEMS, default "dp damos damos_goal numa2"):
#   dp          damon_perf: damonctl start on the workload (page faults at
#               period 1: NUMA balancing's hinting faults, mode 1; the
#               mapping bound to node 1 with -N 1, so the kernel itself
#               moves none of it), one damonctl schemes process for the
#               whole run with migrate_hot to node 0 ("min": 1); for
#               full also migrate_cold to node 1 (nr_accesses 0, age 3)
#               with a 200 MiB/s quota while node 0 has less than 10 %
#               free (node_mem_free_bp, the temporal tuner): room for
#               the hot range, as a user sizes it
#   damos       DAMOS as a user writes it first: a paddr context over the
#               machine (sample 5 ms, aggregation 100 ms, 10..1000
#               regions), one scheme migrate_hot to node 0 for regions
#               with nr_accesses >= 1 (every max set), no quota; NUMA
#               balancing off
#   damos_goal  DAMOS as DAMON's tiering documentation recommends
#               (Documentation/admin-guide/mm/damon/usage.rst and damo's
#               tiering example): intervals_goal (access_bp 400, 3
#               aggregations, 5 ms..10 s), a paddr context per node, on
#               node 1 migrate_hot to node 0 and on node 0 migrate_cold
#               to node 1, each with a 200 MiB/s quota and a goal on
#               node 0 (node_mem_used_bp 99.7 % for the promotion,
#               node_mem_free_bp 0.5 % for the demotion); needs the node
#               goals (6.16 and later), else reported as unavailable
#   numa2       the kernel's own tiering: kernel.numa_balancing=2,
#               demotion enabled, the workload placed on node 1 and then
#               unbound (-S 1), NUMA balancing's scan periods as in the
#               other runs
# Scenarios (BENCH_TIERING_SCENARIOS, default "static phase thp procs
# full fullthp"), the mappings on node 1, each read by two threads:
#   static  a 32 MiB hot range at 64 MiB of 256 MiB, random order
#   phase   the same, moved to 160 MiB half way through the run
#   thp     static with THP always (the mapping in 2 MiB huge pages)
#   procs   four processes (-P 4), each an 8 MiB hot range at 16 MiB of
#           64 MiB, random order, summed over the four
#   full    a fast node smaller than the working set: the hot range at
#           64 MiB of 128 MiB, and cold ballast of the workload's own on
#           node 0 (workload -b) that leaves node 0 a quarter of the hot
#           size free above its high watermark: promotion needs demotion
#   fullthp full with THP always (the mapping in huge pages; the ballast
#           stays in small pages, workload -b)
# Each run lasts BENCH_TIERING_SECS (300) and prints every STEP (5) s
#   BENCH tier k=KERNEL sys=S scen=C t=SECS hot0=N hot=N cold0=N cold=N
# (pages of the hot range and of the rest of the mapping on node 0, from
# the page frames: pagenodes -m) and at its end
#   BENCH tier-sum k=KERNEL sys=S scen=C secs=N t95=SECS|- hot=N cold=N
#     start_node1=N pages=N cold_promoted=N migrated=N cpu_ms=N|-
#     mon_ms=N|- eng_ms=N|-
#     passes=N fair=yes|no [ballast=N ballast0_start=N ballast0_end=N]
# t95: the first sample with 95 % of the hot pages on node 0 (after the
# move, for phase: from the move); start_node1: the mapping's pages on
# node 1 when the system started, of pages; cold: the mapping less the
# hot range (for phase less both ranges); cold_promoted: the most cold
# pages on node 0 at any sample; migrated: /proc/vmstat pgmigrate_success over the
# run (every migration of the machine, whoever made it); cpu_ms: the
# monitor's and the engine's CPU time, mon_ms and eng_ms apart (dp: the
# module's kdamond, the damonctl schemes process; DAMOS: its kdamonds,
# which apply the schemes too; numa2: -, its scanning and faults run in
# the workload's own threads); passes: the workload's
# (under the emulator a remote access costs what a local one does, so
# placement, not passes, is the measure); fair: whether the system
# moved any hot page at all (it saw the workload); for full, the ballast's
# pages, and those on node 0 when the system started and at the end.
. /tests/lib.sh

SECS=${BENCH_TIERING_SECS:-300}
STEP=${BENCH_TIERING_STEP:-5}
AGGR_US=500000
D=/sys/kernel/mm/damon/admin/kdamonds

need_damonctl "the tiering bench"
load_module damon_perf || finish
grep -qw nopcid /proc/cmdline || diag "booted without nopcid: DAMON may see nothing"
if [ -n "$(cat /sys/devices/system/node/node1/cpulist 2>/dev/null)" ]; then
	diag "node 1 has CPUs: not the --tier machine"
fi
for t in /sys/devices/virtual/memory_tiering/memory_tier*; do
	[ -d "$t" ] && diag "${t##*/}: nodes $(cat "$t/nodelist")"
done

BUSY=
for _c in $(seq 1 "$(grep -c '^processor' /proc/cpuinfo)"); do
	sh -c 'while :; do :; done' &
	BUSY="$BUSY $!"
done

# DAMON's own modules (7.2's DAMON_STAT runs from boot) hold DAMON
for _m in damon_stat damon_reclaim damon_lru_sort; do
	_e=/sys/module/$_m/parameters/enabled
	[ "$(cat $_e 2>/dev/null)" = Y ] || continue
	echo N > $_e && diag "$_m turned off"
done

# node_range NODE: "START END" of NODE's memory (its memory blocks)
node_range() {
	_bs=$((0x$(cat /sys/devices/system/memory/block_size_bytes)))
	# shellcheck disable=SC2012 # names only
	ls -d /sys/devices/system/node/node"$1"/memory[0-9]* | sed 's/.*memory//' |
		sort -n | awk -v bs="$_bs" 'NR == 1 { s = $1 } { e = $1 }
			END { printf "%d %d\n", s * bs, (e + 1) * bs }'
}

# damos_ctx K NODE: kdamond K's context 0, paddr over NODE's memory
damos_ctx() {
	_c=$D/$1/contexts/0
	echo 1 > $D/$1/contexts/nr_contexts || return 1
	echo paddr > $_c/operations || return 1
	echo 5000 > $_c/monitoring_attrs/intervals/sample_us
	echo 100000 > $_c/monitoring_attrs/intervals/aggr_us
	echo 1000000 > $_c/monitoring_attrs/intervals/update_us
	echo 10 > $_c/monitoring_attrs/nr_regions/min
	echo 1000 > $_c/monitoring_attrs/nr_regions/max
	echo 1 > $_c/targets/nr_targets
	# shellcheck disable=SC2046 # START END
	set -- $(node_range "$2")
	echo 1 > $_c/targets/0/regions/nr_regions
	echo "$1" > $_c/targets/0/regions/0/start
	echo "$2" > $_c/targets/0/regions/0/end
}

# damos_scheme K ACTION NODE MIN MAX: kdamond K's scheme 0, ACTION to
# NODE for regions with MIN..MAX nr_accesses, every other bound open
damos_scheme() {
	_s=$D/$1/contexts/0/schemes/0
	echo 1 > $D/$1/contexts/0/schemes/nr_schemes || return 1
	echo "$2" > $_s/action || return 1
	echo "$3" > $_s/target_nid || return 1
	echo "$4" > $_s/access_pattern/nr_accesses/min
	echo "$5" > $_s/access_pattern/nr_accesses/max
	echo 0 > $_s/access_pattern/sz/min
	echo 18446744073709551615 > $_s/access_pattern/sz/max
	echo 0 > $_s/access_pattern/age/min
	echo 4294967295 > $_s/access_pattern/age/max
}

# damos_goal K METRIC VALUE_BP NID: a 200 MiB/s quota (reset each
# second) steered by a goal on METRIC of node NID
damos_goal() {
	_q=$D/$1/contexts/0/schemes/0/quotas
	echo 1000 > $_q/reset_interval_ms
	echo $((200 * 1048576)) > $_q/bytes
	echo 1 > $_q/goals/nr_goals || return 1
	echo "$2" > $_q/goals/0/target_metric 2>/dev/null || return 1
	echo "$3" > $_q/goals/0/target_value
	echo "$4" > $_q/goals/0/nid
	_g=$D/$1/contexts/0/monitoring_attrs/intervals/intervals_goal
	[ -d "$_g" ] || return 0
	echo 400 > $_g/access_bp
	echo 3 > $_g/aggrs
	echo 5000 > $_g/min_sample_us
	echo 10000000 > $_g/max_sample_us
}

# sys_start SYS: start SYS on the running workload; sets MON_PIDS and
# ENG_PIDS (the threads whose CPU time is the system's monitor's and
# engine's; a DAMOS kdamond is both) and ENGINE
sys_start() {
	MON_PIDS='' ENG_PIDS='' ENGINE=''
	case $1 in
	dp)
		# shellcheck disable=SC2046 # -p PID for each process
		damonctl start -n tier $(for _p in $PIDS; do echo "-p $_p"; done) -e page-faults \
			--period 1 --exclude-kernel --aggr-us $AGGR_US \
			--ring-size 4096 > /dev/null || return 1
		if [ "$scen" = full ] || [ "$scen" = fullthp ]; then
			# demotion while node 0 has less free than the hot
			# range needs (10 % of 512 MiB), at most 200 MiB/s
			cat > /tmp/tier.json <<EOF
{"schemes": [{"name": "promote", "action": "migrate_hot", "node": 0,
  "pattern": {"nr_accesses": {"min": 1}}},
 {"name": "demote", "action": "migrate_cold", "node": 1,
  "pattern": {"nr_accesses": {"min": 0, "max": 0}, "age": {"min": 3}},
  "quota": {"bytes": "200M", "reset_interval_ms": "1 s",
            "goal_tuner": "temporal",
            "goals": [{"metric": "node_mem_free_bp", "nid": 0,
                       "target_value": "10 %"}]}}]}
EOF
		else
			cat > /tmp/tier.json <<EOF
{"schemes": [{"name": "promote", "action": "migrate_hot", "node": 0,
  "pattern": {"nr_accesses": {"min": 1}}}]}
EOF
		fi
		damonctl schemes -c /tmp/tier.json tier > /tmp/tier.out 2>&1 &
		ENGINE=$!
		ENG_PIDS=$ENGINE
		for _t in /proc/[0-9]*; do
			case "$(cat "$_t/comm" 2>/dev/null)" in
			kdamond.*) MON_PIDS="$MON_PIDS ${_t#/proc/}" ;;
			esac
		done ;;
	damos)
		echo 1 > $D/nr_kdamonds || return 1
		damos_ctx 0 1 && damos_scheme 0 migrate_hot 0 1 20 || return 1
		echo on > $D/0/state || return 1
		MON_PIDS=$(cat $D/0/pid) ;;
	damos_goal)
		echo 2 > $D/nr_kdamonds || return 1
		damos_ctx 0 1 && damos_scheme 0 migrate_hot 0 1 4294967295 &&
			damos_goal 0 node_mem_used_bp 9970 0 || return 1
		damos_ctx 1 0 && damos_scheme 1 migrate_cold 1 0 0 &&
			damos_goal 1 node_mem_free_bp 50 0 || return 1
		echo on > $D/0/state && echo on > $D/1/state || return 1
		MON_PIDS="$(cat $D/0/pid) $(cat $D/1/pid)" ;;
	numa2)
		echo 1 > /sys/kernel/mm/numa/demotion_enabled
		echo 2 > /proc/sys/kernel/numa_balancing ;;
	esac
}

sys_stop() {
	case $1 in
	dp)
		kill "$ENGINE" 2>/dev/null
		wait "$ENGINE" 2>/dev/null
		damonctl stop tier > /dev/null 2>&1 ;;
	damos | damos_goal)
		for _k in 0 1; do
			[ -d $D/$_k ] && echo off > $D/$_k/state 2>/dev/null
		done
		echo 0 > $D/nr_kdamonds ;;
	numa2)
		echo 0 > /sys/kernel/mm/numa/demotion_enabled ;;
	esac
	echo 0 > /proc/sys/kernel/numa_balancing
}

# cpu_sum PIDS: their CPU ms, summed
cpu_sum() {
	for _p in $1; do cpu_ms "$_p"; done | awk '{ s += $1 } END { printf "%d", s }'
}

# procs_file: one line "PID MS ME AS AE BS BE" per workload process
# (/tmp/tier.procs): its mapping [MS, ME), its hot range [AS, AE) and
# the range it moves to for phase [BS, BE) (empty elsewhere: BS = BE =
# AE); sets PIDS
procs_file() {
	# the parent prints its line last (workload -P)
	_i=0
	while ! grep -q "^WORKLOAD pid=$WORKLOAD_PID " /tmp/workload.out && [ $_i -lt 100 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	sed -n 's/^WORKLOAD pid=\([0-9]*\) base=\([^ ]*\) size=\([^ ]*\) hot_start=\([^ ]*\) hot_end=\([^ ]*\).*/\1 \2 \3 \4 \5/p' \
		/tmp/workload.out | while read -r _p _b _s _hs _he; do
		_ms=$((_b)) _me=$((_b + _s)) _as=$((_hs)) _ae=$((_he))
		_bs=$_ae _be=$_ae
		[ "$scen" = phase ] && _bs=$((_ms + 160 * 1048576)) _be=$((_bs + _ae - _as))
		echo "$_p $_ms $_me $_as $_ae $_bs $_be"
	done > /tmp/tier.procs
	PIDS=$(cut -d' ' -f1 /tmp/tier.procs | tr '\n' ' ')
	sed -n 's/^WORKLOAD ballast start=\([^ ]*\) end=\([^ ]*\) node=[0-9]* pid=\([0-9]*\).*/\3 \1 \2/p' \
		/tmp/workload.out > /tmp/tier.ballast
}

# ballast_mb: node 0's free memory above its zones' high watermarks, less
# a quarter of the hot range (8 MiB), in MiB: the full scenario's ballast
ballast_mb() {
	_free=$(awk '$3 == "MemFree:" { print $4 }' /sys/devices/system/node/node0/meminfo)
	_high=$(awk '/^Node/ { n = ($2 == "0,") } n && $1 == "high" { h += $2 }
		END { print h * 4 }' /proc/zoneinfo)
	echo $(((_free - _high) / 1024 - 8))
}

# ballast: "PAGES ON_NODE0" of the workload's ballast (0 0 without one)
ballast() {
	while read -r _p _s _e; do
		# shellcheck disable=SC2046 # into $1..$4
		set -- $(nodes "$_p" $((_s)) $((_e)))
		echo "$(((_e - _s) / 4096)) ${1:-0}"
	done < /tmp/tier.ballast | awk '{ p += $1; n += $2 } END { print p + 0, n + 0 }'
}

# sample MOVED: "HOT0 HOT COLD0 COLD PAGES NODE1" over the processes:
# pages of the hot range (the moved-to range once MOVED is 1) and of the
# rest of the mapping less both ranges, on node 0; the mapping's pages,
# and those on node 1
sample() {
	while read -r _p _ms _me _as _ae _bs _be; do
		if [ "$1" = 1 ]; then _hs=$_bs _he=$_be; else _hs=$_as _he=$_ae; fi
		# shellcheck disable=SC2046 # into $1..$20
		set -- "$1" $(nodes "$_p" "$_hs" "$_he") \
			$(nodes "$_p" "$_ms" "$_as") $(nodes "$_p" "$_ae" "$_bs") \
			$(nodes "$_p" "$_be" "$_me") $(nodes "$_p" "$_ms" "$_me")
		echo "${2:-0} $(((_he - _hs) / 4096)) $((${6:-0} + ${10:-0} + ${14:-0}))" \
			"$(((_me - _ms - (_ae - _as) - (_be - _bs)) / 4096)) $(((_me - _ms) / 4096)) ${19:-0}"
	done < /tmp/tier.procs | awk '{ for (i = 1; i <= 6; i++) s[i] += $i }
		END { print s[1] + 0, s[2] + 0, s[3] + 0, s[4] + 0, s[5] + 0, s[6] + 0 }'
}

# run SYS SCEN
run() {
	sys=$1 scen=$2
	if [ "$sys" = damos_goal ] || [ "$sys" = damos ]; then
		[ -d $D ] || { diag "$sys: no DAMON sysfs"; return 0; }
	fi
	# NUMA balancing's fast scans for dp (its samples) and numa2, off
	# for DAMOS; off for numa2 too until its mapping is on node 1
	numa_balancing_fast
	[ "$sys" = dp ] || echo 0 > /proc/sys/kernel/numa_balancing
	bind=-N
	[ "$sys" = numa2 ] && bind=-S
	wl="-s 256 -r 65536,32768,10,r,rand -t 0 -n 2 $bind 1"
	case $scen in
	phase) wl="$wl -m $((SECS / 2)):160" ;;
	procs) wl="-s 64 -r 16384,8192,10,r,rand -t 0 -n 2 -P 4 $bind 1" ;;
	full | fullthp) wl="-s 128 -r 65536,32768,10,r,rand -t 0 -n 2 $bind 1 -b $(ballast_mb):0" ;;
	esac
	_prog_n=0
	if [ "$scen" = thp ] || [ "$scen" = fullthp ]; then
		# shellcheck disable=SC2086 # options
		WORKLOAD_THP=always start_workload -H $wl || { not_ok "$sys $scen: workload"; return 1; }
	else
		# shellcheck disable=SC2086
		start_workload $wl || { not_ok "$sys $scen: workload"; return 1; }
	fi
	procs_file
	# shellcheck disable=SC2046 # into $1..$6
	set -- $(sample 0)
	pages=$5 start1=$6
	# shellcheck disable=SC2046 # into $1 $2
	set -- $(ballast)
	bal=$1 bal0=$2
	workload_progress || true
	p0=${P_PASSES:-0}
	m0=$(vmstat pgmigrate_success)
	if ! sys_start "$sys"; then
		diag "$sys: not available on $(uname -r) (a DAMON sysfs file or goal metric it needs is missing)"
		sys_stop "$sys"
		stop_workload
		return 0
	fi
	c0=$(cpu_sum "$MON_PIDS") e0=$(cpu_sum "$ENG_PIDS")
	t=0 t95=- moved=0 coldmax=0 tmove=0
	while [ $t -lt "$SECS" ]; do
		sleep "$STEP"
		t=$((t + STEP))
		if [ "$scen" = phase ] && [ $moved = 0 ] && grep -q '^WORKLOAD move' /tmp/workload.out; then
			moved=1 tmove=$((t - STEP)) t95=-
		fi
		# shellcheck disable=SC2046 # into $1..$6
		set -- $(sample $moved)
		hot0=$1 hot=$2 cold0=$3 cold=$4
		[ "$cold0" -gt "$coldmax" ] && coldmax=$cold0
		echo "BENCH tier k=$DAMON_PERF_KERNEL sys=$sys scen=$scen t=$t hot0=$hot0 hot=$hot cold0=$cold0 cold=$cold"
		if [ "$t95" = - ] && [ $((hot0 * 100)) -ge $((hot * 95)) ]; then
			t95=$((t - tmove))
		fi
	done
	mon=$(($(cpu_sum "$MON_PIDS") - c0)) eng=$(($(cpu_sum "$ENG_PIDS") - e0))
	cpu=$((mon + eng))
	[ "$sys" = numa2 ] && cpu=- mon=- eng=-
	workload_progress || true
	passes=$((${P_PASSES:-0} - p0))
	mig=$(($(vmstat pgmigrate_success) - m0))
	bsum=
	if [ "$bal" -gt 0 ]; then
		# shellcheck disable=SC2046 # into $1 $2
		set -- $(ballast)
		bsum=" ballast=$bal ballast0_start=$bal0 ballast0_end=$2"
	fi
	sys_stop "$sys"
	fair=no
	[ "$hot0" -gt 0 ] && fair=yes
	echo "BENCH tier-sum k=$DAMON_PERF_KERNEL sys=$sys scen=$scen secs=$SECS t95=$t95 hot=$hot" \
		"start_node1=$start1 pages=$pages cold=$cold cold_promoted=$coldmax migrated=$mig" \
		"cpu_ms=$cpu mon_ms=$mon eng_ms=$eng passes=$passes fair=$fair$bsum"
	if [ $fair = yes ]; then
		ok "$sys $scen: it saw the workload ($hot0 of $hot hot pages on node 0)"
	else
		# no figure against a system that saw nothing
		skip "$sys $scen: compared" "it moved no hot page (blind under this emulator, or not working on $(uname -r))"
	fi
	stop_workload
}

# (lists from the kernel command line come with commas)
for scen in $(echo "${BENCH_TIERING_SCENARIOS:-static phase thp procs full fullthp}" | tr , ' '); do
	for sys in $(echo "${BENCH_TIERING_SYSTEMS:-dp damos damos_goal numa2}" | tr , ' '); do
		run "$sys" "$scen"
	done
done

for _b in $BUSY; do kill "$_b" 2>/dev/null; done
unload_module damon_perf
finish
