// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the CPU budget's controller (kmod/budget.c), a pure function of
 * cost, budget and period, and its cost measure; the budget attribute's
 * bounds; damon_perf_source_set_period() on what it must refuse.
 */
#include <kunit/test.h>
#include <linux/math64.h>
#include <linux/perf_event.h>
#include <linux/string.h>

#include "budget.h"
#include "ctx.h"
#include "perf_source.h"
#include "probe.h"

#define PMAX	DAMON_PERF_SAMPLE_PERIOD_MAX

struct period_case {
	const char *desc;
	u32 cost;
	u32 budget;
	u64 period;
	u64 base;
	u64 top;
	u64 want;
};

/* cost in millionths of one CPU, budget in 1/100 % (= 100 millionths) */
static const struct period_case period_cases[] = {
	{ "budget 0 restores the base", 900000, 0, 64, 1, PMAX, 1 },
	{ "budget 0 at the base stays", 0, 0, 4, 4, PMAX, 4 },
	{ "over the budget doubles", 10001, 100, 1, 1, PMAX, 2 },
	{ "over the budget doubles a non-1 base", 500000, 50, 96, 3, PMAX,
	  192 },
	{ "at the budget holds", 10000, 100, 8, 1, PMAX, 8 },
	{ "just under the budget holds", 9999, 100, 8, 1, PMAX, 8 },
	{ "at the lower threshold holds", 37500, 1000, 8, 1, PMAX, 8 },
	{ "below the lower threshold halves", 37499, 1000, 8, 1, PMAX, 4 },
	{ "no cost halves", 0, 1, 8, 1, PMAX, 4 },
	{ "halving stops at the base", 0, 100, 5, 3, PMAX, 3 },
	{ "at the base stays", 0, 100, 3, 3, PMAX, 3 },
	{ "doubling stops at the top", U32_MAX, 1, PMAX / 2 + 1, 1, PMAX,
	  PMAX },
	{ "at the top stays", U32_MAX, 1, PMAX, 1, PMAX, PMAX },
	{ "base at the top stays", U32_MAX, 1, PMAX, PMAX, PMAX, PMAX },
	{ "below the base is raised to it", 5000, 100, 1, 16, PMAX, 16 },
	{ "above the top is cut to it", 5000, 100, PMAX * 2, 1, PMAX, PMAX },
	{ "top below base gives the base", U32_MAX, 1, 8, 16, 4, 16 },
	{ "the largest budget, over", 1000001, DAMON_PERF_CPU_BUDGET_MAX, 1,
	  1, PMAX, 2 },
	{ "the largest budget, at one CPU", 1000000,
	  DAMON_PERF_CPU_BUDGET_MAX, 4, 1, PMAX, 4 },
	{ "the smallest budget, over", 101, 1, 1, 1, PMAX, 2 },
	{ "the smallest budget, just under holds", 99, 1, 4, 1, PMAX, 4 },
	{ "the smallest budget, far under halves", 37, 1, 4, 1, PMAX, 2 },
	{ "the smallest budget, no cost", 0, 1, 2, 1, PMAX, 1 },
};

static void period_case_desc(const struct period_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(period, period_cases, period_case_desc);

static void next_period_should_follow_cost(struct kunit *test)
{
	const struct period_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, damon_perf_budget_next_period(c->cost, c->budget,
							    c->period, c->base,
							    c->top),
			c->want);
}

/* Stepping a constant load settles and never leaves base .. top. */
static void next_period_should_settle_without_oscillating(struct kunit *test)
{
	/* cost = load / period, in millionths: 80 % of one CPU at period 1 */
	const u64 load = 800000;
	const u32 budget = 100;	/* 1 % = 10000 millionths */
	u64 period = 1, prev = 0, prevprev = 0;
	int i;

	for (i = 0; i < 64; i++) {
		u32 cost = div64_u64(load, period);

		prevprev = prev;
		prev = period;
		period = damon_perf_budget_next_period(cost, budget, period, 1,
						       PMAX);
		KUNIT_ASSERT_GE(test, period, 1ULL);
		KUNIT_ASSERT_LE(test, period, PMAX);
	}
	/* held, not flipping between two values */
	KUNIT_EXPECT_EQ(test, period, prev);
	KUNIT_EXPECT_EQ(test, prev, prevprev);
	KUNIT_EXPECT_LE(test, div64_u64(load, period), (u64)budget * 100);
	/* and not more than one doubling above what the budget needs */
	KUNIT_EXPECT_GT(test, div64_u64(load, period / 2),
			(u64)budget * 100 * 3 / 8);
}

static void cost_should_scale_and_saturate(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, damon_perf_budget_cost(0, 0), 0U);
	KUNIT_EXPECT_EQ(test, damon_perf_budget_cost(U64_MAX, 0), 0U);
	KUNIT_EXPECT_EQ(test, damon_perf_budget_cost(0, NSEC_PER_SEC), 0U);
	/* 1 % of one CPU = 10000 millionths */
	KUNIT_EXPECT_EQ(test, damon_perf_budget_cost(10 * NSEC_PER_MSEC,
						     NSEC_PER_SEC), 10000U);
	/* 0.5 % */
	KUNIT_EXPECT_EQ(test, damon_perf_budget_cost(5 * NSEC_PER_MSEC,
						     NSEC_PER_SEC), 5000U);
	/* one CPU, and two (handlers on two CPUs) */
	KUNIT_EXPECT_EQ(test, damon_perf_budget_cost(NSEC_PER_SEC,
						     NSEC_PER_SEC), 1000000U);
	KUNIT_EXPECT_EQ(test, damon_perf_budget_cost(2 * NSEC_PER_SEC,
						     NSEC_PER_SEC), 2000000U);
	/* below the smallest budget (1/100 %) it still counts */
	KUNIT_EXPECT_EQ(test, damon_perf_budget_cost(99 * NSEC_PER_USEC,
						     NSEC_PER_SEC), 99U);
	/* below a millionth rounds down */
	KUNIT_EXPECT_EQ(test, damon_perf_budget_cost(999, NSEC_PER_SEC), 0U);
	KUNIT_EXPECT_EQ(test, damon_perf_budget_cost(U64_MAX, 1), U32_MAX);
	KUNIT_EXPECT_EQ(test, damon_perf_budget_cost(U64_MAX, U64_MAX),
			1000000U);
	KUNIT_EXPECT_EQ(test, damon_perf_budget_cost(1ULL << 62, 1ULL << 20),
			U32_MAX);
	/* just under saturation is still computed */
	KUNIT_EXPECT_EQ(test, damon_perf_budget_cost(4000ULL * NSEC_PER_SEC,
						     NSEC_PER_SEC),
			4000000000U);
}

static void attrs_should_bound_cpu_budget(struct kunit *test)
{
	struct netlink_ext_ack extack = {};
	struct damon_perf_attrs a;

	damon_perf_attrs_default(&a);
	KUNIT_EXPECT_EQ(test, a.cpu_budget, 0U);
	KUNIT_EXPECT_EQ(test, damon_perf_attrs_validate(&a, &extack), 0);
	a.cpu_budget = 1;
	KUNIT_EXPECT_EQ(test, damon_perf_attrs_validate(&a, &extack), 0);
	a.cpu_budget = DAMON_PERF_CPU_BUDGET_MAX;
	KUNIT_EXPECT_EQ(test, damon_perf_attrs_validate(&a, &extack), 0);
	a.cpu_budget = DAMON_PERF_CPU_BUDGET_MAX + 1;
	KUNIT_EXPECT_EQ(test, damon_perf_attrs_validate(&a, &extack), -EINVAL);
	KUNIT_EXPECT_NOT_NULL(test, extack._msg);
	a.cpu_budget = U32_MAX;
	KUNIT_EXPECT_EQ(test, damon_perf_attrs_validate(&a, NULL), -EINVAL);
}

static void set_period_should_refuse_bad_calls(struct kunit *test)
{
	struct damon_perf_probe_attr pa = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_PAGE_FAULTS,
		.sample_period = 1,
	};
	struct damon_perf_ctx *ctx;
	int idx;

	mutex_lock(&damon_perf_lock);
	ctx = damon_perf_ctx_new("kunit-budget", DAMON_PERF_OPS_VADDR, NULL);
	if (IS_ERR(ctx)) {
		mutex_unlock(&damon_perf_lock);
		KUNIT_FAIL(test, "ctx_new: %ld", PTR_ERR(ctx));
		return;
	}
	idx = damon_perf_probe_add(ctx, &pa, NULL);
	KUNIT_EXPECT_EQ(test, idx, 1);
	/* configured, not armed */
	KUNIT_EXPECT_EQ(test, damon_perf_source_period(ctx, 1), 0ULL);
	KUNIT_EXPECT_EQ(test, damon_perf_source_set_period(ctx, 1, 2),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, damon_perf_source_set_period(ctx, 1, 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, damon_perf_source_set_period(ctx, 1, PMAX + 1),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, damon_perf_source_set_period(ctx, 0, 2),
			-EINVAL);
	KUNIT_EXPECT_EQ(test,
			damon_perf_source_set_period(ctx,
						     DAMON_PERF_MAX_PROBES + 1,
						     2),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, damon_perf_source_period(ctx, 0), 0ULL);
	KUNIT_EXPECT_EQ(test,
			damon_perf_source_period(ctx,
						 DAMON_PERF_MAX_PROBES + 1),
			0ULL);
	KUNIT_EXPECT_EQ(test, damon_perf_source_handler_ns(ctx), 0ULL);
	KUNIT_EXPECT_EQ(test, damon_perf_ctx_destroy(ctx, NULL), 0);
	mutex_unlock(&damon_perf_lock);
}

static struct kunit_case budget_cases[] = {
	KUNIT_CASE_PARAM(next_period_should_follow_cost, period_gen_params),
	KUNIT_CASE(next_period_should_settle_without_oscillating),
	KUNIT_CASE(cost_should_scale_and_saturate),
	KUNIT_CASE(attrs_should_bound_cpu_budget),
	KUNIT_CASE(set_period_should_refuse_bad_calls),
	{}
};

static struct kunit_suite budget_suite = {
	.name = "damon_perf_budget",
	.test_cases = budget_cases,
};

kunit_test_suites(&budget_suite);
