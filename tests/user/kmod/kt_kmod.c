// SPDX-License-Identifier: GPL-2.0
/*
 * What the C cases of kmod_test share (kt_kmod.h): per-case cleanup, and
 * contexts and targets made as kmod/ctx.c makes them (ctx.c needs a
 * kernel and is not built here).
 */
#include <stdlib.h>
#include "kt_kmod.h"

#define KT_MAX_DEFER 256

static struct {
	void (*fn)(void *);
	void *arg;
} deferred[KT_MAX_DEFER];
static unsigned int nr_deferred;

void kt_kmod_init(void)
{
	const char *seed = getenv("KT_RANDOM_SEED");

	shim_cpu = 0;
	/*
	 * get_random_u32_below() is the kernel's true random source; here a
	 * seeded one, seed 1 unless KT_RANDOM_SEED names another (to walk
	 * the random choices a KUnit run makes differently every time).
	 */
	shim_random_seed(seed ? strtoull(seed, NULL, 0) : 1);
}

void kt_kmod_fini(void)
{
	while (nr_deferred) {
		nr_deferred--;
		deferred[nr_deferred].fn(deferred[nr_deferred].arg);
	}
	shim_cpu = 0;
}

void kt_defer(void (*fn)(void *), void *arg)
{
	if (nr_deferred == KT_MAX_DEFER)
		abort();
	deferred[nr_deferred].fn = fn;
	deferred[nr_deferred].arg = arg;
	nr_deferred++;
}

void *kt_zalloc(size_t size)
{
	void *p = calloc(1, size);

	if (!p)
		abort();
	kt_defer(free, p);
	return p;
}

void kt_attrs_default(struct damon_perf_attrs *attrs)
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
}

struct damon_perf_target *kt_target_new(u32 id)
{
	struct damon_perf_target *t = calloc(1, sizeof(*t));

	if (!t)
		abort();
	t->id = id;
	INIT_LIST_HEAD(&t->regions);
	return t;
}

static void ctx_free(void *arg)
{
	struct damon_perf_ctx *ctx = arg;
	struct damon_perf_target *t, *next;

	list_for_each_entry_safe (t, next, &ctx->targets, list) {
		damon_perf_regions_free(t);
		free(t);
	}
	damon_perf_rings_free(&ctx->rings);
	damon_perf_drain_free(ctx);
	free(ctx);
}

struct damon_perf_ctx *kt_ctx_new(u32 ops)
{
	struct damon_perf_ctx *ctx = calloc(1, sizeof(*ctx));

	if (!ctx)
		abort();
	INIT_LIST_HEAD(&ctx->targets);
	ctx->ops = ops;
	kt_attrs_default(&ctx->attrs);
	ctx->sample_seq = 1;
	kt_defer(ctx_free, ctx);
	return ctx;
}

static void target_free(void *arg)
{
	damon_perf_regions_free(arg);
	free(arg);
}

struct damon_perf_target *kt_target_alloc(void)
{
	struct damon_perf_target *t = kt_target_new(0);

	kt_defer(target_free, t);
	return t;
}

struct damon_perf_target *kt_target_add(struct damon_perf_ctx *ctx, pid_t pid,
					unsigned long start, unsigned int nr)
{
	struct damon_perf_target *t = kt_target_new(++ctx->nr_targets);

	t->pid = pid;
	t->start = start;
	t->end = start + nr * DAMON_PERF_MIN_REGION;
	list_add_tail(&t->list, &ctx->targets);
	if (damon_perf_regions_split_evenly(t, t->start, t->end, nr) ||
	    t->nr_regions != nr)
		KT_FAIL("target of %u regions at %lx", nr, start);
	return t;
}
