// SPDX-License-Identifier: GPL-2.0
/*
 * Regions and DAMON's adaptive region adjustment: the region lists.
 *
 * A target's regions are sorted by address and do not overlap; they cover
 * the target: its physical range (paddr), or the three big chunks of its
 * mapped address space (vaddr: everything between the lowest and the
 * highest mapping minus the two largest unmapped gaps, vaddr.c). Every
 * boundary is DAMON_PERF_MIN_REGION aligned.
 *
 * At each aggregation the kdamond ages the regions, merges neighbours whose
 * access counts are close, and splits them, so regions follow the access
 * pattern at a bounded cost. Bounds hold per target. Two split modes:
 *
 * - samples (default): each region is cut where the density of the
 *   aggregation's samples changes, before the merge (split.c); a region
 *   whose few samples sit on one to four pages (its hint) merges with no
 *   other region with accesses.
 * - random: DAMON's split at random points, after the counters were
 *   reset, while the target has at most half of max_nr_regions (here).
 *
 * This file holds the list operations, the initial regions, fitting them
 * to new ranges, ageing, merging and the random split.
 */
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "drain.h"
#include "regions.h"

/**
 * damon_perf_region_new() - Allocate a region with zero counters.
 * @start:	first address.
 * @end:	one past the last address.
 *
 * Context: process context.
 * Return: the region, or NULL.
 */
struct damon_perf_region *damon_perf_region_new(unsigned long start,
						unsigned long end)
{
	struct damon_perf_region *r;

	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return NULL;
	r->start = start;
	r->end = end;
	INIT_LIST_HEAD(&r->list);
	return r;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_region_new);

/**
 * damon_perf_region_add() - Append a region (highest address) to a target.
 * @t:		the target.
 * @r:		the region, above every region of @t.
 *
 * Context: process context, target owned by the caller.
 */
void damon_perf_region_add(struct damon_perf_target *t,
			   struct damon_perf_region *r)
{
	list_add_tail(&r->list, &t->regions);
	/* netlink reads nr_regions of a running context: READ_ONCE */
	WRITE_ONCE(t->nr_regions, t->nr_regions + 1);
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_region_add);

/**
 * damon_perf_region_destroy() - Unlink and free a region.
 * @t:		its target.
 * @r:		the region.
 *
 * Context: process context, target owned by the caller.
 */
void damon_perf_region_destroy(struct damon_perf_target *t,
			       struct damon_perf_region *r)
{
	list_del(&r->list);
	WRITE_ONCE(t->nr_regions, t->nr_regions - 1);
	kfree(r);
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_region_destroy);

/**
 * damon_perf_regions_free() - Free every region of a target.
 * @t:		the target.
 *
 * Context: process context, target owned by the caller.
 */
void damon_perf_regions_free(struct damon_perf_target *t)
{
	struct damon_perf_region *r, *next;

	damon_perf_for_each_region_safe(r, next, t) {
		damon_perf_region_destroy(t, r);
		/* 160000 frees under KASAN held a CPU 7 s: may sleep */
		cond_resched();
	}
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_regions_free);

static unsigned long sz(const struct damon_perf_region *r)
{
	return r->end - r->start;
}

static unsigned int diff(unsigned int a, unsigned int b)
{
	return a > b ? a - b : b - a;
}

/**
 * damon_perf_regions_split_evenly() - Append [start, end) as equal regions.
 * @t:		the target, whose regions all lie below @start.
 * @start:	first address, aligned.
 * @end:	one past the last address, aligned, above @start.
 * @nr:		number of regions wanted; fewer when the range is too small.
 *
 * The last region takes the remainder of the division.
 *
 * Context: process context, target owned by the caller.
 * Return: 0, or -ENOMEM (regions added so far stay).
 */
int damon_perf_regions_split_evenly(struct damon_perf_target *t,
				    unsigned long start, unsigned long end,
				    unsigned int nr)
{
	struct damon_perf_region *r;
	unsigned long len, piece, pos;
	unsigned int i;

	len = end - start;
	nr = clamp_t(unsigned long, nr, 1, len / DAMON_PERF_MIN_REGION);
	piece = ALIGN_DOWN(len / nr, DAMON_PERF_MIN_REGION);
	for (i = 0, pos = start; i < nr; i++, pos += piece) {
		r = damon_perf_region_new(pos, i == nr - 1 ? end : pos + piece);
		if (!r)
			return -ENOMEM;
		damon_perf_region_add(t, r);
		cond_resched();
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_regions_split_evenly);

/* Keep the hint of @r (split.c) only while its pages lie inside @r. */
static void fit_hint(struct damon_perf_region *r)
{
	unsigned long first = r->start >> PAGE_SHIFT;
	unsigned long end = r->end >> PAGE_SHIFT;
	struct damon_perf_hint *h = &r->hint;

	if (h->nr &&
	    (h->page < first || h->page >= end || h->pages > end - h->page))
		h->nr = 0;
}

/* Clip the sampled pages of @r (ctx_types.h) to @r. */
static void fit_sampled(struct damon_perf_region *r)
{
	damon_perf_sampled_clip(&r->sampled, r->start, r->end);
}

/**
 * damon_perf_region_split_at() - Split a region in two at an address.
 * @t:		its target.
 * @r:		the region.
 * @at:		the address, aligned, with @r->start < @at < @r->end.
 *
 * The new right part copies the access counters and the age of @r (not
 * its probe hits or events); the part that holds the pages of the hint of
 * @r keeps it; each part keeps the span of the samples of @r within it.
 *
 * Context: target owned by the caller.
 * Return: the new right part, or NULL when out of memory.
 */
struct damon_perf_region *
damon_perf_region_split_at(struct damon_perf_target *t,
			   struct damon_perf_region *r, unsigned long at)
{
	struct damon_perf_region *n;

	n = damon_perf_region_new(at, r->end);
	if (!n)
		return NULL;
	n->nr_accesses = r->nr_accesses;
	n->last_nr_accesses = r->last_nr_accesses;
	n->age = r->age;
	n->pass_seq = r->pass_seq;
	n->pass_seen = r->pass_seen;
	n->hint = r->hint;
	n->sampled = r->sampled;
	r->end = at;
	fit_hint(r);
	fit_hint(n);
	fit_sampled(r);
	fit_sampled(n);
	list_add(&n->list, &r->list);
	WRITE_ONCE(t->nr_regions, t->nr_regions + 1);
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_region_split_at);

/* Split the largest regions in halves until @t has @min regions. */
static int fill_to_min(struct damon_perf_target *t, unsigned int min)
{
	struct damon_perf_region *r, *big;
	unsigned long at;

	while (t->nr_regions < min) {
		big = NULL;
		damon_perf_for_each_region(r, t)
			if (!big || sz(r) > sz(big))
				big = r;
		if (!big || sz(big) < 2 * DAMON_PERF_MIN_REGION)
			return 0;
		at = big->start +
		     ALIGN_DOWN(sz(big) / 2, DAMON_PERF_MIN_REGION);
		if (!damon_perf_region_split_at(t, big, at))
			return -ENOMEM;
		cond_resched();
	}
	return 0;
}

static unsigned long ranges_size(const struct damon_perf_range *ranges,
				 unsigned int nr)
{
	unsigned long total = 0;
	unsigned int i;

	for (i = 0; i < nr; i++)
		total += ranges[i].end - ranges[i].start;
	return total;
}

/* Cover @ranges with about @min regions of similar size. */
static int init_ranges(struct damon_perf_target *t,
		       const struct damon_perf_range *ranges, unsigned int nr,
		       unsigned int min)
{
	unsigned long piece;
	unsigned int i;
	int ret;

	piece = max(ranges_size(ranges, nr) / min, DAMON_PERF_MIN_REGION);
	for (i = 0; i < nr; i++) {
		ret = damon_perf_regions_split_evenly(t, ranges[i].start,
						      ranges[i].end,
				(ranges[i].end - ranges[i].start) / piece);
		if (ret)
			return ret;
	}
	return fill_to_min(t, min);
}

/**
 * damon_perf_regions_init() - Build the initial regions of a target.
 * @ctx:	its context (for min_nr_regions and the address space).
 * @t:		the target, without regions.
 *
 * Context: process context, damon_perf_lock held, @ctx not running.
 * Return: 0, -ESRCH when the process of a vaddr target is gone (or has no
 * mapping), -ENOMEM.
 */
int damon_perf_regions_init(struct damon_perf_ctx *ctx,
			    struct damon_perf_target *t)
{
	struct damon_perf_range ranges[3];
	int n, ret;

	if (ctx->ops == DAMON_PERF_OPS_PADDR) {
		ranges[0].start = t->start;
		ranges[0].end = t->end;
		n = 1;
	} else {
		n = damon_perf_regions_target_ranges(t, ranges);
		if (n < 0)
			return n;
	}
	ret = init_ranges(t, ranges, n, ctx->attrs.min_nr_regions);
	if (ret)
		damon_perf_regions_free(t);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_regions_init);

static bool intersects(const struct damon_perf_region *r,
		       const struct damon_perf_range *range)
{
	return r->start < range->end && range->start < r->end;
}

/**
 * damon_perf_regions_set_ranges() - Fit the regions to new ranges.
 * @t:		the target.
 * @ranges:	sorted, non-overlapping, aligned ranges.
 * @nr:		their number.
 *
 * DAMON's damon_set_regions(): regions outside every range go, regions
 * that cross a range edge are cut to it, the first and last region of a
 * range are stretched to its edges and holes inside a range are closed by
 * stretching the region above; a range without regions gets one region.
 * Counters, ages, hints (split.c) and the span of the samples of the
 * surviving parts are kept (the span within the part).
 *
 * Context: process context, target owned by the caller.
 * Return: 0, or -ENOMEM with the regions unchanged.
 */
int damon_perf_regions_set_ranges(struct damon_perf_target *t,
				  const struct damon_perf_range *ranges,
				  unsigned int nr)
{
	struct damon_perf_target tmp = {};
	struct damon_perf_region *r, *n, *last;
	unsigned long pos;
	unsigned int i;

	INIT_LIST_HEAD(&tmp.regions);
	for (i = 0; i < nr; i++) {
		const struct damon_perf_range *range = &ranges[i];

		pos = range->start;
		last = NULL;
		damon_perf_for_each_region(r, t) {
			if (!intersects(r, range))
				continue;
			n = damon_perf_region_new(pos, min(r->end, range->end));
			if (!n)
				goto nomem;
			n->nr_accesses = r->nr_accesses;
			n->last_nr_accesses = r->last_nr_accesses;
			n->age = r->age;
			n->pass_seq = r->pass_seq;
			n->pass_seen = r->pass_seen;
			memcpy(n->probe_hits, r->probe_hits,
			       sizeof(n->probe_hits));
			n->events = r->events;
			n->hint = r->hint;
			fit_hint(n);
			n->sampled = r->sampled;
			fit_sampled(n);
			damon_perf_region_add(&tmp, n);
			pos = n->end;
			last = n;
		}
		if (!last) {
			n = damon_perf_region_new(range->start, range->end);
			if (!n)
				goto nomem;
			damon_perf_region_add(&tmp, n);
		} else {
			last->end = range->end;
		}
	}
	damon_perf_regions_free(t);
	list_splice(&tmp.regions, &t->regions);
	WRITE_ONCE(t->nr_regions, tmp.nr_regions);
	return 0;

nomem:
	damon_perf_regions_free(&tmp);
	return -ENOMEM;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_regions_set_ranges);

/**
 * damon_perf_regions_update() - Refresh a vaddr target from its VMAs.
 * @ctx:	the context.
 * @t:		the target.
 *
 * Paddr targets keep their range.
 *
 * Context: the kdamond of @ctx.
 * Return: 0, -ESRCH when the process is gone, -ENOMEM.
 */
int damon_perf_regions_update(struct damon_perf_ctx *ctx,
			      struct damon_perf_target *t)
{
	struct damon_perf_range ranges[3];
	int n;

	if (ctx->ops == DAMON_PERF_OPS_PADDR)
		return 0;
	n = damon_perf_regions_target_ranges(t, ranges);
	if (n < 0)
		return n;
	return damon_perf_regions_set_ranges(t, ranges, n);
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_regions_update);

/**
 * damon_perf_regions_size() - Bytes covered by a target's regions.
 * @t:		the target.
 *
 * Context: target owned by the caller.
 * Return: the sum of region sizes.
 */
unsigned long damon_perf_regions_size(struct damon_perf_target *t)
{
	struct damon_perf_region *r;
	unsigned long total = 0;

	damon_perf_for_each_region(r, t)
		total += sz(r);
	return total;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_regions_size);

/**
 * damon_perf_regions_max_nr_accesses() - Highest nr_accesses of a target.
 * @t:		the target.
 *
 * Context: target owned by the caller.
 * Return: the maximum, 0 without regions.
 */
unsigned int damon_perf_regions_max_nr_accesses(struct damon_perf_target *t)
{
	struct damon_perf_region *r;
	unsigned int max_nr = 0;

	damon_perf_for_each_region(r, t)
		max_nr = max(max_nr, r->nr_accesses);
	return max_nr;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_regions_max_nr_accesses);

/**
 * damon_perf_regions_age() - Age the regions after an aggregation.
 * @t:		the target.
 * @thres:	largest change of nr_accesses that keeps the age.
 *
 * A region whose nr_accesses moved by more than @thres since the previous
 * aggregation restarts at age 0; the others grow one older.
 *
 * Context: target owned by the caller.
 */
void damon_perf_regions_age(struct damon_perf_target *t, unsigned int thres)
{
	struct damon_perf_region *r;

	damon_perf_for_each_region(r, t) {
		unsigned int d = diff(r->nr_accesses, r->last_nr_accesses);

		if (d > thres)
			r->age = 0;
		else if (r->age < UINT_MAX)
			r->age++;
	}
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_regions_age);

/*
 * (a sa + b sb) / (sa + sb), rounded down, without the sum: a u32 count
 * or age times a size wraps u64 (age 2^24 over 1 TiB is 2^64). The
 * average is the smaller value plus the difference's share, exactly:
 * a sa + b sb = b (sa + sb) + (a - b) sa for a >= b, and alike for b > a.
 * mul_u64_u64_div_u64() is exact whenever the product fits in 64 bits
 * (every case the plain sum was right for) and where the architecture
 * divides 128 bits (x86-64); elsewhere it rounds the huge products.
 */
static unsigned int size_avg(unsigned int a, unsigned long sa, unsigned int b,
			     unsigned long sb)
{
	u64 total = (u64)sa + sb;

	if (a >= b)
		return b + (unsigned int)mul_u64_u64_div_u64(a - b, sa, total);
	return a + (unsigned int)mul_u64_u64_div_u64(b - a, sb, total);
}

/* Merge @r into its left neighbour @l; counters become size weighted. */
static void merge_two(struct damon_perf_target *t, struct damon_perf_region *l,
		      struct damon_perf_region *r)
{
	unsigned long sl = sz(l), sr = sz(r);
	int i;

	l->nr_accesses = size_avg(l->nr_accesses, sl, r->nr_accesses, sr);
	l->last_nr_accesses = size_avg(l->last_nr_accesses, sl,
				       r->last_nr_accesses, sr);
	l->age = size_avg(l->age, sl, r->age, sr);
	for (i = 0; i < DAMON_PERF_MAX_PROBES; i++)
		l->probe_hits[i] += r->probe_hits[i];
	if (check_add_overflow(l->events, r->events, &l->events))
		l->events = U64_MAX;
	/* the intervals either part was credited in */
	if (l->pass_seq == r->pass_seq) {
		l->pass_seen |= r->pass_seen;
	} else if (l->pass_seq < r->pass_seq) {
		l->pass_seq = r->pass_seq;
		l->pass_seen = r->pass_seen;
	}
	/* the stronger evidence of few samples on one to four pages */
	if (r->hint.nr && (!l->hint.nr || r->hint.chance < l->hint.chance))
		l->hint = r->hint;
	/* the sampled pages of both */
	damon_perf_sampled_join(&l->sampled, &r->sampled);
	l->end = r->end;
	damon_perf_region_destroy(t, r);
}

/*
 * May @l and @r merge in a pass that keeps edges? Not an accessed region
 * with an unaccessed one, nor an accessed one whose few samples sit on
 * one to four of its pages (its hint, split.c) with another accessed one:
 * the sum would spread them over both.
 */
static bool edges_allow(const struct damon_perf_region *l,
			const struct damon_perf_region *r)
{
	if (!l->nr_accesses != !r->nr_accesses)
		return false;
	return !l->nr_accesses || (!l->hint.nr && !r->hint.nr);
}

/*
 * One merge pass; @keep_edges: never join regions edges_allow() keeps
 * apart.
 */
static void merge_pass(struct damon_perf_target *t, unsigned int thres,
		       unsigned long sz_limit, bool keep_edges)
{
	struct damon_perf_region *r, *next, *prev = NULL;

	damon_perf_for_each_region_safe(r, next, t) {
		if (prev && prev->end == r->start &&
		    diff(prev->nr_accesses, r->nr_accesses) <= thres &&
		    (!keep_edges || edges_allow(prev, r)) &&
		    sz(prev) + sz(r) <= sz_limit)
			merge_two(t, prev, r);
		else
			prev = r;
	}
}

/**
 * damon_perf_regions_merge() - Merge adjacent regions of similar access.
 * @t:		the target.
 * @thres:	largest nr_accesses difference of regions to merge.
 * @sz_limit:	largest size of a merged region.
 *
 * Context: target owned by the caller.
 */
void damon_perf_regions_merge(struct damon_perf_target *t, unsigned int thres,
			      unsigned long sz_limit)
{
	merge_pass(t, thres, sz_limit, false);
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_regions_merge);

/**
 * damon_perf_regions_reset() - Start a new aggregation interval.
 * @t:		the target.
 *
 * nr_accesses moves to last_nr_accesses; counters and the span of the
 * samples restart at zero.
 *
 * Context: target owned by the caller.
 */
void damon_perf_regions_reset(struct damon_perf_target *t)
{
	struct damon_perf_region *r;

	damon_perf_for_each_region(r, t) {
		r->last_nr_accesses = r->nr_accesses;
		r->nr_accesses = 0;
		memset(r->probe_hits, 0, sizeof(r->probe_hits));
		r->events = 0;
		r->sampled.nr = 0;
	}
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_regions_reset);

/**
 * damon_perf_regions_split() - Split every region at random points.
 * @t:		the target.
 * @nr_subs:	pieces per region (2 or 3).
 *
 * Each cut leaves a piece of 10% to 90% of the remaining region, aligned;
 * regions too small to cut stay whole. An allocation failure ends the
 * split early (the list stays valid).
 *
 * Context: target owned by the caller.
 */
void damon_perf_regions_split(struct damon_perf_target *t,
			      unsigned int nr_subs)
{
	struct damon_perf_region *r, *next;
	unsigned long left, piece;
	unsigned int i;

	damon_perf_for_each_region_safe(r, next, t) {
		left = sz(r);
		for (i = 0; i < nr_subs - 1 &&
		     left > 2 * DAMON_PERF_MIN_REGION; i++) {
			piece = ALIGN_DOWN(left / 10 *
					   (1 + get_random_u32_below(9)),
					   DAMON_PERF_MIN_REGION);
			if (!piece || piece >= left)
				continue;
			if (!damon_perf_region_split_at(t, r, r->start + piece))
				return;
			/* keep cutting the left piece, as DAMON does */
			left = piece;
		}
	}
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_regions_split);

/**
 * damon_perf_regions_adjust_merge() - Age and merge after an aggregation.
 * @t:			the target.
 * @attrs:		the attributes (min/max_nr_regions).
 * @max_nr_accesses:	highest nr_accesses in the context.
 *
 * The merge threshold is a tenth of @max_nr_accesses; in samples split
 * mode the first pass keeps the edges between regions with and without
 * accesses (a range a tenth as hot as the hottest would otherwise vanish
 * into its cold neighbours, its nr_accesses averaged to zero), and only a
 * target still above max_nr_regions merges across them. Regions grow to at
 * most a min_nr_regions-th of the target, so at least min_nr_regions stay
 * when the target is large enough (halving the largest regions if rounding
 * left fewer). The threshold doubles until the target is within
 * max_nr_regions, or until a pass has run with a threshold that every pair
 * of regions meets (above @max_nr_accesses): more passes could not merge
 * more, since only the size limit and gaps between regions are left to
 * stop them. The threshold is 64-bit, so it cannot wrap, and the passes
 * are bounded by DAMON_PERF_MERGE_MAX_PASSES whatever the counts.
 *
 * Context: target owned by the caller.
 * Return: the number of merge passes run (for tests).
 */
unsigned int
damon_perf_regions_adjust_merge(struct damon_perf_target *t,
				const struct damon_perf_attrs *attrs,
				unsigned int max_nr_accesses)
{
	bool keep_edges = attrs->split == DAMON_PERF_SPLIT_SAMPLES;
	u64 thres = max_nr_accesses / 10;
	unsigned long sz_limit;
	unsigned int passes = 0;

	damon_perf_regions_age(t, thres);
	sz_limit = max(damon_perf_regions_size(t) / attrs->min_nr_regions,
		       DAMON_PERF_MIN_REGION);
	for (;;) {
		merge_pass(t, min_t(u64, thres, UINT_MAX), sz_limit,
			   keep_edges);
		passes++;
		if (t->nr_regions <= attrs->max_nr_regions ||
		    thres > max_nr_accesses ||
		    passes >= DAMON_PERF_MERGE_MAX_PASSES)
			break;
		/* above max_nr_regions: edges merge too, as in DAMON */
		if (keep_edges)
			keep_edges = false;
		else
			thres = thres ? thres * 2 : 1;
	}
	/* sizes round down, and vaddr ranges may shrink: restore the floor */
	fill_to_min(t, attrs->min_nr_regions);
	return passes;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_regions_adjust_merge);

/**
 * damon_perf_regions_adjust_split() - Split after an aggregation.
 * @t:		the target.
 * @attrs:	the attributes (max_nr_regions).
 *
 * Splits in two while the target holds at most half of max_nr_regions, in
 * three when the count did not move since the previous split and stays
 * under a third, so the result never exceeds max_nr_regions.
 *
 * Context: target owned by the caller.
 */
void damon_perf_regions_adjust_split(struct damon_perf_target *t,
				     const struct damon_perf_attrs *attrs)
{
	unsigned int nr_subs = 2;

	if (t->nr_regions > attrs->max_nr_regions / 2)
		return;
	if (t->nr_regions == t->last_nr_regions &&
	    t->nr_regions < attrs->max_nr_regions / 3)
		nr_subs = 3;
	damon_perf_regions_split(t, nr_subs);
	t->last_nr_regions = t->nr_regions;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_regions_adjust_split);

/**
 * damon_perf_regions_merge_ctx() - Age and merge the regions of a context.
 * @ctx:		the context.
 * @max_nr_accesses:	highest nr_accesses in the context.
 *
 * damon_perf_regions_adjust_merge() per live target, except in samples
 * split mode for a target without a single sample in this aggregation:
 * no sample says nothing about where its hot set is, so its regions only
 * age (with the merge's threshold) and keep their boundaries, instead of
 * all merging because every count is zero.
 *
 * A scheduling point follows each target, as in every loop of the
 * aggregation over all the targets: on a kernel without preemption, 16
 * targets of 10000 regions each (the largest context) walked by several
 * merge passes, the cut, the snapshot and the reset held a CPU long
 * enough for RCU stall reports under a debug kernel on a loaded host.
 *
 * Context: the kdamond of @ctx, or a caller owning a stopped @ctx; may
 * sleep.
 */
void damon_perf_regions_merge_ctx(struct damon_perf_ctx *ctx,
				  unsigned int max_nr_accesses)
{
	bool samples = ctx->attrs.split == DAMON_PERF_SPLIT_SAMPLES;
	struct damon_perf_target *t;
	unsigned int pos = 0;

	damon_perf_for_each_target(t, ctx) {
		bool seen = ctx->samples.target_seen[pos++];

		if (t->dead)
			continue;
		if (samples && !seen)
			damon_perf_regions_age(t, max_nr_accesses / 10);
		else
			damon_perf_regions_adjust_merge(t, &ctx->attrs,
							max_nr_accesses);
		cond_resched();
	}
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_regions_merge_ctx);

/**
 * damon_perf_regions_split_ctx() - Split for the next aggregation.
 * @ctx:	the context, after its counters were reset.
 *
 * Random mode: damon_perf_regions_adjust_split() per live target. Then the
 * kept samples are dropped for the next aggregation (both modes).
 *
 * Context: the kdamond of @ctx, or a caller owning a stopped @ctx.
 */
void damon_perf_regions_split_ctx(struct damon_perf_ctx *ctx)
{
	struct damon_perf_target *t;

	if (ctx->attrs.split == DAMON_PERF_SPLIT_RANDOM)
		damon_perf_for_each_target(t, ctx) {
			if (!t->dead)
				damon_perf_regions_adjust_split(t, &ctx->attrs);
			cond_resched();
		}
	damon_perf_drain_samples_reset(ctx);
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_regions_split_ctx);

/**
 * damon_perf_regions_nr_samples() - Samples credited to a context's regions.
 * @ctx:	the context.
 *
 * The raw samples (probe_hits, every probe) of every target's regions
 * since the counters were last reset, saturating.
 *
 * Context: the kdamond of @ctx, or a caller owning a stopped @ctx.
 * Return: the number of samples.
 */
u64 damon_perf_regions_nr_samples(struct damon_perf_ctx *ctx)
{
	struct damon_perf_target *t;
	struct damon_perf_region *r;
	u64 nr = 0;
	int i;

	damon_perf_for_each_target(t, ctx)
		damon_perf_for_each_region(r, t)
			for (i = 0; i < DAMON_PERF_MAX_PROBES; i++)
				if (check_add_overflow(nr, r->probe_hits[i],
						       &nr))
					return U64_MAX;
	return nr;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_regions_nr_samples);

/**
 * damon_perf_regions_nr_hot() - Regions of a context with accesses.
 * @ctx:	the context.
 *
 * Context: the kdamond of @ctx, or a caller owning a stopped @ctx.
 * Return: the regions with nr_accesses >= 1, over every target.
 */
u32 damon_perf_regions_nr_hot(struct damon_perf_ctx *ctx)
{
	struct damon_perf_target *t;
	struct damon_perf_region *r;
	u32 nr = 0;

	damon_perf_for_each_target(t, ctx)
		damon_perf_for_each_region(r, t)
			nr += !!r->nr_accesses;
	return nr;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_regions_nr_hot);

/**
 * damon_perf_floor_value() - The sample floor of the next aggregation.
 * @f:		the floor's state.
 *
 * Documentation/access-semantics.rst derives it: 0 (any measurement
 * stands) before the first published measurement and while the last one
 * found no region with accesses (there is no answer to carry); otherwise
 * the larger of the regions with accesses in the last published
 * measurement and half the decaying average of the samples measurements
 * rest on.
 *
 * Context: any.
 * Return: the floor, in samples.
 */
u64 damon_perf_floor_value(const struct damon_perf_floor *f)
{
	u64 half_avg = div_u64(f->avg, 2 * DAMON_PERF_FLOOR_AVG_SCALE);

	if (!f->published || !f->nr_hot)
		return 0;
	return max_t(u64, f->nr_hot, half_avg);
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_floor_value);

/**
 * damon_perf_floor_judge() - Judge an aggregation against the floor.
 * @f:		the floor's state.
 * @nr_samples:	the samples of the measurement going on.
 * @max_carried: aggregations an answer may be carried at most.
 *
 * Below the floor, the last answer is carried forward (@f->carried grows)
 * while it is younger than @max_carried aggregations; after that the
 * measurement is published anyway, as low.
 *
 * Context: any.
 * Return: DAMON_PERF_CONFIDENCE_MET, _CARRIED or _LOW.
 */
u32 damon_perf_floor_judge(struct damon_perf_floor *f, u64 nr_samples,
			   u32 max_carried)
{
	if (nr_samples >= damon_perf_floor_value(f))
		return DAMON_PERF_CONFIDENCE_MET;
	if (f->carried < max_carried) {
		f->carried++;
		return DAMON_PERF_CONFIDENCE_CARRIED;
	}
	return DAMON_PERF_CONFIDENCE_LOW;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_floor_judge);

/**
 * damon_perf_floor_published() - Account a published measurement.
 * @f:		the floor's state.
 * @nr_samples:	the samples it rests on.
 * @nr_hot:	its regions with accesses.
 *
 * The average moves a quarter of the way to @nr_samples (the first
 * measurement with samples sets it); the carry count restarts.
 *
 * Context: any.
 */
void damon_perf_floor_published(struct damon_perf_floor *f, u64 nr_samples,
				u32 nr_hot)
{
	u64 v = min_t(u64, nr_samples, U64_MAX / DAMON_PERF_FLOOR_AVG_SCALE) *
		DAMON_PERF_FLOOR_AVG_SCALE;

	f->avg = f->avg ? f->avg - f->avg / 4 + v / 4 : v;
	f->nr_hot = nr_hot;
	f->carried = 0;
	f->published = true;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_floor_published);
