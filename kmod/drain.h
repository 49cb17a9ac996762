/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Drain of the report rings into the regions of a context: a sorted
 * snapshot of the regions, binary search per report, sample filters and
 * crediting. Used by the kdamond only.
 */
#ifndef _DAMON_PERF_DRAIN_H
#define _DAMON_PERF_DRAIN_H

#include "ctx_types.h"
#include "stats.h"

/**
 * struct damon_perf_drain_ent - One region in the drain snapshot.
 * @t:		its target.
 * @r:		the region.
 * @start:	@r's start when the snapshot was built.
 * @end:	@r's end when the snapshot was built.
 */
struct damon_perf_drain_ent {
	struct damon_perf_target *t;
	struct damon_perf_region *r;
	unsigned long start;
	unsigned long end;
};

/**
 * struct damon_perf_drain_seg - The regions of one live target.
 * @t:		the target.
 * @first:	index of its first entry in the snapshot.
 * @nr:		number of its entries.
 * @pos:	position of @t in the context's target list (dead ones
 *		included), the target part of its sample keys.
 */
struct damon_perf_drain_seg {
	struct damon_perf_target *t;
	unsigned int first;
	unsigned int nr;
	unsigned int pos;
};

/*
 * Samples kept for the split (samples split mode): at most this many per
 * aggregation and context (16 bytes each), the first buffer holding
 * DAMON_PERF_SPLIT_SAMPLES_MIN. Beyond, a uniform random subset is kept.
 */
#define DAMON_PERF_MAX_SPLIT_SAMPLES	(1U << 16)
#define DAMON_PERF_SPLIT_SAMPLES_MIN	(1U << 10)

/**
 * struct damon_perf_drain - State of one drain pass.
 * @ctx:		the context drained.
 * @ents:		sorted region snapshot (ctx->drain_snap).
 * @nr_ents:		entries in @ents.
 * @segs:		live targets and their entries.
 * @nr_segs:		entries in @segs.
 * @stale_before:	reports with an earlier time_ns are stale.
 * @seq:		first sample interval of the pass.
 * @pass_len:		sample intervals of the pass (at least 1).
 * @pass_start_ns:	damon_perf_clock_ns() the pass began.
 * @sample_ns:		length of a sample interval.
 * @mode:		access mode of this pass.
 * @keep:		keep the sample keys (samples split mode).
 * @total:		reports seen.
 * @matched:		reports credited to a region.
 * @why:		why the last report damon_perf_drain_report() refused
 *			was not credited.
 */
struct damon_perf_drain {
	struct damon_perf_ctx *ctx;
	struct damon_perf_drain_ent *ents;
	unsigned int nr_ents;
	struct damon_perf_drain_seg segs[DAMON_PERF_MAX_TARGETS];
	unsigned int nr_segs;
	u64 stale_before;
	u64 seq;
	unsigned int pass_len;
	u64 pass_start_ns;
	u64 sample_ns;
	u32 mode;
	bool keep;
	unsigned int total;
	unsigned int matched;
	enum damon_perf_miss_reason why;
};

#ifdef DAMON_PERF_TEST_EXPORTS
/*
 * Test builds only (scripts/kbuild.sh): when set, damon_perf_drain_rings()
 * calls it with every report it takes from the rings, before crediting
 * it, under rcu_read_lock() (it must not sleep). tests/replay records the
 * stream with it. Plain builds have neither the hook nor its test.
 */
typedef void (*damon_perf_drain_hook_fn)(const struct damon_perf_drain *d,
					 const struct damon_perf_report *r);
extern damon_perf_drain_hook_fn __rcu damon_perf_drain_record_hook;
/*
 * Test builds only: when set, damon_perf_drain_rings() calls it with every
 * report it took from the rings once the report is consumed, @credited
 * true when a region was credited, else @why says why not (perf_stats
 * miss_* and stale: the same count). Under rcu_read_lock(). The test PMUs
 * account each report they caused with it (tests/testpmu).
 */
typedef void (*damon_perf_drain_outcome_fn)(const struct damon_perf_report *r,
					    bool credited,
					    enum damon_perf_miss_reason why);
extern damon_perf_drain_outcome_fn __rcu damon_perf_drain_outcome_hook;
#endif

int damon_perf_drain_prepare(struct damon_perf_ctx *ctx,
			     struct damon_perf_drain *d);
bool damon_perf_drain_report(struct damon_perf_drain *d,
			     const struct damon_perf_report *report);
unsigned int damon_perf_drain_rings(struct damon_perf_ctx *ctx);
void damon_perf_drain_free(struct damon_perf_ctx *ctx);
void damon_perf_drain_samples_reset(struct damon_perf_ctx *ctx);
void damon_perf_drain_samples_presize(struct damon_perf_ctx *ctx,
				      unsigned int ring_size);
bool damon_perf_filters_reject(const struct damon_perf_filter *filters,
			       unsigned int nr,
			       const struct damon_perf_report *report);

#endif /* _DAMON_PERF_DRAIN_H */
