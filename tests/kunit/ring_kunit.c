// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: per-CPU SPSC report rings (kmod/ring.c).
 *
 * Single-CPU cases run with migration disabled so every push lands on one
 * ring; a report meant for another CPU's ring is offered there, by
 * smp_call_function_single(). The busy guard is held by hand or through
 * the KUnit-only busy hook (nmi_kunit.c takes it with a real NMI). The
 * concurrency case pins a producer kthread to CPU 0 and a consumer to
 * CPU 1 and checks that each of 10^6 sequence-numbered reports is either
 * consumed, intact and in order, or counted as dropped.
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/irq_work.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/smp.h>

#include "ctx.h"
#include "debugfs.h"
#include "ring.h"
#include "stats.h"

#define SMALL	DAMON_PERF_RING_MIN_SIZE

/* A report whose every field is derived from @seq, so tearing shows. */
static struct damon_perf_report mk(unsigned long seq)
{
	return (struct damon_perf_report) {
		.paddr = seq << PAGE_SHIFT,
		.vaddr = seq,
		.size = PAGE_SIZE + (seq & 7),
		.time_ns = seq * 3 + 1,
		.cpu = raw_smp_processor_id(),
		.tid = (pid_t)(seq ^ 0x5a5a),
		.tgid = (pid_t)(seq ^ 0xa5a5),
		.is_write = seq & 1,
		.probe_idx = 1 + seq % 3,
		.src = DAMON_PERF_SRC_INJECTED,
	};
}

static bool intact(const struct damon_perf_report *r)
{
	unsigned long seq = r->vaddr;

	return r->paddr == seq << PAGE_SHIFT &&
	       r->size == PAGE_SIZE + (seq & 7) &&
	       r->time_ns == seq * 3 + 1 &&
	       r->tid == (pid_t)(seq ^ 0x5a5a) &&
	       r->tgid == (pid_t)(seq ^ 0xa5a5) &&
	       r->is_write == (seq & 1) &&
	       r->probe_idx == 1 + seq % 3 &&
	       r->src == DAMON_PERF_SRC_INJECTED;
}

struct collector {
	unsigned long n;
	unsigned long last;
	unsigned long bad;
	unsigned long disorder;
};

static void collect(const struct damon_perf_report *r, void *arg)
{
	struct collector *c = arg;

	if (!intact(r))
		c->bad++;
	if (c->n && r->vaddr <= c->last)
		c->disorder++;
	c->last = r->vaddr;
	c->n++;
}

static unsigned long global(enum damon_perf_stat_idx idx)
{
	struct damon_perf_stats st;

	damon_perf_stats_aggregate(&st);
	return damon_perf_stats_get(&st, idx);
}

static void ring_stats_sum(struct damon_perf_rings *rings,
			   struct damon_perf_ring_stats *sum)
{
	struct damon_perf_ring_stats one;
	int cpu;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		damon_perf_ring_read_stats(rings, cpu, &one);
		sum->enqueue += one.enqueue;
		sum->dequeue += one.dequeue;
		sum->overflow += one.overflow;
		sum->busy_drop += one.busy_drop;
		sum->early_wake += one.early_wake;
		sum->no_probe += one.no_probe;
		sum->occupancy += one.occupancy;
		sum->peak = max(sum->peak, one.peak);
	}
}

static struct damon_perf_rings *new_rings(struct kunit *test,
					  unsigned int size,
					  void (*wake)(void *), void *arg)
{
	struct damon_perf_rings *rings;

	rings = kunit_kzalloc(test, sizeof(*rings), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rings);
	KUNIT_ASSERT_EQ(test, damon_perf_rings_alloc(rings, size, wake, arg),
			0);
	return rings;
}

/* An online CPU other than @cpu, or nr_cpu_ids when there is none. */
static int other_cpu(int cpu)
{
	int other;

	for_each_online_cpu(other)
		if (other != cpu)
			return other;
	return nr_cpu_ids;
}

struct offer {
	struct damon_perf_rings *rings;
	unsigned long seq;
	bool no_probe;	/* probe_idx 0 */
	bool nested;	/* with the ring's busy guard held, as if nested */
	bool queued;
};

static void offer_here(void *arg)
{
	struct offer *o = arg;
	struct damon_perf_ring *ring = this_cpu_ptr(o->rings->ring);
	struct damon_perf_report r = mk(o->seq);

	if (o->no_probe)
		r.probe_idx = 0;
	if (o->nested)
		WRITE_ONCE(ring->busy, 1);
	o->queued = damon_perf_report_access(o->rings, &r);
	if (o->nested)
		WRITE_ONCE(ring->busy, 0);
}

/* Offer report @seq to the ring of @cpu, on that CPU. */
static bool offer_on(struct damon_perf_rings *rings, int cpu,
		     unsigned long seq, bool no_probe, bool nested)
{
	struct offer o = {
		.rings = rings,
		.seq = seq,
		.no_probe = no_probe,
		.nested = nested,
	};

	smp_call_function_single(cpu, offer_here, &o, 1);
	return o.queued;
}

static void ring_alloc_should_accept_only_power_of_two_sizes(struct kunit *test)
{
	static const unsigned int bad[] = { 1, 8, 15, 17, 100, 131072, ~0U };
	struct damon_perf_rings rings = {};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		KUNIT_EXPECT_FALSE(test, damon_perf_rings_valid_size(bad[i]));
		KUNIT_EXPECT_EQ(test, damon_perf_rings_alloc(&rings, bad[i],
							     NULL, NULL),
				-EINVAL);
		KUNIT_EXPECT_TRUE(test, !rings.ring);
	}
	KUNIT_EXPECT_TRUE(test, damon_perf_rings_valid_size(16));
	KUNIT_EXPECT_TRUE(test, damon_perf_rings_valid_size(65536));

	KUNIT_ASSERT_EQ(test, damon_perf_rings_alloc(&rings, 0, NULL, NULL), 0);
	KUNIT_EXPECT_EQ(test, rings.size,
			(unsigned int)DAMON_PERF_RING_DEF_SIZE);
	KUNIT_EXPECT_EQ(test, damon_perf_rings_alloc(&rings, 16, NULL, NULL),
			-EBUSY);
	KUNIT_EXPECT_EQ(test, rings.size,
			(unsigned int)DAMON_PERF_RING_DEF_SIZE);
	damon_perf_rings_free(&rings);
	KUNIT_EXPECT_TRUE(test, !rings.ring);
	/* A second free is harmless, and the rings can be had again. */
	damon_perf_rings_free(&rings);
	KUNIT_ASSERT_EQ(test, damon_perf_rings_alloc(&rings, 16, NULL, NULL),
			0);
	KUNIT_EXPECT_EQ(test, rings.size, 16U);
	damon_perf_rings_free(&rings);
	KUNIT_EXPECT_TRUE(test, !rings.ring);
}

/* max_ring_kb counts a context's rings from their allocation to their free */
static void ring_memory_should_be_counted_while_allocated(struct kunit *test)
{
	struct damon_perf_rings rings = {};
	u64 per_cpu = 64 * sizeof(struct damon_perf_report) +
		      sizeof(struct damon_perf_ring);
	u64 bytes = damon_perf_rings_bytes(64), base, in_use;

	KUNIT_EXPECT_EQ(test, bytes, (u64)num_possible_cpus() * per_cpu);
	/* the default of max_ring_kb */
	KUNIT_EXPECT_EQ(test, damon_perf_rings_mem(&base),
			256ULL * 1024 * 1024);
	KUNIT_ASSERT_EQ(test, damon_perf_rings_alloc(&rings, 64, NULL, NULL),
			0);
	damon_perf_rings_mem(&in_use);
	KUNIT_EXPECT_EQ(test, in_use, base + bytes);
	/* a refused allocation leaves the count as it was */
	KUNIT_EXPECT_EQ(test, damon_perf_rings_alloc(&rings, 64, NULL, NULL),
			-EBUSY);
	damon_perf_rings_mem(&in_use);
	KUNIT_EXPECT_EQ(test, in_use, base + bytes);
	damon_perf_rings_free(&rings);
	damon_perf_rings_mem(&in_use);
	KUNIT_EXPECT_EQ(test, in_use, base);
}

static void ring_should_start_empty(struct kunit *test)
{
	struct damon_perf_rings *rings = new_rings(test, SMALL, NULL, NULL);
	struct damon_perf_ring_stats sum;
	struct collector c = {};
	int cpu;

	KUNIT_EXPECT_TRUE(test, cpumask_empty(&rings->pending));
	KUNIT_EXPECT_FALSE(test, damon_perf_rings_pending(rings));
	for_each_possible_cpu(cpu)
		KUNIT_EXPECT_EQ(test, damon_perf_ring_drain(rings, cpu,
							    collect, &c), 0U);
	KUNIT_EXPECT_EQ(test, c.n, 0UL);
	ring_stats_sum(rings, &sum);
	KUNIT_EXPECT_EQ(test, sum.enqueue + sum.dequeue + sum.overflow, 0UL);
	KUNIT_EXPECT_EQ(test, sum.occupancy, 0U);
	damon_perf_rings_free(rings);
}

static void ring_push_then_drain_should_return_the_report(struct kunit *test)
{
	struct damon_perf_rings *rings = new_rings(test, SMALL, NULL, NULL);
	unsigned long enq = global(DAMON_PERF_STAT_enqueue);
	unsigned long deq = global(DAMON_PERF_STAT_dequeue);
	struct damon_perf_report r;
	struct collector c = {};

	migrate_disable();
	r = mk(42);
	KUNIT_EXPECT_TRUE(test, damon_perf_report_access(rings, &r));
	KUNIT_EXPECT_EQ(test, damon_perf_rings_drain_pending(rings, collect,
							     &c), 1U);
	migrate_enable();
	KUNIT_EXPECT_EQ(test, c.n, 1UL);
	KUNIT_EXPECT_EQ(test, c.last, 42UL);
	KUNIT_EXPECT_EQ(test, c.bad, 0UL);
	KUNIT_EXPECT_EQ(test, global(DAMON_PERF_STAT_enqueue) - enq, 1UL);
	KUNIT_EXPECT_EQ(test, global(DAMON_PERF_STAT_dequeue) - deq, 1UL);
	damon_perf_rings_free(rings);
}

static void ring_should_wrap_around_in_order(struct kunit *test)
{
	struct damon_perf_rings *rings = new_rings(test, SMALL, NULL, NULL);
	struct damon_perf_ring_stats sum;
	struct damon_perf_report r;
	struct collector c = {};
	unsigned long seq = 1;
	int round, i;

	migrate_disable();
	/* 10 rounds of 11 pushes on 16 slots: the indices pass the mask. */
	for (round = 0; round < 10; round++) {
		for (i = 0; i < 11; i++) {
			r = mk(seq++);
			KUNIT_EXPECT_TRUE(test,
					  damon_perf_report_access(rings, &r));
		}
		KUNIT_EXPECT_EQ(test,
				damon_perf_rings_drain_pending(rings, collect,
							       &c),
				11U);
	}
	migrate_enable();
	KUNIT_EXPECT_EQ(test, c.n, 110UL);
	KUNIT_EXPECT_EQ(test, c.last, 110UL);
	KUNIT_EXPECT_EQ(test, c.bad, 0UL);
	KUNIT_EXPECT_EQ(test, c.disorder, 0UL);
	ring_stats_sum(rings, &sum);
	KUNIT_EXPECT_EQ(test, sum.enqueue, 110UL);
	KUNIT_EXPECT_EQ(test, sum.dequeue, 110UL);
	KUNIT_EXPECT_EQ(test, sum.peak, 11U);
	damon_perf_rings_free(rings);
}

static void ring_push_should_drop_when_full(struct kunit *test)
{
	struct damon_perf_rings *rings = new_rings(test, SMALL, NULL, NULL);
	unsigned long ovf = global(DAMON_PERF_STAT_overflow);
	struct damon_perf_ring_stats sum;
	struct damon_perf_report r;
	struct collector c = {};
	int i;

	migrate_disable();
	for (i = 1; i <= SMALL; i++) {
		r = mk(i);
		KUNIT_EXPECT_TRUE(test, damon_perf_report_access(rings, &r));
	}
	for (i = 0; i < 3; i++) {
		r = mk(1000 + i);
		KUNIT_EXPECT_FALSE(test, damon_perf_report_access(rings, &r));
	}
	ring_stats_sum(rings, &sum);
	KUNIT_EXPECT_EQ(test, sum.overflow, 3UL);
	KUNIT_EXPECT_EQ(test, sum.enqueue, (unsigned long)SMALL);
	KUNIT_EXPECT_EQ(test, sum.occupancy, (unsigned int)SMALL);
	KUNIT_EXPECT_EQ(test, sum.peak, (unsigned int)SMALL);
	KUNIT_EXPECT_EQ(test, global(DAMON_PERF_STAT_overflow) - ovf, 3UL);

	/* The refused reports left the queued ones intact. */
	KUNIT_EXPECT_EQ(test, damon_perf_rings_drain_pending(rings, collect,
							     &c), SMALL);
	KUNIT_EXPECT_EQ(test, c.last, (unsigned long)SMALL);
	KUNIT_EXPECT_EQ(test, c.bad + c.disorder, 0UL);
	/* Room again after the drain. */
	r = mk(2000);
	KUNIT_EXPECT_TRUE(test, damon_perf_report_access(rings, &r));
	KUNIT_EXPECT_EQ(test, damon_perf_rings_drain_pending(rings, collect,
							     &c), 1U);
	migrate_enable();
	damon_perf_rings_free(rings);
}

static void ring_should_refuse_probe_idx_zero(struct kunit *test)
{
	struct damon_perf_rings *rings = new_rings(test, SMALL, NULL, NULL);
	unsigned long nop = global(DAMON_PERF_STAT_no_probe);
	unsigned long enq = global(DAMON_PERF_STAT_enqueue);
	struct damon_perf_ring_stats sum;
	struct damon_perf_report r = mk(7);

	r.probe_idx = 0;
	KUNIT_EXPECT_FALSE(test, damon_perf_report_access(rings, &r));
	KUNIT_EXPECT_TRUE(test, cpumask_empty(&rings->pending));
	ring_stats_sum(rings, &sum);
	KUNIT_EXPECT_EQ(test, sum.no_probe, 1UL);
	KUNIT_EXPECT_EQ(test, sum.enqueue, 0UL);
	KUNIT_EXPECT_EQ(test, global(DAMON_PERF_STAT_no_probe) - nop, 1UL);
	KUNIT_EXPECT_EQ(test, global(DAMON_PERF_STAT_enqueue) - enq, 0UL);
	damon_perf_rings_free(rings);
}

static void ring_should_refuse_when_not_allocated(struct kunit *test)
{
	struct damon_perf_rings rings = {};
	unsigned long nr = global(DAMON_PERF_STAT_no_ring);
	struct damon_perf_report r = mk(7);

	KUNIT_EXPECT_FALSE(test, damon_perf_report_access(&rings, &r));
	KUNIT_EXPECT_FALSE(test, damon_perf_report_access(NULL, &r));
	KUNIT_EXPECT_EQ(test, global(DAMON_PERF_STAT_no_ring) - nr, 2UL);
	KUNIT_EXPECT_EQ(test, damon_perf_rings_drain_pending(&rings, collect,
							     NULL), 0U);
}

/*
 * A producer nested over another on the same CPU (an NMI over the
 * process-context injector) finds the ring's busy guard held: refused and
 * counted, nothing queued, and the ring takes reports again once the
 * outer producer is done.
 */
static void ring_should_refuse_while_the_busy_guard_is_held(struct kunit *test)
{
	struct damon_perf_rings *rings = new_rings(test, SMALL, NULL, NULL);
	unsigned long busy = global(DAMON_PERF_STAT_busy_drop);
	unsigned long enq = global(DAMON_PERF_STAT_enqueue);
	struct damon_perf_ring_stats st;
	struct damon_perf_ring *ring;
	struct damon_perf_report r;
	struct collector c = {};
	unsigned int others = 0;
	int cpu, other;

	migrate_disable();
	cpu = smp_processor_id();
	ring = per_cpu_ptr(rings->ring, cpu);
	WRITE_ONCE(ring->busy, 1);	/* the outer producer, mid-push */
	r = mk(1);
	KUNIT_EXPECT_FALSE(test, damon_perf_report_access(rings, &r));
	r = mk(2);
	KUNIT_EXPECT_FALSE(test, damon_perf_report_access(rings, &r));
	KUNIT_EXPECT_TRUE(test, cpumask_empty(&rings->pending));
	/* another CPU's ring is not guarded by it */
	other = other_cpu(cpu);
	if (other < nr_cpu_ids) {
		KUNIT_EXPECT_TRUE(test,
				  offer_on(rings, other, 3, false, false));
		others++;
	}
	damon_perf_ring_read_stats(rings, cpu, &st);
	KUNIT_EXPECT_EQ(test, st.busy_drop, 2UL);
	KUNIT_EXPECT_EQ(test, st.enqueue, 0UL);
	KUNIT_EXPECT_EQ(test, st.occupancy, 0U);
	KUNIT_EXPECT_EQ(test, global(DAMON_PERF_STAT_busy_drop) - busy, 2UL);
	KUNIT_EXPECT_EQ(test, global(DAMON_PERF_STAT_enqueue) - enq,
			(unsigned long)others);

	WRITE_ONCE(ring->busy, 0);
	r = mk(4);
	KUNIT_EXPECT_TRUE(test, damon_perf_report_access(rings, &r));
	KUNIT_EXPECT_EQ(test, READ_ONCE(ring->busy), 0); /* released */
	KUNIT_EXPECT_EQ(test, damon_perf_rings_drain_pending(rings, collect,
							     &c), 1 + others);
	migrate_enable();
	KUNIT_EXPECT_EQ(test, c.n, 1UL + others);
	KUNIT_EXPECT_EQ(test, c.bad, 0UL);
	damon_perf_rings_free(rings);
}

/* The producer nested inside report_access, with the busy guard held. */
static struct {
	struct damon_perf_rings *rings;
	unsigned long seq;
	unsigned long refused;
} nest;

static void nested_report(struct damon_perf_rings *rings)
{
	struct damon_perf_report r;

	if (rings != nest.rings || nest.seq & 1)
		return;
	/* the inner report, once per outer one */
	nest.seq |= 1;
	r = mk(nest.seq);
	if (!damon_perf_report_access(rings, &r))
		nest.refused++;
}

static void ring_should_refuse_every_report_nested_in_one(struct kunit *test)
{
	struct damon_perf_rings *rings = new_rings(test, SMALL, NULL, NULL);
	unsigned long busy = global(DAMON_PERF_STAT_busy_drop);
	struct damon_perf_ring_stats st;
	struct damon_perf_report r;
	struct collector c = {};
	unsigned long i;
	int cpu;

	nest.rings = rings;
	nest.refused = 0;
	migrate_disable();
	cpu = smp_processor_id();
	WRITE_ONCE(damon_perf_ring_busy_hook, nested_report);
	for (i = 1; i <= 10; i++) {
		nest.seq = 2 * i;
		r = mk(2 * i);
		KUNIT_EXPECT_TRUE(test, damon_perf_report_access(rings, &r));
	}
	WRITE_ONCE(damon_perf_ring_busy_hook, NULL);
	KUNIT_EXPECT_EQ(test, nest.refused, 10UL);
	damon_perf_ring_read_stats(rings, cpu, &st);
	KUNIT_EXPECT_EQ(test, st.busy_drop, 10UL);
	KUNIT_EXPECT_EQ(test, st.enqueue, 10UL);
	KUNIT_EXPECT_EQ(test, global(DAMON_PERF_STAT_busy_drop) - busy, 10UL);
	/* the outer reports, intact and in order; no inner one */
	KUNIT_EXPECT_EQ(test, damon_perf_rings_drain_pending(rings, collect,
							     &c), 10U);
	migrate_enable();
	KUNIT_EXPECT_EQ(test, c.last, 20UL);
	KUNIT_EXPECT_EQ(test, c.bad + c.disorder, 0UL);
	damon_perf_rings_free(rings);
}

static void ring_pending_bit_should_follow_publish_and_drain(struct kunit *test)
{
	struct damon_perf_rings *rings = new_rings(test, SMALL, NULL, NULL);
	struct damon_perf_report r = mk(1);
	struct collector c = {};
	int cpu, other;

	migrate_disable();
	cpu = smp_processor_id();
	KUNIT_EXPECT_TRUE(test, damon_perf_report_access(rings, &r));
	KUNIT_EXPECT_TRUE(test, cpumask_test_cpu(cpu, &rings->pending));
	KUNIT_EXPECT_EQ(test, cpumask_weight(&rings->pending), 1U);
	KUNIT_EXPECT_EQ(test, damon_perf_ring_drain(rings, cpu, collect, &c),
			1U);
	KUNIT_EXPECT_FALSE(test, cpumask_test_cpu(cpu, &rings->pending));
	/* An empty drain clears a stale bit too and finds nothing. */
	cpumask_set_cpu(cpu, &rings->pending);
	KUNIT_EXPECT_EQ(test, damon_perf_rings_drain_pending(rings, collect,
							     &c), 0U);
	KUNIT_EXPECT_TRUE(test, cpumask_empty(&rings->pending));

	/* another CPU's report sets its bit; a drain of this one leaves it */
	other = other_cpu(cpu);
	if (other < nr_cpu_ids) {
		KUNIT_EXPECT_TRUE(test,
				  offer_on(rings, other, 2, false, false));
		KUNIT_EXPECT_TRUE(test, cpumask_test_cpu(other,
							 &rings->pending));
		KUNIT_EXPECT_FALSE(test, cpumask_test_cpu(cpu,
							  &rings->pending));
		KUNIT_EXPECT_TRUE(test, damon_perf_rings_pending(rings));
		KUNIT_EXPECT_EQ(test, damon_perf_ring_drain(rings, cpu,
							    collect, &c), 0U);
		KUNIT_EXPECT_TRUE(test, cpumask_test_cpu(other,
							 &rings->pending));
		KUNIT_EXPECT_EQ(test, damon_perf_ring_drain(rings, other,
							    collect, &c), 1U);
		KUNIT_EXPECT_FALSE(test, cpumask_test_cpu(other,
							  &rings->pending));
		/* both CPUs, one pass of the pending rings */
		KUNIT_EXPECT_TRUE(test,
				  offer_on(rings, other, 3, false, false));
		r = mk(4);
		KUNIT_EXPECT_TRUE(test, damon_perf_report_access(rings, &r));
		KUNIT_EXPECT_EQ(test, damon_perf_rings_drain_pending(rings,
								     collect,
								     &c), 2U);
		KUNIT_EXPECT_TRUE(test, cpumask_empty(&rings->pending));
		KUNIT_EXPECT_FALSE(test, damon_perf_rings_pending(rings));
		KUNIT_EXPECT_EQ(test, c.n, 4UL);
	}
	migrate_enable();
	KUNIT_EXPECT_EQ(test, c.bad, 0UL);
	damon_perf_rings_free(rings);
}

/*
 * The producer sets the pending bit only when it finds it clear. The race
 * it leaves, replayed on one CPU: the producer reads the bit set, and the
 * drain that clears it misses the head store. The next drain must look
 * at that ring all the same.
 */
static void ring_drain_should_recheck_a_cleared_bit(struct kunit *test)
{
	struct damon_perf_rings *rings = new_rings(test, SMALL, NULL, NULL);
	struct damon_perf_report r = mk(1);
	struct collector c = {};
	int cpu;

	migrate_disable();
	cpu = smp_processor_id();
	/* the bit the producer will see, set by an earlier report */
	cpumask_set_cpu(cpu, &rings->pending);
	KUNIT_EXPECT_TRUE(test, damon_perf_report_access(rings, &r));
	/* the racing drain's clear, its head read older than the report */
	cpumask_clear_cpu(cpu, &rings->pending);
	__cpumask_set_cpu(cpu, rings->recheck);
	KUNIT_EXPECT_TRUE(test, damon_perf_rings_pending(rings));
	KUNIT_EXPECT_EQ(test, damon_perf_rings_drain_pending(rings, collect,
							     &c), 1U);
	KUNIT_EXPECT_EQ(test, c.last, 1UL);
	/* looked at once more, then forgotten: nothing left */
	KUNIT_EXPECT_FALSE(test, damon_perf_rings_pending(rings));
	KUNIT_EXPECT_TRUE(test, cpumask_empty(rings->recheck));

	/* the last drain of a context reads every ring, bit or not */
	r = mk(2);
	cpumask_set_cpu(cpu, &rings->pending);
	KUNIT_EXPECT_TRUE(test, damon_perf_report_access(rings, &r));
	cpumask_clear_cpu(cpu, &rings->pending);
	KUNIT_EXPECT_EQ(test, damon_perf_rings_drain_pending(rings, collect,
							     &c), 0U);
	damon_perf_rings_recheck_all(rings);
	KUNIT_EXPECT_EQ(test, damon_perf_rings_drain_pending(rings, collect,
							     &c), 1U);
	KUNIT_EXPECT_EQ(test, c.last, 2UL);
	migrate_enable();
	KUNIT_EXPECT_EQ(test, c.n, 2UL);
	KUNIT_EXPECT_EQ(test, c.bad, 0UL);
	damon_perf_rings_free(rings);
}

/* Enqueue is derived from head and dequeue, peak from the drains. */
static void ring_counters_should_count_past_many_drains(struct kunit *test)
{
	struct damon_perf_rings *rings = new_rings(test, SMALL, NULL, NULL);
	struct damon_perf_ring_stats sum;
	struct damon_perf_report r;
	struct collector c = {};
	unsigned long seq = 1;
	int round, i;

	migrate_disable();
	/* rounds of 1..16 reports: peak 16, then a quieter round */
	for (round = 1; round <= 16; round++) {
		for (i = 0; i < round; i++) {
			r = mk(seq++);
			KUNIT_EXPECT_TRUE(test,
					  damon_perf_report_access(rings, &r));
		}
		ring_stats_sum(rings, &sum);
		KUNIT_EXPECT_EQ(test, sum.enqueue, seq - 1);
		KUNIT_EXPECT_EQ(test, sum.occupancy, (unsigned int)round);
		KUNIT_EXPECT_EQ(test, sum.peak, (unsigned int)round);
		damon_perf_rings_drain_pending(rings, collect, &c);
	}
	r = mk(seq++);
	KUNIT_EXPECT_TRUE(test, damon_perf_report_access(rings, &r));
	damon_perf_rings_drain_pending(rings, collect, &c);
	migrate_enable();
	ring_stats_sum(rings, &sum);
	KUNIT_EXPECT_EQ(test, sum.enqueue, seq - 1);
	KUNIT_EXPECT_EQ(test, sum.dequeue, seq - 1);
	KUNIT_EXPECT_EQ(test, c.n, seq - 1);
	KUNIT_EXPECT_EQ(test, c.disorder, 0UL);
	KUNIT_EXPECT_EQ(test, sum.occupancy, 0U);
	KUNIT_EXPECT_EQ(test, sum.peak, (unsigned int)SMALL);
	damon_perf_rings_free(rings);
}

static void count_wake(void *arg)
{
	atomic_inc(arg);
}

static void
ring_watermark_wake_should_fire_once_per_crossing(struct kunit *test)
{
	atomic_t wakes = ATOMIC_INIT(0);
	struct damon_perf_rings *rings = new_rings(test, SMALL, count_wake,
						   &wakes);
	unsigned int hiwat = damon_perf_ring_hiwat(SMALL);
	unsigned long ew = global(DAMON_PERF_STAT_early_wake);
	struct damon_perf_ring_stats sum;
	struct damon_perf_report r;
	struct collector c = {};
	unsigned int i;

	KUNIT_ASSERT_EQ(test, hiwat, 12U);
	migrate_disable();
	for (i = 1; i < hiwat; i++) {
		r = mk(i);
		KUNIT_EXPECT_TRUE(test, damon_perf_report_access(rings, &r));
	}
	irq_work_sync(&rings->wake_work);
	KUNIT_EXPECT_EQ(test, atomic_read(&wakes), 0);

	/* Crossing: one wake, then none while above the mark or full. */
	for (; i <= SMALL + 4; i++) {
		r = mk(i);
		KUNIT_EXPECT_EQ(test, damon_perf_report_access(rings, &r),
				i <= SMALL);
	}
	irq_work_sync(&rings->wake_work);
	KUNIT_EXPECT_EQ(test, atomic_read(&wakes), 1);

	/* Draining below the mark re-arms; the next crossing wakes again. */
	KUNIT_EXPECT_EQ(test, damon_perf_rings_drain_pending(rings, collect,
							     &c), SMALL);
	for (i = 0; i < hiwat; i++) {
		r = mk(100 + i);
		KUNIT_EXPECT_TRUE(test, damon_perf_report_access(rings, &r));
	}
	irq_work_sync(&rings->wake_work);
	KUNIT_EXPECT_EQ(test, atomic_read(&wakes), 2);
	damon_perf_rings_drain_pending(rings, collect, &c);
	migrate_enable();

	ring_stats_sum(rings, &sum);
	KUNIT_EXPECT_EQ(test, sum.early_wake, 2UL);
	KUNIT_EXPECT_EQ(test, sum.overflow, 4UL);
	KUNIT_EXPECT_EQ(test, global(DAMON_PERF_STAT_early_wake) - ew, 2UL);
	damon_perf_rings_free(rings);
}

/*
 * Every report offered is accounted for exactly once: queued (enqueue)
 * or refused (overflow, busy_drop, no_probe); and every queued one is
 * consumed (dequeue) or still waiting (occupancy). Per ring and in the
 * global counters, over a seeded mix of two CPUs, bad probe indices,
 * nested producers and drains of random size.
 */
static void ring_counters_should_balance_over_a_random_mix(struct kunit *test)
{
	struct damon_perf_rings *rings = new_rings(test, SMALL, NULL, NULL);
	struct damon_perf_ring_stats sum;
	struct collector c = {};
	unsigned long g_enq = global(DAMON_PERF_STAT_enqueue);
	unsigned long g_deq = global(DAMON_PERF_STAT_dequeue);
	unsigned long g_ovf = global(DAMON_PERF_STAT_overflow);
	unsigned long g_busy = global(DAMON_PERF_STAT_busy_drop);
	unsigned long g_nop = global(DAMON_PERF_STAT_no_probe);
	unsigned long offered = 0, accepted = 0, drained = 0;
	unsigned long refused = 0;
	unsigned int i;
	int cpus[2];

	migrate_disable();
	cpus[0] = smp_processor_id();
	cpus[1] = other_cpu(cpus[0]);
	if (cpus[1] >= nr_cpu_ids)
		cpus[1] = cpus[0];
	for (i = 0; i < 5000; i++) {
		u32 dice = get_random_u32_below(100);
		int cpu = cpus[get_random_u32_below(2)];

		offered++;
		if (offer_on(rings, cpu, i + 1, dice >= 5 && dice < 10,
			     dice < 5))
			accepted++;
		else
			refused++;
		if (get_random_u32_below(40) == 0)
			drained += damon_perf_rings_drain_pending(rings,
								  collect, &c);
	}
	migrate_enable();
	ring_stats_sum(rings, &sum);
	/* the mix reached every path */
	KUNIT_EXPECT_GT(test, sum.overflow, 0UL);
	KUNIT_EXPECT_GT(test, sum.busy_drop, 0UL);
	KUNIT_EXPECT_GT(test, sum.no_probe, 0UL);
	KUNIT_EXPECT_GT(test, drained, 0UL);
	KUNIT_EXPECT_EQ(test, sum.enqueue, accepted);
	KUNIT_EXPECT_EQ(test, sum.overflow + sum.busy_drop + sum.no_probe,
			refused);
	KUNIT_EXPECT_EQ(test, sum.enqueue + sum.overflow + sum.busy_drop +
			sum.no_probe, offered);
	KUNIT_EXPECT_EQ(test, sum.dequeue, drained);
	KUNIT_EXPECT_EQ(test, sum.enqueue, sum.dequeue + sum.occupancy);
	KUNIT_EXPECT_EQ(test, global(DAMON_PERF_STAT_enqueue) - g_enq,
			sum.enqueue);
	KUNIT_EXPECT_EQ(test, global(DAMON_PERF_STAT_dequeue) - g_deq,
			sum.dequeue);
	KUNIT_EXPECT_EQ(test, global(DAMON_PERF_STAT_overflow) - g_ovf,
			sum.overflow);
	KUNIT_EXPECT_EQ(test, global(DAMON_PERF_STAT_busy_drop) - g_busy,
			sum.busy_drop);
	KUNIT_EXPECT_EQ(test, global(DAMON_PERF_STAT_no_probe) - g_nop,
			sum.no_probe);
	/* what is left comes out intact */
	drained += damon_perf_rings_drain_pending(rings, collect, &c);
	KUNIT_EXPECT_EQ(test, drained, accepted);
	KUNIT_EXPECT_EQ(test, c.bad, 0UL);
	ring_stats_sum(rings, &sum);
	KUNIT_EXPECT_EQ(test, sum.occupancy, 0U);
	damon_perf_rings_free(rings);
}

/* Concurrency: producer on CPU 0, consumer on CPU 1. */
#define CONC_REPORTS	1000000UL

struct conc {
	struct damon_perf_rings *rings;
	struct collector c;
	unsigned long queued;
	unsigned long dropped;
	unsigned long wrong_cpu;
	bool producer_done;
	atomic_t wakes;
	struct completion pdone;
	struct completion cdone;
};

static int conc_producer(void *arg)
{
	struct conc *t = arg;
	struct damon_perf_report r;
	unsigned long seq;

	for (seq = 1; seq <= CONC_REPORTS; seq++) {
		r = mk(seq);
		if (r.cpu != 0)
			t->wrong_cpu++;
		if (damon_perf_report_access(t->rings, &r))
			t->queued++;
		else
			t->dropped++;
		if (!(seq & 1023))
			cond_resched();
	}
	/* Pairs with the consumer's smp_load_acquire(). */
	smp_store_release(&t->producer_done, true);
	complete(&t->pdone);
	return 0;
}

static int conc_consumer(void *arg)
{
	struct conc *t = arg;
	unsigned long rounds = 0;

	/* Pairs with the producer's smp_store_release(): the drain sees all. */
	while (!smp_load_acquire(&t->producer_done)) {
		damon_perf_ring_drain(t->rings, 0, collect, &t->c);
		/* Fall behind now and then, so the ring also overflows. */
		if (!(++rounds & 1023))
			usleep_range(100, 200);
		else
			cond_resched();
	}
	damon_perf_ring_drain(t->rings, 0, collect, &t->c);
	complete(&t->cdone);
	return 0;
}

static void ring_spsc_should_deliver_or_count_every_report(struct kunit *test)
{
	struct damon_perf_ring_stats sum;
	struct task_struct *p, *c;
	struct conc *t;

	if (num_online_cpus() < 2 || !cpu_online(0) || !cpu_online(1))
		kunit_skip(test, "needs CPUs 0 and 1 online");

	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	atomic_set(&t->wakes, 0);
	t->rings = new_rings(test, DAMON_PERF_RING_DEF_SIZE, count_wake,
			     &t->wakes);
	init_completion(&t->pdone);
	init_completion(&t->cdone);

	p = kthread_create(conc_producer, t, "dp_kunit_prod");
	KUNIT_ASSERT_FALSE(test, IS_ERR(p));
	c = kthread_create(conc_consumer, t, "dp_kunit_cons");
	if (IS_ERR(c)) {
		kthread_stop(p);
		KUNIT_FAIL(test, "consumer thread: %ld", PTR_ERR(c));
		return;
	}
	kthread_bind(p, 0);
	kthread_bind(c, 1);
	wake_up_process(c);
	wake_up_process(p);
	wait_for_completion(&t->pdone);
	wait_for_completion(&t->cdone);
	irq_work_sync(&t->rings->wake_work);

	ring_stats_sum(t->rings, &sum);
	KUNIT_EXPECT_EQ(test, t->wrong_cpu, 0UL);
	KUNIT_EXPECT_EQ(test, t->queued + t->dropped, CONC_REPORTS);
	KUNIT_EXPECT_EQ(test, t->c.n, t->queued);
	KUNIT_EXPECT_EQ(test, t->c.bad, 0UL);
	KUNIT_EXPECT_EQ(test, t->c.disorder, 0UL);
	KUNIT_EXPECT_EQ(test, sum.enqueue, t->queued);
	KUNIT_EXPECT_EQ(test, sum.dequeue, t->c.n);
	KUNIT_EXPECT_EQ(test, sum.overflow, t->dropped);
	KUNIT_EXPECT_EQ(test, sum.busy_drop, 0UL);
	KUNIT_EXPECT_EQ(test, sum.occupancy, 0U);
	KUNIT_EXPECT_LE(test, (unsigned long)atomic_read(&t->wakes),
			sum.early_wake);
	if (sum.early_wake)
		KUNIT_EXPECT_GT(test, atomic_read(&t->wakes), 0);
	kunit_info(test, "pushed %lu queued %lu dropped %lu early_wake %lu\n",
		   CONC_REPORTS, t->queued, t->dropped, sum.early_wake);
	/* For tests/vm/report_stats.sh: lower bounds of perf_stats totals. */
	pr_info("expect enqueue>=%lu dequeue>=%lu overflow>=%lu\n",
		t->queued, t->c.n, t->dropped);
	damon_perf_rings_free(t->rings);
}

#define RINGS_FILE	"/sys/kernel/debug/damon_perf/ctx4242/rings"

/* Read a whole debugfs file; returns its length or a negative errno. */
static ssize_t read_file(const char *path, char *buf, size_t size)
{
	struct file *f = filp_open(path, O_RDONLY, 0);
	loff_t pos = 0;
	ssize_t n, len = 0;

	if (IS_ERR(f))
		return PTR_ERR(f);
	while (len < size - 1) {
		n = kernel_read(f, buf + len, size - 1 - len, &pos);
		if (n <= 0)
			break;
		len += n;
	}
	buf[len] = '\0';
	filp_close(f, NULL);
	return len;
}

static void ring_counters_should_show_in_ctx_rings_file(struct kunit *test)
{
	static const char header[] = {
		"cpu size occupancy enqueue dequeue overflow busy_drop no_probe peak early_wake\n",
	};
	struct damon_perf_ctx *ctx;
	struct damon_perf_report r;
	struct collector c = {};
	char *buf, *total;
	ssize_t len;
	int i;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	buf = kunit_kzalloc(test, PAGE_SIZE * 4, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	ctx->id = 4242;
	KUNIT_ASSERT_EQ(test, damon_perf_rings_alloc(&ctx->rings, SMALL, NULL,
						     NULL), 0);
	migrate_disable();
	for (i = 1; i <= 3; i++) {
		r = mk(i);
		KUNIT_EXPECT_TRUE(test, damon_perf_report_access(&ctx->rings,
								 &r));
	}
	r.probe_idx = 0;
	KUNIT_EXPECT_FALSE(test, damon_perf_report_access(&ctx->rings, &r));
	migrate_enable();

	damon_perf_debugfs_ctx_add(ctx);
	len = read_file(RINGS_FILE, buf, PAGE_SIZE * 4);
	if (len == -ENOENT) {
		damon_perf_debugfs_ctx_del(ctx);
		damon_perf_rings_free(&ctx->rings);
		kunit_skip(test, "debugfs not mounted at /sys/kernel/debug");
	}
	KUNIT_ASSERT_GT(test, len, 0);
	KUNIT_EXPECT_EQ(test, strncmp(buf, header, strlen(header)), 0);
	total = strstr(buf, "\ntotal ");
	KUNIT_ASSERT_NOT_NULL(test, total);
	KUNIT_EXPECT_STREQ(test, total, "\ntotal 16 3 3 0 0 0 1 3 0\n");
	/* Header, one row per possible CPU, total. */
	for (i = 0, total = buf; (total = strchr(total, '\n')); total++)
		i++;
	KUNIT_EXPECT_EQ(test, i, (int)num_possible_cpus() + 2);

	/* Without rings (context stopped) only the header remains. */
	KUNIT_EXPECT_EQ(test, damon_perf_rings_drain_pending(&ctx->rings,
							     collect, &c), 3U);
	damon_perf_rings_free(&ctx->rings);
	len = read_file(RINGS_FILE, buf, PAGE_SIZE * 4);
	KUNIT_EXPECT_STREQ(test, buf, header);

	damon_perf_debugfs_ctx_del(ctx);
	KUNIT_EXPECT_EQ(test, read_file(RINGS_FILE, buf, PAGE_SIZE), -ENOENT);
}

static struct kunit_case ring_cases[] = {
	KUNIT_CASE(ring_alloc_should_accept_only_power_of_two_sizes),
	KUNIT_CASE(ring_memory_should_be_counted_while_allocated),
	KUNIT_CASE(ring_should_start_empty),
	KUNIT_CASE(ring_push_then_drain_should_return_the_report),
	KUNIT_CASE(ring_should_wrap_around_in_order),
	KUNIT_CASE(ring_push_should_drop_when_full),
	KUNIT_CASE(ring_should_refuse_probe_idx_zero),
	KUNIT_CASE(ring_should_refuse_when_not_allocated),
	KUNIT_CASE(ring_should_refuse_while_the_busy_guard_is_held),
	KUNIT_CASE(ring_should_refuse_every_report_nested_in_one),
	KUNIT_CASE(ring_pending_bit_should_follow_publish_and_drain),
	KUNIT_CASE(ring_drain_should_recheck_a_cleared_bit),
	KUNIT_CASE(ring_counters_should_count_past_many_drains),
	KUNIT_CASE(ring_watermark_wake_should_fire_once_per_crossing),
	KUNIT_CASE(ring_counters_should_balance_over_a_random_mix),
	KUNIT_CASE(ring_counters_should_show_in_ctx_rings_file),
	KUNIT_CASE(ring_spsc_should_deliver_or_count_every_report),
	{}
};

static struct kunit_suite ring_suite = {
	.name = "damon_perf_ring",
	.test_cases = ring_cases,
};

kunit_test_suites(&ring_suite);
