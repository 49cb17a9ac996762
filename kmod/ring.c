// SPDX-License-Identifier: GPL-2.0
/*
 * Per-context, per-CPU single-producer/single-consumer report rings.
 *
 * Producer: the local CPU, in any context up to NMI. It is single per ring
 * because every producer runs with preemption disabled on the CPU owning
 * the ring, and a producer that interrupts another on the same CPU (an NMI
 * over a process-context or IRQ producer) is turned away by the busy
 * guard. Consumer: the context's kdamond; one drainer per ring at a time.
 *
 * Indices run freely (u32) and are masked on access: head - tail is the
 * occupancy, and the ring holds up to size reports.
 *
 * Ordering, producer                   consumer
 *   READ_ONCE(tail)            (P1)      test_and_clear(pending)
 *   write entry                          smp_mb__after_atomic()    (C1)
 *   smp_wmb()                  (P2)      READ_ONCE(head)
 *   WRITE_ONCE(head)                     smp_rmb()                 (C2)
 *   smp_mb__before_atomic()    (P3)      read entries
 *   set(pending)                         smp_store_release(tail)   (C3)
 * P2 pairs with C2: an entry is complete before its head is seen.
 * P3 pairs with C1: a head published after the consumer read head leaves
 * the pending bit set for the next drain, so no report is stranded.
 * C3 pairs with P1: the producer reuses a slot only after the consumer has
 * finished reading it (P1's control dependency orders the slot write
 * after the tail load: stores are not speculated).
 */
#include <linux/bug.h>
#include <linux/cpumask.h>
#include <linux/irq_work.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/topology.h>

#include "ring.h"
#include "stats.h"

#if IS_ENABLED(CONFIG_KUNIT)
damon_perf_ring_hook_fn damon_perf_ring_busy_hook;
EXPORT_SYMBOL_IF_KUNIT(damon_perf_ring_busy_hook);
#endif

/*
 * Orders the publication and the removal of rings->ring against readers of
 * the counters (debugfs), which may run while a context starts or stops.
 * Never taken by producers or the consumer.
 */
struct mutex damon_perf_rings_lock = __MUTEX_INITIALIZER(damon_perf_rings_lock);
EXPORT_SYMBOL_IF_KUNIT(damon_perf_rings_lock);

static void free_ring(struct damon_perf_ring __percpu *ring)
{
	int cpu;

	for_each_possible_cpu(cpu)
		kvfree(per_cpu_ptr(ring, cpu)->entries);
	free_percpu(ring);
}

/* Runs in hard IRQ context, queued from the producer (maybe an NMI). */
static void wake_fn(struct irq_work *work)
{
	struct damon_perf_rings *rings =
		container_of(work, struct damon_perf_rings, wake_work);

	if (rings->wake)
		rings->wake(rings->wake_arg);
}

/**
 * damon_perf_rings_valid_size() - Whether @size can be a ring size.
 * @size:	entries per CPU.
 *
 * Context: any.
 * Return: true for a power of two in [DAMON_PERF_RING_MIN_SIZE,
 * DAMON_PERF_RING_MAX_SIZE].
 */
bool damon_perf_rings_valid_size(unsigned int size)
{
	return size >= DAMON_PERF_RING_MIN_SIZE &&
	       size <= DAMON_PERF_RING_MAX_SIZE && is_power_of_2(size);
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_rings_valid_size);

/**
 * damon_perf_rings_alloc() - Allocate one ring per possible CPU.
 * @rings:	the context's rings, zeroed or freed before.
 * @size:	entries per CPU; 0 picks DAMON_PERF_RING_DEF_SIZE.
 * @wake:	called (hard IRQ) when a ring crosses its high watermark;
 *		may be NULL.
 * @wake_arg:	its argument.
 *
 * Must complete before the first producer can reach @rings (before the
 * first perf counter is armed).
 *
 * Context: process, may sleep.
 * Return: 0, -EINVAL for a bad size, -EBUSY if already allocated, -ENOMEM.
 */
int damon_perf_rings_alloc(struct damon_perf_rings *rings, unsigned int size,
			   void (*wake)(void *arg), void *wake_arg)
{
	struct damon_perf_ring __percpu *ring;
	int cpu;

	BUILD_BUG_ON(!is_power_of_2(DAMON_PERF_RING_MIN_SIZE));
	BUILD_BUG_ON(!is_power_of_2(DAMON_PERF_RING_MAX_SIZE));
	BUILD_BUG_ON(!is_power_of_2(DAMON_PERF_RING_DEF_SIZE));
	BUILD_BUG_ON(DAMON_PERF_RING_DEF_SIZE < DAMON_PERF_RING_MIN_SIZE);
	BUILD_BUG_ON(DAMON_PERF_RING_DEF_SIZE > DAMON_PERF_RING_MAX_SIZE);
	/* Free-running u32 indices: the size must divide 2^32. */
	BUILD_BUG_ON(ilog2(DAMON_PERF_RING_MAX_SIZE) >= 32);
	/* Producer and consumer indices on separate cache lines. */
	BUILD_BUG_ON(IS_ENABLED(CONFIG_SMP) &&
		     offsetof(struct damon_perf_ring, tail) -
		     offsetof(struct damon_perf_ring, head) < SMP_CACHE_BYTES);

	if (!size)
		size = DAMON_PERF_RING_DEF_SIZE;
	if (!damon_perf_rings_valid_size(size))
		return -EINVAL;
	if (rings->ring)
		return -EBUSY;

	ring = alloc_percpu(struct damon_perf_ring);
	if (!ring)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct damon_perf_ring *r = per_cpu_ptr(ring, cpu);

		r->entries = kvzalloc_node(array_size(size,
						      sizeof(*r->entries)),
					   GFP_KERNEL, cpu_to_node(cpu));
		if (!r->entries) {
			free_ring(ring);
			return -ENOMEM;
		}
		r->mask = size - 1;
		r->hiwat = damon_perf_ring_hiwat(size);
		r->wake_armed = 1;
	}

	cpumask_clear(&rings->pending);
	init_irq_work(&rings->wake_work, wake_fn);
	rings->wake = wake;
	rings->wake_arg = wake_arg;
	rings->size = size;
	mutex_lock(&damon_perf_rings_lock);
	rings->ring = ring;
	mutex_unlock(&damon_perf_rings_lock);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_rings_alloc);

/**
 * damon_perf_rings_free() - Free the rings of a context.
 * @rings:	allocated or not (then nothing happens).
 *
 * The caller has released every producer (perf counter, AUX drain work)
 * first. Waits for a queued early wake to finish.
 *
 * Context: process, may sleep.
 */
void damon_perf_rings_free(struct damon_perf_rings *rings)
{
	struct damon_perf_ring __percpu *ring = rings->ring;

	if (!ring)
		return;
	irq_work_sync(&rings->wake_work);
	mutex_lock(&damon_perf_rings_lock);
	rings->ring = NULL;
	mutex_unlock(&damon_perf_rings_lock);
	free_ring(ring);
	cpumask_clear(&rings->pending);
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_rings_free);

static void refuse(struct damon_perf_rings *rings, int why)
{
	damon_perf_observe_ring_overflow(rings ? rings->ctx_id : -1, why);
}

/*
 * The high watermark wakes the consumer once per crossing: the producer
 * disarms, the consumer re-arms after draining below the mark.
 */
static void maybe_wake(struct damon_perf_rings *rings,
		       struct damon_perf_ring *r, unsigned int occupancy)
{
	if (occupancy < r->hiwat || !READ_ONCE(r->wake_armed) || !rings->wake)
		return;
	WRITE_ONCE(r->wake_armed, 0);
	WRITE_ONCE(r->early_wake, r->early_wake + 1);
	damon_perf_observe_early_wake();
	/* NMI-safe; false only if already queued, then the wake is coming. */
	irq_work_queue(&rings->wake_work);
}

/**
 * damon_perf_report_access() - Queue a report on this CPU's ring.
 * @rings:	the owning context's rings.
 * @report:	the report; @report->probe_idx must be non-zero.
 *
 * The ring is this CPU's, whatever @report->cpu says. Refused (and counted
 * per CPU, per ring, and traced): probe_idx 0 (no_probe), no rings
 * (no_ring), a producer nested over another on this CPU (busy_drop), a
 * full ring (overflow). Crossing the high watermark queues an irq_work
 * that wakes the consumer early (early_wake).
 *
 * Context: any, including NMI. No locks, no allocation. A caller in
 * process context that can migrate must still be the only producer of
 * this CPU's ring while it runs: preemption is disabled inside.
 * Return: true if queued. A batch producer stops at the first false and
 * keeps the rest for later.
 */
bool damon_perf_report_access(struct damon_perf_rings *rings,
			      const struct damon_perf_report *report)
{
	struct damon_perf_ring *r;
	unsigned int head, tail, occ;
	bool queued = false;

	if (unlikely(!rings || !rings->ring)) {
		refuse(rings, DAMON_PERF_DROP_NO_RING);
		return false;
	}

	preempt_disable_notrace();
	r = this_cpu_ptr(rings->ring);

	/*
	 * Before the busy guard: producers nested two deep may both get
	 * here, so the count is an interrupt- and NMI-safe this_cpu RMW.
	 */
	if (unlikely(!report->probe_idx)) {
		this_cpu_inc(rings->ring->no_probe);
		refuse(rings, DAMON_PERF_DROP_NO_PROBE);
		goto out;
	}

	/* Interrupt- and NMI-safe RMW: a nested producer sees > 1. */
	if (this_cpu_inc_return(rings->ring->busy) != 1) {
		/* nested producers (two deep: NMI over IRQ) count alike */
		this_cpu_inc(rings->ring->busy_drop);
		refuse(rings, DAMON_PERF_DROP_BUSY);
		goto unbusy;
	}

#if IS_ENABLED(CONFIG_KUNIT)
	{
		damon_perf_ring_hook_fn hook =
			READ_ONCE(damon_perf_ring_busy_hook);

		if (hook)
			hook(rings);
	}
#endif

	head = r->head;
	/* P1, pairs with C3 (smp_store_release(tail) in the drain). */
	tail = READ_ONCE(r->tail);
	if (unlikely(head - tail > r->mask)) {
		WRITE_ONCE(r->overflow, r->overflow + 1);
		refuse(rings, DAMON_PERF_DROP_FULL);
		goto unbusy;
	}

	r->entries[head & r->mask] = *report;
	if (!report->time_ns)
		r->entries[head & r->mask].time_ns = damon_perf_clock_ns();
	/* P2, pairs with C2 (smp_rmb() in the drain): entry before head. */
	smp_wmb();
	WRITE_ONCE(r->head, head + 1);
	/* P3, pairs with C1: head before the pending bit. */
	smp_mb__before_atomic();
	cpumask_set_cpu(smp_processor_id(), &rings->pending);
	queued = true;

	occ = head + 1 - tail;
	WRITE_ONCE(r->enqueue, r->enqueue + 1);
	if (occ > r->peak)
		WRITE_ONCE(r->peak, occ);
	damon_perf_observe_ring_enqueue(occ);
	maybe_wake(rings, r, occ);
unbusy:
	this_cpu_dec(rings->ring->busy);
out:
	preempt_enable_notrace();
	return queued;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_report_access);

/**
 * damon_perf_ring_drain() - Consume every report published on @cpu's ring.
 * @rings:	the context's rings.
 * @cpu:	the ring's CPU.
 * @fn:		called for each report, oldest first; the report is valid
 *		only during the call.
 * @arg:	its argument.
 *
 * Clears @cpu's pending bit first, so a report published meanwhile sets it
 * again. Re-arms the early wake once the ring is below its watermark.
 *
 * Context: process (the context's only consumer), any CPU.
 * Return: reports consumed.
 */
unsigned int damon_perf_ring_drain(struct damon_perf_rings *rings, int cpu,
				   damon_perf_report_fn fn, void *arg)
{
	struct damon_perf_ring *r;
	unsigned int head, tail, n;

	if (!rings->ring || cpu < 0 || cpu >= nr_cpu_ids || !cpu_possible(cpu))
		return 0;
	r = per_cpu_ptr(rings->ring, cpu);

	cpumask_test_and_clear_cpu(cpu, &rings->pending);
	/* C1, pairs with P3: clear the bit before reading head. */
	smp_mb__after_atomic();
	head = READ_ONCE(r->head);
	/* C2, pairs with P2: read head before the entries. */
	smp_rmb();
	tail = r->tail;
	n = head - tail;
	for (; tail != head; tail++)
		fn(&r->entries[tail & r->mask], arg);
	/* C3, pairs with P1: done with the slots before freeing them. */
	smp_store_release(&r->tail, tail);

	if (n) {
		WRITE_ONCE(r->dequeue, r->dequeue + n);
		damon_perf_observe_ring_dequeue(cpu, n);
	}
	if (!READ_ONCE(r->wake_armed) &&
	    READ_ONCE(r->head) - tail < r->hiwat)
		WRITE_ONCE(r->wake_armed, 1);
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_ring_drain);

/**
 * damon_perf_rings_drain_pending() - Drain every CPU with a pending bit.
 * @rings:	the context's rings.
 * @fn:		called for each report.
 * @arg:	its argument.
 *
 * Context: process (the context's only consumer).
 * Return: reports consumed.
 */
unsigned int damon_perf_rings_drain_pending(struct damon_perf_rings *rings,
					    damon_perf_report_fn fn, void *arg)
{
	unsigned int n = 0;
	int cpu;

	if (!rings->ring)
		return 0;
	for_each_cpu(cpu, &rings->pending)
		n += damon_perf_ring_drain(rings, cpu, fn, arg);
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_rings_drain_pending);

/**
 * damon_perf_ring_read_stats() - Read the counters of @cpu's ring.
 * @rings:	allocated rings; the caller keeps them alive (e.g. holds
 *		damon_perf_rings_lock and checked @rings->ring).
 * @cpu:	a possible CPU.
 * @st:		receives the counters.
 *
 * Context: any; best effort, no consistency between fields.
 */
void damon_perf_ring_read_stats(struct damon_perf_rings *rings, int cpu,
				struct damon_perf_ring_stats *st)
{
	struct damon_perf_ring *r = per_cpu_ptr(rings->ring, cpu);

	st->enqueue = READ_ONCE(r->enqueue);
	st->dequeue = READ_ONCE(r->dequeue);
	st->overflow = READ_ONCE(r->overflow);
	st->busy_drop = READ_ONCE(r->busy_drop);
	st->early_wake = READ_ONCE(r->early_wake);
	st->no_probe = READ_ONCE(r->no_probe);
	st->peak = READ_ONCE(r->peak);
	st->occupancy = READ_ONCE(r->head) - READ_ONCE(r->tail);
	st->size = r->mask + 1;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_ring_read_stats);
