#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# Section 11 of make bench's results.txt (scripts/bench.sh): the intervals
# tuning against DAMON's intervals auto-tuning, from the "tuning" and
# "tuning-sum" lines of tests/vm/bench/tuning.sh (without their "BENCH "
# prefix): per scenario a table of the monitors (aggregations, empty
# ones, mean precision and recall after the second, the last interval)
# and one SVG per scenario of the precision per aggregation
# (scripts/lib/svgplot.py). A DAMON row whose fair check failed is marked
# and left out of the plot: no figure against a blind DAMON.
#
#   bench_tuning.py OUT_DIR FILE
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import svgplot  # noqa: E402

NAMES = {"dp_fixed": "damon_perf fixed",
         "dp_goal": "damon_perf goal",
         "damon": "DAMON tuned"}


def main(out_dir, path):
    series, sums = {}, []
    try:
        f = open(path)
    except OSError:
        print("11. Intervals tuning against DAMON's: no lines (%s)" % path)
        return
    with f:
        for line in f:
            w = line.split()
            if not w:
                continue
            kv = dict(x.split("=", 1) for x in w[1:] if "=" in x)
            if w[0] == "tuning":
                key = (kv["scen"], kv["mon"])
                series.setdefault(key, []).append(
                    (int(kv["seq"]), float(kv["p"]), float(kv["r"]),
                     int(kv["aggr_us"])))
            elif w[0] == "tuning-sum":
                sums.append(kv)
    print("11. Intervals tuning against DAMON's intervals auto-tuning "
          "(tests/vm/bench/tuning.sh, 7.2, nopcid)")
    print("  %-8s %-28s %6s %6s %7s %7s %6s %12s" %
          ("scenario", "monitor", "aggrs", "empty", "P mean", "R mean",
           "<0.9", "last aggr ms"))
    blind = set()
    for kv in sums:
        name = NAMES.get(kv["mon"], kv["mon"])
        if kv.get("fair") == "no":
            name += " (BLIND)"
            blind.add((kv["scen"], kv["mon"]))
        print("  %-8s %-28s %6s %6s %7s %7s %6s %12.0f" %
              (kv["scen"], name, kv["aggrs"], kv["empty"], kv["p_mean"],
               kv["r_mean"], kv["below_0.9"],
               int(kv["last_aggr_us"]) / 1000.0))
    print("  (P, R mean over the aggregations after the second; empty: no "
          "region with an access in the mapping; BLIND: DAMON saw no "
          "access in the hot range, its row is no comparison)")
    os.makedirs(out_dir, exist_ok=True)
    for scen in sorted({s for s, _ in series}):
        lines = [(NAMES.get(m, m), [(q, p) for q, p, _, _ in pts])
                 for (s, m), pts in sorted(series.items())
                 if s == scen and (s, m) not in blind]
        svg = svgplot.lines("Hot-set precision per aggregation (%s)" % scen,
                            "aggregation", "precision", lines, 0, 1)
        if svg:
            name = os.path.join(out_dir, "tuning-%s.svg" % scen)
            with open(name, "w") as o:
                o.write(svg)
            print("  plot: %s" % name)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
