/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The monitoring thread of a running context: drains the report rings
 * every sample interval, aggregates every aggregation interval and
 * refreshes the targets every update interval.
 */
#ifndef _DAMON_PERF_KDAMOND_H
#define _DAMON_PERF_KDAMOND_H

#include "ctx_types.h"

int damon_perf_kdamond_start(struct damon_perf_ctx *ctx,
			     void (*exited)(struct damon_perf_ctx *ctx));
void damon_perf_kdamond_stop(struct damon_perf_ctx *ctx);
void damon_perf_kdamond_wake(void *arg);
bool damon_perf_kdamond_aggregate(struct damon_perf_ctx *ctx, u64 elapsed_ns);
u64 damon_perf_kdamond_rate(const struct damon_perf_region *r, u64 elapsed_ns);

#if DAMON_PERF_KUNIT_HOOKS
/*
 * Test hook: when set, the kdamond calls it at the scheduling point of
 * every pass of its loop, with @early true for a pass an early wake (ring
 * high watermark) started within a sample interval. Never set outside
 * KUnit.
 */
typedef void (*damon_perf_kdamond_hook_fn)(struct damon_perf_ctx *ctx,
					   bool early);
extern damon_perf_kdamond_hook_fn damon_perf_kdamond_resched_hook;
#endif

#endif /* _DAMON_PERF_KDAMOND_H */
