// SPDX-License-Identifier: GPL-2.0
/*
 * Monitoring contexts: the global list, ids and names, attributes and their
 * validation, targets, sample filters and the lifecycle (start, stop,
 * destroy).
 *
 * Locking: damon_perf_lock serializes every configuration call and the
 * lifecycle; each non-static function that expects it says so in its
 * kernel-doc and asserts it with lockdep. The kdamond never takes it: the
 * configuration it reads can change only while it is not running, except
 * the intervals and the access mode, which are handed over through
 * @pending_attrs under @pending_lock.
 */
#include <linux/cred.h>
#include <linux/ctype.h>
#include <linux/ioport.h>
#include <linux/kthread.h>
#include <linux/lockdep.h>
#include <linux/module.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/stringify.h>
#include <linux/workqueue.h>

#include "aux.h"
#include "ctx.h"
#include "debugfs.h"
#include "drain.h"
#include "kdamond.h"
#include "perf_source.h"
#include "probe.h"
#include "regions.h"
#include "snapshot.h"

/* Every configuration call, the lifecycle and every netlink handler. */
struct mutex damon_perf_lock = __MUTEX_INITIALIZER(damon_perf_lock);
EXPORT_SYMBOL_IF_KUNIT(damon_perf_lock);

/* Bounds of the attributes: the uapi limits, also the netlink policy's. */
#define MAX_SAMPLE_US	DAMON_PERF_SAMPLE_US_MAX
#define MAX_AGGR_US	DAMON_PERF_INTERVAL_US_MAX
#define MAX_UPDATE_US	DAMON_PERF_INTERVAL_US_MAX

/* Contexts, sorted by id; damon_perf_lock. */
static LIST_HEAD(ctxs);
static unsigned int nr_ctxs;
static u32 next_ctx_id = 1;

static void reap_fn(struct work_struct *work);
static DECLARE_WORK(reap_work, reap_fn);

/**
 * damon_perf_attrs_default() - Fill attributes with DAMON's defaults.
 * @attrs:	attributes to fill.
 *
 * Sample 5 ms, aggregation 100 ms, update 1 s, 10 to 1000 regions,
 * presence mode, DAMON_PERF_RING_DEF_SIZE ring entries, regions split
 * where the sample density changes, a fixed aggregation interval (no
 * samples goal; 3 aggregations per tuning step once one is set).
 *
 * Context: any.
 */
void damon_perf_attrs_default(struct damon_perf_attrs *attrs)
{
	attrs->sample_us = 5000;
	attrs->aggr_us = 100000;
	attrs->update_us = 1000000;
	attrs->min_nr_regions = 10;
	attrs->max_nr_regions = 1000;
	attrs->mode = DAMON_PERF_MODE_PRESENCE;
	attrs->ring_size = DAMON_PERF_RING_DEF_SIZE;
	attrs->split = DAMON_PERF_SPLIT_SAMPLES;
	attrs->cpu_budget = 0;
	attrs->samples_goal = 0;
	attrs->goal_aggrs = 3;
	attrs->min_aggr_us = 0;
	attrs->max_aggr_us = 0;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_attrs_default);

/**
 * damon_perf_attrs_validate() - Check attributes.
 * @attrs:	attributes to check.
 * @extack:	receives the reason of a rejection, may be NULL.
 *
 * Context: any.
 * Return: 0 when @attrs are valid, -EINVAL with a message otherwise.
 */
int damon_perf_attrs_validate(const struct damon_perf_attrs *attrs,
			      struct netlink_ext_ack *extack)
{
	if (!attrs->sample_us || !attrs->aggr_us || !attrs->update_us) {
		NL_SET_ERR_MSG(extack, "intervals must not be zero");
		return -EINVAL;
	}
	if (attrs->sample_us > MAX_SAMPLE_US) {
		NL_SET_ERR_MSG(extack, "sample interval above "
			       __stringify(DAMON_PERF_SAMPLE_US_MAX) " us");
		return -EINVAL;
	}
	if (attrs->aggr_us > MAX_AGGR_US) {
		NL_SET_ERR_MSG(extack, "aggregation interval above 1 h");
		return -EINVAL;
	}
	if (attrs->update_us > MAX_UPDATE_US) {
		NL_SET_ERR_MSG(extack, "update interval above 1 h");
		return -EINVAL;
	}
	if (attrs->aggr_us % attrs->sample_us) {
		NL_SET_ERR_MSG(extack,
			       "aggregation interval is not a multiple of the sample interval");
		return -EINVAL;
	}
	if (attrs->update_us % attrs->sample_us) {
		NL_SET_ERR_MSG(extack,
			       "update interval is not a multiple of the sample interval");
		return -EINVAL;
	}
	if (attrs->min_nr_regions < DAMON_PERF_NR_REGIONS_MIN) {
		NL_SET_ERR_MSG(extack, "min_nr_regions must be at least "
			       __stringify(DAMON_PERF_NR_REGIONS_MIN));
		return -EINVAL;
	}
	if (attrs->min_nr_regions > attrs->max_nr_regions) {
		NL_SET_ERR_MSG(extack, "min_nr_regions above max_nr_regions");
		return -EINVAL;
	}
	if (attrs->max_nr_regions > DAMON_PERF_MAX_REGIONS) {
		NL_SET_ERR_MSG(extack, "max_nr_regions above the limit ("
			       __stringify(DAMON_PERF_NR_REGIONS_MAX) ")");
		return -EINVAL;
	}
	if (attrs->mode != DAMON_PERF_MODE_PRESENCE &&
	    attrs->mode != DAMON_PERF_MODE_COUNT) {
		NL_SET_ERR_MSG(extack, "unknown access mode");
		return -EINVAL;
	}
	if (attrs->split != DAMON_PERF_SPLIT_SAMPLES &&
	    attrs->split != DAMON_PERF_SPLIT_RANDOM) {
		NL_SET_ERR_MSG(extack, "unknown split mode");
		return -EINVAL;
	}
	if (attrs->cpu_budget > DAMON_PERF_CPU_BUDGET_MAX) {
		NL_SET_ERR_MSG(extack, "cpu budget above "
			       __stringify(DAMON_PERF_CPU_BUDGET_MAX)
			       " (100% of one CPU, in 1/100 %)");
		return -EINVAL;
	}
	if (attrs->samples_goal > DAMON_PERF_SAMPLES_GOAL_MAX) {
		NL_SET_ERR_MSG(extack, "samples goal above "
			       __stringify(DAMON_PERF_SAMPLES_GOAL_MAX));
		return -EINVAL;
	}
	if (!attrs->goal_aggrs ||
	    attrs->goal_aggrs > DAMON_PERF_GOAL_AGGRS_MAX) {
		NL_SET_ERR_MSG(extack, "goal aggregations must be within 1.."
			       __stringify(DAMON_PERF_GOAL_AGGRS_MAX));
		return -EINVAL;
	}
	if (attrs->min_aggr_us > MAX_AGGR_US ||
	    attrs->max_aggr_us > MAX_AGGR_US) {
		NL_SET_ERR_MSG(extack, "tuned aggregation bound above 1 h");
		return -EINVAL;
	}
	if (attrs->min_aggr_us && attrs->max_aggr_us &&
	    attrs->min_aggr_us > attrs->max_aggr_us) {
		NL_SET_ERR_MSG(extack, "min_aggr_us above max_aggr_us");
		return -EINVAL;
	}
	if (attrs->max_aggr_us && attrs->max_aggr_us < attrs->sample_us) {
		NL_SET_ERR_MSG(extack,
			       "max_aggr_us below the sample interval");
		return -EINVAL;
	}
	if (!damon_perf_rings_valid_size(attrs->ring_size)) {
		NL_SET_ERR_MSG(extack,
			       "ring size must be a power of two within "
			       __stringify(DAMON_PERF_RING_SIZE_MIN) ".."
			       __stringify(DAMON_PERF_RING_SIZE_MAX));
		return -EINVAL;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_attrs_validate);

static bool name_valid(const char *name, struct netlink_ext_ack *extack)
{
	size_t len, i;

	len = name ? strnlen(name, DAMON_PERF_NAME_LEN) : 0;
	if (!len) {
		NL_SET_ERR_MSG(extack, "context name is empty");
		return false;
	}
	if (len == DAMON_PERF_NAME_LEN) {
		NL_SET_ERR_MSG(extack, "context name longer than 31 bytes");
		return false;
	}
	for (i = 0; i < len; i++) {
		if (!isascii(name[i]) || !isprint(name[i])) {
			NL_SET_ERR_MSG(extack,
				       "context name has a non-printable byte");
			return false;
		}
	}
	return true;
}

static bool running(struct damon_perf_ctx *ctx)
{
	return ctx->state == DAMON_PERF_CTX_STATE_RUNNING;
}

static bool refuse_running(struct damon_perf_ctx *ctx,
			   struct netlink_ext_ack *extack)
{
	if (!running(ctx))
		return false;
	NL_SET_ERR_MSG(extack, "context is running; stop it first");
	return true;
}

/**
 * damon_perf_ctx_find() - Look a context up by id.
 * @id:		its id.
 *
 * Context: damon_perf_lock held.
 * Return: the context or NULL.
 */
struct damon_perf_ctx *damon_perf_ctx_find(u32 id)
{
	struct damon_perf_ctx *ctx;

	lockdep_assert_held(&damon_perf_lock);
	list_for_each_entry(ctx, &ctxs, list)
		if (ctx->id == id)
			return ctx;
	return NULL;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_ctx_find);

/**
 * damon_perf_ctx_find_name() - Look a context up by name.
 * @name:	its name.
 *
 * Context: damon_perf_lock held.
 * Return: the context or NULL.
 */
struct damon_perf_ctx *damon_perf_ctx_find_name(const char *name)
{
	struct damon_perf_ctx *ctx;

	lockdep_assert_held(&damon_perf_lock);
	list_for_each_entry(ctx, &ctxs, list)
		if (!strncmp(ctx->name, name, DAMON_PERF_NAME_LEN))
			return ctx;
	return NULL;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_ctx_find_name);

/**
 * damon_perf_ctx_next() - Iterate over contexts in id order (dumps).
 * @after_id:	id of the previous context, 0 for the first.
 *
 * Context: damon_perf_lock held.
 * Return: the context with the smallest id above @after_id, or NULL.
 */
struct damon_perf_ctx *damon_perf_ctx_next(u32 after_id)
{
	struct damon_perf_ctx *ctx;

	lockdep_assert_held(&damon_perf_lock);
	list_for_each_entry(ctx, &ctxs, list)
		if (ctx->id > after_id)
			return ctx;
	return NULL;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_ctx_next);

/**
 * damon_perf_any_running() - Whether some context runs.
 *
 * Context: damon_perf_lock held.
 * Return: true when at least one context is running.
 */
bool damon_perf_any_running(void)
{
	struct damon_perf_ctx *ctx;

	lockdep_assert_held(&damon_perf_lock);
	list_for_each_entry(ctx, &ctxs, list)
		if (running(ctx))
			return true;
	return false;
}

/**
 * damon_perf_owner_get_current() - The calling task as an owner.
 * @o:		filled with references on its credentials and PID namespace.
 *
 * Context: process context.
 */
void damon_perf_owner_get_current(struct damon_perf_owner *o)
{
	o->cred = get_current_cred();
	o->pidns = get_pid_ns(task_active_pid_ns(current));
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_owner_get_current);

/**
 * damon_perf_owner_put() - Drop what damon_perf_owner_get_current() took.
 * @o:		the owner; empty (zeroed) is allowed.
 *
 * Context: process context.
 */
void damon_perf_owner_put(struct damon_perf_owner *o)
{
	if (o->cred)
		put_cred(o->cred);
	if (o->pidns)
		put_pid_ns(o->pidns);
	o->cred = NULL;
	o->pidns = NULL;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_owner_put);

/**
 * damon_perf_owner_same() - Whether two owners are one.
 * @a:		an owner.
 * @b:		another; either may be empty (never the same).
 *
 * Context: any.
 * Return: true when the effective uids and the PID namespaces are equal.
 */
bool damon_perf_owner_same(const struct damon_perf_owner *a,
			   const struct damon_perf_owner *b)
{
	return a->cred && b->cred && uid_eq(a->cred->euid, b->cred->euid) &&
	       a->pidns == b->pidns;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_owner_same);

/**
 * damon_perf_owner_is_current() - Whether the calling task is @o.
 * @o:		an owner, may be empty (never the caller).
 *
 * Context: process context.
 * Return: true when the caller's euid and active PID namespace are @o's.
 */
bool damon_perf_owner_is_current(const struct damon_perf_owner *o)
{
	return o->cred && uid_eq(o->cred->euid, current_euid()) &&
	       o->pidns == task_active_pid_ns(current);
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_owner_is_current);

/**
 * damon_perf_ctx_new() - Create a context.
 * @name:	unique, printable, non-empty name shorter than
 *		DAMON_PERF_NAME_LEN.
 * @ops:	DAMON_PERF_OPS_VADDR or DAMON_PERF_OPS_PADDR.
 * @extack:	receives the reason of a rejection, may be NULL.
 *
 * The context starts CONFIGURED with default attributes, no target, no
 * probe and no filter, owned by the calling task's euid and PID namespace.
 *
 * Context: process context, damon_perf_lock held.
 * Return: the context, or an ERR_PTR: -EINVAL (bad name or ops), -EEXIST
 * (name taken), -ENOSPC (too many contexts), -ENOMEM.
 */
struct damon_perf_ctx *damon_perf_ctx_new(const char *name, u32 ops,
					  struct netlink_ext_ack *extack)
{
	struct damon_perf_ctx *ctx, *pos;

	lockdep_assert_held(&damon_perf_lock);
	if (!name_valid(name, extack))
		return ERR_PTR(-EINVAL);
	if (ops != DAMON_PERF_OPS_VADDR && ops != DAMON_PERF_OPS_PADDR) {
		NL_SET_ERR_MSG(extack, "unknown address space (ops)");
		return ERR_PTR(-EINVAL);
	}
	if (damon_perf_ctx_find_name(name)) {
		NL_SET_ERR_MSG(extack, "a context with this name exists");
		return ERR_PTR(-EEXIST);
	}
	if (nr_ctxs >= DAMON_PERF_MAX_CTXS) {
		NL_SET_ERR_MSG(extack, "too many contexts (limit 8)");
		return ERR_PTR(-ENOSPC);
	}
	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return ERR_PTR(-ENOMEM);

	/* ids grow; skip any still in use after a wrap */
	do {
		ctx->id = next_ctx_id++;
		if (!next_ctx_id)
			next_ctx_id = 1;
	} while (!ctx->id || damon_perf_ctx_find(ctx->id));
	strscpy(ctx->name, name, sizeof(ctx->name));
	damon_perf_owner_get_current(&ctx->owner);
	ctx->ops = ops;
	ctx->state = DAMON_PERF_CTX_STATE_CONFIGURED;
	damon_perf_attrs_default(&ctx->attrs);
	spin_lock_init(&ctx->pending_lock);
	INIT_LIST_HEAD(&ctx->targets);
	ctx->next_target_id = 1;
	init_waitqueue_head(&ctx->kdamond_wait);
	spin_lock_init(&ctx->snap_lock);

	/* keep the list sorted by id for damon_perf_ctx_next() */
	list_for_each_entry(pos, &ctxs, list)
		if (pos->id > ctx->id)
			break;
	list_add_tail(&ctx->list, &pos->list);
	nr_ctxs++;
	damon_perf_debugfs_ctx_add(ctx);
	return ctx;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_ctx_new);

static void target_free(struct damon_perf_target *t)
{
	damon_perf_regions_free(t);
	put_pid(t->pid_ref);
	kfree(t);
}

static void target_del(struct damon_perf_ctx *ctx, struct damon_perf_target *t)
{
	list_del(&t->list);
	ctx->nr_targets--;
	target_free(t);
}

/**
 * damon_perf_ctx_destroy() - Stop and free a context.
 * @ctx:	the context.
 * @extack:	unused; kept for symmetry with the other calls.
 *
 * Context: process context, damon_perf_lock held.
 * Return: 0.
 */
int damon_perf_ctx_destroy(struct damon_perf_ctx *ctx,
			   struct netlink_ext_ack *extack)
{
	struct damon_perf_target *t, *next;

	lockdep_assert_held(&damon_perf_lock);
	if (running(ctx))
		damon_perf_ctx_stop(ctx);
	damon_perf_debugfs_ctx_del(ctx);
	damon_perf_probes_release(ctx);
	list_for_each_entry_safe(t, next, &ctx->targets, list)
		target_del(ctx, t);
	damon_perf_drain_free(ctx);
	damon_perf_snapshot_put(ctx->snap);
	list_del(&ctx->list);
	nr_ctxs--;
	damon_perf_owner_put(&ctx->owner);
	kfree(ctx);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_ctx_destroy);

/**
 * damon_perf_ctx_get_attrs() - Read the attributes, pending ones included.
 * @ctx:	the context.
 * @attrs:	receives the attributes the context runs with next.
 *
 * Context: process context, damon_perf_lock held.
 */
void damon_perf_ctx_get_attrs(struct damon_perf_ctx *ctx,
			      struct damon_perf_attrs *attrs)
{
	lockdep_assert_held(&damon_perf_lock);
	spin_lock(&ctx->pending_lock);
	*attrs = ctx->attrs_pending ? ctx->pending_attrs : ctx->attrs;
	spin_unlock(&ctx->pending_lock);
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_ctx_get_attrs);

/**
 * damon_perf_ctx_set_attrs() - Set the attributes of a context.
 * @ctx:	the context.
 * @attrs:	new attributes.
 * @extack:	receives the reason of a rejection, may be NULL.
 *
 * While the context runs, only the intervals (their tuning included), the
 * access mode and the CPU budget may change; the kdamond, woken, applies
 * them at once, closing the pass and the aggregation in progress.
 *
 * Context: process context, damon_perf_lock held.
 * Return: 0, -EINVAL for invalid attributes, -EBUSY for a change that needs
 * the context stopped.
 */
int damon_perf_ctx_set_attrs(struct damon_perf_ctx *ctx,
			     const struct damon_perf_attrs *attrs,
			     struct netlink_ext_ack *extack)
{
	int ret;

	lockdep_assert_held(&damon_perf_lock);
	ret = damon_perf_attrs_validate(attrs, extack);
	if (ret)
		return ret;
	if (!running(ctx)) {
		ctx->attrs = *attrs;
		return 0;
	}
	if (attrs->ring_size != ctx->attrs.ring_size ||
	    attrs->min_nr_regions != ctx->attrs.min_nr_regions ||
	    attrs->max_nr_regions != ctx->attrs.max_nr_regions) {
		NL_SET_ERR_MSG(extack,
			       "ring size and region bounds change only while stopped");
		return -EBUSY;
	}
	if (attrs->split != ctx->attrs.split) {
		NL_SET_ERR_MSG(extack, "split mode changes only while stopped");
		return -EBUSY;
	}
	spin_lock(&ctx->pending_lock);
	ctx->pending_attrs = *attrs;
	ctx->attrs_pending = true;
	spin_unlock(&ctx->pending_lock);
	/* a pass may last many sample intervals: apply them now */
	damon_perf_kdamond_wake(ctx);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_ctx_set_attrs);

/**
 * damon_perf_target_new() - Allocate a target, in no context yet.
 * @id:		its id within the context it will join.
 *
 * The target has no regions, no pid and an empty range; the caller sets
 * what its kind needs and frees it with damon_perf_regions_free() and
 * kfree() (plus put_pid() of @pid_ref) unless a context owns it.
 *
 * Context: process context, may sleep.
 * Return: the target, or NULL when out of memory.
 */
struct damon_perf_target *damon_perf_target_new(u32 id)
{
	struct damon_perf_target *t;

	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return NULL;
	t->id = id;
	INIT_LIST_HEAD(&t->regions);
	return t;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_target_new);

static struct damon_perf_target *target_new(struct damon_perf_ctx *ctx)
{
	struct damon_perf_target *t;

	t = damon_perf_target_new(ctx->next_target_id);
	if (t)
		ctx->next_target_id++;
	return t;
}

static int may_add_target(struct damon_perf_ctx *ctx, u32 ops,
			  struct netlink_ext_ack *extack)
{
	if (refuse_running(ctx, extack))
		return -EBUSY;
	if (ctx->ops != ops) {
		if (ops == DAMON_PERF_OPS_VADDR)
			NL_SET_ERR_MSG(extack,
				       "pid targets need a vaddr context");
		else
			NL_SET_ERR_MSG(extack,
				       "address ranges need a paddr context");
		return -EINVAL;
	}
	if (ctx->nr_targets >= DAMON_PERF_MAX_TARGETS) {
		NL_SET_ERR_MSG(extack, "too many targets (limit 16)");
		return -ENOSPC;
	}
	return 0;
}

/**
 * damon_perf_target_add_pid() - Monitor a process.
 * @ctx:	a stopped vaddr context.
 * @pid:	a process id of the caller's PID namespace, or the id of any
 *		of its threads: the target is its thread group.
 * @any_process: the caller has CAP_SYS_ADMIN: no ptrace check.
 * @extack:	receives the reason of a rejection, may be NULL.
 *
 * Unless @any_process, the caller must be allowed to read the process as
 * ptrace_may_access(PTRACE_MODE_READ_REALCREDS) allows it, which is what
 * perf_event_open() asks of a task event without CAP_PERFMON: a context's
 * regions show the layout of the address space.
 *
 * Context: process context of the requesting task, damon_perf_lock held.
 * Return: the target id (> 0), -ESRCH (no such process), -EACCES (no
 * ptrace read access), -EINVAL (kernel thread, bad pid or ops), -EEXIST
 * (already a target), -EBUSY (running), -ENOSPC (too many targets),
 * -ENOMEM.
 */
int damon_perf_target_add_pid(struct damon_perf_ctx *ctx, pid_t pid,
			      bool any_process, struct netlink_ext_ack *extack)
{
	struct damon_perf_target *t, *pos;
	struct task_struct *task;
	struct pid *tgid = NULL;
	int ret;

	lockdep_assert_held(&damon_perf_lock);
	ret = may_add_target(ctx, DAMON_PERF_OPS_VADDR, extack);
	if (ret)
		return ret;
	if (pid <= 0) {
		NL_SET_ERR_MSG(extack, "pid must be positive");
		return -EINVAL;
	}
	rcu_read_lock();
	task = pid_task(find_vpid(pid), PIDTYPE_PID);
	if (task)
		get_task_struct(task);
	rcu_read_unlock();
	if (!task) {
		NL_SET_ERR_MSG(extack, "no process with this pid");
		return -ESRCH;
	}
	if (task->flags & PF_KTHREAD) {
		put_task_struct(task);
		NL_SET_ERR_MSG(extack, "kernel threads have no address space");
		return -EINVAL;
	}
	if (!any_process && !damon_perf_compat_ptrace_may_read(task)) {
		put_task_struct(task);
		NL_SET_ERR_MSG(extack,
			       "no ptrace read access to this process (as perf_event_open() would need)");
		return -EACCES;
	}
	tgid = get_task_pid(task, PIDTYPE_TGID);
	put_task_struct(task);
	if (!tgid) {
		NL_SET_ERR_MSG(extack, "process has exited");
		return -ESRCH;
	}
	damon_perf_for_each_target(pos, ctx) {
		if (pos->pid_ref == tgid) {
			put_pid(tgid);
			NL_SET_ERR_MSG(extack, "process is already a target");
			return -EEXIST;
		}
	}
	t = target_new(ctx);
	if (!t) {
		put_pid(tgid);
		return -ENOMEM;
	}
	t->pid_ref = tgid;
	/* reports carry the global thread group id */
	t->pid = pid_nr(tgid);
	list_add_tail(&t->list, &ctx->targets);
	ctx->nr_targets++;
	return t->id;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_target_add_pid);

static int range_add(struct damon_perf_ctx *ctx, unsigned long start,
		     unsigned long end, struct netlink_ext_ack *extack)
{
	struct damon_perf_target *t, *pos;

	damon_perf_for_each_target(pos, ctx) {
		if (start < pos->end && pos->start < end) {
			NL_SET_ERR_MSG(extack,
				       "range overlaps the range of another target");
			return -EEXIST;
		}
	}
	t = target_new(ctx);
	if (!t)
		return -ENOMEM;
	t->start = start;
	t->end = end;
	/* keep targets sorted by address: drain.c searches them in order */
	damon_perf_for_each_target(pos, ctx)
		if (pos->start > start)
			break;
	list_add_tail(&t->list, &pos->list);
	ctx->nr_targets++;
	return t->id;
}

/**
 * damon_perf_target_add_range() - Monitor a physical address range.
 * @ctx:	a stopped paddr context.
 * @start:	first address, page aligned.
 * @end:	one past the last address, page aligned, above @start.
 * @extack:	receives the reason of a rejection, may be NULL.
 *
 * Context: process context, damon_perf_lock held.
 * Return: the target id (> 0), -EINVAL (empty or unaligned range, wrong
 * ops), -EEXIST (overlaps another target), -EBUSY (running), -ENOSPC (too
 * many targets), -ENOMEM.
 */
int damon_perf_target_add_range(struct damon_perf_ctx *ctx,
				unsigned long start, unsigned long end,
				struct netlink_ext_ack *extack)
{
	int ret;

	lockdep_assert_held(&damon_perf_lock);
	ret = may_add_target(ctx, DAMON_PERF_OPS_PADDR, extack);
	if (ret)
		return ret;
	if (start >= end) {
		NL_SET_ERR_MSG(extack, "empty address range");
		return -EINVAL;
	}
	if (!PAGE_ALIGNED(start) || !PAGE_ALIGNED(end)) {
		NL_SET_ERR_MSG(extack, "address range is not page aligned");
		return -EINVAL;
	}
	return range_add(ctx, start, end, extack);
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_target_add_range);

/**
 * damon_perf_target_find() - Look a target up by id.
 * @ctx:	the context.
 * @target_id:	its id.
 *
 * Context: damon_perf_lock held, or the kdamond of a running @ctx.
 * Return: the target or NULL.
 */
struct damon_perf_target *damon_perf_target_find(struct damon_perf_ctx *ctx,
						 u32 target_id)
{
	struct damon_perf_target *t;

	damon_perf_for_each_target(t, ctx)
		if (t->id == target_id)
			return t;
	return NULL;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_target_find);

/**
 * damon_perf_target_del() - Stop monitoring a target.
 * @ctx:	a stopped context.
 * @target_id:	id of the target.
 * @extack:	receives the reason of a rejection, may be NULL.
 *
 * Context: process context, damon_perf_lock held.
 * Return: 0, -ENOENT (no such target), -EBUSY (running).
 */
int damon_perf_target_del(struct damon_perf_ctx *ctx, u32 target_id,
			  struct netlink_ext_ack *extack)
{
	struct damon_perf_target *t;

	lockdep_assert_held(&damon_perf_lock);
	if (refuse_running(ctx, extack))
		return -EBUSY;
	t = damon_perf_target_find(ctx, target_id);
	if (!t) {
		NL_SET_ERR_MSG(extack, "no target with this id");
		return -ENOENT;
	}
	target_del(ctx, t);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_target_del);

/* @tid of the caller's PID namespace as a global thread id, 0 if none. */
static pid_t global_tid(pid_t tid)
{
	struct pid *pid;
	pid_t nr = 0;

	if (tid <= 0)
		return 0;
	rcu_read_lock();
	pid = find_vpid(tid);
	if (pid && pid_task(pid, PIDTYPE_PID))
		nr = pid_nr(pid);
	rcu_read_unlock();
	return nr;
}

/**
 * damon_perf_tid_vnr() - A global thread id as the caller sees it.
 * @tid: a global (initial PID namespace) id, as filters store them.
 *
 * Context: process context of the reader.
 * Return: the id in the caller's PID namespace, 0 when the thread is gone
 * or invisible from there.
 */
pid_t damon_perf_tid_vnr(pid_t tid)
{
	pid_t nr = 0;

	rcu_read_lock();
	nr = pid_vnr(find_pid_ns(tid, &init_pid_ns));
	rcu_read_unlock();
	return nr;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_tid_vnr);

/**
 * damon_perf_ctx_set_filters() - Replace the sample filters.
 * @ctx:	a stopped context.
 * @filters:	the new filters, in evaluation order; tid filter values are
 *		thread ids of the caller's PID namespace.
 * @nr:		their number, up to DAMON_PERF_MAX_FILTERS; 0 removes all.
 * @extack:	receives the reason of a rejection, may be NULL.
 *
 * Tids are stored as global ids, which is what reports carry; a tid that
 * names no thread the caller can see is refused.
 *
 * Context: process context, damon_perf_lock held.
 * Return: 0, -EINVAL (bad filter), -E2BIG (too many), -EBUSY (running),
 * -ESRCH (no such thread), -ENOMEM.
 */
int damon_perf_ctx_set_filters(struct damon_perf_ctx *ctx,
			       const struct damon_perf_filter *filters,
			       unsigned int nr, struct netlink_ext_ack *extack)
{
	struct damon_perf_filter *copy = NULL;
	unsigned int i, j;

	lockdep_assert_held(&damon_perf_lock);
	if (refuse_running(ctx, extack))
		return -EBUSY;
	if (nr > DAMON_PERF_MAX_FILTERS) {
		NL_SET_ERR_MSG(extack, "too many filters (limit 8)");
		return -E2BIG;
	}
	for (i = 0; i < nr; i++) {
		const struct damon_perf_filter *f = &filters[i];

		switch (f->type) {
		case DAMON_PERF_FILTER_CPUMASK:
			if (cpumask_empty(&f->cpus)) {
				NL_SET_ERR_MSG(extack,
					       "cpumask filter is empty");
				return -EINVAL;
			}
			break;
		case DAMON_PERF_FILTER_TID:
			if (!f->nr_tids ||
			    f->nr_tids > DAMON_PERF_MAX_FILTER_TIDS) {
				NL_SET_ERR_MSG(extack,
					       "tid filter needs 1 to 16 thread ids");
				return -EINVAL;
			}
			break;
		case DAMON_PERF_FILTER_WRITE:
			break;
		default:
			NL_SET_ERR_MSG(extack, "unknown filter type");
			return -EINVAL;
		}
	}
	if (nr) {
		copy = kmemdup(filters, nr * sizeof(*filters), GFP_KERNEL);
		if (!copy)
			return -ENOMEM;
	}
	for (i = 0; i < nr; i++) {
		struct damon_perf_filter *f = &copy[i];

		if (f->type != DAMON_PERF_FILTER_TID)
			continue;
		for (j = 0; j < f->nr_tids; j++) {
			f->tids[j] = global_tid(f->tids[j]);
			if (!f->tids[j]) {
				kfree(copy);
				NL_SET_ERR_MSG(extack,
					       "tid filter: no thread with this tid");
				return -ESRCH;
			}
		}
	}
	if (nr)
		memcpy(ctx->filters, copy, nr * sizeof(*copy));
	kfree(copy);
	ctx->nr_filters = nr;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_ctx_set_filters);

struct ram_walk {
	struct damon_perf_ctx *ctx;
	int ret;
};

static int add_ram(struct resource *res, void *arg)
{
	struct ram_walk *w = arg;
	unsigned long start = PAGE_ALIGN(res->start);
	unsigned long end = (res->end + 1) & PAGE_MASK;
	int ret;

	if (start >= end)
		return 0;
	if (w->ctx->nr_targets >= DAMON_PERF_MAX_TARGETS)
		return 0;	/* the first 16 System RAM ranges */
	ret = range_add(w->ctx, start, end, NULL);
	if (ret < 0 && ret != -EEXIST) {
		w->ret = ret;
		return ret;
	}
	return 0;
}

/* A paddr context without a range monitors all System RAM. */
static int add_system_ram(struct damon_perf_ctx *ctx,
			  struct netlink_ext_ack *extack)
{
	struct ram_walk w = { .ctx = ctx };

	walk_iomem_res_desc(IORES_DESC_NONE,
			    IORESOURCE_SYSTEM_RAM | IORESOURCE_BUSY, 0, -1,
			    &w, add_ram);
	if (w.ret)
		return w.ret;
	if (!ctx->nr_targets) {
		NL_SET_ERR_MSG(extack, "no System RAM found to monitor");
		return -ENOENT;
	}
	return 0;
}

/* (Re)build the initial regions; vaddr targets whose process is gone die. */
static int init_targets(struct damon_perf_ctx *ctx,
			struct netlink_ext_ack *extack)
{
	struct damon_perf_target *t;
	unsigned int alive = 0;
	int ret;

	damon_perf_for_each_target(t, ctx) {
		damon_perf_regions_free(t);
		WRITE_ONCE(t->dead, false);
		t->last_nr_regions = 0;
		ret = damon_perf_regions_init(ctx, t);
		if (ret == -ESRCH) {
			WRITE_ONCE(t->dead, true);
			continue;
		}
		if (ret) {
			NL_SET_ERR_MSG(extack,
				       "cannot set up the initial regions");
			return ret;
		}
		alive++;
	}
	if (!alive) {
		NL_SET_ERR_MSG(extack, "every target process has exited");
		return -ESRCH;
	}
	return 0;
}

static bool has_probes(struct damon_perf_ctx *ctx)
{
	int i;

	for (i = 0; i < DAMON_PERF_MAX_PROBES; i++)
		if (ctx->probes[i].used)
			return true;
	return false;
}

/*
 * The kdamond of @ctx left on its own (no target remains alive): its exit
 * callback, called as its last action. A work item then stops the context
 * under damon_perf_lock. Only damon_perf_ctx_stop() ever calls
 * kthread_stop(), once, so the thread is never stopped twice.
 */
static void kdamond_exited(struct damon_perf_ctx *ctx)
{
	WRITE_ONCE(ctx->kdamond_done, true);
	schedule_work(&reap_work);
}

/* Why the rings of @ctx could not be allocated, with their size. */
static void rings_alloc_error(struct damon_perf_ctx *ctx, int err,
			      struct netlink_ext_ack *extack)
{
	unsigned int size = ctx->attrs.ring_size ?: DAMON_PERF_RING_DEF_SIZE;
	u64 kb = DIV_ROUND_UP_ULL(damon_perf_rings_bytes(size), 1024);
	u64 used, cap;

	if (err == -E2BIG) {
		cap = damon_perf_rings_mem(&used) / 1024;
		used = DIV_ROUND_UP_ULL(used, 1024);
		NL_SET_ERR_MSG_FMT(extack,
				   "rings of %llu KiB over max_ring_kb %llu (%llu KiB in use)",
				   kb, cap, used);
	} else if (err == -ENOMEM) {
		NL_SET_ERR_MSG_FMT(extack,
				   "rings of %llu KiB (%u entries x %u CPUs): no memory or memcg limit",
				   kb, size, num_possible_cpus());
	} else {
		NL_SET_ERR_MSG(extack, "cannot allocate the report rings");
	}
}

/**
 * damon_perf_ctx_start() - Start monitoring.
 * @ctx:	a context that is not running.
 * @extack:	receives the reason of a rejection, may be NULL.
 *
 * Validates the configuration, allocates the report rings, sets up the
 * initial regions, arms the perf probes (if any: without probes, reports
 * can still be injected) and starts the kdamond. A running context holds a
 * reference on the module. Every step is undone on failure.
 *
 * Context: process context, damon_perf_lock held.
 * Return: 0 or a negative errno with a message in @extack.
 */
int damon_perf_ctx_start(struct damon_perf_ctx *ctx,
			 struct netlink_ext_ack *extack)
{
	bool took_ram = false;
	int ret;

	lockdep_assert_held(&damon_perf_lock);
	if (running(ctx)) {
		NL_SET_ERR_MSG(extack, "context is already running");
		return -EBUSY;
	}
	ret = damon_perf_attrs_validate(&ctx->attrs, extack);
	if (ret)
		return ret;
	if (!ctx->nr_targets) {
		if (ctx->ops == DAMON_PERF_OPS_VADDR) {
			NL_SET_ERR_MSG(extack,
				       "a vaddr context needs a pid target");
			return -EINVAL;
		}
		/* a failed start leaves no System RAM target behind */
		took_ram = true;
		ret = add_system_ram(ctx, extack);
		if (ret)
			goto err_ram;
	}
	if (!try_module_get(THIS_MODULE)) {
		NL_SET_ERR_MSG(extack, "module is unloading");
		ret = -ENODEV;
		goto err_ram;
	}
	ret = init_targets(ctx, extack);
	if (ret)
		goto err_module;
	ctx->attrs_pending = false;
	ctx->sample_seq = 1;
	ctx->nr_passes = 0;
	WRITE_ONCE(ctx->stale_drops, 0);
	/*
	 * No drain yet: the rings are new, so everything in them at the
	 * first drain was taken after this start, and none of it is stale
	 * however long arming the probes and starting the kdamond took.
	 */
	ctx->last_drain_ns = 0;
	ctx->aggr_start_ns = ktime_get_ns();
	/* samples of an earlier run name targets that may have changed */
	ctx->samples.nr = 0;
	ctx->samples.seen = 0;
	memset(ctx->samples.target_seen, 0,
	       sizeof(ctx->samples.target_seen));
	WRITE_ONCE(ctx->kdamond_done, false);
	WRITE_ONCE(ctx->kdamond_wake, false);
	ctx->rings.ctx_id = ctx->id;
	ret = damon_perf_rings_alloc(&ctx->rings, ctx->attrs.ring_size,
				     damon_perf_kdamond_wake, ctx);
	if (ret) {
		rings_alloc_error(ctx, ret, extack);
		goto err_module;
	}
	if (ctx->attrs.split == DAMON_PERF_SPLIT_SAMPLES)
		damon_perf_drain_samples_presize(ctx, ctx->attrs.ring_size ?:
						 DAMON_PERF_RING_DEF_SIZE);
	if (has_probes(ctx)) {
		ret = damon_perf_source_arm(ctx, extack);
		if (ret)
			goto err_rings;
		ctx->source_armed = true;
	}
	ret = damon_perf_kdamond_start(ctx, kdamond_exited);
	if (ret) {
		NL_SET_ERR_MSG(extack, "cannot start the kdamond thread");
		goto err_source;
	}
	ctx->state = DAMON_PERF_CTX_STATE_RUNNING;
	return 0;

err_source:
	if (ctx->source_armed) {
		damon_perf_source_disarm(ctx);
		ctx->source_armed = false;
	}
err_rings:
	/*
	 * Probes armed before the failure (damon_perf_source_arm() disarms
	 * what it armed when a later probe fails) may have queued reports:
	 * drained, so they are counted, not freed with the rings.
	 */
	damon_perf_rings_recheck_all(&ctx->rings);
	damon_perf_drain_rings(ctx);
	damon_perf_rings_free(&ctx->rings);
err_module:
	module_put(THIS_MODULE);
err_ram:
	if (took_ram) {
		struct damon_perf_target *t, *next;

		list_for_each_entry_safe(t, next, &ctx->targets, list)
			target_del(ctx, t);
	}
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_ctx_start);

/**
 * damon_perf_ctx_stop() - Stop monitoring.
 * @ctx:	a running context.
 *
 * Producers go first: the AUX buffers are released and the probes
 * disarmed, so nothing can queue a report any more. Then the kdamond is
 * stopped, the rings are drained one last time (the reports queued after
 * the kdamond's last drain are credited or counted, never freed
 * uncounted), the interval since the last aggregation is published as a
 * last, partial aggregation, and only then are the rings freed and the
 * module reference dropped. Regions and the last snapshot stay readable.
 * Afterwards perf_stats balances: every report enqueued was dequeued.
 *
 * Context: process context, damon_perf_lock held.
 * Return: 0, or -EINVAL when @ctx was not running.
 */
int damon_perf_ctx_stop(struct damon_perf_ctx *ctx)
{
	u64 now;

	lockdep_assert_held(&damon_perf_lock);
	if (!running(ctx))
		return -EINVAL;
	/* AUX consumers write into the rings: gone before they are */
	damon_perf_aux_release_ctx(ctx);
	if (ctx->source_armed) {
		damon_perf_source_disarm(ctx);
		ctx->source_armed = false;
	}
	damon_perf_kdamond_stop(ctx);
	/*
	 * The kdamond has ended: its state is ours (kthread_stop() waited).
	 * Every ring is read, whatever its pending bit (ring.c).
	 */
	damon_perf_rings_recheck_all(&ctx->rings);
	damon_perf_drain_rings(ctx);
	now = ktime_get_ns();
	/* the last aggregation has none after it to carry into */
	ctx->max_carried = 0;
	if (now > ctx->aggr_start_ns)
		damon_perf_kdamond_aggregate(ctx, now - ctx->aggr_start_ns);
	ctx->aggr_start_ns = now;
	damon_perf_rings_free(&ctx->rings);
	/* tuned values the kdamond had no aggregation left to apply */
	spin_lock(&ctx->pending_lock);
	if (ctx->attrs_pending) {
		ctx->attrs = ctx->pending_attrs;
		ctx->attrs_pending = false;
	}
	spin_unlock(&ctx->pending_lock);
	ctx->state = DAMON_PERF_CTX_STATE_STOPPED;
	module_put(THIS_MODULE);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_ctx_stop);

/* Stop the contexts whose kdamond ended on its own (all targets dead). */
static void reap_fn(struct work_struct *work)
{
	struct damon_perf_ctx *ctx;

	mutex_lock(&damon_perf_lock);
	list_for_each_entry(ctx, &ctxs, list)
		if (running(ctx) && READ_ONCE(ctx->kdamond_done))
			damon_perf_ctx_stop(ctx);
	mutex_unlock(&damon_perf_lock);
}

/**
 * damon_perf_ctx_init() - Set up the context subsystem.
 *
 * Context: module init.
 * Return: 0.
 */
int damon_perf_ctx_init(void)
{
	return 0;
}

/**
 * damon_perf_ctx_exit() - Destroy every context.
 *
 * A running context pins the module, so normally none runs here; those
 * that do are stopped. The kdamond never takes damon_perf_lock, so holding
 * it while stopping threads cannot deadlock.
 *
 * Context: module exit (or init unwind), process context.
 */
void damon_perf_ctx_exit(void)
{
	struct damon_perf_ctx *ctx, *next;

	mutex_lock(&damon_perf_lock);
	list_for_each_entry_safe(ctx, next, &ctxs, list)
		damon_perf_ctx_destroy(ctx, NULL);
	mutex_unlock(&damon_perf_lock);
	/* no kdamond is left to queue it again */
	cancel_work_sync(&reap_work);
}
