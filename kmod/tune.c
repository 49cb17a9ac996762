// SPDX-License-Identifier: GPL-2.0
/*
 * Intervals tuning (Documentation/access-semantics.rst, "Intervals
 * tuning").
 *
 * A sampled source delivers what the PMU and the workload give it: a
 * burst source, a low rate chosen to save CPU or a large address space
 * leave an aggregation too few samples to tell hot from cold. With a
 * samples goal set, the kdamond observes goal_aggrs measurements (a
 * measurement carried forward across aggregations counts once, with all
 * its time), takes their samples per second, and moves the aggregation
 * interval towards the one that would hold one and a half times the goal:
 * at most doubled or halved per step, within min_aggr_us..max_aggr_us,
 * a multiple of the sample interval. An interval that already holds the
 * goal to twice the goal is kept: that band is the hysteresis. DAMON
 * tunes its sample interval to a share of observed accesses
 * (intervals_goal, 6.15); a sampled source's samples are its signal, so
 * the goal is a count of them and the aggregation interval is what moves
 * (the sample interval is only the drain's).
 *
 * When even the longest interval holds less than the goal, and the CPU
 * budget has room (budget.c), each step lets the budget lower the
 * fixed-period probes' periods one more halving below their configured
 * periods (at most 2^16 times); when the shortest interval holds twice
 * the goal, each step takes one halving back. In between the periods stay:
 * the interval adapts first, the periods only past its bounds, so the two
 * do not chase each other. Without a budget the periods are never lowered
 * below the configured ones (the configured period is the rate the user
 * chose for the PMU; the budget is what bounds its cost).
 *
 * Ages are counted in aggregations: a step rescales them to the new
 * interval, as DAMON's damon_update_monitoring_results() does, so that a
 * region's age in seconds survives it.
 */
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/sched.h>

#include "budget.h"
#include "ctx_types.h"
#include "tune.h"

/* Default bounds: a tenth of aggr_us and ten times it. */
#define DEF_RANGE	10
/* Periods lowered at most 2^PERIOD_SHIFT_MAX times below the configured. */
#define PERIOD_SHIFT_MAX	16

/*
 * @a * @b / @c, saturating at U64_MAX: x86's mul_u64_u64_div_u64() traps
 * when the quotient needs more than 64 bits. floor(@a / @c) below
 * floor(U64_MAX / @b) keeps it within.
 */
static u64 muldiv(u64 a, u64 b, u64 c)
{
	if (!c)
		return U64_MAX;
	if (b && div64_u64(a, c) >= div64_u64(U64_MAX, b))
		return U64_MAX;
	return mul_u64_u64_div_u64(a, b, c);
}

/**
 * damon_perf_tune_bounds() - The tuned interval's bounds in force.
 * @a:		the attributes.
 * @min_us:	receives the lower bound.
 * @max_us:	receives the upper bound, at least @min_us.
 *
 * A bound of 0 in @a is derived from aggr_us (a tenth, ten times). Both
 * are multiples of the sample interval, the lower one at least one.
 *
 * Context: any.
 */
void damon_perf_tune_bounds(const struct damon_perf_attrs *a, u64 *min_us,
			    u64 *max_us)
{
	u64 s = max_t(u64, a->sample_us, 1);
	u64 lo = a->min_aggr_us ?: div_u64(a->aggr_us, DEF_RANGE);
	u64 hi = a->max_aggr_us ?:
		 min_t(u64, a->aggr_us * DEF_RANGE,
		       DAMON_PERF_INTERVAL_US_MAX);

	lo = max(roundup(lo, s), s);
	hi = max(rounddown(hi, s), lo);
	*min_us = lo;
	*max_us = hi;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_tune_bounds);

/**
 * damon_perf_tune_next() - One tuning step.
 * @cur_us:	the aggregation interval in force.
 * @goal:	samples an aggregation should hold (> 0).
 * @samples:	samples observed.
 * @elapsed_ns:	the time they were observed in.
 * @min_us:	the lower bound, a multiple of @sample_us.
 * @max_us:	the upper bound, a multiple of @sample_us, >= @min_us.
 * @sample_us:	the sample interval (> 0).
 *
 * Context: any.
 * Return: the next interval: @cur_us when an interval of @cur_us held
 * @goal to 2 * @goal samples at the observed rate (or nothing was
 * observed); otherwise the interval that would hold 3/2 * @goal, within
 * @cur_us / 2 .. 2 * @cur_us and @min_us .. @max_us, rounded down to a
 * multiple of @sample_us. No sample at all doubles it.
 */
u64 damon_perf_tune_next(u64 cur_us, u64 goal, u64 samples, u64 elapsed_ns,
			 u64 min_us, u64 max_us, u64 sample_us)
{
	u64 per, ideal, next;

	if (!elapsed_ns || !goal || !sample_us)
		return cur_us;
	/* samples an interval of cur_us held, at the observed rate */
	per = muldiv(samples, cur_us * NSEC_PER_USEC, elapsed_ns);
	if (per >= goal && per < 2 * goal)
		return clamp(cur_us, min_us, max_us);
	if (!samples)
		ideal = U64_MAX;
	else
		ideal = div_u64(muldiv(goal * 3 / 2 ?: 1, elapsed_ns, samples),
				NSEC_PER_USEC);
	next = clamp(ideal, cur_us / 2, cur_us * 2);
	next = clamp(next, min_us, max_us);
	return max(rounddown(next, sample_us), min_us);
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_tune_next);

/**
 * damon_perf_tune_start() - Reset the tuning of a starting context, or of
 * one whose attributes changed.
 * @ctx:	the context.
 *
 * The interval restarts at aggr_us, within the bounds (0 without a
 * samples goal).
 *
 * Context: the kdamond of @ctx, or a caller owning a stopped @ctx.
 */
void damon_perf_tune_start(struct damon_perf_ctx *ctx)
{
	struct damon_perf_tune *t = &ctx->tune;
	const struct damon_perf_attrs *a = &ctx->attrs;
	u64 lo, hi;

	damon_perf_tune_bounds(a, &lo, &hi);
	WRITE_ONCE(t->min_us, lo);
	WRITE_ONCE(t->max_us, hi);
	/* 0 without a goal: netlink shows no tuning */
	WRITE_ONCE(t->aggr_us, a->samples_goal ?
		   clamp(rounddown(a->aggr_us, a->sample_us), lo, hi) : 0);
	t->samples = 0;
	t->elapsed_ns = 0;
	t->nr = 0;
	WRITE_ONCE(t->last, 0);
	WRITE_ONCE(t->steps, 0);
	WRITE_ONCE(t->ups, 0);
	WRITE_ONCE(t->downs, 0);
	WRITE_ONCE(t->period_shift, 0);
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_tune_start);

/**
 * damon_perf_tune_aggr_us() - The aggregation interval in force.
 * @ctx:	the context.
 *
 * Context: the kdamond of @ctx.
 * Return: the tuned interval with a samples goal, aggr_us without.
 */
u64 damon_perf_tune_aggr_us(const struct damon_perf_ctx *ctx)
{
	return ctx->attrs.samples_goal ? ctx->tune.aggr_us :
					 ctx->attrs.aggr_us;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_tune_aggr_us);

/* Ages count aggregations: keep their length in time across a step. */
static void rescale_ages(struct damon_perf_ctx *ctx, u64 old_us, u64 new_us)
{
	struct damon_perf_target *t;
	struct damon_perf_region *r;

	damon_perf_for_each_target(t, ctx) {
		damon_perf_for_each_region(r, t)
			r->age = min_t(u64, div64_u64((u64)r->age * old_us,
						      new_us), UINT_MAX);
		cond_resched();
	}
}

/**
 * damon_perf_tune_measured() - Observe an ended measurement; step when
 * goal_aggrs of them were observed.
 * @ctx:	the context.
 * @nr_samples:	the samples it rests on.
 * @elapsed_ns:	its length.
 *
 * Context: the kdamond of @ctx after the aggregation that ended the
 * measurement (its regions reset), or a caller owning a stopped @ctx.
 */
void damon_perf_tune_measured(struct damon_perf_ctx *ctx, u64 nr_samples,
			      u64 elapsed_ns)
{
	struct damon_perf_tune *t = &ctx->tune;
	const struct damon_perf_attrs *a = &ctx->attrs;
	u64 cur = t->aggr_us, next, per;

	if (!a->samples_goal)
		return;
	t->samples += nr_samples;
	t->elapsed_ns += elapsed_ns;
	if (++t->nr < max(a->goal_aggrs, 1U))
		return;
	next = damon_perf_tune_next(cur, a->samples_goal, t->samples,
				    t->elapsed_ns, t->min_us, t->max_us,
				    a->sample_us);
	WRITE_ONCE(t->last, t->elapsed_ns ?
		   muldiv(t->samples, cur * NSEC_PER_USEC, t->elapsed_ns) : 0);
	WRITE_ONCE(t->steps, t->steps + 1);
	if (next > cur)
		WRITE_ONCE(t->ups, t->ups + 1);
	else if (next < cur)
		WRITE_ONCE(t->downs, t->downs + 1);
	if (next != cur) {
		rescale_ages(ctx, cur, next);
		WRITE_ONCE(t->aggr_us, next);
	}
	/* past the interval's bounds, the periods (within the budget) */
	per = muldiv(t->samples, next * NSEC_PER_USEC, t->elapsed_ns);
	if (next >= t->max_us && per < a->samples_goal) {
		if (t->period_shift < PERIOD_SHIFT_MAX &&
		    damon_perf_budget_room(READ_ONCE(ctx->budget.cost),
					   a->cpu_budget))
			WRITE_ONCE(t->period_shift, t->period_shift + 1);
	} else if (next <= t->min_us && per >= 2ULL * a->samples_goal &&
		   t->period_shift) {
		WRITE_ONCE(t->period_shift, t->period_shift - 1);
	}
	t->samples = 0;
	t->elapsed_ns = 0;
	t->nr = 0;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_tune_measured);
