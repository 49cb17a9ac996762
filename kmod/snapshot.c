// SPDX-License-Identifier: GPL-2.0
/*
 * Snapshots: the kdamond publishes the result of each aggregation as an
 * immutable, reference-counted snapshot in ctx->snap; readers (netlink,
 * KUnit) take a reference under ctx->snap_lock and may keep it after the
 * next one replaces it.
 */
#include <linux/kref.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "snapshot.h"

static void snapshot_release(struct kref *kref)
{
	kvfree(container_of(kref, struct damon_perf_snapshot, kref));
}

/**
 * damon_perf_snapshot_publish() - Make @snap the latest aggregation of @ctx.
 * @ctx:	the context.
 * @snap:	a new snapshot, whose reference passes to @ctx.
 *
 * Numbers @snap after the one it replaces and drops the context's
 * reference on that one.
 *
 * Context: the kdamond of @ctx, or a caller owning a stopped @ctx.
 */
void damon_perf_snapshot_publish(struct damon_perf_ctx *ctx,
				 struct damon_perf_snapshot *snap)
{
	struct damon_perf_snapshot *old;

	spin_lock(&ctx->snap_lock);
	old = ctx->snap;
	snap->seq = old ? old->seq + 1 : 1;
	ctx->snap = snap;
	spin_unlock(&ctx->snap_lock);
	damon_perf_snapshot_put(old);
}

/**
 * damon_perf_snapshot_get() - Reference the latest aggregation of @ctx.
 * @ctx:	the context.
 *
 * Context: process context (takes @ctx->snap_lock, a spinlock); the caller
 * keeps @ctx alive (damon_perf_lock or its kdamond).
 * Return: the snapshot, to release with damon_perf_snapshot_put(), or NULL
 * before the first aggregation.
 */
struct damon_perf_snapshot *damon_perf_snapshot_get(struct damon_perf_ctx *ctx)
{
	struct damon_perf_snapshot *snap;

	spin_lock(&ctx->snap_lock);
	snap = ctx->snap;
	if (snap)
		kref_get(&snap->kref);
	spin_unlock(&ctx->snap_lock);
	return snap;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_snapshot_get);

/**
 * damon_perf_snapshot_put() - Release a snapshot reference.
 * @snap:	the snapshot, may be NULL.
 *
 * Context: process context.
 */
void damon_perf_snapshot_put(struct damon_perf_snapshot *snap)
{
	if (snap)
		kref_put(&snap->kref, snapshot_release);
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_snapshot_put);
