#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# Section 10 of make bench's results.txt (scripts/bench.sh): damon_perf's
# cost curves from the "curve" lines of tests/vm/bench/curves.sh and the
# "damon" lines of tests/vm/bench/damon.sh's memory-size run (each file
# without its "BENCH " prefix), with the shape each curve should have and
# whether it has it; writes one SVG per curve into OUT_DIR
# (scripts/lib/svgplot.py).
#
#   bench_curves.py OUT_DIR FILE...
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import svgplot  # noqa: E402


def read(files):
    curves, damon = {}, []
    for name in files:
        try:
            f = open(name)
        except OSError:
            continue
        with f:
            for line in f:
                w = line.split()
                if not w:
                    continue
                kv = dict(x.split("=", 1) for x in w if "=" in x)
                if w[0] == "curve" and "curve" in kv:
                    curves.setdefault(kv["curve"], []).append(kv)
                elif w[0] == "damon" and "mon" in kv:
                    damon.append(kv)
    return curves, damon


def num(kv, k):
    try:
        return float(kv[k])
    except (KeyError, ValueError):
        return 0.0


def verdict(b, lo, hi):
    if b is None:
        return "not measured"
    return "%.2f: %s" % (b, "as expected" if lo <= b <= hi else "NOT as expected")


def flat(points):
    ys = [y for _, y in points if y > 0]
    if len(ys) < 2:
        return "not measured"
    r = max(ys) / min(ys)
    return "max/min %.2f: %s" % (r, "flat" if r <= 2 else "NOT flat")


def main():
    out, files = sys.argv[1], sys.argv[2:]
    curves, damon = read(files)
    os.makedirs(out, exist_ok=True)
    print()
    print("10. Cost curves: VM (Debian 12 stock 6.1 under TCG, tests/vm/bench/curves.sh;")
    print("    memory: Debian 13's 6.12, tests/vm/bench/damon.sh) and native")
    print("    (build/bench/cost_curves over tests/kshim); b: the fitted exponent")
    print("    of y = a x^b; SVGs in %s" % out)
    specs = [
        ("rate", "x", "samples/s", "probe period",
         "kdamond CPU linear in samples where they dominate (b of the 3 fastest"
         " points 0.7..1.3), the handler's time per sample flat", (0.7, 1.3), 3),
        ("regions", "x", "regions", "regions (min = max)",
         "kdamond CPU per sample at most linear in the regions (aggregation"
         " walks them; crediting is a binary search), b <= 1.2; handler flat",
         (-0.2, 1.2), 0),
        ("targets", "x", "targets", "target processes",
         "kdamond CPU per sample at most linear in the targets (VMA updates;"
         " routing is a search), b <= 1.2; handler flat", (-0.2, 1.2), 0),
        ("cpus", "x", "vCPUs", "vCPUs",
         "kdamond CPU per sample flat in the CPUs (rings visited once a"
         " pass), b -0.5..0.5; handler flat", (-0.5, 0.5), 0),
        ("native_rate", "x", "reports/s (native)", "reports/s, 1000 regions",
         "kdamond CPU linear in the reports where they dominate (b of the 3"
         " fastest points 0.7..1.3), the ring push per report flat",
         (0.7, 1.3), 3),
        ("native_regions", "x", "regions (native)", "regions, 10^5 reports/s",
         "kdamond CPU per report at most linear in the regions, b <= 1.2;"
         " the ring push flat", (-0.2, 1.2), 0),
    ]
    for name, xk, xl, xdesc, expect, (lo, hi), top in specs:
        rows = curves.get(name, [])
        if not rows:
            print("  %s: no points" % name)
            continue
        print("  %s (x: %s). Expected: %s." % (name, xdesc, expect))
        print("  %10s %12s %14s %16s %14s" % ("x", "samples/s", "kdamond ms/s",
                                              "kdamond ns/smpl", "handler ns"))
        for r in rows:
            print("  %10s %12.0f %14.3f %16.0f %14.0f" % (
                r["x"], num(r, "samples_per_s"), num(r, "kdamond_ms_per_s"),
                num(r, "kdamond_ns_per_sample"), num(r, "handler_ns_per_sample")))
        if name in ("rate", "native_rate"):
            xs = [(num(r, "samples_per_s"), r) for r in rows]
        elif name == "cpus":
            xs = [(num(r, "cpus"), r) for r in rows]
        else:
            xs = [(num(r, xk), r) for r in rows]
        kd = [(x, num(r, "kdamond_ms_per_s")) for x, r in xs]
        kps = [(x, num(r, "kdamond_ns_per_sample")) for x, r in xs]
        hd = [(x, num(r, "handler_ns_per_sample")) for x, r in xs]
        # the rate is the parameter of the first curve only; elsewhere it
        # moves with the machine, so the cost per sample is what is fitted
        fit = sorted(kd if name in ("rate", "native_rate") else kps)
        if top:
            fit = fit[-top:]
        print("  kdamond b %s; handler %s" % (verdict(svgplot.slope(fit), lo, hi),
                                            flat(hd)))
        svg = svgplot.loglog(
            "damon_perf: cost against %s" % xl, xl, "ms/s (kdamond), ns (per sample)",
            [("kdamond ms/s", kd), ("kdamond ns/sample", kps),
             ("handler ns/sample", hd)])
        if svg:
            with open(os.path.join(out, "cost-%s.svg" % name), "w") as f:
                f.write(svg)
    # memory: damon_perf against DAMON, kdamond CPU per second
    mem = {}
    for r in damon:
        ms = num(r, "kdamond_ms")
        w = num(r, "window_ns") / 1e9
        if r.get("kdamond_ms") in (None, "-") or not w:
            continue
        mem.setdefault(r["mon"], []).append((num(r, "size"), ms / w))
    if mem:
        print("  memory (x: the mapping, MiB; small hot set). Expected: damon_perf's"
              " kdamond CPU flat (b -0.2..0.2); DAMON's at page granularity")
        print("  growing with the pages (b >= 0.5) until its kdamond has a whole"
              " CPU, at 10..1000 regions bounded by them (any b)")
        for mon, pts in sorted(mem.items()):
            pts.sort()
            b = svgplot.slope(pts)
            if mon.startswith("dp"):
                v = verdict(b, -0.2, 0.2)
            elif mon == "damon_page":
                # 2 vCPUs for the kdamond, the workload's 2 threads and
                # the rest: above 40 % of one, it has what it can get
                busy = min(y for _, y in pts) >= 400
                v = ("%.2f: saturated from %.0f MiB (its passes lengthen"
                     " instead)" % (b or 0, pts[0][0]) if busy
                     else verdict(b, 0.5, 10))
            else:
                v = "%.2f" % (b or 0)
            print("  %-12s %s; b %s" % (
                mon, "  ".join("%.0f MiB %.3f ms/s" % p for p in pts), v))
        svg = svgplot.loglog("kdamond CPU against the monitored memory", "MiB",
                             "kdamond ms/s", sorted(mem.items()))
        if svg:
            with open(os.path.join(out, "cost-memory.svg"), "w") as f:
                f.write(svg)
    if not curves and not mem:
        print("  (no curve lines: see vm-curves-*.log, vm-memory.log)")


if __name__ == "__main__":
    main()
