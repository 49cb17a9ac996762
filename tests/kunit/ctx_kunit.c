// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: contexts (ctx.c): names, limits, the validation of attributes,
 * targets, filters and probes, what a running context refuses; the rate
 * of a region (kdamond.c) and the address walk (addr.c). Complete
 * monitoring runs are run_kunit.c's.
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
	struct damon_perf_attrs a = c->attrs;

	/* the cases leave the tuning out: tune_kunit.c bounds it */
	if (!a.goal_aggrs)
		a.goal_aggrs = 3;
	KUNIT_EXPECT_EQ(test, damon_perf_attrs_validate(&a, &extack), c->ret);
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

	KUNIT_EXPECT_EQ(test, damon_perf_target_add_pid(p, 1, true, NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, range_add(v, BASE, BASE + PG), -EINVAL);
	KUNIT_EXPECT_EQ(test, damon_perf_target_add_pid(v, INT_MAX, true, NULL),
			-ESRCH);
	KUNIT_EXPECT_EQ(test, damon_perf_target_add_pid(v, 0, true, NULL),
			-EINVAL);
	/* this test runs in a kernel thread: no address space */
	KUNIT_EXPECT_EQ(test,
			damon_perf_target_add_pid(v, current->pid, true, NULL),
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

static void running_ctx_should_refuse_structural_changes(struct kunit *test)
{
	struct damon_perf_ctx *ctx = test_ctx_new(test, "kunit-busy",
						  DAMON_PERF_OPS_PADDR);
	struct damon_perf_filter f = { .type = DAMON_PERF_FILTER_WRITE };
	struct damon_perf_attrs a, got;
	int i;

	mutex_lock(&damon_perf_lock);
	test_ctx_set_fast(test, ctx, 10000, 100000);
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

	/*
	 * the kdamond applies it at its next aggregation (100 ms); 60 s bounds
	 * a kdamond that never does
	 */
	for (i = 0; i < 600 && READ_ONCE(ctx->attrs.aggr_us) != 200000; i++)
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
 * the pages of a live process, and its cost against a ring push. Even a
 * settled process's page tables change under the walk (compaction's
 * migration entries, khugepaged, reclaim): a page compares only when two
 * walks around the GUP agree, at most 3 tries, and most pages must.
 */
static void walk_should_find_the_pages_gup_finds(struct kunit *test)
{
	pid_t pid = test_spawn_sleep("600");
	struct damon_perf_range ranges[3];
	unsigned int found = 0, walk_only = 0, moved = 0, i, try, n = 20000;
	struct damon_perf_rings rings = {};
	unsigned long addr, flags, hit = 0;
	struct task_struct *task;
	struct mm_struct *mm = NULL;
	struct pid *spid;
	phys_addr_t pa, pa2;
	struct page *page;
	u64 t_walk, t_ring;
	bool got;
	int nr;

	if (!pid)
		kunit_skip(test, "cannot run /bin/sleep");
	/* settled: the pages it faults in as it starts race the walk */
	if (!test_wait_asleep(pid)) {
		test_kill(pid);
		KUNIT_FAIL(test, "/bin/sleep never slept");
		return;
	}
	spid = find_get_pid(pid);
	task = get_pid_task(spid, PIDTYPE_PID);
	put_pid(spid);
	if (task) {
		mm = get_task_mm(task);
		put_task_struct(task);
	}
	nr = mm ? damon_perf_regions_vma_ranges(mm, ranges) : 0;
	if (nr <= 0) {
		if (mm)
			mmput(mm);
		test_kill(pid);
		KUNIT_FAIL(test, "no mm or no mapping in /bin/sleep: %d", nr);
		return;
	}

	kthread_use_mm(mm);
	for (i = 0; i < nr; i++) {
		for (addr = ranges[i].start; addr < ranges[i].end &&
		     addr < ranges[i].start + 4096 * PAGE_SIZE;
		     addr += PAGE_SIZE) {
			for (try = 0; try < 3; try++) {
				local_irq_save(flags);
				pa = damon_perf_walk_user(mm, addr + 123);
				local_irq_restore(flags);
				got = get_user_page_fast_only(addr, 0, &page);
				local_irq_save(flags);
				pa2 = damon_perf_walk_user(mm, addr + 123);
				local_irq_restore(flags);
				if (pa == pa2)
					break;
				if (got)
					put_page(page);
				moved++;
			}
			if (pa != pa2)
				continue;	/* moved 3 times: no verdict */
			if (got) {
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
	KUNIT_EXPECT_LT(test, moved, found);
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
			   "translation %llu ns/call, ring push+drain %llu ns/report, ratio %llu.%02llu (%u pages agree, %u walk only, %u moved)\n",
			   div_u64(t_walk, n), div_u64(t_ring, n),
			   div64_u64(t_walk, t_ring ?: 1),
			   div64_u64(t_walk * 100, t_ring ?: 1) % 100,
			   found, walk_only, moved);
	}
	kthread_unuse_mm(mm);
	mmput(mm);
	test_kill(pid);
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
	struct mm_struct *mm = mm_of(test_spawn_sleep("3"));
	struct mm_struct *other = mm_of(test_spawn_sleep("3"));
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
	KUNIT_CASE(paddr_ctx_without_range_should_monitor_system_ram),
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
