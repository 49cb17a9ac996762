// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the intervals tuning (kmod/tune.c): its step, a pure function of
 * the observation and the bounds; the bounds it derives; a source of a
 * fixed rate followed step by step to where it settles; the observation
 * window of goal_aggrs measurements and the ages it rescales; the goal
 * attributes' bounds.
 */
#include <kunit/test.h>
#include <linux/math64.h>
#include <linux/slab.h>

#include "budget.h"
#include "ctx.h"
#include "regions.h"
#include "tune.h"

#define MS	1000ULL			/* us */
#define SEC	NSEC_PER_SEC		/* ns */
#define IMAX	DAMON_PERF_INTERVAL_US_MAX

struct next_case {
	const char *desc;
	u64 cur, goal, samples, elapsed_ns, lo, hi, s;
	u64 want;
};

/* 100 ms in force, goal 100 samples, sample interval 5 ms unless said */
static const struct next_case next_cases[] = {
	{ "at the goal holds", 100 * MS, 100, 100, SEC / 10, 5 * MS, IMAX,
	  5 * MS, 100 * MS },
	{ "just under twice the goal holds", 100 * MS, 100, 199, SEC / 10,
	  5 * MS, IMAX, 5 * MS, 100 * MS },
	{ "twice the goal shortens to 1.5x", 100 * MS, 100, 200, SEC / 10,
	  5 * MS, IMAX, 5 * MS, 75 * MS },
	{ "just under the goal lengthens", 100 * MS, 100, 99, SEC / 10,
	  5 * MS, IMAX, 5 * MS, 150 * MS },
	{ "a quarter of the goal doubles at most", 100 * MS, 100, 25,
	  SEC / 10, 5 * MS, IMAX, 5 * MS, 200 * MS },
	{ "no sample doubles", 100 * MS, 100, 0, SEC, 5 * MS, IMAX, 5 * MS,
	  200 * MS },
	{ "ten times the goal halves at most", 100 * MS, 100, 1000,
	  SEC / 10, 5 * MS, IMAX, 5 * MS, 50 * MS },
	{ "the rate counts, not the sum: 3 windows at the goal hold",
	  100 * MS, 100, 300, 3 * SEC / 10, 5 * MS, IMAX, 5 * MS, 100 * MS },
	{ "a longer observation lowers the rate", 100 * MS, 100, 100,
	  3 * SEC / 10, 5 * MS, IMAX, 5 * MS, 200 * MS },
	{ "lengthening stops at the upper bound", 100 * MS, 100, 0, SEC,
	  5 * MS, 120 * MS, 5 * MS, 120 * MS },
	{ "shortening stops at the lower bound", 100 * MS, 100, 100000,
	  SEC / 10, 80 * MS, IMAX, 5 * MS, 80 * MS },
	{ "rounded down to the sample interval (7 ms)", 140 * MS, 100, 90,
	  SEC * 14 / 100, 7 * MS, IMAX, 7 * MS, 231 * MS },
	{ "a sample interval other than 5 ms, at the goal", 60 * MS, 10, 10,
	  SEC * 6 / 100, 3 * MS, IMAX, 3 * MS, 60 * MS },
	{ "in force above the upper bound comes down", 500 * MS, 100, 150,
	  SEC / 2, 5 * MS, 200 * MS, 5 * MS, 200 * MS },
	{ "nothing observed holds", 100 * MS, 100, 0, 0, 5 * MS, IMAX,
	  5 * MS, 100 * MS },
	{ "the largest goal, none seen", IMAX / 2, DAMON_PERF_SAMPLES_GOAL_MAX,
	  0, SEC, 100, IMAX, 100, IMAX - IMAX % 100 },
	{ "a huge rate saturates, halves", IMAX, 1, U64_MAX, 1, 100, IMAX,
	  100, IMAX / 2 },
	{ "goal 1, one sample in a long window", 100 * MS, 1, 1, 10 * SEC,
	  5 * MS, IMAX, 5 * MS, 200 * MS },
};

static void next_case_desc(const struct next_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(next, next_cases, next_case_desc);

static void next_should_hold_the_goal_band(struct kunit *test)
{
	const struct next_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, damon_perf_tune_next(c->cur, c->goal,
						   c->samples, c->elapsed_ns,
						   c->lo, c->hi, c->s),
			c->want);
}

/*
 * A source of a fixed rate, from 1 to 10^6 samples per second, followed
 * step by step from 100 ms: it settles within 20 steps where an interval
 * holds the goal to twice the goal (or at a bound that keeps it from
 * there), and then never moves again.
 */
static void next_should_settle_for_any_rate(struct kunit *test)
{
	static const u64 rates[] = { 1, 3, 10, 77, 100, 1000, 12345, 1000000 };
	static const u64 goals[] = { 1, 20, 100, 5000 };
	const u64 s = 5 * MS, lo = 10 * MS, hi = 60000 * MS;
	unsigned int i, j, k;

	for (i = 0; i < ARRAY_SIZE(rates); i++) {
		for (j = 0; j < ARRAY_SIZE(goals); j++) {
			u64 cur = 100 * MS, prev = 0, per, slack;
			unsigned int moves = 0;

			for (k = 0; k < 40; k++) {
				/* 3 aggregations observed, no noise */
				u64 el = 3 * cur * NSEC_PER_USEC;
				u64 n = div_u64(rates[i] * el, SEC);
				u64 next = damon_perf_tune_next(cur, goals[j],
								n, el, lo, hi,
								s);

				if (k >= 20 && next != cur)
					moves++;
				prev = cur;
				cur = next;
			}
			KUNIT_EXPECT_EQ_MSG(test, moves, 0U,
					    "rate %llu goal %llu", rates[i],
					    goals[j]);
			KUNIT_EXPECT_EQ(test, cur, prev);
			per = div_u64(rates[i] * cur, USEC_PER_SEC);
			/* rounding to 5 ms may leave it just under */
			slack = div_u64(rates[i] * s, USEC_PER_SEC) + 1;
			if (cur > lo && cur < hi) {
				KUNIT_EXPECT_GE_MSG(test, per + slack, goals[j],
						    "rate %llu goal %llu",
						    rates[i], goals[j]);
				KUNIT_EXPECT_LT_MSG(test, per, 2 * goals[j],
						    "rate %llu goal %llu",
						    rates[i], goals[j]);
			} else if (cur == hi) {
				KUNIT_EXPECT_LT(test, per, 2 * goals[j]);
			} else {
				KUNIT_EXPECT_GE(test, per, goals[j]);
			}
		}
	}
}

static void bounds_should_derive_and_round(struct kunit *test)
{
	struct damon_perf_attrs a;
	u64 lo, hi;

	damon_perf_attrs_default(&a);
	KUNIT_EXPECT_EQ(test, a.samples_goal, 0U);
	KUNIT_EXPECT_EQ(test, a.goal_aggrs, 3U);
	damon_perf_tune_bounds(&a, &lo, &hi);
	KUNIT_EXPECT_EQ(test, lo, 10 * MS);
	KUNIT_EXPECT_EQ(test, hi, 1000 * MS);
	/* given bounds, rounded to the sample interval (5 ms) */
	a.min_aggr_us = 12 * MS;
	a.max_aggr_us = 33 * MS;
	damon_perf_tune_bounds(&a, &lo, &hi);
	KUNIT_EXPECT_EQ(test, lo, 15 * MS);
	KUNIT_EXPECT_EQ(test, hi, 30 * MS);
	/* a tenth below one sample interval is one */
	a.min_aggr_us = 0;
	a.aggr_us = 20 * MS;
	damon_perf_tune_bounds(&a, &lo, &hi);
	KUNIT_EXPECT_EQ(test, lo, 5 * MS);
	/* ten times past the uapi limit is the limit (rounded) */
	a.sample_us = 100;
	a.aggr_us = IMAX;
	a.max_aggr_us = 0;
	damon_perf_tune_bounds(&a, &lo, &hi);
	KUNIT_EXPECT_EQ(test, hi, (u64)IMAX);
	/* rounding that would cross keeps hi at lo */
	a.sample_us = 7 * MS;
	a.min_aggr_us = 8 * MS;
	a.max_aggr_us = 9 * MS;
	damon_perf_tune_bounds(&a, &lo, &hi);
	KUNIT_EXPECT_EQ(test, lo, 14 * MS);
	KUNIT_EXPECT_EQ(test, hi, 14 * MS);
}

static void attrs_should_bound_the_goal(struct kunit *test)
{
	struct netlink_ext_ack extack = {};
	struct damon_perf_attrs a;

	damon_perf_attrs_default(&a);
	a.samples_goal = DAMON_PERF_SAMPLES_GOAL_MAX;
	a.goal_aggrs = DAMON_PERF_GOAL_AGGRS_MAX;
	a.min_aggr_us = 1;
	a.max_aggr_us = IMAX;
	KUNIT_EXPECT_EQ(test, damon_perf_attrs_validate(&a, &extack), 0);
	a.samples_goal = DAMON_PERF_SAMPLES_GOAL_MAX + 1;
	KUNIT_EXPECT_EQ(test, damon_perf_attrs_validate(&a, &extack), -EINVAL);
	KUNIT_EXPECT_NOT_NULL(test, extack._msg);
	a.samples_goal = 1;
	a.goal_aggrs = 0;
	KUNIT_EXPECT_EQ(test, damon_perf_attrs_validate(&a, NULL), -EINVAL);
	a.goal_aggrs = DAMON_PERF_GOAL_AGGRS_MAX + 1;
	KUNIT_EXPECT_EQ(test, damon_perf_attrs_validate(&a, NULL), -EINVAL);
	a.goal_aggrs = 1;
	a.max_aggr_us = IMAX + 1;
	KUNIT_EXPECT_EQ(test, damon_perf_attrs_validate(&a, NULL), -EINVAL);
	a.max_aggr_us = 0;
	a.min_aggr_us = IMAX + 1;
	KUNIT_EXPECT_EQ(test, damon_perf_attrs_validate(&a, NULL), -EINVAL);
	a.min_aggr_us = 200 * MS;
	a.max_aggr_us = 100 * MS;
	KUNIT_EXPECT_EQ(test, damon_perf_attrs_validate(&a, NULL), -EINVAL);
	a.min_aggr_us = 0;
	a.max_aggr_us = a.sample_us - 1;
	KUNIT_EXPECT_EQ(test, damon_perf_attrs_validate(&a, NULL), -EINVAL);
	a.max_aggr_us = a.sample_us;
	KUNIT_EXPECT_EQ(test, damon_perf_attrs_validate(&a, NULL), 0);
}

/* A context of one target with three regions, not registered anywhere. */
struct tune_fixture {
	struct damon_perf_ctx *ctx;
	struct damon_perf_target *t;
};

static void fixture_free(struct kunit_resource *res)
{
	struct tune_fixture *f = res->data;

	damon_perf_regions_free(f->t);
	kfree(f->t);
}

static int fixture_init(struct kunit_resource *res, void *f)
{
	res->data = f;
	return 0;
}

static void measured_should_step_every_goal_aggrs(struct kunit *test)
{
	struct tune_fixture *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	struct damon_perf_region *r;
	const u64 el = 100 * MS * NSEC_PER_USEC;
	unsigned int i, ages[3] = { 0, 7, UINT_MAX };

	KUNIT_ASSERT_NOT_NULL(test, f);
	f->ctx = kunit_kzalloc(test, sizeof(*f->ctx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f->ctx);
	f->t = damon_perf_target_new(1);
	KUNIT_ASSERT_NOT_NULL(test, f->t);
	if (!kunit_alloc_resource(test, fixture_init, fixture_free,
				  GFP_KERNEL, f)) {
		kfree(f->t);
		KUNIT_ASSERT_FAILURE(test, "no memory for the cleanup");
	}
	INIT_LIST_HEAD(&f->ctx->targets);
	list_add_tail(&f->t->list, &f->ctx->targets);
	for (i = 0; i < 3; i++) {
		r = damon_perf_region_new(BIT(30) + i * PAGE_SIZE,
					  BIT(30) + (i + 1) * PAGE_SIZE);
		KUNIT_ASSERT_NOT_NULL(test, r);
		r->age = ages[i];
		damon_perf_region_add(f->t, r);
	}
	damon_perf_attrs_default(&f->ctx->attrs);

	/* no goal: the configured interval, nothing observed */
	damon_perf_tune_start(f->ctx);
	KUNIT_EXPECT_EQ(test, damon_perf_tune_aggr_us(f->ctx), 100 * MS);
	KUNIT_EXPECT_EQ(test, f->ctx->tune.aggr_us, 0ULL);
	damon_perf_tune_measured(f->ctx, 0, el);
	KUNIT_EXPECT_EQ(test, f->ctx->tune.steps, 0ULL);

	/* goal 100, 2 aggregations a step; 20 samples in each: 5x short */
	f->ctx->attrs.samples_goal = 100;
	f->ctx->attrs.goal_aggrs = 2;
	damon_perf_tune_start(f->ctx);
	KUNIT_EXPECT_EQ(test, damon_perf_tune_aggr_us(f->ctx), 100 * MS);
	damon_perf_tune_measured(f->ctx, 20, el);
	KUNIT_EXPECT_EQ(test, f->ctx->tune.steps, 0ULL);
	KUNIT_EXPECT_EQ(test, damon_perf_tune_aggr_us(f->ctx), 100 * MS);
	damon_perf_tune_measured(f->ctx, 20, el);
	KUNIT_EXPECT_EQ(test, f->ctx->tune.steps, 1ULL);
	KUNIT_EXPECT_EQ(test, f->ctx->tune.ups, 1ULL);
	KUNIT_EXPECT_EQ(test, f->ctx->tune.last, 20ULL);
	KUNIT_EXPECT_EQ(test, damon_perf_tune_aggr_us(f->ctx), 200 * MS);
	/* ages halve with the doubled interval; the largest stays finite */
	i = 0;
	damon_perf_for_each_region(r, f->t)
		KUNIT_EXPECT_EQ(test, r->age, ages[i++] / 2);

	/* 1000 samples in each of two 200 ms: 5x over, halves */
	damon_perf_tune_measured(f->ctx, 1000, 2 * el);
	damon_perf_tune_measured(f->ctx, 1000, 2 * el);
	KUNIT_EXPECT_EQ(test, f->ctx->tune.downs, 1ULL);
	KUNIT_EXPECT_EQ(test, damon_perf_tune_aggr_us(f->ctx), 100 * MS);
	KUNIT_EXPECT_EQ(test, f->ctx->tune.last, 1000ULL);
	i = 0;
	damon_perf_for_each_region(r, f->t) {
		KUNIT_EXPECT_EQ(test, r->age, ages[i] / 2 * 2);
		i++;
	}

	/* in the band: a step that holds */
	damon_perf_tune_measured(f->ctx, 150, el);
	damon_perf_tune_measured(f->ctx, 150, el);
	KUNIT_EXPECT_EQ(test, f->ctx->tune.steps, 3ULL);
	KUNIT_EXPECT_EQ(test, f->ctx->tune.ups + f->ctx->tune.downs, 2ULL);
	KUNIT_EXPECT_EQ(test, damon_perf_tune_aggr_us(f->ctx), 100 * MS);

	/* a restart forgets the steps and starts from aggr_us again */
	f->ctx->attrs.aggr_us = 300 * MS;
	damon_perf_tune_start(f->ctx);
	KUNIT_EXPECT_EQ(test, f->ctx->tune.steps, 0ULL);
	KUNIT_EXPECT_EQ(test, damon_perf_tune_aggr_us(f->ctx), 300 * MS);
	KUNIT_EXPECT_EQ(test, f->ctx->tune.min_us, 30 * MS);
	KUNIT_EXPECT_EQ(test, f->ctx->tune.max_us, 3000 * MS);
}

/*
 * Past the interval's bounds, and only there, the periods: lowered one
 * halving a step while the longest interval holds less than the goal and
 * the budget has room, given back at the shortest with twice the goal.
 */
static void measured_should_lower_periods_past_the_bounds(struct kunit *test)
{
	struct damon_perf_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx),
						   GFP_KERNEL);
	struct damon_perf_tune *t;
	const u64 el = 100 * MS * NSEC_PER_USEC;

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	t = &ctx->tune;
	INIT_LIST_HEAD(&ctx->targets);
	damon_perf_attrs_default(&ctx->attrs);
	ctx->attrs.samples_goal = 1000;
	ctx->attrs.goal_aggrs = 1;
	ctx->attrs.min_aggr_us = 50 * MS;
	ctx->attrs.max_aggr_us = 200 * MS;
	damon_perf_tune_start(ctx);
	KUNIT_EXPECT_EQ(test, t->period_shift, 0U);

	/* below the goal, below the longest interval: the interval moves */
	damon_perf_tune_measured(ctx, 10, el);
	KUNIT_EXPECT_EQ(test, damon_perf_tune_aggr_us(ctx), 200 * MS);
	KUNIT_EXPECT_EQ(test, t->period_shift, 0U);
	/* at the longest, still below, no budget: the periods stay */
	damon_perf_tune_measured(ctx, 20, 2 * el);
	KUNIT_EXPECT_EQ(test, t->period_shift, 0U);
	/* a budget with room: one halving a step */
	ctx->attrs.cpu_budget = 100;	/* 1 % */
	ctx->budget.cost = 0;
	damon_perf_tune_measured(ctx, 20, 2 * el);
	KUNIT_EXPECT_EQ(test, t->period_shift, 1U);
	damon_perf_tune_measured(ctx, 40, 2 * el);
	KUNIT_EXPECT_EQ(test, t->period_shift, 2U);
	/* no room: 2 x 3750 is not below 3/4 of 10000 millionths */
	ctx->budget.cost = 3750;
	damon_perf_tune_measured(ctx, 80, 2 * el);
	KUNIT_EXPECT_EQ(test, t->period_shift, 2U);
	ctx->budget.cost = 3749;
	damon_perf_tune_measured(ctx, 80, 2 * el);
	KUNIT_EXPECT_EQ(test, t->period_shift, 3U);
	/* the goal met at the longest interval: the periods stay */
	damon_perf_tune_measured(ctx, 1500, 2 * el);
	KUNIT_EXPECT_EQ(test, t->period_shift, 3U);
	KUNIT_EXPECT_EQ(test, damon_perf_tune_aggr_us(ctx), 200 * MS);
	/* far above: the interval shortens first, the periods stay */
	damon_perf_tune_measured(ctx, 20000, 2 * el);
	KUNIT_EXPECT_EQ(test, damon_perf_tune_aggr_us(ctx), 100 * MS);
	KUNIT_EXPECT_EQ(test, t->period_shift, 3U);
	damon_perf_tune_measured(ctx, 10000, el);
	KUNIT_EXPECT_EQ(test, damon_perf_tune_aggr_us(ctx), 50 * MS);
	/* at the shortest with twice the goal: one halving back a step */
	KUNIT_EXPECT_EQ(test, t->period_shift, 2U);
	damon_perf_tune_measured(ctx, 5000, el / 2);
	KUNIT_EXPECT_EQ(test, t->period_shift, 1U);
	/* at the shortest within the goal: they stay */
	damon_perf_tune_measured(ctx, 1500, el / 2);
	KUNIT_EXPECT_EQ(test, t->period_shift, 1U);
	/* a restart gives every halving back */
	damon_perf_tune_start(ctx);
	KUNIT_EXPECT_EQ(test, t->period_shift, 0U);

	/* the bound: at most 2^16 */
	ctx->budget.cost = 0;
	for (int i = 0; i < 40; i++)
		damon_perf_tune_measured(ctx, 0, 2 * el);
	KUNIT_EXPECT_EQ(test, t->period_shift, 16U);

	/* the budget's room itself */
	KUNIT_EXPECT_FALSE(test, damon_perf_budget_room(0, 0));
	KUNIT_EXPECT_TRUE(test, damon_perf_budget_room(0, 1));
	KUNIT_EXPECT_TRUE(test, damon_perf_budget_room(37, 1));
	KUNIT_EXPECT_FALSE(test, damon_perf_budget_room(38, 1));
	KUNIT_EXPECT_FALSE(test,
			   damon_perf_budget_room(U32_MAX,
						  DAMON_PERF_CPU_BUDGET_MAX));
}

static struct kunit_case tune_cases[] = {
	KUNIT_CASE_PARAM(next_should_hold_the_goal_band, next_gen_params),
	KUNIT_CASE(next_should_settle_for_any_rate),
	KUNIT_CASE(bounds_should_derive_and_round),
	KUNIT_CASE(attrs_should_bound_the_goal),
	KUNIT_CASE(measured_should_step_every_goal_aggrs),
	KUNIT_CASE(measured_should_lower_periods_past_the_bounds),
	{}
};

static struct kunit_suite tune_suite = {
	.name = "damon_perf_tune",
	.test_cases = tune_cases,
};

kunit_test_suites(&tune_suite);
