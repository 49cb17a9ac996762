// SPDX-License-Identifier: GPL-2.0
/*
 * The dumps of the "damon_perf" family: CTX_GET (every context),
 * SNAPSHOT_GET (one context's last aggregation, over as many messages as
 * its regions need) and STATS_GET (the observe counters, per CPU and in
 * total). The messages are built by netlink_msg.c.
 *
 * A dump checks the sender's capabilities, and which contexts it may see,
 * on its first call only: the later calls run on behalf of the same
 * socket.
 */
#include <linux/cpumask.h>
#include <linux/netlink.h>
#include <linux/slab.h>
#include <net/genetlink.h>

#include <linux/damon_perf.h>

#include "ctx.h"
#include "netlink_internal.h"
#include "snapshot.h"
#include "stats.h"

/**
 * damon_perf_nl_ctx_get_dumpit() - CTX_GET dump: every context the sender
 * may see.
 * @skb:	the message to fill.
 * @cb:	the dump state; cb->args[0]: id of the last context sent,
 *		[1]: permission checked, [2]: the sender has CAP_SYS_ADMIN,
 *		[3]: its credentials and [4]: its PID namespace (references,
 *		dropped by damon_perf_nl_ctx_get_done()).
 *
 * A sender without CAP_SYS_ADMIN gets only the contexts it owns, as the
 * sender of the first call was: the later calls may run in whichever task
 * reads the socket.
 *
 * Context: process context; takes damon_perf_lock.
 * Return: the message length, 0 at the end, or a negative errno.
 */
int damon_perf_nl_ctx_get_dumpit(struct sk_buff *skb,
				 struct netlink_callback *cb)
{
	struct damon_perf_owner who;
	struct damon_perf_ctx *ctx;
	int ret = 0;
	void *hdr;

	if (!cb->args[1]) {
		ret = damon_perf_nl_check_perm(cb->skb, cb->extack);
		if (ret)
			return ret;
		cb->args[1] = 1;
		cb->args[2] = damon_perf_nl_admin(cb->skb);
		if (!cb->args[2]) {
			damon_perf_owner_get_current(&who);
			cb->args[3] = (long)who.cred;
			cb->args[4] = (long)who.pidns;
		}
	}
	who.cred = (const struct cred *)cb->args[3];
	who.pidns = (struct pid_namespace *)cb->args[4];
	mutex_lock(&damon_perf_lock);
	while ((ctx = damon_perf_ctx_next(cb->args[0]))) {
		if (!cb->args[2] && !damon_perf_owner_same(&ctx->owner, &who)) {
			cb->args[0] = ctx->id;
			continue;
		}
		hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid,
				  cb->nlh->nlmsg_seq, &damon_perf_family,
				  NLM_F_MULTI, DAMON_PERF_CMD_CTX_GET);
		if (!hdr)
			break;
		if (damon_perf_nl_fill_ctx(skb, ctx)) {
			genlmsg_cancel(skb, hdr);
			/* a context that does not fit even alone: skip it */
			if (!skb->len)
				ret = -EMSGSIZE;
			break;
		}
		genlmsg_end(skb, hdr);
		cb->args[0] = ctx->id;
	}
	mutex_unlock(&damon_perf_lock);
	return ret ? ret : skb->len;
}

/**
 * damon_perf_nl_ctx_get_done() - End of a CTX_GET dump.
 * @cb:	the dump state; drops the sender's references in cb->args[3]
 *		and [4].
 *
 * Context: process context.
 * Return: 0.
 */
int damon_perf_nl_ctx_get_done(struct netlink_callback *cb)
{
	struct damon_perf_owner who = {
		.cred = (const struct cred *)cb->args[3],
		.pidns = (struct pid_namespace *)cb->args[4],
	};

	damon_perf_owner_put(&who);
	cb->args[3] = 0;
	cb->args[4] = 0;
	return 0;
}

/* The targets of context @id as they are now (snapshot dump header). */
static int fill_snapshot_targets(struct sk_buff *skb, u32 id)
{
	struct damon_perf_target *t;
	struct damon_perf_ctx *ctx;
	int ret = 0;

	mutex_lock(&damon_perf_lock);
	ctx = damon_perf_ctx_find(id);
	if (ctx) {
		damon_perf_for_each_target(t, ctx) {
			ret = damon_perf_nl_fill_target(skb, t);
			if (ret)
				break;
		}
	}
	mutex_unlock(&damon_perf_lock);
	return ret;
}

/**
 * damon_perf_nl_snapshot_get_dumpit() - SNAPSHOT_GET: one context's regions.
 * @skb:	the message to fill.
 * @cb:	the dump state; cb->args[0]: context id, [1]: snapshot (reference
 *		held until done), [2]: next region + 1 (0: the header with the
 *		targets is still to send).
 *
 * Context: process context; takes damon_perf_lock on the first call.
 * Return: the message length, 0 at the end, or a negative errno.
 */
int damon_perf_nl_snapshot_get_dumpit(struct sk_buff *skb,
				      struct netlink_callback *cb)
{
	struct damon_perf_snapshot *snap = (void *)cb->args[1];
	struct damon_perf_ctx *ctx;
	unsigned long i, first;
	void *hdr;
	int ret;

	if (!cb->args[0]) {
		ret = damon_perf_nl_check_perm(cb->skb, cb->extack);
		if (ret)
			return ret;
		mutex_lock(&damon_perf_lock);
		ctx = damon_perf_nl_lookup(cb->skb,
					   damon_perf_dumpit_attrs(cb),
					   cb->extack);
		if (IS_ERR(ctx)) {
			mutex_unlock(&damon_perf_lock);
			return PTR_ERR(ctx);
		}
		snap = damon_perf_snapshot_get(ctx);
		cb->args[0] = ctx->id;
		cb->args[1] = (long)snap;
		mutex_unlock(&damon_perf_lock);
	}
	if (!snap)
		return 0;
	first = cb->args[2] ? cb->args[2] - 1 : 0;
	if (cb->args[2] && first >= snap->nr_regions)
		return 0;

	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			  &damon_perf_family, NLM_F_MULTI,
			  DAMON_PERF_CMD_SNAPSHOT_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(skb, DAMON_PERF_A_CTX_ID, cb->args[0]))
		goto too_big;
	if (!cb->args[2]) {
		ret = damon_perf_nl_fill_snap(skb, snap);
		if (!ret)
			ret = fill_snapshot_targets(skb, cb->args[0]);
		if (ret)
			goto too_big;
	}
	for (i = first; i < snap->nr_regions; i++)
		if (damon_perf_nl_fill_region(skb, &snap->regions[i]))
			break;
	/* not even one region fits in a fresh message */
	if (cb->args[2] && i == first)
		goto too_big;
	cb->args[2] = i + 1;
	genlmsg_end(skb, hdr);
	return skb->len;
too_big:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

/**
 * damon_perf_nl_snapshot_done() - End of a SNAPSHOT_GET dump.
 * @cb:	the dump state; drops the snapshot reference in cb->args[1].
 *
 * Context: process context.
 * Return: 0.
 */
int damon_perf_nl_snapshot_done(struct netlink_callback *cb)
{
	damon_perf_snapshot_put((void *)cb->args[1]);
	cb->args[1] = 0;
	return 0;
}

/**
 * damon_perf_nl_stats_get_dumpit() - STATS_GET: one row per CPU, then total.
 * @skb:	the message to fill.
 * @cb:	the dump state; cb->args[0]: last CPU sent + 1 (0: none yet),
 *		[1]: permission checked, [2]: total row sent.
 *
 * Context: process context.
 * Return: the message length, 0 at the end, or a negative errno.
 */
int damon_perf_nl_stats_get_dumpit(struct sk_buff *skb,
				   struct netlink_callback *cb)
{
	struct damon_perf_stats *st;
	bool total;
	void *hdr;
	int cpu, ret;

	if (!cb->args[1]) {
		ret = damon_perf_nl_check_perm(cb->skb, cb->extack);
		if (ret)
			return ret;
		cb->args[1] = 1;
	}
	st = kmalloc(sizeof(*st), GFP_KERNEL);
	if (!st)
		return -ENOMEM;
	while (!cb->args[2]) {
		cpu = cpumask_next((int)cb->args[0] - 1, cpu_possible_mask);
		total = cpu >= nr_cpu_ids;
		if (total)
			damon_perf_stats_aggregate(st);
		else
			damon_perf_stats_snapshot(cpu, st);
		hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid,
				  cb->nlh->nlmsg_seq, &damon_perf_family,
				  NLM_F_MULTI, DAMON_PERF_CMD_STATS_GET);
		if (!hdr)
			break;
		if (damon_perf_nl_fill_stats(skb, st, total ? -1 : cpu)) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
		if (total)
			cb->args[2] = 1;
		else
			cb->args[0] = cpu + 1;
	}
	kfree(st);
	return skb->len;
}
