// SPDX-License-Identifier: GPL-2.0
/*
 * CPU budget of a context (Documentation/performance.rst, "CPU budget").
 *
 * The cost of a context is the time its overflow handlers spend (each
 * probe accumulates local_clock() deltas per CPU, perf_source.c) plus the
 * time its kdamond spends draining and aggregating (kdamond.c; the
 * aggregation's split sorts the samples, so it grows with them too), as a
 * share of one CPU
 * over the wall-clock time between two control steps. Once per
 * aggregation the kdamond compares it with the budget and moves the
 * sample period of every fixed-period probe: doubled when the cost is
 * above the budget, halved (not below the configured period, or the
 * lower one the intervals tuning allows, tune.c) when even
 * twice the cost would stay under three quarters of it, unchanged in
 * between. Halving the period at most doubles the cost, so a lowered
 * period does not at once cross the budget again: the gap is the
 * hysteresis. Frequency-mode probes are left alone (perf holds their
 * rate). A budget of 0 (the default) restores the configured periods.
 *
 * Reports carry the period of their sample (data->period), so rates stay
 * right across period changes.
 */
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/string.h>

#include "budget.h"
#include "ctx_types.h"
#include "perf_source.h"
#include "stats.h"

/*
 * Lower when 2 * cost < budget * LOWER_NUM / LOWER_DEN: the doubled cost
 * of the halved period keeps a quarter of the budget free.
 */
#define LOWER_NUM	3
#define LOWER_DEN	4

/* One budget unit (1/100 %) in cost units (millionths of one CPU). */
#define COST_PER_BUDGET	(DAMON_PERF_CPU_COST_SCALE / \
			 (100 * DAMON_PERF_CPU_BUDGET_SCALE))

/**
 * damon_perf_budget_cost() - Cost as a share of one CPU.
 * @cost_ns:	CPU time spent.
 * @elapsed_ns:	wall-clock time it was spent in.
 *
 * Finer than the budget's unit, so that a cost just under the smallest
 * budget does not read as none.
 *
 * Context: any.
 * Return: @cost_ns / @elapsed_ns in millionths (DAMON_PERF_CPU_COST_SCALE
 * = one CPU), saturating at U32_MAX; 0 when @elapsed_ns is 0.
 */
u32 damon_perf_budget_cost(u64 cost_ns, u64 elapsed_ns)
{
	const u64 one_cpu = DAMON_PERF_CPU_COST_SCALE;

	if (!elapsed_ns)
		return 0;
	/* the quotient fits 64 bits well before it exceeds U32_MAX */
	if (div64_u64(cost_ns, elapsed_ns) >= div_u64(U32_MAX, one_cpu))
		return U32_MAX;
	return mul_u64_u64_div_u64(cost_ns, one_cpu, elapsed_ns);
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_budget_cost);

/**
 * damon_perf_budget_room() - Whether a halved period fits the budget.
 * @cost:	measured cost, as damon_perf_budget_cost() returns it.
 * @budget:	the budget in 1/DAMON_PERF_CPU_BUDGET_SCALE percent, 0 for
 *		none.
 *
 * Halving a period at most doubles the cost: there is room when twice
 * @cost stays below three quarters of @budget.
 *
 * Context: any.
 * Return: true when there is room, false without a budget.
 */
bool damon_perf_budget_room(u32 cost, u32 budget)
{
	return budget && (u64)cost * 2 * LOWER_DEN <
			 (u64)budget * COST_PER_BUDGET * LOWER_NUM;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_budget_room);

/**
 * damon_perf_budget_next_period() - One step of the controller.
 * @cost:	measured cost, as damon_perf_budget_cost() returns it.
 * @budget:	the budget in 1/DAMON_PERF_CPU_BUDGET_SCALE percent, 0 for
 *		none.
 * @period:	the current (effective) period.
 * @base:	the configured period, the lowest the controller goes.
 * @top:	the highest period, at least @base.
 *
 * Context: any.
 * Return: the period for the next interval: @base without a budget,
 * 2 * @period (at most @top) above the budget, @period / 2 (at least
 * @base) when 2 * @cost stays below three quarters of the budget,
 * @period otherwise; always within @base .. @top.
 */
u64 damon_perf_budget_next_period(u32 cost, u32 budget, u64 period,
				  u64 base, u64 top)
{
	if (!budget || top < base)
		return base;
	period = clamp(period, base, top);
	if (cost > (u64)budget * COST_PER_BUDGET)
		return period > top / 2 ? top : period * 2;
	if (damon_perf_budget_room(cost, budget))
		return max(period / 2, base);
	return period;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_budget_next_period);

/**
 * damon_perf_budget_start() - Reset the accounting of a starting kdamond.
 * @ctx:	the context.
 * @now:	ktime_get_ns().
 *
 * The probes were armed with their configured periods and fresh handler
 * counters.
 *
 * Context: the kdamond of @ctx, before its first drain.
 */
void damon_perf_budget_start(struct damon_perf_ctx *ctx, u64 now)
{
	struct damon_perf_budget *b = &ctx->budget;
	unsigned int i;

	b->start_ns = now;
	b->last_handler_ns = damon_perf_source_handler_ns(ctx);
	b->drain_ns = 0;
	WRITE_ONCE(b->handler_total_ns, 0);
	WRITE_ONCE(b->drain_total_ns, 0);
	WRITE_ONCE(b->cost, 0);
	WRITE_ONCE(b->raises, 0);
	WRITE_ONCE(b->lowers, 0);
	WRITE_ONCE(b->refused, 0);
	for (i = 0; i < DAMON_PERF_MAX_PROBES; i++)
		memset(ctx->probes[i].refused, 0,
		       sizeof(ctx->probes[i].refused));
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_budget_start);

/**
 * damon_perf_budget_drained() - Account one drain pass or aggregation.
 * @ctx:	the context.
 * @ns:		time it took.
 *
 * Context: the kdamond of @ctx.
 */
void damon_perf_budget_drained(struct damon_perf_ctx *ctx, u64 ns)
{
	struct damon_perf_budget *b = &ctx->budget;

	b->drain_ns += ns;
	WRITE_ONCE(b->drain_total_ns, b->drain_total_ns + ns);
	damon_perf_observe_drain_ns(ns);
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_budget_drained);

/**
 * damon_perf_budget_step() - Measure the cost and move the periods.
 * @ctx:	the context.
 * @now:	ktime_get_ns().
 *
 * Context: the kdamond of @ctx, process context, may sleep.
 */
void damon_perf_budget_step(struct damon_perf_ctx *ctx, u64 now)
{
	struct damon_perf_budget *b = &ctx->budget;
	u64 handler = damon_perf_source_handler_ns(ctx);
	u64 spent = handler - b->last_handler_ns + b->drain_ns;
	u32 budget = ctx->attrs.cpu_budget;
	const u64 top = DAMON_PERF_SAMPLE_PERIOD_MAX;
	unsigned int i;
	u32 cost;

	cost = damon_perf_budget_cost(spent, now - b->start_ns);
	WRITE_ONCE(b->cost, cost);
	WRITE_ONCE(b->handler_total_ns,
		   b->handler_total_ns + handler - b->last_handler_ns);
	b->start_ns = now;
	b->last_handler_ns = handler;
	b->drain_ns = 0;

	for (i = 0; i < DAMON_PERF_MAX_PROBES; i++) {
		struct damon_perf_probe *probe = &ctx->probes[i];
		const struct damon_perf_probe_attr *pa = &probe->attr;
		u64 cur, next, base;
		int err;

		if (!probe->used || pa->freq)
			continue;
		cur = damon_perf_source_period(ctx, i + 1);
		if (!cur)
			continue;
		/* the intervals tuning may ask for more samples (tune.c) */
		base = max_t(u64, pa->sample_period >>
				  READ_ONCE(ctx->tune.period_shift), 1);
		next = damon_perf_budget_next_period(cost, budget, cur, base,
						     top);
		/*
		 * A period the PMU refused stays refused (its rules do not
		 * change while the counters live): asking again would only
		 * disable and enable a counter at every aggregation.
		 */
		if (next == cur || next == probe->refused[next < cur])
			continue;
		err = damon_perf_source_set_period(ctx, i + 1, next);
		if (err == -EINVAL) {
			probe->refused[next < cur] = next;
			WRITE_ONCE(b->refused, b->refused + 1);
		}
		if (err)
			continue;
		if (next > cur)
			WRITE_ONCE(b->raises, b->raises + 1);
		else
			WRITE_ONCE(b->lowers, b->lowers + 1);
	}
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_budget_step);
