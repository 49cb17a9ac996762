// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: complete monitoring runs (ctx.c, kdamond.c, drain.c) with reports
 * injected through damon_perf_report_access() or taken from real page
 * faults: stop, the last drain, listeners, stale reports, the clock of
 * the reports, early wakes, and the hot range found in paddr and vaddr
 * contexts.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/perf_event.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/umh.h>
#include <linux/vmalloc.h>

#include "addr.h"
#include "ctx.h"
#include "helpers.h"
#include "kdamond.h"
#include "listener.h"
#include "perf_source.h"
#include "probe.h"
#include "regions.h"
#include "snapshot.h"
#include "stats.h"
#include "ring.h"

#define PG	PAGE_SIZE

/* A paddr target, damon_perf_lock held. */
static int range_add(struct damon_perf_ctx *ctx, unsigned long start,
		     unsigned long end)
{
	return damon_perf_target_add_range(ctx, start, end, NULL);
}

static void stop_should_not_wait_for_long_intervals(struct kunit *test)
{
	struct damon_perf_ctx *ctx = test_ctx_new(test, "kunit-slow",
						  DAMON_PERF_OPS_PADDR);
	struct damon_perf_attrs a;
	ktime_t t0;

	mutex_lock(&damon_perf_lock);
	test_ctx_set_fast(test, ctx, 10000000, 60000000);	/* 10 s, 60 s */
	ASSERT_LOCKED(test, range_add(ctx, BASE, BASE + 64 * PG) > 0);
	mutex_unlock(&damon_perf_lock);
	KUNIT_ASSERT_EQ(test, test_ctx_start(ctx), 0);
	msleep(20);
	mutex_lock(&damon_perf_lock);
	/* never applied by the kdamond (no aggregation comes): by stop */
	damon_perf_ctx_get_attrs(ctx, &a);
	a.aggr_us = 30000000;
	KUNIT_EXPECT_EQ(test, damon_perf_ctx_set_attrs(ctx, &a, NULL), 0);
	KUNIT_EXPECT_EQ(test, ctx->attrs.aggr_us, 60000000ULL);
	t0 = ktime_get();
	KUNIT_EXPECT_EQ(test, damon_perf_ctx_stop(ctx), 0);
	/*
	 * A ratio, not a machine-speed bound: a stop that waited for the
	 * interval would take the 10 s; this one may be slow (KASAN under
	 * TCG on a loaded host), not 20 times slower than that.
	 */
	KUNIT_EXPECT_LT(test, ktime_ms_delta(ktime_get(), t0), 500LL);
	KUNIT_EXPECT_EQ(test, ctx->attrs.aggr_us, 30000000ULL);
	mutex_unlock(&damon_perf_lock);
}

/* Report @n accesses to random pages of [start, end) from this CPU. */
static void inject(struct damon_perf_ctx *ctx, unsigned long start,
		   unsigned long end, int n, pid_t tgid)
{
	struct damon_perf_report r = {
		.size = 8,
		.tid = tgid,
		.tgid = tgid,
		.probe_idx = 1,
		.src = DAMON_PERF_SRC_INJECTED,
	};
	unsigned long pages = (end - start) / PG;

	/* the ring of the CPU we run on: stay on it while producing */
	preempt_disable();
	while (n--) {
		r.paddr = start + get_random_u32_below(pages) * PG + 64;
		r.vaddr = r.paddr;
		r.cpu = smp_processor_id();
		r.time_ns = damon_perf_clock_ns();
		damon_perf_report_access(&ctx->rings, &r);
	}
	preempt_enable();
}

static void paddr_run_should_find_the_hot_range(struct kunit *test)
{
	struct damon_perf_ctx *ctx = test_ctx_new(test, "kunit-hot",
						  DAMON_PERF_OPS_PADDR);
	unsigned long hot_start = BASE + 256 * PG, hot_end = BASE + 320 * PG;
	const struct damon_perf_snap_region *r, *hottest = NULL;
	struct damon_perf_snapshot *snap;
	unsigned long deadline;
	u32 i;

	mutex_lock(&damon_perf_lock);
	test_ctx_set_fast(test, ctx, 2000, 40000);
	ASSERT_LOCKED(test, range_add(ctx, BASE, BASE + 1024 * PG) > 0);
	mutex_unlock(&damon_perf_lock);
	KUNIT_ASSERT_EQ(test, test_ctx_start(ctx), 0);

	/* inject until the third aggregation; 60 s bounds a stuck kdamond */
	deadline = jiffies + 60 * HZ;
	for (;;) {
		inject(ctx, hot_start, hot_end, 8, current->tgid);
		usleep_range(500, 1000);
		snap = damon_perf_snapshot_get(ctx);
		if ((snap && snap->seq >= 3) || !time_before(jiffies, deadline))
			break;
		if (snap)
			damon_perf_snapshot_put(snap);
	}
	KUNIT_ASSERT_NOT_NULL(test, snap);
	KUNIT_EXPECT_GE(test, snap->seq, 3ULL);
	KUNIT_EXPECT_GT(test, snap->nr_regions, 0U);
	for (i = 0; i < snap->nr_regions; i++) {
		r = &snap->regions[i];
		if (!hottest || r->nr_accesses > hottest->nr_accesses)
			hottest = r;
		if (i)
			KUNIT_EXPECT_LE(test, snap->regions[i - 1].end,
					r->start);
		if (r->end <= hot_start || r->start >= hot_end) {
			KUNIT_EXPECT_EQ(test, r->nr_accesses, 0U);
			KUNIT_EXPECT_EQ(test, r->probe_hits[0], 0ULL);
		}
	}
	KUNIT_EXPECT_GT(test, hottest->nr_accesses, 0U);
	KUNIT_EXPECT_GT(test, hottest->rate, 0ULL);
	KUNIT_EXPECT_LT(test, hottest->start, hot_end);
	KUNIT_EXPECT_GT(test, hottest->end, hot_start);
	/* presence mode: at most one per sample interval */
	KUNIT_EXPECT_LE(test, hottest->nr_accesses,
			(u32)(snap->aggr_us / 2000 + 1));
	damon_perf_snapshot_put(snap);

	KUNIT_EXPECT_EQ(test, test_ctx_stop(ctx), 0);
}

static void vaddr_ctx_should_stop_when_its_process_exits(struct kunit *test)
{
	struct damon_perf_ctx *ctx = test_ctx_new(test, "kunit-exit",
						  DAMON_PERF_OPS_VADDR);
	struct damon_perf_target *t;
	pid_t pid = test_spawn_sleep("1");
	u32 state = 0;
	int i;

	if (!pid)
		kunit_skip(test, "cannot run /bin/sleep");
	mutex_lock(&damon_perf_lock);
	test_ctx_set_fast(test, ctx, 10000, 50000);
	ASSERT_LOCKED(test,
		      damon_perf_target_add_pid(ctx, pid, true, NULL) > 0);
	ASSERT_LOCKED(test, damon_perf_ctx_start(ctx, NULL) == 0);
	t = list_first_entry(&ctx->targets, struct damon_perf_target, list);
	KUNIT_EXPECT_EQ(test, t->pid, pid);
	KUNIT_EXPECT_GE(test, t->nr_regions, ctx->attrs.min_nr_regions);
	KUNIT_EXPECT_FALSE(test, t->dead);
	mutex_unlock(&damon_perf_lock);

	/* /bin/sleep exits at once; 60 s bounds a kdamond that never sees it */
	for (i = 0; i < 600; i++) {
		msleep(100);
		mutex_lock(&damon_perf_lock);
		state = ctx->state;
		mutex_unlock(&damon_perf_lock);
		if (state == DAMON_PERF_CTX_STATE_STOPPED)
			break;
	}
	KUNIT_EXPECT_EQ(test, state, (u32)DAMON_PERF_CTX_STATE_STOPPED);
	KUNIT_EXPECT_TRUE(test, t->dead);
	KUNIT_EXPECT_GT(test, t->nr_regions, 0U);	/* kept for reports */
}

/* The hottest region of @target_id overlaps [hot_start, hot_end). */
static void expect_hot(struct kunit *test, struct damon_perf_snapshot *snap,
		       u32 target_id, unsigned long hot_start,
		       unsigned long hot_end)
{
	const struct damon_perf_snap_region *r, *hottest = NULL;
	u32 i;

	for (i = 0; i < snap->nr_regions; i++) {
		r = &snap->regions[i];
		if (r->target_id != target_id)
			continue;
		if (!hottest || r->nr_accesses > hottest->nr_accesses)
			hottest = r;
		if (r->end <= hot_start || r->start >= hot_end)
			KUNIT_EXPECT_EQ(test, r->nr_accesses, 0U);
	}
	KUNIT_ASSERT_NOT_NULL(test, hottest);
	KUNIT_EXPECT_GT(test, hottest->nr_accesses, 0U);
	KUNIT_EXPECT_LT(test, hottest->start, hot_end);
	KUNIT_EXPECT_GT(test, hottest->end, hot_start);
}

static int first_range(pid_t pid, struct damon_perf_range *range)
{
	struct damon_perf_range ranges[3];
	struct task_struct *task;
	struct mm_struct *mm = NULL;
	struct pid *p;
	int n;

	p = find_get_pid(pid);
	task = get_pid_task(p, PIDTYPE_PID);
	put_pid(p);
	if (task) {
		mm = get_task_mm(task);
		put_task_struct(task);
	}
	if (!mm)
		return -ESRCH;
	n = damon_perf_regions_vma_ranges(mm, ranges);
	mmput(mm);
	if (n < 0)
		return n;
	*range = ranges[0];
	return n;
}

/*
 * The target lives until the case kills it, and the injections go on
 * until two aggregations were published after start (the second covers
 * injections only), however slow the machine; 60 s bound a kdamond that
 * never aggregates.
 */
static void vaddr_run_should_find_the_hot_range_of_a_process(struct kunit *test)
{
	struct damon_perf_ctx *ctx = test_ctx_new(test, "kunit-vhot",
						  DAMON_PERF_OPS_VADDR);
	pid_t pid = test_spawn_sleep("600");
	struct damon_perf_snapshot *snap = NULL;
	struct damon_perf_range range;
	unsigned long hot_start, hot_end, deadline;
	int id;

	if (!pid)
		kunit_skip(test, "cannot run /bin/sleep");
	if (first_range(pid, &range) <= 0 ||
	    range.end - range.start < 8 * PG) {
		test_kill(pid);
		KUNIT_FAIL(test, "no mapping of at least 8 pages in the task");
		return;
	}
	/* a quarter of the lowest chunk, from its middle */
	hot_start = range.start + ALIGN_DOWN((range.end - range.start) / 2, PG);
	hot_end = hot_start + max(ALIGN_DOWN((range.end - range.start) / 4, PG),
				  PG);

	mutex_lock(&damon_perf_lock);
	test_ctx_set_fast(test, ctx, 2000, 40000);
	id = damon_perf_target_add_pid(ctx, pid, true, NULL);
	mutex_unlock(&damon_perf_lock);
	if (id <= 0 || test_ctx_start(ctx)) {
		test_kill(pid);
		KUNIT_FAIL(test, "target add %d or start failed", id);
		return;
	}

	deadline = jiffies + msecs_to_jiffies(60000);
	while (time_before(jiffies, deadline)) {
		inject(ctx, hot_start, hot_end, 8, pid);
		/* another process at the same addresses must not count */
		inject(ctx, range.start, range.end, 8, pid + 100000);
		usleep_range(500, 1000);
		snap = damon_perf_snapshot_get(ctx);
		if (snap && snap->seq >= 2)
			break;
		if (snap)
			damon_perf_snapshot_put(snap);
		snap = NULL;
	}
	if (snap) {
		expect_hot(test, snap, id, hot_start, hot_end);
		damon_perf_snapshot_put(snap);
	} else {
		KUNIT_FAIL(test, "no second aggregation within 60 s");
	}

	KUNIT_EXPECT_EQ(test, test_ctx_stop(ctx), 0);
	test_kill(pid);
}

/*
 * Real samples: a page-fault probe on a process that faults in 128 MiB.
 * Its samples reach the regions through the perf source and the rings.
 */
static void vaddr_run_should_credit_real_page_fault_samples(struct kunit *test)
{
	struct damon_perf_ctx *ctx = test_ctx_new(test, "kunit-pf",
						  DAMON_PERF_OPS_VADDR);
	struct damon_perf_probe_attr pa = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_PAGE_FAULTS,
		.sample_period = 1,
		.exclude_hv = true,
	};
	struct damon_perf_snapshot *snap;
	char *argv[4];
	u64 hits = 0, best = 0;
	pid_t pid;
	u32 i, j;
	int id;

	/* through the shell, so the workload has valid stdio */
	argv[0] = "/bin/sh";
	argv[1] = "-c";
	argv[2] = "exec /bin/workload -s 128 -h 1 -t 4 >/dev/null 2>&1";
	argv[3] = NULL;
	pid = test_spawn(argv);
	if (!pid)
		kunit_skip(test, "cannot run /bin/workload");

	mutex_lock(&damon_perf_lock);
	test_ctx_set_fast(test, ctx, 10000, 100000);
	id = damon_perf_target_add_pid(ctx, pid, true, NULL);
	ASSERT_LOCKED(test, id > 0);
	ASSERT_LOCKED(test, damon_perf_probe_add(ctx, &pa, NULL) == 1);
	mutex_unlock(&damon_perf_lock);
	KUNIT_ASSERT_EQ(test, test_ctx_start(ctx), 0);

	/*
	 * faulting 32768 pages in takes a while under emulation; 60 s bounds
	 * a source that never delivers
	 */
	for (i = 0; i < 600 && !best; i++) {
		msleep(100);
		snap = damon_perf_snapshot_get(ctx);
		if (!snap)
			continue;
		for (j = 0; j < snap->nr_regions; j++) {
			hits += snap->regions[j].probe_hits[0];
			best = max_t(u64, best, snap->regions[j].nr_accesses);
		}
		damon_perf_snapshot_put(snap);
	}
	KUNIT_EXPECT_GT(test, hits, 0ULL);
	KUNIT_EXPECT_GT(test, best, 0ULL);
	KUNIT_EXPECT_EQ(test, READ_ONCE(ctx->state),
			(u32)DAMON_PERF_CTX_STATE_RUNNING);

	KUNIT_EXPECT_EQ(test, test_ctx_stop(ctx), 0);
}

/* Call @fn(@data) at the end of the case, even after a failure. */
struct deferred {
	void (*fn)(void *data);
	void *data;
};

static int deferred_init(struct kunit_resource *res, void *d)
{
	res->data = d;
	return 0;
}

static void deferred_free(struct kunit_resource *res)
{
	struct deferred *d = res->data;

	d->fn(d->data);
}

static void defer(struct kunit *test, void (*fn)(void *data), void *data)
{
	struct deferred *d = kunit_kzalloc(test, sizeof(*d), GFP_KERNEL);

	if (!d) {
		fn(data);
		KUNIT_ASSERT_FAILURE(test, "out of memory");
	}
	d->fn = fn;
	d->data = data;
	if (!kunit_alloc_resource(test, deferred_init, deferred_free,
				  GFP_KERNEL, d)) {
		fn(data);
		KUNIT_ASSERT_FAILURE(test, "out of memory");
	}
}

/*
 * Runs with a private, zeroed set of observe counters (stats.c), so a case
 * can check that they balance without the module's own traffic.
 */
struct private_stats {
	struct damon_perf_stats_pcpu __percpu *set;
	struct damon_perf_stats_pcpu __percpu *saved;
};

static void private_stats_free(void *data)
{
	struct private_stats *p = data;

	damon_perf_stats_swap(p->saved);
	damon_perf_stats_pcpu_free(p->set);
}

/* Before any context of the case starts (the swap must see no traffic). */
static void use_private_stats(struct kunit *test)
{
	struct private_stats *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	p->set = damon_perf_stats_pcpu_alloc();
	KUNIT_ASSERT_TRUE(test, p->set);
	p->saved = damon_perf_stats_swap(p->set);
	defer(test, private_stats_free, p);
}

static unsigned long stat(struct damon_perf_stats *st,
			  enum damon_perf_stat_idx idx)
{
	return damon_perf_stats_get(st, idx);
}

/* A stopped context of a case, long intervals: no drain comes on its own. */
static struct damon_perf_ctx *slow_ctx(struct kunit *test, const char *name,
				       u32 ring_size)
{
	struct damon_perf_ctx *ctx;
	struct damon_perf_attrs a;

	ctx = test_ctx_new(test, name, DAMON_PERF_OPS_PADDR);
	damon_perf_attrs_default(&a);
	a.sample_us = DAMON_PERF_SAMPLE_US_MAX;
	a.aggr_us = 60 * DAMON_PERF_SAMPLE_US_MAX;
	a.update_us = a.aggr_us;
	a.max_nr_regions = 100;
	a.ring_size = ring_size;
	mutex_lock(&damon_perf_lock);
	ASSERT_LOCKED(test, damon_perf_ctx_set_attrs(ctx, &a, NULL) == 0);
	ASSERT_LOCKED(test, range_add(ctx, BASE, BASE + 64 * PG) > 0);
	mutex_unlock(&damon_perf_lock);
	return ctx;
}

static u64 snapshot_hits(struct damon_perf_ctx *ctx, u64 *seq)
{
	struct damon_perf_snapshot *snap = damon_perf_snapshot_get(ctx);
	u64 hits = 0;
	u32 i;

	*seq = 0;
	if (!snap)
		return 0;
	*seq = snap->seq;
	for (i = 0; i < snap->nr_regions; i++)
		hits += snap->regions[i].probe_hits[0];
	damon_perf_snapshot_put(snap);
	return hits;
}

/*
 * Defect: stop ended the kdamond before disarming the probes and freed the
 * rings with what was queued after its last drain, uncounted; the partial
 * aggregation was never published. Now stop drains once more after the
 * producers are gone and publishes it, and the counters balance.
 */
static void stop_should_drain_and_publish_what_is_in_flight(struct kunit *test)
{
	struct damon_perf_ctx *ctx;
	struct damon_perf_stats st;
	u64 seq, hits;

	use_private_stats(test);
	ctx = slow_ctx(test, "kunit-inflight", 256);
	KUNIT_ASSERT_EQ(test, test_ctx_start(ctx), 0);
	/* below the watermark (192 of 256): nothing wakes the kdamond */
	inject(ctx, BASE, BASE + 64 * PG, 100, current->tgid);
	KUNIT_EXPECT_EQ(test, test_ctx_stop(ctx), 0);

	hits = snapshot_hits(ctx, &seq);
	KUNIT_EXPECT_EQ(test, seq, 1ULL);
	KUNIT_EXPECT_EQ(test, hits, 100ULL);
	damon_perf_stats_aggregate(&st);
	KUNIT_EXPECT_EQ(test, stat(&st, DAMON_PERF_STAT_enqueue), 100UL);
	KUNIT_EXPECT_EQ(test, stat(&st, DAMON_PERF_STAT_dequeue), 100UL);
	KUNIT_EXPECT_EQ(test, stat(&st, DAMON_PERF_STAT_match), 100UL);
	KUNIT_EXPECT_EQ(test, READ_ONCE(ctx->stale_drops), 0ULL);
}

/* What the test listener heard: aggregations of heard.ctx only. */
static struct {
	struct damon_perf_ctx *ctx;
	unsigned int calls;
	u64 seq;
	bool published;
} heard;

static void heard_aggregated(struct damon_perf_ctx *ctx,
			     struct damon_perf_snapshot *snap)
{
	struct damon_perf_snapshot *cur;

	if (ctx != READ_ONCE(heard.ctx))
		return;
	heard.calls++;
	heard.seq = snap->seq;
	/* told after the snapshot is published, not before */
	cur = damon_perf_snapshot_get(ctx);
	heard.published = cur == snap;
	damon_perf_snapshot_put(cur);
}

static const struct damon_perf_listener_ops heard_ops = {
	.aggregated = heard_aggregated,
};

static struct damon_perf_listener heard_listener = {
	.ops = &heard_ops,
};

/* Unregister the test listener at the end of the case, failed or not. */
static int listener_res_init(struct kunit_resource *res, void *l)
{
	res->data = l;
	damon_perf_listener_register(l);
	return 0;
}

static void listener_res_free(struct kunit_resource *res)
{
	damon_perf_listener_unregister(res->data);
}

static void
listeners_should_hear_each_aggregation_until_unregistered(struct kunit *test)
{
	struct kunit_resource *res;
	struct damon_perf_ctx *ctx;
	u64 seq;

	ctx = slow_ctx(test, "kunit-listen", 256);
	memset(&heard, 0, sizeof(heard));
	WRITE_ONCE(heard.ctx, ctx);
	res = kunit_alloc_and_get_resource(test, listener_res_init,
					   listener_res_free, GFP_KERNEL,
					   &heard_listener);
	KUNIT_ASSERT_NOT_NULL(test, res);

	/* stop publishes the aggregation in flight: one call, seq 1 */
	mutex_lock(&damon_perf_lock);
	ASSERT_LOCKED(test, damon_perf_ctx_start(ctx, NULL) == 0);
	KUNIT_EXPECT_EQ(test, damon_perf_ctx_stop(ctx), 0);
	mutex_unlock(&damon_perf_lock);
	snapshot_hits(ctx, &seq);
	KUNIT_EXPECT_EQ(test, heard.calls, 1U);
	KUNIT_EXPECT_EQ(test, heard.seq, seq);
	KUNIT_EXPECT_TRUE(test, heard.published);

	/* unregistered: the next run's aggregation reaches nobody */
	kunit_remove_resource(test, res);
	kunit_put_resource(res);
	mutex_lock(&damon_perf_lock);
	ASSERT_LOCKED(test, damon_perf_ctx_start(ctx, NULL) == 0);
	KUNIT_EXPECT_EQ(test, damon_perf_ctx_stop(ctx), 0);
	mutex_unlock(&damon_perf_lock);
	snapshot_hits(ctx, &seq);
	KUNIT_EXPECT_GE(test, seq, 1ULL);
	KUNIT_EXPECT_EQ(test, heard.calls, 1U);
}

/*
 * Defect: the kdamond took its first stale reference when it began to run,
 * after the probes were armed; reports taken in between (arming many CPUs
 * under load takes longer than a sample interval) counted as stale. The
 * rings are new at each start, so nothing in them is stale at the first
 * drain: here a report stamped long before the kdamond's first clock read.
 */
static void first_drain_should_find_nothing_stale(struct kunit *test)
{
	struct damon_perf_report r = {
		.paddr = BASE + 64,
		.vaddr = BASE + 64,
		.size = 8,
		.time_ns = 1,
		.tid = current->tgid,
		.tgid = current->tgid,
		.probe_idx = 1,
		.src = DAMON_PERF_SRC_INJECTED,
	};
	struct damon_perf_ctx *ctx;
	struct damon_perf_stats st;
	u64 seq;

	use_private_stats(test);
	ctx = slow_ctx(test, "kunit-fresh", 256);
	KUNIT_ASSERT_EQ(test, test_ctx_start(ctx), 0);
	/* the kdamond has its stale reference once it ran: let it */
	msleep(50);
	preempt_disable();
	r.cpu = smp_processor_id();
	KUNIT_EXPECT_TRUE(test, damon_perf_report_access(&ctx->rings, &r));
	preempt_enable();
	KUNIT_EXPECT_EQ(test, test_ctx_stop(ctx), 0);

	KUNIT_EXPECT_EQ(test, READ_ONCE(ctx->stale_drops), 0ULL);
	KUNIT_EXPECT_EQ(test, snapshot_hits(ctx, &seq), 1ULL);
	damon_perf_stats_aggregate(&st);
	KUNIT_EXPECT_EQ(test, stat(&st, DAMON_PERF_STAT_stale), 0UL);
	KUNIT_EXPECT_EQ(test, stat(&st, DAMON_PERF_STAT_match), 1UL);
}

/* Reports stamped by the ring use the one clock of every CPU. */
struct stamp_arg {
	struct damon_perf_ctx *ctx;
	bool queued;
};

static void stamp_on_cpu(void *data)
{
	struct stamp_arg *a = data;
	struct damon_perf_report r = {
		.paddr = BASE + 64,
		.vaddr = BASE + 64,
		.size = 8,
		.cpu = smp_processor_id(),
		.tid = 1,
		.tgid = 1,
		.probe_idx = 1,
		.src = DAMON_PERF_SRC_INJECTED,
	};

	a->queued = damon_perf_report_access(&a->ctx->rings, &r);
}

struct stamp_check {
	u64 lo, hi;
	unsigned int n, outside;
};

static void check_stamp(const struct damon_perf_report *r, void *arg)
{
	struct stamp_check *c = arg;

	c->n++;
	if (r->time_ns < c->lo || r->time_ns > c->hi)
		c->outside++;
}

/*
 * Defect: reports were stamped with local_clock(), whose values from
 * different CPUs may drift apart and which is not the drain's clock. Each
 * CPU stamps a report (time_ns 0) between two reads of CLOCK_MONOTONIC's
 * NMI-safe accessor on this CPU; every stamp must lie between them.
 */
static void reports_should_be_stamped_with_one_clock(struct kunit *test)
{
	struct damon_perf_ctx *ctx = test_ctx_new(test, "kunit-clock",
						  DAMON_PERF_OPS_PADDR);
	struct stamp_arg a = { .ctx = ctx };
	struct stamp_check c = {};
	int cpu;

	KUNIT_ASSERT_EQ(test, 0, damon_perf_rings_alloc(&ctx->rings, 256,
							NULL, NULL));
	cpus_read_lock();
	c.lo = ktime_get_mono_fast_ns();
	for_each_online_cpu(cpu) {
		smp_call_function_single(cpu, stamp_on_cpu, &a, 1);
		KUNIT_EXPECT_TRUE(test, a.queued);
	}
	c.hi = ktime_get_mono_fast_ns();
	for_each_online_cpu(cpu)
		damon_perf_ring_drain(&ctx->rings, cpu, check_stamp, &c);
	cpus_read_unlock();
	damon_perf_rings_free(&ctx->rings);
	KUNIT_EXPECT_EQ(test, c.n, num_online_cpus());
	KUNIT_EXPECT_EQ(test, c.outside, 0U);
}

static atomic_t early_resched_calls;

static void count_resched(struct damon_perf_ctx *ctx, bool early)
{
	if (early)
		atomic_inc(&early_resched_calls);
}

static void resched_hook_clear(void *data)
{
	WRITE_ONCE(damon_perf_kdamond_resched_hook, NULL);
}

static unsigned long dequeued(void)
{
	struct damon_perf_stats st;

	damon_perf_stats_aggregate(&st);
	return stat(&st, DAMON_PERF_STAT_dequeue);
}

/*
 * Defect: an early wake (ring high watermark) went back to sleep with
 * `continue`, past the loop's cond_resched(): with sustained crossings on
 * a kernel without preemption the kdamond never left its CPU. Each round
 * fills the ring to its watermark and waits until the kdamond drained it;
 * every pass that drained early must have reached the scheduling point.
 * The sample interval is 10 s: a pass at its end is no early pass, and
 * each one that comes during the case may take a round's drain.
 */
static void early_wakes_should_reach_the_scheduling_point(struct kunit *test)
{
	const unsigned int hiwat =
		damon_perf_ring_hiwat(DAMON_PERF_RING_SIZE_MIN);
	struct damon_perf_ctx *ctx;
	struct damon_perf_stats st;
	unsigned long deadline;
	u64 regular;
	int round;

	use_private_stats(test);
	ctx = slow_ctx(test, "kunit-wake", DAMON_PERF_RING_SIZE_MIN);
	atomic_set(&early_resched_calls, 0);
	WRITE_ONCE(damon_perf_kdamond_resched_hook, count_resched);
	defer(test, resched_hook_clear, NULL);
	KUNIT_ASSERT_EQ(test, test_ctx_start(ctx), 0);
	for (round = 1; round <= 5; round++) {
		/* up to the watermark: one early wake */
		inject(ctx, BASE, BASE + 64 * PG, hiwat, current->tgid);
		/* a liveness bound only: the drain comes early or at 10 s */
		deadline = jiffies + 60 * HZ;
		while (dequeued() < round * hiwat &&
		       time_before(jiffies, deadline))
			usleep_range(500, 1000);
		KUNIT_ASSERT_EQ(test, dequeued(), (unsigned long)round * hiwat);
	}
	/*
	 * Passes that ended at their time so far (0 unless the rounds
	 * took 10 s): each may have drained a round in place of an early
	 * pass. The pass that drained round 5 reaches the scheduling point
	 * right after its drain; later regular passes do not count.
	 */
	regular = READ_ONCE(ctx->nr_passes);
	deadline = jiffies + 60 * HZ;
	while (atomic_read(&early_resched_calls) + regular < 5 &&
	       time_before(jiffies, deadline))
		usleep_range(500, 1000);
	KUNIT_EXPECT_EQ(test, test_ctx_stop(ctx), 0);
	kunit_info(test, "early passes at the scheduling point: %d, regular passes: %llu\n",
		   atomic_read(&early_resched_calls), regular);
	KUNIT_EXPECT_GE(test, atomic_read(&early_resched_calls) + regular,
			5ULL);
	damon_perf_stats_aggregate(&st);
	KUNIT_EXPECT_EQ(test, stat(&st, DAMON_PERF_STAT_early_wake), 5UL);
	KUNIT_EXPECT_EQ(test, stat(&st, DAMON_PERF_STAT_enqueue),
			stat(&st, DAMON_PERF_STAT_dequeue));
}

static struct kunit_case run_cases[] = {
	KUNIT_CASE(stop_should_not_wait_for_long_intervals),
	KUNIT_CASE(stop_should_drain_and_publish_what_is_in_flight),
	KUNIT_CASE(listeners_should_hear_each_aggregation_until_unregistered),
	KUNIT_CASE(first_drain_should_find_nothing_stale),
	KUNIT_CASE(reports_should_be_stamped_with_one_clock),
	KUNIT_CASE(early_wakes_should_reach_the_scheduling_point),
	KUNIT_CASE(paddr_run_should_find_the_hot_range),
	KUNIT_CASE(vaddr_ctx_should_stop_when_its_process_exits),
	KUNIT_CASE(vaddr_run_should_find_the_hot_range_of_a_process),
	KUNIT_CASE(vaddr_run_should_credit_real_page_fault_samples),
	{}
};

static struct kunit_suite run_suite = {
	.name = "damon_perf_run",
	.test_cases = run_cases,
};

kunit_test_suites(&run_suite);
