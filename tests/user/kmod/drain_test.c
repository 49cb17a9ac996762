// SPDX-License-Identifier: GPL-2.0
/*
 * kmod/drain.c in userspace: search, straddle, thread group routing,
 * stale window, sample filters and crediting. The cases of
 * tests/kunit/drain_kunit.c, under the same names; a pass without memory
 * fails its allocations through the shim (shim_fail_alloc) and reads the
 * global counters as differences, without KUnit's private counter set.
 */
#include "kt_kmod.h"

#define BASE BIT(30)
#define PG DAMON_PERF_MIN_REGION

static struct damon_perf_ctx *ctx_alloc(u32 ops)
{
	return kt_ctx_new(ops);
}

/* A target of @nr one-page regions from @start. */
static struct damon_perf_target *target_add(struct damon_perf_ctx *ctx,
					    pid_t pid, unsigned long start,
					    unsigned int nr)
{
	struct damon_perf_target *t;

	/* freed with the context's resource, which was registered first */
	t = kt_target_new(ctx->nr_targets + 1);
	ctx->nr_targets++;
	t->pid = pid;
	t->start = start;
	t->end = start + nr * PG;
	list_add_tail(&t->list, &ctx->targets);
	if (damon_perf_regions_split_evenly(t, t->start, t->end, nr) ||
	    t->nr_regions != nr)
		KT_FAIL("target of %u regions at %lx", nr, start);
	return t;
}

static struct damon_perf_region *region_at(struct damon_perf_target *t,
					   unsigned long addr)
{
	struct damon_perf_region *r;

	damon_perf_for_each_region (r, t)
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
static struct damon_perf_ctx *two_ranges(struct damon_perf_drain *d)
{
	struct damon_perf_ctx *ctx = ctx_alloc(DAMON_PERF_OPS_PADDR);

	target_add(ctx, 0, BASE, 10);
	target_add(ctx, 0, BASE + 20 * PG, 10);
	KT_EXPECT_EQ(0, damon_perf_drain_prepare(ctx, d));
	KT_EXPECT_EQ(d->nr_ents, 20U);
	return ctx;
}

static struct damon_perf_target *nth_target(struct damon_perf_ctx *ctx, int n)
{
	struct damon_perf_target *t;

	damon_perf_for_each_target (t, ctx)
		if (!n--)
			return t;
	return NULL;
}

static void drain_should_find_first_and_last_region(void)
{
	struct damon_perf_drain d;
	struct damon_perf_ctx *ctx = two_ranges(&d);
	struct damon_perf_target *a = nth_target(ctx, 0);
	struct damon_perf_target *b = nth_target(ctx, 1);

	KT_EXPECT_TRUE(drain(&d, BASE, 8));
	KT_EXPECT_TRUE(drain(&d, BASE + 30 * PG - 8, 8));
	KT_EXPECT_EQ(region_at(a, BASE)->nr_accesses, 1U);
	KT_EXPECT_EQ(region_at(a, BASE)->probe_hits[0], 1ULL);
	KT_EXPECT_EQ(region_at(b, BASE + 29 * PG)->nr_accesses, 1U);
	KT_EXPECT_EQ(d.total, 2U);
	KT_EXPECT_EQ(d.matched, 2U);
}

static void drain_should_match_exact_boundaries(void)
{
	struct damon_perf_drain d;
	struct damon_perf_ctx *ctx = two_ranges(&d);
	struct damon_perf_target *a = nth_target(ctx, 0);

	/* the first byte of region 1 belongs to it, not to region 0 */
	KT_EXPECT_TRUE(drain(&d, BASE + PG, 8));
	KT_EXPECT_EQ(region_at(a, BASE + PG)->nr_accesses, 1U);
	KT_EXPECT_EQ(region_at(a, BASE)->nr_accesses, 0U);
	/* an access ending exactly at a region end is inside */
	KT_EXPECT_TRUE(drain(&d, BASE + 3 * PG - 8, 8));
	KT_EXPECT_EQ(region_at(a, BASE + 2 * PG)->nr_accesses, 1U);
	/* the end of a target is outside */
	KT_EXPECT_FALSE(drain(&d, BASE + 10 * PG, 8));
	KT_EXPECT_FALSE(drain(&d, BASE + 30 * PG, 8));
}

static void drain_should_miss_gaps_and_outside(void)
{
	struct damon_perf_drain d;

	two_ranges(&d);
	KT_EXPECT_FALSE(drain(&d, BASE + 15 * PG, 8));
	KT_EXPECT_FALSE(drain(&d, BASE - PG, 8));
	KT_EXPECT_FALSE(drain(&d, 0, 8)); /* no address */
	KT_EXPECT_FALSE(drain(&d, ~0UL - PG, 8));
	KT_EXPECT_EQ(d.matched, 0U);
	KT_EXPECT_EQ(d.total, 4U);
}

static void drain_should_reject_straddling_access(void)
{
	struct damon_perf_drain d;
	struct damon_perf_ctx *ctx = two_ranges(&d);
	struct damon_perf_target *a = nth_target(ctx, 0);

	KT_EXPECT_FALSE(drain(&d, BASE + PG - 4, 8));
	KT_EXPECT_EQ(region_at(a, BASE)->nr_accesses, 0U);
	KT_EXPECT_EQ(region_at(a, BASE + PG)->nr_accesses, 0U);
	KT_EXPECT_EQ(region_at(a, BASE)->probe_hits[0], 0ULL);
}

static void drain_should_route_vaddr_reports_by_tgid(void)
{
	struct damon_perf_ctx *ctx = ctx_alloc(DAMON_PERF_OPS_VADDR);
	struct damon_perf_target *a, *b, *c;
	struct damon_perf_report report = rep(BASE + PG, 8);
	struct damon_perf_drain d;

	/* same addresses in three processes */
	a = target_add(ctx, 100, BASE, 4);
	b = target_add(ctx, 200, BASE, 4);
	c = target_add(ctx, 300, BASE, 4);
	c->dead = true;
	KT_ASSERT_EQ(0, damon_perf_drain_prepare(ctx, &d));
	KT_EXPECT_EQ(d.nr_segs, 2U);

	report.tgid = 200;
	KT_EXPECT_TRUE(damon_perf_drain_report(&d, &report));
	KT_EXPECT_EQ(region_at(b, BASE + PG)->nr_accesses, 1U);
	KT_EXPECT_EQ(region_at(a, BASE + PG)->nr_accesses, 0U);

	report.tgid = 400; /* not a target */
	KT_EXPECT_FALSE(damon_perf_drain_report(&d, &report));
	report.tgid = 300; /* dead target */
	KT_EXPECT_FALSE(damon_perf_drain_report(&d, &report));
	KT_EXPECT_EQ(region_at(c, BASE + PG)->nr_accesses, 0U);
	/* the vaddr of the report is used, not its paddr */
	report.tgid = 100;
	report.paddr = 0;
	KT_EXPECT_TRUE(damon_perf_drain_report(&d, &report));
	report.vaddr = 0;
	report.paddr = BASE;
	KT_EXPECT_FALSE(damon_perf_drain_report(&d, &report));
}

static void drain_should_drop_stale_reports(void)
{
	struct damon_perf_ctx *ctx = ctx_alloc(DAMON_PERF_OPS_PADDR);
	u64 window = ctx->attrs.sample_us * NSEC_PER_USEC;
	struct damon_perf_report report = rep(BASE, 8);
	struct damon_perf_drain d;
	struct damon_perf_target *t;

	t = target_add(ctx, 0, BASE, 4);
	ctx->last_drain_ns = report.time_ns;
	KT_ASSERT_EQ(0, damon_perf_drain_prepare(ctx, &d));

	report.time_ns = ctx->last_drain_ns - 2 * window;
	KT_EXPECT_FALSE(damon_perf_drain_report(&d, &report));
	KT_EXPECT_EQ(ctx->stale_drops, 1ULL);
	KT_EXPECT_EQ(region_at(t, BASE)->probe_hits[0], 0ULL);

	/* within one sample interval before the previous drain: fresh */
	report.time_ns = ctx->last_drain_ns - window / 2;
	KT_EXPECT_TRUE(damon_perf_drain_report(&d, &report));
	KT_EXPECT_EQ(ctx->stale_drops, 1ULL);
}

static void drain_should_count_every_sample_in_count_mode(void)
{
	struct damon_perf_ctx *ctx = ctx_alloc(DAMON_PERF_OPS_PADDR);
	struct damon_perf_target *t = target_add(ctx, 0, BASE, 4);
	struct damon_perf_drain d;
	int i;

	ctx->attrs.mode = DAMON_PERF_MODE_COUNT;
	KT_ASSERT_EQ(0, damon_perf_drain_prepare(ctx, &d));
	for (i = 0; i < 3; i++)
		KT_EXPECT_TRUE(drain(&d, BASE + 16 * i, 8));
	KT_EXPECT_EQ(region_at(t, BASE)->nr_accesses, 3U);
	KT_EXPECT_EQ(region_at(t, BASE)->probe_hits[0], 3ULL);
}

/* Defect: nr_accesses (u32) wrapped in count mode; now it saturates. */
static void drain_should_saturate_counters(void)
{
	struct damon_perf_ctx *ctx = ctx_alloc(DAMON_PERF_OPS_PADDR);
	struct damon_perf_target *t = target_add(ctx, 0, BASE, 4);
	struct damon_perf_region *r = region_at(t, BASE);
	struct damon_perf_drain d;
	int i;

	ctx->attrs.mode = DAMON_PERF_MODE_COUNT;
	r->nr_accesses = UINT_MAX - 1;
	r->probe_hits[0] = U64_MAX - 1;
	KT_ASSERT_EQ(0, damon_perf_drain_prepare(ctx, &d));
	for (i = 0; i < 3; i++)
		KT_EXPECT_TRUE(drain(&d, BASE, 8));
	KT_EXPECT_EQ(r->nr_accesses, UINT_MAX);
	KT_EXPECT_EQ(r->probe_hits[0], U64_MAX);

	/* presence mode too, one sample interval at a time */
	ctx->attrs.mode = DAMON_PERF_MODE_PRESENCE;
	for (i = 0; i < 2; i++) {
		ctx->sample_seq++;
		KT_ASSERT_EQ(0, damon_perf_drain_prepare(ctx, &d));
		KT_EXPECT_TRUE(drain(&d, BASE, 8));
	}
	KT_EXPECT_EQ(r->nr_accesses, UINT_MAX);
}

/*
 * Defect: a probe's weight was stored and reported but never read. Two
 * probes of weights 1 and 3 get the same samples, each in its region: in
 * count mode the second region's nr_accesses and events are 3 times the
 * first's; presence mode still counts one access per sample interval;
 * probe_hits stay raw; weight 0 counts as 1; everything saturates.
 */
static void drain_should_scale_credit_by_probe_weight(void)
{
	struct damon_perf_ctx *ctx = ctx_alloc(DAMON_PERF_OPS_PADDR);
	struct damon_perf_target *t = target_add(ctx, 0, BASE, 4);
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
	KT_ASSERT_EQ(0, damon_perf_drain_prepare(ctx, &d));
	for (i = 0; i < 5; i++) {
		report = rep(BASE + 64 * i, 8);
		report.period = 10;
		KT_EXPECT_TRUE(damon_perf_drain_report(&d, &report));
		report.paddr += PG;
		report.probe_idx = 2;
		KT_EXPECT_TRUE(damon_perf_drain_report(&d, &report));
		report.paddr += PG;
		report.probe_idx = 3;
		KT_EXPECT_TRUE(damon_perf_drain_report(&d, &report));
	}
	KT_EXPECT_EQ(r1->nr_accesses, 5U);
	KT_EXPECT_EQ(r3->nr_accesses, 15U);
	KT_EXPECT_EQ(r0->nr_accesses, 5U);
	KT_EXPECT_EQ(r1->events, 50ULL);
	KT_EXPECT_EQ(r3->events, 150ULL);
	KT_EXPECT_EQ(r0->events, 50ULL);
	KT_EXPECT_EQ(r1->probe_hits[0], 5ULL);
	KT_EXPECT_EQ(r3->probe_hits[1], 5ULL);

	/* presence: one access per sample interval, events still weighted */
	damon_perf_regions_reset(t);
	ctx->attrs.mode = DAMON_PERF_MODE_PRESENCE;
	KT_ASSERT_EQ(0, damon_perf_drain_prepare(ctx, &d));
	for (i = 0; i < 5; i++) {
		report = rep(BASE + PG + 64 * i, 8);
		report.probe_idx = 2;
		report.period = 10;
		KT_EXPECT_TRUE(damon_perf_drain_report(&d, &report));
	}
	KT_EXPECT_EQ(r3->nr_accesses, 1U);
	KT_EXPECT_EQ(r3->events, 150ULL);

	/* saturating */
	damon_perf_regions_reset(t);
	ctx->attrs.mode = DAMON_PERF_MODE_COUNT;
	ctx->probes[1].attr.weight = 65535;
	r3->nr_accesses = UINT_MAX - 65534;
	KT_ASSERT_EQ(0, damon_perf_drain_prepare(ctx, &d));
	report = rep(BASE + PG, 8);
	report.probe_idx = 2;
	report.period = U64_MAX / 65535 + 1;
	KT_EXPECT_TRUE(damon_perf_drain_report(&d, &report));
	KT_EXPECT_EQ(r3->nr_accesses, UINT_MAX);
	KT_EXPECT_EQ(r3->events, U64_MAX);
}

static void drain_should_credit_once_per_interval_in_presence_mode(void)
{
	struct damon_perf_ctx *ctx = ctx_alloc(DAMON_PERF_OPS_PADDR);
	struct damon_perf_target *t = target_add(ctx, 0, BASE, 4);
	struct damon_perf_drain d;
	int i;

	KT_ASSERT_EQ(ctx->attrs.mode, (u32)DAMON_PERF_MODE_PRESENCE);
	KT_ASSERT_EQ(0, damon_perf_drain_prepare(ctx, &d));
	for (i = 0; i < 3; i++)
		KT_EXPECT_TRUE(drain(&d, BASE + 16 * i, 8));
	/* an early drain in the same sample interval credits nothing more */
	KT_ASSERT_EQ(0, damon_perf_drain_prepare(ctx, &d));
	KT_EXPECT_TRUE(drain(&d, BASE, 8));
	KT_EXPECT_EQ(region_at(t, BASE)->nr_accesses, 1U);
	KT_EXPECT_EQ(region_at(t, BASE)->probe_hits[0], 4ULL);

	ctx->sample_seq++; /* next sample interval */
	KT_ASSERT_EQ(0, damon_perf_drain_prepare(ctx, &d));
	KT_EXPECT_TRUE(drain(&d, BASE, 8));
	KT_EXPECT_TRUE(drain(&d, BASE + PG, 8));
	KT_EXPECT_EQ(region_at(t, BASE)->nr_accesses, 2U);
	KT_EXPECT_EQ(region_at(t, BASE + PG)->nr_accesses, 1U);
}

static void drain_should_count_probe_hits_per_probe(void)
{
	struct damon_perf_ctx *ctx = ctx_alloc(DAMON_PERF_OPS_PADDR);
	struct damon_perf_target *t = target_add(ctx, 0, BASE, 4);
	static const u8 idx[] = {1, 2, 3, 2, 0, 4};
	struct damon_perf_report report = rep(BASE, 8);
	struct damon_perf_region *r = region_at(t, BASE);
	struct damon_perf_drain d;
	int i;

	KT_ASSERT_EQ(0, damon_perf_drain_prepare(ctx, &d));
	for (i = 0; i < ARRAY_SIZE(idx); i++) {
		report.probe_idx = idx[i];
		KT_EXPECT_EQ(damon_perf_drain_report(&d, &report),
			     idx[i] >= 1 && idx[i] <= 3);
	}
	KT_EXPECT_EQ(r->probe_hits[0], 1ULL);
	KT_EXPECT_EQ(r->probe_hits[1], 2ULL);
	KT_EXPECT_EQ(r->probe_hits[2], 1ULL);
	KT_EXPECT_EQ(r->nr_accesses, 1U); /* presence */
}

static void drain_should_grow_snapshot_only_at_high_water_mark(void)
{
	struct damon_perf_ctx *ctx = ctx_alloc(DAMON_PERF_OPS_PADDR);
	struct damon_perf_target *t = target_add(ctx, 0, BASE, 8);
	struct damon_perf_drain d;
	void *snap;

	KT_ASSERT_EQ(0, damon_perf_drain_prepare(ctx, &d));
	snap = ctx->drain_snap;
	KT_EXPECT_EQ(ctx->drain_snap_cap, (size_t)8);
	damon_perf_region_destroy(
		t,
		list_last_entry(&t->regions, struct damon_perf_region, list));
	KT_ASSERT_EQ(0, damon_perf_drain_prepare(ctx, &d));
	KT_EXPECT_PTR_EQ(ctx->drain_snap, snap);
	KT_EXPECT_EQ(ctx->drain_snap_cap, (size_t)8);
	target_add(ctx, 0, BASE + 64 * PG, 8);
	KT_ASSERT_EQ(0, damon_perf_drain_prepare(ctx, &d));
	KT_EXPECT_EQ(ctx->drain_snap_cap, (size_t)15);
	KT_EXPECT_EQ(d.nr_ents, 15U);
}

/*
 * Defect: the snapshot was one krealloc_array() of every region, so the
 * largest context validation accepts (DAMON_PERF_MAX_TARGETS paddr ranges
 * of DAMON_PERF_MAX_REGIONS regions: 160000 entries, 5 MiB, beyond
 * KMALLOC_MAX_SIZE) got a WARN and -ENOMEM on every pass.
 */
static void drain_should_snapshot_the_largest_context(void)
{
	struct damon_perf_ctx *ctx = ctx_alloc(DAMON_PERF_OPS_PADDR);
	const unsigned long span = DAMON_PERF_MAX_REGIONS * PG;
	struct damon_perf_target *t = NULL;
	struct damon_perf_drain d;
	unsigned long last;
	int i;

	for (i = 0; i < DAMON_PERF_MAX_TARGETS; i++)
		t = target_add(ctx, 0, BASE + i * span, DAMON_PERF_MAX_REGIONS);
	KT_ASSERT_EQ(0, damon_perf_drain_prepare(ctx, &d));
	KT_EXPECT_EQ(d.nr_ents, (unsigned int)(DAMON_PERF_MAX_TARGETS *
					       DAMON_PERF_MAX_REGIONS));
	KT_EXPECT_EQ(d.nr_segs, (unsigned int)DAMON_PERF_MAX_TARGETS);
	last = BASE + DAMON_PERF_MAX_TARGETS * span - PG;
	KT_EXPECT_TRUE(drain(&d, BASE, 8));
	KT_EXPECT_TRUE(drain(&d, last, 8));
	KT_EXPECT_EQ(region_at(t, last)->nr_accesses, 1U);
	KT_EXPECT_FALSE(drain(&d, last + PG, 8));
}

/*
 * Defect: a pass that could not allocate its snapshot left the reports in
 * the rings ("a skipped pass heals"), but no later pass could allocate
 * either: the rings filled, and the stop freed them with their reports
 * counted nowhere. A failed pass must consume its reports and count each
 * as miss_nomem, so dequeue == match + miss_* still holds.
 */
static void drain_should_count_reports_of_a_pass_without_memory(void)
{
	struct damon_perf_ctx *ctx = ctx_alloc(DAMON_PERF_OPS_PADDR);
	struct damon_perf_target *t = target_add(ctx, 0, BASE, 4);
	struct damon_perf_report report = rep(BASE, 8);
	unsigned long deq = kt_global(DAMON_PERF_STAT_dequeue);
	unsigned long nomem = kt_global(DAMON_PERF_STAT_miss_nomem);
	unsigned long match = kt_global(DAMON_PERF_STAT_match);
	int i;

	KT_ASSERT_EQ(0, damon_perf_rings_alloc(&ctx->rings, 16, NULL, NULL));
	report.cpu = smp_processor_id();
	for (i = 0; i < 5; i++)
		KT_EXPECT_TRUE(damon_perf_report_access(&ctx->rings, &report));
	/* every allocation of the pass fails: the snapshot fails */
	shim_fail_alloc = true;
	KT_EXPECT_EQ(damon_perf_drain_rings(ctx), 5U);
	shim_fail_alloc = false;
	KT_EXPECT_FALSE(damon_perf_rings_pending(&ctx->rings));
	KT_EXPECT_EQ(kt_global(DAMON_PERF_STAT_dequeue) - deq, 5UL);
	KT_EXPECT_EQ(kt_global(DAMON_PERF_STAT_miss_nomem) - nomem, 5UL);
	KT_EXPECT_EQ(kt_global(DAMON_PERF_STAT_match) - match, 0UL);
	KT_EXPECT_EQ(region_at(t, BASE)->nr_accesses, 0U);
	/* the next pass has memory again and credits */
	report.time_ns = damon_perf_clock_ns();
	KT_EXPECT_TRUE(damon_perf_report_access(&ctx->rings, &report));
	KT_EXPECT_EQ(damon_perf_drain_rings(ctx), 1U);
	KT_EXPECT_EQ(kt_global(DAMON_PERF_STAT_match) - match, 1UL);
	KT_EXPECT_EQ(region_at(t, BASE)->nr_accesses, 1U);
}

/* Samples mode keeps (target position, page) of every credited sample. */
static void drain_should_keep_sample_keys_in_samples_mode(void)
{
	struct damon_perf_drain d;
	struct damon_perf_ctx *ctx = two_ranges(&d);
	struct damon_perf_samples *s = &ctx->samples;

	KT_ASSERT_EQ(s->cap, DAMON_PERF_SPLIT_SAMPLES_MIN);
	KT_EXPECT_TRUE(drain(&d, BASE + 3 * PG + 100, 8));
	KT_EXPECT_TRUE(drain(&d, BASE + 25 * PG, 8));
	KT_EXPECT_FALSE(drain(&d, BASE + 15 * PG, 8)); /* gap */
	KT_ASSERT_EQ(s->nr, 2U);
	KT_EXPECT_EQ(s->seen, 2U);
	KT_EXPECT_EQ(damon_perf_sample_pos(s->buf[0].key), 0U);
	KT_EXPECT_EQ(damon_perf_sample_page(s->buf[0].key),
		     (BASE + 3 * PG) >> PAGE_SHIFT);
	KT_EXPECT_EQ(damon_perf_sample_pos(s->buf[1].key), 1U);
	KT_EXPECT_EQ(damon_perf_sample_page(s->buf[1].key),
		     (BASE + 25 * PG) >> PAGE_SHIFT);
	KT_EXPECT_EQ(s->target_seen[0], 1U);
	KT_EXPECT_EQ(s->target_seen[1], 1U);
	damon_perf_drain_samples_reset(ctx);
	KT_EXPECT_EQ(s->target_seen[0], 0U);
}

/* Random mode: no buffer, nothing kept. */
static void drain_should_not_keep_samples_in_random_mode(void)
{
	struct damon_perf_ctx *ctx = ctx_alloc(DAMON_PERF_OPS_PADDR);
	struct damon_perf_drain d;

	ctx->attrs.split = DAMON_PERF_SPLIT_RANDOM;
	target_add(ctx, 0, BASE, 10);
	KT_ASSERT_EQ(0, damon_perf_drain_prepare(ctx, &d));
	KT_EXPECT_TRUE(drain(&d, BASE, 8));
	KT_EXPECT_NULL(ctx->samples.buf);
	KT_EXPECT_EQ(ctx->samples.nr, 0U);
	KT_EXPECT_EQ(ctx->samples.seen, 0U);
}

/* vaddr keys name the target's list position, dead targets counted. */
static void drain_should_key_vaddr_samples_by_target_position(void)
{
	struct damon_perf_ctx *ctx = ctx_alloc(DAMON_PERF_OPS_VADDR);
	struct damon_perf_report report = rep(BASE + PG, 8);
	struct damon_perf_drain d;

	target_add(ctx, 100, BASE, 4)->dead = true;
	target_add(ctx, 200, BASE, 4);
	KT_ASSERT_EQ(0, damon_perf_drain_prepare(ctx, &d));
	report.tgid = 200;
	KT_EXPECT_TRUE(damon_perf_drain_report(&d, &report));
	KT_ASSERT_EQ(ctx->samples.nr, 1U);
	KT_EXPECT_EQ(damon_perf_sample_pos(ctx->samples.buf[0].key), 1U);
}

/*
 * The buffer never grows inside a pass: beyond it a uniform subset is
 * kept. It grows before a pass at half full, or for the next aggregation
 * after an overflow, up to DAMON_PERF_MAX_SPLIT_SAMPLES.
 */
static void drain_should_bound_samples_and_grow_at_high_water_mark(void)
{
	struct damon_perf_ctx *ctx = ctx_alloc(DAMON_PERF_OPS_PADDR);
	struct damon_perf_samples *s = &ctx->samples;
	const u32 min = DAMON_PERF_SPLIT_SAMPLES_MIN;
	struct damon_perf_drain d;
	unsigned int i, low = 0;
	struct damon_perf_sample *keys;

	target_add(ctx, 0, BASE, 64);
	KT_ASSERT_EQ(0, damon_perf_drain_prepare(ctx, &d));
	keys = s->buf;
	for (i = 0; i < 4 * min; i++)
		drain(&d, BASE + (i % 64) * PG, 8);
	KT_EXPECT_PTR_EQ(s->buf, keys);
	KT_EXPECT_EQ(s->cap, min);
	KT_EXPECT_EQ(s->nr, min);
	KT_EXPECT_EQ(s->seen, 4 * min);
	for (i = 0; i < s->nr; i++)
		low += damon_perf_sample_page(s->buf[i].key) <
		       ((BASE + 32 * PG) >> PAGE_SHIFT);
	/* a uniform subset: about half the keys in the lower half */
	KT_EXPECT_GT(low, min / 4);
	KT_EXPECT_LT(low, 3 * min / 4);
	/* subsampling started: the next pass keeps the buffer */
	KT_ASSERT_EQ(0, damon_perf_drain_prepare(ctx, &d));
	KT_EXPECT_EQ(s->cap, min);
	damon_perf_drain_samples_reset(ctx);
	KT_EXPECT_EQ(s->cap, 2 * min);
	KT_EXPECT_EQ(s->nr, 0U);
	KT_EXPECT_EQ(s->seen, 0U);
	/* half full and complete: grows before the next pass, keeping keys */
	KT_ASSERT_EQ(0, damon_perf_drain_prepare(ctx, &d));
	for (i = 0; i < min; i++)
		drain(&d, BASE + 5 * PG, 8);
	KT_ASSERT_EQ(0, damon_perf_drain_prepare(ctx, &d));
	KT_EXPECT_EQ(s->cap, 4 * min);
	KT_EXPECT_EQ(s->nr, min);
	KT_EXPECT_EQ(damon_perf_sample_page(s->buf[min - 1].key),
		     (BASE + 5 * PG) >> PAGE_SHIFT);
	/* never beyond the budget */
	for (i = 0; i < 16; i++) {
		s->seen = U32_MAX;
		damon_perf_drain_samples_reset(ctx);
	}
	KT_EXPECT_EQ(s->cap, DAMON_PERF_MAX_SPLIT_SAMPLES);
}

/*
 * The kept samples in random order come out of the cut sorted by key,
 * the same samples (the radix sort through the buffer's scratch).
 */
static void drain_then_split_should_sort_the_samples(void)
{
	struct damon_perf_ctx *ctx = ctx_alloc(DAMON_PERF_OPS_PADDR);
	struct damon_perf_samples *s = &ctx->samples;
	struct damon_perf_target *t;
	struct damon_perf_drain d;
	u64 sum = 0, xor = 0;
	struct rnd_state rnd;
	unsigned int i;

	t = target_add(ctx, 0, BASE, 1);
	damon_perf_regions_free(t);
	KT_ASSERT_EQ(0, damon_perf_regions_split_evenly(t, BASE,
							BASE + 65536 * PG, 10));
	KT_ASSERT_EQ(0, damon_perf_drain_prepare(ctx, &d));
	prandom_seed_state(&rnd, 3);
	for (i = 0; i < 800; i++)
		drain(&d, BASE + (prandom_u32_state(&rnd) % 65536) * PG, 8);
	KT_ASSERT_EQ(s->nr, 800U);
	KT_ASSERT_NOT_NULL(s->tmp);
	for (i = 0; i < s->nr; i++) {
		sum += s->buf[i].key;
		xor ^= s->buf[i].key;
	}
	damon_perf_regions_cut_ctx(ctx);
	for (i = 1; i < s->nr; i++)
		KT_EXPECT_LE(s->buf[i - 1].key, s->buf[i].key);
	for (i = 0; i < s->nr; i++) {
		sum -= s->buf[i].key;
		xor ^= s->buf[i].key;
	}
	KT_EXPECT_EQ(sum, 0ULL);
	KT_EXPECT_EQ(xor, 0ULL);
}

/* A synthetic stream: one aggregation isolates a hot range. */
static void drain_then_split_should_isolate_hot_range(void)
{
	struct damon_perf_ctx *ctx = ctx_alloc(DAMON_PERF_OPS_PADDR);
	struct damon_perf_target *t;
	struct damon_perf_drain d;
	struct damon_perf_region *r;
	unsigned long a, hs = BASE + 850 * PG, he = BASE + 1106 * PG;

	/* 10 regions of 409 pages and more; [850, 1106) inside the third */
	t = target_add(ctx, 0, BASE, 1);
	damon_perf_regions_free(t);
	KT_ASSERT_EQ(0, damon_perf_regions_split_evenly(t, BASE,
							BASE + 4096 * PG, 10));
	KT_ASSERT_EQ(0, damon_perf_drain_prepare(ctx, &d));
	for (a = hs; a < he; a += PG) {
		drain(&d, a, 8);
		drain(&d, a + 64, 8);
	}
	drain(&d, BASE + 3000 * PG, 8); /* one stray sample */
	damon_perf_regions_cut_ctx(ctx);
	KT_EXPECT_EQ(t->nr_regions, 12U);
	r = region_at(t, hs);
	KT_ASSERT_NOT_NULL(r);
	KT_EXPECT_EQ(r->start, hs);
	KT_EXPECT_EQ(r->end, he);
	/* one sample interval: presence counts 1, the raw hits all there */
	KT_EXPECT_EQ(r->nr_accesses, 1U);
	KT_EXPECT_EQ(r->probe_hits[0], 512ULL);
	KT_EXPECT_EQ(region_at(t, hs - PG)->nr_accesses, 0U);
	KT_EXPECT_EQ(region_at(t, he)->probe_hits[0], 0ULL);
	damon_perf_regions_reset(t);
	damon_perf_regions_split_ctx(ctx);
	KT_EXPECT_EQ(t->nr_regions, 12U);
	KT_EXPECT_EQ(ctx->samples.nr, 0U);
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

#define CPUS(...)                                                              \
	{                                                                      \
		.bits = { __VA_ARGS__ }                                        \
	}
#define F_CPU(a, m)                                                            \
	{                                                                      \
		.type = DAMON_PERF_FILTER_CPUMASK, .allow = a, .cpus = m       \
	}
#define F_TID(a, t)                                                            \
	{                                                                      \
		.type = DAMON_PERF_FILTER_TID, .allow = a, .tids = {t},        \
		.nr_tids = 1                                                   \
	}
#define F_WRITE(a)                                                             \
	{                                                                      \
		.type = DAMON_PERF_FILTER_WRITE, .allow = a                    \
	}

static const struct filter_case filter_cases[] = {
	{
		.desc = "no filter keeps everything",
		.cpu = 1,
		.tid = 7,
	},
	{
		.desc = "allow cpu matched keeps",
		.f = {F_CPU(true, CPUS(0x2))},
		.nr = 1,
		.cpu = 1,
		.tid = 7,
	},
	{
		.desc = "allow cpu unmatched takes default allow",
		.f = {F_CPU(true, CPUS(0x2))},
		.nr = 1,
		.cpu = 0,
		.tid = 7,
	},
	{
		.desc = "reject cpu matched drops",
		.f = {F_CPU(false, CPUS(0x2))},
		.nr = 1,
		.cpu = 1,
		.tid = 7,
		.reject = true,
	},
	{
		.desc = "reject cpu unmatched takes default reject",
		.f = {F_CPU(false, CPUS(0x2))},
		.nr = 1,
		.cpu = 0,
		.tid = 7,
		.reject = true,
	},
	{
		.desc = "allow cpu then reject all: only that cpu",
		.f = {F_CPU(true, CPUS(0x2)), F_CPU(false, CPUS(0x3))},
		.nr = 2,
		.cpu = 0,
		.tid = 7,
		.reject = true,
	},
	{
		.desc = "reject tid matched drops",
		.f = {F_TID(false, 42), F_WRITE(true)},
		.nr = 2,
		.cpu = 0,
		.tid = 42,
		.is_write = true,
		.reject = true,
	},
	{
		.desc = "first matching filter decides",
		.f = {F_TID(false, 42), F_WRITE(true)},
		.nr = 2,
		.cpu = 0,
		.tid = 7,
		.is_write = true,
	},
	{
		.desc = "unmatched read takes the last filter's allow",
		.f = {F_TID(false, 42), F_WRITE(true)},
		.nr = 2,
		.cpu = 0,
		.tid = 7,
	},
	{
		.desc = "write filter rejects writes",
		.f = {F_WRITE(false), F_TID(true, 7)},
		.nr = 2,
		.cpu = 0,
		.tid = 7,
		.is_write = true,
		.reject = true,
	},
	{
		.desc = "allow tid keeps reads of the thread",
		.f = {F_WRITE(false), F_TID(true, 7)},
		.nr = 2,
		.cpu = 0,
		.tid = 7,
	},
	{
		.desc = "cpu out of range never matches",
		.f = {F_CPU(false, CPUS(0x1)), F_WRITE(true)},
		.nr = 2,
		.cpu = -1,
		.tid = 7,
	},
};

static void filters_should_follow_first_match_and_last_default(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(filter_cases); i++) {
		const struct filter_case *c = &filter_cases[i];
		struct damon_perf_report report = rep(BASE, 8);

		report.cpu = c->cpu;
		report.tid = c->tid;
		report.is_write = c->is_write;
		if (damon_perf_filters_reject(c->f, c->nr, &report) !=
		    c->reject)
			KT_FAIL("filter case \"%s\": reject expected %d",
				c->desc, c->reject);
	}
}

static void drain_should_apply_context_filters(void)
{
	struct damon_perf_ctx *ctx = ctx_alloc(DAMON_PERF_OPS_PADDR);
	struct damon_perf_target *t = target_add(ctx, 0, BASE, 4);
	struct damon_perf_filter f = F_WRITE(false);
	struct damon_perf_report report = rep(BASE, 8);
	struct damon_perf_drain d;

	ctx->filters[0] = f;
	ctx->filters[1] = (struct damon_perf_filter)F_WRITE(true);
	ctx->nr_filters = 2;
	KT_ASSERT_EQ(0, damon_perf_drain_prepare(ctx, &d));
	report.is_write = true;
	KT_EXPECT_FALSE(damon_perf_drain_report(&d, &report));
	report.is_write = false;
	KT_EXPECT_TRUE(damon_perf_drain_report(&d, &report));
	KT_EXPECT_EQ(region_at(t, BASE)->probe_hits[0], 1ULL);
}

/* Regression: each report adds the period it stands for. */
static void drain_should_sum_the_periods_of_reports(void)
{
	struct damon_perf_ctx *ctx = ctx_alloc(DAMON_PERF_OPS_PADDR);
	struct damon_perf_target *t = target_add(ctx, 0, BASE, 4);
	struct damon_perf_report report = rep(BASE, 8);
	struct damon_perf_region *r0 = region_at(t, BASE);
	struct damon_perf_region *r1 = region_at(t, BASE + PG);
	struct damon_perf_drain d;

	ctx->probes[0].used = true;
	ctx->probes[0].attr.sample_period = 100;
	ctx->probes[1].used = true;
	ctx->probes[1].attr.freq = true;
	ctx->probes[1].attr.sample_period = 4000; /* Hz */
	KT_ASSERT_EQ(0, damon_perf_drain_prepare(ctx, &d));
	report.period = 5;
	KT_EXPECT_TRUE(damon_perf_drain_report(&d, &report));
	report.period = 7;
	KT_EXPECT_TRUE(damon_perf_drain_report(&d, &report));
	KT_EXPECT_EQ(r0->events, 12ULL);
	KT_EXPECT_EQ(r0->probe_hits[0], 2ULL);
	/* no period carried (AUX): the probe's fixed period */
	report.period = 0;
	KT_EXPECT_TRUE(damon_perf_drain_report(&d, &report));
	KT_EXPECT_EQ(r0->events, 112ULL);
	/* ... or 1 for a frequency probe */
	report.probe_idx = 2;
	KT_EXPECT_TRUE(damon_perf_drain_report(&d, &report));
	KT_EXPECT_EQ(r0->events, 113ULL);
	/* saturating */
	report = rep(BASE + PG, 8);
	report.period = U64_MAX - 1;
	KT_EXPECT_TRUE(damon_perf_drain_report(&d, &report));
	KT_EXPECT_TRUE(damon_perf_drain_report(&d, &report));
	KT_EXPECT_EQ(r1->events, U64_MAX);
	KT_EXPECT_EQ(r1->probe_hits[0], 2ULL);
	damon_perf_regions_reset(t);
	KT_EXPECT_EQ(r1->events, 0ULL);
}

/*
 * A stream of reports for the pass tests: NCPU CPUs, each reporting into
 * its own ring in time order, over NR sample intervals of 1 ms from T0.
 */
#define EQ_NCPU 4
#define EQ_PER_CPU 200
#define EQ_S (1000 * 1000ULL)
#define EQ_T0 (1000 * EQ_S)
#define EQ_REGIONS 16

struct eq_stream {
	struct damon_perf_report r[EQ_NCPU][EQ_PER_CPU];
	u64 times[EQ_PER_CPU]; /* scratch: off the stack */
};

/* xorshift32: the same stream here and in tests/user/kmod/drain_test.c */
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
			unsigned int reg =
				(x % EQ_REGIONS) * (x / EQ_REGIONS % 3) / 2;

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
static void eq_pass(struct damon_perf_ctx *ctx, const struct eq_stream *st,
		    unsigned int from, unsigned int to)
{
	u64 lo = from ? EQ_T0 + from * EQ_S : 0, hi = EQ_T0 + to * EQ_S;
	struct damon_perf_drain d;
	int c, i;

	ctx->sample_seq = 1 + from;
	ctx->pass_len = to - from;
	ctx->pass_start_ns = EQ_T0 + from * EQ_S;
	KT_ASSERT_EQ(0, damon_perf_drain_prepare(ctx, &d));
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

static void eq_expect_same(struct damon_perf_ctx *a, struct damon_perf_ctx *b,
			   unsigned int *max_acc, u64 *max_hits)
{
	struct damon_perf_target *ta = nth_target(a, 0), *tb = nth_target(b, 0);
	struct damon_perf_region *ra, *rb;
	struct damon_perf_samples *sa = &a->samples, *sb = &b->samples;
	int i;

	rb = list_first_entry(&tb->regions, struct damon_perf_region, list);
	damon_perf_for_each_region (ra, ta) {
		KT_EXPECT_EQ(ra->start, rb->start);
		KT_EXPECT_EQ(ra->nr_accesses, rb->nr_accesses);
		KT_EXPECT_EQ(ra->events, rb->events);
		KT_EXPECT_EQ(ra->probe_hits[0], rb->probe_hits[0]);
		KT_EXPECT_EQ(ra->probe_hits[1], rb->probe_hits[1]);
		if (ra->nr_accesses > *max_acc) {
			*max_acc = ra->nr_accesses;
			*max_hits = ra->probe_hits[0] + ra->probe_hits[1];
		}
		rb = list_next_entry(rb, list);
	}
	/* the samples kept for the split: the same, in another order */
	KT_ASSERT_EQ(sa->nr, sb->nr);
	sort(sa->buf, sa->nr, sizeof(*sa->buf), cmp_sample, NULL);
	sort(sb->buf, sb->nr, sizeof(*sb->buf), cmp_sample, NULL);
	for (i = 0; i < sa->nr; i++) {
		KT_EXPECT_EQ(sa->buf[i].key, sb->buf[i].key);
		KT_EXPECT_EQ(sa->buf[i].tag, sb->buf[i].tag);
	}
}

/*
 * Timestamp crediting: the same stream of reports credited by a drain at
 * the end of every sample interval (the sample_wakeups kdamond) and by
 * drains of passes of up to DAMON_PERF_PASS_MAX intervals, each report
 * to the interval its timestamp falls in, gives every region the same
 * nr_accesses, events and probe hits, and the split the same samples,
 * though a pass takes one CPU's reports of all its intervals before the
 * next CPU's. The cases of the KUnit test's parameters, with its stream.
 */
static void drain_should_credit_passes_as_interval_drains(void)
{
	static const struct {
		unsigned int nr;
		u32 mode;
	} eq_cases[] = {
		{20, DAMON_PERF_MODE_PRESENCE},  {64, DAMON_PERF_MODE_PRESENCE},
		{150, DAMON_PERF_MODE_PRESENCE}, {150, DAMON_PERF_MODE_COUNT},
		{1, DAMON_PERF_MODE_PRESENCE},
	};
	static struct eq_stream st;
	unsigned int n, k;

	for (n = 0; n < ARRAY_SIZE(eq_cases); n++) {
		struct damon_perf_ctx *a = ctx_alloc(DAMON_PERF_OPS_PADDR);
		struct damon_perf_ctx *b = ctx_alloc(DAMON_PERF_OPS_PADDR);
		unsigned int nr = eq_cases[n].nr, max_acc = 0;
		u64 max_hits = 0;

		eq_attrs(a, eq_cases[n].mode);
		eq_attrs(b, eq_cases[n].mode);
		target_add(a, 0, BASE, EQ_REGIONS);
		target_add(b, 0, BASE, EQ_REGIONS);
		eq_stream_fill(&st, nr, 0xda0 + nr);
		for (k = 0; k < nr; k++)
			eq_pass(a, &st, k, k + 1);
		for (k = 0; k < nr; k += DAMON_PERF_PASS_MAX)
			eq_pass(b, &st, k, min(nr, k + DAMON_PERF_PASS_MAX));
		eq_expect_same(a, b, &max_acc, &max_hits);
		KT_EXPECT_EQ(a->samples.nr, (u32)(EQ_NCPU * EQ_PER_CPU));
		if (eq_cases[n].mode == DAMON_PERF_MODE_PRESENCE) {
			KT_EXPECT_LE(max_acc, nr);
			KT_EXPECT_GT(max_hits, (u64)max_acc);
		}
	}
}

/* The floor itself: its parts, the carry count and the average. */
static void floor_should_follow_hot_regions_and_average(void)
{
	struct damon_perf_floor f = {};

	/* nothing published: any measurement stands */
	KT_EXPECT_EQ(damon_perf_floor_value(&f), 0ULL);
	KT_EXPECT_EQ(damon_perf_floor_judge(&f, 0, 10),
		     (u32)DAMON_PERF_CONFIDENCE_MET);
	damon_perf_floor_published(&f, 1000, 8);
	/* max(8 hot regions, 1000 / 2) */
	KT_EXPECT_EQ(damon_perf_floor_value(&f), 500ULL);
	KT_EXPECT_EQ(damon_perf_floor_judge(&f, 500, 10),
		     (u32)DAMON_PERF_CONFIDENCE_MET);
	KT_EXPECT_EQ(damon_perf_floor_judge(&f, 499, 1),
		     (u32)DAMON_PERF_CONFIDENCE_CARRIED);
	KT_EXPECT_EQ(f.carried, 1U);
	KT_EXPECT_EQ(damon_perf_floor_judge(&f, 499, 1),
		     (u32)DAMON_PERF_CONFIDENCE_LOW);
	/* the average moves a quarter of the way: 1000 - 994 / 4 */
	damon_perf_floor_published(&f, 6, 2);
	KT_EXPECT_EQ(f.carried, 0U);
	KT_EXPECT_EQ(f.avg, 12024ULL); /* 751.5 samples */
	KT_EXPECT_EQ(damon_perf_floor_value(&f), 375ULL);
	for (int i = 0; i < 40; i++)
		damon_perf_floor_published(&f, 6, 2);
	KT_EXPECT_EQ(damon_perf_floor_value(&f), 3ULL);
	/* more hot regions than half the average: one sample each */
	damon_perf_floor_published(&f, 6, 400);
	KT_EXPECT_EQ(damon_perf_floor_value(&f), 400ULL);
	/* no hot region: nothing to carry */
	damon_perf_floor_published(&f, 1000, 0);
	KT_EXPECT_EQ(damon_perf_floor_value(&f), 0ULL);
	/* saturates, never wraps */
	for (int i = 0; i < 10; i++)
		damon_perf_floor_published(&f, U64_MAX, 5);
	KT_EXPECT_GT(f.avg, U64_MAX / 2);
	KT_EXPECT_EQ(damon_perf_floor_value(&f),
		     div_u64(f.avg, 2 * DAMON_PERF_FLOOR_AVG_SCALE));
}

static const struct kt_case cases[] = {
	KT_CASE(drain_should_sum_the_periods_of_reports),
	KT_CASE(drain_should_find_first_and_last_region),
	KT_CASE(drain_should_match_exact_boundaries),
	KT_CASE(drain_should_miss_gaps_and_outside),
	KT_CASE(drain_should_reject_straddling_access),
	KT_CASE(drain_should_route_vaddr_reports_by_tgid),
	KT_CASE(drain_should_drop_stale_reports),
	KT_CASE(drain_should_count_every_sample_in_count_mode),
	KT_CASE(drain_should_saturate_counters),
	KT_CASE(drain_should_scale_credit_by_probe_weight),
	KT_CASE(drain_should_credit_once_per_interval_in_presence_mode),
	KT_CASE(drain_should_credit_passes_as_interval_drains),
	KT_CASE(drain_should_count_probe_hits_per_probe),
	KT_CASE(drain_should_grow_snapshot_only_at_high_water_mark),
	KT_CASE(drain_should_snapshot_the_largest_context),
	KT_CASE(drain_should_count_reports_of_a_pass_without_memory),
	KT_CASE(drain_should_keep_sample_keys_in_samples_mode),
	KT_CASE(drain_should_not_keep_samples_in_random_mode),
	KT_CASE(drain_should_key_vaddr_samples_by_target_position),
	KT_CASE(drain_should_bound_samples_and_grow_at_high_water_mark),
	KT_CASE(drain_then_split_should_sort_the_samples),
	KT_CASE(drain_then_split_should_isolate_hot_range),
	KT_CASE(floor_should_follow_hot_regions_and_average),
	KT_CASE(filters_should_follow_first_match_and_last_default),
	KT_CASE(drain_should_apply_context_filters),
	{NULL, NULL},
};

const struct kt_suite kt_drain_suite = {"KmodDrain", cases, kt_kmod_init,
					kt_kmod_fini};
