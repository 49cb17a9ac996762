/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Listeners of the contexts' aggregations: how a published snapshot
 * reaches the interfaces that report it (today the netlink AGGREGATION
 * notification) without the kdamond knowing them.
 */
#ifndef _DAMON_PERF_LISTENER_H
#define _DAMON_PERF_LISTENER_H

#include <linux/list.h>

struct damon_perf_ctx;
struct damon_perf_snapshot;

/**
 * struct damon_perf_listener_ops - What a listener is told.
 * @aggregated:	@ctx ended an aggregation interval and published @snap as
 *		its snapshot. Called by the kdamond of @ctx (or a caller
 *		owning a stopped @ctx) with no damon_perf lock held but the
 *		listeners' read lock; may sleep and allocate. @snap stays
 *		valid for the call; keep it longer with
 *		damon_perf_snapshot_get(). Of @ctx only the immutable id and
 *		name may be read.
 */
struct damon_perf_listener_ops {
	void (*aggregated)(struct damon_perf_ctx *ctx,
			   struct damon_perf_snapshot *snap);
};

/**
 * struct damon_perf_listener - One registered listener.
 * @ops:	its callbacks; each may be NULL.
 */
struct damon_perf_listener {
	const struct damon_perf_listener_ops *ops;
	/* private: */
	struct list_head list;
};

void damon_perf_listener_register(struct damon_perf_listener *l);
void damon_perf_listener_unregister(struct damon_perf_listener *l);
void damon_perf_listeners_aggregated(struct damon_perf_ctx *ctx,
				     struct damon_perf_snapshot *snap);

#endif /* _DAMON_PERF_LISTENER_H */
