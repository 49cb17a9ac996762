/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Samples kept for the samples split mode and the pure test of where their
 * density changes (density.c). Builds in the kernel and in userspace
 * through the portability shim of the pure code.
 */
#ifndef _DAMON_PERF_DENSITY_H
#define _DAMON_PERF_DENSITY_H

#include "portable_types.h"

#include <linux/damon_perf.h>	/* uapi: DAMON_PERF_SAMPLED_RUNS_MAX */

#ifndef __KERNEL__
#define PAGE_SHIFT	12
#define BITS_PER_LONG	(__SIZEOF_LONG__ * 8)
#else
#include <asm/page.h>
#include <linux/bitops.h>
#endif

/**
 * struct damon_perf_sample - One sample kept for the split.
 * @key:	target position and page (damon_perf_sample_key()).
 * @tag:	sample interval (low 30 bits of sample_seq) << 2 | probe slot.
 */
struct damon_perf_sample {
	u64 key;
	u32 tag;
};

/*
 * A sample key: the position of the target in the context's list above
 * the page number, so keys sort by target, then address.
 */
#define DAMON_PERF_SAMPLE_POS_SHIFT	(BITS_PER_LONG - PAGE_SHIFT)

static inline u64 damon_perf_sample_key(unsigned int pos, unsigned long addr)
{
	return ((u64)pos << DAMON_PERF_SAMPLE_POS_SHIFT) | (addr >> PAGE_SHIFT);
}

static inline unsigned int damon_perf_sample_pos(u64 key)
{
	return (unsigned int)(key >> DAMON_PERF_SAMPLE_POS_SHIFT);
}

static inline unsigned long damon_perf_sample_page(u64 key)
{
	return (unsigned long)(key &
			       ((1ULL << DAMON_PERF_SAMPLE_POS_SHIFT) - 1));
}

/* The tag of a sample: its sample interval and probe slot (0 .. 2). */
static inline u32 damon_perf_sample_tag(u64 seq, unsigned int slot)
{
	return (u32)(seq & ((1U << 30) - 1)) << 2 | slot;
}

static inline unsigned int damon_perf_sample_slot(u32 tag)
{
	return tag & 3;
}

static inline u32 damon_perf_sample_interval(u32 tag)
{
	return tag >> 2;
}

/*
 * Fewer samples in a region are no evidence of a density change, unless
 * they sit on at most DAMON_PERF_SPAN_PAGES pages where uniform samples
 * would all fall with a chance below 1/DAMON_PERF_SPAN_UNLIKELY
 * (density.c).
 */
#define DAMON_PERF_SPLIT_MIN_SAMPLES	8
#define DAMON_PERF_SPAN_PAGES		4
#define DAMON_PERF_SPAN_UNLIKELY	1000

/**
 * struct damon_perf_sampled - The pages a region's samples fell on.
 * @nr:		runs in @run; 0: no sample.
 * @run:	runs of pages, [start, end) in address order, neither
 *		overlapping nor touching. No page outside them had a sample;
 *		a page inside one may have had none: a sample that would make
 *		one run more than DAMON_PERF_SAMPLED_RUNS_MAX joins the two
 *		runs with the smallest gap between them.
 *
 * A tiering action takes the pages with samples rather than the whole
 * region, and a region few samples made hot is wide: one span from the
 * first sample to the last takes every page between two samples far
 * apart (a thread's stack and a hot range) along.
 */
struct damon_perf_sampled {
	unsigned int nr;
	struct {
		unsigned long start;
		unsigned long end;
	} run[DAMON_PERF_SAMPLED_RUNS_MAX];
};

#ifdef __cplusplus
extern "C" {
#endif

u64 damon_perf_density_span_chance(unsigned long w, unsigned long len, u32 n,
				   bool placed);
bool damon_perf_density_cut(const struct damon_perf_sample *smp, u32 lo,
			    u32 hi, unsigned long first, unsigned long end,
			    unsigned long *page, u32 *mid);
void damon_perf_sampled_add(struct damon_perf_sampled *s, unsigned long start,
			    unsigned long end);
void damon_perf_sampled_clip(struct damon_perf_sampled *s, unsigned long start,
			     unsigned long end);
void damon_perf_sampled_join(struct damon_perf_sampled *l,
			     const struct damon_perf_sampled *r);

#ifdef __cplusplus
}
#endif

#endif /* _DAMON_PERF_DENSITY_H */
