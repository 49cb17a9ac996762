#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make bench: the native microbenchmarks of the module's own sources
# (tests/user/bench: ring.c, drain.c, regions.c over a userspace kernel
# shim; spe_parse.c), built in build/bench and run once. Not part of
# make check: the numbers are measurements, not verdicts.
#
#   scripts/bench.sh                  build, run, summarize
#   BENCH_MIN_TIME=1 scripts/bench.sh longer runs per benchmark (s; 0.2)
#   BENCH_FILTER=Drain scripts/bench.sh   only matching benchmarks
#   BENCH_CALLGRIND=0 scripts/bench.sh    no instruction counts
#   BENCH_NATIVE=0 scripts/bench.sh       only the VM part
#   BENCH_VM=0 scripts/bench.sh           only the native part
#   BENCH_NMI=0 / BENCH_DAMON=0 / BENCH_ACCURACY=0 / BENCH_SHARE=0 /
#   BENCH_COST=0 / BENCH_TUNING=0 / BENCH_TIERING=0 scripts/bench.sh
#                                     without that VM part
#   BENCH_TIERING_KERNELS="trixie sid" BENCH_TIERING_SECS=300
#   BENCH_TIERING_SCENARIOS="static phase thp procs full fullthp"
#   BENCH_TIERING_SYSTEMS="dp damos damos_goal numa2" scripts/bench.sh
#                                     the tiering comparison's kernels,
#                                     seconds per run, scenarios, systems
#   BENCH_CURVE_CPUS="2 4 8" BENCH_CURVES=rate,regions,targets,cpus
#   BENCH_MEMORY_SIZES="64 256 1024 4096" scripts/bench.sh
#                                     the cost curves' vCPU counts, curves
#                                     and mapping sizes (MiB)
#   BENCH_NMI_ITERS=2000 scripts/bench.sh timed batches per NMI measurement
#   BENCH_BUDGET=0 scripts/bench.sh       no CPU budget runs
#   BENCH_BUDGETS="0.5 1 5"               the budgets (percent of one CPU)
#   BENCH_VM_SIZES="64 256 1024" BENCH_VM_PERIODS="1 10 100"
#   BENCH_VM_WINDOW=10 BENCH_VM_SNAPSHOTS=5 scripts/bench.sh
#                                     the VM matrix (mapping MiB, probe
#                                     periods, seconds, snapshots)
#   BENCH_ACCURACY_ONLY=256M-move,1G-1M scripts/bench.sh
#                                     some accuracy scenarios only
#
# Writes build/bench/results.txt (summary: times, ratios, instruction
# counts), kmod_bench.json and spe_bench.json (Google Benchmark's JSON),
# callgrind.txt (instructions per operation, from valgrind's callgrind:
# repeatable on a loaded machine, unlike times). Then ring_drops (about
# 15 s): drops as a paced producer thread raises its rate from 10 k to
# 1 M reports/s, with and without the watermark wake, against a consumer
# thread that sleeps and drains as the kdamond does (the module's ring.c,
# this host's thread wake-up latency); its table is appended to
# results.txt (raw output in ring_drops.txt). Then cost_curves: a
# simulated second of monitoring per point, the rate and the regions
# varied (native-curves.txt, tabulated in section 10). BENCH_NATIVE=0
# skips these with the rest of the native part.
#
# Then the VM parts. tests/vm/bench/nmi.sh booted once (scripts/vm.sh
# --kernel stock: Debian 12's 6.1, no debug options) times report_access
# in true NMI context and in process context against a per-CPU counter
# increment, and counts drops as a paced producer raises its rate with and
# without the watermark wake (raw lines in vm-nmi.txt, console in
# vm-nmi.log). tests/vm/bench/budget.sh (stock 6.1): the CPU budget at
# each of BENCH_BUDGETS and without one (raw lines in vm-budget.txt,
# console in vm-budget.log). tests/vm/bench/damon.sh booted once (scripts/vm.sh
# --kernel trixie --numa: Debian 13's stock 6.12 kernel, DAMON built in)
# runs the workload with no monitoring, with in-kernel DAMON (sysfs) and
# with damon_perf (damonctl) and prints one BENCH line per run; the table
# of those is appended to results.txt (raw lines in vm-damon.txt, console
# in vm-damon.log). Then the accuracy harness: tests/vm/bench/accuracy.sh
# (tests/vm/accuracy.sh's full scenario table, scripts/vm.sh --kernel
# stock --numa) booted once; its table is appended to results.txt (raw
# per-aggregation lines in vm-accuracy.txt, console in vm-accuracy.log).
# Then tests/vm/bench/share.sh (stock 6.1): damon_perf's overflow handler
# against perf's own sample path on the same page faults (raw lines in
# vm-share.txt, console in vm-share.log). Then the cost curves:
# tests/vm/bench/curves.sh (stock 6.1) booted once per vCPU count, and
# tests/vm/bench/damon.sh (trixie, 6 GiB) over the mapping sizes with
# DAMON (10..1000 regions and page granularity) and damon_perf at period
# 10; scripts/lib/bench_curves.py fits and
# plots them (section 10; SVGs in build/bench/curves/, raw lines in
# vm-curves-N.txt and vm-memory.txt). Last, tests/vm/bench/tuning.sh
# (Debian unstable's 7.2, 2 NUMA nodes, booted with nopcid so that DAMON
# sees): damon_perf with a fixed aggregation and with a samples goal
# against DAMON's intervals auto-tuning, per aggregation, on a bursty
# access stream and on bursty hinting faults; scripts/lib/bench_tuning.py
# tabulates (section 11) and plots them (build/bench/tuning/*.svg, raw
# lines in vm-tuning.txt). BENCH_TUNING=0 skips it. Then
# tests/vm/bench/tiering.sh on each of BENCH_TIERING_KERNELS (scripts/vm.sh
# --tier --append nopcid: two memory tiers from the ACPI HMAT): damonctl
# schemes against DAMOS (naive, and tuned as DAMON's documentation
# recommends) and NUMA balancing's tiering mode, each alone on the same
# workload; scripts/lib/bench_tiering.py tabulates (section 12) and plots
# them (build/bench/tiering/*.svg, raw lines in vm-tiering-KERNEL.txt).
# BENCH_TIERING=0 skips it.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
out=${BUILD:-$top/build}/bench
min_time=${BENCH_MIN_TIME:-0.2}
filter=${BENCH_FILTER:-.}
jobs=${JOBS:-2}
ncrc=0
mkdir -p "$out"
# damonctl_built: build/tools/damonctl, which the VM images carry (once
# configured, a rebuild of nothing is quick)
damonctl_built() {
	echo "bench: damonctl (build/tools)" >&2
	cmake -S tools -B build/tools -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	cmake --build build/tools -j"$jobs" --target damonctl >/dev/null
}

"$top/scripts/deps.sh" >&2

if [ "${BENCH_NATIVE:-1}" = 1 ]; then
cmake -S tests/user/bench -B "$out" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$out" -j"$jobs" >/dev/null

run() {	# NAME: one Google Benchmark binary, console and JSON
	"$out/$1" --benchmark_min_time="$min_time" \
		--benchmark_filter="$filter" \
		--benchmark_out="$out/$1.json" --benchmark_out_format=json \
		--benchmark_counters_tabular=false >"$out/$1.txt" 2>&1 || {
		cat "$out/$1.txt" >&2
		echo "bench: $1 failed" >&2
		exit 1
	}
}
echo "bench: kmod_bench (ring, drain, regions)" >&2
run kmod_bench
echo "bench: spe_bench (SPE parser)" >&2
run spe_bench

# Instructions per operation: bench_count CASE N runs CASE N times inside
# bench_timed(), the only function callgrind collects; per-op = Ir / (N *
# ops per step).  CASE N OPS_PER_STEP UNIT
cg_cases="counter 100000 1 call
report 100000 1 report
report_full 100000 1 report
credit_10 2000 64 report
credit_1000 2000 64 report
credit_10000 2000 64 report
credit_1000000 200 64 report
linear_10 2000 64 report
linear_1000 200 64 report
linear_10000 20 64 report
aggr_1000_0 1 1 aggregation
aggr_1000_100000 1 1 aggregation
aggr_1000_1000 1 1 aggregation
spe_clean 2 1048576 byte
spe_noisy 2 1048576 byte
spe_mixed 2 1048576 byte"
: >"$out/callgrind.txt"
if [ "${BENCH_CALLGRIND:-1}" = 1 ] && command -v valgrind >/dev/null &&
   command -v callgrind_annotate >/dev/null; then
	echo "bench: callgrind instruction counts" >&2
	while read -r name n per unit; do
		f=$out/callgrind.$name.out
		valgrind --tool=callgrind --callgrind-out-file="$f" \
			--toggle-collect=bench_timed \
			"$out/bench_count" "$name" "$n" >/dev/null 2>&1
		ir=$(callgrind_annotate "$f" | sed -n \
			's/^ *\([0-9,]*\) .*PROGRAM TOTALS.*/\1/p' | tr -d ,)
		echo "$name $n $per $unit ${ir:-0}" >>"$out/callgrind.txt"
		rm -f "$f"
	done <<<"$cg_cases"
else
	echo "bench: valgrind not installed or BENCH_CALLGRIND=0: no instruction counts" >&2
fi

python3 - "$out" "$min_time" >"$out/results.txt" <<'PY'
import json, os, subprocess, sys, time

out, min_time = sys.argv[1], sys.argv[2]

def load(name):
    try:
        with open(os.path.join(out, name + ".json")) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {"context": {}, "benchmarks": []}

kmod, spe = load("kmod_bench"), load("spe_bench")
by = {b["name"]: b for b in kmod["benchmarks"] + spe["benchmarks"]}

def ns_per_item(name):
    b = by.get(name)
    if not b or not b.get("items_per_second"):
        return None
    return 1e9 / b["items_per_second"]

def rate(name):
    b = by.get(name)
    return b.get("items_per_second") if b else None

def fmt(v, f="{:.2f}"):
    return "-" if v is None else f.format(v)

def ratio(a, b):
    return None if a is None or b is None or not b else a / b

cg = {}
try:
    with open(os.path.join(out, "callgrind.txt")) as f:
        for line in f:
            name, n, per, unit, ir = line.split()
            if int(ir):
                cg[name] = int(ir) / (int(n) * int(per))
except OSError:
    pass

ctx = kmod.get("context", {})
rev = subprocess.run(["git", "describe", "--always", "--dirty"],
                     capture_output=True, text=True).stdout.strip()
print("damon_perf native microbenchmarks (make bench)")
print("date: %s  commit: %s" % (time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), rev or "?"))
print("host: %s, %s CPUs at %s MHz, load average %s (at start of kmod_bench)" % (
    os.uname().release, ctx.get("num_cpus", "?"), ctx.get("mhz_per_cpu", "?"),
    " ".join("%.2f" % x for x in ctx.get("load_avg", [])) or "?"))
print("library build: %s; min time per benchmark %s s; times are CPU time"
      % (ctx.get("library_build_type", "?"), min_time))
print("Absolute times vary with the machine and its load: compare ratios")
print("within this run, and instruction counts (callgrind) across runs.")
print()

print("1. report_access against a per-CPU counter increment (ns per call)")
inc_call = ns_per_item("BM_CounterIncCall")
inc_inl = ns_per_item("BM_CounterIncInline")
lock_or = ns_per_item("BM_LockedOr")
rep = ns_per_item("BM_ReportAccess")
full = ns_per_item("BM_ReportAccessFull")
print("  %-44s %8s %8s" % ("", "ns", "instr"))
print("  %-44s %8s %8s" % ("this_cpu_inc, inline", fmt(inc_inl), "-"))
print("  %-44s %8s %8s" % ("this_cpu_inc, out-of-line call", fmt(inc_call), fmt(cg.get("counter"), "{:.0f}")))
print("  %-44s %8s %8s" % ("locked OR (set_bit of the pending mask)", fmt(lock_or), "-"))
print("  %-44s %8s %8s" % ("report_access, queued (default 256 ring)", fmt(rep), fmt(cg.get("report"), "{:.0f}")))
print("  %-44s %8s %8s" % ("report_access, ring full (dropped, counted)", fmt(full), fmt(cg.get("report_full"), "{:.0f}")))
print("  report_access / call increment: %s x time, %s x instructions (target: < 30 ns, <= 2x)"
      % (fmt(ratio(rep, inc_call)), fmt(ratio(cg.get("report"), cg.get("counter")))))
print("  report_access / inline increment: %s x time" % fmt(ratio(rep, inc_inl)))
print()

print("2. drain + credit throughput (M reports/s; paddr unless noted)")
print("  %-12s %10s %10s %9s %10s %12s %12s" % ("regions", "bsearch", "linear", "speedup",
      "kdamond", "instr/rep", "instr/rep"))
print("  %-12s %10s %10s %9s %10s %12s %12s" % ("", "credit", "credit", "", "pass", "bsearch", "linear"))
for n, tag in ((10, "10"), (1000, "1000"), (10000, "10000"), (1000000, "1000000")):
    bs = rate("BM_DrainCredit/%d/0" % n)
    ln = rate("BM_DrainCreditLinear/%d/0" % n)
    ps = rate("BM_DrainPass/%d/0/iterations:40" % n)
    m = lambda v: None if v is None else v / 1e6
    print("  %-12s %10s %10s %9s %10s %12s %12s" % (
        tag, fmt(m(bs)), fmt(m(ln), "{:.4f}"), fmt(ratio(bs, ln), "{:.1f}x"), fmt(m(ps)),
        fmt(cg.get("credit_" + tag), "{:.0f}"), fmt(cg.get("linear_" + tag), "{:.0f}")))
bs = rate("BM_DrainCredit/10000/1")
ps = rate("BM_DrainPass/10000/1/iterations:40")
print("  %-12s %10s %10s %9s %10s" % ("10000 vaddr", fmt(None if bs is None else bs / 1e6), "",
      "", fmt(None if ps is None else ps / 1e6)))
print("  credit: damon_perf_drain_report() over a prepared snapshot, 65536 reports")
print("  at uniformly random pages; pass: damon_perf_drain_rings() of 8192")
print("  queued reports on 2 CPUs (snapshot + ring drain + credit).")
print("  target: >= 10 M reports/s per core at 10^4 regions")
print()

print("3. region adjustment per aggregation (us; 256 MiB paddr target,")
print("   samples over 20 sample intervals, 90% in a 2 MiB hot range)")
print("  %-8s %-6s %-6s %-8s %10s %10s %12s" % ("split", "min", "max", "samples", "us", "regions", "instr"))
for b in kmod["benchmarks"]:
    if not b["name"].startswith("BM_RegionsAggregate/"):
        continue
    parts = dict(p.split(":") for p in b["name"].split("/")[1:] if ":" in p)
    split = {"0": "random", "1": "samples"}.get(parts.get("split"), parts.get("split"))
    key = "aggr_%s_%s" % (parts.get("max"), parts.get("samples"))
    # bench_count drives the random split only
    instr = cg.get(key) if parts.get("min") == "10" and parts.get("split") == "0" else None
    print("  %-8s %-6s %-6s %-8s %10s %10s %12s" % (
        split, parts.get("min"), parts.get("max"), parts.get("samples"),
        fmt(b["cpu_time"] / 1e3 if b.get("time_unit") == "ns" else None),
        fmt(b.get("regions"), "{:.0f}"), fmt(instr, "{:.0f}")))
print()

print("4. SPE parse throughput (1 MiB streams)")
print("  %-8s %10s %12s %10s" % ("stream", "MiB/s", "M records/s", "instr/B"))
for s in ("Clean", "Noisy", "Mixed"):
    b = by.get("BM_SpeParse" + s)
    mib = b["bytes_per_second"] / 2**20 if b else None
    recs = b.get("records/s") / 1e6 if b and b.get("records/s") else None
    print("  %-8s %10s %12s %10s" % (s.lower(), fmt(mib, "{:.0f}"), fmt(recs),
          fmt(cg.get("spe_" + s.lower()))))
print("  target: >= 1 GiB/s (1024 MiB/s)")
PY

# Drops against the producer rate, natively: ring_drops (two threads over
# ring.c, the host's own wake-up latency); its table goes to results.txt.
echo "bench: ring_drops (drops against the producer rate, two threads)" >&2
"$out/ring_drops" >"$out/ring_drops.txt" 2>&1 || {
	cat "$out/ring_drops.txt" >&2
	echo "bench: ring_drops failed" >&2
	exit 1
}
{
	echo
	echo "5. Drops against the producer rate, native (ring_drops: a producer thread"
	echo "   as CPU 0, a consumer thread as the kdamond; Documentation/performance.rst)"
	sed 's/^/  /' "$out/ring_drops.txt"
	echo "  target: no drops up to 500 k/s per CPU with the default ring (wake on)"
} >>"$out/results.txt"
# The native cost curves, tabulated with the VM ones (section 10)
echo "bench: cost_curves (a simulated second per point, native)" >&2
"$out/cost_curves" >"$out/native-curves.txt" || {
	echo "bench: cost_curves lost or left uncredited a report" >&2
	ncrc=1
}
# without the VM parts, section 10 holds the native curves alone
[ "${BENCH_VM:-1}" = 1 ] || [ "${BENCH_COST:-1}" != 1 ] ||
	python3 scripts/lib/bench_curves.py "$out/curves" \
		"$out/native-curves.txt" >>"$out/results.txt"
cat "$out/results.txt"
echo "bench: results in $out/results.txt, JSON in $out/kmod_bench.json and $out/spe_bench.json" >&2
else
	: >"$out/results.txt"
fi

# --- VM part: report_access in NMI context, drops against the rate ------
nrc=0
if [ "${BENCH_VM:-1}" = 1 ] && [ "${BENCH_NMI:-1}" = 1 ]; then
echo "bench: VM: report_access in NMI context, drops (tests/vm/bench/nmi.sh, stock 6.1)" >&2
set +e
"$top/scripts/vm.sh" --kernel stock --timeout 900 --quiet \
	--log "$out/vm-nmi.log" \
	--append "BENCH_NMI_ITERS=${BENCH_NMI_ITERS:-2000}" \
	tests/vm/bench/nmi.sh
nrc=$?
set -e
sed -n 's/^BENCH nmi //p' "$out/vm-nmi.log" >"$out/vm-nmi.txt" || true
python3 - "$out/vm-nmi.txt" >>"$out/results.txt" <<'PY'
import sys
acc, ratio, drops, hdr = {}, {}, [], {}
with open(sys.argv[1]) as f:
    for line in f:
        w = line.split()
        if len(w) < 2:
            continue
        kv = dict(x.split("=", 1) for x in w if "=" in x)
        if w[0] == "access" and w[1] == "ratio":
            ratio[kv["ctx"]] = kv
        elif w[0] == "access":
            acc[(kv["ctx"], kv["op"])] = kv
        elif w[0] == "drops" and "ring" in kv:
            hdr = kv
        elif w[0] == "drops":
            drops.append(kv)
print()
print("5. VM (Debian 12 stock 6.1 under TCG, tests/vm/bench/nmi.sh):")
print("   report_access in true NMI context (self-NMI) and in process context")
print("  %-9s %-14s %10s %10s" % ("context", "op", "min ns", "median ns"))
for c in ("nmi", "process"):
    for op in ("report_access", "counter_inc", "empty"):
        a = acc.get((c, op))
        if a:
            print("  %-9s %-14s %10s %10s" % (c, op, a["min_ns"], a["median_ns"]))
for c in ("nmi", "process"):
    r = ratio.get(c)
    if r:
        print("  %s: report_access / counter_inc = %.2fx (medians), %.2fx (minima)" % (
            c, int(r["median_x100"]) / 100, int(r["min_x100"]) / 100))
if hdr:
    print("   drops against the producer rate per CPU (ring %s, sample interval %s us,"
          % (hdr.get("ring"), hdr.get("sample_us")))
    print("   hrtimer every %s us sends a self-NMI that queues what is due; %s ms a step)"
          % (hdr.get("tick_us"), hdr.get("step_ms")))
    print("  %-5s %9s %9s %10s %9s %8s %10s" % ("wake", "target/s", "achieved", "produced",
          "dropped", "drop %", "early_wake"))
    for d in drops:
        print("  %-5s %9s %9s %10s %9s %8.2f %10s" % (d["wake"], d["rate"], d["achieved"],
              d["produced"], d["dropped"], int(d["drop_permille"]) / 10, d["early_wake"]))
if not acc and not drops:
    print("  (no BENCH nmi lines: see vm-nmi.log)")
PY
fi

# --- VM part: the CPU budget ---------------------------------------------
if [ "${BENCH_VM:-1}" = 1 ] && [ "${BENCH_BUDGET:-1}" = 1 ]; then
	budgets=${BENCH_BUDGETS:-0.5 1 5}
	damonctl_built
	echo "bench: VM: CPU budget on stock, budgets $budgets" >&2
	set +e
	"$top/scripts/vm.sh" --kernel stock --timeout 1800 --quiet \
		--log "$out/vm-budget.log" \
		--append "BENCH_BUDGETS=${budgets// /,}" tests/vm/bench/budget.sh
	brc=$?
	set -e
	grep '^BENCH budget ' "$out/vm-budget.log" >"$out/vm-budget.txt" || true
	python3 - "$out/vm-budget.txt" >>"$out/results.txt" <<'PY'
import sys
rows = []
with open(sys.argv[1]) as f:
    for line in f:
        rows.append(dict(p.split("=", 1) for p in line.split()[2:] if "=" in p))
print()
print("6. CPU budget (VM: Debian 12 stock 6.1 under TCG; page-fault probe at period 1,")
print("   sample 10 ms, aggregation 250 ms; workload -f: 1 thread refaulting 8 MiB;")
print("   window after a warm-up; cost = (handler + drain) / window, % of one CPU)")
print("  %-8s %9s %9s %9s %8s %8s %8s %9s %7s %13s %7s" % (
    "budget", "passes/s", "faults/s", "samples", "handler", "drain", "cost %",
    "kdamond %", "status", "period", "steps"))
for r in rows:
    w = max(int(r["window_ns"]), 1)
    h = int(r["handler_ns"] or 0)
    d = int(r["drain_ns"] or 0)
    print("  %-8s %9.0f %9.0f %9s %6.1fms %6.1fms %8.3f %9.2f %7s %13s %7s" % (
        r["budget"] + ("" if r["budget"] == "none" else "%"),
        int(r["passes"]) * 1e9 / w, int(r["faults"]) * 1e9 / w, r["samples"],
        h / 1e6, d / 1e6, 100.0 * (h + d) / w,
        100.0 * int(r["kdamond_ms"]) * 1e6 / w, r["cost"] + "%",
        r["period0"] + ".." + r["period1"], r["raises"] + "/" + r["lowers"]))
if not rows:
    print("  (no BENCH lines: see vm-budget.log)")
PY
	echo "bench: budget table appended to $out/results.txt (console $out/vm-budget.log)" >&2
	[ $brc -eq 0 ] || nrc=$brc
fi

# --- VM part: damon_perf against in-kernel DAMON ------------------------
[ $nrc -ne 0 ] || nrc=$ncrc
[ "${BENCH_VM:-1}" = 1 ] || { cat "$out/results.txt"; exit $nrc; }
sizes=${BENCH_VM_SIZES:-64 256 1024}
periods=${BENCH_VM_PERIODS:-1 10 100}
window=${BENCH_VM_WINDOW:-10}
snaps=${BENCH_VM_SNAPSHOTS:-5}
# The largest mapping plus DAMON's regions and the page tables.
mem=$(( $(echo "$sizes" | tr ' ,' '\n\n' | sort -n | tail -n 1) + 1024 ))
[ $mem -ge 1024 ] || mem=1024
vrc=0
if [ "${BENCH_DAMON:-1}" = 1 ]; then
damonctl_built
echo "bench: VM: DAMON side by side on trixie, mappings $sizes MiB, periods $periods" >&2
set +e
"$top/scripts/vm.sh" --kernel trixie --numa --mem "$mem" --timeout 7200 --quiet \
	--log "$out/vm-damon.log" \
	--append "BENCH_SIZES=${sizes// /,} BENCH_PERIODS=${periods// /,} BENCH_WINDOW=$window BENCH_SNAPSHOTS=$snaps" \
	tests/vm/bench/damon.sh
vrc=$?
set -e
grep '^BENCH damon ' "$out/vm-damon.log" >"$out/vm-damon.txt" || true
python3 - "$out/vm-damon.txt" "$window" "$snaps" "$mem" >>"$out/results.txt" <<'PY'
import sys
path, window, snaps, mem = sys.argv[1:5]
rows = []
with open(path) as f:
    for line in f:
        kv = dict(p.split("=", 1) for p in line.split()[2:] if "=" in p)
        rows.append(kv)
names = {"none": "no monitoring", "damon": "DAMON, 10..1000 regions",
         "damon_page": "DAMON, page granularity"}
def name(m):
    if m in names:
        return names[m]
    p = m[4:].split("_")[0]
    if m.endswith("_sw"):
        return "damon_perf, period %s, wake/interval" % p
    return "damon_perf, period %s, %s regions" % (p, "10..10000" if m.endswith("_10k") else "10..1000")
print()
print("7. DAMON side by side (VM: 2 NUMA nodes under TCG, Debian 13 stock 6.12,")
print("   %s MiB guest; sample 10 ms, aggregation 1 s; %s s window per run;" % (mem, window))
print("   workload: 2 threads reading the hot set; precision/recall: mean over %s" % snaps)
print("   snapshots after the window, scored on the workload's mapping as the")
print("   accuracy harness scores; 'seen' = snapshots with an accessed region in")
print("   the mapping; 'outside' = most KiB of accessed regions outside the mapping")
print("   in one snapshot: the workload's stack, heap and libraries)")
hdr = "  %-40s %10s %8s %11s %7s %6s %6s %6s %8s" % ("", "passes/s", "vs none", "kdamond ms", "CPU %", "prec", "recall", "seen", "outside")
base = {}
for r in rows:
    pps = int(r["passes"]) * 1e9 / max(int(r["window_ns"]), 1)
    r["pps"] = pps
    if r["mon"] == "none":
        base[(r["size"], r["hot"])] = pps
last = None
for r in rows:
    key = (r["size"], r["hot"])
    if key != last:
        print()
        print("  %s MiB mapping, %s hot set (%s MiB, %s)" % (r["size"], r["hot"], r["hot_mb"],
              "page order" if r["hot"] == "small" else "random order"))
        print(hdr)
        last = key
    b = base.get(key)
    kd = r["kdamond_ms"]
    cpu = "-" if kd == "-" else "%.2f" % (100.0 * float(kd) / (int(r["window_ns"]) / 1e6))
    print("  %-40s %10.0f %8s %11s %7s %6s %6s %6s %8s" % (
        name(r["mon"]), r["pps"], "-" if not b else "%.2f" % (r["pps"] / b), kd, cpu,
        r["prec"], r["rec"], r["seen"], r.get("outside_kib", "-")))
if not rows:
    print("  (no BENCH lines: see vm-damon.log)")
PY
echo "bench: VM table appended to $out/results.txt (console $out/vm-damon.log)" >&2
fi

# --- VM part: the accuracy harness ---------------------------------------
if [ "${BENCH_ACCURACY:-1}" = 1 ]; then
echo "bench: VM: accuracy harness on stock (bookworm), both split modes" >&2
set +e
# The time limit is the script's "# timeout:" header, which /init applies
# and scripts/vm.sh adds its boot allowance to.
"$top/scripts/vm.sh" --kernel stock --numa --mem 2048 --quiet \
	--log "$out/vm-accuracy.log" \
	${BENCH_ACCURACY_ONLY:+--append "ACCURACY_ONLY=$BENCH_ACCURACY_ONLY"} \
	tests/vm/bench/accuracy.sh
arc=$?
set -e
[ $arc -eq 0 ] || vrc=$arc
grep -a '^# ACCURACY' "$out/vm-accuracy.log" | sed 's/^# //' >"$out/vm-accuracy.txt" || true
python3 - "$out/vm-accuracy.txt" >>"$out/results.txt" <<'PY'
import sys
per, summ, setting = {}, [], ""
with open(sys.argv[1]) as f:
    for line in f:
        w = line.split()
        if w[0] == "ACCURACY-SETTING":
            setting = " ".join(w[1:])
        elif w[0] == "ACCURACY" and len(w) >= 9 and w[3].isdigit():
            per.setdefault((w[1], w[2]), {})[int(w[3])] = w[4:]
        elif w[0] == "ACCURACY-SUMMARY":
            kv = dict(zip(w[3::2], w[4::2]))
            summ.append((w[1], w[2], kv))
print()
print("8. Accuracy of the regions (VM: 2 NUMA nodes under TCG, Debian 12 stock")
print("   6.1; page-fault probe at period 1, sample 10 ms, aggregation 1 s,")
print("   10..1000 regions; tests/vm/accuracy.sh). P, R: precision and recall")
print("   of the regions with nr_accesses >= 1 (R: the worst hot range) at")
print("   aggregation N; detect: first aggregation with P and R >= 0.9; held:")
print("   aggregations from then on with both >= 0.9 (of those with samples);")
print("   follow: aggregations after a phase change until P and R >= 0.9;")
print("   rank: aggregations with the hot ranges' mean nr_accesses ordered")
print("   as their intensities (of those with samples); sampled: aggregations")
print("   with any sample on the workload (the page faults come from NUMA scans);")
print("   NAME:own: a paddr scenario with P over the workload's own frames only;")
print("   passes: the NUMA scanner's passes over each workload process")
if setting:
    print("   NUMA scans: " + setting)
print("  %-22s %-8s %11s %11s %11s %11s %7s %6s %6s %6s %6s %s" % (
    "scenario", "split", "P/R @1", "P/R @2", "P/R @3", "P/R @last", "sampled", "detect", "held", "follow", "rank", "passes"))
def pr(v):
    if not v or v[0] == "-":
        return "-"
    return "%s/%s" % (v[0][:4], v[2][:4])
for name, split, kv in summ:
    a = per.get((name, split), {})
    sampled = "%d/%d" % (sum(1 for v in a.values() if v[0] != "-"), len(a))
    print("  %-22s %-8s %11s %11s %11s %11s %7s %6s %6s %6s %6s %s" % (
        name, split, pr(a.get(1)), pr(a.get(2)), pr(a.get(3)), pr(a.get(max(a) if a else 0)), sampled,
        kv.get("detect", "-"), kv.get("held", "-"), kv.get("follow", "-"), kv.get("rank", "-"),
        kv.get("passes", "-")))
if not summ:
    print("  (no ACCURACY lines: see vm-accuracy.log)")
PY
echo "bench: accuracy table appended to $out/results.txt (console $out/vm-accuracy.log)" >&2
fi

# --- VM part: damon_perf's share of a sample's cost ------------------------
src=0
if [ "${BENCH_VM:-1}" = 1 ] && [ "${BENCH_SHARE:-1}" = 1 ]; then
damonctl_built
echo "bench: VM: damon_perf's handler against perf's sample path (tests/vm/bench/share.sh, stock 6.1)" >&2
set +e
"$top/scripts/vm.sh" --kernel stock --timeout 900 --quiet \
	--log "$out/vm-share.log" tests/vm/bench/share.sh
src=$?
set -e
sed -n 's/^BENCH share //p' "$out/vm-share.log" >"$out/vm-share.txt" || true
python3 scripts/lib/bench_share.py "$out/vm-share.txt" >>"$out/results.txt"
fi

# --- VM part: cost curves --------------------------------------------------
crc=0
if [ "${BENCH_VM:-1}" = 1 ] && [ "${BENCH_COST:-1}" = 1 ]; then
damonctl_built
set +e
curve_files=()
for c in ${BENCH_CURVE_CPUS:-2 4 8}; do
	which=cpus
	[ "$c" = 2 ] && which=${BENCH_CURVES:-rate,regions,targets,cpus}
	echo "bench: VM: cost curves ($which) on $c vCPUs (tests/vm/bench/curves.sh, stock 6.1)" >&2
	"$top/scripts/vm.sh" --kernel stock --cpus "$c" --timeout 1800 --quiet \
		--log "$out/vm-curves-$c.log" --append "BENCH_CURVES=$which" \
		tests/vm/bench/curves.sh || crc=1
	sed -n 's/^BENCH //p' "$out/vm-curves-$c.log" >"$out/vm-curves-$c.txt"
	curve_files+=("$out/vm-curves-$c.txt")
done
sizes=${BENCH_MEMORY_SIZES:-64 256 1024 4096}
echo "bench: VM: kdamond CPU against the memory ($sizes MiB; tests/vm/bench/damon.sh, trixie)" >&2
"$top/scripts/vm.sh" --kernel trixie --numa --mem 6144 --timeout 3000 --quiet \
	--log "$out/vm-memory.log" \
	--append "BENCH_SIZES=${sizes// /,} BENCH_MONS=damon,damon_page,dp_p10 BENCH_HOTS=small" \
	tests/vm/bench/damon.sh || crc=1
sed -n 's/^BENCH //p' "$out/vm-memory.log" >"$out/vm-memory.txt"
set -e
python3 scripts/lib/bench_curves.py "$out/curves" "${curve_files[@]}" \
	"$out/vm-memory.txt" "$out/native-curves.txt" >>"$out/results.txt"
fi
# --- VM part: intervals tuning against DAMON's --------------------------
trc=0
if [ "${BENCH_VM:-1}" = 1 ] && [ "${BENCH_TUNING:-1}" = 1 ]; then
damonctl_built
echo "bench: VM: intervals tuning against DAMON's intervals auto-tuning (tests/vm/bench/tuning.sh, sid, nopcid)" >&2
set +e
"$top/scripts/vm.sh" --kernel sid --numa --append nopcid --timeout 2400 \
	--quiet --log "$out/vm-tuning.log" tests/vm/bench/tuning.sh
trc=$?
set -e
sed -n 's/^BENCH //p' "$out/vm-tuning.log" >"$out/vm-tuning.txt" || true
python3 scripts/lib/bench_tuning.py "$out/tuning" "$out/vm-tuning.txt" \
	>>"$out/results.txt"
fi
# --- VM part: tiering against DAMOS and NUMA balancing's ---------------
tirc=0
if [ "${BENCH_VM:-1}" = 1 ] && [ "${BENCH_TIERING:-1}" = 1 ]; then
damonctl_built
tier_files=() tier_pids=()
# the kernels side by side: each VM is one host thread (TCG, thread=single)
for k in ${BENCH_TIERING_KERNELS:-trixie sid}; do
	echo "bench: VM: tiering against DAMOS and NUMA balancing mode 2 (tests/vm/bench/tiering.sh, $k, --tier, nopcid)" >&2
	"$top/scripts/vm.sh" --kernel "$k" --tier --timeout 12000 --quiet \
		--log "$out/vm-tiering-$k.log" \
		--append "nopcid BENCH_TIERING_SECS=${BENCH_TIERING_SECS:-300} BENCH_TIERING_SCENARIOS=$(echo "${BENCH_TIERING_SCENARIOS:-static phase thp procs full fullthp}" | tr ' ' ,) BENCH_TIERING_SYSTEMS=$(echo "${BENCH_TIERING_SYSTEMS:-dp damos damos_goal numa2}" | tr ' ' ,)" \
		tests/vm/bench/tiering.sh &
	tier_pids+=($!)
	tier_files+=("$out/vm-tiering-$k.txt")
done
for p in "${tier_pids[@]}"; do wait "$p" || tirc=1; done
for k in ${BENCH_TIERING_KERNELS:-trixie sid}; do
	sed -n 's/^BENCH //p' "$out/vm-tiering-$k.log" >"$out/vm-tiering-$k.txt" || true
done
python3 scripts/lib/bench_tiering.py "$out/tiering" "${tier_files[@]}" \
	>>"$out/results.txt"
fi
cat "$out/results.txt"
[ $vrc -ne 0 ] || vrc=$tirc
[ $vrc -ne 0 ] || vrc=$trc
[ $vrc -ne 0 ] || vrc=$nrc
[ $vrc -ne 0 ] || vrc=$src
[ $vrc -ne 0 ] || vrc=$crc
[ $vrc -ne 0 ] || vrc=$ncrc
exit $vrc
