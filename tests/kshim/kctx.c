// SPDX-License-Identifier: GPL-2.0
/*
 * What the KUnit suites run natively (tests/kunit over kunit.c) call of
 * the module's files that build only as kernel code: kmod/ctx.c's two
 * pure helpers, the same bodies, and the entry points of kmod/kdamond.c
 * and kmod/debugfs.c that only the kernel-only cases
 * (tests/user/kunit_native.cpp's list) reach, which end the run if called.
 */
#include <stdio.h>
#include <stdlib.h>

#include "kshim.h"
#include "ctx.h"
#include "debugfs.h"
#include "kdamond.h"

/* kmod/ctx.c */
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

/* kmod/ctx.c */
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

void shim_kernel_only(const char *fn)
{
	fprintf(stderr, "%s: kernel code, not built natively\n", fn);
	abort();
}

bool damon_perf_kdamond_aggregate(struct damon_perf_ctx *ctx, u64 elapsed_ns)
{
	shim_kernel_only(__func__);
}

void damon_perf_debugfs_ctx_add(struct damon_perf_ctx *ctx)
{
	shim_kernel_only(__func__);
}

void damon_perf_debugfs_ctx_del(struct damon_perf_ctx *ctx)
{
	shim_kernel_only(__func__);
}
