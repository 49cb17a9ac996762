// SPDX-License-Identifier: GPL-2.0
/*
 * The listener list: registered at module init and unregistered at module
 * exit by the interfaces that report aggregations, walked by every kdamond
 * at the end of each aggregation interval.
 *
 * A read-write semaphore protects the list: kdamonds of different contexts
 * call the listeners concurrently (read side), and a listener's callbacks
 * may sleep. Unregistering takes the write side, so once it returns no
 * callback of that listener runs or will run.
 *
 * Lock order: damon_perf_lock (KUnit callers of the aggregation only),
 * then listeners_rwsem, then whatever a listener takes.
 */
#include <linux/list.h>
#include <linux/rwsem.h>

#include "listener.h"

static LIST_HEAD(listeners);
static DECLARE_RWSEM(listeners_rwsem);

/**
 * damon_perf_listener_register() - Start telling @l about aggregations.
 * @l:	the listener, with @l->ops set; it must stay alive until
 *	damon_perf_listener_unregister().
 *
 * Context: process context, may sleep.
 */
void damon_perf_listener_register(struct damon_perf_listener *l)
{
	down_write(&listeners_rwsem);
	list_add_tail(&l->list, &listeners);
	up_write(&listeners_rwsem);
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_listener_register);

/**
 * damon_perf_listener_unregister() - Stop telling @l anything.
 * @l:	a registered listener.
 *
 * Waits for the callbacks of @l that are running; none runs after it
 * returns.
 *
 * Context: process context, may sleep; no listener callback of the
 * caller's own.
 */
void damon_perf_listener_unregister(struct damon_perf_listener *l)
{
	down_write(&listeners_rwsem);
	list_del(&l->list);
	up_write(&listeners_rwsem);
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_listener_unregister);

/**
 * damon_perf_listeners_aggregated() - Tell every listener of an aggregation.
 * @ctx:	the context that aggregated.
 * @snap:	the snapshot it published.
 *
 * Context: the kdamond of @ctx, or a caller owning a stopped @ctx; may
 * sleep.
 */
void damon_perf_listeners_aggregated(struct damon_perf_ctx *ctx,
				     struct damon_perf_snapshot *snap)
{
	struct damon_perf_listener *l;

	down_read(&listeners_rwsem);
	list_for_each_entry(l, &listeners, list)
		if (l->ops->aggregated)
			l->ops->aggregated(ctx, snap);
	up_read(&listeners_rwsem);
}
