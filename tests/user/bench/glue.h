/* SPDX-License-Identifier: GPL-2.0 */
/*
 * C interface of the microbenchmark glue (glue.c): it drives the module's
 * own ring.c, drain.c and regions.c, built in userspace over tests/kshim,
 * so the C++ benchmarks never see kernel types.
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

/*
 * Two-thread rings (ring_drops, drops_glue.c): one context's rings of the
 * default size on two CPUs, a producer thread as CPU 0 and a consumer
 * thread (the kdamond) as CPU 1. Each thread names its CPU first.
 */
struct bench_drops;
struct bench_drops_stats {
	unsigned long enqueue;    /* reports accepted (ring.h's enqueue) */
	unsigned long dequeue;    /* reports consumed */
	unsigned long overflow;   /* refused, ring full: the drops */
	unsigned long busy_drop;  /* refused, nested producer (never here) */
	unsigned long no_probe;   /* refused, probe_idx 0 (never here) */
	unsigned long early_wake; /* watermark crossings that woke */
	unsigned long drained;    /* reports the drain callback saw */
	unsigned int peak;        /* highest occupancy the consumer saw */
	unsigned int occupancy;   /* reports waiting */
	unsigned int size;        /* entries of the ring */
	unsigned int hiwat;       /* high watermark (entries) */
};
/* damon_perf_rings_valid_size(): 1 if @size can be a ring's size */
int bench_drops_valid_size(unsigned int size);
/* the calling thread's CPU (kshim's per-thread shim_cpu) */
void bench_drops_set_cpu(int cpu);
/*
 * Rings of @size entries per CPU (0: the default, 256), with the
 * watermark's wake callback @wake(@arg) or none (NULL).
 */
struct bench_drops *bench_drops_new(unsigned int size, void (*wake)(void *),
				    void *arg);
/*
 * Producer (CPU 0): one report through damon_perf_report_access(), then
 * the queued irq_work, if report_access queued one (the shim's
 * irq_work_queue() only counts): it calls @wake. Return: 1 queued, 0 not.
 */
int bench_drops_report(struct bench_drops *d);
/* Consumer: damon_perf_rings_drain_pending(). Return: reports drained. */
unsigned int bench_drops_drain(struct bench_drops *d);
/* Consumer, producer gone: every ring, whatever its pending bit. */
unsigned int bench_drops_drain_all(struct bench_drops *d);
/* CPU 0's ring counters, and the drain callback's count */
void bench_drops_read(struct bench_drops *d, struct bench_drops_stats *st);
void bench_drops_free(struct bench_drops *d);

#ifdef __cplusplus
}
#endif

#endif
