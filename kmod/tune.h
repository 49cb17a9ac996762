/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Intervals tuning: the aggregation interval adapts so that each
 * aggregation holds the samples the user asked for (attrs samples_goal),
 * as DAMON's intervals auto-tuning adapts its intervals to a share of
 * observed accesses.
 */
#ifndef _DAMON_PERF_TUNE_H
#define _DAMON_PERF_TUNE_H

#include <linux/types.h>

struct damon_perf_ctx;
struct damon_perf_attrs;

/**
 * struct damon_perf_tune - The tuning state of one running context.
 * @aggr_us:	the aggregation interval in force.
 * @min_us:	its lower bound in force.
 * @max_us:	its upper bound in force.
 * @samples:	samples of the measurements observed since the last step.
 * @elapsed_ns:	their length.
 * @nr:		measurements observed since the last step.
 * @last:	samples per aggregation at the last step (@samples scaled to
 *		one interval of the @aggr_us then in force).
 * @steps:	steps since start.
 * @ups:	steps that lengthened the interval.
 * @downs:	steps that shortened it.
 * @period_shift: the CPU budget may lower a fixed-period probe's period
 *		down to its configured period >> @period_shift (budget.c).
 *
 * Written by the kdamond only; @aggr_us, @min_us, @max_us, @last, the
 * step counts and @period_shift with WRITE_ONCE, for netlink and budget.c,
 * which read them with READ_ONCE.
 */
struct damon_perf_tune {
	u64 aggr_us;
	u64 min_us;
	u64 max_us;
	u64 samples;
	u64 elapsed_ns;
	u32 nr;
	u64 last;
	u64 steps;
	u64 ups;
	u64 downs;
	u32 period_shift;
};

void damon_perf_tune_bounds(const struct damon_perf_attrs *a, u64 *min_us,
			    u64 *max_us);
u64 damon_perf_tune_next(u64 cur_us, u64 goal, u64 samples, u64 elapsed_ns,
			 u64 min_us, u64 max_us, u64 sample_us);
void damon_perf_tune_start(struct damon_perf_ctx *ctx);
u64 damon_perf_tune_aggr_us(const struct damon_perf_ctx *ctx);
void damon_perf_tune_measured(struct damon_perf_ctx *ctx, u64 nr_samples,
			      u64 elapsed_ns);

#endif /* _DAMON_PERF_TUNE_H */
