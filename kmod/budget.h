/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CPU budget: the control loop that holds a context's measured cost (its
 * overflow handlers and its drain) under the budget by raising the sample
 * period of its fixed-period probes, and lowers it again, down to the
 * configured period (or below, as far as the intervals tuning asks), when
 * the cost falls well below.
 */
#ifndef _DAMON_PERF_BUDGET_H
#define _DAMON_PERF_BUDGET_H

#include <linux/types.h>

struct damon_perf_ctx;

/**
 * struct damon_perf_budget - Cost accounting of one running context.
 * @start_ns:		ktime_get_ns() of the previous control step.
 * @last_handler_ns:	handler time (all probes, all CPUs) at that step.
 * @drain_ns:		drain and aggregation time since that step.
 * @handler_total_ns:	handler time since the context started.
 * @drain_total_ns:	drain and aggregation time since the context started.
 * @cost:		cost measured at the last step, in millionths of one
 *			CPU (DAMON_PERF_CPU_COST_SCALE).
 * @raises:		steps that raised a period.
 * @lowers:		steps that lowered a period.
 * @refused:		periods the PMU refused (perf_event_period()'s
 *			check_period); each is asked for once per start.
 *
 * Written by the kdamond only; the totals, @cost and the step counts with
 * WRITE_ONCE, for netlink and debugfs, which read them with READ_ONCE.
 */
struct damon_perf_budget {
	u64 start_ns;
	u64 last_handler_ns;
	u64 drain_ns;
	u64 handler_total_ns;
	u64 drain_total_ns;
	u32 cost;
	u64 raises;
	u64 lowers;
	u64 refused;
};

u32 damon_perf_budget_cost(u64 cost_ns, u64 elapsed_ns);
bool damon_perf_budget_room(u32 cost, u32 budget);
u64 damon_perf_budget_next_period(u32 cost, u32 budget, u64 period,
				  u64 base, u64 top);
void damon_perf_budget_start(struct damon_perf_ctx *ctx, u64 now);
void damon_perf_budget_drained(struct damon_perf_ctx *ctx, u64 ns);
void damon_perf_budget_step(struct damon_perf_ctx *ctx, u64 now);

#endif /* _DAMON_PERF_BUDGET_H */
