#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Turn a report stream recorded by tests/vm/kdamond_replay.sh into the C
# arrays KUnit replays (tests/kunit/replay_stream.h):
#
#   scripts/vm.sh --kernel stock --append "REPLAY_DUMP=1 REPLAY_REPORTS=3000" \
#       tests/vm/kdamond_replay.sh
#   tests/replay/mkheader.sh build/logs/kdamond_replay-stock.log \
#       > tests/kunit/replay_stream.h
#
# The input is the VM's console log (or the stream alone): the lines
# between "replay-stream-begin" and "replay-stream-end MATCH", where MATCH
# is the live kdamond's perf_stats match count for the stream. Times are
# written from the first pass's start.
set -eu
[ $# -eq 1 ] || { echo "usage: $0 LOG" >&2; exit 2; }
tr -d '\r' < "$1" | awk '
	BEGIN { np = 0; ng = 0; nrep = 0 }
	function rel(t) { return sprintf("T(%.0f)", t - t0) }
	/^replay-stream-begin/ { on = 1; next }
	/^replay-stream-end/ { match_n = $2; on = 0; done = 1; next }
	!on { next }
	$1 == "S" { ops = $2; pid = $3; sns = $4; next }
	$1 == "B" { probe[$2] = sprintf("\t\t[%d] = { %s, %s, %s, %s },", \
		$2 - 1, $5, $6, $3 ? "true" : "false", $4 ? "true" : "false"); next }
	$1 == "P" {
		if (!np) t0 = $4
		if ($7 > 0) { fr = ng; nr = $7 }
		p[np] = sprintf("\t{ %s, %s, %s, %s, %s, %d, %d, %d, ", \
			$2, rel($4), ($5 > 0 ? rel($5) : "0"), $3, $6, fr, nr, nrep)
		np++; next
	}
	$1 == "G" { g[ng++] = "\t{ " $2 "UL, " $3 "UL },"; next }
	$1 == "R" {
		r[nrep++] = sprintf("\t{ %s, %sUL, %s, %s, %s, %s, %s },", \
			rel($3), $4, $5, $2, $8, $7, $6)
		cnt[np - 1]++; next
	}
	END {
		if (!done || !np) { print "mkheader: no stream in the log" > "/dev/stderr"; exit 1 }
		print "/* SPDX-License-Identifier: GPL-2.0 */"
		print "/*"
		print " * A report stream recorded by tests/vm/kdamond_replay.sh (page faults of"
		print " * the workload, 5 ms sample intervals, 100 ms aggregations), converted by"
		print " * tests/replay/mkheader.sh: " np " passes, " ng " regions, " nrep " reports."
		print " * Generated; do not edit."
		print " */"
		print "/* a time of the stream: ns from the first pass start */"
		print "#define T(ns)\t(" t0 "ULL + (ns))"
		print "/* reports the live kdamond credited (perf_stats match) */"
		print "#define REPLAY_MATCH\t" match_n
		print ""
		print "static const struct damon_perf_replay_pass replay_passes[] = {"
		print "\t/* seq, start_ns, stale_before, len, aggr,"
		print "\t * first_region, nr_regions, first_report, nr_reports"
		print "\t */"
		for (i = 0; i < np; i++) print p[i] cnt[i] + 0 " },"
		print "};"
		print ""
		print "static const struct damon_perf_replay_region replay_regions[] = {"
		for (i = 0; i < ng; i++) print g[i]
		print "};"
		print ""
		print "static const struct damon_perf_replay_report replay_reports[] = {"
		print "\t/* time_ns, addr, period, cpu, tgid, size, probe_idx */"
		for (i = 0; i < nrep; i++) print r[i]
		print "};"
		print ""
		print "static const struct damon_perf_replay_stream replay_stream = {"
		print "\t.ops = " ops ","
		print "\t.pid = " pid ","
		print "\t.sample_ns = " sns ","
		print "\t.probes = {"
		for (k in probe) print probe[k]
		print "\t},"
		print "\t.passes = replay_passes,"
		print "\t.nr_passes = ARRAY_SIZE(replay_passes),"
		print "\t.regions = replay_regions,"
		print "\t.nr_regions = ARRAY_SIZE(replay_regions),"
		print "\t.reports = replay_reports,"
		print "\t.nr_reports = ARRAY_SIZE(replay_reports),"
		print "};"
		print ""
		print "#undef T"
	}'
