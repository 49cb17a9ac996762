/* SPDX-License-Identifier: GPL-2.0 */
/*
 * C interface of the microbenchmark glue (glue.c): it drives the module's
 * own ring.c, drain.c and regions.c, built in userspace over kshim/, so the
 * C++ benchmarks never see kernel types.
 */
#ifndef _DAMON_PERF_BENCH_GLUE_H
#define _DAMON_PERF_BENCH_GLUE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct bench_ctx;

/* Baselines: a per-CPU counter increment, out of line and inline. */
void bench_counter_inc(void);
void bench_counter_batch(unsigned int n);
unsigned long bench_counter_value(void);

/* Rings: @size entries per CPU (0: the default ring). */
struct bench_ctx *bench_rings_new(unsigned int size);
/* @n reports through damon_perf_report_access() on CPU 0 (n < ring size) */
unsigned int bench_report_batch(struct bench_ctx *b, unsigned int n);
unsigned int bench_report_one(struct bench_ctx *b);
/* forget the reports queued on CPU 0 (consumer caught up), O(1) */
void bench_rings_forget(struct bench_ctx *b);

/* Drain: one target of @nr_regions 4 KiB regions; vaddr or paddr. */
struct bench_ctx *bench_drain_new(unsigned long nr_regions, int vaddr);
/* reports at uniformly random addresses in the target (seeded) */
void bench_drain_fill_reports(struct bench_ctx *b, unsigned int n,
			      uint64_t seed);
int bench_drain_prepare(struct bench_ctx *b);
/* credit the filled reports: damon_perf_drain_report() (binary search) */
unsigned int bench_drain_credit(struct bench_ctx *b);
/* the same, with a linear scan of the snapshot instead */
unsigned int bench_drain_credit_linear(struct bench_ctx *b);
/* queue the filled reports in the rings, spread over CPUs */
void bench_drain_queue(struct bench_ctx *b);
/* a kdamond drain pass: damon_perf_drain_rings() */
unsigned int bench_drain_pass(struct bench_ctx *b);
unsigned int bench_nr_reports(struct bench_ctx *b);
/* reports credited so far, all contexts (the match counter) */
unsigned long bench_matched(void);
/* @n locked ORs: set_bit(), the pending bit of report_access */
void bench_locked_or_batch(unsigned int n);

/*
 * Regions: one paddr target of @span bytes, min/max_nr_regions, starting
 * from min regions. A split mode selects how the aggregation splits;
 * modes added to regions.c join enum bench_split_mode and the switch in
 * bench_regions_aggregate().
 */
enum bench_split_mode {
	BENCH_SPLIT_RANDOM,  /* DAMON's random split (regions_adjust_split) */
	BENCH_SPLIT_SAMPLES, /* where the samples' density changes */
	BENCH_NR_SPLIT_MODES,
};
struct bench_ctx *bench_regions_new(unsigned long span, unsigned int min_nr,
				    unsigned int max_nr);
/*
 * Credit @nr samples over @intervals sample intervals (presence mode):
 * @hot_pct percent in the hot range [span/2, span/2 + hot), the others
 * uniform over the target.
 */
void bench_regions_credit(struct bench_ctx *b, unsigned int nr,
			  unsigned int intervals, unsigned long hot,
			  unsigned int hot_pct, uint64_t seed);
/*
 * One aggregation as damon_perf_kdamond_aggregate(): cut by samples,
 * age and merge, reset, split. @mode also holds for the next credit (the
 * drain keeps samples only in samples mode), so the first aggregation
 * after a change of mode has no samples to cut by.
 */
void bench_regions_aggregate(struct bench_ctx *b, enum bench_split_mode mode);
unsigned int bench_regions_nr(struct bench_ctx *b);

void bench_free(struct bench_ctx *b);

#ifdef __cplusplus
}
#endif

#endif
