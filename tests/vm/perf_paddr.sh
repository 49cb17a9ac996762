#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# flavours: test prod
# arches: x86_64 arm64
# numa: yes
# timeout: 600
# Physical-address monitoring end to end. A paddr context over
# System RAM with the software page-fault probe and --phys-addr: the event
# carries only the faulting virtual address, so the overflow handler
# translates it (NUMA hinting faults keep coming on the workload's hot
# range). The hottest regions must hold the physical pages of the hot range,
# as /proc/PID/pagemap tells them at the same moment (the workload runs on
# one CPU, so NUMA balancing has no reason to migrate its pages; pages that
# moved anyway between two reads are counted apart); the working set of
# the regions holding them must be near the hot range's size; perf_stats
# must classify every sample.
. /tests/lib.sh

CTX=phys
WAIT=${PERF_PADDR_WAIT:-12}
# pfns VADDR NPAGES: "vaddr paddr" of every present page (pagemap: bit 63
# present, bits 0-54 the PFN; read as root).
pfns() {
	dd if="/proc/$WORKLOAD_PID/pagemap" bs=8 skip=$(($1 / 4096)) \
		count="$2" 2>/dev/null | od -An -v -tx8 | awk -v va="$1" '
	function hex(s,   i, v) {
		v = 0
		for (i = 1; i <= length(s); i++)
			v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v
	}
	{
		for (i = 1; i <= NF; i++) {
			if (index("89abcdef", substr($i, 1, 1)))
				printf "%.0f %.0f\n", va, hex(substr($i, 4)) * 4096
			va += 4096
		}
	}'
}

need_damonctl "paddr end to end"
diag_machine
check "NUMA balancing on with fast scans" numa_balancing_fast
load_module damon_perf || finish
workload_on_cpu0 -s 64 -o 16 -h 4 -t 0 -n 2
hs=$((WORKLOAD_HOT_START))
he=$((WORKLOAD_HOT_END))
hpages=$(((he - hs) / 4096))

echo reset > "$PERF_STATS"
ram=$(ram_ranges)
diag "System RAM: $ram"
# --split random: this test checks which frames the samples are credited
# to, over the whole hot range. Split by samples, one aggregation's
# accessed regions hold exactly the frames sampled in it, fewer than the
# hot range when hinting faults are sparse (7.2: 58%); how closely regions
# follow the samples is accuracy.sh's subject.
check "damonctl start: paddr over System RAM, page faults, --phys-addr" \
	workload_paused damonctl start -n $CTX --ops paddr $ram -e page-faults \
	--period 1 --exclude-kernel --phys-addr --sample-us 10000 \
	--aggr-us 3000000 --min-nr-regions 1000 --max-nr-regions 2000 --split random
sleep "$WAIT"

# jnum KEY FILE: the first number KEY holds in the JSON FILE (0 if none)
jnum() {
	_v=$(sed -n "s/.*\"$1\": *\([0-9]*\).*/\1/p" "$2" | head -n 1)
	echo "${_v:-0}"
}
# The same moment: pagemap, the last aggregation, pagemap again (again
# when a pagemap read came back empty). One aggregation's accessed regions
# hold the frames sampled in it, a share of the hot range that grows with
# its samples, and hinting faults come as fast as the NUMA scanner runs,
# which a loaded host slows (6.12: 69 % of the frames in an aggregation
# too short for them). So the answer judged is the first measured one
# (not carried) with at least as many samples as hot pages (a scan pass
# faults every page once; a loaded host gave 371 to 1981 samples an
# aggregation, and 100 % of the frames from 1405 and 1798), among at
# most 10 tries, 3 s (the aggregation interval) apart.
tries=0 want=$hpages
while :; do
	pfns "$hs" "$hpages" > /tmp/pm0
	damonctl report $CTX --json > /tmp/phys.json 2>&1
	pfns "$hs" "$hpages" > /tmp/pm1
	smp=$(jnum nr_samples /tmp/phys.json)
	carried=no
	grep -q '"confidence": *"carried"' /tmp/phys.json && carried=yes
	[ -s /tmp/pm0 ] && [ -s /tmp/pm1 ] && [ $carried = no ] &&
		[ "$smp" -ge "$want" ] && break
	tries=$((tries + 1))
	[ $tries -ge 10 ] && break
	diag "aggregation $(jnum seq /tmp/phys.json): $smp samples" \
		"(want $want), carried $carried, pagemap $(wc -l < /tmp/pm0)" \
		"then $(wc -l < /tmp/pm1) lines: the next one"
	sleep 3
done
diag "judged: aggregation $(jnum seq /tmp/phys.json), $smp samples (want $want)"
if [ "$smp" -ge "$want" ]; then
	ok "an aggregation with $smp samples for $hpages hot pages"
else
	not_ok "an aggregation with $smp samples for $hpages hot pages (want $want within 10)"
fi
regions /tmp/phys.json | sort -n -k1,1 > /tmp/phys.tsv
ws=$(awk '/"working_set_bytes":/ { gsub(/[^0-9]/, ""); print; exit }' \
	/tmp/phys.json)
damonctl report $CTX --hot 6 2>&1 | while read -r l; do diag "$l"; done

# Pages at the same frame in both reads; the rest moved meanwhile.
awk 'NR == FNR { pa[$1] = $2; next } ($1 in pa) && pa[$1] == $2 { print $2 }' \
	/tmp/pm0 /tmp/pm1 | sort -n > /tmp/stable
present=$(wc -l < /tmp/pm1)
diag "pagemap: $(wc -l < /tmp/pm0) then $present present hot pages"
stable=$(wc -l < /tmp/stable)
# found: stable hot frames inside a region with accesses (merge walk).
found=$(awk 'NR == FNR { s[NR] = $1; e[NR] = $2; n[NR] = $3; nr = NR; next }
	{
		while (j <= nr && e[j] <= $1 + 0) j++
		if (j <= nr && s[j] <= $1 + 0 && n[j] > 0) f++
	}
	END { print f + 0 }' j=1 /tmp/phys.tsv /tmp/stable)
share=0
[ "$stable" -gt 0 ] && share=$((found * 100 / stable))
# The frames are scattered over RAM: 1 MiB blocks holding any of them.
blocks=$(awk '{ k = int($1 / 1048576); if (!(k in b)) { b[k] = 1; n++ } }
	END { print n + 0 }' /tmp/stable)
diag "hot range: $hpages pages, $present present, $stable stable," \
	"$((present - stable)) moved while read, in $blocks 1 MiB blocks;" \
	"working set $ws bytes"
diag "perf_stats: callback $(col callback) valid $(col sample_valid)" \
	"translated $(col sample_translated) untranslated" \
	"$(col sample_untranslated) addr_zero $(col sample_addr_zero)" \
	"no_phys $(col sample_no_phys) match $(col match)" \
	"miss_region $(col miss_region)"
echo "PADDR_HOT_SHARE $share% ($found of $stable hot frames)"

if [ "$stable" -ge $((hpages / 2)) ]; then
	ok "most hot pages kept their frame while read ($stable of $hpages)"
else
	not_ok "most hot pages kept their frame while read ($stable of $hpages)"
fi
if [ "$share" -ge 70 ]; then
	ok "accessed regions hold $share% of the hot range's frames" \
		"($found of $stable)"
else
	diag "$(cat /tmp/phys.tsv | awk '$3 > 0')"
	not_ok "accessed regions hold the hot range's frames" \
		"($share%: $found of $stable)"
fi
# Regions start at about 1 MiB (1000 over 1 GiB): the working set of the
# hot range (accessed regions holding its frames) cannot be below the
# 1 MiB blocks that hold them, nor far above. Accessed regions without a
# hot frame are the other processes' pages (shell, damonctl): shown.
# shellcheck disable=SC2046 # into $1 $2
set -- $(awk 'NR == FNR { if ($3 > 0) { s[++nr] = $1; e[nr] = $2 }; next }
	{
		while (j <= nr && e[j] <= $1 + 0) j++
		if (j <= nr && s[j] <= $1 + 0) hot[j] = 1
	}
	END {
		for (i = 1; i <= nr; i++)
			if (i in hot) h += e[i] - s[i]; else o += e[i] - s[i]
		printf "%.0f %.0f\n", h, o
	}' j=1 /tmp/phys.tsv /tmp/stable)
wshot=$1
diag "working set: $wshot bytes in regions holding hot frames, $2 in" \
	"other accessed regions ($ws in all)"
hb=$((he - hs))
wmax=$((blocks * 1048576 * 2))
[ $wmax -lt $((hb * 4)) ] && wmax=$((hb * 4))
if [ "$wshot" -ge $((hb / 2)) ] && [ "$wshot" -le $wmax ]; then
	ok "hot range's working set $wshot bytes near its $hb" \
		"($blocks MiB blocks hold its frames)"
else
	not_ok "hot range's working set $wshot bytes near its $hb" \
		"(want $((hb / 2))..$wmax: $blocks MiB blocks hold its frames)"
fi

check "damonctl stop" workload_paused damonctl stop $CTX
stop_workload
cb=$(col callback)
classes=$(($(col sample_valid) + $(col sample_null) + $(col sample_addr_zero) +
	$(col sample_kernel) + $(col sample_invalid_phys) +
	$(col sample_no_phys) + $(col sample_untranslated) +
	$(col sample_phys_only) + $(col sample_teardown)))
if [ "$cb" -gt 0 ] && [ "$cb" = "$classes" ]; then
	ok "every callback classified once ($cb)"
else
	not_ok "every callback classified once (callback $cb, classes $classes)"
fi
offers=$(($(col enqueue) + $(col overflow) + $(col busy_drop) +
	$(col no_probe) + $(col no_ring)))
expect_ge "valid samples cover every ring offer" "$(col sample_valid)" \
	"$offers"
deq=$(col dequeue)
drained=$(($(col match) + $(col miss_tgid) + $(col miss_region) +
	$(col miss_boundary) + $(col stale) + $(col miss_filter)))
if [ "$deq" = "$drained" ]; then
	ok "every dequeued report classified once ($deq)"
else
	not_ok "every dequeued report classified once (dequeue $deq, $drained)"
fi
diag "in flight at stop: $(($(col enqueue) - deq)) reports"
expect_ge "samples translated in the handler" "$(col sample_translated)" 1000
expect_ge "every valid sample was a translation (none carries phys_addr)" \
	"$(col sample_translated)" "$(col sample_valid)"
expect_ge "no sample refused for not asking: --phys-addr given" 0 \
	"$(col sample_no_phys)"

# Without --phys-addr nothing is translated: every sample with a virtual
# address only is counted as sample_no_phys, none becomes a report.
if start_workload -s 16 -o 0 -h 8 -t 0 -n 1 -w -f; then
	echo reset > "$PERF_STATS"
	check "damonctl start: paddr without --phys-addr" \
		workload_paused damonctl start -n $CTX --ops paddr $ram \
		-e page-faults --period 1 --exclude-kernel
	sleep 2
	check "damonctl stop" workload_paused damonctl stop $CTX
	stop_workload
	expect_ge "without --phys-addr: samples counted as sample_no_phys" \
		"$(col sample_no_phys)" 1
	expect_ge "without --phys-addr: no valid sample" 0 \
		"$(col sample_valid)"
	expect_ge "without --phys-addr: nothing translated" 0 \
		"$(col sample_translated)"
else
	not_ok "second workload started"
fi
unload_module damon_perf
finish
