/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A recorded report stream and its replay through the drain (core.c):
 * shared by the replay test module (replay.c) and KUnit (drain_kunit.c).
 */
#ifndef _DAMON_PERF_REPLAY_H
#define _DAMON_PERF_REPLAY_H

#include "ctx_types.h"

/**
 * struct damon_perf_replay_pass - One drain pass of a recorded stream.
 * @seq:		its first sample interval (ctx->sample_seq).
 * @start_ns:		damon_perf_clock_ns() it began (ctx->pass_start_ns).
 * @stale_before:	the stale bound of its first drain.
 * @len:		its sample intervals.
 * @aggr:		the aggregation it belongs to, counted from 0.
 * @first_region:	index of its first region in the stream's regions.
 * @nr_regions:		its regions (the drain snapshot of the target).
 * @first_report:	index of its first report in the stream's reports.
 * @nr_reports:		the reports its drains took, in drain order.
 */
struct damon_perf_replay_pass {
	u64 seq;
	u64 start_ns;
	u64 stale_before;
	u32 len;
	u32 aggr;
	u32 first_region;
	u32 nr_regions;
	u32 first_report;
	u32 nr_reports;
};

/**
 * struct damon_perf_replay_region - A region of a pass's snapshot.
 * @start:	first address.
 * @end:	one past the last.
 */
struct damon_perf_replay_region {
	unsigned long start;
	unsigned long end;
};

/**
 * struct damon_perf_replay_report - One recorded report.
 * @time_ns:	damon_perf_clock_ns() it was taken.
 * @addr:	its address (vaddr or paddr, as the context's ops).
 * @period:	the period it carried (0: the probe's).
 * @cpu:	CPU (the ring) it came from.
 * @tgid:	thread group it came from.
 * @size:	access size.
 * @probe_idx:	probe slot, from 1.
 */
struct damon_perf_replay_report {
	u64 time_ns;
	unsigned long addr;
	u64 period;
	s32 cpu;
	s32 tgid;
	u32 size;
	u8 probe_idx;
};

/**
 * struct damon_perf_replay_probe - What crediting reads of a probe.
 * @sample_period:	its period (or frequency when @freq).
 * @weight:		credit weight.
 * @used:		the slot is in use.
 * @freq:		@sample_period is a frequency.
 */
struct damon_perf_replay_probe {
	u64 sample_period;
	u32 weight;
	bool used;
	bool freq;
};

/**
 * struct damon_perf_replay_stream - A recorded stream of one target.
 * @ops:	DAMON_PERF_OPS_VADDR or DAMON_PERF_OPS_PADDR.
 * @pid:	the target's pid (vaddr).
 * @sample_ns:	the sample interval.
 * @probes:	the context's probes.
 * @passes:	the passes, in order.
 * @nr_passes:	their number.
 * @regions:	the regions of every pass.
 * @nr_regions:	their number.
 * @reports:	the reports of every pass.
 * @nr_reports:	their number.
 */
struct damon_perf_replay_stream {
	u32 ops;
	s32 pid;
	u64 sample_ns;
	struct damon_perf_replay_probe probes[DAMON_PERF_MAX_PROBES];
	const struct damon_perf_replay_pass *passes;
	u32 nr_passes;
	const struct damon_perf_replay_region *regions;
	u32 nr_regions;
	const struct damon_perf_replay_report *reports;
	u32 nr_reports;
};

/*
 * The two ways a stream is drained: a drain at the end of every sample
 * interval (the sample_wakeups kdamond) and one per pass.
 */
#define DAMON_PERF_REPLAY_INTERVALS	0
#define DAMON_PERF_REPLAY_PASSES	1

/**
 * struct damon_perf_replay_result - A replay in one access mode.
 * @aggrs:		aggregations (and region layout changes within one).
 * @passes:		passes.
 * @intervals:		sample intervals.
 * @reports:		reports.
 * @late_first:		reports taken before the first pass.
 * @late:		reports taken before their pass began, first excluded.
 * @straddling:		reports taken after their pass ended (drained by it).
 * @credited:		reports credited, per way.
 * @stale:		reports dropped as stale, per way.
 * @nr_accesses:	sum of nr_accesses over regions and aggregations.
 * @hits:		sum of probe hits.
 * @samples:		samples kept for the split, per way.
 * @multi:		regions (per aggregation) with nr_accesses > 1.
 * @max_nr_accesses:	the largest nr_accesses.
 * @digest:		FNV-1a over every region's start, end, nr_accesses,
 *			events and probe hits and the sorted kept samples of
 *			every aggregation, per way.
 * @mismatches:		regions or samples that differ between the ways.
 * @region_mismatches:	of which regions.
 * @first:		the first difference, as text.
 */
struct damon_perf_replay_result {
	u32 aggrs;
	u32 passes;
	u64 intervals;
	u32 reports;
	u32 late_first;
	u32 late;
	u32 straddling;
	u32 credited[2];
	u32 stale[2];
	u64 nr_accesses;
	u64 hits;
	u64 samples[2];
	u32 multi;
	u32 max_nr_accesses;
	u64 digest[2];
	u32 mismatches;
	u32 region_mismatches;
	char first[160];
};

int damon_perf_replay_run(const struct damon_perf_replay_stream *st,
			  u32 mode, struct damon_perf_replay_result *res);

#endif /* _DAMON_PERF_REPLAY_H */
