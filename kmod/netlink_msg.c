// SPDX-License-Identifier: GPL-2.0
/*
 * What the three files of the "damon_perf" family share, below all of
 * them: the sender's permission check, the lookup of the context a request
 * names, and the message builders (the fill functions) that write a
 * context, a target, a snapshot, a region or a row of counters into a
 * message. netlink.c (doits), netlink_dump.c (dumps) and netlink_notify.c
 * (AGGREGATION notifications) call these; nothing here calls them.
 */
#include <linux/capability.h>
#include <linux/cpumask.h>
#include <linux/netlink.h>
#include <net/genetlink.h>

#include <linux/damon_perf.h>

#include "ctx.h"
#include "netlink_internal.h"
#include "perf_source.h"
#include "stats.h"

static bool privileged(struct sk_buff *skb)
{
	return netlink_capable(skb, CAP_PERFMON) ||
	       netlink_capable(skb, CAP_SYS_ADMIN);
}

/**
 * damon_perf_nl_check_perm() - Check the sender's capabilities.
 * @skb:	the request.
 * @extack:	where the error message goes.
 *
 * Context: any process context.
 * Return: 0 when the sender has CAP_SYS_ADMIN or CAP_PERFMON, else -EPERM.
 */
int damon_perf_nl_check_perm(struct sk_buff *skb,
			     struct netlink_ext_ack *extack)
{
	if (privileged(skb))
		return 0;
	NL_SET_ERR_MSG(extack, "damon_perf needs CAP_SYS_ADMIN or CAP_PERFMON");
	return -EPERM;
}

/**
 * damon_perf_nl_admin() - Whether the sender may see and change every
 * context.
 * @skb:	the request.
 *
 * Context: process context of the sender.
 * Return: true when the sender has CAP_SYS_ADMIN (init user namespace).
 */
bool damon_perf_nl_admin(struct sk_buff *skb)
{
	return netlink_capable(skb, CAP_SYS_ADMIN);
}

/**
 * damon_perf_nl_lookup() - Find the context a request names.
 * @skb:	the request.
 * @attrs:	its attributes (CTX_ID and/or CTX_NAME).
 * @extack:	where the error message goes.
 *
 * A sender without CAP_SYS_ADMIN may only name a context it owns: one
 * created by its euid in its PID namespace (damon_perf_owner_is_current());
 * another's gets -EACCES. Names are global, so a name being taken is no
 * secret (CTX_NEW says -EEXIST), and neither is this refusal.
 *
 * Context: process context of the sender, damon_perf_lock held.
 * Return: the context, or an ERR_PTR() with the reason in @extack.
 */
struct damon_perf_ctx *damon_perf_nl_lookup(struct sk_buff *skb,
					    struct nlattr **attrs,
					    struct netlink_ext_ack *extack)
{
	struct nlattr *id_attr = attrs[DAMON_PERF_A_CTX_ID];
	struct nlattr *name_attr = attrs[DAMON_PERF_A_CTX_NAME];
	struct damon_perf_ctx *ctx = NULL;

	lockdep_assert_held(&damon_perf_lock);
	if (!id_attr && !name_attr) {
		NL_SET_ERR_MSG(extack, "context id or name required");
		return ERR_PTR(-EINVAL);
	}
	if (id_attr)
		ctx = damon_perf_ctx_find(nla_get_u32(id_attr));
	else
		ctx = damon_perf_ctx_find_name(nla_data(name_attr));
	if (!ctx) {
		NL_SET_ERR_MSG_ATTR(extack, id_attr ? id_attr : name_attr,
				    "no such context");
		return ERR_PTR(-ENOENT);
	}
	if (!damon_perf_owner_is_current(&ctx->owner) &&
	    !damon_perf_nl_admin(skb)) {
		NL_SET_ERR_MSG_ATTR(extack, id_attr ? id_attr : name_attr,
				    "context belongs to another user or PID namespace (CAP_SYS_ADMIN reaches every context)");
		return ERR_PTR(-EACCES);
	}
	if (id_attr && name_attr && strcmp(ctx->name, nla_data(name_attr))) {
		NL_SET_ERR_MSG_ATTR(extack, name_attr,
				    "context id and name do not match");
		return ERR_PTR(-EINVAL);
	}
	return ctx;
}

static int fill_attrs(struct sk_buff *skb, const struct damon_perf_attrs *a)
{
	struct nlattr *nest = nla_nest_start(skb, DAMON_PERF_A_ATTRS);

	if (!nest ||
	    put_u64(skb, DAMON_PERF_ATTRS_A_SAMPLE_US, a->sample_us,
		    DAMON_PERF_ATTRS_A_PAD) ||
	    put_u64(skb, DAMON_PERF_ATTRS_A_AGGR_US, a->aggr_us,
		    DAMON_PERF_ATTRS_A_PAD) ||
	    put_u64(skb, DAMON_PERF_ATTRS_A_UPDATE_US, a->update_us,
		    DAMON_PERF_ATTRS_A_PAD) ||
	    nla_put_u32(skb, DAMON_PERF_ATTRS_A_MIN_NR_REGIONS,
			a->min_nr_regions) ||
	    nla_put_u32(skb, DAMON_PERF_ATTRS_A_MAX_NR_REGIONS,
			a->max_nr_regions) ||
	    nla_put_u32(skb, DAMON_PERF_ATTRS_A_MODE, a->mode) ||
	    nla_put_u32(skb, DAMON_PERF_ATTRS_A_RING_SIZE, a->ring_size) ||
	    nla_put_u32(skb, DAMON_PERF_ATTRS_A_SPLIT, a->split) ||
	    nla_put_u32(skb, DAMON_PERF_ATTRS_A_CPU_BUDGET, a->cpu_budget) ||
	    nla_put_u32(skb, DAMON_PERF_ATTRS_A_SAMPLES_GOAL,
			a->samples_goal) ||
	    nla_put_u32(skb, DAMON_PERF_ATTRS_A_GOAL_AGGRS, a->goal_aggrs) ||
	    put_u64(skb, DAMON_PERF_ATTRS_A_MIN_AGGR_US, a->min_aggr_us,
		    DAMON_PERF_ATTRS_A_PAD) ||
	    put_u64(skb, DAMON_PERF_ATTRS_A_MAX_AGGR_US, a->max_aggr_us,
		    DAMON_PERF_ATTRS_A_PAD))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

/**
 * damon_perf_nl_fill_target() - Put one DAMON_PERF_A_TARGET nest.
 * @skb:	the message.
 * @t:		the target.
 *
 * Context: damon_perf_lock held.
 * Return: 0 or -EMSGSIZE.
 */
int damon_perf_nl_fill_target(struct sk_buff *skb,
			      const struct damon_perf_target *t)
{
	struct nlattr *nest = nla_nest_start(skb, DAMON_PERF_A_TARGET);

	if (!nest ||
	    nla_put_u32(skb, DAMON_PERF_TARGET_A_ID, t->id) ||
	    /* the pid as the reader's PID namespace sees it, 0 if it cannot */
	    (t->pid && nla_put_u32(skb, DAMON_PERF_TARGET_A_PID,
				   pid_vnr(t->pid_ref))) ||
	    (!t->pid &&
	     (put_u64(skb, DAMON_PERF_TARGET_A_START, t->start,
		      DAMON_PERF_TARGET_A_PAD) ||
	      put_u64(skb, DAMON_PERF_TARGET_A_END, t->end,
		      DAMON_PERF_TARGET_A_PAD))) ||
	    (READ_ONCE(t->dead) &&
	     nla_put_flag(skb, DAMON_PERF_TARGET_A_DEAD)) ||
	    nla_put_u32(skb, DAMON_PERF_TARGET_A_NR_REGIONS,
			READ_ONCE(t->nr_regions)))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

static int put_flag_if(struct sk_buff *skb, int type, bool set)
{
	return set ? nla_put_flag(skb, type) : 0;
}

static int fill_probe(struct sk_buff *skb, unsigned int idx,
		      const struct damon_perf_probe_attr *p, u64 period)
{
	struct nlattr *nest = nla_nest_start(skb, DAMON_PERF_A_PROBE);

	if (!nest ||
	    nla_put_u32(skb, DAMON_PERF_PROBE_A_IDX, idx) ||
	    nla_put_u32(skb, DAMON_PERF_PROBE_A_TYPE, p->type) ||
	    put_u64(skb, DAMON_PERF_PROBE_A_CONFIG, p->config,
		    DAMON_PERF_PROBE_A_PAD) ||
	    put_u64(skb, DAMON_PERF_PROBE_A_CONFIG1, p->config1,
		    DAMON_PERF_PROBE_A_PAD) ||
	    put_u64(skb, DAMON_PERF_PROBE_A_CONFIG2, p->config2,
		    DAMON_PERF_PROBE_A_PAD) ||
	    put_u64(skb, DAMON_PERF_PROBE_A_SAMPLE_PERIOD, p->sample_period,
		    DAMON_PERF_PROBE_A_PAD) ||
	    put_flag_if(skb, DAMON_PERF_PROBE_A_FREQ, p->freq) ||
	    nla_put_u32(skb, DAMON_PERF_PROBE_A_WAKEUP_EVENTS,
			p->wakeup_events) ||
	    nla_put_u32(skb, DAMON_PERF_PROBE_A_WEIGHT, p->weight) ||
	    nla_put_u8(skb, DAMON_PERF_PROBE_A_PRECISE_IP, p->precise_ip) ||
	    put_flag_if(skb, DAMON_PERF_PROBE_A_SAMPLE_PHYS_ADDR,
			p->sample_phys_addr) ||
	    put_flag_if(skb, DAMON_PERF_PROBE_A_SAMPLE_WEIGHT_STRUCT,
			p->sample_weight_struct) ||
	    put_flag_if(skb, DAMON_PERF_PROBE_A_EXCLUDE_KERNEL,
			p->exclude_kernel) ||
	    put_flag_if(skb, DAMON_PERF_PROBE_A_EXCLUDE_HV, p->exclude_hv) ||
	    put_flag_if(skb, DAMON_PERF_PROBE_A_EXCLUDE_USER,
			p->exclude_user) ||
	    (period && put_u64(skb, DAMON_PERF_PROBE_A_EFFECTIVE_PERIOD, period,
			       DAMON_PERF_PROBE_A_PAD)))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

static int fill_filter(struct sk_buff *skb, const struct damon_perf_filter *f)
{
	struct nlattr *nest = nla_nest_start(skb, DAMON_PERF_FILTERS_A_FILTER);
	unsigned int i;
	char *cpus;
	int ret;

	if (!nest ||
	    nla_put_u32(skb, DAMON_PERF_FILTER_A_TYPE, f->type) ||
	    put_flag_if(skb, DAMON_PERF_FILTER_A_ALLOW, f->allow))
		return -EMSGSIZE;
	if (f->type == DAMON_PERF_FILTER_CPUMASK) {
		cpus = kasprintf(GFP_KERNEL, "%*pbl",
				 cpumask_pr_args(&f->cpus));
		if (!cpus)
			return -ENOMEM;
		ret = nla_put_string(skb, DAMON_PERF_FILTER_A_CPUS, cpus);
		kfree(cpus);
		if (ret)
			return ret;
	}
	for (i = 0; i < f->nr_tids && i < DAMON_PERF_MAX_FILTER_TIDS; i++)
		if (nla_put_u32(skb, DAMON_PERF_FILTER_A_TID,
				damon_perf_tid_vnr(f->tids[i])))
			return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

/* What the CPU budget measured; the kdamond writes it with WRITE_ONCE. */
static int fill_budget(struct sk_buff *skb, const struct damon_perf_budget *b)
{
	struct nlattr *nest = nla_nest_start(skb, DAMON_PERF_A_BUDGET);

	if (!nest ||
	    nla_put_u32(skb, DAMON_PERF_BUDGET_A_COST, READ_ONCE(b->cost)) ||
	    put_u64(skb, DAMON_PERF_BUDGET_A_HANDLER_NS,
		    READ_ONCE(b->handler_total_ns), DAMON_PERF_BUDGET_A_PAD) ||
	    put_u64(skb, DAMON_PERF_BUDGET_A_DRAIN_NS,
		    READ_ONCE(b->drain_total_ns), DAMON_PERF_BUDGET_A_PAD) ||
	    put_u64(skb, DAMON_PERF_BUDGET_A_RAISES, READ_ONCE(b->raises),
		    DAMON_PERF_BUDGET_A_PAD) ||
	    put_u64(skb, DAMON_PERF_BUDGET_A_LOWERS, READ_ONCE(b->lowers),
		    DAMON_PERF_BUDGET_A_PAD) ||
	    put_u64(skb, DAMON_PERF_BUDGET_A_REFUSED, READ_ONCE(b->refused),
		    DAMON_PERF_BUDGET_A_PAD))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

/*
 * What the intervals tuning chose and saw, once a context with a samples
 * goal started; the kdamond writes it with WRITE_ONCE.
 */
static int fill_tuning(struct sk_buff *skb, const struct damon_perf_tune *t)
{
	u64 aggr_us = READ_ONCE(t->aggr_us);
	struct nlattr *nest;

	if (!aggr_us)
		return 0;
	nest = nla_nest_start(skb, DAMON_PERF_A_TUNING);
	if (!nest ||
	    put_u64(skb, DAMON_PERF_TUNING_A_AGGR_US, aggr_us,
		    DAMON_PERF_TUNING_A_PAD) ||
	    put_u64(skb, DAMON_PERF_TUNING_A_MIN_AGGR_US, READ_ONCE(t->min_us),
		    DAMON_PERF_TUNING_A_PAD) ||
	    put_u64(skb, DAMON_PERF_TUNING_A_MAX_AGGR_US, READ_ONCE(t->max_us),
		    DAMON_PERF_TUNING_A_PAD) ||
	    put_u64(skb, DAMON_PERF_TUNING_A_SAMPLES, READ_ONCE(t->last),
		    DAMON_PERF_TUNING_A_PAD) ||
	    put_u64(skb, DAMON_PERF_TUNING_A_STEPS, READ_ONCE(t->steps),
		    DAMON_PERF_TUNING_A_PAD) ||
	    put_u64(skb, DAMON_PERF_TUNING_A_UPS, READ_ONCE(t->ups),
		    DAMON_PERF_TUNING_A_PAD) ||
	    put_u64(skb, DAMON_PERF_TUNING_A_DOWNS, READ_ONCE(t->downs),
		    DAMON_PERF_TUNING_A_PAD) ||
	    nla_put_u32(skb, DAMON_PERF_TUNING_A_PERIOD_DIV,
			1U << READ_ONCE(t->period_shift)))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

/**
 * damon_perf_nl_current_attrs() - The attributes in effect, or about to be.
 * @ctx:	the context.
 * @a:		receives its attributes.
 *
 * A running context takes tuned intervals at its next sample interval:
 * those are the ones reported.
 *
 * Context: damon_perf_lock held.
 */
void damon_perf_nl_current_attrs(struct damon_perf_ctx *ctx,
				 struct damon_perf_attrs *a)
{
	spin_lock(&ctx->pending_lock);
	*a = ctx->attrs_pending ? ctx->pending_attrs : ctx->attrs;
	spin_unlock(&ctx->pending_lock);
}

/**
 * damon_perf_nl_fill_ctx() - Put the CTX_GET reply body.
 * @skb:	the message.
 * @ctx:	the context it describes.
 *
 * Context: damon_perf_lock held.
 * Return: 0, -EMSGSIZE or -ENOMEM.
 */
int damon_perf_nl_fill_ctx(struct sk_buff *skb, struct damon_perf_ctx *ctx)
{
	struct damon_perf_target *t;
	struct damon_perf_attrs a;
	struct nlattr *nest;
	unsigned int i;
	int ret;

	if (nla_put_u32(skb, DAMON_PERF_A_CTX_ID, ctx->id) ||
	    nla_put_string(skb, DAMON_PERF_A_CTX_NAME, ctx->name) ||
	    nla_put_u32(skb, DAMON_PERF_A_CTX_OPS, ctx->ops) ||
	    nla_put_u32(skb, DAMON_PERF_A_CTX_STATE, ctx->state))
		return -EMSGSIZE;
	damon_perf_nl_current_attrs(ctx, &a);
	if (fill_attrs(skb, &a))
		return -EMSGSIZE;
	damon_perf_for_each_target(t, ctx)
		if (damon_perf_nl_fill_target(skb, t))
			return -EMSGSIZE;
	for (i = 0; i < DAMON_PERF_MAX_PROBES; i++)
		if (ctx->probes[i].used &&
		    fill_probe(skb, i + 1, &ctx->probes[i].attr,
			       damon_perf_source_period(ctx, i + 1)))
			return -EMSGSIZE;
	nest = nla_nest_start(skb, DAMON_PERF_A_FILTERS);
	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < ctx->nr_filters && i < DAMON_PERF_MAX_FILTERS; i++) {
		ret = fill_filter(skb, &ctx->filters[i]);
		if (ret)
			return ret;
	}
	nla_nest_end(skb, nest);
	if (nla_put_u32(skb, DAMON_PERF_A_ARM_FAILURES,
			atomic_read(&ctx->arm_failures)) ||
	    put_u64(skb, DAMON_PERF_A_STALE_DROPS, READ_ONCE(ctx->stale_drops),
		    DAMON_PERF_A_PAD))
		return -EMSGSIZE;
	if (fill_budget(skb, &ctx->budget))
		return -EMSGSIZE;
	return fill_tuning(skb, &ctx->tune);
}

/**
 * damon_perf_nl_fill_snap() - Put the DAMON_PERF_A_SNAPSHOT summary nest.
 * @skb:	the message.
 * @s:		the snapshot.
 *
 * Context: any process context.
 * Return: 0 or -EMSGSIZE.
 */
int damon_perf_nl_fill_snap(struct sk_buff *skb,
			    const struct damon_perf_snapshot *s)
{
	struct nlattr *nest = nla_nest_start(skb, DAMON_PERF_A_SNAPSHOT);

	if (!nest ||
	    put_u64(skb, DAMON_PERF_SNAP_A_SEQ, s->seq,
		    DAMON_PERF_SNAP_A_PAD) ||
	    put_u64(skb, DAMON_PERF_SNAP_A_TIME_NS, s->time_ns,
		    DAMON_PERF_SNAP_A_PAD) ||
	    put_u64(skb, DAMON_PERF_SNAP_A_AGGR_US, s->aggr_us,
		    DAMON_PERF_SNAP_A_PAD) ||
	    nla_put_u32(skb, DAMON_PERF_SNAP_A_NR_REGIONS, s->nr_regions) ||
	    put_u64(skb, DAMON_PERF_SNAP_A_NR_SAMPLES, s->nr_samples,
		    DAMON_PERF_SNAP_A_PAD) ||
	    put_u64(skb, DAMON_PERF_SNAP_A_FLOOR, s->floor,
		    DAMON_PERF_SNAP_A_PAD) ||
	    nla_put_u32(skb, DAMON_PERF_SNAP_A_CONFIDENCE, s->confidence) ||
	    nla_put_u32(skb, DAMON_PERF_SNAP_A_CARRIED, s->carried) ||
	    nla_put_u32(skb, DAMON_PERF_SNAP_A_WINDOWS, s->windows))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

/**
 * damon_perf_nl_fill_region() - Put one DAMON_PERF_A_REGION nest.
 * @skb:	the message.
 * @r:		the snapshot region.
 *
 * Leaves @skb as it found it when the region does not fit.
 *
 * Context: any process context.
 * Return: 0 or -EMSGSIZE.
 */
int damon_perf_nl_fill_region(struct sk_buff *skb,
			      const struct damon_perf_snap_region *r)
{
	struct nlattr *nest, *hits;
	unsigned int i;

	nest = nla_nest_start(skb, DAMON_PERF_A_REGION);
	if (!nest ||
	    nla_put_u32(skb, DAMON_PERF_REGION_A_TARGET_ID, r->target_id) ||
	    put_u64(skb, DAMON_PERF_REGION_A_START, r->start,
		    DAMON_PERF_REGION_A_PAD) ||
	    put_u64(skb, DAMON_PERF_REGION_A_END, r->end,
		    DAMON_PERF_REGION_A_PAD) ||
	    nla_put_u32(skb, DAMON_PERF_REGION_A_NR_ACCESSES, r->nr_accesses) ||
	    nla_put_u32(skb, DAMON_PERF_REGION_A_AGE, r->age) ||
	    put_u64(skb, DAMON_PERF_REGION_A_RATE, r->rate,
		    DAMON_PERF_REGION_A_PAD))
		goto cancel;
	if (r->sampled.nr &&
	    (put_u64(skb, DAMON_PERF_REGION_A_SAMPLED_START,
		     r->sampled.run[0].start, DAMON_PERF_REGION_A_PAD) ||
	     put_u64(skb, DAMON_PERF_REGION_A_SAMPLED_END,
		     r->sampled.run[r->sampled.nr - 1].end,
		     DAMON_PERF_REGION_A_PAD)))
		goto cancel;
	/* one run is [sampled-start, sampled-end): no more to say */
	if (r->sampled.nr > 1) {
		u64 runs[2 * DAMON_PERF_SAMPLED_RUNS_MAX];

		for (i = 0; i < r->sampled.nr; i++) {
			runs[2 * i] = r->sampled.run[i].start;
			runs[2 * i + 1] = r->sampled.run[i].end;
		}
		if (nla_put(skb, DAMON_PERF_REGION_A_SAMPLED_RUNS,
			    2 * r->sampled.nr * sizeof(u64), runs))
			goto cancel;
	}
	hits = nla_nest_start(skb, DAMON_PERF_REGION_A_PROBE_HITS);
	if (!hits)
		goto cancel;
	/* probe index i + 1; index 0 of the nest would be padding */
	for (i = 0; i < DAMON_PERF_MAX_PROBES; i++)
		if (nla_put_u64_64bit(skb, i + 1, r->probe_hits[i], 0))
			goto cancel;
	nla_nest_end(skb, hits);
	nla_nest_end(skb, nest);
	return 0;
cancel:
	if (nest)
		nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

/* Every counter of stats_counters.h, by name, in its order. */
static const struct {
	const char *name;
	size_t offset;
} counters[] = {
#define DAMON_PERF_STAT(name, doc) \
	{ #name, offsetof(struct damon_perf_stats, name) },
#include "stats_counters.h"
};

/**
 * damon_perf_nl_fill_stats() - Put one DAMON_PERF_A_STATS nest.
 * @skb:	the message.
 * @st:		the counters of one CPU, or their total.
 * @cpu:	the CPU, or -1 for the total.
 *
 * Context: any process context.
 * Return: 0 or -EMSGSIZE.
 */
int damon_perf_nl_fill_stats(struct sk_buff *skb,
			     const struct damon_perf_stats *st, int cpu)
{
	struct nlattr *nest, *c;
	unsigned int i;

	nest = nla_nest_start(skb, DAMON_PERF_A_STATS);
	if (!nest)
		return -EMSGSIZE;
	if (cpu < 0 ? nla_put_flag(skb, DAMON_PERF_STATS_A_TOTAL) :
		      nla_put_u32(skb, DAMON_PERF_STATS_A_CPU, cpu))
		return -EMSGSIZE;
	if (nla_put_u32(skb, DAMON_PERF_STATS_A_STATE, st->cpu_state) ||
	    nla_put_string(skb, DAMON_PERF_STATS_A_STATE_NAME,
			   damon_perf_state_name(st->cpu_state) ?: "?"))
		return -EMSGSIZE;
	for (i = 0; i < ARRAY_SIZE(counters); i++) {
		c = nla_nest_start(skb, DAMON_PERF_STATS_A_COUNTER);
		if (!c ||
		    nla_put_string(skb, DAMON_PERF_COUNTER_A_NAME,
				   counters[i].name) ||
		    put_u64(skb, DAMON_PERF_COUNTER_A_VALUE,
			    *(const unsigned long *)((const char *)st +
						     counters[i].offset),
			    DAMON_PERF_COUNTER_A_PAD))
			return -EMSGSIZE;
		nla_nest_end(skb, c);
	}
	nla_nest_end(skb, nest);
	return 0;
}
