/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-context, per-CPU single-producer/single-consumer report rings.
 *
 * The producer is always the local CPU (perf overflow handler in NMI/IRQ/
 * process context, or an AUX drain pinned to the CPU owning the buffer);
 * the consumer is the context's kdamond.
 */
#ifndef _DAMON_PERF_RING_H
#define _DAMON_PERF_RING_H

#include <linux/types.h>
#include <linux/cache.h>
#include <linux/cpumask.h>
#include <linux/irq_work.h>
#include <linux/mutex.h>
#include <linux/percpu.h>

#include <linux/timekeeping.h>

#include <linux/damon_perf.h>	/* uapi: the ring size limits */

#define DAMON_PERF_RING_MIN_SIZE	DAMON_PERF_RING_SIZE_MIN
#define DAMON_PERF_RING_MAX_SIZE	DAMON_PERF_RING_SIZE_MAX
#define DAMON_PERF_RING_DEF_SIZE	DAMON_PERF_RING_SIZE_DEF

/**
 * damon_perf_clock_ns() - The clock of report timestamps and of the stale
 * window.
 *
 * CLOCK_MONOTONIC read through the NMI-safe fast accessor: one clock for
 * every CPU, unlike local_clock(), whose values from different CPUs may
 * drift apart, so a report stamped on one CPU compares with a drain
 * stamped on another.
 *
 * Context: any, including NMI.
 * Return: nanoseconds.
 */
static inline u64 damon_perf_clock_ns(void)
{
	return ktime_get_mono_fast_ns();
}

/* Where a report came from. */
enum damon_perf_report_src {
	DAMON_PERF_SRC_OVERFLOW,	/* perf overflow handler */
	DAMON_PERF_SRC_AUX,		/* AUX buffer decode (ARM SPE) */
	DAMON_PERF_SRC_INJECTED,	/* tests and debugging */
};

/**
 * struct damon_perf_report - One sampled memory access.
 * @paddr:	physical address, page aligned, 0 when unknown.
 * @vaddr:	virtual address, page aligned, 0 when unknown.
 * @size:	access size in bytes (PAGE_SIZE when unknown).
 * @period:	events this sample stands for (perf's data->period); 0 when
 *		the producer does not know it: the drain then takes the
 *		probe's fixed sample_period, or 1.
 * @time_ns:	damon_perf_clock_ns() when the sample was taken (AUX: when
 *		it was decoded); 0 lets damon_perf_report_access() stamp it.
 * @cpu:	CPU that took the sample.
 * @tid:	thread id of the sampled task.
 * @tgid:	thread group id of the sampled task.
 * @is_write:	true for a store.
 * @probe_idx:	1-based index of the probe that sampled it; 0 is refused.
 * @src:	&enum damon_perf_report_src.
 */
struct damon_perf_report {
	unsigned long paddr;
	unsigned long vaddr;
	unsigned long size;
	u64 period;
	u64 time_ns;
	int cpu;
	pid_t tid;
	pid_t tgid;
	u8 is_write;
	u8 probe_idx;
	u8 src;
};

/**
 * struct damon_perf_ring - One CPU's ring of one context.
 * @head:	next slot the producer writes; written only by the producer.
 *		Runs freely from 0, so it is also the count of reports
 *		accepted (modulo 2^32): damon_perf_ring_read_stats() derives
 *		enqueue from it.
 * @busy:	set while a producer of this CPU fills the ring; a nested one
 *		(NMI over process context) finds it set (ring.c).
 * @wake_armed:	the high-watermark wake may fire (re-armed by the drain).
 * @overflow:	reports refused because the ring was full.
 * @busy_drop:	reports refused because a producer nested.
 * @early_wake:	times the high watermark woke the kdamond.
 * @no_probe:	reports refused because their probe_idx was 0.
 * @tail:	next slot the consumer reads; written only by the consumer.
 * @dequeue:	reports consumed.
 * @peak:	highest occupancy seen by the consumer, which measures it
 *		when it drains (occupancy only grows between two drains).
 * @mask:	@entries length minus one (the length is a power of two).
 * @hiwat:	occupancy that triggers the early wake.
 * @entries:	@mask + 1 reports.
 *
 * @head and @tail run freely and are masked on access, so the ring holds
 * up to @mask + 1 reports and head - tail is its occupancy.
 */
struct damon_perf_ring {
	/* producer cache line */
	unsigned int head ____cacheline_aligned_in_smp;
	int busy;
	int wake_armed;
	unsigned long overflow;
	unsigned long busy_drop;
	unsigned long early_wake;
	unsigned long no_probe;
	/* consumer cache line */
	unsigned int tail ____cacheline_aligned_in_smp;
	unsigned int peak;
	unsigned long dequeue;
	/* read-mostly */
	unsigned int mask ____cacheline_aligned_in_smp;
	unsigned int hiwat;
	struct damon_perf_report *entries;
};

/**
 * struct damon_perf_rings - The report rings of one context.
 * @ring:	per-CPU rings.
 * @pending:	CPUs whose ring holds unconsumed reports; set by the
 *		producer when it finds the bit clear, cleared by the drain.
 * @recheck:	consumer only: CPUs whose bit the last drain cleared, looked
 *		at again by the next drain whatever their bit (ring.c:
 *		"The pending bit"); allocated with @ring (off stack on
 *		large-NR_CPUS kernels, so the struct stays small).
 * @wake_work:	NMI-safe deferral of the early kdamond wake-up.
 * @wake:	called from @wake_work (hard IRQ context) to wake the consumer.
 * @wake_arg:	argument of @wake.
 * @size:	entries per CPU, a power of two.
 * @bytes:	damon_perf_rings_bytes() of @size, counted against
 *		max_ring_kb while allocated.
 * @ctx_id:	id of the owning context, for tracepoints; kept across
 *		alloc/free, set by damon_perf_debugfs_ctx_add() (0 until then).
 */
struct damon_perf_rings {
	struct damon_perf_ring __percpu *ring;
	cpumask_t pending;
	cpumask_var_t recheck;
	struct irq_work wake_work;
	void (*wake)(void *arg);
	void *wake_arg;
	unsigned int size;
	u64 bytes;
	int ctx_id;
};

/**
 * struct damon_perf_ring_stats - Counters of one ring, or of a context's
 * rings summed over CPUs (then @peak is the maximum and @occupancy the sum).
 * @enqueue:	reports accepted.
 * @dequeue:	reports consumed.
 * @overflow:	reports refused, ring full.
 * @busy_drop:	reports refused, nested producer.
 * @early_wake:	high-watermark wake-ups.
 * @no_probe:	reports refused, probe_idx 0.
 * @peak:	highest occupancy.
 * @occupancy:	reports waiting when read.
 * @size:	entries of the ring.
 */
struct damon_perf_ring_stats {
	unsigned long enqueue;
	unsigned long dequeue;
	unsigned long overflow;
	unsigned long busy_drop;
	unsigned long early_wake;
	unsigned long no_probe;
	unsigned int peak;
	unsigned int occupancy;
	unsigned int size;
};

int damon_perf_rings_alloc(struct damon_perf_rings *rings, unsigned int size,
			   void (*wake)(void *arg), void *wake_arg);
void damon_perf_rings_free(struct damon_perf_rings *rings);
bool damon_perf_rings_valid_size(unsigned int size);
u64 damon_perf_rings_bytes(unsigned int size);
u64 damon_perf_rings_mem(u64 *in_use);

bool damon_perf_report_access(struct damon_perf_rings *rings,
			      const struct damon_perf_report *report);

/*
 * Consumer side. damon_perf_ring_drain() consumes every report published on
 * @cpu's ring, calling @fn for each; it returns the number consumed. Only
 * one consumer may drain a given rings at a time.
 */
typedef void (*damon_perf_report_fn)(const struct damon_perf_report *report,
				     void *arg);
unsigned int damon_perf_ring_drain(struct damon_perf_rings *rings, int cpu,
				   damon_perf_report_fn fn, void *arg);
unsigned int damon_perf_rings_drain_pending(struct damon_perf_rings *rings,
					    damon_perf_report_fn fn, void *arg);
bool damon_perf_rings_pending(struct damon_perf_rings *rings);
u64 damon_perf_rings_backlog(struct damon_perf_rings *rings);
void damon_perf_rings_recheck_all(struct damon_perf_rings *rings);

/* Held while rings->ring is set or cleared; readers of counters take it. */
extern struct mutex damon_perf_rings_lock;

/* Best-effort counters of @cpu's ring (any context; lifetime by caller). */
void damon_perf_ring_read_stats(struct damon_perf_rings *rings, int cpu,
				struct damon_perf_ring_stats *st);

/* High watermark of a ring of @size entries: 3/4 full. */
static inline unsigned int damon_perf_ring_hiwat(unsigned int size)
{
	return size - size / 4;
}

#if DAMON_PERF_KUNIT_HOOKS
/*
 * Test hook: when set, report_access calls it with the busy guard held,
 * just before the entry is written, so a test can nest a producer (a
 * self-NMI) exactly there. Never set outside KUnit.
 */
typedef void (*damon_perf_ring_hook_fn)(struct damon_perf_rings *rings);
extern damon_perf_ring_hook_fn damon_perf_ring_busy_hook;
#endif

#endif /* _DAMON_PERF_RING_H */
