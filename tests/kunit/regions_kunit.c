// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: region lists and DAMON's adaptive adjustment (regions.c, vaddr.c,
 * split.c).
 */
#include <kunit/test.h>
#include <linux/prandom.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sort.h>

#include "ctx.h"
#include "drain.h"
#include "regions.h"

#define BASE	BIT(30)
#define PG	DAMON_PERF_MIN_REGION

/* Target and regions are freed at the end of the case, even on failure. */
static int cleanup_init(struct kunit_resource *res, void *t)
{
	res->data = t;
	return 0;
}

static void cleanup_free(struct kunit_resource *res)
{
	damon_perf_regions_free(res->data);
	kfree(res->data);
}

/* A target without regions, freed with them at the end of the case. */
static struct damon_perf_target *target_alloc(struct kunit *test)
{
	struct damon_perf_target *t = damon_perf_target_new(0);

	KUNIT_ASSERT_NOT_NULL(test, t);
	if (!kunit_alloc_resource(test, cleanup_init, cleanup_free,
				  GFP_KERNEL, t)) {
		kfree(t);
		KUNIT_ASSERT_FAILURE(test, "no memory for the cleanup");
	}
	return t;
}

static struct damon_perf_target *target_with(struct kunit *test,
					     unsigned long start,
					     unsigned long end, unsigned int nr)
{
	struct damon_perf_target *t = target_alloc(test);

	KUNIT_ASSERT_EQ(test, 0,
			damon_perf_regions_split_evenly(t, start, end, nr));
	return t;
}

/*
 * Sorted, non-overlapping, aligned, non-empty, nr_regions right, and the
 * regions cover @ranges exactly (each range's regions are contiguous).
 */
static void expect_cover(struct kunit *test, struct damon_perf_target *t,
			 const struct damon_perf_range *ranges,
			 unsigned int nr_ranges)
{
	struct damon_perf_region *r;
	unsigned int n = 0, i = 0;
	unsigned long pos = ranges[0].start;

	/* one expectation per list, not per region: keeps big lists fast */
	damon_perf_for_each_region(r, t) {
		n++;
		if (pos == ranges[i].end && i + 1 < nr_ranges)
			pos = ranges[++i].start;
		if (r->start != pos || r->start >= r->end ||
		    !IS_ALIGNED(r->start, PG) || !IS_ALIGNED(r->end, PG)) {
			KUNIT_FAIL(test, "region %u [%lx, %lx) expected at %lx",
				   n, r->start, r->end, pos);
			return;
		}
		pos = r->end;
	}
	KUNIT_EXPECT_EQ(test, i, nr_ranges - 1);
	KUNIT_EXPECT_EQ(test, pos, ranges[nr_ranges - 1].end);
	KUNIT_EXPECT_EQ(test, n, t->nr_regions);
}

static void regions_split_evenly_should_cover_range(struct kunit *test)
{
	struct damon_perf_range range = { BASE, BASE + 103 * PG };
	struct damon_perf_target *t = target_with(test, range.start,
						  range.end, 10);

	KUNIT_EXPECT_EQ(test, t->nr_regions, 10U);
	expect_cover(test, t, &range, 1);
}

static void
regions_split_evenly_should_stop_at_page_granularity(struct kunit *test)
{
	struct damon_perf_range range = { BASE, BASE + 4 * PG };
	struct damon_perf_target *t = target_with(test, range.start,
						  range.end, 10);

	KUNIT_EXPECT_EQ(test, t->nr_regions, 4U);
	expect_cover(test, t, &range, 1);
}

static void random_counts(struct damon_perf_target *t, unsigned int max)
{
	struct damon_perf_region *r;

	damon_perf_for_each_region(r, t) {
		r->nr_accesses = get_random_u32_below(max + 1);
		r->last_nr_accesses = get_random_u32_below(max + 1);
	}
}

/* Random targets through many aggregations keep every invariant. */
static void
regions_adjust_should_keep_invariants_on_random_input(struct kunit *test)
{
	struct damon_perf_attrs attrs;
	int iter, round;

	damon_perf_attrs_default(&attrs);
	for (iter = 0; iter < 24; iter++) {
		unsigned long pages = 16 + get_random_u32_below(1 << 14);
		struct damon_perf_range range = { BASE, BASE + pages * PG };
		struct damon_perf_target *t;

		attrs.min_nr_regions = 3 + get_random_u32_below(20);
		attrs.max_nr_regions = attrs.min_nr_regions +
				       get_random_u32_below(200);
		t = target_with(test, range.start, range.end,
				attrs.min_nr_regions);
		KUNIT_ASSERT_EQ(test, t->nr_regions, attrs.min_nr_regions);

		for (round = 0; round < 20; round++) {
			unsigned int before, max;

			damon_perf_regions_adjust_split(t, &attrs);
			expect_cover(test, t, &range, 1);
			KUNIT_EXPECT_LE(test, t->nr_regions,
					attrs.max_nr_regions);

			random_counts(t, 1 + get_random_u32_below(50));
			before = t->nr_regions;
			max = damon_perf_regions_max_nr_accesses(t);
			damon_perf_regions_adjust_merge(t, &attrs, max);
			expect_cover(test, t, &range, 1);
			KUNIT_EXPECT_GE(test, t->nr_regions,
					attrs.min_nr_regions);
			KUNIT_EXPECT_LE(test, t->nr_regions,
					max(before, attrs.min_nr_regions));
			damon_perf_regions_reset(t);
			cond_resched();
		}
		damon_perf_regions_free(t);
	}
}

static void regions_split_should_not_exceed_max(struct kunit *test)
{
	struct damon_perf_range range = { BASE, BASE + 4096 * PG };
	struct damon_perf_attrs attrs;
	struct damon_perf_target *t;
	int i;

	damon_perf_attrs_default(&attrs);
	attrs.min_nr_regions = 3;
	attrs.max_nr_regions = 50;
	t = target_with(test, range.start, range.end, 3);
	/* counts never differ: nothing would merge, only splits happen */
	for (i = 0; i < 30; i++) {
		damon_perf_regions_adjust_split(t, &attrs);
		KUNIT_EXPECT_LE(test, t->nr_regions, 50U);
	}
	KUNIT_EXPECT_GT(test, t->nr_regions, 25U);
	expect_cover(test, t, &range, 1);
}

static void regions_merge_should_join_close_neighbours_only(struct kunit *test)
{
	struct damon_perf_range range = { BASE, BASE + 4 * PG };
	struct damon_perf_target *t = target_with(test, range.start,
						  range.end, 4);
	static const unsigned int nr[] = { 10, 11, 30, 31 };
	struct damon_perf_region *r;
	int i = 0;

	damon_perf_for_each_region(r, t) {
		r->nr_accesses = nr[i];
		r->probe_hits[0] = nr[i++];
	}
	damon_perf_regions_merge(t, 1, 4 * PG);
	KUNIT_ASSERT_EQ(test, t->nr_regions, 2U);
	r = list_first_entry(&t->regions, struct damon_perf_region, list);
	KUNIT_EXPECT_EQ(test, r->end, BASE + 2 * PG);
	KUNIT_EXPECT_EQ(test, r->nr_accesses, 10U);	/* (10 + 11) / 2 */
	KUNIT_EXPECT_EQ(test, r->probe_hits[0], 21ULL);	/* raw counts add */
	r = list_next_entry(r, list);
	KUNIT_EXPECT_EQ(test, r->nr_accesses, 30U);
	expect_cover(test, t, &range, 1);
}

static void regions_merge_should_respect_size_limit_and_gaps(struct kunit *test)
{
	struct damon_perf_target *t = target_alloc(test);
	struct damon_perf_region *r;

	/* [0,1) [1,2) gap [3,4) [4,5) pages, all equal */
	damon_perf_region_add(t, damon_perf_region_new(BASE, BASE + PG));
	damon_perf_region_add(t, damon_perf_region_new(BASE + PG,
						       BASE + 2 * PG));
	damon_perf_region_add(t, damon_perf_region_new(BASE + 3 * PG,
						       BASE + 4 * PG));
	damon_perf_region_add(t, damon_perf_region_new(BASE + 4 * PG,
						       BASE + 5 * PG));
	damon_perf_regions_merge(t, 0, PG);
	KUNIT_EXPECT_EQ(test, t->nr_regions, 4U);	/* size limit */
	damon_perf_regions_merge(t, 0, 16 * PG);
	KUNIT_ASSERT_EQ(test, t->nr_regions, 2U);	/* not over the gap */
	r = list_first_entry(&t->regions, struct damon_perf_region, list);
	KUNIT_EXPECT_EQ(test, r->end, BASE + 2 * PG);
}

/*
 * Defect: the merge threshold was a u32 that doubled until it passed twice
 * the highest nr_accesses; above about 1.4e9 it wrapped first, and a target
 * that could not drop below max_nr_regions (gaps between its regions) kept
 * the kdamond in the loop for ever. Before the fix this case never
 * returned.
 */
static void regions_merge_should_end_with_huge_counts(struct kunit *test)
{
	static const unsigned int huge[] = {
		1400000000U, 1U << 31, 3000000000U, UINT_MAX,
	};
	struct damon_perf_attrs attrs;
	struct damon_perf_region *r;
	unsigned int i, j, passes;

	damon_perf_attrs_default(&attrs);
	attrs.min_nr_regions = 3;
	attrs.max_nr_regions = 4;
	for (i = 0; i < ARRAY_SIZE(huge); i++) {
		struct damon_perf_target *t = target_alloc(test);

		/* 12 one-page regions with a one-page gap between each */
		for (j = 0; j < 12; j++) {
			r = damon_perf_region_new(BASE + 2 * j * PG,
						  BASE + (2 * j + 1) * PG);
			KUNIT_ASSERT_NOT_NULL(test, r);
			r->nr_accesses = j % 2 ? huge[i] : 0;
			damon_perf_region_add(t, r);
		}
		passes = damon_perf_regions_adjust_merge(t, &attrs, huge[i]);
		KUNIT_EXPECT_LE(test, passes, DAMON_PERF_MERGE_MAX_PASSES);
		KUNIT_EXPECT_EQ(test, t->nr_regions, 12U);
	}
}

/*
 * Defect: the merge weighted nr_accesses, last_nr_accesses and age by size
 * as (u64)a * sa + (u64)b * sb, which wraps for long-lived large regions:
 * age 2^24 over 1 TiB is 2^64. The average must be the one the exact sum
 * gives (rounded down), wrapped or not, and stay what it was where
 * nothing wraps.
 */
static void
regions_merge_should_average_huge_sizes_without_wrap(struct kunit *test)
{
	static const struct {
		unsigned long sa, sb;
		unsigned int a, b, want;
	} cases[] = {
		/* no wrap: (10 * 3 + 20 * 1) / 4, rounded down */
		{ 3 * PG, PG, 10, 20, 12 },
		{ PG, 3 * PG, 20, 10, 12 },
#if BITS_PER_LONG == 64
		/* 2^24 * 2^40 is 2^64: wrapped to 0 */
		{ 1UL << 40, 1UL << 40, 1U << 24, 1U << 24, 1U << 24 },
		/* (2^24 * 2^40 + 2^23 * 2^41) / (3 * 2^40) = 2^25 / 3 */
		{ 1UL << 40, 1UL << 41, 1U << 24, 1U << 23, 11184810 },
		/* count mode: huge counts over 2^33 + 2^35 bytes */
		{ 1UL << 33, 1UL << 35, UINT_MAX, UINT_MAX - 5,
		  UINT_MAX - 4 },
#endif
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct damon_perf_target *t = target_alloc(test);
		struct damon_perf_region *l, *r;

		l = damon_perf_region_new(BASE, BASE + cases[i].sa);
		r = damon_perf_region_new(BASE + cases[i].sa,
					  BASE + cases[i].sa + cases[i].sb);
		KUNIT_ASSERT_NOT_NULL(test, l);
		KUNIT_ASSERT_NOT_NULL(test, r);
		l->nr_accesses = cases[i].a;
		l->last_nr_accesses = cases[i].a;
		l->age = cases[i].a;
		r->nr_accesses = cases[i].b;
		r->last_nr_accesses = cases[i].b;
		r->age = cases[i].b;
		damon_perf_region_add(t, l);
		damon_perf_region_add(t, r);
		damon_perf_regions_merge(t, UINT_MAX, ULONG_MAX);
		KUNIT_ASSERT_EQ(test, t->nr_regions, 1U);
		KUNIT_EXPECT_EQ_MSG(test, l->nr_accesses, cases[i].want,
				    "case %u", i);
		KUNIT_EXPECT_EQ_MSG(test, l->last_nr_accesses, cases[i].want,
				    "case %u", i);
		KUNIT_EXPECT_EQ_MSG(test, l->age, cases[i].want, "case %u", i);
	}
}

/* Huge counts still merge: the threshold passes them without wrapping. */
static void
regions_merge_should_join_regions_with_huge_counts(struct kunit *test)
{
	struct damon_perf_range range = { BASE, BASE + 64 * PG };
	struct damon_perf_target *t = target_with(test, range.start,
						  range.end, 64);
	struct damon_perf_attrs attrs;
	struct damon_perf_region *r;
	unsigned int i = 0;

	damon_perf_attrs_default(&attrs);
	attrs.min_nr_regions = 3;
	attrs.max_nr_regions = 8;
	/* neighbours differ by up to UINT_MAX: only the top threshold joins */
	damon_perf_for_each_region(r, t)
		r->nr_accesses = i++ % 2 ? UINT_MAX : 0;
	damon_perf_regions_adjust_merge(t, &attrs, UINT_MAX);
	KUNIT_EXPECT_LE(test, t->nr_regions, 8U);
	KUNIT_EXPECT_GE(test, t->nr_regions, 3U);
	expect_cover(test, t, &range, 1);
}

static void
regions_age_should_grow_while_stable_and_reset_on_change(struct kunit *test)
{
	struct damon_perf_range range = { BASE, BASE + 2 * PG };
	struct damon_perf_target *t = target_with(test, range.start,
						  range.end, 2);
	struct damon_perf_region *a, *b;
	int i;

	a = list_first_entry(&t->regions, struct damon_perf_region, list);
	b = list_next_entry(a, list);
	for (i = 0; i < 3; i++) {
		a->nr_accesses = 5;
		b->nr_accesses = 5;
		damon_perf_regions_age(t, 2);
		damon_perf_regions_reset(t);
	}
	/* first round: 0 -> 5 is a change */
	KUNIT_EXPECT_EQ(test, a->age, 2U);
	KUNIT_EXPECT_EQ(test, b->age, 2U);
	a->nr_accesses = 7;	/* within the threshold: still stable */
	b->nr_accesses = 8;	/* beyond it: starts over */
	damon_perf_regions_age(t, 2);
	KUNIT_EXPECT_EQ(test, a->age, 3U);
	KUNIT_EXPECT_EQ(test, b->age, 0U);
	damon_perf_regions_reset(t);
	KUNIT_EXPECT_EQ(test, a->last_nr_accesses, 7U);
	KUNIT_EXPECT_EQ(test, a->nr_accesses, 0U);
}

static void regions_set_ranges_should_trim_extend_and_add(struct kunit *test)
{
	struct damon_perf_target *t = target_with(test, BASE, BASE + 30 * PG,
						  3);
	struct damon_perf_range ranges[] = {
		{ BASE + 5 * PG, BASE + 12 * PG },
		{ BASE + 14 * PG, BASE + 35 * PG },
		{ BASE + 40 * PG, BASE + 41 * PG },
	};
	struct damon_perf_region *r;

	damon_perf_for_each_region(r, t)
		r->nr_accesses = r->start == BASE + 10 * PG ? 9 : 1;
	KUNIT_ASSERT_EQ(test, 0,
			damon_perf_regions_set_ranges(t, ranges, 3));
	/* [5,10) [10,12) | [14,20) [20,35) | [40,41) */
	KUNIT_EXPECT_EQ(test, t->nr_regions, 5U);
	expect_cover(test, t, ranges, 3);
	r = list_first_entry(&t->regions, struct damon_perf_region, list);
	r = list_next_entry(r, list);
	KUNIT_EXPECT_EQ(test, r->start, BASE + 10 * PG);
	KUNIT_EXPECT_EQ(test, r->nr_accesses, 9U);	/* counts survive */
	r = list_next_entry(r, list);
	KUNIT_EXPECT_EQ(test, r->start, BASE + 14 * PG);
	KUNIT_EXPECT_EQ(test, r->nr_accesses, 9U);	/* cut of [10,20) */
}

static void regions_set_ranges_should_close_holes(struct kunit *test)
{
	struct damon_perf_target *t = target_alloc(test);
	struct damon_perf_range range = { BASE, BASE + 10 * PG };

	damon_perf_region_add(t, damon_perf_region_new(BASE + PG,
						       BASE + 3 * PG));
	damon_perf_region_add(t, damon_perf_region_new(BASE + 6 * PG,
						       BASE + 8 * PG));
	KUNIT_ASSERT_EQ(test, 0, damon_perf_regions_set_ranges(t, &range, 1));
	KUNIT_EXPECT_EQ(test, t->nr_regions, 2U);
	expect_cover(test, t, &range, 1);
}

static struct damon_perf_region *region_starting(struct damon_perf_target *t,
						 unsigned long start)
{
	struct damon_perf_region *r;

	damon_perf_for_each_region(r, t)
		if (r->start == start)
			return r;
	return NULL;
}

/* Samples of target position 0, sorted, from a kunit-managed array. */
struct keys {
	struct damon_perf_sample *k;
	u32 nr;
	u32 cap;
	unsigned long base;
};

static void keys_init(struct kunit *test, struct keys *ks, u32 cap)
{
	ks->k = kunit_kcalloc(test, cap, sizeof(*ks->k), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ks->k);
	ks->nr = 0;
	ks->cap = cap;
	ks->base = BASE;
}

/* A sample of probe slot @slot in sample interval @seq. */
static void keys_add_at(struct keys *ks, unsigned long page, u64 seq,
			unsigned int slot)
{
	if (ks->nr < ks->cap) {
		ks->k[ks->nr].key = damon_perf_sample_key(0,
							  ks->base + page * PG);
		ks->k[ks->nr++].tag = damon_perf_sample_tag(seq, slot);
	}
}

static void keys_add(struct keys *ks, unsigned long page)
{
	keys_add_at(ks, page, 1, 0);
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = ((const struct damon_perf_sample *)a)->key;
	u64 y = ((const struct damon_perf_sample *)b)->key;

	return x < y ? -1 : x > y;
}

static void keys_sort(struct keys *ks)
{
	sort(ks->k, ks->nr, sizeof(*ks->k), cmp_u64, NULL);
}

/* Pages [first, end) relative to BASE. */
struct pages {
	unsigned long first;
	unsigned long end;
};

static unsigned long overlap(const struct damon_perf_region *r,
			     const struct pages *h)
{
	unsigned long s = max(r->start, BASE + h->first * PG);
	unsigned long e = min(r->end, BASE + h->end * PG);

	return e > s ? e - s : 0;
}

static bool region_sampled(const struct damon_perf_region *r,
			   const struct keys *ks)
{
	u32 i;

	for (i = 0; i < ks->nr; i++) {
		unsigned long a = damon_perf_sample_page(ks->k[i].key) <<
				  PAGE_SHIFT;

		if (r->start <= a && a < r->end)
			return true;
	}
	return false;
}

/*
 * Precision and recall in 1/1000 of the regions holding a sample against
 * the hot ranges @h: hot bytes of those regions over their bytes, and hot
 * bytes they cover over all hot bytes.
 */
static void score(const struct damon_perf_target *t, const struct keys *ks,
		  const struct pages *h, unsigned int nr_h, unsigned int *p,
		  unsigned int *r)
{
	unsigned long sel = 0, hit = 0, hot = 0;
	struct damon_perf_region *reg;
	unsigned int i;

	for (i = 0; i < nr_h; i++)
		hot += (h[i].end - h[i].first) * PG;
	damon_perf_for_each_region(reg, t) {
		if (!region_sampled(reg, ks))
			continue;
		sel += reg->end - reg->start;
		for (i = 0; i < nr_h; i++)
			hit += overlap(reg, &h[i]);
	}
	*p = sel ? div64_u64((u64)hit * 1000, sel) : 0;
	*r = hot ? div64_u64((u64)hit * 1000, hot) : 0;
}

/*
 * Samples mode keeps the edge between a region with accesses and one
 * without (a range a tenth as hot as the hottest stays reported); random
 * mode merges them as DAMON does; above max_nr_regions they merge in
 * both.
 */
static void
regions_merge_should_keep_accessed_edges_in_samples_mode(struct kunit *test)
{
	/* pages 0-9 cold, 10-11 warm (1), 12-19 cold, 20-21 hot (10) */
	static const unsigned int nr[] = { 0, 1, 0, 10, 0 };
	static const unsigned long edge[] = { 0, 10, 12, 20, 22, 32 };
	struct damon_perf_attrs attrs;
	struct damon_perf_region *r;
	unsigned int mode, i;

	damon_perf_attrs_default(&attrs);
	attrs.min_nr_regions = 1;
	for (mode = 0; mode < 3; mode++) {
		struct damon_perf_target *t = target_alloc(test);

		for (i = 0; i < ARRAY_SIZE(nr); i++) {
			r = damon_perf_region_new(BASE + edge[i] * PG,
						  BASE + edge[i + 1] * PG);
			KUNIT_ASSERT_NOT_NULL(test, r);
			r->nr_accesses = nr[i];
			damon_perf_region_add(t, r);
		}
		attrs.split = mode == 1 ? DAMON_PERF_SPLIT_RANDOM :
					  DAMON_PERF_SPLIT_SAMPLES;
		attrs.max_nr_regions = mode == 2 ? 3 : 1000;
		damon_perf_regions_adjust_merge(t, &attrs, 10);
		r = region_starting(t, BASE + 10 * PG);
		if (mode == 0) {
			KUNIT_EXPECT_EQ(test, t->nr_regions, 5U);
			KUNIT_ASSERT_NOT_NULL(test, r);
			KUNIT_EXPECT_EQ(test, r->nr_accesses, 1U);
		} else {
			/* the warm range averaged into its cold neighbours */
			KUNIT_EXPECT_LE(test, t->nr_regions, 3U);
			KUNIT_EXPECT_NULL(test, r);
		}
	}
}

/* 64 MiB in 10 regions; a 1 MiB and a region-straddling hot range. */
static void
regions_split_samples_should_isolate_hot_ranges_at_once(struct kunit *test)
{
	static const struct pages hot[] = { { 5000, 5256 }, { 6400, 6700 } };
	struct damon_perf_range range = { BASE, BASE + 16384 * PG };
	struct damon_perf_target *t = target_with(test, range.start,
						  range.end, 10);
	struct damon_perf_attrs attrs;
	struct damon_perf_region *r;
	unsigned int i, p, rc;
	unsigned long pg;
	struct keys ks;

	damon_perf_attrs_default(&attrs);
	keys_init(test, &ks, 4096);
	/* two passes over each range, the second range twice as hot */
	for (i = 0; i < 2; i++)
		for (pg = hot[0].first; pg < hot[0].end; pg++)
			keys_add(&ks, pg);
	for (i = 0; i < 4; i++)
		for (pg = hot[1].first; pg < hot[1].end; pg++)
			keys_add(&ks, pg);
	keys_sort(&ks);
	KUNIT_EXPECT_GT(test, damon_perf_regions_split_samples(t, &attrs, NULL,
							       ks.k, ks.nr),
			0U);
	expect_cover(test, t, &range, 1);
	/* every region lies wholly inside a hot range or outside all */
	damon_perf_for_each_region(r, t) {
		unsigned long in = overlap(r, &hot[0]) + overlap(r, &hot[1]);

		KUNIT_EXPECT_TRUE_MSG(test, !in || in == r->end - r->start,
				      "region [%lx, %lx) cuts a hot range",
				      r->start, r->end);
	}
	score(t, &ks, hot, ARRAY_SIZE(hot), &p, &rc);
	KUNIT_EXPECT_EQ(test, p, 1000U);
	KUNIT_EXPECT_EQ(test, rc, 1000U);
}

/* Few samples, at random pages: the edges are the outermost samples. */
static void
regions_split_samples_should_find_sparse_hot_range(struct kunit *test)
{
	static const struct pages hot[] = { { 70000, 70256 } };
	struct damon_perf_range range = { BASE, BASE + 262144 * PG };
	struct damon_perf_target *t = target_with(test, range.start,
						  range.end, 10);
	struct damon_perf_attrs attrs;
	struct rnd_state rnd;
	unsigned int i, p, rc;
	struct keys ks;

	damon_perf_attrs_default(&attrs);
	prandom_seed_state(&rnd, 11);
	keys_init(test, &ks, 1024);
	for (i = 0; i < 300; i++)	/* 1 MiB hot in 1 GiB */
		keys_add(&ks, hot[0].first + prandom_u32_state(&rnd) % 256);
	for (i = 0; i < 10; i++)	/* and a little noise anywhere */
		keys_add(&ks, prandom_u32_state(&rnd) % 262144);
	keys_sort(&ks);
	damon_perf_regions_split_samples(t, &attrs, NULL, ks.k, ks.nr);
	expect_cover(test, t, &range, 1);
	/* score the hot samples' regions only: drop the noise keys */
	ks.nr = 0;
	prandom_seed_state(&rnd, 11);
	for (i = 0; i < 300; i++)
		keys_add(&ks, hot[0].first + prandom_u32_state(&rnd) % 256);
	score(t, &ks, hot, 1, &p, &rc);
	KUNIT_EXPECT_GE(test, p, 900U);
	KUNIT_EXPECT_GE(test, rc, 900U);
}

/* An evenly spread sample over the whole target: nothing to split. */
static void
regions_split_samples_should_leave_uniform_regions(struct kunit *test)
{
	struct damon_perf_range range = { BASE, BASE + 16384 * PG };
	struct damon_perf_target *t = target_with(test, range.start,
						  range.end, 10);
	struct damon_perf_attrs attrs;
	struct rnd_state rnd;
	unsigned int i;
	struct keys ks;

	damon_perf_attrs_default(&attrs);
	prandom_seed_state(&rnd, 5);
	keys_init(test, &ks, 8192);
	for (i = 0; i < 8192; i++)
		keys_add(&ks, prandom_u32_state(&rnd) % 16384);
	keys_sort(&ks);
	KUNIT_EXPECT_EQ(test, damon_perf_regions_split_samples(t, &attrs, NULL,
							       ks.k, ks.nr),
			0U);
	KUNIT_EXPECT_EQ(test, t->nr_regions, 10U);
	/* and a handful of samples never splits */
	ks.nr = 0;
	for (i = 0; i < 7; i++)
		keys_add(&ks, 100 + i);
	KUNIT_EXPECT_EQ(test, damon_perf_regions_split_samples(t, &attrs, NULL,
							       ks.k, ks.nr),
			0U);
}

/* max_nr_regions and the depth of the cuts bound the split. */
static void regions_split_samples_should_respect_bounds(struct kunit *test)
{
	struct damon_perf_range range = { BASE, BASE + 16384 * PG };
	struct damon_perf_target *t = target_with(test, range.start,
						  range.end, 3);
	struct damon_perf_attrs attrs;
	unsigned long pg;
	unsigned int i;
	struct keys ks;

	damon_perf_attrs_default(&attrs);
	keys_init(test, &ks, 8192);
	/* 40 hot ranges of 16 pages, 100 pages apart, in the first region */
	for (i = 0; i < 40; i++)
		for (pg = i * 116; pg < i * 116 + 16; pg++)
			keys_add(&ks, pg);
	keys_sort(&ks);
	attrs.min_nr_regions = 3;
	attrs.max_nr_regions = 3;
	KUNIT_EXPECT_EQ(test, damon_perf_regions_split_samples(t, &attrs, NULL,
							       ks.k, ks.nr),
			0U);
	attrs.max_nr_regions = 5;
	KUNIT_EXPECT_EQ(test, damon_perf_regions_split_samples(t, &attrs, NULL,
							       ks.k, ks.nr),
			2U);
	KUNIT_EXPECT_EQ(test, t->nr_regions, 5U);
	attrs.max_nr_regions = 1000;
	/*
	 * The sampled region (the comb's first tooth cut off: 39 teeth, 624
	 * samples) is cut down to a depth of 2 ilog2(624) + 2 = 20 pieces
	 * of pieces: the comb is peeled at the edges of its gaps, a tooth
	 * per two levels, so 20 cuts.
	 */
	KUNIT_EXPECT_EQ(test, damon_perf_regions_split_samples(t, &attrs, NULL,
							       ks.k, ks.nr),
			20U);
	KUNIT_EXPECT_EQ(test, t->nr_regions, 5U + 20);
	/* the next aggregation goes on where this one stopped */
	KUNIT_EXPECT_GT(test, damon_perf_regions_split_samples(t, &attrs, NULL,
							       ks.k, ks.nr),
			0U);
	/* the comb has 80 tooth edges */
	KUNIT_EXPECT_LE(test, t->nr_regions, 5U + 20 + 80);
	expect_cover(test, t, &range, 1);
}

/*
 * A paddr context's hot set: the frames of hot pages scattered over RAM
 * in runs (60 runs of 8 pages, each page sampled 5 times, in one region
 * of 2 GiB). One aggregation isolates every run: each run's first and
 * one-past-last pages start a region, which 16 cuts a region did not.
 */
static void regions_split_samples_should_isolate_runs(struct kunit *test)
{
	const unsigned long pages = 524288, step = pages / 60;
	struct damon_perf_range range = { BASE, BASE + pages * PG };
	struct damon_perf_target *t = target_with(test, range.start,
						  range.end, 1);
	struct damon_perf_attrs attrs;
	struct damon_perf_region *r;
	unsigned long pg, b, found;
	struct rnd_state rnd;
	unsigned int i, pass;
	struct keys ks;

	damon_perf_attrs_default(&attrs);
	prandom_seed_state(&rnd, 11);
	keys_init(test, &ks, 60 * 8 * 5);
	for (i = 0; i < 60; i++) {
		b = i * step + prandom_u32_state(&rnd) % (step - 16);
		for (pass = 0; pass < 5; pass++)
			for (pg = b; pg < b + 8; pg++)
				keys_add(&ks, pg);
	}
	keys_sort(&ks);
	KUNIT_EXPECT_GE(test, damon_perf_regions_split_samples(t, &attrs, NULL,
							       ks.k, ks.nr),
			120U);
	prandom_seed_state(&rnd, 11);
	for (i = 0; i < 60; i++) {
		b = i * step + prandom_u32_state(&rnd) % (step - 16);
		found = 0;
		damon_perf_for_each_region(r, t)
			found += r->start == BASE + b * PG ||
				 r->start == BASE + (b + 8) * PG;
		KUNIT_EXPECT_EQ_MSG(test, found, 2UL, "run %u at page %lu",
				    i, b);
	}
	expect_cover(test, t, &range, 1);
}

/* Keys outside every region (the regions moved) are ignored. */
static void regions_split_samples_should_ignore_keys_outside(struct kunit *test)
{
	struct damon_perf_range range = { BASE + 1024 * PG,
					  BASE + 2048 * PG };
	struct damon_perf_target *t = target_with(test, range.start,
						  range.end, 4);
	struct damon_perf_attrs attrs;
	unsigned long pg;
	struct keys ks;

	damon_perf_attrs_default(&attrs);
	keys_init(test, &ks, 4096);
	for (pg = 0; pg < 1024; pg++)
		keys_add(&ks, pg);
	for (pg = 2048; pg < 3072; pg++)
		keys_add(&ks, pg);
	keys_sort(&ks);
	KUNIT_EXPECT_EQ(test, damon_perf_regions_split_samples(t, &attrs, NULL,
							       ks.k, ks.nr),
			0U);
	expect_cover(test, t, &range, 1);
}

static struct damon_perf_ctx *ctx_with(struct kunit *test, u32 split)
{
	struct damon_perf_ctx *ctx;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	INIT_LIST_HEAD(&ctx->targets);
	ctx->ops = DAMON_PERF_OPS_PADDR;
	damon_perf_attrs_default(&ctx->attrs);
	ctx->attrs.split = split;
	return ctx;
}

/* Random mode splits as DAMON does, whatever the samples say. */
static void regions_split_ctx_should_keep_random_mode(struct kunit *test)
{
	struct damon_perf_ctx *ctx = ctx_with(test, DAMON_PERF_SPLIT_RANDOM);
	struct damon_perf_target *t = target_with(test, BASE,
						  BASE + 4096 * PG, 10);
	struct damon_perf_sample keys[16];
	unsigned int i;

	list_add_tail(&t->list, &ctx->targets);
	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		keys[i].key = damon_perf_sample_key(0, BASE + i * PG);
		keys[i].tag = 0;
	}
	ctx->samples.buf = keys;
	ctx->samples.cap = ARRAY_SIZE(keys);
	ctx->samples.nr = ARRAY_SIZE(keys);
	ctx->samples.seen = ARRAY_SIZE(keys);
	damon_perf_regions_cut_ctx(ctx);	/* nothing in random mode */
	KUNIT_EXPECT_EQ(test, t->nr_regions, 10U);
	damon_perf_regions_split_ctx(ctx);
	/* every region of 409 pages is cut in two, as before */
	KUNIT_EXPECT_EQ(test, t->nr_regions, 20U);
	KUNIT_EXPECT_EQ(test, t->last_nr_regions, 20U);
	KUNIT_EXPECT_EQ(test, ctx->samples.nr, 0U);
	KUNIT_EXPECT_EQ(test, ctx->samples.seen, 0U);
	KUNIT_EXPECT_EQ(test, ctx->samples.cap, (u32)ARRAY_SIZE(keys));
	list_del(&t->list);
}

/* Samples mode: no samples, no cuts; a dead target is never cut. */
static void
regions_split_ctx_should_cut_live_sampled_targets_only(struct kunit *test)
{
	struct damon_perf_ctx *ctx = ctx_with(test, DAMON_PERF_SPLIT_SAMPLES);
	struct damon_perf_target *a = target_with(test, BASE,
						  BASE + 1024 * PG, 4);
	struct damon_perf_target *b = target_with(test, BASE + 4096 * PG,
						  BASE + 5120 * PG, 4);
	struct damon_perf_sample *keys;
	unsigned int i;

	keys = kunit_kcalloc(test, 64, sizeof(*keys), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, keys);
	list_add_tail(&a->list, &ctx->targets);
	list_add_tail(&b->list, &ctx->targets);
	damon_perf_regions_cut_ctx(ctx);	/* no buffer yet */
	KUNIT_EXPECT_EQ(test, a->nr_regions + b->nr_regions, 8U);
	/* unsorted keys: 32 pages hot in each target */
	for (i = 0; i < 32; i++) {
		keys[2 * i].key = damon_perf_sample_key(1,
							BASE + (4200 + i) * PG);
		keys[2 * i + 1].key = damon_perf_sample_key(0, BASE +
							    (100 + i) * PG);
	}
	ctx->samples.buf = keys;
	ctx->samples.cap = 64;
	ctx->samples.nr = 64;
	ctx->samples.seen = 64;
	a->dead = true;
	damon_perf_regions_cut_ctx(ctx);
	KUNIT_EXPECT_EQ(test, a->nr_regions, 4U);
	KUNIT_EXPECT_EQ(test, b->nr_regions, 6U);	/* [4200, 4232) alone */
	KUNIT_EXPECT_NOT_NULL(test, region_starting(b, BASE + 4200 * PG));
	KUNIT_EXPECT_NOT_NULL(test, region_starting(b, BASE + 4232 * PG));
	damon_perf_regions_split_ctx(ctx);	/* samples mode: drops them */
	KUNIT_EXPECT_EQ(test, b->nr_regions, 6U);
	KUNIT_EXPECT_EQ(test, ctx->samples.nr, 0U);
	list_del(&a->list);
	list_del(&b->list);
}

/*
 * Samples mode: a target without a sample in the aggregation keeps its
 * boundaries (and ages); one with samples merges as DAMON does. Random
 * mode always merges.
 */
static void regions_merge_ctx_should_keep_unsampled_targets(struct kunit *test)
{
	struct damon_perf_ctx *ctx = ctx_with(test, DAMON_PERF_SPLIT_SAMPLES);
	struct damon_perf_target *a = target_with(test, BASE,
						  BASE + 1000 * PG, 20);
	struct damon_perf_target *b = target_with(test, BASE + 4096 * PG,
						  BASE + 5096 * PG, 20);
	struct damon_perf_region *r;

	ctx->attrs.min_nr_regions = 3;
	list_add_tail(&a->list, &ctx->targets);
	list_add_tail(&b->list, &ctx->targets);
	damon_perf_for_each_region(r, a)
		r->age = 4;
	ctx->samples.target_seen[1] = 1;	/* b had a sample */
	damon_perf_regions_merge_ctx(ctx, 0);
	KUNIT_EXPECT_EQ(test, a->nr_regions, 20U);
	damon_perf_for_each_region(r, a)
		KUNIT_EXPECT_EQ(test, r->age, 5U);
	/* all zero: merged up to a third of the target, 6 x 50 pages */
	KUNIT_EXPECT_EQ(test, b->nr_regions, 4U);

	ctx->attrs.split = DAMON_PERF_SPLIT_RANDOM;
	ctx->samples.target_seen[1] = 0;
	damon_perf_regions_merge_ctx(ctx, 0);
	KUNIT_EXPECT_EQ(test, a->nr_regions, 4U);
	list_del(&a->list);
	list_del(&b->list);
}

/*
 * The pieces get the counters the aggregation would have given them:
 * presence from the sample intervals in each piece, count mode and raw
 * hits in proportion to their samples.
 */
static void regions_split_samples_should_recount_pieces(struct kunit *test)
{
	struct damon_perf_range range = { BASE, BASE + 1024 * PG };
	struct damon_perf_attrs attrs;
	struct damon_perf_region *r;
	unsigned long pg;
	unsigned int mode;
	struct keys ks;
	u64 seq;

	damon_perf_attrs_default(&attrs);
	for (mode = 0; mode < 2; mode++) {
		struct damon_perf_target *t = target_with(test, range.start,
							  range.end, 1);

		attrs.mode = mode ? DAMON_PERF_MODE_COUNT :
				    DAMON_PERF_MODE_PRESENCE;
		keys_init(test, &ks, 1024);
		/* [100, 200): every page in 5 intervals, probe slot 1 */
		for (seq = 10; seq < 15; seq++)
			for (pg = 100; pg < 200; pg++)
				keys_add_at(&ks, pg, seq, 1);
		/* [600, 640): in interval 12 only, probe slot 0 */
		for (pg = 600; pg < 640; pg++)
			keys_add_at(&ks, pg, 12, 0);
		keys_sort(&ks);
		r = list_first_entry(&t->regions, struct damon_perf_region,
				     list);
		r->nr_accesses = mode ? 540 : 5;
		r->probe_hits[0] = 40;
		r->probe_hits[1] = 500;
		KUNIT_ASSERT_GT(test,
				damon_perf_regions_split_samples(t, &attrs,
								 NULL, ks.k,
								 ks.nr),
				0U);
		expect_cover(test, t, &range, 1);
		damon_perf_for_each_region(r, t) {
			bool hot = r->start == BASE + 100 * PG;
			bool warm = r->start == BASE + 600 * PG;

			if (hot) {
				KUNIT_EXPECT_EQ(test, r->end, BASE + 200 * PG);
				KUNIT_EXPECT_EQ(test, r->nr_accesses,
						mode ? 500U : 5U);
				KUNIT_EXPECT_EQ(test, r->probe_hits[1], 500ULL);
				KUNIT_EXPECT_EQ(test, r->probe_hits[0], 0ULL);
			} else if (warm) {
				KUNIT_EXPECT_EQ(test, r->end, BASE + 640 * PG);
				KUNIT_EXPECT_EQ(test, r->nr_accesses,
						mode ? 40U : 1U);
				KUNIT_EXPECT_EQ(test, r->probe_hits[0], 40ULL);
			} else {
				KUNIT_EXPECT_EQ(test, r->nr_accesses, 0U);
				KUNIT_EXPECT_EQ(test, r->probe_hits[0] +
						r->probe_hits[1], 0ULL);
			}
		}
		damon_perf_regions_free(t);
	}
}

/*
 * Count mode with probe weights: the pieces share nr_accesses and events
 * as crediting gave them, by weighted samples. Slot 1 (weight 3) hit
 * [100, 200) 500 times, slot 0 (weight 1) [600, 640) 40 times, at period
 * 10: 1540 accesses and 15400 events, 1500 and 15000 of them on the hot
 * piece (by raw samples it would get 1425).
 */
static void
regions_split_samples_should_recount_by_weight(struct kunit *test)
{
	struct damon_perf_range range = { BASE, BASE + 1024 * PG };
	static const u32 weights[DAMON_PERF_MAX_PROBES] = { 1, 3, 1 };
	struct damon_perf_target *t = target_with(test, range.start,
						  range.end, 1);
	struct damon_perf_attrs attrs;
	struct damon_perf_region *r;
	unsigned int found = 0;
	unsigned long pg;
	struct keys ks;
	u64 seq;

	damon_perf_attrs_default(&attrs);
	attrs.mode = DAMON_PERF_MODE_COUNT;
	keys_init(test, &ks, 1024);
	for (seq = 10; seq < 15; seq++)
		for (pg = 100; pg < 200; pg++)
			keys_add_at(&ks, pg, seq, 1);
	for (pg = 600; pg < 640; pg++)
		keys_add_at(&ks, pg, 12, 0);
	keys_sort(&ks);
	r = list_first_entry(&t->regions, struct damon_perf_region, list);
	r->nr_accesses = 1540;
	r->events = 15400;
	r->probe_hits[0] = 40;
	r->probe_hits[1] = 500;
	KUNIT_ASSERT_GT(test, damon_perf_regions_split_samples(t, &attrs,
							       weights, ks.k,
							       ks.nr), 0U);
	damon_perf_for_each_region(r, t) {
		if (r->start == BASE + 100 * PG) {
			found++;
			KUNIT_EXPECT_EQ(test, r->nr_accesses, 1500U);
			KUNIT_EXPECT_EQ(test, r->events, 15000ULL);
			KUNIT_EXPECT_EQ(test, r->probe_hits[1], 500ULL);
		} else if (r->start == BASE + 600 * PG) {
			found++;
			KUNIT_EXPECT_EQ(test, r->nr_accesses, 40U);
			KUNIT_EXPECT_EQ(test, r->events, 400ULL);
		} else {
			KUNIT_EXPECT_EQ(test, r->nr_accesses, 0U);
		}
	}
	KUNIT_EXPECT_EQ(test, found, 2U);
}

/*
 * Defect: fewer than 8 samples were cut out only when they lay within
 * 1/1024 of their region, so a thread's stack (an 804 KiB region, 201
 * pages) whose loop touched one page stayed one region with nr_accesses 4
 * in every aggregation. Four samples on one page of 201 are no chance
 * (4/201^3): that page gets its own region. Two on one page (2/201) and
 * four spread over the region are no evidence: no cut.
 */
static void
regions_split_should_cut_few_samples_on_one_page(struct kunit *test)
{
	static const struct {
		unsigned long pages[4];
		unsigned int n;
		bool cut;
	} cases[] = {
		{ { 150, 150, 150, 150 }, 4, true },
		{ { 0, 0, 0 }, 3, true },
		{ { 150, 150 }, 2, false },
		{ { 10, 60, 120, 190 }, 4, false },
	};
	struct damon_perf_attrs attrs;
	struct damon_perf_region *r;
	unsigned int i, k, found;
	struct keys ks;

	damon_perf_attrs_default(&attrs);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct damon_perf_target *t = target_with(test, BASE,
							  BASE + 201 * PG, 1);
		unsigned long pg = cases[i].pages[0];

		keys_init(test, &ks, 8);
		for (k = 0; k < cases[i].n; k++)
			keys_add_at(&ks, cases[i].pages[k], 10 + k, 0);
		keys_sort(&ks);
		r = list_first_entry(&t->regions, struct damon_perf_region,
				     list);
		r->nr_accesses = cases[i].n;
		r->probe_hits[0] = cases[i].n;
		KUNIT_EXPECT_EQ_MSG(test,
				    damon_perf_regions_split_samples(t, &attrs,
								     NULL,
								     ks.k,
								     ks.nr) > 0,
				    cases[i].cut, "case %u", i);
		if (!cases[i].cut)
			continue;
		found = 0;
		damon_perf_for_each_region(r, t) {
			if (r->start == BASE + pg * PG) {
				found++;
				KUNIT_EXPECT_EQ(test, r->end,
						BASE + (pg + 1) * PG);
				KUNIT_EXPECT_EQ(test, r->nr_accesses,
						cases[i].n);
			} else {
				KUNIT_EXPECT_EQ(test, r->nr_accesses, 0U);
			}
		}
		KUNIT_EXPECT_EQ_MSG(test, found, 1U, "case %u", i);
	}
}

/*
 * Presence-mode counts of a piece are its distinct sample intervals, also
 * when they span several bitmap windows of the count (1024 intervals) and
 * when they span more than its 8 windows (counted by sorting instead).
 */
static void
regions_split_samples_should_count_intervals_far_apart(struct kunit *test)
{
	struct damon_perf_range range = { BASE, BASE + 1024 * PG };
	static const u64 far[] = { 0, 100000 };
	struct damon_perf_attrs attrs;
	struct damon_perf_region *r;
	unsigned int i, k, found;
	unsigned long pg;
	struct keys ks;

	damon_perf_attrs_default(&attrs);
	for (i = 0; i < ARRAY_SIZE(far); i++) {
		struct damon_perf_target *t = target_with(test, range.start,
							  range.end, 1);

		keys_init(test, &ks, 2048);
		/* [100, 200): 10 intervals 700 apart, each twice per page */
		for (k = 0; k < 20; k++)
			for (pg = 100; pg < 200; pg++)
				keys_add_at(&ks, pg, 7 + 700 * (k % 10), 0);
		if (far[i])	/* and one 100000 intervals on */
			keys_add_at(&ks, 150, far[i], 0);
		keys_sort(&ks);
		r = list_first_entry(&t->regions, struct damon_perf_region,
				     list);
		r->nr_accesses = 100;
		KUNIT_ASSERT_GT(test,
				damon_perf_regions_split_samples(t, &attrs,
								 NULL, ks.k,
								 ks.nr),
				0U);
		found = 0;
		damon_perf_for_each_region(r, t) {
			if (r->start != BASE + 100 * PG)
				continue;
			found = 1;
			KUNIT_EXPECT_EQ(test, r->end, BASE + 200 * PG);
			KUNIT_EXPECT_EQ(test, r->nr_accesses,
					far[i] ? 11U : 10U);
		}
		KUNIT_EXPECT_EQ(test, found, 1U);
		damon_perf_regions_free(t);
	}
}

/*
 * One sample in a huge region describes its page, not the region. At a
 * user-space-like address on 64-bit: page numbers above 32 bits.
 */
static void
regions_split_samples_should_cut_out_a_lone_sample(struct kunit *test)
{
	const unsigned long base = IS_ENABLED(CONFIG_64BIT) ?
				   BASE << (BITS_PER_LONG / 4) : BASE;
	struct damon_perf_range range = { base, base + 65536 * PG };
	struct damon_perf_target *t = target_with(test, range.start,
						  range.end, 2);
	struct damon_perf_attrs attrs;
	struct damon_perf_region *r;
	struct keys ks;

	damon_perf_attrs_default(&attrs);
	keys_init(test, &ks, 16);
	ks.base = base;
	keys_add(&ks, 1000);		/* alone in [0, 32768) */
	keys_add(&ks, 40000);		/* and two far apart in the other */
	keys_add(&ks, 60000);
	keys_sort(&ks);
	r = list_first_entry(&t->regions, struct damon_perf_region, list);
	r->nr_accesses = 1;
	KUNIT_EXPECT_EQ(test, damon_perf_regions_split_samples(t, &attrs, NULL,
							       ks.k, ks.nr),
			2U);
	expect_cover(test, t, &range, 1);
	KUNIT_EXPECT_EQ(test, t->nr_regions, 4U);
	r = region_starting(t, base + 1000 * PG);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->end, base + 1001 * PG);
	KUNIT_EXPECT_EQ(test, r->nr_accesses, 1U);
	KUNIT_EXPECT_EQ(test, region_starting(t, base)->nr_accesses, 0U);
}

/*
 * Cost of one aggregation's adjustment at the sample budget: 65536 samples
 * (a 4 MiB hot range sampled 16 times, in random order) over a 1 GiB
 * target of 1000 regions. Reports the time (debug kernel: KASAN and
 * lockdep make it slower than production) and checks only the result,
 * never the speed.
 */
static void regions_split_samples_cost_at_the_budget(struct kunit *test)
{
	struct damon_perf_range range = { BASE, BASE + 262144 * PG };
	struct damon_perf_target *t = target_with(test, range.start,
						  range.end, 1000);
	struct damon_perf_attrs attrs;
	struct rnd_state rnd;
	u64 t0, t1, t2;
	unsigned int i, cuts;
	struct keys ks;

	damon_perf_attrs_default(&attrs);
	attrs.max_nr_regions = 2000;
	prandom_seed_state(&rnd, 3);
	/* 1 MiB: vmalloc, freed below (no assertion in between) */
	ks.k = kvcalloc(DAMON_PERF_MAX_SPLIT_SAMPLES, sizeof(*ks.k),
			GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ks.k);
	ks.nr = 0;
	ks.cap = DAMON_PERF_MAX_SPLIT_SAMPLES;
	ks.base = BASE;
	for (i = 0; i < DAMON_PERF_MAX_SPLIT_SAMPLES; i++)
		keys_add_at(&ks, 100000 + prandom_u32_state(&rnd) % 1024,
			    i % 100, 0);
	t0 = ktime_get_ns();
	keys_sort(&ks);
	t1 = ktime_get_ns();
	cuts = damon_perf_regions_split_samples(t, &attrs, NULL, ks.k, ks.nr);
	t2 = ktime_get_ns();
	kunit_info(test, "%u samples, 1000 regions: sort %llu us, cut %llu us, %u cuts\n",
		   ks.nr, (t1 - t0) / 1000, (t2 - t1) / 1000, cuts);
	kvfree(ks.k);
	KUNIT_EXPECT_GE(test, cuts, 1U);
	KUNIT_EXPECT_LE(test, t->nr_regions, 2000U);
	expect_cover(test, t, &range, 1);
}

/*
 * Few samples on one or two pages, over whole aggregations (cut, merge,
 * reset): SPARSE_SEEDS layouts of 3 to 8 regions of 64 pages to 1 TiB,
 * some contiguous, anywhere in a 47-bit address space (31-bit on 32-bit
 * kernels), with hundreds of samples on hot ranges (or combs of hot runs)
 * of some, and 2 to 4 samples an aggregation on a window of one or two
 * pages of another (at its edges too). From the second aggregation on,
 * every region that reports accesses in the sparse region lies within
 * the pages its samples hit: the 1.2 MiB stack region with 2 samples on
 * one page was reported whole in every aggregation. Half the
 * layouts leave only two regions below max_nr_regions for the second
 * aggregation, while the hot regions below the sparse one want more.
 */
#define SPARSE_SEEDS	300
#define SPARSE_CAP	8192

struct sparse_layout {
	unsigned long first[8];		/* pages */
	unsigned long end[8];
	unsigned long hot[8];		/* first hot page, or 0: cold */
	unsigned long hot_len[8];
	unsigned int runs[8];		/* hot runs (a comb), 1: one range */
	unsigned int nr;
	unsigned int sparse;		/* its index */
	unsigned long win;		/* first page of its window */
	unsigned long win_len;		/* 1 or 2 */
};

static unsigned long rnd_long(struct rnd_state *rnd, unsigned long below)
{
	u64 v = (u64)prandom_u32_state(rnd) << 32 | prandom_u32_state(rnd);

	return below ? (unsigned long)(v % below) : 0;
}

/* A hot range in region @i: one range, or a comb of 16 runs. */
static void sparse_hot(struct rnd_state *rnd, struct sparse_layout *l,
		       unsigned int i)
{
	unsigned long size = l->end[i] - l->first[i];

	l->hot_len[i] = min(size - 1, 16 + rnd_long(rnd, 1024));
	l->hot[i] = l->first[i] + 1 + rnd_long(rnd, size - l->hot_len[i]);
	l->runs[i] = l->hot_len[i] >= 64 && prandom_u32_state(rnd) % 2 ?
		     16 : 1;
}

static noinline void sparse_layout(struct rnd_state *rnd,
				   struct sparse_layout *l)
{
	unsigned long space = 1UL << (BITS_PER_LONG == 64 ? 35 : 19);
	unsigned long size[8], gap[8], total = 0, pos, max_size;
	unsigned int i, nr_hot = 0;

	max_size = 1UL << (BITS_PER_LONG == 64 ? 28 : 14);
	l->nr = 3 + prandom_u32_state(rnd) % 6;
	for (i = 0; i < l->nr; i++) {
		size[i] = 64UL << prandom_u32_state(rnd) %
			  (ilog2(max_size) - 5);
		size[i] += rnd_long(rnd, size[i]);
		gap[i] = prandom_u32_state(rnd) % 2 ? 0 :
			 1 + rnd_long(rnd, 1UL << 20);
		total += size[i] + gap[i];
	}
	pos = rnd_long(rnd, space - total);
	l->sparse = prandom_u32_state(rnd) % l->nr;
	for (i = 0; i < l->nr; i++) {
		pos += gap[i];
		l->first[i] = pos;
		l->end[i] = pos + size[i];
		pos += size[i];
		l->hot[i] = 0;
		if (i != l->sparse && prandom_u32_state(rnd) % 2)
			sparse_hot(rnd, l, i);
	}
	for (i = 0; i < l->nr && !nr_hot; i++)
		if (l->hot[i])
			nr_hot++;
	if (!nr_hot)
		sparse_hot(rnd, l, l->sparse ? 0 : 1);
	l->win_len = 1 + prandom_u32_state(rnd) % 2;
	i = l->sparse;
	switch (prandom_u32_state(rnd) % 3) {
	case 0:
		l->win = l->first[i];
		break;
	case 1:
		l->win = l->end[i] - l->win_len;
		break;
	default:
		l->win = l->first[i] +
			 rnd_long(rnd, size[i] - l->win_len + 1);
	}
}

/* The region of @t holding @addr, or NULL. */
static struct damon_perf_region *region_holding(struct damon_perf_target *t,
						unsigned long addr)
{
	struct damon_perf_region *r;

	damon_perf_for_each_region(r, t)
		if (r->start <= addr && addr < r->end)
			return r;
	return NULL;
}

/* Sample @page in sample interval @seq. */
static void sparse_add(struct damon_perf_samples *s, unsigned long page,
		       u64 seq)
{
	if (s->nr < s->cap) {
		s->buf[s->nr].key = damon_perf_sample_key(0,
							  page << PAGE_SHIFT);
		s->buf[s->nr++].tag = damon_perf_sample_tag(seq, 0);
	}
}

/*
 * One aggregation's samples and the counters the drain would give the
 * regions (presence: distinct sample intervals of 128); the pages of the
 * sparse window's samples go into @pg, their number is returned.
 */
static noinline unsigned int sparse_samples(struct rnd_state *rnd,
					    struct sparse_layout *l,
					    struct damon_perf_ctx *ctx,
					    struct damon_perf_target *t,
					    unsigned long pg[4])
{
	struct damon_perf_samples *s = &ctx->samples;
	unsigned long page, run;
	struct damon_perf_region *r;
	unsigned int i, j, k, n;
	bool seen[128];

	s->nr = 0;
	for (i = 0; i < l->nr; i++) {
		if (!l->hot[i])
			continue;
		n = 200 + prandom_u32_state(rnd) % 800;
		run = max(l->hot_len[i] / (2 * l->runs[i]), 1UL);
		for (j = 0; j < n; j++) {
			k = prandom_u32_state(rnd) % l->runs[i];
			page = l->hot[i] + (l->runs[i] == 1 ?
				rnd_long(rnd, l->hot_len[i]) :
				2 * k * run + rnd_long(rnd, run));
			sparse_add(s, page, j % 100);
		}
	}
	n = 2 + prandom_u32_state(rnd) % 3;
	for (j = 0; j < n; j++) {
		pg[j] = l->win + prandom_u32_state(rnd) % l->win_len;
		sparse_add(s, pg[j], 100 + j);
	}
	s->seen = s->nr;
	s->target_seen[0] = s->nr;
	damon_perf_for_each_region(r, t) {
		memset(seen, 0, sizeof(seen));
		r->nr_accesses = 0;
		for (j = 0; j < s->nr; j++) {
			page = damon_perf_sample_page(s->buf[j].key);
			k = damon_perf_sample_interval(s->buf[j].tag);
			if (r->start >> PAGE_SHIFT <= page &&
			    page < r->end >> PAGE_SHIFT) {
				r->nr_accesses += !seen[k];
				seen[k] = true;
				r->probe_hits[0]++;
			}
		}
	}
	return n;
}

static void
regions_split_samples_should_cut_sparse_pages_soon(struct kunit *test)
{
	struct damon_perf_ctx *ctx = ctx_with(test, DAMON_PERF_SPLIT_SAMPLES);
	struct damon_perf_target *t = target_alloc(test);
	struct damon_perf_region *r;
	struct sparse_layout *l = kunit_kzalloc(test, sizeof(*l), GFP_KERNEL);
	struct rnd_state rnd;
	unsigned int seed, i, agg, n, max_nr, failed = 0, seen = 0;
	unsigned long pg[4];

	KUNIT_ASSERT_NOT_NULL(test, l);
	ctx->samples.buf = kunit_kcalloc(test, SPARSE_CAP,
					 sizeof(*ctx->samples.buf), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx->samples.buf);
	ctx->samples.cap = SPARSE_CAP;
	for (seed = 1; seed <= SPARSE_SEEDS; seed++) {
		prandom_seed_state(&rnd, seed);
		sparse_layout(&rnd, l);
		for (i = 0; i < l->nr; i++) {
			r = damon_perf_region_new(l->first[i] << PAGE_SHIFT,
						  l->end[i] << PAGE_SHIFT);
			KUNIT_ASSERT_NOT_NULL(test, r);
			damon_perf_region_add(t, r);
		}
		ctx->attrs.max_nr_regions = 1000;
		list_add_tail(&t->list, &ctx->targets);
		for (agg = 0; agg < 2; agg++) {
			if (agg == 1 && seed % 2)
				ctx->attrs.max_nr_regions = t->nr_regions + 2;
			n = sparse_samples(&rnd, l, ctx, t, pg);
			damon_perf_regions_cut_ctx(ctx);
			max_nr = damon_perf_regions_max_nr_accesses(t);
			damon_perf_regions_merge_ctx(ctx, max_nr);
			KUNIT_EXPECT_LE(test, t->nr_regions,
					ctx->attrs.max_nr_regions);
			for (i = 0; agg == 1 && i < n; i++) {
				/* where the sparse samples are reported */
				r = region_holding(t, pg[i] << PAGE_SHIFT);
				seen += r && r->nr_accesses;
				if (r && r->start >> PAGE_SHIFT >= l->win &&
				    r->end >> PAGE_SHIFT <= l->win + l->win_len)
					continue;
				if (failed++ < 10)
					KUNIT_FAIL(test,
						   "seed %u: page %lx in [%lx, %lx), window %lx+%lu\n",
						   seed, pg[i],
						   r ? r->start : 0,
						   r ? r->end : 0, l->win,
						   l->win_len);
			}
			damon_perf_regions_reset(t);
			damon_perf_regions_split_ctx(ctx);
		}
		list_del(&t->list);
		damon_perf_regions_free(t);
	}
	/* the sparse samples were all reported, 2 to 4 a layout */
	KUNIT_EXPECT_GE(test, seen, 2U * SPARSE_SEEDS);
}

static struct kunit_case regions_cases[] = {
	KUNIT_CASE(regions_split_evenly_should_cover_range),
	KUNIT_CASE(regions_split_evenly_should_stop_at_page_granularity),
	KUNIT_CASE(regions_adjust_should_keep_invariants_on_random_input),
	KUNIT_CASE(regions_split_should_not_exceed_max),
	KUNIT_CASE(regions_merge_should_join_close_neighbours_only),
	KUNIT_CASE(regions_merge_should_average_huge_sizes_without_wrap),
	KUNIT_CASE(regions_merge_should_respect_size_limit_and_gaps),
	KUNIT_CASE(regions_merge_should_end_with_huge_counts),
	KUNIT_CASE(regions_merge_should_join_regions_with_huge_counts),
	KUNIT_CASE(regions_merge_should_keep_accessed_edges_in_samples_mode),
	KUNIT_CASE(regions_age_should_grow_while_stable_and_reset_on_change),
	KUNIT_CASE(regions_set_ranges_should_trim_extend_and_add),
	KUNIT_CASE(regions_set_ranges_should_close_holes),
	KUNIT_CASE(regions_split_samples_should_isolate_hot_ranges_at_once),
	KUNIT_CASE(regions_split_samples_should_find_sparse_hot_range),
	KUNIT_CASE(regions_split_samples_should_leave_uniform_regions),
	KUNIT_CASE(regions_split_samples_should_respect_bounds),
	KUNIT_CASE(regions_split_samples_should_isolate_runs),
	KUNIT_CASE(regions_split_samples_should_ignore_keys_outside),
	KUNIT_CASE(regions_split_samples_should_recount_pieces),
	KUNIT_CASE(regions_split_samples_should_recount_by_weight),
	KUNIT_CASE(regions_split_samples_should_count_intervals_far_apart),
	KUNIT_CASE(regions_split_should_cut_few_samples_on_one_page),
	KUNIT_CASE(regions_split_samples_should_cut_out_a_lone_sample),
	KUNIT_CASE(regions_split_samples_cost_at_the_budget),
	KUNIT_CASE(regions_split_samples_should_cut_sparse_pages_soon),
	KUNIT_CASE(regions_split_ctx_should_keep_random_mode),
	KUNIT_CASE(regions_split_ctx_should_cut_live_sampled_targets_only),
	KUNIT_CASE(regions_merge_ctx_should_keep_unsampled_targets),
	{}
};

static struct kunit_suite regions_suite = {
	.name = "damon_perf_regions",
	.test_cases = regions_cases,
};

kunit_test_suites(&regions_suite);
