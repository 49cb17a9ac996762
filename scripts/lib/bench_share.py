#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# Section 9 of make bench's results.txt (scripts/bench.sh): damon_perf's
# overflow handler against perf's own sample path, from the BENCH share
# lines of tests/vm/bench/share.sh (without their "BENCH share " prefix).
#
#   bench_share.py VM_SHARE_TXT
import sys

ROWS = [
    ("damon_perf", "overflow"),
    ("  report_access", "damon_perf_report_access"),
    ("perf", "perf_event_output_forward"),
    ("  prepare_sample", "perf_prepare_sample"),
    ("  output_begin", "perf_output_begin_forward"),
    ("  output_sample", "perf_output_sample"),
    ("  output_end", "perf_output_end"),
]


def main():
    ring, untraced, graph = {}, {}, {}
    with open(sys.argv[1]) as f:
        for line in f:
            w = line.split()
            if not w:
                continue
            kv = dict(x.split("=", 1) for x in w if "=" in x)
            # the first run with perf's own event (share.sh's run lines:
            # "run setup=S rep=N event=0|1 faults=N samples=N lost=N")
            if w[0] == "run" and kv.get("event") == "1" and not ring:
                ring = kv
            elif w[0] == "untraced":
                untraced = kv
            elif w[0] == "graph" and "fn" in kv:
                graph[kv["fn"]] = kv
    print()
    print("9. VM (Debian 12 stock 6.1 under TCG, tests/vm/bench/share.sh):")
    print("   one page fault, two overflow handlers: damon_perf's and perf's own")
    print("   (perf_event_output_forward into a 64-page ring, as perf record)")
    if ring:
        print("  perfring: %s faults, %s samples read, %s lost"
              % (ring["faults"], ring["samples"], ring["lost"]))
    if untraced:
        print("  damon_perf's handler untraced (perf_stats handler_ns / callback):"
              " %s ns over %s callbacks"
              % (untraced["ns_per_callback"], untraced["callbacks"]))
    if graph:
        print("  function_graph (the tracer's entry and exit in each):")
        print("  %-16s %-26s %8s %9s %10s"
              % ("", "function", "calls", "mean ns", "median ns"))
        for label, fn in ROWS:
            g = graph.get(fn)
            if g:
                print("  %-16s %-26s %8s %9s %10s"
                      % (label, fn, g["calls"], g["mean_ns"], g["median_ns"]))
        a, b = graph.get("overflow"), graph.get("perf_event_output_forward")
        if a and b and int(b["median_ns"]):
            print("  damon_perf's handler / perf's sample output: %.2fx (medians)"
                  % (int(a["median_ns"]) / int(b["median_ns"])))
    if not ring and not graph:
        print("  (no BENCH share lines: see vm-share.log)")


if __name__ == "__main__":
    main()
