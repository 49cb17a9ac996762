#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# flavours: test prod
# arches: x86_64 arm64
# numa: yes
# timeout: 600
# End to end with real samples: the software page-fault event (period 1,
# user mode only) on a workload that keeps touching a 4 MiB hot range of a
# 64 MiB mapping, with NUMA balancing provoking hinting faults every scan
# period. In the aggregation snapshots read with damonctl the hot range
# must be the hottest part of the mapping, and most samples must land in
# it.
. /tests/lib.sh

# --- commands (damonctl syntax: Documentation/damonctl.rst) ---
CTX=e2e
EVENT=page-faults
# Counts, not times: the test waits for this many valid samples, then reads
# aggregations until this many of them carried probe hits on the mapping.
# How fast hinting faults come differs between kernels (NUMA balancing's
# scanner changed after 6.1) and machines; SAFETY only bounds a kernel that
# never delivers.
MIN_SAMPLES=${PERF_E2E_SAMPLES:-1000}
MIN_AGGRS=${PERF_E2E_AGGRS:-8}
SAFETY=${PERF_E2E_SAFETY:-400}

need_damonctl "end to end with page-fault samples"
diag_machine
check "NUMA balancing on with fast scans" numa_balancing_fast
load_module damon_perf || finish
workload_started -s 64 -o 16 -h 4 -t 0 -n 2
hs=$((WORKLOAD_HOT_START))
he=$((WORKLOAD_HOT_END))
ms=$((WORKLOAD_BASE))
me=$((WORKLOAD_BASE + WORKLOAD_SIZE))

# 1 s aggregations: hinting faults come in bursts, one per scan of the
# mapping, and a short aggregation between two bursts holds none.
check "damonctl start: page-fault probe on the workload" \
	damonctl start -n $CTX -p "$WORKLOAD_PID" -e $EVENT --period 1 \
	--exclude-kernel --aggr-us 1000000 --ring-size 4096

waited=0
while [ "$(col sample_valid)" -lt "$MIN_SAMPLES" ] 2>/dev/null &&
	[ $waited -lt "$SAFETY" ]; do
	sleep 1
	waited=$((waited + 1))
done
diag "$(col sample_valid) valid samples after ${waited} s"
# Aggregations with probe hits on the mapping, each read once (by its
# sequence number), until MIN_AGGRS of them: the hottest region on the
# mapping of each, and every region of all of them for the share below.
# spans_check FILE: the regions of a report --json, the spans of their
# samples (sampled_start .. sampled_end) added to the totals: regions,
# spans, spans outside their region or on a region without probe hits
nr_regions=0 nr_spans=0 bad_spans=0 nr_hit=0
spans_check() {
	# shellcheck disable=SC2046 # into $1..$4
	set -- $(awk '
		/"regions": \[/ { in_r = 1; next }
		!in_r { next }
		/"probe_hits": \[/ {
			in_h = ($0 !~ /\]/); hits = 0
			if (!in_h) {
				t = $0; sub(/.*\[/, "", t); gsub(/[^0-9,]/, "", t)
				n = split(t, a, ",")
				for (i = 1; i <= n; i++) hits += a[i]
			}
			next
		}
		in_h && /\]/ { in_h = 0; next }
		in_h { gsub(/[^0-9]/, ""); hits += $0; next }
		/"sampled_end":/ { gsub(/[^0-9]/, ""); se = $0 }
		/"sampled_start":/ { gsub(/[^0-9]/, ""); ss = $0 }
		/"start":/ { gsub(/[^0-9]/, ""); s = $0 }
		/"end":/ { gsub(/[^0-9]/, ""); e = $0 }
		/"target_id":/ {
			nr++
			hit += hits > 0
			if (se != "") {
				spans++
				if (!(ss + 0 >= s + 0 && se + 0 <= e + 0 &&
				      ss + 0 < se + 0 && hits > 0))
					bad++
			}
			s = e = ss = se = ""; hits = 0
		}
		END { print nr + 0, spans + 0, bad + 0, hit + 0 }' "$1")
	nr_regions=$((nr_regions + $1)) nr_spans=$((nr_spans + $2))
	bad_spans=$((bad_spans + $3)) nr_hit=$((nr_hit + $4))
}
: > /tmp/all.tsv
top='' last='' got=0 seen=0 tops_hot=0
while [ $got -lt "$MIN_AGGRS" ] && [ $waited -lt "$SAFETY" ]; do
	if damonctl report $CTX --json > /tmp/all.json 2>&1; then
		seq=$(snap_seq /tmp/all.json)
		if [ -n "$seq" ] && [ "$seq" != "$last" ]; then
			last=$seq
			seen=$((seen + 1))
			regions /tmp/all.json > /tmp/one.tsv
			spans_check /tmp/all.json
			# the regions on the mapping (the ends share
			# regions with the neighbouring VMAs)
			regions_on /tmp/one.tsv "$ms" "$me" > /tmp/on.tsv
			# counted when the mapping had samples: a burst
			# of hinting faults can miss an aggregation, or
			# fall on the pass counters and stacks only
			if awk '{ h += $4 } END { exit !(h > 0) }' /tmp/on.tsv; then
				got=$((got + 1))
				cat /tmp/one.tsv >> /tmp/all.tsv
				# hottest on the mapping as damonctl report
				# --hot ranks (nr_accesses, then samples at
				# period 1)
				t=$(sort -k3,3nr -k4,4nr /tmp/on.tsv | head -n 1)
				# shellcheck disable=SC2086 # into $1 $2
				set -- $t
				if overlaps "$1" "$2" "$hs" "$he"; then
					tops_hot=$((tops_hot + 1))
				else
					diag "aggregation $seq: hottest $t"
				fi
				[ -n "$top" ] || top=$t
			fi
		fi
	fi
	sleep 0.3
	waited=$((waited + 1))
done
diag "$got of $seen aggregations read had probe hits on the mapping"
# the span of a region's samples lies in it, on a region with probe hits
if [ "$nr_spans" -gt 0 ] && [ "$bad_spans" -eq 0 ] &&
	[ "$nr_spans" -le "$nr_hit" ]; then
	ok "sampled spans: $nr_spans in their regions, each with probe hits ($nr_hit regions with hits, $nr_regions in all)"
else
	not_ok "sampled spans: $nr_spans, $bad_spans outside their region or without probe hits ($nr_hit regions with hits, $nr_regions in all)"
fi
damonctl report $CTX 2>&1 | head -n 20 | while read -r l; do diag "$l"; done

valid=$(col sample_valid)
match=$(col match)
diag "perf_stats total: sample_valid=$valid match=$match" \
	"miss_tgid=$(col miss_tgid) miss_region=$(col miss_region)"
if [ -n "$valid" ] && [ "$valid" -ge "$MIN_SAMPLES" ]; then
	ok "samples flowed ($valid valid)"
else
	not_ok "samples flowed (sample_valid '$valid' < $MIN_SAMPLES)"
fi
if [ $got -ge "$MIN_AGGRS" ]; then
	ok "$got aggregations with probe hits on the mapping"
else
	not_ok "$MIN_AGGRS aggregations with probe hits on the mapping (got $got of $seen)"
fi
if [ -n "$match" ] && [ "$match" -gt 0 ]; then
	ok "reports matched regions ($match)"
else
	not_ok "reports matched regions (match '$match')"
fi

# In every aggregation the hottest region on the mapping is on the hot
# range: the rest of the mapping is not touched after the fill. Outside
# the mapping the workload's pass counters (a page of .bss) and the
# threads' stacks fault once per scan like any hot page, and tie or beat
# the hot range's pieces on nr_accesses (Documentation/access-semantics.rst);
# the share of samples below weighs them.
if [ $got -gt 0 ] && [ $tops_hot -eq $got ]; then
	ok "the hottest region on the mapping of all $got aggregations is on" \
		"the hot range $(printf '%#x-%#x' "$hs" "$he")"
else
	diag "first aggregation's hottest on the mapping: ${top:-none}"
	not_ok "the hottest region on the mapping of every aggregation is on" \
		"the hot range ($tops_hot of $got)"
fi

# Share of those aggregations' samples in regions overlapping the hot range.
# shellcheck disable=SC2046 # into $1 $2 $3
set -- $(hot_share /tmp/all.tsv 4 "$hs" "$he")
if [ "$3" -gt 0 ] && [ "$1" -ge 80 ]; then
	ok "$1% of $got snapshots' samples ($2 of $3) in regions on the hot range"
else
	not_ok "most samples in the hot range ($1%: $2 of $3)"
fi

check "damonctl stop" damonctl stop $CTX
check "perf_stats balanced after the stop" stats_balanced
stop_workload
unload_module damon_perf
finish
