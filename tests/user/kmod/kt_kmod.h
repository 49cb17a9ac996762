/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the C cases of kmod_test share: contexts, targets and regions made
 * as a kernel caller makes them (the module's ctx.c, which needs a kernel,
 * is not built here), and the global counters of stats.c.
 */
#ifndef _DAMON_PERF_KT_KMOD_H
#define _DAMON_PERF_KT_KMOD_H

#include <stdlib.h>

#include "kshim.h"
#include "ctx.h"
#include "drain.h"
#include "regions.h"
#include "ring.h"
#include "stats.h"
#include "kt.h"

#define KT_BASE (1UL << 30)
#define KT_PG DAMON_PERF_MIN_REGION

/* what the ported KUnit cases use beyond the shim */
#define IS_ALIGNED(x, a) (((x) & ((typeof(x))(a)-1)) == 0)
#define ULONG_MAX (~0UL)
#define list_last_entry(ptr, type, member) list_entry((ptr)->prev, type, member)

void shim_random_seed(u64 seed); /* kstubs.c */

/* Every case starts on CPU 0 with the same random sequence. */
void kt_kmod_init(void);
/* Run what kt_defer() was given, newest first: after every case. */
void kt_kmod_fini(void);
/* @fn(@arg) at the end of the case, failed or not. */
void kt_defer(void (*fn)(void *), void *arg);
/* zeroed memory freed at the end of the case (kunit_kzalloc()) */
void *kt_zalloc(size_t size);
/* damon_perf_attrs_default() of kmod/ctx.c, which is not built here */
void kt_attrs_default(struct damon_perf_attrs *attrs);
/* damon_perf_target_new() of kmod/ctx.c: no context, no regions */
struct damon_perf_target *kt_target_new(u32 id);
/* a context of @ops, default attributes, sample_seq 1, freed with its
 * targets, rings and drain scratch at the end of the case */
struct damon_perf_ctx *kt_ctx_new(u32 ops);
/* a target without regions, freed with them at the end of the case */
struct damon_perf_target *kt_target_alloc(void);
/* a target of @ctx (freed with it): @nr one-page regions from @start */
struct damon_perf_target *kt_target_add(struct damon_perf_ctx *ctx, pid_t pid,
					unsigned long start, unsigned int nr);

/* A global counter of stats.c (all CPUs). */
static inline unsigned long kt_global(enum damon_perf_stat_idx idx)
{
	struct damon_perf_stats st;

	damon_perf_stats_aggregate(&st);
	return damon_perf_stats_get(&st, idx);
}

/*
 * The kernel's prandom state API, the same generator (lib/random32.c's
 * four-component Tausworthe, seeded as include/linux/prandom.h seeds it):
 * a seeded case draws the same numbers here and in the KUnit build, so a
 * seed that fails in the debug VM fails the same way under ctest.
 */
struct rnd_state {
	u32 s1, s2, s3, s4;
};

static inline u32 kt_seed_min(u32 x, u32 m)
{
	return x < m ? x + m : x;
}

static inline void prandom_seed_state(struct rnd_state *st, u64 seed)
{
	u32 i = (u32)((seed >> 32) ^ (seed << 10) ^ seed);

	st->s1 = kt_seed_min(i, 2U);
	st->s2 = kt_seed_min(i, 8U);
	st->s3 = kt_seed_min(i, 16U);
	st->s4 = kt_seed_min(i, 128U);
}

/* one Tausworthe step of a component: shifts a, b, d, mask c */
static inline u32 kt_taus(u32 s, unsigned int a, unsigned int b, u32 c,
			  unsigned int d)
{
	return ((s & c) << d) ^ (((s << a) ^ s) >> b);
}

static inline u32 prandom_u32_state(struct rnd_state *st)
{
	st->s1 = kt_taus(st->s1, 6, 13, 0xfffffffeU, 18);
	st->s2 = kt_taus(st->s2, 2, 27, 0xfffffff8U, 2);
	st->s3 = kt_taus(st->s3, 13, 21, 0xfffffff0U, 7);
	st->s4 = kt_taus(st->s4, 3, 12, 0xffffff80U, 13);
	return st->s1 ^ st->s2 ^ st->s3 ^ st->s4;
}

static inline void *kvcalloc(size_t n, size_t size, gfp_t gfp)
{
	(void)gfp;
	return calloc(n, size);
}

/* kunit_info(): the figures stay in KUnit's log, not printed here */
static inline __attribute__((__format__(__printf__, 1, 2))) void
kt_info(const char *fmt, ...)
{
	(void)fmt;
}

#endif /* _DAMON_PERF_KT_KMOD_H */
