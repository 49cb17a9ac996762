// SPDX-License-Identifier: GPL-2.0
/*
 * kdamond: one kthread per running context.
 *
 * Loop: sleep until the current pass ends (or the ring watermark wakes it
 * early, or tuned attributes or a stop), drain the rings, and once the pass
 * is over advance sample_seq past its sample intervals; at the end of an
 * aggregation interval age and merge the regions, publish a snapshot (to
 * the listeners of listener.h, and one tracepoint per region), reset the
 * counters, split, and apply tuned intervals; at the end of an update
 * interval refresh the targets.
 *
 * A pass is as many sample intervals as fit before the next aggregation or
 * update ends, DAMON_PERF_PASS_MAX at most (10 ms at most while the module
 * adapts a frequency-mode probe's period, one interval while an AUX buffer
 * is attached, whose records are stamped when decoded): reports carry
 * their time, and
 * the drain credits each to the sample interval it was taken in (drain.c),
 * so the kdamond need not wake at every interval to tell them apart. Its
 * wakeups follow the work: one per pass, plus one per ring watermark. The
 * sample_wakeups parameter restores one pass per sample interval, for
 * comparisons; both credit the same intervals (KUnit and
 * tests/vm/kdamond_replay.sh replay one recorded stream both ways,
 * tests/vm/kdamond_passes.sh compares live runs).
 *
 * The kdamond never takes damon_perf_lock. It exits when kthread_stop()
 * asks it to, or on its own when every target process has exited; then it
 * hands the context to the exit callback damon_perf_kdamond_start() was
 * given (ctx.c's, which queues the stop), and only
 * damon_perf_ctx_stop() (under damon_perf_lock) ever calls kthread_stop(),
 * on a task it holds a reference on.
 */
#include <linux/kthread.h>
#include <linux/math64.h>
#include <linux/moduleparam.h>
#include <linux/overflow.h>
#include <linux/sched/task.h>
#include <linux/slab.h>

#include "aux.h"
#include "budget.h"
#include "drain.h"
#include "kdamond.h"
#include "listener.h"
#include "perf_source.h"
#include "regions.h"
#include "snapshot.h"
#include "stats.h"
#include "trace.h"

static bool sample_wakeups;
module_param(sample_wakeups, bool, 0644);
MODULE_PARM_DESC(sample_wakeups,
		 "drain at every sample interval instead of once per pass (for comparisons; read when a context starts)");

/**
 * damon_perf_kdamond_wake() - Wake a kdamond before its pass ends.
 * @arg:	the context.
 *
 * The rings' high-watermark callback; also called when tuned attributes
 * wait for the kdamond to apply them.
 *
 * Context: hard IRQ (irq_work) or any context that may wake a task.
 */
void damon_perf_kdamond_wake(void *arg)
{
	struct damon_perf_ctx *ctx = arg;

	WRITE_ONCE(ctx->kdamond_wake, true);
	wake_up(&ctx->kdamond_wait);
}

/**
 * damon_perf_kdamond_rate() - Estimated events per second of a region.
 * @r:		the region.
 * @elapsed_ns:	length of the aggregation interval.
 *
 * The sum of the periods of the region's samples (@r->events) over the
 * elapsed time, saturating at U64_MAX. mul_u64_u64_div_u64() traps when
 * the quotient needs more than 64 bits: floor(events / elapsed) below
 * floor(U64_MAX / NSEC_PER_SEC) keeps events * NSEC_PER_SEC / elapsed
 * below U64_MAX.
 *
 * Context: any.
 * Return: events per second, 0 when @elapsed_ns is 0.
 */
u64 damon_perf_kdamond_rate(const struct damon_perf_region *r, u64 elapsed_ns)
{
	if (!elapsed_ns)
		return 0;
	if (div64_u64(r->events, elapsed_ns) >= div_u64(U64_MAX, NSEC_PER_SEC))
		return U64_MAX;
	return mul_u64_u64_div_u64(r->events, NSEC_PER_SEC, elapsed_ns);
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_kdamond_rate);

static unsigned int max_carried = 10;
module_param(max_carried, uint, 0644);
MODULE_PARM_DESC(max_carried,
		 "aggregations an answer is carried forward at most while the samples stay below the floor (0: no floor; read when a context starts)");

static struct damon_perf_snapshot *snapshot_build(struct damon_perf_ctx *ctx,
						  u64 elapsed_ns)
{
	struct damon_perf_snapshot *snap;
	struct damon_perf_target *t;
	struct damon_perf_region *r;
	unsigned int nr = 0, i = 0;

	damon_perf_for_each_target(t, ctx)
		nr += t->nr_regions;
	snap = kvzalloc(struct_size(snap, regions, nr), GFP_KERNEL);
	if (!snap)
		return NULL;
	kref_init(&snap->kref);
	snap->time_ns = ktime_get_ns();
	snap->aggr_us = div_u64(elapsed_ns, NSEC_PER_USEC);
	snap->nr_regions = nr;
	damon_perf_for_each_target(t, ctx) {
		damon_perf_for_each_region(r, t) {
			struct damon_perf_snap_region *s = &snap->regions[i++];

			s->target_id = t->id;
			s->nr_accesses = r->nr_accesses;
			s->age = r->age;
			s->start = r->start;
			s->end = r->end;
			memcpy(s->probe_hits, r->probe_hits,
			       sizeof(s->probe_hits));
			s->rate = damon_perf_kdamond_rate(r, elapsed_ns);
			/* within the region, should an update trim it */
			s->sampled = r->sampled;
			damon_perf_sampled_clip(&s->sampled, r->start, r->end);
		}
		/* a target at a time: see damon_perf_regions_merge_ctx() */
		cond_resched();
	}
	return snap;
}

/*
 * The last answer again, for an aggregation below the floor: its regions,
 * interval and windows, with this aggregation's time, samples, floor and
 * the age of the answer. NULL without a last answer or memory.
 */
static struct damon_perf_snapshot *snapshot_carry(struct damon_perf_ctx *ctx,
						  u64 nr_samples, u64 floor)
{
	struct damon_perf_snapshot *last, *snap = NULL;

	last = damon_perf_snapshot_get(ctx);
	if (!last)
		return NULL;
	snap = kvmalloc(struct_size(last, regions, last->nr_regions),
			GFP_KERNEL);
	if (snap) {
		memcpy(snap, last, struct_size(last, regions,
					       last->nr_regions));
		kref_init(&snap->kref);
		snap->time_ns = ktime_get_ns();
		snap->nr_samples = nr_samples;
		snap->floor = floor;
		snap->confidence = DAMON_PERF_CONFIDENCE_CARRIED;
		snap->carried = ctx->floor.carried;
	}
	damon_perf_snapshot_put(last);
	return snap;
}

static void publish(struct damon_perf_ctx *ctx,
		    struct damon_perf_snapshot *snap)
{
	if (!snap)
		return;
	damon_perf_snapshot_publish(ctx, snap);
	damon_perf_listeners_aggregated(ctx, snap);
}

/**
 * damon_perf_kdamond_aggregate() - End an aggregation interval.
 * @ctx:	the context.
 * @elapsed_ns:	length of the measurement: the interval, or every interval
 *		since the last one that returned true.
 *
 * Judges the measurement's samples against the floor
 * (damon_perf_floor_judge()). Below it, while @ctx->max_carried allows,
 * publishes the last answer again, marked carried, and leaves the regions
 * and their counters alone: the measurement goes on into the next
 * interval. Otherwise, in samples split mode first cuts the regions where
 * the measurement's samples change density; ages and merges the regions,
 * publishes the snapshot (listeners, trace), resets the counters and, in
 * random split mode, splits the regions; the intervals tuning observes
 * the ended measurement (tune.c).
 *
 * Context: the kdamond of @ctx, or a caller owning a stopped @ctx.
 * Return: true when the measurement ended (the next one starts now), false
 * when it was carried.
 */
bool damon_perf_kdamond_aggregate(struct damon_perf_ctx *ctx, u64 elapsed_ns)
{
	u64 nr_samples = damon_perf_regions_nr_samples(ctx);
	u64 floor = damon_perf_floor_value(&ctx->floor);
	struct damon_perf_snapshot *snap;
	struct damon_perf_target *t;
	struct damon_perf_region *r;
	unsigned int max_nr = 0;
	u32 confidence;

	confidence = damon_perf_floor_judge(&ctx->floor, nr_samples,
					    ctx->max_carried);
	if (confidence == DAMON_PERF_CONFIDENCE_CARRIED) {
		publish(ctx, snapshot_carry(ctx, nr_samples, floor));
		return false;
	}

	damon_perf_regions_cut_ctx(ctx);
	damon_perf_for_each_target(t, ctx)
		max_nr = max(max_nr, damon_perf_regions_max_nr_accesses(t));
	damon_perf_regions_merge_ctx(ctx, max_nr);

	snap = snapshot_build(ctx, elapsed_ns);
	if (snap) {
		snap->nr_samples = nr_samples;
		snap->floor = floor;
		snap->confidence = confidence;
		snap->windows = ctx->floor.carried + 1;
	}
	publish(ctx, snap);
	damon_perf_floor_published(&ctx->floor, nr_samples,
				   damon_perf_regions_nr_hot(ctx));
	if (trace_damon_perf_aggregated_enabled()) {
		damon_perf_for_each_target(t, ctx)
			damon_perf_for_each_region(r, t)
				trace_damon_perf_aggregated(ctx->id, t->id,
							    t->nr_regions,
							    r->start, r->end,
							    r->nr_accesses,
							    r->age);
	}

	damon_perf_for_each_target(t, ctx) {
		damon_perf_regions_reset(t);
		cond_resched();
	}
	damon_perf_regions_split_ctx(ctx);
	/* a measurement ended: the intervals tuning observes it */
	damon_perf_tune_measured(ctx, nr_samples, elapsed_ns);
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_kdamond_aggregate);

/* Refresh the targets; false when none is alive any more. */
static bool update(struct damon_perf_ctx *ctx)
{
	struct damon_perf_target *t;
	bool alive = false;

	damon_perf_for_each_target(t, ctx) {
		if (t->dead)
			continue;
		/* netlink reads it while we run */
		if (damon_perf_regions_update(ctx, t) == -ESRCH)
			WRITE_ONCE(t->dead, true);
		else
			alive = true;
		cond_resched();
	}
	damon_perf_observe_update();
	return alive;
}

/* The safe point: tuned intervals and mode take effect here. */
static void apply_pending(struct damon_perf_ctx *ctx)
{
	bool tuned = false;

	spin_lock(&ctx->pending_lock);
	if (ctx->attrs_pending) {
		ctx->attrs.sample_us = ctx->pending_attrs.sample_us;
		ctx->attrs.aggr_us = ctx->pending_attrs.aggr_us;
		ctx->attrs.update_us = ctx->pending_attrs.update_us;
		ctx->attrs.mode = ctx->pending_attrs.mode;
		ctx->attrs.cpu_budget = ctx->pending_attrs.cpu_budget;
		ctx->attrs.samples_goal = ctx->pending_attrs.samples_goal;
		ctx->attrs.goal_aggrs = ctx->pending_attrs.goal_aggrs;
		ctx->attrs.min_aggr_us = ctx->pending_attrs.min_aggr_us;
		ctx->attrs.max_aggr_us = ctx->pending_attrs.max_aggr_us;
		ctx->attrs_pending = false;
		tuned = true;
	}
	spin_unlock(&ctx->pending_lock);
	/* new intervals or goal: the tuning starts again from aggr_us */
	if (tuned)
		damon_perf_tune_start(ctx);
}

static bool should_wake(struct damon_perf_ctx *ctx)
{
	return kthread_should_stop() || READ_ONCE(ctx->kdamond_wake);
}

static u64 ns(u64 us)
{
	return us * NSEC_PER_USEC;
}

/* Sleep until @until (ktime_get_ns()), or less when woken or stopped. */
static void sleep_until(struct damon_perf_ctx *ctx, u64 until)
{
	u64 now = ktime_get_ns();

	if (now < until)
		wait_event_interruptible_hrtimeout(ctx->kdamond_wait,
						   should_wake(ctx),
						   ns_to_ktime(until - now));
}

#if DAMON_PERF_KUNIT_HOOKS
damon_perf_kdamond_hook_fn damon_perf_kdamond_resched_hook;
EXPORT_SYMBOL_IF_KUNIT(damon_perf_kdamond_resched_hook);
#endif

/*
 * The scheduling point of every pass, early wakes included: on a kernel
 * without preemption, sustained watermark crossings would otherwise keep
 * the kdamond on its CPU for ever (the sleep returns at once while the
 * wake flag is set).
 */
static void resched_point(struct damon_perf_ctx *ctx, bool early)
{
#if DAMON_PERF_KUNIT_HOOKS
	damon_perf_kdamond_hook_fn hook =
		READ_ONCE(damon_perf_kdamond_resched_hook);

	if (hook)
		hook(ctx, early);
#endif
	cond_resched();
}

/* Deadlines of the kdamond, in ktime_get_ns(). */
struct kdamond_clock {
	u64 next_sample;	/* the end of the current pass */
	u64 next_aggr;
	u64 next_update;
	u64 drained;		/* reports drained in the current pass */
};

/* The longest pass while the module adapts a probe's period. */
#define ADAPT_PASS_NS	(NSEC_PER_SEC / 100)

/*
 * Start the pass that follows the one that ended at @c->next_sample (or
 * at @now, when the kdamond woke more than a sample interval late): as
 * many sample intervals as reach the next aggregation or update, at most
 * DAMON_PERF_PASS_MAX, one with sample_wakeups or an AUX buffer attached,
 * and no more than ADAPT_PASS_NS while a frequency-mode probe's period is
 * the module's to adapt (damon_perf_source_adapt() runs once per pass).
 * And no more than fill half a ring at the rate of the pass that ended,
 * as if all its reports had come from one CPU: the watermark wake (3/4)
 * comes through irq_work and the scheduler, and a ring that fills before
 * the kdamond runs refuses reports; under heavy sampling the passes
 * shorten down to one interval, as before.
 */
static void pass_start(struct damon_perf_ctx *ctx, struct kdamond_clock *c,
		       u64 now)
{
	u64 s = ns(ctx->attrs.sample_us);
	u64 start = c->next_sample, until, len = 1, fill;

	if (start + s <= now || start > now)
		start = now;
	until = min(c->next_aggr, c->next_update);
	if (!ctx->sample_wakeups && until > start) {
		len = clamp_val(div64_u64(until - start + s - 1, s), 1,
				DAMON_PERF_PASS_MAX);
		if (damon_perf_source_adapts(ctx))
			len = clamp_val(div64_u64(ADAPT_PASS_NS, s), 1, len);
		/*
		 * AUX records are stamped when decoded, at the drain, not
		 * when taken: one interval per pass keeps them apart.
		 */
		if (damon_perf_aux_attached(ctx))
			len = 1;
		if (c->drained) {
			fill = div64_u64((u64)(ctx->attrs.ring_size / 2) *
					 max(ctx->pass_len, 1U), c->drained);
			len = clamp_val(fill, 1, len);
		}
	}
	c->drained = 0;
	/* the reports' clock, the same CLOCK_MONOTONIC read NMI-safe */
	WRITE_ONCE(ctx->pass_start_ns,
		   damon_perf_clock_ns() - (ktime_get_ns() - start));
	ctx->pass_len = len;
	c->next_sample = start + len * s;
}

/*
 * The end of a pass at @now: aggregate and update when due, start the
 * next pass.
 * Return: false when every target is gone and the kdamond must leave.
 */
static bool sample_end(struct damon_perf_ctx *ctx, struct kdamond_clock *c,
		       u64 now)
{
	/* KUnit reads it while we run */
	WRITE_ONCE(ctx->sample_seq, ctx->sample_seq + max(ctx->pass_len, 1U));
	WRITE_ONCE(ctx->nr_passes, ctx->nr_passes + 1);
	/* frequency-mode software probes: the module adapts their periods */
	damon_perf_source_adapt(ctx, now);

	/*
	 * Tuned intervals take effect at this sample interval: the
	 * aggregation in progress closes now (it reports how long it ran), or
	 * a tune down from a long interval would wait for all of it.
	 * attrs_pending is only a hint here; apply_pending() reads it under
	 * pending_lock.
	 */
	if (READ_ONCE(ctx->attrs_pending))
		c->next_aggr = now;
	if (now >= c->next_aggr) {
		/* a carried aggregation's measurement goes on */
		if (damon_perf_kdamond_aggregate(ctx,
						 now - ctx->aggr_start_ns))
			ctx->aggr_start_ns = now;
		/* the aggregation (its split sorts the samples) costs too */
		damon_perf_budget_drained(ctx, ktime_get_ns() - now);
		/* the aggregation's cost against the budget in force */
		damon_perf_budget_step(ctx, now);
		apply_pending(ctx);
		c->next_aggr = now + ns(damon_perf_tune_aggr_us(ctx));
		c->next_update = min(c->next_update,
				     now + ns(ctx->attrs.update_us));
		/*
		 * The sample intervals start with the aggregation: it holds
		 * aggr_us / sample_us of them, as DAMON's does, so presence
		 * mode counts at most that many.
		 */
		c->next_sample = now;
	}
	if (now >= c->next_update) {
		c->next_update = now + ns(ctx->attrs.update_us);
		if (!update(ctx)) {
			ctx->kdamond_exited(ctx);
			return false;
		}
	}
	pass_start(ctx, c, now);
	return true;
}

static int kdamond_fn(void *data)
{
	struct damon_perf_ctx *ctx = data;
	u64 now = ktime_get_ns(), drain_start;
	bool early;
	struct kdamond_clock c = {
		.next_sample = now,
		.next_aggr = now + ns(damon_perf_tune_aggr_us(ctx)),
		.next_update = now + ns(ctx->attrs.update_us),
	};

	/* read by damon_perf_ctx_stop() once this thread has ended */
	ctx->aggr_start_ns = now;
	damon_perf_budget_start(ctx, now);
	pass_start(ctx, &c, now);
	while (!kthread_should_stop()) {
		sleep_until(ctx, c.next_sample);
		if (kthread_should_stop())
			break;
		/* cleared before draining: a later watermark wakes us again */
		WRITE_ONCE(ctx->kdamond_wake, false);
		/* AUX buffers feed the same rings: decode them first */
		drain_start = ktime_get_ns();
		damon_perf_aux_drain(ctx);
		c.drained += damon_perf_drain_rings(ctx);

		now = ktime_get_ns();
		damon_perf_budget_drained(ctx, now - drain_start);
		/*
		 * An early wake stays in the same pass, unless tuned
		 * attributes wait: they end it (and the aggregation).
		 */
		early = now < c.next_sample && !READ_ONCE(ctx->attrs_pending);
		if (!early && !sample_end(ctx, &c, now))
			break;
		resched_point(ctx, early);
	}
	return 0;
}

/**
 * damon_perf_kdamond_start() - Start the kdamond of a context.
 * @ctx:	the context, with rings and regions set up.
 * @exited:	called by the kdamond as its last action when it leaves its
 *		loop on its own (no target alive); not when stopped.
 *
 * Context: process context, damon_perf_lock held.
 * Return: 0 or a negative errno.
 */
int damon_perf_kdamond_start(struct damon_perf_ctx *ctx,
			     void (*exited)(struct damon_perf_ctx *ctx))
{
	struct task_struct *task;

	ctx->kdamond_exited = exited;
	ctx->sample_wakeups = READ_ONCE(sample_wakeups);
	ctx->max_carried = READ_ONCE(max_carried);
	memset(&ctx->floor, 0, sizeof(ctx->floor));
	damon_perf_tune_start(ctx);
	task = kthread_create(kdamond_fn, ctx, "kdamond.%u", ctx->id);
	if (IS_ERR(task))
		return PTR_ERR(task);
	/* kthread_stop() needs the task even if it already returned */
	get_task_struct(task);
	ctx->kdamond = task;
	wake_up_process(task);
	return 0;
}

/**
 * damon_perf_kdamond_stop() - Stop the kdamond of a context and wait.
 * @ctx:	the context.
 *
 * Returns at once when the thread already ended on its own.
 *
 * Context: process context, damon_perf_lock held.
 */
void damon_perf_kdamond_stop(struct damon_perf_ctx *ctx)
{
	if (!ctx->kdamond)
		return;
	kthread_stop(ctx->kdamond);
	put_task_struct(ctx->kdamond);
	ctx->kdamond = NULL;
}
