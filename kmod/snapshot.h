/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Snapshots: the immutable result of one aggregation, published by the
 * kdamond and read by netlink under a reference.
 */
#ifndef _DAMON_PERF_SNAPSHOT_H
#define _DAMON_PERF_SNAPSHOT_H

#include "ctx_types.h"

void damon_perf_snapshot_publish(struct damon_perf_ctx *ctx,
				 struct damon_perf_snapshot *snap);
struct damon_perf_snapshot *damon_perf_snapshot_get(struct damon_perf_ctx *ctx);
void damon_perf_snapshot_put(struct damon_perf_snapshot *snap);

#endif /* _DAMON_PERF_SNAPSHOT_H */
