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
 * The busy guard is a plain flag of the ring, not a read-modify-write: a
 * producer that finds it clear sets it, and clears it when done. Only
 * producers on the ring's own CPU touch it, and one that interrupts
 * another runs to completion before the interrupted one resumes. A nested
 * producer that comes before its host stored the flag finds it clear,
 * and leaves it clear, with the ring updated, before the host goes on (to
 * the store, if it loaded the flag clear); one that comes while the flag
 * is set refuses and writes nothing; one after the host cleared it finds
 * the ring free. This is the argument of perf's recursion flags
 * (get_recursion_context()); it spares an atomic this_cpu op on each side
 * (an LSE or LL/SC atomic on arm64, where SPE runs). Compiler barriers
 * keep the ring's accesses inside the flag's window.
 *
 * Indices run freely (u32) and are masked on access: head - tail is the
 * occupancy, and the ring holds up to size reports.
 *
 * Ordering, producer                   consumer
 *   READ_ONCE(tail)            (P1)      test_and_clear(pending)
 *   write entry                          smp_mb__after_atomic()    (C1)
 *   smp_wmb()                  (P2)      READ_ONCE(head)
 *   WRITE_ONCE(head)                     smp_rmb()                 (C2)
 *   if (!test_bit(pending))              read entries
 *     smp_mb__before_atomic()  (P3)      smp_store_release(tail)   (C3)
 *     set(pending)
 * P2 pairs with C2: an entry is complete before its head is seen.
 * P3 pairs with C1: a head published before a set bit the consumer then
 * clears is seen by that drain.
 * C3 pairs with P1: the producer reuses a slot only after the consumer has
 * finished reading it (P1's control dependency orders the slot write
 * after the tail load: stores are not speculated).
 *
 * The pending bit. Setting it on every report cost a locked RMW each
 * time, the largest part of the producer's cost; it is now set only when
 * the producer finds it clear. Without a full barrier between the head
 * store and that test (one would cost what the RMW did), the test may
 * read the bit before a concurrent drain clears it while the head store
 * is not yet visible to that drain: the drain misses the report and the
 * producer, having seen the bit set, does not set it again. So the
 * consumer keeps the CPUs whose bit it cleared (@recheck) and the next
 * drain reads their head whatever their bit: the store that drain missed
 * executed before the clear it raced with, so it is visible one sample
 * interval later (stores propagate in bounded time; the consumer sleeps
 * in between). No report waits longer than one extra drain, which the
 * stale window allows (a report is stale only one sample interval before
 * the previous drain). The last drain of a context, after its producers
 * were disarmed (which synchronizes with their CPUs), looks at every
 * CPU's ring: damon_perf_rings_recheck_all().
 */
#include <linux/bug.h>
#include <linux/cpumask.h>
#include <linux/irq_work.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/topology.h>

#include "ring.h"
#include "stats.h"

#if DAMON_PERF_KUNIT_HOOKS
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

/*
 * Ring memory. A context's rings take damon_perf_rings_bytes() of its
 * ring size, for every possible CPU: up to 3.5 MiB a CPU. Each allocation
 * is charged to the memory cgroup of the task that starts the context
 * (__GFP_ACCOUNT) and fails at the cgroup's limit rather than wake its
 * OOM killer (__GFP_RETRY_MAYFAIL); the rings of all contexts together
 * stay within max_ring_kb, which also bounds callers in no limited
 * cgroup (8 contexts of 65536 entries on 384 CPUs would pin 10.5 GiB).
 */
#define RING_GFP (GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL | __GFP_NOWARN)

static unsigned int max_ring_kb = 256 * 1024;
module_param(max_ring_kb, uint, 0644);
MODULE_PARM_DESC(max_ring_kb,
		 "report ring memory of all running contexts together, in KiB (checked when a context starts)");

/* Bytes of the rings allocated now, under damon_perf_rings_lock. */
static u64 rings_in_use;

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
 * damon_perf_rings_bytes() - The memory of a context's rings.
 * @size:	entries per CPU.
 *
 * What max_ring_kb counts: the entries and the ring structure of every
 * possible CPU (a CPU coming online later needs its ring at once).
 *
 * Context: any.
 * Return: bytes.
 */
u64 damon_perf_rings_bytes(unsigned int size)
{
	return (u64)num_possible_cpus() *
	       ((u64)size * sizeof(struct damon_perf_report) +
		sizeof(struct damon_perf_ring));
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_rings_bytes);

/**
 * damon_perf_rings_mem() - The ring memory limit and its use.
 * @in_use:	receives the bytes of the rings allocated now.
 *
 * Context: process, may sleep.
 * Return: max_ring_kb in bytes.
 */
u64 damon_perf_rings_mem(u64 *in_use)
{
	mutex_lock(&damon_perf_rings_lock);
	*in_use = rings_in_use;
	mutex_unlock(&damon_perf_rings_lock);
	return (u64)READ_ONCE(max_ring_kb) * 1024;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_rings_mem);

/* Reserve @bytes of max_ring_kb; false if they do not fit. */
static bool rings_reserve(u64 bytes)
{
	bool fits;

	mutex_lock(&damon_perf_rings_lock);
	fits = rings_in_use + bytes <= (u64)READ_ONCE(max_ring_kb) * 1024;
	if (fits)
		rings_in_use += bytes;
	mutex_unlock(&damon_perf_rings_lock);
	return fits;
}

static void rings_unreserve(u64 bytes)
{
	mutex_lock(&damon_perf_rings_lock);
	rings_in_use -= bytes;
	mutex_unlock(&damon_perf_rings_lock);
}

/**
 * damon_perf_rings_alloc() - Allocate one ring per possible CPU.
 * @rings:	the context's rings, zeroed or freed before.
 * @size:	entries per CPU; 0 picks DAMON_PERF_RING_DEF_SIZE.
 * @wake:	called (hard IRQ) when a ring crosses its high watermark;
 *		may be NULL.
 * @wake_arg:	its argument.
 *
 * Must complete before the first producer can reach @rings (before the
 * first perf counter is armed). The memory is charged to the current
 * task's memory cgroup, and counts against max_ring_kb until
 * damon_perf_rings_free().
 *
 * Context: process, may sleep.
 * Return: 0, -EINVAL for a bad size, -EBUSY if already allocated, -E2BIG
 * when the rings would exceed max_ring_kb, -ENOMEM (no memory, or the
 * memory cgroup's limit).
 */
int damon_perf_rings_alloc(struct damon_perf_rings *rings, unsigned int size,
			   void (*wake)(void *arg), void *wake_arg)
{
	struct damon_perf_ring __percpu *ring;
	u64 bytes;
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
	bytes = damon_perf_rings_bytes(size);
	if (!rings_reserve(bytes))
		return -E2BIG;

	if (!zalloc_cpumask_var(&rings->recheck, RING_GFP))
		goto err_reserved;
	ring = alloc_percpu_gfp(struct damon_perf_ring, RING_GFP);
	if (!ring)
		goto err_recheck;
	for_each_possible_cpu(cpu) {
		struct damon_perf_ring *r = per_cpu_ptr(ring, cpu);

		r->entries = kvzalloc_node(array_size(size,
						      sizeof(*r->entries)),
					   RING_GFP, cpu_to_node(cpu));
		if (!r->entries) {
			free_ring(ring);
			goto err_recheck;
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
	rings->bytes = bytes;
	mutex_lock(&damon_perf_rings_lock);
	rings->ring = ring;
	mutex_unlock(&damon_perf_rings_lock);
	return 0;

err_recheck:
	free_cpumask_var(rings->recheck);
err_reserved:
	rings_unreserve(bytes);
	return -ENOMEM;
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
	rings_in_use -= rings->bytes;
	mutex_unlock(&damon_perf_rings_lock);
	free_ring(ring);
	free_cpumask_var(rings->recheck);
	cpumask_clear(&rings->pending);
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_rings_free);

static void refuse(struct damon_perf_rings *rings, int why)
{
	damon_perf_observe_ring_overflow(rings ? rings->ctx_id : -1, why);
}

/*
 * The producer's slow paths, each ending the call it was reached from
 * (busy guard and preemption included), so that the fast path keeps
 * nothing live across a call and needs no saved registers.
 */

/* No rings, or probe_idx 0 (then preemption is off, no guard held). */
static noinline bool refuse_early(struct damon_perf_rings *rings, int why)
{
	if (why == DAMON_PERF_DROP_NO_PROBE) {
		/*
		 * Before the busy guard: producers nested two deep may both
		 * get here, so the count is an interrupt- and NMI-safe
		 * this_cpu RMW.
		 */
		this_cpu_inc(rings->ring->no_probe);
		refuse(rings, why);
		preempt_enable_notrace();
	} else {
		refuse(rings, why);
	}
	return false;
}

/* Drops the busy guard; the ring's accesses stay before it. */
static __always_inline void release(struct damon_perf_ring *r)
{
	/*
	 * Pairs with the barrier() after the guard's set in queue(): both are
	 * compiler barriers (the nested producer runs on this CPU), keeping
	 * the ring's accesses between the set and the clear.
	 */
	barrier();
	WRITE_ONCE(r->busy, 0);
}

/* A nested producer: the guard is held by the one it interrupted. */
static noinline bool refuse_busy(struct damon_perf_rings *rings)
{
	/* interrupt-safe RMW: a refused IRQ producer may be nested in turn */
	this_cpu_inc(rings->ring->busy_drop);
	refuse(rings, DAMON_PERF_DROP_BUSY);
	preempt_enable_notrace();
	return false;
}

/* A full ring, busy guard held. */
static noinline bool refuse_full(struct damon_perf_rings *rings,
				 struct damon_perf_ring *r)
{
	WRITE_ONCE(r->overflow, r->overflow + 1);
	refuse(rings, DAMON_PERF_DROP_FULL);
	release(r);
	preempt_enable_notrace();
	return false;
}

/*
 * At or above the high watermark, report queued, busy guard held. The
 * watermark wakes the consumer once per crossing: the producer disarms,
 * the consumer re-arms after draining below the mark.
 */
static noinline bool queued_wake(struct damon_perf_rings *rings,
				 struct damon_perf_ring *r, unsigned int occ)
{
	if (READ_ONCE(r->wake_armed) && rings->wake) {
		WRITE_ONCE(r->wake_armed, 0);
		WRITE_ONCE(r->early_wake, r->early_wake + 1);
		damon_perf_observe_early_wake();
		/* NMI-safe; false only if already queued: the wake comes. */
		irq_work_queue(&rings->wake_work);
	}
	release(r);
	damon_perf_observe_ring_enqueue(occ);
	preempt_enable_notrace();
	return true;
}

/* damon_perf_report_access() past its first checks: @rings->ring is set. */
static __always_inline bool queue(struct damon_perf_rings *rings,
				  const struct damon_perf_report *report)
{
	struct damon_perf_ring *r;
	unsigned int head, tail, occ;
	int cpu;

	preempt_disable_notrace();
	if (unlikely(!report->probe_idx))
		return refuse_early(rings, DAMON_PERF_DROP_NO_PROBE);

	/* The busy guard, a plain flag (see "The busy guard" above). */
	r = this_cpu_ptr(rings->ring);
	if (unlikely(READ_ONCE(r->busy)))
		return refuse_busy(rings);
	WRITE_ONCE(r->busy, 1);
	/* pairs with the barrier() of release(): the ring after the set */
	barrier();

#if DAMON_PERF_KUNIT_HOOKS
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
	if (unlikely(head - tail > r->mask))
		return refuse_full(rings, r);

	r->entries[head & r->mask] = *report;
	/* P2, pairs with C2 (smp_rmb() in the drain): entry before head. */
	smp_wmb();
	WRITE_ONCE(r->head, head + 1);
	/*
	 * Only a clear bit is set; a set one may be cleared by a drain that
	 * misses this head, which the next drain then reads (@recheck, see
	 * "The pending bit" above).
	 */
	cpu = smp_processor_id();
	if (!cpumask_test_cpu(cpu, &rings->pending)) {
		/* P3, pairs with C1: head before the pending bit. */
		smp_mb__before_atomic();
		cpumask_set_cpu(cpu, &rings->pending);
	}

	/* the ring's enqueue is @head itself, its peak the consumer's */
	occ = head + 1 - tail;
	if (unlikely(occ >= r->hiwat))
		return queued_wake(rings, r, occ);
	release(r);
	/*
	 * perf_stats (this CPU's, not the ring's): after the guard, which
	 * protects only the ring; still on this CPU.
	 */
	damon_perf_observe_ring_enqueue(occ);
	preempt_enable_notrace();
	return true;
}

/* A report without a time: stamped on a copy, queued from there. */
static noinline bool queue_stamped(struct damon_perf_rings *rings,
				   const struct damon_perf_report *report)
{
	struct damon_perf_report stamped = *report;

	stamped.time_ns = damon_perf_clock_ns();
	return queue(rings, &stamped);
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
	if (unlikely(!rings || !rings->ring))
		return refuse_early(rings, DAMON_PERF_DROP_NO_RING);
	/* stamped first: the clock is read before the report is queued */
	if (unlikely(!report->time_ns))
		return queue_stamped(rings, report);
	return queue(rings, report);
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
 * again (or is found by the next damon_perf_rings_drain_pending(), which
 * looks at @cpu again). Re-arms the early wake once the ring is below its
 * watermark.
 *
 * Context: process (the context's only consumer), any CPU.
 * Return: reports consumed.
 */
unsigned int damon_perf_ring_drain(struct damon_perf_rings *rings, int cpu,
				   damon_perf_report_fn fn, void *arg)
{
	struct damon_perf_ring *r;
	unsigned int head, tail, n, occ;

	if (!rings->ring || cpu < 0 || cpu >= nr_cpu_ids || !cpu_possible(cpu))
		return 0;
	r = per_cpu_ptr(rings->ring, cpu);

	if (cpumask_test_and_clear_cpu(cpu, &rings->pending))
		__cpumask_set_cpu(cpu, rings->recheck);
	/* C1, pairs with P3: clear the bit before reading head. */
	smp_mb__after_atomic();
	head = READ_ONCE(r->head);
	/* C2, pairs with P2: read head before the entries. */
	smp_rmb();
	tail = r->tail;
	n = head - tail;
	for (; tail != head; tail++)
		fn(&r->entries[tail & r->mask], arg);
	/*
	 * The peak: occupancy only grows until the slots are freed below, so
	 * this is the highest since the last drain, but for reports queued
	 * between this read and the release (best effort, as the counters
	 * are).
	 */
	occ = READ_ONCE(r->head) - r->tail;
	if (occ > r->peak)
		WRITE_ONCE(r->peak, occ);
	if (n)
		WRITE_ONCE(r->dequeue, r->dequeue + n);
	/* C3, pairs with P1: done with the slots before freeing them. */
	smp_store_release(&r->tail, tail);

	if (n)
		damon_perf_observe_ring_dequeue(cpu, n);
	if (!READ_ONCE(r->wake_armed) &&
	    READ_ONCE(r->head) - tail < r->hiwat)
		WRITE_ONCE(r->wake_armed, 1);
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_ring_drain);

/**
 * damon_perf_rings_pending() - Whether a drain may find reports.
 * @rings:	the context's rings.
 *
 * First looks at the rings whose pending bit the last drain cleared
 * (@rings->recheck, see "The pending bit" in ring.c) and sets the bit of
 * each that holds reports, so the drain takes them.
 *
 * Context: process (the context's only consumer).
 * Return: true if a pending bit is set.
 */
bool damon_perf_rings_pending(struct damon_perf_rings *rings)
{
	int cpu;

	if (!rings->ring)
		return false;
	for_each_cpu(cpu, rings->recheck) {
		struct damon_perf_ring *r = per_cpu_ptr(rings->ring, cpu);

		if (READ_ONCE(r->head) != r->tail &&
		    !cpumask_test_cpu(cpu, &rings->pending))
			cpumask_set_cpu(cpu, &rings->pending);
	}
	cpumask_clear(rings->recheck);
	return !cpumask_empty(&rings->pending);
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_rings_pending);

/**
 * damon_perf_rings_backlog() - How many reports the pending rings hold.
 * @rings:	the context's rings, after damon_perf_rings_pending().
 *
 * A snapshot for sizing a drain pass: producers may add more meanwhile.
 *
 * Context: process (the context's only consumer).
 * Return: the reports, each ring counting at most its size.
 */
u64 damon_perf_rings_backlog(struct damon_perf_rings *rings)
{
	u64 n = 0;
	int cpu;

	if (!rings->ring)
		return 0;
	for_each_cpu(cpu, &rings->pending) {
		struct damon_perf_ring *r = per_cpu_ptr(rings->ring, cpu);

		n += min(READ_ONCE(r->head) - r->tail, r->mask + 1);
	}
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_rings_backlog);

/**
 * damon_perf_rings_recheck_all() - Make the next drain look at every ring.
 * @rings:	the context's rings.
 *
 * For the last drain of a context, once its producers are gone: every
 * possible CPU's ring is read whatever its pending bit.
 *
 * Context: process (the context's only consumer).
 */
void damon_perf_rings_recheck_all(struct damon_perf_rings *rings)
{
	int cpu;

	if (!rings->ring)
		return;
	for_each_possible_cpu(cpu)
		__cpumask_set_cpu(cpu, rings->recheck);
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_rings_recheck_all);

/**
 * damon_perf_rings_drain_pending() - Drain every CPU with a pending bit.
 * @rings:	the context's rings.
 * @fn:		called for each report.
 * @arg:	its argument.
 *
 * The rings the previous call cleared are looked at again first
 * (damon_perf_rings_pending()).
 *
 * Context: process (the context's only consumer).
 * Return: reports consumed.
 */
unsigned int damon_perf_rings_drain_pending(struct damon_perf_rings *rings,
					    damon_perf_report_fn fn, void *arg)
{
	unsigned int n = 0;
	int cpu;

	if (!damon_perf_rings_pending(rings))
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
	unsigned int head, tail, occ;
	unsigned long dequeue;

	/*
	 * enqueue is @head (ring.h) widened by @dequeue, which the consumer
	 * advances before it releases @tail; a head read older than that
	 * dequeue (or a tail newer than the head) counts as an empty ring.
	 */
	tail = READ_ONCE(r->tail);
	/* pairs with C3: the dequeue of that tail or a later one */
	smp_rmb();
	dequeue = READ_ONCE(r->dequeue);
	head = READ_ONCE(r->head);
	occ = head - (unsigned int)dequeue;
	if ((int)occ < 0)
		occ = 0;
	st->enqueue = dequeue + occ;
	st->dequeue = dequeue;
	st->overflow = READ_ONCE(r->overflow);
	st->busy_drop = READ_ONCE(r->busy_drop);
	st->early_wake = READ_ONCE(r->early_wake);
	st->no_probe = READ_ONCE(r->no_probe);
	st->size = r->mask + 1;
	occ = head - tail;
	if ((int)occ < 0)
		occ = 0;
	st->occupancy = min(occ, st->size);
	st->peak = max(READ_ONCE(r->peak), st->occupancy);
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_ring_read_stats);
