// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: region lists and DAMON's adaptive adjustment (regions.c).
 */
#include <kunit/test.h>
#include <linux/random.h>
#include <linux/sched.h>

#include "regions.h"

#define BASE	(1UL << 30)
#define PG	DAMON_PERF_MIN_REGION

static struct damon_perf_target *target_alloc(struct kunit *test)
{
	struct damon_perf_target *t;

	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	INIT_LIST_HEAD(&t->regions);
	return t;
}

/* Regions are freed at the end of the case even when an assertion fails. */
static int cleanup_init(struct kunit_resource *res, void *t)
{
	res->data = t;
	return 0;
}

static void cleanup_free(struct kunit_resource *res)
{
	damon_perf_regions_free(res->data);
}

static void free_at_end(struct kunit *test, struct damon_perf_target *t)
{
	KUNIT_ASSERT_NOT_NULL(test, kunit_alloc_resource(test, cleanup_init,
			cleanup_free, GFP_KERNEL, t));
}

static struct damon_perf_target *target_with(struct kunit *test,
					     unsigned long start,
					     unsigned long end, unsigned int nr)
{
	struct damon_perf_target *t = target_alloc(test);

	free_at_end(test, t);
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

static void regions_split_evenly_should_stop_at_page_granularity(
		struct kunit *test)
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
static void regions_adjust_should_keep_invariants_on_random_input(
		struct kunit *test)
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
			unsigned int before;

			damon_perf_regions_adjust_split(t, &attrs);
			expect_cover(test, t, &range, 1);
			KUNIT_EXPECT_LE(test, t->nr_regions,
					attrs.max_nr_regions);

			random_counts(t, 1 + get_random_u32_below(50));
			before = t->nr_regions;
			damon_perf_regions_adjust_merge(t, &attrs,
				damon_perf_regions_max_nr_accesses(t));
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

static void regions_merge_should_join_close_neighbours_only(
		struct kunit *test)
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

static void regions_merge_should_respect_size_limit_and_gaps(
		struct kunit *test)
{
	struct damon_perf_target *t = target_alloc(test);
	struct damon_perf_region *r;

	free_at_end(test, t);
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

		free_at_end(test, t);
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

/* Huge counts still merge: the threshold passes them without wrapping. */
static void regions_merge_should_join_regions_with_huge_counts(
		struct kunit *test)
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

static void regions_age_should_grow_while_stable_and_reset_on_change(
		struct kunit *test)
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

	free_at_end(test, t);
	damon_perf_region_add(t, damon_perf_region_new(BASE + PG,
						       BASE + 3 * PG));
	damon_perf_region_add(t, damon_perf_region_new(BASE + 6 * PG,
						       BASE + 8 * PG));
	KUNIT_ASSERT_EQ(test, 0, damon_perf_regions_set_ranges(t, &range, 1));
	KUNIT_EXPECT_EQ(test, t->nr_regions, 2U);
	expect_cover(test, t, &range, 1);
}

static struct kunit_case regions_cases[] = {
	KUNIT_CASE(regions_split_evenly_should_cover_range),
	KUNIT_CASE(regions_split_evenly_should_stop_at_page_granularity),
	KUNIT_CASE(regions_adjust_should_keep_invariants_on_random_input),
	KUNIT_CASE(regions_split_should_not_exceed_max),
	KUNIT_CASE(regions_merge_should_join_close_neighbours_only),
	KUNIT_CASE(regions_merge_should_respect_size_limit_and_gaps),
	KUNIT_CASE(regions_merge_should_end_with_huge_counts),
	KUNIT_CASE(regions_merge_should_join_regions_with_huge_counts),
	KUNIT_CASE(regions_age_should_grow_while_stable_and_reset_on_change),
	KUNIT_CASE(regions_set_ranges_should_trim_extend_and_add),
	KUNIT_CASE(regions_set_ranges_should_close_holes),
	{}
};

static struct kunit_suite regions_suite = {
	.name = "damon_perf_regions",
	.test_cases = regions_cases,
};

kunit_test_suites(&regions_suite);
