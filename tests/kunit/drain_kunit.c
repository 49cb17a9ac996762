// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: drain of reports into regions (drain.c): search, straddle, thread
 * group routing, stale window, sample filters and crediting.
 */
#include <kunit/test.h>
#include <linux/prandom.h>
#include <linux/sched/clock.h>
#include <linux/sort.h>

#include "ctx.h"
#include "drain.h"
#include "kdamond.h"
#include "regions.h"
#include "snapshot.h"
#include "stats.h"
#include "../replay/replay.h"
#include "replay_stream.h"

#define BASE	BIT(30)
#define PG	DAMON_PERF_MIN_REGION

static int res_init(struct kunit_resource *res, void *ctx)
{
	res->data = ctx;
	return 0;
}

static void res_free(struct kunit_resource *res)
{
	struct damon_perf_ctx *ctx = res->data;
	struct damon_perf_target *t, *next;

	list_for_each_entry_safe(t, next, &ctx->targets, list) {
		damon_perf_regions_free(t);
		kfree(t);
	}
	damon_perf_drain_free(ctx);
	damon_perf_snapshot_put(ctx->snap);
}

static struct damon_perf_ctx *ctx_alloc(struct kunit *test, u32 ops)
{
	struct kunit_resource *res;
	struct damon_perf_ctx *ctx;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	INIT_LIST_HEAD(&ctx->targets);
	ctx->ops = ops;
	damon_perf_attrs_default(&ctx->attrs);
	ctx->sample_seq = 1;
	res = kunit_alloc_resource(test, res_init, res_free, GFP_KERNEL, ctx);
	KUNIT_ASSERT_NOT_NULL(test, res);
	return ctx;
}

/* A target of @nr one-page regions from @start. */
static struct damon_perf_target *target_add(struct kunit *test,
					    struct damon_perf_ctx *ctx,
					    pid_t pid, unsigned long start,
					    unsigned int nr)
{
	struct damon_perf_target *t;

	/* freed with the context's resource, which was registered first */
	t = damon_perf_target_new(ctx->nr_targets + 1);
	KUNIT_ASSERT_NOT_NULL(test, t);
	ctx->nr_targets++;
	t->pid = pid;
	t->start = start;
	t->end = start + nr * PG;
	list_add_tail(&t->list, &ctx->targets);
	KUNIT_ASSERT_EQ(test, 0, damon_perf_regions_split_evenly(t, t->start,
								 t->end, nr));
	KUNIT_ASSERT_EQ(test, t->nr_regions, nr);
	return t;
}

static struct damon_perf_region *region_at(struct damon_perf_target *t,
					   unsigned long addr)
{
	struct damon_perf_region *r;

	damon_perf_for_each_region(r, t)
		if (r->start <= addr && addr < r->end)
			return r;
	return NULL;
}

static struct damon_perf_report rep(unsigned long addr, unsigned long size)
{
	struct damon_perf_report report = {
		.paddr = addr,
		.vaddr = addr,
		.size = size,
		.time_ns = damon_perf_clock_ns(),
		.cpu = 0,
		.tid = 7,
		.tgid = 100,
		.probe_idx = 1,
		.src = DAMON_PERF_SRC_INJECTED,
	};

	return report;
}

static bool drain(struct damon_perf_drain *d, unsigned long addr,
		  unsigned long size)
{
	struct damon_perf_report report = rep(addr, size);

	return damon_perf_drain_report(d, &report);
}

/* paddr: [BASE, BASE + 10 pages) and [BASE + 20 pages, BASE + 30 pages) */
static struct damon_perf_ctx *two_ranges(struct kunit *test,
					 struct damon_perf_drain *d)
{
	struct damon_perf_ctx *ctx = ctx_alloc(test, DAMON_PERF_OPS_PADDR);

	target_add(test, ctx, 0, BASE, 10);
	target_add(test, ctx, 0, BASE + 20 * PG, 10);
	KUNIT_ASSERT_EQ(test, 0, damon_perf_drain_prepare(ctx, d));
	KUNIT_ASSERT_EQ(test, d->nr_ents, 20U);
	return ctx;
}

static struct damon_perf_target *nth_target(struct damon_perf_ctx *ctx,
					    int n)
{
	struct damon_perf_target *t;

	damon_perf_for_each_target(t, ctx)
		if (!n--)
			return t;
	return NULL;
}

static void drain_should_find_first_and_last_region(struct kunit *test)
{
	struct damon_perf_drain d;
	struct damon_perf_ctx *ctx = two_ranges(test, &d);
	struct damon_perf_target *a = nth_target(ctx, 0);
	struct damon_perf_target *b = nth_target(ctx, 1);

	KUNIT_EXPECT_TRUE(test, drain(&d, BASE, 8));
	KUNIT_EXPECT_TRUE(test, drain(&d, BASE + 30 * PG - 8, 8));
	KUNIT_EXPECT_EQ(test, region_at(a, BASE)->nr_accesses, 1U);
	KUNIT_EXPECT_EQ(test, region_at(a, BASE)->probe_hits[0], 1ULL);
	KUNIT_EXPECT_EQ(test, region_at(b, BASE + 29 * PG)->nr_accesses, 1U);
	KUNIT_EXPECT_EQ(test, d.total, 2U);
	KUNIT_EXPECT_EQ(test, d.matched, 2U);
}

static void drain_should_match_exact_boundaries(struct kunit *test)
{
	struct damon_perf_drain d;
	struct damon_perf_ctx *ctx = two_ranges(test, &d);
	struct damon_perf_target *a = nth_target(ctx, 0);

	/* the first byte of region 1 belongs to it, not to region 0 */
	KUNIT_EXPECT_TRUE(test, drain(&d, BASE + PG, 8));
	KUNIT_EXPECT_EQ(test, region_at(a, BASE + PG)->nr_accesses, 1U);
	KUNIT_EXPECT_EQ(test, region_at(a, BASE)->nr_accesses, 0U);
	/* an access ending exactly at a region end is inside */
	KUNIT_EXPECT_TRUE(test, drain(&d, BASE + 3 * PG - 8, 8));
	KUNIT_EXPECT_EQ(test, region_at(a, BASE + 2 * PG)->nr_accesses, 1U);
	/* the end of a target is outside */
	KUNIT_EXPECT_FALSE(test, drain(&d, BASE + 10 * PG, 8));
	KUNIT_EXPECT_FALSE(test, drain(&d, BASE + 30 * PG, 8));
}

static void drain_should_miss_gaps_and_outside(struct kunit *test)
{
	struct damon_perf_drain d;

	two_ranges(test, &d);
	KUNIT_EXPECT_FALSE(test, drain(&d, BASE + 15 * PG, 8));
	KUNIT_EXPECT_FALSE(test, drain(&d, BASE - PG, 8));
	KUNIT_EXPECT_FALSE(test, drain(&d, 0, 8));	/* no address */
	KUNIT_EXPECT_FALSE(test, drain(&d, ~0UL - PG, 8));
	KUNIT_EXPECT_EQ(test, d.matched, 0U);
	KUNIT_EXPECT_EQ(test, d.total, 4U);
}

static void drain_should_reject_straddling_access(struct kunit *test)
{
	struct damon_perf_drain d;
	struct damon_perf_ctx *ctx = two_ranges(test, &d);
	struct damon_perf_target *a = nth_target(ctx, 0);

	KUNIT_EXPECT_FALSE(test, drain(&d, BASE + PG - 4, 8));
	KUNIT_EXPECT_EQ(test, region_at(a, BASE)->nr_accesses, 0U);
	KUNIT_EXPECT_EQ(test, region_at(a, BASE + PG)->nr_accesses, 0U);
	KUNIT_EXPECT_EQ(test, region_at(a, BASE)->probe_hits[0], 0ULL);
}

static void drain_should_route_vaddr_reports_by_tgid(struct kunit *test)
{
	struct damon_perf_ctx *ctx = ctx_alloc(test, DAMON_PERF_OPS_VADDR);
	struct damon_perf_target *a, *b, *c;
	struct damon_perf_report report = rep(BASE + PG, 8);
	struct damon_perf_drain d;

	/* same addresses in three processes */
	a = target_add(test, ctx, 100, BASE, 4);
	b = target_add(test, ctx, 200, BASE, 4);
	c = target_add(test, ctx, 300, BASE, 4);
	c->dead = true;
	KUNIT_ASSERT_EQ(test, 0, damon_perf_drain_prepare(ctx, &d));
	KUNIT_EXPECT_EQ(test, d.nr_segs, 2U);

	report.tgid = 200;
	KUNIT_EXPECT_TRUE(test, damon_perf_drain_report(&d, &report));
	KUNIT_EXPECT_EQ(test, region_at(b, BASE + PG)->nr_accesses, 1U);
	KUNIT_EXPECT_EQ(test, region_at(a, BASE + PG)->nr_accesses, 0U);

	report.tgid = 400;	/* not a target */
	KUNIT_EXPECT_FALSE(test, damon_perf_drain_report(&d, &report));
	report.tgid = 300;	/* dead target */
	KUNIT_EXPECT_FALSE(test, damon_perf_drain_report(&d, &report));
	KUNIT_EXPECT_EQ(test, region_at(c, BASE + PG)->nr_accesses, 0U);
	/* the vaddr of the report is used, not its paddr */
	report.tgid = 100;
	report.paddr = 0;
	KUNIT_EXPECT_TRUE(test, damon_perf_drain_report(&d, &report));
	report.vaddr = 0;
	report.paddr = BASE;
	KUNIT_EXPECT_FALSE(test, damon_perf_drain_report(&d, &report));
}

static void drain_should_drop_stale_reports(struct kunit *test)
{
	struct damon_perf_ctx *ctx = ctx_alloc(test, DAMON_PERF_OPS_PADDR);
	u64 window = ctx->attrs.sample_us * NSEC_PER_USEC;
	struct damon_perf_report report = rep(BASE, 8);
	struct damon_perf_drain d;
	struct damon_perf_target *t;

	t = target_add(test, ctx, 0, BASE, 4);
	ctx->last_drain_ns = report.time_ns;
	KUNIT_ASSERT_EQ(test, 0, damon_perf_drain_prepare(ctx, &d));

	report.time_ns = ctx->last_drain_ns - 2 * window;
	KUNIT_EXPECT_FALSE(test, damon_perf_drain_report(&d, &report));
	KUNIT_EXPECT_EQ(test, ctx->stale_drops, 1ULL);
	KUNIT_EXPECT_EQ(test, region_at(t, BASE)->probe_hits[0], 0ULL);

	/* within one sample interval before the previous drain: fresh */
	report.time_ns = ctx->last_drain_ns - window / 2;
	KUNIT_EXPECT_TRUE(test, damon_perf_drain_report(&d, &report));
	KUNIT_EXPECT_EQ(test, ctx->stale_drops, 1ULL);
}

static void drain_should_count_every_sample_in_count_mode(struct kunit *test)
{
	struct damon_perf_ctx *ctx = ctx_alloc(test, DAMON_PERF_OPS_PADDR);
	struct damon_perf_target *t = target_add(test, ctx, 0, BASE, 4);
	struct damon_perf_drain d;
	int i;

	ctx->attrs.mode = DAMON_PERF_MODE_COUNT;
	KUNIT_ASSERT_EQ(test, 0, damon_perf_drain_prepare(ctx, &d));
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_TRUE(test, drain(&d, BASE + 16 * i, 8));
	KUNIT_EXPECT_EQ(test, region_at(t, BASE)->nr_accesses, 3U);
	KUNIT_EXPECT_EQ(test, region_at(t, BASE)->probe_hits[0], 3ULL);
}

/* Defect: nr_accesses (u32) wrapped in count mode; now it saturates. */
static void drain_should_saturate_counters(struct kunit *test)
{
	struct damon_perf_ctx *ctx = ctx_alloc(test, DAMON_PERF_OPS_PADDR);
	struct damon_perf_target *t = target_add(test, ctx, 0, BASE, 4);
	struct damon_perf_region *r = region_at(t, BASE);
	struct damon_perf_drain d;
	int i;

	ctx->attrs.mode = DAMON_PERF_MODE_COUNT;
	r->nr_accesses = UINT_MAX - 1;
	r->probe_hits[0] = U64_MAX - 1;
	KUNIT_ASSERT_EQ(test, 0, damon_perf_drain_prepare(ctx, &d));
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_TRUE(test, drain(&d, BASE, 8));
	KUNIT_EXPECT_EQ(test, r->nr_accesses, UINT_MAX);
	KUNIT_EXPECT_EQ(test, r->probe_hits[0], U64_MAX);

	/* presence mode too, one sample interval at a time */
	ctx->attrs.mode = DAMON_PERF_MODE_PRESENCE;
	for (i = 0; i < 2; i++) {
		ctx->sample_seq++;
		KUNIT_ASSERT_EQ(test, 0, damon_perf_drain_prepare(ctx, &d));
		KUNIT_EXPECT_TRUE(test, drain(&d, BASE, 8));
	}
	KUNIT_EXPECT_EQ(test, r->nr_accesses, UINT_MAX);
}

/*
 * Defect: a probe's weight was stored and reported but never read. Two
 * probes of weights 1 and 3 get the same samples, each in its region: in
 * count mode the second region's nr_accesses and events are 3 times the
 * first's; presence mode still counts one access per sample interval;
 * probe_hits stay raw; weight 0 counts as 1; everything saturates.
 */
static void drain_should_scale_credit_by_probe_weight(struct kunit *test)
{
	struct damon_perf_ctx *ctx = ctx_alloc(test, DAMON_PERF_OPS_PADDR);
	struct damon_perf_target *t = target_add(test, ctx, 0, BASE, 4);
	struct damon_perf_region *r1 = region_at(t, BASE);
	struct damon_perf_region *r3 = region_at(t, BASE + PG);
	struct damon_perf_region *r0 = region_at(t, BASE + 2 * PG);
	struct damon_perf_report report;
	struct damon_perf_drain d;
	int i;

	ctx->probes[0].attr.weight = 1;
	ctx->probes[1].attr.weight = 3;
	ctx->probes[2].attr.weight = 0;
	ctx->attrs.mode = DAMON_PERF_MODE_COUNT;
	KUNIT_ASSERT_EQ(test, 0, damon_perf_drain_prepare(ctx, &d));
	for (i = 0; i < 5; i++) {
		report = rep(BASE + 64 * i, 8);
		report.period = 10;
		KUNIT_EXPECT_TRUE(test, damon_perf_drain_report(&d, &report));
		report.paddr += PG;
		report.probe_idx = 2;
		KUNIT_EXPECT_TRUE(test, damon_perf_drain_report(&d, &report));
		report.paddr += PG;
		report.probe_idx = 3;
		KUNIT_EXPECT_TRUE(test, damon_perf_drain_report(&d, &report));
	}
	KUNIT_EXPECT_EQ(test, r1->nr_accesses, 5U);
	KUNIT_EXPECT_EQ(test, r3->nr_accesses, 15U);
	KUNIT_EXPECT_EQ(test, r0->nr_accesses, 5U);
	KUNIT_EXPECT_EQ(test, r1->events, 50ULL);
	KUNIT_EXPECT_EQ(test, r3->events, 150ULL);
	KUNIT_EXPECT_EQ(test, r0->events, 50ULL);
	KUNIT_EXPECT_EQ(test, r1->probe_hits[0], 5ULL);
	KUNIT_EXPECT_EQ(test, r3->probe_hits[1], 5ULL);

	/* presence: one access per sample interval, events still weighted */
	damon_perf_regions_reset(t);
	ctx->attrs.mode = DAMON_PERF_MODE_PRESENCE;
	KUNIT_ASSERT_EQ(test, 0, damon_perf_drain_prepare(ctx, &d));
	for (i = 0; i < 5; i++) {
		report = rep(BASE + PG + 64 * i, 8);
		report.probe_idx = 2;
		report.period = 10;
		KUNIT_EXPECT_TRUE(test, damon_perf_drain_report(&d, &report));
	}
	KUNIT_EXPECT_EQ(test, r3->nr_accesses, 1U);
	KUNIT_EXPECT_EQ(test, r3->events, 150ULL);

	/* saturating */
	damon_perf_regions_reset(t);
	ctx->attrs.mode = DAMON_PERF_MODE_COUNT;
	ctx->probes[1].attr.weight = 65535;
	r3->nr_accesses = UINT_MAX - 65534;
	KUNIT_ASSERT_EQ(test, 0, damon_perf_drain_prepare(ctx, &d));
	report = rep(BASE + PG, 8);
	report.probe_idx = 2;
	report.period = U64_MAX / 65535 + 1;
	KUNIT_EXPECT_TRUE(test, damon_perf_drain_report(&d, &report));
	KUNIT_EXPECT_EQ(test, r3->nr_accesses, UINT_MAX);
	KUNIT_EXPECT_EQ(test, r3->events, U64_MAX);
}

static void
drain_should_credit_once_per_interval_in_presence_mode(struct kunit *test)
{
	struct damon_perf_ctx *ctx = ctx_alloc(test, DAMON_PERF_OPS_PADDR);
	struct damon_perf_target *t = target_add(test, ctx, 0, BASE, 4);
	struct damon_perf_drain d;
	int i;

	KUNIT_ASSERT_EQ(test, ctx->attrs.mode, (u32)DAMON_PERF_MODE_PRESENCE);
	KUNIT_ASSERT_EQ(test, 0, damon_perf_drain_prepare(ctx, &d));
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_TRUE(test, drain(&d, BASE + 16 * i, 8));
	/* an early drain in the same sample interval credits nothing more */
	KUNIT_ASSERT_EQ(test, 0, damon_perf_drain_prepare(ctx, &d));
	KUNIT_EXPECT_TRUE(test, drain(&d, BASE, 8));
	KUNIT_EXPECT_EQ(test, region_at(t, BASE)->nr_accesses, 1U);
	KUNIT_EXPECT_EQ(test, region_at(t, BASE)->probe_hits[0], 4ULL);

	ctx->sample_seq++;	/* next sample interval */
	KUNIT_ASSERT_EQ(test, 0, damon_perf_drain_prepare(ctx, &d));
	KUNIT_EXPECT_TRUE(test, drain(&d, BASE, 8));
	KUNIT_EXPECT_TRUE(test, drain(&d, BASE + PG, 8));
	KUNIT_EXPECT_EQ(test, region_at(t, BASE)->nr_accesses, 2U);
	KUNIT_EXPECT_EQ(test, region_at(t, BASE + PG)->nr_accesses, 1U);
}

/*
 * A stream of reports for the pass tests: NCPU CPUs, each reporting into
 * its own ring in time order, over NR sample intervals of 1 ms from T0.
 */
#define EQ_NCPU		4
#define EQ_PER_CPU	200
#define EQ_S		(1000 * 1000ULL)
#define EQ_T0		(1000 * EQ_S)
#define EQ_REGIONS	16

struct eq_stream {
	struct damon_perf_report r[EQ_NCPU][EQ_PER_CPU];
	u64 times[EQ_PER_CPU];	/* scratch: off the stack */
};

/* xorshift32: the same stream on every run, in KUnit and natively */
static u32 eq_rand(u32 *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return *x;
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/*
 * Seeded: times uniform over @nr intervals (and some up to 2 intervals
 * before T0: late reports of the previous pass), addresses skewed to the
 * first regions so that a region often gets several samples in one
 * interval from several CPUs, periods 1 to 8, probes 1 and 2.
 */
static void eq_stream_fill(struct eq_stream *st, unsigned int nr, u32 seed)
{
	u64 *times = st->times;
	u32 rnd = seed;
	int c, i;

	for (c = 0; c < EQ_NCPU; c++) {
		for (i = 0; i < EQ_PER_CPU; i++)
			times[i] = EQ_T0 - 2 * EQ_S +
				   eq_rand(&rnd) % ((nr + 2) * EQ_S);
		sort(times, EQ_PER_CPU, sizeof(*times), cmp_u64, NULL);
		for (i = 0; i < EQ_PER_CPU; i++) {
			u32 x = eq_rand(&rnd);
			/* a third of them on the first region */
			unsigned int reg = (x % EQ_REGIONS) *
					   (x / EQ_REGIONS % 3) / 2;

			st->r[c][i] = rep(BASE + reg * PG + (x >> 20) % PG, 1);
			st->r[c][i].time_ns = times[i];
			st->r[c][i].cpu = c;
			st->r[c][i].period = 1 + (x >> 8) % 8;
			st->r[c][i].probe_idx = 1 + (x >> 12) % 2;
		}
	}
}

/*
 * Drain the reports of @st taken in [@from, @to) intervals after T0 (the
 * first pass also takes the late ones before T0), ring after ring, as
 * one pass of @to - @from intervals (@pass_len 0: the pass length) or
 * as one pass per interval.
 */
static void eq_pass(struct kunit *test, struct damon_perf_ctx *ctx,
		    const struct eq_stream *st, unsigned int from,
		    unsigned int to)
{
	u64 lo = from ? EQ_T0 + from * EQ_S : 0, hi = EQ_T0 + to * EQ_S;
	struct damon_perf_drain d;
	int c, i;

	ctx->sample_seq = 1 + from;
	ctx->pass_len = to - from;
	ctx->pass_start_ns = EQ_T0 + from * EQ_S;
	KUNIT_ASSERT_EQ(test, 0, damon_perf_drain_prepare(ctx, &d));
	for (c = 0; c < EQ_NCPU; c++)
		for (i = 0; i < EQ_PER_CPU; i++)
			if (st->r[c][i].time_ns >= lo &&
			    st->r[c][i].time_ns < hi)
				damon_perf_drain_report(&d, &st->r[c][i]);
}

/* Samples split mode, 1 ms sample intervals, access mode @mode. */
static void eq_attrs(struct damon_perf_ctx *ctx, u32 mode)
{
	ctx->attrs.mode = mode;
	ctx->attrs.split = DAMON_PERF_SPLIT_SAMPLES;
	ctx->attrs.sample_us = EQ_S / NSEC_PER_USEC;
}

static int cmp_sample(const void *a, const void *b)
{
	const struct damon_perf_sample *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->tag < y->tag ? -1 : x->tag > y->tag;
}

static void eq_expect_same(struct kunit *test, struct damon_perf_ctx *a,
			   struct damon_perf_ctx *b, unsigned int *max_acc,
			   u64 *max_hits)
{
	struct damon_perf_target *ta = nth_target(a, 0), *tb = nth_target(b, 0);
	struct damon_perf_region *ra, *rb;
	struct damon_perf_samples *sa = &a->samples, *sb = &b->samples;
	int i;

	rb = list_first_entry(&tb->regions, struct damon_perf_region, list);
	damon_perf_for_each_region(ra, ta) {
		KUNIT_EXPECT_EQ(test, ra->start, rb->start);
		KUNIT_EXPECT_EQ(test, ra->nr_accesses, rb->nr_accesses);
		KUNIT_EXPECT_EQ(test, ra->events, rb->events);
		KUNIT_EXPECT_EQ(test, ra->probe_hits[0], rb->probe_hits[0]);
		KUNIT_EXPECT_EQ(test, ra->probe_hits[1], rb->probe_hits[1]);
		if (ra->nr_accesses > *max_acc) {
			*max_acc = ra->nr_accesses;
			*max_hits = ra->probe_hits[0] + ra->probe_hits[1];
		}
		rb = list_next_entry(rb, list);
	}
	/* the samples kept for the split: the same, in another order */
	KUNIT_ASSERT_EQ(test, sa->nr, sb->nr);
	sort(sa->buf, sa->nr, sizeof(*sa->buf), cmp_sample, NULL);
	sort(sb->buf, sb->nr, sizeof(*sb->buf), cmp_sample, NULL);
	for (i = 0; i < sa->nr; i++) {
		KUNIT_EXPECT_EQ(test, sa->buf[i].key, sb->buf[i].key);
		KUNIT_EXPECT_EQ(test, sa->buf[i].tag, sb->buf[i].tag);
	}
}

struct eq_case {
	unsigned int nr;	/* sample intervals */
	u32 mode;
};

static const struct eq_case eq_cases[] = {
	{ 20, DAMON_PERF_MODE_PRESENCE },
	{ 64, DAMON_PERF_MODE_PRESENCE },
	{ 150, DAMON_PERF_MODE_PRESENCE },
	{ 150, DAMON_PERF_MODE_COUNT },
	{ 1, DAMON_PERF_MODE_PRESENCE },
};

static void eq_case_desc(const struct eq_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%u intervals, %s mode", c->nr,
		 c->mode == DAMON_PERF_MODE_COUNT ? "count" : "presence");
}

KUNIT_ARRAY_PARAM(eq, eq_cases, eq_case_desc);

/*
 * Timestamp crediting: the same stream of reports credited by a drain at
 * the end of every sample interval (the sample_wakeups kdamond) and by
 * drains of passes of up to DAMON_PERF_PASS_MAX intervals, each report
 * to the interval its timestamp falls in, gives every region the same
 * nr_accesses, events and probe hits, and the split the same samples
 * (target, page, interval, probe), though a pass takes one CPU's reports
 * of all its intervals before the next CPU's. Late reports (before the
 * first pass) go to the first interval in both.
 */
static void drain_should_credit_passes_as_interval_drains(struct kunit *test)
{
	const struct eq_case *c = test->param_value;
	struct damon_perf_ctx *a = ctx_alloc(test, DAMON_PERF_OPS_PADDR);
	struct damon_perf_ctx *b = ctx_alloc(test, DAMON_PERF_OPS_PADDR);
	struct eq_stream *st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);
	unsigned int k, max_acc = 0;
	u64 max_hits = 0;

	KUNIT_ASSERT_NOT_NULL(test, st);
	eq_attrs(a, c->mode);
	eq_attrs(b, c->mode);
	target_add(test, a, 0, BASE, EQ_REGIONS);
	target_add(test, b, 0, BASE, EQ_REGIONS);
	eq_stream_fill(st, c->nr, 0xda0 + c->nr);
	for (k = 0; k < c->nr; k++)
		eq_pass(test, a, st, k, k + 1);
	for (k = 0; k < c->nr; k += DAMON_PERF_PASS_MAX)
		eq_pass(test, b, st, k, min(c->nr, k + DAMON_PERF_PASS_MAX));
	eq_expect_same(test, a, b, &max_acc, &max_hits);
	/* every report was credited, and kept for the split */
	KUNIT_EXPECT_EQ(test, a->samples.nr, (u32)(EQ_NCPU * EQ_PER_CPU));
	/*
	 * Presence mode: at most one access per interval, though the
	 * busiest region had samples enough to count more.
	 */
	if (c->mode == DAMON_PERF_MODE_PRESENCE) {
		KUNIT_EXPECT_LE(test, max_acc, c->nr);
		KUNIT_EXPECT_GT(test, max_hits, (u64)max_acc);
	}
	kunit_info(test, "busiest region: nr_accesses %u of %u intervals, %llu samples\n",
		   max_acc, c->nr, max_hits);
}

static const u32 replay_modes[] = {
	DAMON_PERF_MODE_PRESENCE,
	DAMON_PERF_MODE_COUNT,
};

static void replay_mode_desc(const u32 *mode, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s mode",
		 *mode == DAMON_PERF_MODE_COUNT ? "count" : "presence");
}

KUNIT_ARRAY_PARAM(replay, replay_modes, replay_mode_desc);

/*
 * The same on a real stream: replay_stream.h, page faults recorded as the
 * kdamond drained them, pass by pass (tests/vm/kdamond_replay.sh, which
 * replays a fresh recording the same way), replayed (tests/replay/core.c)
 * through a drain per sample interval and a drain per recorded pass. Both
 * give every region the same nr_accesses, events and probe hits and the
 * split the same samples, and credit as many reports as the live kdamond
 * did, reports taken before the first pass and after a pass's end among
 * them.
 */
static void drain_should_replay_recorded_stream_both_ways(struct kunit *test)
{
	const u32 *mode = test->param_value;
	struct damon_perf_replay_result *res;

	res = kunit_kzalloc(test, sizeof(*res), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, res);
	KUNIT_ASSERT_EQ(test, 0,
			damon_perf_replay_run(&replay_stream, *mode, res));
	KUNIT_EXPECT_EQ_MSG(test, res->mismatches, 0U, "first: %s",
			    res->first);
	KUNIT_EXPECT_EQ(test, res->digest[0], res->digest[1]);
	KUNIT_EXPECT_EQ(test, res->reports, replay_stream.nr_reports);
	KUNIT_EXPECT_EQ(test, res->credited[0], (u32)REPLAY_MATCH);
	KUNIT_EXPECT_EQ(test, res->credited[1], (u32)REPLAY_MATCH);
	KUNIT_EXPECT_EQ(test, res->samples[0], (u64)REPLAY_MATCH);
	KUNIT_EXPECT_GT(test, res->late_first, 0U);
	KUNIT_EXPECT_GT(test, res->straddling, 0U);
	KUNIT_EXPECT_GT(test, res->multi, 0U);
	kunit_info(test, "%u reports, %u passes, %llu intervals, %u late, %u straddling, %u regions counted more than once, digest %016llx\n",
		   res->reports, res->passes, res->intervals,
		   res->late_first + res->late, res->straddling, res->multi,
		   res->digest[0]);
}

static void drain_should_count_probe_hits_per_probe(struct kunit *test)
{
	struct damon_perf_ctx *ctx = ctx_alloc(test, DAMON_PERF_OPS_PADDR);
	struct damon_perf_target *t = target_add(test, ctx, 0, BASE, 4);
	static const u8 idx[] = { 1, 2, 3, 2, 0, 4 };
	struct damon_perf_report report = rep(BASE, 8);
	struct damon_perf_region *r = region_at(t, BASE);
	struct damon_perf_drain d;
	int i;

	KUNIT_ASSERT_EQ(test, 0, damon_perf_drain_prepare(ctx, &d));
	for (i = 0; i < ARRAY_SIZE(idx); i++) {
		report.probe_idx = idx[i];
		KUNIT_EXPECT_EQ(test, damon_perf_drain_report(&d, &report),
				idx[i] >= 1 && idx[i] <= 3);
	}
	KUNIT_EXPECT_EQ(test, r->probe_hits[0], 1ULL);
	KUNIT_EXPECT_EQ(test, r->probe_hits[1], 2ULL);
	KUNIT_EXPECT_EQ(test, r->probe_hits[2], 1ULL);
	KUNIT_EXPECT_EQ(test, r->nr_accesses, 1U);	/* presence */
}

static void
drain_should_grow_snapshot_only_at_high_water_mark(struct kunit *test)
{
	struct damon_perf_ctx *ctx = ctx_alloc(test, DAMON_PERF_OPS_PADDR);
	struct damon_perf_target *t = target_add(test, ctx, 0, BASE, 8);
	struct damon_perf_drain d;
	void *snap;

	KUNIT_ASSERT_EQ(test, 0, damon_perf_drain_prepare(ctx, &d));
	snap = ctx->drain_snap;
	KUNIT_EXPECT_EQ(test, ctx->drain_snap_cap, (size_t)8);
	damon_perf_region_destroy(t, list_last_entry(&t->regions,
						     struct damon_perf_region,
						     list));
	KUNIT_ASSERT_EQ(test, 0, damon_perf_drain_prepare(ctx, &d));
	KUNIT_EXPECT_PTR_EQ(test, ctx->drain_snap, snap);
	KUNIT_EXPECT_EQ(test, ctx->drain_snap_cap, (size_t)8);
	target_add(test, ctx, 0, BASE + 64 * PG, 8);
	KUNIT_ASSERT_EQ(test, 0, damon_perf_drain_prepare(ctx, &d));
	KUNIT_EXPECT_EQ(test, ctx->drain_snap_cap, (size_t)15);
	KUNIT_EXPECT_EQ(test, d.nr_ents, 15U);
}

/*
 * Defect: the snapshot was one krealloc_array() of every region, so the
 * largest context validation accepts (DAMON_PERF_MAX_TARGETS paddr ranges
 * of DAMON_PERF_MAX_REGIONS regions: 160000 entries, 5 MiB, beyond
 * KMALLOC_MAX_SIZE) got a WARN and -ENOMEM on every pass.
 */
static void drain_should_snapshot_the_largest_context(struct kunit *test)
{
	struct damon_perf_ctx *ctx = ctx_alloc(test, DAMON_PERF_OPS_PADDR);
	const unsigned long span = DAMON_PERF_MAX_REGIONS * PG;
	struct damon_perf_target *t = NULL;
	struct damon_perf_drain d;
	unsigned long last;
	int i;

	for (i = 0; i < DAMON_PERF_MAX_TARGETS; i++) {
		t = target_add(test, ctx, 0, BASE + i * span,
			       DAMON_PERF_MAX_REGIONS);
		/* 10000 allocations a target under KASAN and lockdep */
		cond_resched();
	}
	KUNIT_ASSERT_EQ(test, 0, damon_perf_drain_prepare(ctx, &d));
	KUNIT_EXPECT_EQ(test, d.nr_ents, (unsigned int)(DAMON_PERF_MAX_TARGETS *
						       DAMON_PERF_MAX_REGIONS));
	KUNIT_EXPECT_EQ(test, d.nr_segs, (unsigned int)DAMON_PERF_MAX_TARGETS);
	last = BASE + DAMON_PERF_MAX_TARGETS * span - PG;
	KUNIT_EXPECT_TRUE(test, drain(&d, BASE, 8));
	KUNIT_EXPECT_TRUE(test, drain(&d, last, 8));
	KUNIT_EXPECT_EQ(test, region_at(t, last)->nr_accesses, 1U);
	KUNIT_EXPECT_FALSE(test, drain(&d, last + PG, 8));
}

/* Runs the case with a private, zeroed set of observe counters. */
struct private_stats {
	struct damon_perf_stats_pcpu __percpu *set;
	struct damon_perf_stats_pcpu __percpu *saved;
};

static int stats_res_init(struct kunit_resource *res, void *data)
{
	struct private_stats *p = data;

	p->set = damon_perf_stats_pcpu_alloc();
	if (!p->set)
		return -ENOMEM;
	p->saved = damon_perf_stats_swap(p->set);
	res->data = p;
	return 0;
}

static void stats_res_free(struct kunit_resource *res)
{
	struct private_stats *p = res->data;

	damon_perf_stats_swap(p->saved);
	damon_perf_stats_pcpu_free(p->set);
}

static void use_private_stats(struct kunit *test)
{
	struct private_stats *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_NOT_NULL(test, kunit_alloc_resource(test, stats_res_init,
							 stats_res_free,
							 GFP_KERNEL, p));
}

static void rings_res_free(struct kunit_resource *res)
{
	damon_perf_rings_free(res->data);
}

/* Rings of @size entries for @ctx, freed with the test. */
static void ctx_rings(struct kunit *test, struct damon_perf_ctx *ctx,
		      unsigned int size)
{
	KUNIT_ASSERT_EQ(test, 0, damon_perf_rings_alloc(&ctx->rings, size,
							NULL, NULL));
	KUNIT_ASSERT_NOT_NULL(test, kunit_alloc_resource(test, NULL,
							 rings_res_free,
							 GFP_KERNEL,
							 &ctx->rings));
}

static unsigned long total_stat(enum damon_perf_stat_idx idx)
{
	struct damon_perf_stats st;

	damon_perf_stats_aggregate(&st);
	return damon_perf_stats_get(&st, idx);
}

/*
 * Defect: a pass that could not allocate its snapshot left the reports in
 * the rings ("a skipped pass heals"), but no later pass could allocate
 * either: the rings filled, and the stop freed them with their reports
 * counted nowhere. A failed pass must consume its reports and count each
 * as miss_nomem, so dequeue == match + miss_* still holds.
 */
static void
drain_should_count_reports_of_a_pass_without_memory(struct kunit *test)
{
	struct damon_perf_ctx *ctx = ctx_alloc(test, DAMON_PERF_OPS_PADDR);
	struct damon_perf_target *t = target_add(test, ctx, 0, BASE, 4);
	struct damon_perf_report report = rep(BASE, 8);
	unsigned int real = t->nr_regions;
	int i;

	use_private_stats(test);
	ctx_rings(test, ctx, 16);
	preempt_disable();
	report.cpu = smp_processor_id();
	for (i = 0; i < 5; i++)
		KUNIT_EXPECT_TRUE(test, damon_perf_report_access(&ctx->rings,
								 &report));
	preempt_enable();
	/* a region count no allocation can hold: the snapshot fails */
	t->nr_regions = UINT_MAX;
	KUNIT_EXPECT_EQ(test, damon_perf_drain_rings(ctx), 5U);
	t->nr_regions = real;
	KUNIT_EXPECT_FALSE(test, damon_perf_rings_pending(&ctx->rings));
	KUNIT_EXPECT_EQ(test, total_stat(DAMON_PERF_STAT_dequeue), 5UL);
	KUNIT_EXPECT_EQ(test, total_stat(DAMON_PERF_STAT_miss_nomem), 5UL);
	KUNIT_EXPECT_EQ(test, total_stat(DAMON_PERF_STAT_match), 0UL);
	KUNIT_EXPECT_EQ(test, region_at(t, BASE)->nr_accesses, 0U);
	/* the next pass has memory again and credits */
	preempt_disable();
	report.cpu = smp_processor_id();
	report.time_ns = damon_perf_clock_ns();
	KUNIT_EXPECT_TRUE(test, damon_perf_report_access(&ctx->rings,
							 &report));
	preempt_enable();
	KUNIT_EXPECT_EQ(test, damon_perf_drain_rings(ctx), 1U);
	KUNIT_EXPECT_EQ(test, total_stat(DAMON_PERF_STAT_match), 1UL);
	KUNIT_EXPECT_EQ(test, region_at(t, BASE)->nr_accesses, 1U);
}

/* Samples mode keeps (target position, page) of every credited sample. */
static void drain_should_keep_sample_keys_in_samples_mode(struct kunit *test)
{
	struct damon_perf_drain d;
	struct damon_perf_ctx *ctx = two_ranges(test, &d);
	struct damon_perf_samples *s = &ctx->samples;

	KUNIT_ASSERT_EQ(test, s->cap, DAMON_PERF_SPLIT_SAMPLES_MIN);
	KUNIT_EXPECT_TRUE(test, drain(&d, BASE + 3 * PG + 100, 8));
	KUNIT_EXPECT_TRUE(test, drain(&d, BASE + 25 * PG, 8));
	KUNIT_EXPECT_FALSE(test, drain(&d, BASE + 15 * PG, 8));	/* gap */
	KUNIT_ASSERT_EQ(test, s->nr, 2U);
	KUNIT_EXPECT_EQ(test, s->seen, 2U);
	KUNIT_EXPECT_EQ(test, damon_perf_sample_pos(s->buf[0].key), 0U);
	KUNIT_EXPECT_EQ(test, damon_perf_sample_page(s->buf[0].key),
			(BASE + 3 * PG) >> PAGE_SHIFT);
	KUNIT_EXPECT_EQ(test, damon_perf_sample_pos(s->buf[1].key), 1U);
	KUNIT_EXPECT_EQ(test, damon_perf_sample_page(s->buf[1].key),
			(BASE + 25 * PG) >> PAGE_SHIFT);
	KUNIT_EXPECT_EQ(test, s->target_seen[0], 1U);
	KUNIT_EXPECT_EQ(test, s->target_seen[1], 1U);
	damon_perf_drain_samples_reset(ctx);
	KUNIT_EXPECT_EQ(test, s->target_seen[0], 0U);
}

/* Random mode: no buffer, nothing kept. */
static void drain_should_not_keep_samples_in_random_mode(struct kunit *test)
{
	struct damon_perf_ctx *ctx = ctx_alloc(test, DAMON_PERF_OPS_PADDR);
	struct damon_perf_drain d;

	ctx->attrs.split = DAMON_PERF_SPLIT_RANDOM;
	target_add(test, ctx, 0, BASE, 10);
	KUNIT_ASSERT_EQ(test, 0, damon_perf_drain_prepare(ctx, &d));
	KUNIT_EXPECT_TRUE(test, drain(&d, BASE, 8));
	KUNIT_EXPECT_NULL(test, ctx->samples.buf);
	KUNIT_EXPECT_EQ(test, ctx->samples.nr, 0U);
	KUNIT_EXPECT_EQ(test, ctx->samples.seen, 0U);
}

/* vaddr keys name the target's list position, dead targets counted. */
static void
drain_should_key_vaddr_samples_by_target_position(struct kunit *test)
{
	struct damon_perf_ctx *ctx = ctx_alloc(test, DAMON_PERF_OPS_VADDR);
	struct damon_perf_report report = rep(BASE + PG, 8);
	struct damon_perf_drain d;

	target_add(test, ctx, 100, BASE, 4)->dead = true;
	target_add(test, ctx, 200, BASE, 4);
	KUNIT_ASSERT_EQ(test, 0, damon_perf_drain_prepare(ctx, &d));
	report.tgid = 200;
	KUNIT_EXPECT_TRUE(test, damon_perf_drain_report(&d, &report));
	KUNIT_ASSERT_EQ(test, ctx->samples.nr, 1U);
	KUNIT_EXPECT_EQ(test, damon_perf_sample_pos(ctx->samples.buf[0].key),
			1U);
}

/*
 * The buffer never grows inside a pass: beyond it a uniform subset is
 * kept. It grows before a pass at half full, or for the next aggregation
 * after an overflow, up to DAMON_PERF_MAX_SPLIT_SAMPLES.
 */
static void
drain_should_bound_samples_and_grow_at_high_water_mark(struct kunit *test)
{
	struct damon_perf_ctx *ctx = ctx_alloc(test, DAMON_PERF_OPS_PADDR);
	struct damon_perf_samples *s = &ctx->samples;
	const u32 min = DAMON_PERF_SPLIT_SAMPLES_MIN;
	struct damon_perf_drain d;
	unsigned int i, low = 0;
	struct damon_perf_sample *keys;

	target_add(test, ctx, 0, BASE, 64);
	KUNIT_ASSERT_EQ(test, 0, damon_perf_drain_prepare(ctx, &d));
	keys = s->buf;
	for (i = 0; i < 4 * min; i++)
		drain(&d, BASE + (i % 64) * PG, 8);
	KUNIT_EXPECT_PTR_EQ(test, s->buf, keys);
	KUNIT_EXPECT_EQ(test, s->cap, min);
	KUNIT_EXPECT_EQ(test, s->nr, min);
	KUNIT_EXPECT_EQ(test, s->seen, 4 * min);
	for (i = 0; i < s->nr; i++)
		low += damon_perf_sample_page(s->buf[i].key) <
		       ((BASE + 32 * PG) >> PAGE_SHIFT);
	/* a uniform subset: about half the keys in the lower half */
	KUNIT_EXPECT_GT(test, low, min / 4);
	KUNIT_EXPECT_LT(test, low, 3 * min / 4);
	/* subsampling started: the next pass keeps the buffer */
	KUNIT_ASSERT_EQ(test, 0, damon_perf_drain_prepare(ctx, &d));
	KUNIT_EXPECT_EQ(test, s->cap, min);
	damon_perf_drain_samples_reset(ctx);
	KUNIT_EXPECT_EQ(test, s->cap, 2 * min);
	KUNIT_EXPECT_EQ(test, s->nr, 0U);
	KUNIT_EXPECT_EQ(test, s->seen, 0U);
	/* half full and complete: grows before the next pass, keeping keys */
	KUNIT_ASSERT_EQ(test, 0, damon_perf_drain_prepare(ctx, &d));
	for (i = 0; i < min; i++)
		drain(&d, BASE + 5 * PG, 8);
	KUNIT_ASSERT_EQ(test, 0, damon_perf_drain_prepare(ctx, &d));
	KUNIT_EXPECT_EQ(test, s->cap, 4 * min);
	KUNIT_EXPECT_EQ(test, s->nr, min);
	KUNIT_EXPECT_EQ(test, damon_perf_sample_page(s->buf[min - 1].key),
			(BASE + 5 * PG) >> PAGE_SHIFT);
	/* never beyond the budget */
	for (i = 0; i < 16; i++) {
		s->seen = U32_MAX;
		damon_perf_drain_samples_reset(ctx);
	}
	KUNIT_EXPECT_EQ(test, s->cap, DAMON_PERF_MAX_SPLIT_SAMPLES);
}

/* Expect the sampled pages of @r to be the runs of pages @...: first, end. */
static void expect_runs(struct kunit *test, const struct damon_perf_region *r,
			unsigned int nr, ...)
{
	unsigned int i;
	va_list ap;

	KUNIT_ASSERT_EQ(test, r->sampled.nr, nr);
	va_start(ap, nr);
	for (i = 0; i < nr; i++) {
		unsigned long a = va_arg(ap, unsigned long);
		unsigned long b = va_arg(ap, unsigned long);

		KUNIT_EXPECT_EQ(test, r->sampled.run[i].start, BASE + a * PG);
		KUNIT_EXPECT_EQ(test, r->sampled.run[i].end, BASE + b * PG);
	}
	va_end(ap);
}

/*
 * Defect: the buffer grew before a pass only at half full, so a burst in
 * one pass (a NUMA scan's hinting faults on a whole range at once) passed
 * it, and the uniform subset kept from there on lost the lone sample of
 * a wide region three times in four, which its nr_accesses still
 * counted: the cut left the region whole, hot for one page (7.2: 4,096
 * cold pages promoted with 2,048 hot). Before a pass the buffer grows to
 * hold what the rings hold, and the lone page is cut out.
 */
static void drain_should_keep_every_sample_of_a_burst(struct kunit *test)
{
	struct damon_perf_ctx *ctx = ctx_alloc(test, DAMON_PERF_OPS_PADDR);
	struct damon_perf_samples *s = &ctx->samples;
	const u32 burst = 4 * DAMON_PERF_SPLIT_SAMPLES_MIN;
	struct damon_perf_report report = rep(BASE, 8);
	struct damon_perf_target *t;
	u32 i;

	use_private_stats(test);
	t = target_add(test, ctx, 0, BASE, 1);
	damon_perf_regions_free(t);
	KUNIT_ASSERT_EQ(test, 0,
			damon_perf_regions_split_evenly(t, BASE,
							BASE + 16384 * PG, 2));
	ctx_rings(test, ctx, 2 * burst);
	preempt_disable();
	report.cpu = smp_processor_id();
	for (i = 0; i < burst; i++) {
		/* all on 256 pages of the first region, one on the second */
		report.paddr = BASE + (i + 1 < burst ? i % 256 : 8192) * PG;
		KUNIT_EXPECT_TRUE(test, damon_perf_report_access(&ctx->rings,
								 &report));
	}
	preempt_enable();
	KUNIT_EXPECT_EQ(test, damon_perf_drain_rings(ctx), burst);
	KUNIT_EXPECT_EQ(test, s->seen, burst);
	KUNIT_EXPECT_EQ(test, s->nr, burst);
	KUNIT_EXPECT_GE(test, s->cap, 2 * burst);
	KUNIT_EXPECT_EQ(test, region_at(t, BASE + 9000 * PG)->nr_accesses, 1U);
	damon_perf_regions_cut_ctx(ctx);
	/* the second region's lone page is cut out: the rest is not hot */
	KUNIT_EXPECT_EQ(test, region_at(t, BASE + 8192 * PG)->nr_accesses, 1U);
	KUNIT_EXPECT_EQ(test, region_at(t, BASE + 9000 * PG)->nr_accesses, 0U);
	KUNIT_EXPECT_EQ(test, region_at(t, BASE + 9000 * PG)->end,
			BASE + 16384 * PG);
	/* the piece without samples has no run, the lone page its own */
	KUNIT_EXPECT_EQ(test, region_at(t, BASE + 9000 * PG)->sampled.nr, 0U);
	expect_runs(test, region_at(t, BASE + 8192 * PG), 1, 8192UL, 8193UL);
}

/*
 * Every credited sample is a sampled page, presence mode's repeats in one
 * interval too: pages next to each other make one run, and a sample that
 * would make more than DAMON_PERF_SAMPLED_RUNS_MAX runs joins the two
 * closest. A cut clips the runs to each piece (none for a piece beyond
 * them), a merge joins them, a reset clears them. The runs are what
 * migrate_hot moves (damonctl schemes): no page outside them had a
 * sample, and a wide gap between two samples is not taken along.
 */
static void drain_should_keep_the_runs_of_sampled_pages(struct kunit *test)
{
	struct damon_perf_ctx *ctx = ctx_alloc(test, DAMON_PERF_OPS_PADDR);
	struct damon_perf_target *t = target_add(test, ctx, 0, BASE, 1);
	struct damon_perf_region *r, *n, *n2;
	struct damon_perf_drain d;

	BUILD_BUG_ON(DAMON_PERF_SAMPLED_RUNS_MAX != 4);
	damon_perf_regions_free(t);
	KUNIT_ASSERT_EQ(test, 0,
			damon_perf_regions_split_evenly(t, BASE, BASE + 64 * PG,
							1));
	KUNIT_ASSERT_EQ(test, 0, damon_perf_drain_prepare(ctx, &d));
	r = region_at(t, BASE);
	expect_runs(test, r, 0);
	KUNIT_EXPECT_TRUE(test, drain(&d, BASE + 20 * PG + 100, 8));
	expect_runs(test, r, 1, 20UL, 21UL);
	/* a repeat, then the next page: one run */
	KUNIT_EXPECT_TRUE(test, drain(&d, BASE + 20 * PG + 8, 8));
	KUNIT_EXPECT_TRUE(test, drain(&d, BASE + 21 * PG, 8));
	expect_runs(test, r, 1, 20UL, 22UL);
	KUNIT_EXPECT_TRUE(test, drain(&d, BASE + 40 * PG, 8));
	KUNIT_EXPECT_TRUE(test, drain(&d, BASE + 10 * PG + 8, 8));
	expect_runs(test, r, 3, 10UL, 11UL, 20UL, 22UL, 40UL, 41UL);
	/* the last page's sample ends its run at the region's end */
	KUNIT_EXPECT_TRUE(test, drain(&d, BASE + 64 * PG - 8, 8));
	expect_runs(test, r, 4, 10UL, 11UL, 20UL, 22UL, 40UL, 41UL, 63UL,
		    64UL);
	/* a fifth run: the two with the smallest gap (40 and 42) join */
	KUNIT_EXPECT_TRUE(test, drain(&d, BASE + 42 * PG, 8));
	expect_runs(test, r, 4, 10UL, 11UL, 20UL, 22UL, 40UL, 43UL, 63UL,
		    64UL);
	/* one before them all: it joins the closest, 10 (gap 8 < 9) */
	KUNIT_EXPECT_TRUE(test, drain(&d, BASE + 1 * PG, 8));
	expect_runs(test, r, 4, 1UL, 11UL, 20UL, 22UL, 40UL, 43UL, 63UL, 64UL);
	/* a sample next to a run widens it */
	KUNIT_EXPECT_TRUE(test, drain(&d, BASE + 43 * PG, 8));
	expect_runs(test, r, 4, 1UL, 11UL, 20UL, 22UL, 40UL, 44UL, 63UL, 64UL);
	n = damon_perf_region_split_at(t, r, BASE + 30 * PG);
	KUNIT_ASSERT_NOT_NULL(test, n);
	expect_runs(test, r, 2, 1UL, 11UL, 20UL, 22UL);
	expect_runs(test, n, 2, 40UL, 44UL, 63UL, 64UL);
	/* a cut inside a run clips it on both sides */
	n2 = damon_perf_region_split_at(t, r, BASE + 21 * PG);
	KUNIT_ASSERT_NOT_NULL(test, n2);
	expect_runs(test, r, 2, 1UL, 11UL, 20UL, 21UL);
	expect_runs(test, n2, 1, 21UL, 22UL);
	damon_perf_regions_merge(t, UINT_MAX, ULONG_MAX);
	r = region_at(t, BASE);
	KUNIT_EXPECT_EQ(test, r->end, BASE + 64 * PG);
	expect_runs(test, r, 4, 1UL, 11UL, 20UL, 22UL, 40UL, 44UL, 63UL, 64UL);
	damon_perf_regions_reset(t);
	expect_runs(test, r, 0);
}

/*
 * A start sizes the buffer for two passes of full rings, so that the
 * kdamond rarely allocates (each allocation may sleep): defect, a
 * kdamond woken once an aggregation slept 2.09 and 2.61 times an
 * aggregation where it had slept 1.77, growing the buffer itself.
 */
static void drain_should_presize_samples_for_the_rings(struct kunit *test)
{
	struct damon_perf_ctx *ctx = ctx_alloc(test, DAMON_PERF_OPS_PADDR);
	struct damon_perf_samples *s = &ctx->samples;
	u64 want = 2ULL * num_online_cpus() * 256;
	struct damon_perf_drain d;
	u32 cap = DAMON_PERF_SPLIT_SAMPLES_MIN;

	while (cap < want && cap < DAMON_PERF_MAX_SPLIT_SAMPLES)
		cap *= 2;
	damon_perf_drain_samples_presize(ctx, 256);
	KUNIT_EXPECT_EQ(test, s->cap, cap);
	KUNIT_EXPECT_NOT_NULL(test, s->buf);
	KUNIT_EXPECT_NOT_NULL(test, s->tmp);
	/* kept by the next pass and a smaller ring, never shrunk */
	target_add(test, ctx, 0, BASE, 4);
	KUNIT_ASSERT_EQ(test, 0, damon_perf_drain_prepare(ctx, &d));
	damon_perf_drain_samples_presize(ctx, 16);
	KUNIT_EXPECT_EQ(test, s->cap, cap);
	/* huge rings: at most the budget */
	damon_perf_drain_samples_presize(ctx, 1U << 20);
	KUNIT_EXPECT_EQ(test, s->cap, DAMON_PERF_MAX_SPLIT_SAMPLES);
}

/*
 * The kept samples in random order come out of the cut sorted by key,
 * the same samples (the radix sort through the buffer's scratch).
 */
static void drain_then_split_should_sort_the_samples(struct kunit *test)
{
	struct damon_perf_ctx *ctx = ctx_alloc(test, DAMON_PERF_OPS_PADDR);
	struct damon_perf_samples *s = &ctx->samples;
	struct damon_perf_target *t;
	struct damon_perf_drain d;
	u64 sum = 0, xor = 0;
	struct rnd_state rnd;
	unsigned int i;

	t = target_add(test, ctx, 0, BASE, 1);
	damon_perf_regions_free(t);
	KUNIT_ASSERT_EQ(test, 0,
			damon_perf_regions_split_evenly(t, BASE,
							BASE + 65536 * PG, 10));
	KUNIT_ASSERT_EQ(test, 0, damon_perf_drain_prepare(ctx, &d));
	prandom_seed_state(&rnd, 3);
	for (i = 0; i < 800; i++)
		drain(&d, BASE + (prandom_u32_state(&rnd) % 65536) * PG, 8);
	KUNIT_ASSERT_EQ(test, s->nr, 800U);
	KUNIT_ASSERT_NOT_NULL(test, s->tmp);
	for (i = 0; i < s->nr; i++) {
		sum += s->buf[i].key;
		xor ^= s->buf[i].key;
	}
	damon_perf_regions_cut_ctx(ctx);
	for (i = 1; i < s->nr; i++)
		KUNIT_EXPECT_LE(test, s->buf[i - 1].key, s->buf[i].key);
	for (i = 0; i < s->nr; i++) {
		sum -= s->buf[i].key;
		xor ^= s->buf[i].key;
	}
	KUNIT_EXPECT_EQ(test, sum, 0ULL);
	KUNIT_EXPECT_EQ(test, xor, 0ULL);
}

/* A synthetic stream: one aggregation isolates a hot range. */
static void drain_then_split_should_isolate_hot_range(struct kunit *test)
{
	struct damon_perf_ctx *ctx = ctx_alloc(test, DAMON_PERF_OPS_PADDR);
	struct damon_perf_target *t;
	struct damon_perf_drain d;
	struct damon_perf_region *r;
	unsigned long a, hs = BASE + 850 * PG, he = BASE + 1106 * PG;

	/* 10 regions of 409 pages and more; [850, 1106) inside the third */
	t = target_add(test, ctx, 0, BASE, 1);
	damon_perf_regions_free(t);
	KUNIT_ASSERT_EQ(test, 0,
			damon_perf_regions_split_evenly(t, BASE,
							BASE + 4096 * PG, 10));
	KUNIT_ASSERT_EQ(test, 0, damon_perf_drain_prepare(ctx, &d));
	for (a = hs; a < he; a += PG) {
		drain(&d, a, 8);
		drain(&d, a + 64, 8);
	}
	drain(&d, BASE + 3000 * PG, 8);		/* one stray sample */
	damon_perf_regions_cut_ctx(ctx);
	KUNIT_EXPECT_EQ(test, t->nr_regions, 12U);
	r = region_at(t, hs);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->start, hs);
	KUNIT_EXPECT_EQ(test, r->end, he);
	/* one sample interval: presence counts 1, the raw hits all there */
	KUNIT_EXPECT_EQ(test, r->nr_accesses, 1U);
	KUNIT_EXPECT_EQ(test, r->probe_hits[0], 512ULL);
	KUNIT_EXPECT_EQ(test, region_at(t, hs - PG)->nr_accesses, 0U);
	KUNIT_EXPECT_EQ(test, region_at(t, he)->probe_hits[0], 0ULL);
	damon_perf_regions_reset(t);
	damon_perf_regions_split_ctx(ctx);
	KUNIT_EXPECT_EQ(test, t->nr_regions, 12U);
	KUNIT_EXPECT_EQ(test, ctx->samples.nr, 0U);
}

/* Bytes of @snap's regions with accesses, and of those inside [hs, he). */
static void snap_hot(const struct damon_perf_snapshot *snap, unsigned long hs,
		     unsigned long he, u64 *sel, u64 *hit)
{
	u32 i;

	*sel = 0;
	*hit = 0;
	for (i = 0; i < snap->nr_regions; i++) {
		const struct damon_perf_snap_region *r = &snap->regions[i];

		if (!r->nr_accesses)
			continue;
		*sel += r->end - r->start;
		if (r->end > hs && r->start < he)
			*hit += min_t(u64, r->end, he) -
				max_t(u64, r->start, hs);
	}
}

/*
 * A bursty stream (the sample floor, kdamond.c and regions.c): bursts of
 * samples on a hot range, with gaps of one to three aggregations holding
 * no sample or a trickle, then a gap longer than max_carried. After the
 * second aggregation no empty hot set is published while the answer may
 * be carried: a gap carries the last answer (its regions, age growing,
 * the gap's own samples and the floor), the measurement goes on, and the
 * burst that ends the gap is published over every interval since; once
 * max_carried runs out the measurement is published as low.
 */
static void
drain_then_aggregate_should_carry_a_bursty_stream(struct kunit *test)
{
	/* samples per aggregation: 0 a gap, 2 a trickle, 256 a burst */
	static const unsigned int stream[] = {
		256, 256, 0, 0, 256, 2, 0, 0, 256, 0, 256,
		0, 0, 0, 0, 0, 0,
	};
	struct damon_perf_ctx *ctx = ctx_alloc(test, DAMON_PERF_OPS_PADDR);
	unsigned long hs = BASE + 850 * PG, he = BASE + 1106 * PG;
	struct damon_perf_snapshot *snap, *met = NULL;
	u64 sel, hit, pending = 0;
	struct damon_perf_target *t;
	struct damon_perf_drain d;
	unsigned int k, i, gap = 0;

	spin_lock_init(&ctx->snap_lock);
	ctx->max_carried = 4;
	t = target_add(test, ctx, 0, BASE, 1);
	damon_perf_regions_free(t);
	KUNIT_ASSERT_EQ(test, 0,
			damon_perf_regions_split_evenly(t, BASE,
							BASE + 4096 * PG, 10));
	for (k = 0; k < ARRAY_SIZE(stream); k++) {
		KUNIT_ASSERT_EQ(test, 0, damon_perf_drain_prepare(ctx, &d));
		for (i = 0; i < stream[k]; i++)
			KUNIT_ASSERT_TRUE(test,
					  drain(&d, hs + (i * 37 % 256) * PG,
						8));
		pending += stream[k];
		/* the kdamond's clock: a carried measurement goes on */
		damon_perf_kdamond_aggregate(ctx,
					     (gap + 1) * 100 * NSEC_PER_MSEC);
		ctx->sample_seq += 20;
		snap = damon_perf_snapshot_get(ctx);
		KUNIT_ASSERT_NOT_NULL(test, snap);
		KUNIT_EXPECT_EQ(test, snap->seq, (u64)k + 1);
		snap_hot(snap, hs, he, &sel, &hit);
		if (stream[k] == 256 || !met) {
			/* a burst: measured, over the gap before it */
			KUNIT_EXPECT_EQ(test, snap->confidence,
					(u32)DAMON_PERF_CONFIDENCE_MET);
			KUNIT_EXPECT_EQ(test, snap->carried, 0U);
			KUNIT_EXPECT_EQ(test, snap->windows, gap + 1);
			KUNIT_EXPECT_EQ(test, snap->nr_samples, pending);
			KUNIT_EXPECT_EQ(test, snap->aggr_us,
					(gap + 1) * 100000ULL);
			KUNIT_EXPECT_EQ(test, hit, (u64)(he - hs));
			KUNIT_EXPECT_EQ(test, sel, hit);
			damon_perf_snapshot_put(met);
			met = snap;
			gap = 0;
			pending = 0;
			continue;
		}
		gap++;
		KUNIT_EXPECT_EQ(test, snap->nr_samples, pending);
		if (gap <= ctx->max_carried) {
			/* carried: the last answer, not an empty one */
			KUNIT_EXPECT_EQ(test, snap->confidence,
					(u32)DAMON_PERF_CONFIDENCE_CARRIED);
			KUNIT_EXPECT_EQ(test, snap->carried, gap);
			KUNIT_EXPECT_GE(test, snap->floor, 1ULL);
			KUNIT_EXPECT_LT(test, snap->nr_samples, snap->floor);
			KUNIT_EXPECT_EQ(test, hit, (u64)(he - hs));
			KUNIT_EXPECT_EQ(test, sel, hit);
			KUNIT_EXPECT_EQ(test, snap->nr_regions,
					met->nr_regions);
			KUNIT_EXPECT_EQ(test, snap->aggr_us, met->aggr_us);
			KUNIT_EXPECT_EQ(test,
					memcmp(snap->regions, met->regions,
					       met->nr_regions *
					       sizeof(*met->regions)), 0);
		} else if (gap == ctx->max_carried + 1) {
			/* the bound: measured anyway, and nothing holds */
			KUNIT_EXPECT_EQ(test, snap->confidence,
					(u32)DAMON_PERF_CONFIDENCE_LOW);
			KUNIT_EXPECT_EQ(test, snap->windows, gap);
			KUNIT_EXPECT_EQ(test, snap->aggr_us, gap * 100000ULL);
			KUNIT_EXPECT_EQ(test, sel, 0ULL);
			pending = 0;
		} else {
			/* an empty answer leaves nothing to carry */
			KUNIT_EXPECT_EQ(test, snap->confidence,
					(u32)DAMON_PERF_CONFIDENCE_MET);
			KUNIT_EXPECT_EQ(test, snap->floor, 0ULL);
			KUNIT_EXPECT_EQ(test, snap->windows, 1U);
			pending = 0;
		}
		damon_perf_snapshot_put(snap);
	}
	damon_perf_snapshot_put(met);
}

/* The floor itself: its parts, the carry count and the average. */
static void floor_should_follow_hot_regions_and_average(struct kunit *test)
{
	struct damon_perf_floor f = {};

	/* nothing published: any measurement stands */
	KUNIT_EXPECT_EQ(test, damon_perf_floor_value(&f), 0ULL);
	KUNIT_EXPECT_EQ(test, damon_perf_floor_judge(&f, 0, 10),
			(u32)DAMON_PERF_CONFIDENCE_MET);
	damon_perf_floor_published(&f, 1000, 8);
	/* max(8 hot regions, 1000 / 2) */
	KUNIT_EXPECT_EQ(test, damon_perf_floor_value(&f), 500ULL);
	KUNIT_EXPECT_EQ(test, damon_perf_floor_judge(&f, 500, 10),
			(u32)DAMON_PERF_CONFIDENCE_MET);
	KUNIT_EXPECT_EQ(test, damon_perf_floor_judge(&f, 499, 1),
			(u32)DAMON_PERF_CONFIDENCE_CARRIED);
	KUNIT_EXPECT_EQ(test, f.carried, 1U);
	KUNIT_EXPECT_EQ(test, damon_perf_floor_judge(&f, 499, 1),
			(u32)DAMON_PERF_CONFIDENCE_LOW);
	/* the average moves a quarter of the way: 1000 - 994 / 4 */
	damon_perf_floor_published(&f, 6, 2);
	KUNIT_EXPECT_EQ(test, f.carried, 0U);
	KUNIT_EXPECT_EQ(test, f.avg, 12024ULL);	/* 751.5 samples */
	KUNIT_EXPECT_EQ(test, damon_perf_floor_value(&f), 375ULL);
	for (int i = 0; i < 40; i++)
		damon_perf_floor_published(&f, 6, 2);
	KUNIT_EXPECT_EQ(test, damon_perf_floor_value(&f), 3ULL);
	/* more hot regions than half the average: one sample each */
	damon_perf_floor_published(&f, 6, 400);
	KUNIT_EXPECT_EQ(test, damon_perf_floor_value(&f), 400ULL);
	/* no hot region: nothing to carry */
	damon_perf_floor_published(&f, 1000, 0);
	KUNIT_EXPECT_EQ(test, damon_perf_floor_value(&f), 0ULL);
	/* saturates, never wraps */
	for (int i = 0; i < 10; i++)
		damon_perf_floor_published(&f, U64_MAX, 5);
	KUNIT_EXPECT_GT(test, f.avg, U64_MAX / 2);
	KUNIT_EXPECT_EQ(test, damon_perf_floor_value(&f),
			div_u64(f.avg, 2 * DAMON_PERF_FLOOR_AVG_SCALE));
}

/* Filter evaluation, table driven. */
struct filter_case {
	const char *desc;
	struct damon_perf_filter f[3];
	unsigned int nr;
	int cpu;
	pid_t tid;
	bool is_write;
	bool reject;
};

#define CPUS(...)	{ .bits = { __VA_ARGS__ } }
#define F_CPU(a, m)	{ .type = DAMON_PERF_FILTER_CPUMASK, .allow = a, \
			  .cpus = m }
#define F_TID(a, t)	{ .type = DAMON_PERF_FILTER_TID, .allow = a, \
			  .tids = { t }, .nr_tids = 1 }
#define F_WRITE(a)	{ .type = DAMON_PERF_FILTER_WRITE, .allow = a }

static const struct filter_case filter_cases[] = {
	{
		.desc = "no filter keeps everything",
		.cpu = 1, .tid = 7,
	},
	{
		.desc = "allow cpu matched keeps",
		.f = { F_CPU(true, CPUS(0x2)) },
		.nr = 1, .cpu = 1, .tid = 7,
	},
	{
		.desc = "allow cpu unmatched takes default allow",
		.f = { F_CPU(true, CPUS(0x2)) },
		.nr = 1, .cpu = 0, .tid = 7,
	},
	{
		.desc = "reject cpu matched drops",
		.f = { F_CPU(false, CPUS(0x2)) },
		.nr = 1, .cpu = 1, .tid = 7, .reject = true,
	},
	{
		.desc = "reject cpu unmatched takes default reject",
		.f = { F_CPU(false, CPUS(0x2)) },
		.nr = 1, .cpu = 0, .tid = 7, .reject = true,
	},
	{
		.desc = "allow cpu then reject all: only that cpu",
		.f = { F_CPU(true, CPUS(0x2)), F_CPU(false, CPUS(0x3)) },
		.nr = 2, .cpu = 0, .tid = 7, .reject = true,
	},
	{
		.desc = "reject tid matched drops",
		.f = { F_TID(false, 42), F_WRITE(true) },
		.nr = 2, .cpu = 0, .tid = 42, .is_write = true, .reject = true,
	},
	{
		.desc = "first matching filter decides",
		.f = { F_TID(false, 42), F_WRITE(true) },
		.nr = 2, .cpu = 0, .tid = 7, .is_write = true,
	},
	{
		.desc = "unmatched read takes the last filter's allow",
		.f = { F_TID(false, 42), F_WRITE(true) },
		.nr = 2, .cpu = 0, .tid = 7,
	},
	{
		.desc = "write filter rejects writes",
		.f = { F_WRITE(false), F_TID(true, 7) },
		.nr = 2, .cpu = 0, .tid = 7, .is_write = true, .reject = true,
	},
	{
		.desc = "allow tid keeps reads of the thread",
		.f = { F_WRITE(false), F_TID(true, 7) },
		.nr = 2, .cpu = 0, .tid = 7,
	},
	{
		.desc = "cpu out of range never matches",
		.f = { F_CPU(false, CPUS(0x1)), F_WRITE(true) },
		.nr = 2, .cpu = -1, .tid = 7,
	},
};

KUNIT_ARRAY_PARAM_DESC(filter, filter_cases, desc);

static void
filters_should_follow_first_match_and_last_default(struct kunit *test)
{
	const struct filter_case *c = test->param_value;
	struct damon_perf_report report = rep(BASE, 8);

	report.cpu = c->cpu;
	report.tid = c->tid;
	report.is_write = c->is_write;
	KUNIT_EXPECT_EQ(test, damon_perf_filters_reject(c->f, c->nr, &report),
			c->reject);
}

static void drain_should_apply_context_filters(struct kunit *test)
{
	struct damon_perf_ctx *ctx = ctx_alloc(test, DAMON_PERF_OPS_PADDR);
	struct damon_perf_target *t = target_add(test, ctx, 0, BASE, 4);
	struct damon_perf_filter f = F_WRITE(false);
	struct damon_perf_report report = rep(BASE, 8);
	struct damon_perf_drain d;

	ctx->filters[0] = f;
	ctx->filters[1] = (struct damon_perf_filter)F_WRITE(true);
	ctx->nr_filters = 2;
	KUNIT_ASSERT_EQ(test, 0, damon_perf_drain_prepare(ctx, &d));
	report.is_write = true;
	KUNIT_EXPECT_FALSE(test, damon_perf_drain_report(&d, &report));
	report.is_write = false;
	KUNIT_EXPECT_TRUE(test, damon_perf_drain_report(&d, &report));
	KUNIT_EXPECT_EQ(test, region_at(t, BASE)->probe_hits[0], 1ULL);
}

/* Regression: each report adds the period it stands for. */
static void drain_should_sum_the_periods_of_reports(struct kunit *test)
{
	struct damon_perf_ctx *ctx = ctx_alloc(test, DAMON_PERF_OPS_PADDR);
	struct damon_perf_target *t = target_add(test, ctx, 0, BASE, 4);
	struct damon_perf_report report = rep(BASE, 8);
	struct damon_perf_region *r0 = region_at(t, BASE);
	struct damon_perf_region *r1 = region_at(t, BASE + PG);
	struct damon_perf_drain d;

	ctx->probes[0].used = true;
	ctx->probes[0].attr.sample_period = 100;
	ctx->probes[1].used = true;
	ctx->probes[1].attr.freq = true;
	ctx->probes[1].attr.sample_period = 4000;	/* Hz */
	KUNIT_ASSERT_EQ(test, 0, damon_perf_drain_prepare(ctx, &d));
	report.period = 5;
	KUNIT_EXPECT_TRUE(test, damon_perf_drain_report(&d, &report));
	report.period = 7;
	KUNIT_EXPECT_TRUE(test, damon_perf_drain_report(&d, &report));
	KUNIT_EXPECT_EQ(test, r0->events, 12ULL);
	KUNIT_EXPECT_EQ(test, r0->probe_hits[0], 2ULL);
	/* no period carried (AUX): the probe's fixed period */
	report.period = 0;
	KUNIT_EXPECT_TRUE(test, damon_perf_drain_report(&d, &report));
	KUNIT_EXPECT_EQ(test, r0->events, 112ULL);
	/* ... or 1 for a frequency probe */
	report.probe_idx = 2;
	KUNIT_EXPECT_TRUE(test, damon_perf_drain_report(&d, &report));
	KUNIT_EXPECT_EQ(test, r0->events, 113ULL);
	/* saturating */
	report = rep(BASE + PG, 8);
	report.period = U64_MAX - 1;
	KUNIT_EXPECT_TRUE(test, damon_perf_drain_report(&d, &report));
	KUNIT_EXPECT_TRUE(test, damon_perf_drain_report(&d, &report));
	KUNIT_EXPECT_EQ(test, r1->events, U64_MAX);
	KUNIT_EXPECT_EQ(test, r1->probe_hits[0], 2ULL);
	damon_perf_regions_reset(t);
	KUNIT_EXPECT_EQ(test, r1->events, 0ULL);
}

static struct kunit_case drain_cases[] = {
	KUNIT_CASE(drain_should_sum_the_periods_of_reports),
	KUNIT_CASE(drain_should_find_first_and_last_region),
	KUNIT_CASE(drain_should_match_exact_boundaries),
	KUNIT_CASE(drain_should_miss_gaps_and_outside),
	KUNIT_CASE(drain_should_reject_straddling_access),
	KUNIT_CASE(drain_should_route_vaddr_reports_by_tgid),
	KUNIT_CASE(drain_should_drop_stale_reports),
	KUNIT_CASE(drain_should_count_every_sample_in_count_mode),
	KUNIT_CASE(drain_should_saturate_counters),
	KUNIT_CASE(drain_should_scale_credit_by_probe_weight),
	KUNIT_CASE(drain_should_credit_once_per_interval_in_presence_mode),
	KUNIT_CASE_PARAM(drain_should_credit_passes_as_interval_drains,
			 eq_gen_params),
	KUNIT_CASE_PARAM(drain_should_replay_recorded_stream_both_ways,
			 replay_gen_params),
	KUNIT_CASE(drain_should_count_probe_hits_per_probe),
	KUNIT_CASE(drain_should_grow_snapshot_only_at_high_water_mark),
	KUNIT_CASE(drain_should_snapshot_the_largest_context),
	KUNIT_CASE(drain_should_count_reports_of_a_pass_without_memory),
	KUNIT_CASE(drain_should_keep_sample_keys_in_samples_mode),
	KUNIT_CASE(drain_should_not_keep_samples_in_random_mode),
	KUNIT_CASE(drain_should_key_vaddr_samples_by_target_position),
	KUNIT_CASE(drain_should_bound_samples_and_grow_at_high_water_mark),
	KUNIT_CASE(drain_should_keep_every_sample_of_a_burst),
	KUNIT_CASE(drain_should_presize_samples_for_the_rings),
	KUNIT_CASE(drain_should_keep_the_runs_of_sampled_pages),
	KUNIT_CASE(drain_then_split_should_sort_the_samples),
	KUNIT_CASE(drain_then_split_should_isolate_hot_range),
	KUNIT_CASE(drain_then_aggregate_should_carry_a_bursty_stream),
	KUNIT_CASE(floor_should_follow_hot_regions_and_average),
	KUNIT_CASE_PARAM(filters_should_follow_first_match_and_last_default,
			 filter_gen_params),
	KUNIT_CASE(drain_should_apply_context_filters),
	{}
};

static struct kunit_suite drain_suite = {
	.name = "damon_perf_drain",
	.test_cases = drain_cases,
};

kunit_test_suites(&drain_suite);
