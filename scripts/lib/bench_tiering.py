#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# Section 12 of make bench's results.txt (scripts/bench.sh): tiering, from
# the "tier" and "tier-sum" lines of tests/vm/bench/tiering.sh (without
# their "BENCH " prefix), one file per kernel: per kernel and scenario a
# table of the systems (time until 95 % of the hot pages are on the fast
# node, cold pages promoted, pages migrated over the hot size, the
# monitor's and engine's CPU, the workload's passes) and one SVG of the
# hot pages' share on the fast node over time (scripts/lib/svgplot.py).
# A system that moved no hot page is marked BLIND and left out of the plot.
#
#   bench_tiering.py OUT_DIR FILE...
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import svgplot  # noqa: E402

NAMES = {"dp": "damon_perf schemes",
         "damos": "DAMOS naive",
         "damos_goal": "DAMOS tuned (goals)",
         "numa2": "NUMA balancing mode 2"}
ORDER = ["dp", "damos", "damos_goal", "numa2"]


def parse(paths):
    series, sums = {}, []
    for path in paths:
        try:
            f = open(path)
        except OSError:
            continue
        with f:
            for line in f:
                w = line.split()
                if not w:
                    continue
                kv = dict(x.split("=", 1) for x in w[1:] if "=" in x)
                if w[0] == "tier":
                    key = (kv["k"], kv["scen"], kv["sys"])
                    hot = int(kv["hot"]) or 1
                    series.setdefault(key, []).append(
                        (int(kv["t"]), int(kv["hot0"]) / hot))
                elif w[0] == "tier-sum":
                    sums.append(kv)
    return series, sums


def row(kv):
    hot, cold = int(kv["hot"]) or 1, int(kv["cold"]) or 1
    secs = int(kv["secs"]) or 1
    cp = int(kv["cold_promoted"])
    cpu = kv["cpu_ms"]
    if cpu == "-":
        pass
    elif kv.get("mon_ms", "-") != "-" and int(kv.get("eng_ms", 0)):
        cpu = "%.1f%% (%.1f+%.1f)" % (int(cpu) / 10.0 / secs,
                                      int(kv["mon_ms"]) / 10.0 / secs,
                                      int(kv["eng_ms"]) / 10.0 / secs)
    else:
        cpu = "%.1f%%" % (int(cpu) / 10.0 / secs)
    name = NAMES.get(kv["sys"], kv["sys"])
    if kv.get("fair") == "no":
        name += " (BLIND)"
    if "pages" in kv and int(kv["start_node1"]) * 100 < int(kv["pages"]) * 99:
        name += " (MOVED EARLY)"
    line = ("  %-34s %6s %8d %6.2f%% %8.2fx %18s %8s" %
            (name, kv["t95"], cp, 100.0 * cp / cold,
             int(kv["migrated"]) / hot, cpu, kv["passes"]))
    if "ballast" in kv:
        line += "  ballast on0 %s -> %s of %s" % (
            kv["ballast0_start"], kv["ballast0_end"], kv["ballast"])
    return line


def main(out_dir, paths):
    series, sums = parse(paths)
    print("12. Tiering: damon_perf against DAMOS and NUMA balancing's "
          "tiering mode (tests/vm/bench/tiering.sh, scripts/vm.sh --tier, "
          "nopcid)")
    if not sums:
        print("  no lines (%s)" % " ".join(paths))
        return
    os.makedirs(out_dir, exist_ok=True)
    kernels = []
    for kv in sums:
        if kv["k"] not in kernels:
            kernels.append(kv["k"])
    scens = ["static", "phase", "thp", "procs", "full", "fullthp"]
    keys = sorted({(kv["k"], kv["scen"]) for kv in sums},
                  key=lambda ks: (kernels.index(ks[0]),
                                  scens.index(ks[1]) if ks[1] in scens
                                  else len(scens), ks[1]))
    for k, scen in keys:
        rows = [kv for kv in sums if kv["k"] == k and kv["scen"] == scen]
        rows.sort(key=lambda kv: ORDER.index(kv["sys"])
                  if kv["sys"] in ORDER else len(ORDER))
        print("  %s, %s (%s s, %s hot pages of %s):" %
              (k, scen, rows[0]["secs"], rows[0]["hot"],
               rows[0].get("pages",
                           int(rows[0]["hot"]) + int(rows[0]["cold"]))))
        print("  %-34s %6s %8s %7s %9s %18s %8s" %
              ("system", "t95 s", "cold on0", "of cold", "migrated",
               "CPU", "passes"))
        for kv in rows:
            print(row(kv))
        blind = {kv["sys"] for kv in rows if kv.get("fair") == "no"}
        lines = [(NAMES.get(s, s), pts)
                 for (kk, sc, s), pts in sorted(
                     series.items(),
                     key=lambda i: ORDER.index(i[0][2])
                     if i[0][2] in ORDER else len(ORDER))
                 if kk == k and sc == scen and s not in blind]
        svg = svgplot.lines("Hot pages on the fast node (%s, %s)" % (scen, k),
                            "seconds", "share of the hot pages", lines, 0, 1)
        if svg:
            name = os.path.join(out_dir, "tiering-%s-%s.svg" % (k, scen))
            with open(name, "w") as o:
                o.write(svg)
            print("  plot: %s" % name)
    print("  (t95: seconds until 95 % of the hot pages were on node 0, "
          "from the phase change for phase, - never; cold on0: the most "
          "cold pages on node 0 at any sample; migrated: pages migrated "
          "on the machine over the hot pages; CPU: the monitor's and "
          "engine's share of one CPU (monitor+engine where apart), - for NUMA balancing, whose work "
          "runs in the workload's threads; passes: the workload's, equal "
          "placement or not under the emulator; BLIND: moved no hot "
          "page, no comparison; MOVED EARLY: less than 99 % of the mapping was "
          "on node 1 when the system started; ballast on0 (full, fullthp): the cold "
          "ballast's pages on node 0 when the system started and at the end)")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
