// SPDX-License-Identifier: GPL-2.0
/*
 * Perf probe slots of a context: validation of what userspace asks for,
 * and the ownership of PMU types. A PMU type is driven by at most one
 * context: the owner table below, protected by damon_perf_lock, refcounts
 * the probes of each type. Arming the probes is perf_source.c's.
 */
#include <linux/bug.h>
#include <linux/netlink.h>
#include <linux/perf_event.h>
#include <linux/string.h>

#include "perf_source.h"
#include "probe.h"

/* Kernel counters bypass perf_event_max_sample_rate; keep its default. */
#define MAX_SAMPLE_FREQ		100000

/* Largest sample_period (uapi): 48-bit hardware counters. */
#define MAX_SAMPLE_PERIOD	((u64)DAMON_PERF_SAMPLE_PERIOD_MAX)

/* One owner slot per probe of every possible context. */
#define TYPE_OWNERS		(DAMON_PERF_MAX_CTXS * DAMON_PERF_MAX_PROBES)

/* Owner table: damon_perf_lock held. */
struct type_owner {
	u32 type;
	struct damon_perf_ctx *ctx;	/* NULL: free slot */
	unsigned int refs;
};

static struct type_owner owners[TYPE_OWNERS];	/* damon_perf_lock */

static struct type_owner *find_owner(u32 type)
{
	int i;

	for (i = 0; i < TYPE_OWNERS; i++)
		if (owners[i].ctx && owners[i].type == type)
			return &owners[i];
	return NULL;
}

static int get_owner(struct damon_perf_ctx *ctx, u32 type,
		     struct netlink_ext_ack *extack)
{
	struct type_owner *o = find_owner(type);
	int i;

	if (o) {
		if (o->ctx != ctx) {
			NL_SET_ERR_MSG_FMT(extack,
					   "PMU type %u is owned by context '%s' (id %u)",
					   type, o->ctx->name, o->ctx->id);
			return -EBUSY;
		}
		o->refs++;
		return 0;
	}
	for (i = 0; i < TYPE_OWNERS; i++) {
		if (!owners[i].ctx) {
			owners[i] = (struct type_owner){ type, ctx, 1 };
			return 0;
		}
	}
	/* Cannot happen: one slot per probe of every possible context. */
	NL_SET_ERR_MSG(extack, "no free PMU owner slot");
	return -ENOSPC;
}

static void put_owner(struct damon_perf_ctx *ctx, u32 type)
{
	struct type_owner *o = find_owner(type);

	if (WARN_ON_ONCE(!o || o->ctx != ctx || !o->refs))
		return;
	if (!--o->refs)
		o->ctx = NULL;
}

static int validate(const struct damon_perf_probe_attr *pa,
		    struct netlink_ext_ack *extack)
{
	if (pa->precise_ip > 3) {
		NL_SET_ERR_MSG_FMT(extack, "precise_ip %u out of range 0..3",
				   pa->precise_ip);
		return -EINVAL;
	}
	if (pa->type == PERF_TYPE_BREAKPOINT) {
		NL_SET_ERR_MSG(extack,
			       "type: breakpoint probes are not supported");
		return -EOPNOTSUPP;
	}
	if (pa->type == PERF_TYPE_SOFTWARE && pa->config >= PERF_COUNT_SW_MAX) {
		NL_SET_ERR_MSG_FMT(extack,
				   "config %llu is not a software event (max %u)",
				   pa->config, PERF_COUNT_SW_MAX - 1);
		return -EINVAL;
	}
	if (pa->freq) {
		if (!pa->sample_period || pa->sample_period > MAX_SAMPLE_FREQ) {
			NL_SET_ERR_MSG_FMT(extack,
					   "sample_freq %llu out of range 1..%u",
					   pa->sample_period, MAX_SAMPLE_FREQ);
			return -EINVAL;
		}
	} else {
		if (!pa->sample_period) {
			NL_SET_ERR_MSG(extack,
				       "sample_period is 0 (set it, or freq and sample_freq)");
			return -EINVAL;
		}
		if (pa->sample_period > MAX_SAMPLE_PERIOD) {
			NL_SET_ERR_MSG_FMT(extack,
					   "sample_period %llu out of range 1..%llu (2^48)",
					   pa->sample_period,
					   MAX_SAMPLE_PERIOD);
			return -EINVAL;
		}
	}
	return 0;
}

/**
 * damon_perf_probe_add() - Add a perf probe to a stopped context.
 * @ctx:	the context.
 * @attr:	what userspace asked for; validated here, copied.
 * @extack:	receives a message naming the offending field or owner.
 *
 * Takes a reference on the ownership of @attr->type for @ctx. A weight of 0
 * is stored as 1.
 *
 * Context: process context, damon_perf_lock held.
 * Return: the probe's 1-based probe_idx, -EINVAL or -EOPNOTSUPP for bad
 * attributes, -EBUSY when @ctx runs or another context owns the PMU type,
 * -ENOSPC when all DAMON_PERF_MAX_PROBES slots are used.
 */
int damon_perf_probe_add(struct damon_perf_ctx *ctx,
			 const struct damon_perf_probe_attr *attr,
			 struct netlink_ext_ack *extack)
{
	struct damon_perf_probe *probe = NULL;
	int i, err;

	lockdep_assert_held(&damon_perf_lock);
	if (ctx->state == DAMON_PERF_CTX_STATE_RUNNING) {
		NL_SET_ERR_MSG(extack, "stop the context before adding probes");
		return -EBUSY;
	}
	err = validate(attr, extack);
	if (err)
		return err;
	for (i = 0; i < DAMON_PERF_MAX_PROBES; i++) {
		if (!ctx->probes[i].used) {
			probe = &ctx->probes[i];
			break;
		}
	}
	if (!probe) {
		NL_SET_ERR_MSG_FMT(extack,
				   "context '%s' already has %d perf probes",
				   ctx->name, DAMON_PERF_MAX_PROBES);
		return -ENOSPC;
	}
	err = get_owner(ctx, attr->type, extack);
	if (err)
		return err;
	probe->attr = *attr;
	if (!probe->attr.weight)
		probe->attr.weight = 1;
	probe->src = NULL;
	probe->used = true;
	return i + 1;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_probe_add);

/**
 * damon_perf_probe_del() - Remove a perf probe from a stopped context.
 * @ctx:	the context.
 * @probe_idx:	1-based index returned by damon_perf_probe_add().
 * @extack:	receives a message on error.
 *
 * Context: process context, damon_perf_lock held.
 * Return: 0, -EBUSY when @ctx runs, -ENOENT when there is no such probe.
 */
int damon_perf_probe_del(struct damon_perf_ctx *ctx, unsigned int probe_idx,
			 struct netlink_ext_ack *extack)
{
	struct damon_perf_probe *probe;

	lockdep_assert_held(&damon_perf_lock);
	if (ctx->state == DAMON_PERF_CTX_STATE_RUNNING) {
		NL_SET_ERR_MSG(extack,
			       "stop the context before removing probes");
		return -EBUSY;
	}
	if (!probe_idx || probe_idx > DAMON_PERF_MAX_PROBES ||
	    !ctx->probes[probe_idx - 1].used) {
		NL_SET_ERR_MSG_FMT(extack,
				   "context '%s' has no probe %u",
				   ctx->name, probe_idx);
		return -ENOENT;
	}
	probe = &ctx->probes[probe_idx - 1];
	if (WARN_ON_ONCE(probe->src))
		return -EBUSY;
	put_owner(ctx, probe->attr.type);
	memset(probe, 0, sizeof(*probe));
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_probe_del);

/**
 * damon_perf_probes_release() - Disarm and remove every probe of a context.
 * @ctx:	the context being destroyed.
 *
 * Context: process context, may sleep, damon_perf_lock held.
 */
void damon_perf_probes_release(struct damon_perf_ctx *ctx)
{
	int i;

	lockdep_assert_held(&damon_perf_lock);
	damon_perf_source_disarm(ctx);
	for (i = 0; i < DAMON_PERF_MAX_PROBES; i++) {
		struct damon_perf_probe *probe = &ctx->probes[i];

		if (!probe->used)
			continue;
		put_owner(ctx, probe->attr.type);
		memset(probe, 0, sizeof(*probe));
	}
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_probes_release);

/**
 * damon_perf_probes_exit() - Check that no PMU type is owned any more.
 *
 * Every context has been destroyed (and its probes released) before.
 *
 * Context: module exit.
 */
void damon_perf_probes_exit(void)
{
	int i;

	for (i = 0; i < TYPE_OWNERS; i++)
		WARN_ON_ONCE(owners[i].ctx);
}
