// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: contexts (ctx.c) and complete monitoring runs (kdamond.c) with
 * reports injected through damon_perf_report_access().
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

static void ctx_new_should_validate_names(struct kunit *test)
{
	char long_name[DAMON_PERF_NAME_LEN + 1];
	struct damon_perf_ctx *ctx;

	memset(long_name, 'a', DAMON_PERF_NAME_LEN);
	long_name[DAMON_PERF_NAME_LEN] = '\0';
	ctx = test_ctx_new(test, "kunit-a", DAMON_PERF_OPS_PADDR);
	KUNIT_EXPECT_EQ(test, ctx->state, (u32)DAMON_PERF_CTX_STATE_CONFIGURED);
	KUNIT_EXPECT_GT(test, ctx->id, 0U);

	mutex_lock(&damon_perf_lock);
	KUNIT_EXPECT_PTR_EQ(test, damon_perf_ctx_find(ctx->id), ctx);
	KUNIT_EXPECT_PTR_EQ(test, damon_perf_ctx_find_name("kunit-a"), ctx);
	KUNIT_EXPECT_EQ(test, PTR_ERR(damon_perf_ctx_new("", 0, NULL)),
			(long)-EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(damon_perf_ctx_new(long_name, 0, NULL)),
			(long)-EINVAL);
	long_name[DAMON_PERF_NAME_LEN - 1] = '\0';	/* 31 bytes: fine */
	ctx = damon_perf_ctx_new(long_name, 0, NULL);
	KUNIT_EXPECT_FALSE(test, IS_ERR(ctx));
	if (!IS_ERR(ctx))
		damon_perf_ctx_destroy(ctx, NULL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(damon_perf_ctx_new("a\tb", 0, NULL)),
			(long)-EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(damon_perf_ctx_new("kunit-a", 0, NULL)),
			(long)-EEXIST);
	KUNIT_EXPECT_EQ(test, PTR_ERR(damon_perf_ctx_new("x", 7, NULL)),
			(long)-EINVAL);
	mutex_unlock(&damon_perf_lock);
}

static void ctx_new_should_refuse_beyond_the_limit(struct kunit *test)
{
	struct damon_perf_ctx *made[DAMON_PERF_MAX_CTXS + 1];
	struct damon_perf_ctx *ctx;
	char name[16];
	int i, n = 0;

	mutex_lock(&damon_perf_lock);
	for (i = 0; i <= DAMON_PERF_MAX_CTXS; i++) {
		snprintf(name, sizeof(name), "kunit-lim%d", i);
		ctx = damon_perf_ctx_new(name, DAMON_PERF_OPS_PADDR, NULL);
		if (IS_ERR(ctx)) {
			KUNIT_EXPECT_EQ(test, PTR_ERR(ctx), (long)-ENOSPC);
			break;
		}
		made[n++] = ctx;
	}
	KUNIT_EXPECT_LE(test, n, DAMON_PERF_MAX_CTXS);
	KUNIT_EXPECT_LT(test, i, DAMON_PERF_MAX_CTXS + 1);
	/* ids run in order for dumps */
	for (i = 1; i < n; i++)
		KUNIT_EXPECT_PTR_EQ(test, damon_perf_ctx_next(made[i - 1]->id),
				    made[i]);
	while (n--)
		damon_perf_ctx_destroy(made[n], NULL);
	mutex_unlock(&damon_perf_lock);
}

struct attrs_case {
	const char *desc;
	struct damon_perf_attrs attrs;
	int ret;
};

/* .mode left out: 0, the presence mode */
static const struct attrs_case attrs_cases[] = {
	{
		.desc = "defaults",
		.attrs = {
			.sample_us = 5000, .aggr_us = 100000,
			.update_us = 1000000, .min_nr_regions = 10,
			.max_nr_regions = 1000, .ring_size = 256,
		},
		.ret = 0,
	},
	{
		.desc = "zero sample",
		.attrs = {
			.sample_us = 0, .aggr_us = 100000, .update_us = 1000000,
			.min_nr_regions = 10, .max_nr_regions = 1000,
			.ring_size = 256,
		},
		.ret = -EINVAL,
	},
	{
		.desc = "zero aggregation",
		.attrs = {
			.sample_us = 5000, .aggr_us = 0, .update_us = 1000000,
			.min_nr_regions = 10, .max_nr_regions = 1000,
			.ring_size = 256,
		},
		.ret = -EINVAL,
	},
	{
		.desc = "aggregation not a multiple",
		.attrs = {
			.sample_us = 5000, .aggr_us = 12000,
			.update_us = 1000000, .min_nr_regions = 10,
			.max_nr_regions = 1000, .ring_size = 256,
		},
		.ret = -EINVAL,
	},
	{
		.desc = "update not a multiple",
		.attrs = {
			.sample_us = 5000, .aggr_us = 100000,
			.update_us = 1000001, .min_nr_regions = 10,
			.max_nr_regions = 1000, .ring_size = 256,
		},
		.ret = -EINVAL,
	},
	{
		.desc = "sample above 60 s",
		.attrs = {
			.sample_us = 61000000, .aggr_us = 122000000,
			.update_us = 122000000, .min_nr_regions = 10,
			.max_nr_regions = 1000, .ring_size = 256,
		},
		.ret = -EINVAL,
	},
	{
		.desc = "aggregation above 1 h",
		.attrs = {
			.sample_us = 5000, .aggr_us = 3600005000ULL,
			.update_us = 1000000, .min_nr_regions = 10,
			.max_nr_regions = 1000, .ring_size = 256,
		},
		.ret = -EINVAL,
	},
	{
		.desc = "min_nr_regions below 3",
		.attrs = {
			.sample_us = 5000, .aggr_us = 100000,
			.update_us = 1000000, .min_nr_regions = 2,
			.max_nr_regions = 1000, .ring_size = 256,
		},
		.ret = -EINVAL,
	},
	{
		.desc = "min above max",
		.attrs = {
			.sample_us = 5000, .aggr_us = 100000,
			.update_us = 1000000, .min_nr_regions = 20,
			.max_nr_regions = 10, .ring_size = 256,
		},
		.ret = -EINVAL,
	},
	{
		.desc = "max above the limit",
		.attrs = {
			.sample_us = 5000, .aggr_us = 100000,
			.update_us = 1000000, .min_nr_regions = 10,
			.max_nr_regions = 10001, .ring_size = 256,
		},
		.ret = -EINVAL,
	},
	{
		.desc = "max at the limit",
		.attrs = {
			.sample_us = 5000, .aggr_us = 100000,
			.update_us = 1000000, .min_nr_regions = 10,
			.max_nr_regions = 10000, .ring_size = 256,
		},
		.ret = 0,
	},
	{
		.desc = "unknown mode",
		.attrs = {
			.sample_us = 5000, .aggr_us = 100000,
			.update_us = 1000000, .min_nr_regions = 10,
			.max_nr_regions = 1000, .mode = 2, .ring_size = 256,
		},
		.ret = -EINVAL,
	},
	{
		.desc = "count mode",
		.attrs = {
			.sample_us = 5000, .aggr_us = 100000,
			.update_us = 1000000, .min_nr_regions = 10,
			.max_nr_regions = 1000, .mode = 1, .ring_size = 256,
		},
		.ret = 0,
	},
	{
		.desc = "ring not a power of two",
		.attrs = {
			.sample_us = 5000, .aggr_us = 100000,
			.update_us = 1000000, .min_nr_regions = 10,
			.max_nr_regions = 1000, .ring_size = 300,
		},
		.ret = -EINVAL,
	},
	{
		.desc = "ring too small",
		.attrs = {
			.sample_us = 5000, .aggr_us = 100000,
			.update_us = 1000000, .min_nr_regions = 10,
			.max_nr_regions = 1000, .ring_size = 8,
		},
		.ret = -EINVAL,
	},
	{
		.desc = "ring too large",
		.attrs = {
			.sample_us = 5000, .aggr_us = 100000,
			.update_us = 1000000, .min_nr_regions = 10,
			.max_nr_regions = 1000, .ring_size = 131072,
		},
		.ret = -EINVAL,
	},
	{
		.desc = "ring at the bounds",
		.attrs = {
			.sample_us = 5000, .aggr_us = 100000,
			.update_us = 1000000, .min_nr_regions = 3,
			.max_nr_regions = 3, .ring_size = 65536,
		},
		.ret = 0,
	},
	/* one limit, one value: the uapi header's, as netlink and damonctl */
	{
		.desc = "sample at the uapi limit",
		.attrs = {
			.sample_us = DAMON_PERF_SAMPLE_US_MAX,
			.aggr_us = 2 * DAMON_PERF_SAMPLE_US_MAX,
			.update_us = 2 * DAMON_PERF_SAMPLE_US_MAX,
			.min_nr_regions = 10, .max_nr_regions = 1000,
			.ring_size = 256,
		},
		.ret = 0,
	},
	{
		.desc = "sample above the uapi limit",
		.attrs = {
			.sample_us = DAMON_PERF_SAMPLE_US_MAX + 100,
			.aggr_us = 2 * (DAMON_PERF_SAMPLE_US_MAX + 100),
			.update_us = 2 * (DAMON_PERF_SAMPLE_US_MAX + 100),
			.min_nr_regions = 10, .max_nr_regions = 1000,
			.ring_size = 256,
		},
		.ret = -EINVAL,
	},
	{
		.desc = "aggregation at the uapi limit",
		.attrs = {
			.sample_us = 5000,
			.aggr_us = DAMON_PERF_INTERVAL_US_MAX,
			.update_us = DAMON_PERF_INTERVAL_US_MAX,
			.min_nr_regions = 10, .max_nr_regions = 1000,
			.ring_size = 256,
		},
		.ret = 0,
	},
	{
		.desc = "ring at the uapi limit",
		.attrs = {
			.sample_us = 5000, .aggr_us = 100000,
			.update_us = 1000000, .min_nr_regions = 10,
			.max_nr_regions = 1000,
			.ring_size = DAMON_PERF_RING_SIZE_MAX,
		},
		.ret = 0,
	},
	{
		.desc = "ring above the uapi limit",
		.attrs = {
			.sample_us = 5000, .aggr_us = 100000,
			.update_us = 1000000, .min_nr_regions = 10,
			.max_nr_regions = 1000,
			.ring_size = 2 * DAMON_PERF_RING_SIZE_MAX,
		},
		.ret = -EINVAL,
	},
	{
		.desc = "ring below the uapi limit",
		.attrs = {
			.sample_us = 5000, .aggr_us = 100000,
			.update_us = 1000000, .min_nr_regions = 10,
			.max_nr_regions = 1000,
			.ring_size = DAMON_PERF_RING_SIZE_MIN / 2,
		},
		.ret = -EINVAL,
	},
	{
		.desc = "regions at the uapi limits",
		.attrs = {
			.sample_us = 5000, .aggr_us = 100000,
			.update_us = 1000000,
			.min_nr_regions = DAMON_PERF_NR_REGIONS_MIN,
			.max_nr_regions = DAMON_PERF_NR_REGIONS_MAX,
			.ring_size = 256,
		},
		.ret = 0,
	},
};

KUNIT_ARRAY_PARAM_DESC(attrs, attrs_cases, desc);

static void attrs_should_be_validated(struct kunit *test)
{
	const struct attrs_case *c = test->param_value;
	struct netlink_ext_ack extack = {};

	KUNIT_EXPECT_EQ(test, damon_perf_attrs_validate(&c->attrs, &extack),
			c->ret);
	if (c->ret)
		KUNIT_EXPECT_NOT_NULL(test, extack._msg);
}

static void targets_should_be_validated(struct kunit *test)
{
	struct damon_perf_ctx *p, *v;
	struct netlink_ext_ack extack = {};
	struct damon_perf_target *t;
	int id, ret;

	p = test_ctx_new(test, "kunit-p", DAMON_PERF_OPS_PADDR);
	v = test_ctx_new(test, "kunit-v", DAMON_PERF_OPS_VADDR);

	mutex_lock(&damon_perf_lock);
	id = range_add(p, BASE, BASE + 16 * PG);
	KUNIT_EXPECT_GT(test, id, 0);
	ret = damon_perf_target_add_range(p, BASE + 15 * PG, BASE + 17 * PG,
					  &extack);
	KUNIT_EXPECT_EQ(test, ret, -EEXIST);
	KUNIT_EXPECT_NOT_NULL(test, extack._msg);
	KUNIT_EXPECT_EQ(test, range_add(p, BASE - PG, BASE + PG), -EEXIST);
	KUNIT_EXPECT_EQ(test, damon_perf_target_add_range(p, BASE, BASE,
							  NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, range_add(p, BASE + 40 * PG, BASE + 20 * PG),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, range_add(p, BASE + 20 * PG, BASE + 20 * PG + 1),
			-EINVAL);
	KUNIT_EXPECT_GT(test, range_add(p, BASE - 4 * PG, BASE),
			0);	/* adjacent is fine */
	KUNIT_EXPECT_EQ(test, p->nr_targets, 2U);
	/* sorted by address */
	t = list_first_entry(&p->targets, struct damon_perf_target, list);
	KUNIT_EXPECT_EQ(test, t->start, BASE - 4 * PG);

	KUNIT_EXPECT_EQ(test, damon_perf_target_add_pid(p, 1, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, range_add(v, BASE, BASE + PG), -EINVAL);
	KUNIT_EXPECT_EQ(test, damon_perf_target_add_pid(v, INT_MAX, NULL),
			-ESRCH);
	KUNIT_EXPECT_EQ(test, damon_perf_target_add_pid(v, 0, NULL), -EINVAL);
	/* this test runs in a kernel thread: no address space */
	KUNIT_EXPECT_EQ(test, damon_perf_target_add_pid(v, current->pid, NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, damon_perf_ctx_start(v, NULL), -EINVAL);

	KUNIT_EXPECT_EQ(test, damon_perf_target_del(p, id, NULL), 0);
	KUNIT_EXPECT_EQ(test, damon_perf_target_del(p, id, NULL), -ENOENT);
	KUNIT_EXPECT_EQ(test, p->nr_targets, 1U);

	/* up to DAMON_PERF_MAX_TARGETS targets */
	for (id = 1; p->nr_targets < DAMON_PERF_MAX_TARGETS; id++)
		ASSERT_LOCKED(test, range_add(p, BASE + id * 16 * PG,
					      BASE + (id * 16 + 1) * PG) > 0);
	KUNIT_EXPECT_EQ(test, range_add(p, BASE + 4096 * PG, BASE + 4097 * PG),
			-ENOSPC);
	mutex_unlock(&damon_perf_lock);
}

static void filters_should_be_validated(struct kunit *test)
{
	struct damon_perf_ctx *ctx = test_ctx_new(test, "kunit-f",
						  DAMON_PERF_OPS_PADDR);
	struct damon_perf_filter f[DAMON_PERF_MAX_FILTERS + 1] = {};

	mutex_lock(&damon_perf_lock);
	f[0].type = DAMON_PERF_FILTER_WRITE;
	KUNIT_EXPECT_EQ(test, damon_perf_ctx_set_filters(ctx, f, 1, NULL), 0);
	KUNIT_EXPECT_EQ(test, ctx->nr_filters, 1U);
	f[0].type = DAMON_PERF_FILTER_CPUMASK;	/* empty mask */
	KUNIT_EXPECT_EQ(test, damon_perf_ctx_set_filters(ctx, f, 1, NULL),
			-EINVAL);
	f[0].type = DAMON_PERF_FILTER_TID;	/* no tid */
	KUNIT_EXPECT_EQ(test, damon_perf_ctx_set_filters(ctx, f, 1, NULL),
			-EINVAL);
	f[0].type = 99;
	KUNIT_EXPECT_EQ(test, damon_perf_ctx_set_filters(ctx, f, 1, NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test,
			damon_perf_ctx_set_filters(ctx, f,
						   DAMON_PERF_MAX_FILTERS + 1,
						   NULL),
			-E2BIG);
	KUNIT_EXPECT_EQ(test, ctx->nr_filters, 1U);
	KUNIT_EXPECT_EQ(test, damon_perf_ctx_set_filters(ctx, NULL, 0, NULL),
			0);
	KUNIT_EXPECT_EQ(test, ctx->nr_filters, 0U);
	mutex_unlock(&damon_perf_lock);
}

/* damon_perf_lock held */
static void set_fast(struct kunit *test, struct damon_perf_ctx *ctx,
		     u64 sample_us, u64 aggr_us)
{
	struct damon_perf_attrs a;

	damon_perf_attrs_default(&a);
	a.sample_us = sample_us;
	a.aggr_us = aggr_us;
	a.update_us = aggr_us * 5;
	a.max_nr_regions = 100;
	ASSERT_LOCKED(test, damon_perf_ctx_set_attrs(ctx, &a, NULL) == 0);
}

static void running_ctx_should_refuse_structural_changes(struct kunit *test)
{
	struct damon_perf_ctx *ctx = test_ctx_new(test, "kunit-busy",
						  DAMON_PERF_OPS_PADDR);
	struct damon_perf_filter f = { .type = DAMON_PERF_FILTER_WRITE };
	struct damon_perf_attrs a, got;
	int i;

	mutex_lock(&damon_perf_lock);
	set_fast(test, ctx, 10000, 100000);
	ASSERT_LOCKED(test, range_add(ctx, BASE, BASE + 64 * PG) > 0);
	ASSERT_LOCKED(test, damon_perf_ctx_start(ctx, NULL) == 0);
	KUNIT_EXPECT_EQ(test, READ_ONCE(ctx->state),
			(u32)DAMON_PERF_CTX_STATE_RUNNING);
	KUNIT_EXPECT_EQ(test, damon_perf_ctx_start(ctx, NULL), -EBUSY);
	KUNIT_EXPECT_EQ(test, range_add(ctx, BASE + 64 * PG, BASE + 65 * PG),
			-EBUSY);
	KUNIT_EXPECT_EQ(test, damon_perf_target_del(ctx, 1, NULL), -EBUSY);
	KUNIT_EXPECT_EQ(test, damon_perf_ctx_set_filters(ctx, &f, 1, NULL),
			-EBUSY);
	damon_perf_ctx_get_attrs(ctx, &a);
	a.ring_size *= 2;
	KUNIT_EXPECT_EQ(test, damon_perf_ctx_set_attrs(ctx, &a, NULL), -EBUSY);
	a.ring_size /= 2;
	a.aggr_us = 200000;	/* intervals may change: pending */
	KUNIT_EXPECT_EQ(test, damon_perf_ctx_set_attrs(ctx, &a, NULL), 0);
	damon_perf_ctx_get_attrs(ctx, &got);
	KUNIT_EXPECT_EQ(test, got.aggr_us, 200000ULL);
	mutex_unlock(&damon_perf_lock);

	/* the kdamond applies it at its next aggregation (100 ms) */
	for (i = 0; i < 50 && READ_ONCE(ctx->attrs.aggr_us) != 200000; i++)
		msleep(100);
	mutex_lock(&damon_perf_lock);
	KUNIT_EXPECT_EQ(test, ctx->attrs.aggr_us, 200000ULL);
	KUNIT_EXPECT_FALSE(test, ctx->attrs_pending);
	KUNIT_EXPECT_EQ(test, damon_perf_ctx_stop(ctx), 0);
	KUNIT_EXPECT_EQ(test, ctx->state, (u32)DAMON_PERF_CTX_STATE_STOPPED);
	KUNIT_EXPECT_EQ(test, damon_perf_ctx_stop(ctx), -EINVAL);
	/* stopped: configurable again, and it restarts */
	KUNIT_EXPECT_EQ(test, damon_perf_ctx_set_filters(ctx, &f, 1, NULL), 0);
	KUNIT_EXPECT_EQ(test, damon_perf_ctx_start(ctx, NULL), 0);
	mutex_unlock(&damon_perf_lock);
	/* destroyed while running by the resource */
}

static void stop_should_not_wait_for_long_intervals(struct kunit *test)
{
	struct damon_perf_ctx *ctx = test_ctx_new(test, "kunit-slow",
						  DAMON_PERF_OPS_PADDR);
	struct damon_perf_attrs a;
	ktime_t t0;

	mutex_lock(&damon_perf_lock);
	set_fast(test, ctx, 10000000, 60000000);	/* 10 s, 60 s */
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

static void
paddr_ctx_without_range_should_monitor_system_ram(struct kunit *test)
{
	struct damon_perf_ctx *ctx = test_ctx_new(test, "kunit-ram",
						  DAMON_PERF_OPS_PADDR);
	struct damon_perf_target *t;
	unsigned long total = 0;

	mutex_lock(&damon_perf_lock);
	ASSERT_LOCKED(test, damon_perf_ctx_start(ctx, NULL) == 0);
	KUNIT_EXPECT_GE(test, ctx->nr_targets, 1U);
	damon_perf_for_each_target(t, ctx) {
		KUNIT_EXPECT_LT(test, t->start, t->end);
		total += t->end - t->start;
	}
	/* within 1% of the RAM the kernel manages, or more (reserved) */
	KUNIT_EXPECT_GE(test, total >> PAGE_SHIFT,
			(unsigned long)totalram_pages() / 100 * 99);
	KUNIT_EXPECT_EQ(test, damon_perf_ctx_stop(ctx), 0);
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
	set_fast(test, ctx, 2000, 40000);
	ASSERT_LOCKED(test, range_add(ctx, BASE, BASE + 1024 * PG) > 0);
	mutex_unlock(&damon_perf_lock);
	KUNIT_ASSERT_EQ(test, test_ctx_start(ctx), 0);

	deadline = jiffies + msecs_to_jiffies(500);
	while (time_before(jiffies, deadline)) {
		inject(ctx, hot_start, hot_end, 8, current->tgid);
		usleep_range(500, 1000);
	}
	snap = damon_perf_snapshot_get(ctx);
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

struct spawn {
	pid_t tgid;
};

static int spawn_init(struct subprocess_info *info, struct cred *new)
{
	struct spawn *s = info->data;

	s->tgid = task_tgid_nr(current);
	return 0;
}

/* Start @argv[0] as a user process; its pid, 0 when that is impossible. */
static pid_t spawn(char **argv)
{
	struct subprocess_info *info;
	struct spawn s = {};
	char *envp[2];

	envp[0] = "PATH=/bin:/usr/bin";
	envp[1] = NULL;
	info = call_usermodehelper_setup(argv[0], argv, envp, GFP_KERNEL,
					 spawn_init, NULL, &s);
	if (!info)
		return 0;
	if (call_usermodehelper_exec(info, UMH_WAIT_EXEC))
		return 0;
	return s.tgid;
}

static pid_t spawn_sleep(const char *secs)
{
	char *argv[3];

	argv[0] = "/bin/sleep";
	argv[1] = (char *)secs;
	argv[2] = NULL;
	return spawn(argv);
}

static void vaddr_ctx_should_stop_when_its_process_exits(struct kunit *test)
{
	struct damon_perf_ctx *ctx = test_ctx_new(test, "kunit-exit",
						  DAMON_PERF_OPS_VADDR);
	struct damon_perf_target *t;
	pid_t pid = spawn_sleep("1");
	u32 state = 0;
	int i;

	if (!pid)
		kunit_skip(test, "cannot run /bin/sleep");
	mutex_lock(&damon_perf_lock);
	set_fast(test, ctx, 10000, 50000);
	ASSERT_LOCKED(test, damon_perf_target_add_pid(ctx, pid, NULL) > 0);
	ASSERT_LOCKED(test, damon_perf_ctx_start(ctx, NULL) == 0);
	t = list_first_entry(&ctx->targets, struct damon_perf_target, list);
	KUNIT_EXPECT_EQ(test, t->pid, pid);
	KUNIT_EXPECT_GE(test, t->nr_regions, ctx->attrs.min_nr_regions);
	KUNIT_EXPECT_FALSE(test, t->dead);
	mutex_unlock(&damon_perf_lock);

	for (i = 0; i < 60; i++) {
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

/* End a process spawn() started (it may have exited already). */
static void kill_spawned(pid_t pid)
{
	struct pid *p = find_get_pid(pid);

	if (p) {
		kill_pid(p, SIGKILL, 1);
		put_pid(p);
	}
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
	pid_t pid = spawn_sleep("600");
	struct damon_perf_snapshot *snap = NULL;
	struct damon_perf_range range;
	unsigned long hot_start, hot_end, deadline;
	int id;

	if (!pid)
		kunit_skip(test, "cannot run /bin/sleep");
	if (first_range(pid, &range) <= 0 ||
	    range.end - range.start < 8 * PG) {
		kill_spawned(pid);
		KUNIT_FAIL(test, "no mapping of at least 8 pages in the task");
		return;
	}
	/* a quarter of the lowest chunk, from its middle */
	hot_start = range.start + ALIGN_DOWN((range.end - range.start) / 2, PG);
	hot_end = hot_start + max(ALIGN_DOWN((range.end - range.start) / 4, PG),
				  PG);

	mutex_lock(&damon_perf_lock);
	set_fast(test, ctx, 2000, 40000);
	id = damon_perf_target_add_pid(ctx, pid, NULL);
	mutex_unlock(&damon_perf_lock);
	if (id <= 0 || test_ctx_start(ctx)) {
		kill_spawned(pid);
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
	kill_spawned(pid);
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
	pid = spawn(argv);
	if (!pid)
		kunit_skip(test, "cannot run /bin/workload");

	mutex_lock(&damon_perf_lock);
	set_fast(test, ctx, 10000, 100000);
	id = damon_perf_target_add_pid(ctx, pid, NULL);
	ASSERT_LOCKED(test, id > 0);
	ASSERT_LOCKED(test, damon_perf_probe_add(ctx, &pa, NULL) == 1);
	mutex_unlock(&damon_perf_lock);
	KUNIT_ASSERT_EQ(test, test_ctx_start(ctx), 0);

	/* faulting 32768 pages in takes a while under emulation */
	for (i = 0; i < 30 && !best; i++) {
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
	 * Passes at the end of a sample interval so far (0 unless the rounds
	 * took 10 s): each may have drained a round in place of an early
	 * pass. The pass that drained round 5 reaches the scheduling point
	 * right after its drain; later regular passes do not count.
	 */
	regular = READ_ONCE(ctx->sample_seq) - 1;
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

/* Regression: 2^61 events in a millisecond overflowed the quotient. */
static void rate_should_saturate_instead_of_trapping(struct kunit *test)
{
	struct damon_perf_region r = {};

	r.events = 1ULL << 61;
	KUNIT_EXPECT_EQ(test, damon_perf_kdamond_rate(&r, NSEC_PER_MSEC),
			U64_MAX);
	r.events = U64_MAX;
	KUNIT_EXPECT_EQ(test, damon_perf_kdamond_rate(&r, 1), U64_MAX);
	KUNIT_EXPECT_EQ(test, damon_perf_kdamond_rate(&r, 0), 0ULL);
	/* the largest rate that fits is still computed */
	r.events = div_u64(U64_MAX, NSEC_PER_SEC) - 1;
	KUNIT_EXPECT_EQ(test, damon_perf_kdamond_rate(&r, 1),
			r.events * NSEC_PER_SEC);
	r.events = 3000;
	KUNIT_EXPECT_EQ(test, damon_perf_kdamond_rate(&r, 2 * NSEC_PER_SEC),
			1500ULL);
	r.events = 1ULL << 48;	/* one sample at the largest period */
	KUNIT_EXPECT_EQ(test, damon_perf_kdamond_rate(&r, NSEC_PER_MSEC),
			(1ULL << 48) * 1000);
}

static void probe_add_should_bound_sample_period(struct kunit *test)
{
	struct damon_perf_ctx *ctx = test_ctx_new(test, "kunit-period",
						  DAMON_PERF_OPS_VADDR);
	struct damon_perf_probe_attr pa = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_PAGE_FAULTS,
	};
	static const u64 bad[] = { 0, (1ULL << 48) + 1, 1ULL << 61,
				   1ULL << 63, U64_MAX };
	struct netlink_ext_ack extack = {};
	unsigned int i;

	mutex_lock(&damon_perf_lock);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		pa.sample_period = bad[i];
		extack._msg = NULL;
		KUNIT_EXPECT_EQ_MSG(test, damon_perf_probe_add(ctx, &pa,
							       &extack),
				    -EINVAL, "period %llu", bad[i]);
		KUNIT_EXPECT_NOT_NULL(test, extack._msg);
	}
	pa.sample_period = 1ULL << 48;
	KUNIT_EXPECT_EQ(test, damon_perf_probe_add(ctx, &pa, NULL), 1);
	mutex_unlock(&damon_perf_lock);
}

static void
virt_to_phys_should_follow_perf_for_kernel_addresses(struct kunit *test)
{
	void *lin = kunit_kmalloc(test, 64, GFP_KERNEL);
	void *vm = vmalloc(PAGE_SIZE);

	KUNIT_ASSERT_NOT_NULL(test, lin);
	KUNIT_EXPECT_EQ(test, damon_perf_virt_to_phys((unsigned long)lin),
			(phys_addr_t)virt_to_phys(lin));
	if (vm)
		KUNIT_EXPECT_EQ(test,
				damon_perf_virt_to_phys((unsigned long)vm),
				(phys_addr_t)0);
	vfree(vm);
	KUNIT_EXPECT_EQ(test, damon_perf_virt_to_phys(0), (phys_addr_t)0);
	/* a kernel thread has no user pages */
	KUNIT_EXPECT_EQ(test, damon_perf_virt_to_phys(0x400000),
			(phys_addr_t)0);
}

static u64 time_walks(struct mm_struct *mm, unsigned long addr,
		      unsigned int n)
{
	unsigned long flags;
	u64 t0, sum = 0;
	unsigned int i;

	t0 = ktime_get_ns();
	for (i = 0; i < n; i++) {
		local_irq_save(flags);
		sum += damon_perf_walk_user(mm, addr);
		local_irq_restore(flags);
	}
	barrier_data(&sum);
	return ktime_get_ns() - t0;
}

static void drop_report(const struct damon_perf_report *report, void *arg)
{
	(*(unsigned int *)arg)++;
}

/* One report through a ring and out again: what every handler pays. */
static u64 time_ring(struct damon_perf_rings *rings, unsigned int n)
{
	struct damon_perf_report r = {
		.vaddr = 0x400000, .size = PAGE_SIZE, .probe_idx = 1,
		.src = DAMON_PERF_SRC_INJECTED,
	};
	unsigned int i, got = 0;
	u64 t0;

	t0 = ktime_get_ns();
	for (i = 0; i < n; i++) {
		preempt_disable();
		r.cpu = smp_processor_id();
		damon_perf_report_access(rings, &r);
		damon_perf_ring_drain(rings, r.cpu, drop_report, &got);
		preempt_enable();
	}
	return ktime_get_ns() - t0;
}

/*
 * The lockless walk against get_user_page_fast_only() (what perf uses) on
 * the pages of a live process, and its cost against a ring push.
 */
static void walk_should_find_the_pages_gup_finds(struct kunit *test)
{
	pid_t pid = spawn_sleep("3");
	struct damon_perf_range ranges[3];
	unsigned int found = 0, walk_only = 0, i, n = 20000;
	struct damon_perf_rings rings = {};
	unsigned long addr, flags, hit = 0;
	struct task_struct *task;
	struct mm_struct *mm = NULL;
	struct pid *spid;
	phys_addr_t pa;
	struct page *page;
	u64 t_walk, t_ring;
	int nr;

	if (!pid)
		kunit_skip(test, "cannot run /bin/sleep");
	spid = find_get_pid(pid);
	task = get_pid_task(spid, PIDTYPE_PID);
	put_pid(spid);
	if (task) {
		mm = get_task_mm(task);
		put_task_struct(task);
	}
	KUNIT_ASSERT_NOT_NULL(test, mm);
	nr = damon_perf_regions_vma_ranges(mm, ranges);
	KUNIT_ASSERT_GT(test, nr, 0);

	kthread_use_mm(mm);
	for (i = 0; i < nr; i++) {
		for (addr = ranges[i].start; addr < ranges[i].end &&
		     addr < ranges[i].start + 4096 * PAGE_SIZE;
		     addr += PAGE_SIZE) {
			local_irq_save(flags);
			pa = damon_perf_walk_user(mm, addr + 123);
			local_irq_restore(flags);
			if (get_user_page_fast_only(addr, 0, &page)) {
				KUNIT_EXPECT_EQ(test, pa,
						page_to_phys(page) + 123);
				put_page(page);
				found++;
				hit = addr + 123;
			} else if (pa) {
				walk_only++;	/* PROT_NONE or read-only */
			}
		}
	}
	KUNIT_EXPECT_GT(test, found, 0U);
	/* below mmap_min_addr nothing is ever mapped */
	local_irq_save(flags);
	KUNIT_EXPECT_EQ(test, damon_perf_walk_user(mm, PAGE_SIZE),
			(phys_addr_t)0);
	local_irq_restore(flags);

	if (hit && !damon_perf_rings_alloc(&rings, 16, NULL, NULL)) {
		t_walk = time_walks(mm, hit, n);
		t_ring = time_ring(&rings, n);
		damon_perf_rings_free(&rings);
		kunit_info(test,
			   "translation %llu ns/call, ring push+drain %llu ns/report, ratio %llu.%02llu (%u pages agree, %u walk only)\n",
			   div_u64(t_walk, n), div_u64(t_ring, n),
			   div64_u64(t_walk, t_ring ?: 1),
			   div64_u64(t_walk * 100, t_ring ?: 1) % 100,
			   found, walk_only);
	}
	kthread_unuse_mm(mm);
	mmput(mm);
}

static struct mm_struct *mm_of(pid_t pid)
{
	struct task_struct *task;
	struct mm_struct *mm = NULL;
	struct pid *spid;

	if (!pid)
		return NULL;
	spid = find_get_pid(pid);
	task = get_pid_task(spid, PIDTYPE_PID);
	put_pid(spid);
	if (task) {
		mm = get_task_mm(task);
		put_task_struct(task);
	}
	return mm;
}

/*
 * x86 before 7.2 frees page tables after a TLB-flush IPI to the CPUs of
 * mm_cpumask() only, and switch_mm_irqs_off() takes this CPU out of the
 * previous mm's mask before current changes: an NMI in between must not
 * walk current->mm's page tables. Made here by switching this CPU from
 * one process's mm to another's (kthread_use_mm()), then walking the
 * first: refused while this CPU is out of its mask, found once back in.
 */
static void walk_should_refuse_an_mm_this_cpu_has_left(struct kunit *test)
{
	struct mm_struct *mm = mm_of(spawn_sleep("3"));
	struct mm_struct *other = mm_of(spawn_sleep("3"));
	struct damon_perf_range ranges[3];
	unsigned long addr, flags, hit = 0;
	phys_addr_t left, back;
	struct page *page;
	bool in_mask;
	int nr, i;

	if (!IS_ENABLED(CONFIG_X86))
		kunit_skip(test, "mm_cpumask() decides only on x86");
	if (!mm || !other) {
		if (mm)
			mmput(mm);
		if (other)
			mmput(other);
		kunit_skip(test, "cannot run /bin/sleep");
	}
	nr = damon_perf_regions_vma_ranges(mm, ranges);
	KUNIT_ASSERT_GT(test, nr, 0);
	kthread_use_mm(mm);
	for (i = 0; i < nr && !hit; i++) {
		for (addr = ranges[i].start; addr < ranges[i].end && !hit;
		     addr += PAGE_SIZE) {
			if (get_user_page_fast_only(addr, 0, &page)) {
				put_page(page);
				hit = addr;
			}
		}
	}
	kthread_unuse_mm(mm);
	KUNIT_ASSERT_NE(test, hit, 0UL);

	migrate_disable();
	/* this CPU leaves mm (lazily still loaded) for other */
	kthread_use_mm(other);
	kthread_unuse_mm(other);
	local_irq_save(flags);
	in_mask = cpumask_test_cpu(smp_processor_id(), mm_cpumask(mm));
	left = damon_perf_walk_user(mm, hit);
	local_irq_restore(flags);
	kthread_use_mm(mm);
	local_irq_save(flags);
	back = damon_perf_walk_user(mm, hit);
	local_irq_restore(flags);
	kthread_unuse_mm(mm);
	migrate_enable();
	mmput(other);
	mmput(mm);

	KUNIT_EXPECT_NE(test, back, (phys_addr_t)0);
	if (in_mask)	/* 7.2 trims the mask lazily, not at the switch */
		kunit_skip(test, "this CPU stayed in the left mm's mask");
	KUNIT_EXPECT_EQ(test, left, (phys_addr_t)0);
}

static struct kunit_case ctx_cases[] = {
	KUNIT_CASE(ctx_new_should_validate_names),
	KUNIT_CASE(ctx_new_should_refuse_beyond_the_limit),
	KUNIT_CASE_PARAM(attrs_should_be_validated, attrs_gen_params),
	KUNIT_CASE(targets_should_be_validated),
	KUNIT_CASE(filters_should_be_validated),
	KUNIT_CASE(running_ctx_should_refuse_structural_changes),
	KUNIT_CASE(stop_should_not_wait_for_long_intervals),
	KUNIT_CASE(stop_should_drain_and_publish_what_is_in_flight),
	KUNIT_CASE(listeners_should_hear_each_aggregation_until_unregistered),
	KUNIT_CASE(first_drain_should_find_nothing_stale),
	KUNIT_CASE(reports_should_be_stamped_with_one_clock),
	KUNIT_CASE(early_wakes_should_reach_the_scheduling_point),
	KUNIT_CASE(paddr_ctx_without_range_should_monitor_system_ram),
	KUNIT_CASE(paddr_run_should_find_the_hot_range),
	KUNIT_CASE(vaddr_ctx_should_stop_when_its_process_exits),
	KUNIT_CASE(vaddr_run_should_find_the_hot_range_of_a_process),
	KUNIT_CASE(vaddr_run_should_credit_real_page_fault_samples),
	KUNIT_CASE(rate_should_saturate_instead_of_trapping),
	KUNIT_CASE(probe_add_should_bound_sample_period),
	KUNIT_CASE(virt_to_phys_should_follow_perf_for_kernel_addresses),
	KUNIT_CASE(walk_should_find_the_pages_gup_finds),
	KUNIT_CASE(walk_should_refuse_an_mm_this_cpu_has_left),
	{}
};

static struct kunit_suite ctx_suite = {
	.name = "damon_perf_ctx",
	.test_cases = ctx_cases,
};

kunit_test_suites(&ctx_suite);
