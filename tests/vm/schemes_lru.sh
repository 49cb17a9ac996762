#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kernels: stock
# numa: yes
# timeout: 900
# lru_prio of a physical-address context (LRU_PRIO), its ground truth the
# pages' flags (/proc/PID/pagemap and /proc/kpageflags: /bin/pagestate):
#
# 1. the command on its own: the frames of 1 MiB of a workload's idle
#    memory, each physically contiguous run one `damonctl debug
#    lru-prio`, must come out marked accessed (KPF_REFERENCED or
#    KPF_ACTIVE: folio_mark_accessed() sets the one, or moves a
#    referenced folio to the active list) for at least 95 % of those on
#    an LRU list before, the next idle MiB (not asked) unchanged within
#    5 %, and the replies' applied pages at least the LRU pages;
# 2. the engine: an lru_prio scheme on the hot regions of a paddr context
#    whose samples are NUMA balancing's hinting faults on the workload's
#    hot range (as perf_paddr.sh): 90 % of the hot range's LRU pages
#    marked, sz_applied above 0 and no failed page;
# 3. bad input, each refused with its message: a vaddr context, a range
#    outside the context's targets, more than lru-pages-max pages, and a
#    caller with CAP_PERFMON but not CAP_SYS_ADMIN.
. /tests/lib.sh

CTX=lru
# st START END KEY: a pagestate count of the workload's [START, END)
st() {
	/bin/pagestate "$WORKLOAD_PID" "$1" "$2" | sed -n "s/.* $3=\([0-9]*\).*/\1/p"
}
# marked START END: pages of the range referenced or active
marked() {
	st "$1" "$2" accessed
}
# runs VADDR NPAGES: "start end" of each physically contiguous run of the
# present pages' frames (pagemap: bit 63 present, bits 0-54 the PFN), in
# either direction (7.2 hands out descending frames: 256 runs of one page
# for 256 pages when only ascending ones were joined)
runs() {
	dd if="/proc/$WORKLOAD_PID/pagemap" bs=8 skip=$(($1 / 4096)) \
		count="$2" 2>/dev/null | od -An -v -tx8 | awk '
	function hex(s,   i, v) {
		v = 0
		for (i = 1; i <= length(s); i++)
			v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v
	}
	{
		for (i = 1; i <= NF; i++) {
			if (!index("89abcdef", substr($i, 1, 1)))
				continue
			pa = hex(substr($i, 4)) * 4096
			if (n && pa == e) {
				e += 4096
				continue
			}
			if (n && pa == s - 4096) {
				s = pa
				continue
			}
			if (n)
				printf "%.0f %.0f\n", s, e
			s = pa; e = pa + 4096; n++
		}
	}
	END { if (n) printf "%.0f %.0f\n", s, e }'
}
# refused DESC PATTERN CMD...: CMD fails and says PATTERN
refused() {
	_d=$1
	_p=$2
	shift 2
	_out=$("$@" 2>&1)
	_rc=$?
	if [ $_rc -ne 0 ] && echo "$_out" | grep -q -- "$_p"; then
		ok "$_d"
	else
		diag "exit $_rc: $_out"
		not_ok "$_d (no '$_p')"
	fi
}

need_damonctl "lru_prio"
diag_machine
# The classic LRU, whose flags show what folio_mark_accessed() did: the
# multi-generational one (on by default in 7.2) counts references in
# page flags kpageflags does not show, and there the idle pages read
# referenced or active before anything was asked (7.2: 256 of 256).
lrugen=/sys/kernel/mm/lru_gen/enabled
lrugen0=
if [ -w $lrugen ]; then
	lrugen0=$(cat $lrugen)
	diag "multi-generational LRU: $lrugen0, switched off for the test"
	echo n > $lrugen
fi
check "NUMA balancing on with fast scans" numa_balancing_fast
load_module damon_perf || finish
workload_on_cpu0 -s 64 -o 16 -h 4 -t 0 -n 2
base=$((WORKLOAD_BASE))
hs=$((WORKLOAD_HOT_START))
he=$((WORKLOAD_HOT_END))
ram=$(ram_ranges)
diag "System RAM: $ram"
check "damonctl start: paddr over System RAM, page faults, --phys-addr" \
	workload_paused damonctl start -n $CTX --ops paddr $ram -e page-faults \
	--period 1 --exclude-kernel --phys-addr --sample-us 10000 \
	--aggr-us 1000000 --min-nr-regions 1000 --max-nr-regions 2000 \
	--split random

# 1. the command: idle MiB A asked, idle MiB B not
a0=$((base + 4 * 1048576))
a1=$((a0 + 1048576))
b1=$((a1 + 1048576))
lru_a=$(st $a0 $a1 lru)
m0_a=$(marked $a0 $a1)
m0_b=$(marked $a1 $b1)
diag "idle MiB A: $(st $a0 $a1 present) present, $lru_a on an LRU, $m0_a marked ($(st $a0 $a1 referenced) referenced, $(st $a0 $a1 active) active); B: $m0_b marked"
runs $a0 256 > /tmp/runs
diag "A's frames: $(wc -l < /tmp/runs) contiguous runs"
applied=0
tried=0
fails=0
while read -r s e; do
	out=$(damonctl debug lru-prio $CTX "$s" "$e" 2>&1) || {
		fails=$((fails + 1))
		diag "lru-prio $s $e: $out"
		continue
	}
	tried=$((tried + $(echo "$out" | sed -n 's/.* tried \([0-9]*\).*/\1/p')))
	applied=$((applied + $(echo "$out" | sed -n 's/.* applied \([0-9]*\).*/\1/p')))
done < /tmp/runs
m1_a=$(marked $a0 $a1)
m1_b=$(marked $a1 $b1)
diag "LRU_PRIO replies: tried $tried applied $applied, $fails refused; A marked $m0_a -> $m1_a, B $m0_b -> $m1_b"
check "every LRU_PRIO request accepted" test "$fails" -eq 0
check "the frames asked for all tried ($tried of $(st $a0 $a1 present))" \
	test "$tried" -eq "$(st $a0 $a1 present)"
check "replies: applied at least the LRU pages ($applied >= $lru_a)" \
	test "$applied" -ge "$lru_a"
check "A: 95 % of its LRU pages marked accessed ($m1_a of $lru_a)" \
	test $((m1_a * 100)) -ge $((lru_a * 95))
check "A: the marks are the command's (before: $m0_a)" \
	test $((m0_a * 100)) -lt $((lru_a * 50))
check "B, not asked: within 5 % of 256 pages ($m0_b -> $m1_b)" \
	test $((m1_b - m0_b)) -le 12

# 2. the engine on the hot regions
hl=$(st $hs $he lru)
hm0=$(marked $hs $he)
cat > /tmp/lru.json <<'J'
{"schemes": [{"name": "keep", "action": "lru_prio",
              "pattern": {"nr_accesses": {"min": 1}}}]}
J
# runs of 5 aggregations until 90 % are marked, at most 6: the samples
# are NUMA balancing's hinting faults, whose scans reach the whole range
# at their own pace (sid once had 888 of 1024 after a fixed 5)
rm -f /tmp/lru.*.out
run=0 hm1=0 runs_ok=1
while [ $run -lt 6 ]; do
	run=$((run + 1))
	damonctl schemes -c /tmp/lru.json --count 5 --json --no-state $CTX \
		> /tmp/lru.$run.out 2> /tmp/lru.err || runs_ok=0
	sed 's/^/# /' /tmp/lru.err
	hm1=$(marked $hs $he)
	diag "after $((run * 5)) aggregations: $hm1 of $hl LRU pages marked"
	[ $((hm1 * 100)) -ge $((hl * 90)) ] && break
done
check "damonctl schemes: lru_prio, $run runs of 5 aggregations" \
	test $runs_ok = 1
szap=$(jsum sz_applied /tmp/lru.*.out)
diag "hot range: $hl LRU pages, marked $hm0 -> $hm1; engine: $(tr -d '\n' < /tmp/lru.1.out | head -c 600)"
check "engine: sz_applied above 0 (${szap:-none})" test "${szap:-0}" -gt 0
check "engine: no failed page" sh -c \
	"! tr -d ' \n' < /tmp/lru.*.out | grep -v -q '\"failed_pages\":{}'"
check "hot range: 90 % of its LRU pages marked ($hm1 of $hl)" \
	test $((hm1 * 100)) -ge $((hl * 90))
check "hot range: the marks are the engine's (before: $hm0)" \
	test $((hm0 * 100)) -lt $((hl * 50))

# 3. bad input
# "-r S-E -r S-E ...": the first start and the last end
first=$(echo "$ram" | awk '{ split($2, a, "-"); print a[1] }')
top=$(echo "$ram" | awk '{ split($NF, a, "-"); print a[2] }')
refused "outside the targets: ERANGE with the reason" \
	"not within one target" damonctl debug lru-prio $CTX "$top" $((top + 4096))
refused "more than lru-pages-max pages: refused with the reason" \
	"more than lru-pages-max" damonctl debug lru-prio $CTX "$first" \
	$((first + 65537 * 4096))
refused "end not above start: refused with the reason" \
	"end must be above start" damonctl debug lru-prio $CTX "$first" "$first"
refused "CAP_PERFMON without CAP_SYS_ADMIN: EPERM with the reason" \
	"needs CAP_SYS_ADMIN" capexec 65534 perfmon \
	damonctl debug lru-prio $CTX "$first" $((first + 4096))
check "damonctl stop --keep $CTX" damonctl stop --keep $CTX
check "stopped: lru-prio accepted" \
	damonctl debug lru-prio $CTX "$first" $((first + 4096))
# deleted: its probe's PMU is free for the vaddr context
check "damonctl stop $CTX" damonctl stop $CTX
check "damonctl start: a vaddr context" \
	workload_paused damonctl start -n vlru -p "$WORKLOAD_PID" -e page-faults
refused "a vaddr context: refused with the reason" \
	"needs a paddr context" damonctl debug lru-prio vlru 0x100000 0x101000
check "damonctl stop vlru" damonctl stop vlru
stop_workload
[ -n "$lrugen0" ] && echo "$lrugen0" > $lrugen
unload_module damon_perf
finish
