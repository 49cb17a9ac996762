// SPDX-License-Identifier: GPL-2.0
/*
 * Generic netlink family "damon_perf": the family, its registration and
 * one doit handler per configuration command. The policies and the
 * operations table are generated (netlink_gen.c), the dumps live in
 * netlink_dump.c, the AGGREGATION notifications and their subscribers in
 * netlink_notify.c, and the permission check, the context lookup and the
 * message builders all three use in netlink_msg.c.
 *
 * Every command needs CAP_SYS_ADMIN or CAP_PERFMON (checked in pre_doit for
 * doit handlers and on the first call of every dump). Without
 * CAP_SYS_ADMIN a sender reaches only the contexts it owns (the lookup
 * refuses another's with -EACCES) and targets only processes it may read
 * as ptrace would let it. Every handler holds damon_perf_lock while it
 * touches a context.
 */
#include <linux/cpumask.h>
#include <linux/netlink.h>
#include <linux/slab.h>
#include <linux/threads.h>
#include <net/genetlink.h>

#include <linux/damon_perf.h>

#include "aux.h"
#include "ctx.h"
#include "lru.h"
#include "netlink.h"
#include "netlink_internal.h"
#include "perf_source.h"
#include "probe.h"

/*
 * The policies and the operations table are generated from the spec
 * (netlink_gen.c); the handlers below are named as it declares them.
 */

/* ---- helpers ---- */

/* damon_perf_nl_lookup() (netlink_msg.c) under the doits' short name */
static struct damon_perf_ctx *lookup(struct sk_buff *skb,
				     struct genl_info *info)
{
	return damon_perf_nl_lookup(skb, info->attrs, info->extack);
}

/*
 * A full message describing @ctx, sent as the reply to @info under the
 * request's own command (CTX_NEW or CTX_GET), as YNL expects of a reply.
 */
static int reply_ctx(struct damon_perf_ctx *ctx, struct genl_info *info)
{
	struct sk_buff *msg;
	void *hdr;
	int ret;

	msg = nlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &damon_perf_family, 0,
				info->genlhdr->cmd);
	if (!hdr) {
		ret = -EMSGSIZE;
		goto err;
	}
	ret = damon_perf_nl_fill_ctx(msg, ctx);
	if (ret)
		goto err;
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
err:
	nlmsg_free(msg);
	NL_SET_ERR_MSG(info->extack, "context does not fit in one message");
	return ret;
}

/* ---- doit handlers (pre_doit took damon_perf_lock) ---- */

/**
 * damon_perf_nl_ctx_new_doit() - CTX_NEW: create a context, reply with it.
 * @skb:	the request.
 * @info:	its attributes and extack.
 *
 * Context: process context, damon_perf_lock held (pre_doit).
 * Return: 0 or a negative errno, the reason in the extack.
 */
int damon_perf_nl_ctx_new_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *name_attr = info->attrs[DAMON_PERF_A_CTX_NAME];
	u32 ops = DAMON_PERF_OPS_VADDR;
	struct damon_perf_ctx *ctx;
	int ret;

	if (GENL_REQ_ATTR_CHECK(info, DAMON_PERF_A_CTX_NAME)) {
		NL_SET_ERR_MSG(info->extack, "context name required");
		return -EINVAL;
	}
	if (!nla_len(name_attr) || !*(char *)nla_data(name_attr)) {
		NL_SET_ERR_MSG_ATTR(info->extack, name_attr,
				    "context name must not be empty");
		return -EINVAL;
	}
	if (damon_perf_ctx_find_name(nla_data(name_attr))) {
		NL_SET_ERR_MSG_ATTR(info->extack, name_attr,
				    "a context with this name exists");
		return -EEXIST;
	}
	if (info->attrs[DAMON_PERF_A_CTX_OPS])
		ops = nla_get_u32(info->attrs[DAMON_PERF_A_CTX_OPS]);
	ctx = damon_perf_ctx_new(nla_data(name_attr), ops, info->extack);
	if (IS_ERR_OR_NULL(ctx))
		return ctx ? PTR_ERR(ctx) : -ENOMEM;
	ret = reply_ctx(ctx, info);
	if (ret)
		damon_perf_ctx_destroy(ctx, NULL);
	return ret;
}

/**
 * damon_perf_nl_ctx_del_doit() - CTX_DEL: delete a context.
 * @skb:	the request.
 * @info:	its attributes and extack.
 *
 * Context: process context, damon_perf_lock held (pre_doit).
 * Return: 0 or a negative errno, the reason in the extack.
 */
int damon_perf_nl_ctx_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct damon_perf_ctx *ctx = lookup(skb, info);

	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	return damon_perf_ctx_destroy(ctx, info->extack);
}

/**
 * damon_perf_nl_ctx_get_doit() - CTX_GET: reply with one context.
 * @skb:	the request.
 * @info:	its attributes and extack.
 *
 * Context: process context, damon_perf_lock held (pre_doit).
 * Return: 0 or a negative errno, the reason in the extack.
 */
int damon_perf_nl_ctx_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct damon_perf_ctx *ctx = lookup(skb, info);

	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	return reply_ctx(ctx, info);
}

/**
 * damon_perf_nl_set_attrs_doit() - SET_ATTRS: change the monitoring attributes.
 * @skb:	the request.
 * @info:	its attributes and extack.
 *
 * Context: process context, damon_perf_lock held (pre_doit).
 * Return: 0 or a negative errno, the reason in the extack.
 */
int damon_perf_nl_set_attrs_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[DAMON_PERF_ATTRS_A_MAX + 1];
	struct damon_perf_ctx *ctx;
	struct damon_perf_attrs a;
	int ret;

	ctx = lookup(skb, info);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	if (GENL_REQ_ATTR_CHECK(info, DAMON_PERF_A_ATTRS)) {
		NL_SET_ERR_MSG(info->extack, "attributes (nest) required");
		return -EINVAL;
	}
	ret = nla_parse_nested(tb, DAMON_PERF_ATTRS_A_MAX,
			       info->attrs[DAMON_PERF_A_ATTRS],
			       damon_perf_attrs_nl_policy,
			       info->extack);
	if (ret)
		return ret;

	damon_perf_nl_current_attrs(ctx, &a);
	if (tb[DAMON_PERF_ATTRS_A_SAMPLE_US])
		a.sample_us = nla_get_u64(tb[DAMON_PERF_ATTRS_A_SAMPLE_US]);
	if (tb[DAMON_PERF_ATTRS_A_AGGR_US])
		a.aggr_us = nla_get_u64(tb[DAMON_PERF_ATTRS_A_AGGR_US]);
	if (tb[DAMON_PERF_ATTRS_A_UPDATE_US])
		a.update_us = nla_get_u64(tb[DAMON_PERF_ATTRS_A_UPDATE_US]);
	if (tb[DAMON_PERF_ATTRS_A_MIN_NR_REGIONS])
		a.min_nr_regions =
			nla_get_u32(tb[DAMON_PERF_ATTRS_A_MIN_NR_REGIONS]);
	if (tb[DAMON_PERF_ATTRS_A_MAX_NR_REGIONS])
		a.max_nr_regions =
			nla_get_u32(tb[DAMON_PERF_ATTRS_A_MAX_NR_REGIONS]);
	if (tb[DAMON_PERF_ATTRS_A_MODE])
		a.mode = nla_get_u32(tb[DAMON_PERF_ATTRS_A_MODE]);
	if (tb[DAMON_PERF_ATTRS_A_SPLIT])
		a.split = nla_get_u32(tb[DAMON_PERF_ATTRS_A_SPLIT]);
	if (tb[DAMON_PERF_ATTRS_A_CPU_BUDGET])
		a.cpu_budget = nla_get_u32(tb[DAMON_PERF_ATTRS_A_CPU_BUDGET]);
	if (tb[DAMON_PERF_ATTRS_A_SAMPLES_GOAL])
		a.samples_goal =
			nla_get_u32(tb[DAMON_PERF_ATTRS_A_SAMPLES_GOAL]);
	if (tb[DAMON_PERF_ATTRS_A_GOAL_AGGRS])
		a.goal_aggrs = nla_get_u32(tb[DAMON_PERF_ATTRS_A_GOAL_AGGRS]);
	if (tb[DAMON_PERF_ATTRS_A_MIN_AGGR_US])
		a.min_aggr_us = nla_get_u64(tb[DAMON_PERF_ATTRS_A_MIN_AGGR_US]);
	if (tb[DAMON_PERF_ATTRS_A_MAX_AGGR_US])
		a.max_aggr_us = nla_get_u64(tb[DAMON_PERF_ATTRS_A_MAX_AGGR_US]);
	if (tb[DAMON_PERF_ATTRS_A_RING_SIZE]) {
		a.ring_size = nla_get_u32(tb[DAMON_PERF_ATTRS_A_RING_SIZE]);
		if (!is_power_of_2(a.ring_size)) {
			NL_SET_ERR_MSG_ATTR(info->extack,
					    tb[DAMON_PERF_ATTRS_A_RING_SIZE],
					    "ring size must be a power of two");
			return -EINVAL;
		}
	}
	if (a.min_nr_regions > a.max_nr_regions) {
		NL_SET_ERR_MSG(info->extack,
			       "min_nr_regions is above max_nr_regions");
		return -EINVAL;
	}
	if (a.aggr_us < a.sample_us || a.update_us < a.sample_us) {
		NL_SET_ERR_MSG(info->extack,
			       "aggregation and update intervals must be at least the sample interval");
		return -EINVAL;
	}
	return damon_perf_ctx_set_attrs(ctx, &a, info->extack);
}

/**
 * damon_perf_nl_target_add_doit() - TARGET_ADD: add a process or range.
 * @skb:	the request.
 * @info:	its attributes and extack.
 *
 * Context: process context, damon_perf_lock held (pre_doit).
 * Return: 0 or a negative errno, the reason in the extack.
 */
int damon_perf_nl_target_add_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[DAMON_PERF_TARGET_A_MAX + 1];
	struct nlattr *nest = info->attrs[DAMON_PERF_A_TARGET];
	struct damon_perf_ctx *ctx;
	u64 start, end;
	pid_t pid;
	int ret;

	ctx = lookup(skb, info);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	if (GENL_REQ_ATTR_CHECK(info, DAMON_PERF_A_TARGET)) {
		NL_SET_ERR_MSG(info->extack, "target (nest) required");
		return -EINVAL;
	}
	ret = nla_parse_nested(tb, DAMON_PERF_TARGET_A_MAX, nest,
			       damon_perf_target_nl_policy, info->extack);
	if (ret)
		return ret;
	if (ctx->ops == DAMON_PERF_OPS_VADDR) {
		if (!tb[DAMON_PERF_TARGET_A_PID] ||
		    tb[DAMON_PERF_TARGET_A_START] ||
		    tb[DAMON_PERF_TARGET_A_END]) {
			NL_SET_ERR_MSG_ATTR(info->extack, nest,
					    "vaddr context: target needs a pid and no address range");
			return -EINVAL;
		}
		pid = nla_get_u32(tb[DAMON_PERF_TARGET_A_PID]);
		ret = damon_perf_target_add_pid(ctx, pid,
						damon_perf_nl_admin(skb),
						info->extack);
		/* the new target's id is no error code for the ack */
		return ret < 0 ? ret : 0;
	}
	if (tb[DAMON_PERF_TARGET_A_PID] || !tb[DAMON_PERF_TARGET_A_START] ||
	    !tb[DAMON_PERF_TARGET_A_END]) {
		NL_SET_ERR_MSG_ATTR(info->extack, nest,
				    "paddr context: target needs start and end and no pid");
		return -EINVAL;
	}
	start = nla_get_u64(tb[DAMON_PERF_TARGET_A_START]);
	end = nla_get_u64(tb[DAMON_PERF_TARGET_A_END]);
	if (start >= end || end - 1 > (u64)ULONG_MAX) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[DAMON_PERF_TARGET_A_END],
				    "target end must be above start");
		return -EINVAL;
	}
	ret = damon_perf_target_add_range(ctx, start, end, info->extack);
	return ret < 0 ? ret : 0;
}

/**
 * damon_perf_nl_target_del_doit() - TARGET_DEL: delete a target.
 * @skb:	the request.
 * @info:	its attributes and extack.
 *
 * Context: process context, damon_perf_lock held (pre_doit).
 * Return: 0 or a negative errno, the reason in the extack.
 */
int damon_perf_nl_target_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct damon_perf_ctx *ctx = lookup(skb, info);

	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	if (GENL_REQ_ATTR_CHECK(info, DAMON_PERF_A_TARGET_ID)) {
		NL_SET_ERR_MSG(info->extack, "target id required");
		return -EINVAL;
	}
	return damon_perf_target_del(ctx,
			nla_get_u32(info->attrs[DAMON_PERF_A_TARGET_ID]),
			info->extack);
}

static void parse_probe(struct nlattr **tb, struct damon_perf_probe_attr *p)
{
	memset(p, 0, sizeof(*p));
	p->type = nla_get_u32(tb[DAMON_PERF_PROBE_A_TYPE]);
	p->sample_period = nla_get_u64(tb[DAMON_PERF_PROBE_A_SAMPLE_PERIOD]);
	if (tb[DAMON_PERF_PROBE_A_CONFIG])
		p->config = nla_get_u64(tb[DAMON_PERF_PROBE_A_CONFIG]);
	if (tb[DAMON_PERF_PROBE_A_CONFIG1])
		p->config1 = nla_get_u64(tb[DAMON_PERF_PROBE_A_CONFIG1]);
	if (tb[DAMON_PERF_PROBE_A_CONFIG2])
		p->config2 = nla_get_u64(tb[DAMON_PERF_PROBE_A_CONFIG2]);
	if (tb[DAMON_PERF_PROBE_A_WAKEUP_EVENTS])
		p->wakeup_events =
			nla_get_u32(tb[DAMON_PERF_PROBE_A_WAKEUP_EVENTS]);
	p->weight = 1;
	if (tb[DAMON_PERF_PROBE_A_WEIGHT])
		p->weight = nla_get_u32(tb[DAMON_PERF_PROBE_A_WEIGHT]);
	if (tb[DAMON_PERF_PROBE_A_PRECISE_IP])
		p->precise_ip = nla_get_u8(tb[DAMON_PERF_PROBE_A_PRECISE_IP]);
	p->freq = nla_get_flag(tb[DAMON_PERF_PROBE_A_FREQ]);
	p->sample_phys_addr =
		nla_get_flag(tb[DAMON_PERF_PROBE_A_SAMPLE_PHYS_ADDR]);
	p->sample_weight_struct =
		nla_get_flag(tb[DAMON_PERF_PROBE_A_SAMPLE_WEIGHT_STRUCT]);
	p->exclude_kernel = nla_get_flag(tb[DAMON_PERF_PROBE_A_EXCLUDE_KERNEL]);
	p->exclude_hv = nla_get_flag(tb[DAMON_PERF_PROBE_A_EXCLUDE_HV]);
	p->exclude_user = nla_get_flag(tb[DAMON_PERF_PROBE_A_EXCLUDE_USER]);
}

/**
 * damon_perf_nl_probe_add_doit() - PROBE_ADD: add a probe, reply its index.
 * @skb:	the request.
 * @info:	its attributes and extack.
 *
 * Context: process context, damon_perf_lock held (pre_doit).
 * Return: 0 or a negative errno, the reason in the extack.
 */
int damon_perf_nl_probe_add_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[DAMON_PERF_PROBE_A_MAX + 1];
	struct nlattr *nest = info->attrs[DAMON_PERF_A_PROBE];
	struct damon_perf_probe_attr p;
	struct damon_perf_ctx *ctx;
	struct sk_buff *msg;
	void *hdr;
	int ret, idx;

	ctx = lookup(skb, info);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	if (GENL_REQ_ATTR_CHECK(info, DAMON_PERF_A_PROBE)) {
		NL_SET_ERR_MSG(info->extack, "probe (nest) required");
		return -EINVAL;
	}
	ret = nla_parse_nested(tb, DAMON_PERF_PROBE_A_MAX, nest,
			       damon_perf_probe_nl_policy,
			       info->extack);
	if (ret)
		return ret;
	if (!tb[DAMON_PERF_PROBE_A_TYPE] ||
	    !tb[DAMON_PERF_PROBE_A_SAMPLE_PERIOD]) {
		NL_SET_ERR_MSG_ATTR(info->extack, nest,
				    "probe needs a type and a sample period or frequency");
		return -EINVAL;
	}
	parse_probe(tb, &p);

	/*
	 * All or nothing: the reply, which carries the new probe's index, is
	 * allocated before the probe is added, and a reply that cannot be
	 * built or queued (the sender's receive queue is full) removes the
	 * probe again, with its PMU ownership, so a client that retries after
	 * an error gets one probe. damon_perf_lock is held throughout and the
	 * context is stopped, so nothing saw the probe in between.
	 */
	msg = nlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	idx = damon_perf_probe_add(ctx, &p, info->extack);
	if (idx < 0) {
		nlmsg_free(msg);
		return idx;
	}
	hdr = genlmsg_put_reply(msg, info, &damon_perf_family, 0,
				DAMON_PERF_CMD_PROBE_ADD);
	if (!hdr || nla_put_u32(msg, DAMON_PERF_A_CTX_ID, ctx->id) ||
	    nla_put_u32(msg, DAMON_PERF_A_PROBE_IDX, idx)) {
		nlmsg_free(msg);
		ret = -EMSGSIZE;
		goto undo;
	}
	genlmsg_end(msg, hdr);
	ret = genlmsg_reply(msg, info);
	if (!ret)
		return 0;
undo:
	WARN_ON_ONCE(damon_perf_probe_del(ctx, idx, NULL));
	NL_SET_ERR_MSG(info->extack,
		       "probe not added: the reply could not be sent");
	return ret;
}

/**
 * damon_perf_nl_probe_del_doit() - PROBE_DEL: delete a probe.
 * @skb:	the request.
 * @info:	its attributes and extack.
 *
 * Context: process context, damon_perf_lock held (pre_doit).
 * Return: 0 or a negative errno, the reason in the extack.
 */
int damon_perf_nl_probe_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct damon_perf_ctx *ctx = lookup(skb, info);

	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	if (GENL_REQ_ATTR_CHECK(info, DAMON_PERF_A_PROBE_IDX)) {
		NL_SET_ERR_MSG(info->extack, "probe index required");
		return -EINVAL;
	}
	return damon_perf_probe_del(ctx,
			nla_get_u32(info->attrs[DAMON_PERF_A_PROBE_IDX]),
			info->extack);
}

static int parse_filter(struct nlattr *nest, struct damon_perf_filter *f,
			struct netlink_ext_ack *extack)
{
	struct nlattr *tb[DAMON_PERF_FILTER_A_MAX + 1];
	struct nlattr *attr;
	int rem, ret;

	ret = nla_parse_nested(tb, DAMON_PERF_FILTER_A_MAX, nest,
			       damon_perf_filter_nl_policy, extack);
	if (ret)
		return ret;
	if (!tb[DAMON_PERF_FILTER_A_TYPE]) {
		NL_SET_ERR_MSG_ATTR(extack, nest, "filter type required");
		return -EINVAL;
	}
	f->type = nla_get_u32(tb[DAMON_PERF_FILTER_A_TYPE]);
	f->allow = nla_get_flag(tb[DAMON_PERF_FILTER_A_ALLOW]);

	if (f->type != DAMON_PERF_FILTER_CPUMASK &&
	    tb[DAMON_PERF_FILTER_A_CPUS]) {
		NL_SET_ERR_MSG_ATTR(extack, tb[DAMON_PERF_FILTER_A_CPUS],
				    "cpus given for a filter that is not a cpumask filter");
		return -EINVAL;
	}
	if (f->type != DAMON_PERF_FILTER_TID && tb[DAMON_PERF_FILTER_A_TID]) {
		NL_SET_ERR_MSG_ATTR(extack, tb[DAMON_PERF_FILTER_A_TID],
				    "tid given for a filter that is not a tid filter");
		return -EINVAL;
	}
	if (f->type == DAMON_PERF_FILTER_CPUMASK) {
		attr = tb[DAMON_PERF_FILTER_A_CPUS];
		if (!attr) {
			NL_SET_ERR_MSG_ATTR(extack, nest,
					    "cpumask filter needs a cpu list");
			return -EINVAL;
		}
		if (cpulist_parse(nla_data(attr), &f->cpus) ||
		    !cpumask_subset(&f->cpus, cpu_possible_mask)) {
			NL_SET_ERR_MSG_ATTR(extack, attr,
					    "invalid cpu list or cpu not possible");
			return -EINVAL;
		}
	}
	if (f->type == DAMON_PERF_FILTER_TID) {
		nla_for_each_nested(attr, nest, rem) {
			if (nla_type(attr) != DAMON_PERF_FILTER_A_TID)
				continue;
			if (f->nr_tids >= DAMON_PERF_MAX_FILTER_TIDS) {
				NL_SET_ERR_MSG_ATTR(extack, attr,
						    "too many tids in one filter");
				return -E2BIG;
			}
			f->tids[f->nr_tids++] = nla_get_u32(attr);
		}
		if (!f->nr_tids) {
			NL_SET_ERR_MSG_ATTR(extack, nest,
					    "tid filter needs at least one tid");
			return -EINVAL;
		}
	}
	return 0;
}

/**
 * damon_perf_nl_set_filters_doit() - SET_FILTERS: replace every sample filter.
 * @skb:	the request.
 * @info:	its attributes and extack.
 *
 * Context: process context, damon_perf_lock held (pre_doit).
 * Return: 0 or a negative errno, the reason in the extack.
 */
int damon_perf_nl_set_filters_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *nest = info->attrs[DAMON_PERF_A_FILTERS];
	struct damon_perf_filter *filters;
	struct damon_perf_ctx *ctx;
	unsigned int nr = 0;
	struct nlattr *attr;
	int rem, ret;

	ctx = lookup(skb, info);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	if (GENL_REQ_ATTR_CHECK(info, DAMON_PERF_A_FILTERS)) {
		NL_SET_ERR_MSG(info->extack, "filters (nest) required");
		return -EINVAL;
	}
	/* the policy validated every entry; the type may only be FILTER */
	filters = kcalloc(DAMON_PERF_MAX_FILTERS, sizeof(*filters), GFP_KERNEL);
	if (!filters)
		return -ENOMEM;
	nla_for_each_nested(attr, nest, rem) {
		if (nr >= DAMON_PERF_MAX_FILTERS) {
			NL_SET_ERR_MSG_ATTR(info->extack, attr,
					    "too many filters");
			ret = -E2BIG;
			goto out;
		}
		ret = parse_filter(attr, &filters[nr], info->extack);
		if (ret)
			goto out;
		nr++;
	}
	ret = damon_perf_ctx_set_filters(ctx, filters, nr, info->extack);
out:
	kfree(filters);
	return ret;
}

/**
 * damon_perf_nl_start_doit() - START: start monitoring.
 * @skb:	the request.
 * @info:	its attributes and extack.
 *
 * Context: process context, damon_perf_lock held (pre_doit).
 * Return: 0 or a negative errno, the reason in the extack.
 */
int damon_perf_nl_start_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct damon_perf_ctx *ctx = lookup(skb, info);

	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	if (ctx->state == DAMON_PERF_CTX_STATE_RUNNING) {
		NL_SET_ERR_MSG(info->extack, "context is already running");
		return -EBUSY;
	}
	return damon_perf_ctx_start(ctx, info->extack);
}

/**
 * damon_perf_nl_stop_doit() - STOP: stop monitoring.
 * @skb:	the request.
 * @info:	its attributes and extack.
 *
 * Context: process context, damon_perf_lock held (pre_doit).
 * Return: 0 or a negative errno, the reason in the extack.
 */
int damon_perf_nl_stop_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct damon_perf_ctx *ctx = lookup(skb, info);

	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	if (ctx->state != DAMON_PERF_CTX_STATE_RUNNING) {
		NL_SET_ERR_MSG(info->extack, "context is not running");
		return -EINVAL;
	}
	return damon_perf_ctx_stop(ctx);
}

/**
 * damon_perf_nl_aux_attach_doit() - AUX_ATTACH: one CPU's AUX buffer.
 * @skb:	the request.
 * @info:	its attributes and extack.
 *
 * Context: process context, damon_perf_lock held (pre_doit).
 * Return: 0 or a negative errno, the reason in the extack.
 */
int damon_perf_nl_aux_attach_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[DAMON_PERF_AUX_A_MAX + 1];
	struct nlattr *nest = info->attrs[DAMON_PERF_A_AUX];
	struct damon_perf_aux_req req = {};
	struct damon_perf_ctx *ctx;
	int ret, i;

	ctx = lookup(skb, info);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	if (GENL_REQ_ATTR_CHECK(info, DAMON_PERF_A_AUX)) {
		NL_SET_ERR_MSG(info->extack, "aux (nest) required");
		return -EINVAL;
	}
	ret = nla_parse_nested(tb, DAMON_PERF_AUX_A_MAX, nest,
			       damon_perf_aux_nl_policy,
			       info->extack);
	if (ret)
		return ret;
	for (i = DAMON_PERF_AUX_A_CPU; i <= DAMON_PERF_AUX_A_MAX; i++) {
		if (!tb[i]) {
			NL_SET_ERR_ATTR_MISS(info->extack, nest, i);
			NL_SET_ERR_MSG_ATTR(info->extack, nest,
					    "aux needs cpu, fd, user_page, aux_addr, aux_size, pid and probe_idx");
			return -EINVAL;
		}
	}
	req.cpu = nla_get_u32(tb[DAMON_PERF_AUX_A_CPU]);
	req.fd = nla_get_s32(tb[DAMON_PERF_AUX_A_FD]);
	req.user_page = nla_get_u64(tb[DAMON_PERF_AUX_A_USER_PAGE]);
	req.aux_addr = nla_get_u64(tb[DAMON_PERF_AUX_A_AUX_ADDR]);
	req.aux_size = nla_get_u64(tb[DAMON_PERF_AUX_A_AUX_SIZE]);
	req.pid = nla_get_u32(tb[DAMON_PERF_AUX_A_PID]);
	req.probe_idx = nla_get_u8(tb[DAMON_PERF_AUX_A_PROBE_IDX]);
	req.sk = NETLINK_CB(skb).sk;
	if (req.cpu >= nr_cpu_ids || !cpu_possible(req.cpu)) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[DAMON_PERF_AUX_A_CPU],
				    "no such cpu");
		return -EINVAL;
	}
	if (ctx->state != DAMON_PERF_CTX_STATE_RUNNING) {
		NL_SET_ERR_MSG(info->extack, "context is not running");
		return -EINVAL;
	}
	return damon_perf_aux_attach(ctx, &req, info->snd_portid,
				     info->extack);
}

/**
 * damon_perf_nl_lru_prio_doit() - LRU_PRIO: mark paddr folios accessed.
 * @skb:	the request.
 * @info:	its attributes and extack.
 *
 * Needs CAP_SYS_ADMIN: unlike monitoring, it changes what reclaim keeps.
 *
 * Context: process context, damon_perf_lock held (pre_doit).
 * Return: 0 or a negative errno, the reason in the extack.
 */
int damon_perf_nl_lru_prio_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[DAMON_PERF_LRU_A_MAX + 1];
	struct nlattr *nest = info->attrs[DAMON_PERF_A_LRU];
	struct damon_perf_lru_stats st;
	struct damon_perf_ctx *ctx;
	struct sk_buff *msg;
	struct nlattr *out;
	u64 start, end;
	void *hdr;
	int ret;

	if (!netlink_capable(skb, CAP_SYS_ADMIN)) {
		NL_SET_ERR_MSG(info->extack, "lru_prio needs CAP_SYS_ADMIN");
		return -EPERM;
	}
	ctx = lookup(skb, info);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	if (GENL_REQ_ATTR_CHECK(info, DAMON_PERF_A_LRU)) {
		NL_SET_ERR_MSG(info->extack, "lru (nest) required");
		return -EINVAL;
	}
	ret = nla_parse_nested(tb, DAMON_PERF_LRU_A_MAX, nest,
			       damon_perf_lru_nl_policy, info->extack);
	if (ret)
		return ret;
	if (!tb[DAMON_PERF_LRU_A_START] || !tb[DAMON_PERF_LRU_A_END]) {
		NL_SET_ERR_MSG_ATTR(info->extack, nest,
				    "lru needs start and end");
		return -EINVAL;
	}
	start = nla_get_u64(tb[DAMON_PERF_LRU_A_START]);
	end = nla_get_u64(tb[DAMON_PERF_LRU_A_END]);
	ret = damon_perf_lru_check(ctx, start, end, info->extack);
	if (ret)
		return ret;

	msg = nlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	damon_perf_lru_prio(start, end, &st);
	hdr = genlmsg_put_reply(msg, info, &damon_perf_family, 0,
				DAMON_PERF_CMD_LRU_PRIO);
	if (!hdr || nla_put_u32(msg, DAMON_PERF_A_CTX_ID, ctx->id))
		goto nospace;
	out = nla_nest_start(msg, DAMON_PERF_A_LRU);
	if (!out ||
	    put_u64(msg, DAMON_PERF_LRU_A_START, start, DAMON_PERF_LRU_A_PAD) ||
	    put_u64(msg, DAMON_PERF_LRU_A_END, end, DAMON_PERF_LRU_A_PAD) ||
	    put_u64(msg, DAMON_PERF_LRU_A_NR_TRIED, st.nr_tried,
		    DAMON_PERF_LRU_A_PAD) ||
	    put_u64(msg, DAMON_PERF_LRU_A_NR_APPLIED, st.nr_applied,
		    DAMON_PERF_LRU_A_PAD) ||
	    put_u64(msg, DAMON_PERF_LRU_A_NR_SKIPPED, st.nr_skipped,
		    DAMON_PERF_LRU_A_PAD))
		goto nospace;
	nla_nest_end(msg, out);
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
nospace:
	nlmsg_free(msg);
	return -EMSGSIZE;
}

/* ---- family ---- */

/**
 * damon_perf_nl_pre_doit() - Before every doit: permission, then the lock.
 * @ops:	the operation.
 * @skb:	the request.
 * @info:	its attributes and extack.
 *
 * Context: process context.
 * Return: 0 with damon_perf_lock held, or -EPERM.
 */
int damon_perf_nl_pre_doit(const struct genl_split_ops *ops,
			   struct sk_buff *skb, struct genl_info *info)
{
	int ret = damon_perf_nl_check_perm(skb, info->extack);

	if (ret)
		return ret;
	mutex_lock(&damon_perf_lock);
	return 0;
}

/**
 * damon_perf_nl_post_doit() - After every doit that passed pre_doit.
 * @ops:	the operation.
 * @skb:	the request.
 * @info:	its attributes and extack.
 *
 * Context: process context, damon_perf_lock held; releases it.
 */
void damon_perf_nl_post_doit(const struct genl_split_ops *ops,
			     struct sk_buff *skb, struct genl_info *info)
{
	mutex_unlock(&damon_perf_lock);
}

/* The group's index is the generated DAMON_PERF_NLGRP_MONITOR. */
static const struct genl_multicast_group damon_perf_mcgrps[] = {
	[DAMON_PERF_NLGRP_MONITOR] = {
		.name = DAMON_PERF_GENL_MCGRP_MONITOR,
		.flags = DAMON_PERF_GENL_MCAST_FLAGS,
	},
};

struct genl_family damon_perf_family __ro_after_init = {
	.name = DAMON_PERF_GENL_NAME,
	.version = DAMON_PERF_GENL_VERSION,
	.module = THIS_MODULE,
	.netnsok = false,
	.parallel_ops = false,
	/* every command validates strictly (reserved header, attributes) */
	.resv_start_op = DAMON_PERF_CMD_CTX_NEW,
	DAMON_PERF_GENL_SPLIT_OPS(damon_perf_nl_ops),
	.mcgrps = damon_perf_mcgrps,
	.n_mcgrps = ARRAY_SIZE(damon_perf_mcgrps),
};

/**
 * damon_perf_netlink_init() - Register the generic netlink family.
 *
 * Context: module init.
 * Return: 0 or a negative errno.
 */
int __init damon_perf_netlink_init(void)
{
	int ret;

	ret = damon_perf_compat_genl_ops(&damon_perf_family, damon_perf_nl_ops,
					 ARRAY_SIZE(damon_perf_nl_ops));
	if (ret)
		return ret;
	ret = damon_perf_nl_notify_init();
	if (ret)
		return ret;
	ret = genl_register_family(&damon_perf_family);
	if (ret) {
		damon_perf_nl_notify_exit();
		return ret;
	}
	damon_perf_nl_notify_start();
	return 0;
}

/**
 * damon_perf_netlink_exit() - Unregister the family, end subscriptions.
 *
 * Context: module exit.
 */
void damon_perf_netlink_exit(void)
{
	/* a kdamond may still aggregate until damon_perf_ctx_exit() */
	damon_perf_nl_notify_stop();
	/* waits for running commands; none starts after it */
	genl_unregister_family(&damon_perf_family);
	damon_perf_nl_notify_exit();
}
