/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Region lists of monitoring targets and DAMON's adaptive region
 * adjustment: initial regions, ageing, merging, splitting at random points
 * (regions.c), the refresh of virtual address ranges from the VMAs
 * (vaddr.c) and the cuts where the sample density changes (split.c).
 *
 * Everything here runs in process context. Before a context starts, the
 * caller holds damon_perf_lock; while it runs, only its kdamond touches the
 * region lists.
 */
#ifndef _DAMON_PERF_REGIONS_H
#define _DAMON_PERF_REGIONS_H

#include "ctx_types.h"

/* Smallest region, and the alignment of every region boundary. */
#define DAMON_PERF_MIN_REGION	PAGE_SIZE

/*
 * Most merge passes of one aggregation: the threshold doubles from 1 at
 * the least, so it passes any u32 nr_accesses within 34 passes.
 */
#define DAMON_PERF_MERGE_MAX_PASSES	40

/* Fixed point of &damon_perf_floor.avg: 1/16 sample. */
#define DAMON_PERF_FLOOR_AVG_SCALE	16

/**
 * struct damon_perf_range - An address range [@start, @end).
 * @start:	first address.
 * @end:	one past the last address.
 */
struct damon_perf_range {
	unsigned long start;
	unsigned long end;
};

struct damon_perf_region *damon_perf_region_new(unsigned long start,
						unsigned long end);
void damon_perf_region_add(struct damon_perf_target *t,
			   struct damon_perf_region *r);
void damon_perf_region_destroy(struct damon_perf_target *t,
			       struct damon_perf_region *r);
void damon_perf_regions_free(struct damon_perf_target *t);
struct damon_perf_region *
damon_perf_region_split_at(struct damon_perf_target *t,
			   struct damon_perf_region *r, unsigned long at);

int damon_perf_regions_split_evenly(struct damon_perf_target *t,
				    unsigned long start, unsigned long end,
				    unsigned int nr);
int damon_perf_regions_init(struct damon_perf_ctx *ctx,
			    struct damon_perf_target *t);
int damon_perf_regions_set_ranges(struct damon_perf_target *t,
				  const struct damon_perf_range *ranges,
				  unsigned int nr);
int damon_perf_regions_update(struct damon_perf_ctx *ctx,
			      struct damon_perf_target *t);

unsigned long damon_perf_regions_size(struct damon_perf_target *t);
unsigned int damon_perf_regions_max_nr_accesses(struct damon_perf_target *t);
void damon_perf_regions_age(struct damon_perf_target *t, unsigned int thres);
void damon_perf_regions_merge(struct damon_perf_target *t, unsigned int thres,
			      unsigned long sz_limit);
void damon_perf_regions_reset(struct damon_perf_target *t);
void damon_perf_regions_split(struct damon_perf_target *t,
			      unsigned int nr_subs);
unsigned int
damon_perf_regions_adjust_merge(struct damon_perf_target *t,
				const struct damon_perf_attrs *attrs,
				unsigned int max_nr_accesses);
void damon_perf_regions_adjust_split(struct damon_perf_target *t,
				     const struct damon_perf_attrs *attrs);
void damon_perf_regions_merge_ctx(struct damon_perf_ctx *ctx,
				  unsigned int max_nr_accesses);
void damon_perf_regions_split_ctx(struct damon_perf_ctx *ctx);

/* the sample floor of the aggregations */
u64 damon_perf_regions_nr_samples(struct damon_perf_ctx *ctx);
u32 damon_perf_regions_nr_hot(struct damon_perf_ctx *ctx);
u64 damon_perf_floor_value(const struct damon_perf_floor *f);
u32 damon_perf_floor_judge(struct damon_perf_floor *f, u64 nr_samples,
			   u32 max_carried);
void damon_perf_floor_published(struct damon_perf_floor *f, u64 nr_samples,
				u32 nr_hot);

/* vaddr.c: the VMA ranges of a process */
int damon_perf_regions_vma_ranges(struct mm_struct *mm,
				  struct damon_perf_range ranges[3]);
int damon_perf_regions_target_ranges(struct damon_perf_target *t,
				     struct damon_perf_range ranges[3]);

/* split.c: the samples split mode */
unsigned int
damon_perf_regions_split_samples(struct damon_perf_target *t,
				 const struct damon_perf_attrs *attrs,
				 const u32 *weights,
				 struct damon_perf_sample *smp,
				 u32 nr);
void damon_perf_regions_cut_ctx(struct damon_perf_ctx *ctx);

#endif /* _DAMON_PERF_REGIONS_H */
