/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The monitoring thread of a running context: drains the report rings
 * every sample interval, aggregates every aggregation interval and
 * refreshes the targets every update interval.
 */
#ifndef _DAMON_PERF_KDAMOND_H
#define _DAMON_PERF_KDAMOND_H

#include "ctx.h"

int damon_perf_kdamond_start(struct damon_perf_ctx *ctx);
void damon_perf_kdamond_stop(struct damon_perf_ctx *ctx);
void damon_perf_kdamond_wake(void *arg);
void damon_perf_kdamond_aggregate(struct damon_perf_ctx *ctx, u64 elapsed_ns);
u64 damon_perf_kdamond_rate(const struct damon_perf_region *r, u64 elapsed_ns);

#endif /* _DAMON_PERF_KDAMOND_H */
