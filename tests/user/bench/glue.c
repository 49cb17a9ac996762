// SPDX-License-Identifier: GPL-2.0
/*
 * Microbenchmark glue: builds contexts, rings and regions out of the
 * module's own functions (ring.c, drain.c, regions.c over tests/kshim) and runs
 * the loops the benchmarks time. Only what a kernel caller would do, plus
 * two bench hooks: bench_rings_forget() (a consumer that caught up without
 * reading) and the linear-scan credit, the alternative to drain.c's
 * binary search.
 */
#include <stdlib.h>

#include "kshim.h"
#include "ctx.h"
#include "drain.h"
#include "regions.h"
#include "stats.h"
#include "ring.h"
#include "glue.h"

void shim_random_seed(u64 seed);

#define BENCH_BASE 0x100000000UL /* first address of a target */
#define BENCH_PID 4242

struct bench_ctx {
	struct damon_perf_ctx ctx;
	struct damon_perf_target target;
	struct damon_perf_drain d;
	struct damon_perf_report *reports;
	unsigned int nr_reports;
	unsigned long span;
};

static unsigned long __percpu *counter;

/*
 * The timed loops start on a 64-byte line, so that an unrelated change
 * of the code before them cannot move a loop across an instruction-cache
 * (AMD op-cache) line: on this project's x86 host that alone halved the
 * inline increment's rate, with the same instructions.
 */
#define BENCH_LOOP __attribute__((__aligned__(64)))

__attribute__((constructor)) static void counter_init(void)
{
	counter = alloc_percpu(unsigned long);
	if (!counter)
		abort();
}

/* Out of line, like any callee the handler would make. */
BENCH_LOOP noinline void bench_counter_inc(void)
{
	this_cpu_inc(*counter);
}

BENCH_LOOP void bench_counter_batch(unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		this_cpu_inc(*counter);
}

unsigned long bench_counter_value(void)
{
	return *this_cpu_ptr(counter);
}

static struct bench_ctx *bench_alloc(void)
{
	struct bench_ctx *b = calloc(1, sizeof(*b));

	if (!b)
		abort();
	INIT_LIST_HEAD(&b->ctx.targets);
	INIT_LIST_HEAD(&b->target.regions);
	b->ctx.attrs.sample_us = 5000;
	b->ctx.attrs.aggr_us = 100000;
	b->ctx.attrs.update_us = 1000000;
	b->ctx.attrs.min_nr_regions = 10;
	b->ctx.attrs.max_nr_regions = 1000;
	b->ctx.attrs.mode = DAMON_PERF_MODE_PRESENCE;
	return b;
}

struct bench_ctx *bench_rings_new(unsigned int size)
{
	struct bench_ctx *b = bench_alloc();

	if (damon_perf_rings_alloc(&b->ctx.rings, size, NULL, NULL))
		abort();
	return b;
}

static const struct damon_perf_report one_report = {
	.paddr = 0x12345000UL,
	.vaddr = 0x7f0000001000UL,
	.size = PAGE_SIZE,
	.time_ns = 1, /* the overflow handler passes damon_perf_clock_ns() */
	.cpu = 0,
	.tid = BENCH_PID,
	.tgid = BENCH_PID,
	.probe_idx = 1,
	.src = DAMON_PERF_SRC_OVERFLOW,
};

BENCH_LOOP unsigned int bench_report_batch(struct bench_ctx *b, unsigned int n)
{
	unsigned int i, queued = 0;

	shim_cpu = 0;
	for (i = 0; i < n; i++)
		queued += damon_perf_report_access(&b->ctx.rings, &one_report);
	return queued;
}

unsigned int bench_report_one(struct bench_ctx *b)
{
	return damon_perf_report_access(&b->ctx.rings, &one_report);
}

void bench_rings_forget(struct bench_ctx *b)
{
	struct damon_perf_ring *r = per_cpu_ptr(b->ctx.rings.ring, 0);

	smp_store_release(&r->tail, READ_ONCE(r->head));
	cpumask_test_and_clear_cpu(0, &b->ctx.rings.pending);
}

struct bench_ctx *bench_drain_new(unsigned long nr_regions, int vaddr)
{
	struct bench_ctx *b = bench_alloc();
	unsigned long i;

	b->ctx.ops = vaddr ? DAMON_PERF_OPS_VADDR : DAMON_PERF_OPS_PADDR;
	b->target.pid = vaddr ? BENCH_PID : 0;
	b->target.id = 1;
	b->span = nr_regions * PAGE_SIZE;
	b->target.start = BENCH_BASE;
	b->target.end = BENCH_BASE + b->span;
	for (i = 0; i < nr_regions; i++) {
		struct damon_perf_region *r;

		r = damon_perf_region_new(BENCH_BASE + i * PAGE_SIZE,
					  BENCH_BASE + (i + 1) * PAGE_SIZE);
		if (!r)
			abort();
		damon_perf_region_add(&b->target, r);
	}
	list_add_tail(&b->target.list, &b->ctx.targets);
	b->ctx.nr_targets = 1;
	if (damon_perf_rings_alloc(&b->ctx.rings, DAMON_PERF_RING_MAX_SIZE,
				   NULL, NULL))
		abort();
	return b;
}

void bench_drain_fill_reports(struct bench_ctx *b, unsigned int n,
			      uint64_t seed)
{
	unsigned long pages = b->span / PAGE_SIZE;
	unsigned int i;

	free(b->reports);
	b->reports = calloc(n, sizeof(*b->reports));
	if (!b->reports)
		abort();
	b->nr_reports = n;
	shim_random_seed(seed);
	for (i = 0; i < n; i++) {
		struct damon_perf_report *rep = &b->reports[i];
		unsigned long addr =
			BENCH_BASE +
			PAGE_SIZE *
				(unsigned long)get_random_u32_below((u32)pages);

		*rep = one_report;
		rep->paddr = addr;
		rep->vaddr = addr;
		rep->cpu = (int)(i % nr_cpu_ids);
		rep->time_ns = 0; /* report_access stamps the clock */
	}
}

int bench_drain_prepare(struct bench_ctx *b)
{
	return damon_perf_drain_prepare(&b->ctx, &b->d);
}

unsigned int bench_drain_credit(struct bench_ctx *b)
{
	unsigned int i, n = 0;

	for (i = 0; i < b->nr_reports; i++)
		n += damon_perf_drain_report(&b->d, &b->reports[i]);
	return n;
}

/*
 * The alternative to drain.c's binary search: scan the snapshot. Same
 * checks as damon_perf_drain_report() for a report of an unfiltered paddr
 * or single-target vaddr context, same crediting (presence mode).
 */
unsigned int bench_drain_credit_linear(struct bench_ctx *b)
{
	const struct damon_perf_drain *d = &b->d;
	unsigned int i, j, n = 0;

	for (i = 0; i < b->nr_reports; i++) {
		const struct damon_perf_report *rep = &b->reports[i];
		unsigned long addr = b->ctx.ops == DAMON_PERF_OPS_VADDR
					     ? rep->vaddr
					     : rep->paddr;

		for (j = 0; j < d->nr_ents; j++) {
			const struct damon_perf_drain_ent *e = &d->ents[j];
			struct damon_perf_region *r = e->r;

			if (addr < e->start || addr >= e->end)
				continue;
			if (rep->size > e->end - addr)
				break;
			r->probe_hits[rep->probe_idx - 1]++;
			if (r->pass_seq != d->seq || !(r->pass_seen & 1)) {
				r->pass_seq = d->seq;
				r->pass_seen = 1;
				r->nr_accesses++;
			}
			n++;
			break;
		}
	}
	return n;
}

void bench_drain_queue(struct bench_ctx *b)
{
	unsigned int i;

	for (i = 0; i < b->nr_reports; i++) {
		shim_cpu = b->reports[i].cpu;
		if (!damon_perf_report_access(&b->ctx.rings, &b->reports[i]))
			abort();
	}
	shim_cpu = 0;
}

unsigned int bench_drain_pass(struct bench_ctx *b)
{
	return damon_perf_drain_rings(&b->ctx);
}

unsigned long bench_matched(void)
{
	struct damon_perf_stats st;

	damon_perf_stats_aggregate(&st);
	return st.match;
}

BENCH_LOOP void bench_locked_or_batch(unsigned int n)
{
	static unsigned long word;
	unsigned int i;

	for (i = 0; i < n; i++)
		__atomic_fetch_or(&word, 1UL << (i & 63), __ATOMIC_RELAXED);
}

unsigned int bench_nr_reports(struct bench_ctx *b)
{
	return b->nr_reports;
}

struct bench_ctx *bench_regions_new(unsigned long span, unsigned int min_nr,
				    unsigned int max_nr)
{
	struct bench_ctx *b = bench_alloc();

	b->ctx.ops = DAMON_PERF_OPS_PADDR;
	/* until the first bench_regions_aggregate() names the mode */
	b->ctx.attrs.split = DAMON_PERF_SPLIT_RANDOM;
	b->ctx.attrs.min_nr_regions = min_nr;
	b->ctx.attrs.max_nr_regions = max_nr;
	b->target.id = 1;
	b->span = span;
	b->target.start = BENCH_BASE;
	b->target.end = BENCH_BASE + span;
	list_add_tail(&b->target.list, &b->ctx.targets);
	b->ctx.nr_targets = 1;
	if (damon_perf_regions_init(&b->ctx, &b->target))
		abort();
	return b;
}

void bench_regions_credit(struct bench_ctx *b, unsigned int nr,
			  unsigned int intervals, unsigned long hot,
			  unsigned int hot_pct, uint64_t seed)
{
	unsigned long pages = b->span / PAGE_SIZE, hot_pages = hot / PAGE_SIZE;
	unsigned long hot_start = BENCH_BASE + b->span / 2;
	struct damon_perf_report rep = one_report;
	unsigned int i, k;

	shim_random_seed(seed);
	for (k = 0; k < intervals; k++) {
		b->ctx.sample_seq++;
		if (damon_perf_drain_prepare(&b->ctx, &b->d))
			abort();
		for (i = 0; i < nr / intervals; i++) {
			unsigned long addr;

			if (get_random_u32_below(100) < hot_pct)
				addr = hot_start +
				       PAGE_SIZE * get_random_u32_below(
							   (u32)hot_pages);
			else
				addr = BENCH_BASE +
				       PAGE_SIZE *
					       get_random_u32_below((u32)pages);
			rep.paddr = addr;
			damon_perf_drain_report(&b->d, &rep);
		}
	}
}

/* kdamond.c damon_perf_kdamond_aggregate() minus snapshot and notify */
void bench_regions_aggregate(struct bench_ctx *b, enum bench_split_mode mode)
{
	struct damon_perf_ctx *ctx = &b->ctx;
	struct damon_perf_target *t;
	unsigned int max_nr = 0;

	switch (mode) {
	case BENCH_SPLIT_SAMPLES:
		ctx->attrs.split = DAMON_PERF_SPLIT_SAMPLES;
		break;
	case BENCH_SPLIT_RANDOM:
	default:
		ctx->attrs.split = DAMON_PERF_SPLIT_RANDOM;
		break;
	}
	damon_perf_regions_cut_ctx(ctx);
	damon_perf_for_each_target (t, ctx)
		max_nr = max(max_nr, damon_perf_regions_max_nr_accesses(t));
	damon_perf_regions_merge_ctx(ctx, max_nr);
	damon_perf_for_each_target (t, ctx)
		damon_perf_regions_reset(t);
	damon_perf_regions_split_ctx(ctx);
}

unsigned int bench_regions_nr(struct bench_ctx *b)
{
	return b->target.nr_regions;
}

void bench_free(struct bench_ctx *b)
{
	if (!b)
		return;
	damon_perf_regions_free(&b->target);
	damon_perf_rings_free(&b->ctx.rings);
	damon_perf_drain_free(&b->ctx);
	free(b->reports);
	free(b);
}
