#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# damo interop: convert a damonctl recording into damo's record format and
# read it back with the real damo (`damo` from PATH, else $DAMO; make check
# sets DAMO to ../shared/tools/damo/damo when that exists). Checks that
#  - file(1) sees "zlib compressed data" (damo's json_compressed detection)
#  - damo report access gives, for every snapshot of every target, the
#    regions, nr_accesses (from damo's access rate), probe_hits and total
#    size of the recording, and for the last snapshot the numbers of
#    `damonctl report --input --json`
#  - damo report wss gives damonctl's working set (nr_accesses >= 1) of
#    every aggregation
#  - damo report heatmap draws it (text output; images need gnuplot)
#  - damonctl record --format damo refuses standard output
# Exit 77 (ctest: skipped) when there is no damo, with the reason.
# Usage: damo_interop.sh DAMONCTL RECORDING.jsonl
set -euo pipefail

damonctl=$1
rec=$2

damo=$(command -v damo || true)
[ -n "$damo" ] || damo=${DAMO:-}
if [ -z "$damo" ] || [ ! -x "$damo" ]; then
	echo "SKIP: no damo (not in PATH and \$DAMO unset or not executable;" \
		"make check sets DAMO=../shared/tools/damo/damo)"
	exit 77
fi
if ! command -v file > /dev/null; then
	echo "SKIP: damo needs the file command (Debian package file)"
	exit 77
fi
echo "damo: $damo"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=$tmp/damon.data

"$damonctl" convert "$rec" "$out"
ftype=$(file -b "$out")
[ "$ftype" = "zlib compressed data" ] || {
	echo "FAIL: file -b says '$ftype', damo would not detect the format"
	exit 1
}

"$damo" report access --input "$out" --raw_number --dont_merge_regions \
	--format set record_head 'record <target id>' \
	--format set snapshot_head 'snapshot <end time>' \
	--format set region 'region <start address> <end address> <access rate> <probe hits>' \
	--format set snapshot_tail 'total <total bytes>' \
	--format set record_tail 'end' > "$tmp/access.txt"

"$damonctl" report --input "$rec" --json > "$tmp/report.json"

"$damo" report wss --input "$out" --raw_number --exclude_samples 0 \
	--all_wss --sortby time --per_target > "$tmp/wss.txt"

"$damo" report heatmap --input "$out" --resol 10 40 > "$tmp/heatmap.txt"
[ -s "$tmp/heatmap.txt" ] || { echo "FAIL: damo report heatmap printed nothing"; exit 1; }

if "$damonctl" record --format damo -o - > /dev/null 2> "$tmp/err.txt"; then
	echo "FAIL: record --format damo -o - succeeded"
	exit 1
fi
grep -q "give -o FILE" "$tmp/err.txt" || { cat "$tmp/err.txt"; exit 1; }

python3 - "$rec" "$tmp" <<'EOF'
import json, re, sys

rec, tmp = sys.argv[1], sys.argv[2]
aggs = [json.loads(l) for l in open(rec) if l.strip()]

# damonctl's view: per target, per aggregation
want = {}
for a in aggs:
    for tid in sorted({r["target_id"] for r in a["regions"]}):
        regs = [r for r in a["regions"] if r["target_id"] == tid]
        want.setdefault(tid, []).append(a | {"regions": regs})

# damo's view, parsed from the report access format above
got, cur, snap = {}, None, None
for line in open(tmp + "/access.txt"):
    f = line.split()
    if not f:
        continue
    if f[0] == "record":
        cur = got.setdefault(int(f[1]), [])
    elif f[0] == "snapshot":
        snap = {"regions": []}
        cur.append(snap)
    elif f[0] == "region":
        hits = [int(x) for x in re.findall(r"\d+", " ".join(f[4:]))]
        snap["regions"].append((int(f[1]), int(f[2]), float(f[3]), hits))
    elif f[0] == "total":
        snap["total"] = int(f[1])

fails = 0
def check(cond, msg):
    global fails
    if not cond:
        fails += 1
        print("FAIL:", msg)

check(sorted(got) == sorted(want), f"targets {sorted(got)} != {sorted(want)}")
nregions = naccesses = 0
for tid, snaps in want.items():
    g = got.get(tid, [])
    check(len(g) == len(snaps), f"target {tid}: {len(g)} snapshots, want {len(snaps)}")
    for i, (a, s) in enumerate(zip(snaps, g)):
        ratio = a["aggr_us"] / a["sample_us"]  # damo: rate = samples / ratio
        total = sum(r["end"] - r["start"] for r in a["regions"])
        check(s.get("total") == total, f"target {tid} snapshot {i}: total {s.get('total')} != {total}")
        check(len(s["regions"]) == len(a["regions"]), f"target {tid} snapshot {i}: region count")
        for r, (start, end, rate, hits) in zip(a["regions"], s["regions"]):
            nr = round(rate * ratio / 100)
            check((start, end) == (r["start"], r["end"]), f"region {start:#x}-{end:#x}")
            check(nr == r["nr_accesses"], f"{start:#x}: damo nr_accesses {nr} != {r['nr_accesses']}")
            check(hits == r["probe_hits"], f"{start:#x}: probe_hits {hits} != {r['probe_hits']}")
            nregions += 1
            naccesses += nr

# the last aggregation, as damonctl report shows it
rep = json.load(open(tmp + "/report.json"))
check(len(rep) == 1, "damonctl report: one context")
for tid, snaps in got.items():
    last = snaps[-1]
    mine = [r for r in rep[0]["regions"] if r["target_id"] == tid]
    check([(r["start"], r["end"]) for r in mine] == [x[:2] for x in last["regions"]],
          f"target {tid}: last snapshot regions differ from damonctl report")
    ratio = rep[0]["aggr_us"] / rep[0]["sample_us"]
    check([r["nr_accesses"] for r in mine] == [round(x[2] * ratio / 100) for x in last["regions"]],
          f"target {tid}: last snapshot nr_accesses differ from damonctl report")
    check(sum(r["end"] - r["start"] for r in mine) == last["total"], f"target {tid}: total size")

# working set: damo's wss (regions with >= 1 access) per aggregation, in
# time order, against damonctl's working_set_bytes for that target
wss = {}
tid = None
for line in open(tmp + "/wss.txt"):
    m = re.match(r"# target_id\s+(\d+)", line)
    if m:
        tid = int(m.group(1))
        continue
    f = line.split()
    if len(f) == 2 and not line.startswith("#"):
        wss.setdefault(tid, []).append(int(f[1]))
for t, snaps in want.items():
    mine = [sum(r["end"] - r["start"] for r in a["regions"] if r["nr_accesses"] >= 1) for a in snaps]
    check(wss.get(t) == mine, f"target {t}: damo wss {wss.get(t)} != damonctl {mine}")

print(f"damo read {sum(len(s) for s in got.values())} snapshots of {len(got)} targets, "
      f"{nregions} regions, {naccesses} accesses: {'FAIL' if fails else 'equal'} to damonctl's")
sys.exit(1 if fails else 0)
EOF
