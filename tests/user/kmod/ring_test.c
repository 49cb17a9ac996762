// SPDX-License-Identifier: GPL-2.0
/*
 * kmod/ring.c in userspace: the per-CPU report rings, their counters and
 * the watermark wake. The cases of tests/kunit/ring_kunit.c that need no
 * kernel, under the same names, and the busy guard: a report nested inside
 * another through the KUnit-only busy hook (as tests/kunit/nmi_kunit.c's
 * self-NMI, without the NMI), and a guard left held. The two-thread stress
 * stays in KUnit (real CPUs) and in tests/user/bench/ring_drops.
 */
#include "kt_kmod.h"

#define SMALL DAMON_PERF_RING_MIN_SIZE

/* A report whose every field is derived from @seq, so tearing shows. */
static struct damon_perf_report mk(unsigned long seq)
{
	return (struct damon_perf_report){
		.paddr = seq << PAGE_SHIFT,
		.vaddr = seq,
		.size = PAGE_SIZE + (seq & 7),
		.time_ns = seq * 3 + 1,
		.cpu = shim_cpu,
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
	       r->size == PAGE_SIZE + (seq & 7) && r->time_ns == seq * 3 + 1 &&
	       r->tid == (pid_t)(seq ^ 0x5a5a) &&
	       r->tgid == (pid_t)(seq ^ 0xa5a5) && r->is_write == (seq & 1) &&
	       r->probe_idx == 1 + seq % 3 && r->src == DAMON_PERF_SRC_INJECTED;
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

static void sum_stats(struct damon_perf_rings *rings,
		      struct damon_perf_ring_stats *sum)
{
	struct damon_perf_ring_stats one;
	int cpu;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu (cpu) {
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

static bool push(struct damon_perf_rings *rings, unsigned long seq)
{
	struct damon_perf_report r = mk(seq);

	return damon_perf_report_access(rings, &r);
}

/* What the CPU does on leaving the NMI: run the irq_work it queued. */
static unsigned long work_seen;

static void run_irq_work(struct damon_perf_rings *rings)
{
	struct irq_work *w = &rings->wake_work;

	if (w->queued != work_seen) {
		work_seen = w->queued;
		w->func(w);
	}
}

static void ring_alloc_should_accept_only_power_of_two_sizes(void)
{
	static const unsigned int bad[] = {1, 8, 15, 17, 100, 131072, ~0U};
	struct damon_perf_rings rings = {0};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		KT_EXPECT_FALSE(damon_perf_rings_valid_size(bad[i]));
		KT_EXPECT_EQ(damon_perf_rings_alloc(&rings, bad[i], NULL, NULL),
			     -EINVAL);
		KT_EXPECT_TRUE(!rings.ring);
	}
	KT_EXPECT_TRUE(damon_perf_rings_valid_size(16));
	KT_EXPECT_TRUE(damon_perf_rings_valid_size(65536));
	KT_ASSERT_EQ(damon_perf_rings_alloc(&rings, 0, NULL, NULL), 0);
	KT_EXPECT_EQ(rings.size, (unsigned int)DAMON_PERF_RING_DEF_SIZE);
	damon_perf_rings_free(&rings);
	KT_ASSERT_EQ(damon_perf_rings_alloc(&rings, 16, NULL, NULL), 0);
	KT_EXPECT_EQ(rings.size, 16U);
	damon_perf_rings_free(&rings);
	KT_EXPECT_TRUE(!rings.ring);
}

/* max_ring_kb counts a context's rings from their allocation to their free */
static void ring_memory_should_be_counted_while_allocated(void)
{
	struct damon_perf_rings rings = {0}, other = {0};
	u64 per_cpu = 64 * sizeof(struct damon_perf_report) +
		      sizeof(struct damon_perf_ring);
	u64 bytes = damon_perf_rings_bytes(64), base, in_use;

	KT_EXPECT_EQ(bytes, (u64)nr_cpu_ids * per_cpu);
	KT_EXPECT_EQ(damon_perf_rings_mem(&base), 256ULL * 1024 * 1024);
	KT_ASSERT_EQ(damon_perf_rings_alloc(&rings, 64, NULL, NULL), 0);
	damon_perf_rings_mem(&in_use);
	KT_EXPECT_EQ(in_use, base + bytes);
	/* a refused or failed allocation leaves the count as it was */
	KT_EXPECT_EQ(damon_perf_rings_alloc(&rings, 64, NULL, NULL), -EBUSY);
	shim_fail_alloc = true;
	KT_EXPECT_EQ(damon_perf_rings_alloc(&other, 64, NULL, NULL), -ENOMEM);
	shim_fail_alloc = false;
	KT_EXPECT_TRUE(!other.ring);
	damon_perf_rings_mem(&in_use);
	KT_EXPECT_EQ(in_use, base + bytes);
	damon_perf_rings_free(&rings);
	damon_perf_rings_mem(&in_use);
	KT_EXPECT_EQ(in_use, base);
}

static void ring_should_start_empty(void)
{
	struct damon_perf_rings rings = {0};
	struct damon_perf_ring_stats sum;
	struct collector c = {0};
	int cpu;

	KT_ASSERT_EQ(damon_perf_rings_alloc(&rings, SMALL, NULL, NULL), 0);
	KT_EXPECT_TRUE(cpumask_empty(&rings.pending));
	KT_EXPECT_FALSE(damon_perf_rings_pending(&rings));
	for_each_possible_cpu (cpu)
		KT_EXPECT_EQ(damon_perf_ring_drain(&rings, cpu, collect, &c),
			     0U);
	KT_EXPECT_EQ(c.n, 0UL);
	sum_stats(&rings, &sum);
	KT_EXPECT_EQ(sum.enqueue + sum.dequeue + sum.overflow, 0UL);
	KT_EXPECT_EQ(sum.occupancy, 0U);
	damon_perf_rings_free(&rings);
}

static void ring_push_then_drain_should_return_the_report(void)
{
	struct damon_perf_rings rings = {0};
	unsigned long enq = kt_global(DAMON_PERF_STAT_enqueue);
	unsigned long deq = kt_global(DAMON_PERF_STAT_dequeue);
	struct collector c = {0};

	KT_ASSERT_EQ(damon_perf_rings_alloc(&rings, SMALL, NULL, NULL), 0);
	KT_EXPECT_TRUE(push(&rings, 42));
	KT_EXPECT_EQ(damon_perf_rings_drain_pending(&rings, collect, &c), 1U);
	KT_EXPECT_EQ(c.n, 1UL);
	KT_EXPECT_EQ(c.last, 42UL);
	KT_EXPECT_EQ(c.bad, 0UL);
	KT_EXPECT_EQ(kt_global(DAMON_PERF_STAT_enqueue) - enq, 1UL);
	KT_EXPECT_EQ(kt_global(DAMON_PERF_STAT_dequeue) - deq, 1UL);
	damon_perf_rings_free(&rings);
}

static void ring_should_wrap_around_in_order(void)
{
	struct damon_perf_rings rings = {0};
	struct damon_perf_ring_stats sum;
	struct collector c = {0};
	unsigned long seq = 1;
	int round, i;

	KT_ASSERT_EQ(damon_perf_rings_alloc(&rings, SMALL, NULL, NULL), 0);
	/* 10 rounds of 11 pushes on 16 slots: the indices pass the mask. */
	for (round = 0; round < 10; round++) {
		for (i = 0; i < 11; i++)
			KT_EXPECT_TRUE(push(&rings, seq++));
		KT_EXPECT_EQ(
			damon_perf_rings_drain_pending(&rings, collect, &c),
			11U);
	}
	KT_EXPECT_EQ(c.n, 110UL);
	KT_EXPECT_EQ(c.last, 110UL);
	KT_EXPECT_EQ(c.bad, 0UL);
	KT_EXPECT_EQ(c.disorder, 0UL);
	sum_stats(&rings, &sum);
	KT_EXPECT_EQ(sum.enqueue, 110UL);
	KT_EXPECT_EQ(sum.dequeue, 110UL);
	KT_EXPECT_EQ(sum.peak, 11U);
	damon_perf_rings_free(&rings);
}

static void ring_push_should_drop_when_full(void)
{
	struct damon_perf_rings rings = {0};
	unsigned long ovf = kt_global(DAMON_PERF_STAT_overflow);
	struct damon_perf_ring_stats sum;
	struct collector c = {0};
	int i;

	KT_ASSERT_EQ(damon_perf_rings_alloc(&rings, SMALL, NULL, NULL), 0);
	for (i = 1; i <= SMALL; i++)
		KT_EXPECT_TRUE(push(&rings, i));
	for (i = 0; i < 3; i++)
		KT_EXPECT_FALSE(push(&rings, 1000 + i));
	sum_stats(&rings, &sum);
	KT_EXPECT_EQ(sum.overflow, 3UL);
	KT_EXPECT_EQ(sum.enqueue, (unsigned long)SMALL);
	KT_EXPECT_EQ(sum.occupancy, (unsigned int)SMALL);
	KT_EXPECT_EQ(sum.peak, (unsigned int)SMALL);
	KT_EXPECT_EQ(kt_global(DAMON_PERF_STAT_overflow) - ovf, 3UL);

	/* The refused reports left the queued ones intact. */
	KT_EXPECT_EQ(damon_perf_rings_drain_pending(&rings, collect, &c),
		     (unsigned int)SMALL);
	KT_EXPECT_EQ(c.last, (unsigned long)SMALL);
	KT_EXPECT_EQ(c.bad + c.disorder, 0UL);
	/* Room again after the drain. */
	KT_EXPECT_TRUE(push(&rings, 2000));
	KT_EXPECT_EQ(damon_perf_rings_drain_pending(&rings, collect, &c), 1U);
	damon_perf_rings_free(&rings);
}

static void ring_should_refuse_probe_idx_zero(void)
{
	struct damon_perf_rings rings = {0};
	unsigned long nop = kt_global(DAMON_PERF_STAT_no_probe);
	unsigned long enq = kt_global(DAMON_PERF_STAT_enqueue);
	struct damon_perf_report r = mk(3);
	struct damon_perf_ring_stats sum;

	KT_ASSERT_EQ(damon_perf_rings_alloc(&rings, SMALL, NULL, NULL), 0);
	r.probe_idx = 0;
	KT_EXPECT_FALSE(damon_perf_report_access(&rings, &r));
	KT_EXPECT_TRUE(cpumask_empty(&rings.pending));
	sum_stats(&rings, &sum);
	KT_EXPECT_EQ(sum.no_probe, 1UL);
	KT_EXPECT_EQ(sum.enqueue, 0UL);
	KT_EXPECT_EQ(kt_global(DAMON_PERF_STAT_no_probe) - nop, 1UL);
	KT_EXPECT_EQ(kt_global(DAMON_PERF_STAT_enqueue) - enq, 0UL);
	damon_perf_rings_free(&rings);
}

static void ring_should_refuse_when_not_allocated(void)
{
	struct damon_perf_rings rings = {0};
	unsigned long nr = kt_global(DAMON_PERF_STAT_no_ring);
	struct damon_perf_report r = mk(1);
	struct collector c = {0};

	KT_EXPECT_FALSE(damon_perf_report_access(&rings, &r));
	KT_EXPECT_FALSE(damon_perf_report_access(NULL, &r));
	KT_EXPECT_EQ(kt_global(DAMON_PERF_STAT_no_ring) - nr, 2UL);
	KT_EXPECT_EQ(damon_perf_rings_drain_pending(&rings, collect, &c), 0U);
}

/*
 * A producer nested over another on the same CPU (an NMI over the
 * process-context injector) finds the ring's busy guard held: refused and
 * counted, nothing queued, and the ring takes reports again once the
 * outer producer is done.
 */
static void ring_should_refuse_while_the_busy_guard_is_held(void)
{
	struct damon_perf_rings rings = {0};
	unsigned long busy = kt_global(DAMON_PERF_STAT_busy_drop);
	unsigned long enq = kt_global(DAMON_PERF_STAT_enqueue);
	struct damon_perf_ring_stats st;
	struct damon_perf_ring *r;
	struct collector c = {0};

	KT_ASSERT_EQ(damon_perf_rings_alloc(&rings, SMALL, NULL, NULL), 0);
	r = per_cpu_ptr(rings.ring, 0);
	WRITE_ONCE(r->busy, 1); /* the outer producer, mid-push */
	KT_EXPECT_FALSE(push(&rings, 1));
	KT_EXPECT_FALSE(push(&rings, 2));
	KT_EXPECT_TRUE(cpumask_empty(&rings.pending));
	/* another CPU's ring is not guarded by it */
	shim_cpu = 1;
	KT_EXPECT_TRUE(push(&rings, 3));
	shim_cpu = 0;
	damon_perf_ring_read_stats(&rings, 0, &st);
	KT_EXPECT_EQ(st.busy_drop, 2UL);
	KT_EXPECT_EQ(st.enqueue, 0UL);
	KT_EXPECT_EQ(st.occupancy, 0U);
	KT_EXPECT_EQ(kt_global(DAMON_PERF_STAT_busy_drop) - busy, 2UL);
	KT_EXPECT_EQ(kt_global(DAMON_PERF_STAT_enqueue) - enq, 1UL);

	WRITE_ONCE(r->busy, 0);
	KT_EXPECT_TRUE(push(&rings, 4));
	KT_EXPECT_EQ(READ_ONCE(r->busy), 0); /* released after the push */
	KT_EXPECT_EQ(damon_perf_rings_drain_pending(&rings, collect, &c), 2U);
	KT_EXPECT_EQ(c.n, 2UL);
	KT_EXPECT_EQ(c.bad, 0UL);
	damon_perf_rings_free(&rings);
}

/* The producer nested inside report_access, with the busy guard held. */
static struct {
	struct damon_perf_rings *rings;
	unsigned long seq;
	unsigned long refused;
} nest;

static void nested_report(struct damon_perf_rings *rings)
{
	if (rings != nest.rings || nest.seq & 1)
		return;
	/* the inner report, once per outer one */
	nest.seq |= 1;
	if (!push(rings, nest.seq))
		nest.refused++;
}

static void ring_should_refuse_every_report_nested_in_one(void)
{
	struct damon_perf_rings rings = {0};
	unsigned long busy = kt_global(DAMON_PERF_STAT_busy_drop);
	struct damon_perf_ring_stats st;
	struct collector c = {0};
	unsigned long i;

	KT_ASSERT_EQ(damon_perf_rings_alloc(&rings, SMALL, NULL, NULL), 0);
	nest.rings = &rings;
	nest.refused = 0;
	damon_perf_ring_busy_hook = nested_report;
	for (i = 1; i <= 10; i++) {
		nest.seq = 2 * i;
		KT_EXPECT_TRUE(push(&rings, 2 * i));
	}
	damon_perf_ring_busy_hook = NULL;
	KT_EXPECT_EQ(nest.refused, 10UL);
	damon_perf_ring_read_stats(&rings, 0, &st);
	KT_EXPECT_EQ(st.busy_drop, 10UL);
	KT_EXPECT_EQ(st.enqueue, 10UL);
	KT_EXPECT_EQ(kt_global(DAMON_PERF_STAT_busy_drop) - busy, 10UL);
	/* the outer reports, intact and in order; no inner one */
	KT_EXPECT_EQ(damon_perf_rings_drain_pending(&rings, collect, &c), 10U);
	KT_EXPECT_EQ(c.last, 20UL);
	KT_EXPECT_EQ(c.bad + c.disorder, 0UL);
	damon_perf_rings_free(&rings);
}

static void ring_pending_bit_should_follow_publish_and_drain(void)
{
	struct damon_perf_rings rings = {0};
	struct collector c = {0};

	KT_ASSERT_EQ(damon_perf_rings_alloc(&rings, SMALL, NULL, NULL), 0);
	shim_cpu = 1;
	KT_EXPECT_TRUE(push(&rings, 1));
	KT_EXPECT_TRUE(cpumask_test_cpu(1, &rings.pending));
	KT_EXPECT_FALSE(cpumask_test_cpu(0, &rings.pending));
	KT_EXPECT_TRUE(damon_perf_rings_pending(&rings));
	/* the drain of another CPU's ring leaves the bit */
	KT_EXPECT_EQ(damon_perf_ring_drain(&rings, 0, collect, &c), 0U);
	KT_EXPECT_TRUE(cpumask_test_cpu(1, &rings.pending));
	KT_EXPECT_EQ(damon_perf_ring_drain(&rings, 1, collect, &c), 1U);
	KT_EXPECT_FALSE(cpumask_test_cpu(1, &rings.pending));
	/* both CPUs, one pass of the pending rings */
	KT_EXPECT_TRUE(push(&rings, 2));
	shim_cpu = 0;
	KT_EXPECT_TRUE(push(&rings, 3));
	KT_EXPECT_EQ(damon_perf_rings_drain_pending(&rings, collect, &c), 2U);
	KT_EXPECT_TRUE(cpumask_empty(&rings.pending));
	KT_EXPECT_FALSE(damon_perf_rings_pending(&rings));
	KT_EXPECT_EQ(c.n, 3UL);
	KT_EXPECT_EQ(c.bad, 0UL);
	damon_perf_rings_free(&rings);
}

/*
 * The producer sets the pending bit only when it finds it clear. The race
 * it leaves, replayed on one CPU: the producer reads the bit set, and the
 * drain that clears it misses the head store. The next drain must look
 * at that ring all the same.
 */
static void ring_drain_should_recheck_a_cleared_bit(void)
{
	struct damon_perf_rings rings = {0};
	struct collector c = {0};

	KT_ASSERT_EQ(damon_perf_rings_alloc(&rings, SMALL, NULL, NULL), 0);
	cpumask_set_cpu(0, &rings.pending);
	KT_EXPECT_TRUE(push(&rings, 1));
	cpumask_test_and_clear_cpu(0, &rings.pending);
	__cpumask_set_cpu(0, rings.recheck);
	KT_EXPECT_TRUE(damon_perf_rings_pending(&rings));
	KT_EXPECT_EQ(damon_perf_rings_drain_pending(&rings, collect, &c), 1U);
	KT_EXPECT_EQ(c.last, 1UL);
	KT_EXPECT_FALSE(damon_perf_rings_pending(&rings));
	KT_EXPECT_TRUE(cpumask_empty(rings.recheck));

	/* the last drain of a context reads every ring, bit or not */
	cpumask_set_cpu(0, &rings.pending);
	KT_EXPECT_TRUE(push(&rings, 2));
	cpumask_test_and_clear_cpu(0, &rings.pending);
	KT_EXPECT_EQ(damon_perf_rings_drain_pending(&rings, collect, &c), 0U);
	damon_perf_rings_recheck_all(&rings);
	KT_EXPECT_EQ(damon_perf_rings_drain_pending(&rings, collect, &c), 1U);
	KT_EXPECT_EQ(c.last, 2UL);
	KT_EXPECT_EQ(c.n, 2UL);
	KT_EXPECT_EQ(c.bad, 0UL);
	damon_perf_rings_free(&rings);
}

/* Enqueue is derived from head and dequeue, peak from the drains. */
static void ring_counters_should_count_past_many_drains(void)
{
	struct damon_perf_rings rings = {0};
	struct damon_perf_ring_stats sum;
	struct collector c = {0};
	unsigned long seq = 1;
	int round, i;

	KT_ASSERT_EQ(damon_perf_rings_alloc(&rings, SMALL, NULL, NULL), 0);
	for (round = 1; round <= SMALL; round++) {
		for (i = 0; i < round; i++)
			KT_EXPECT_TRUE(push(&rings, seq++));
		sum_stats(&rings, &sum);
		KT_EXPECT_EQ(sum.enqueue, seq - 1);
		KT_EXPECT_EQ(sum.occupancy, (unsigned int)round);
		KT_EXPECT_EQ(sum.peak, (unsigned int)round);
		damon_perf_rings_drain_pending(&rings, collect, &c);
	}
	KT_EXPECT_TRUE(push(&rings, seq++));
	damon_perf_rings_drain_pending(&rings, collect, &c);
	sum_stats(&rings, &sum);
	KT_EXPECT_EQ(sum.enqueue, seq - 1);
	KT_EXPECT_EQ(sum.dequeue, seq - 1);
	KT_EXPECT_EQ(c.n, seq - 1);
	KT_EXPECT_EQ(c.disorder, 0UL);
	KT_EXPECT_EQ(sum.occupancy, 0U);
	KT_EXPECT_EQ(sum.peak, (unsigned int)SMALL);
	damon_perf_rings_free(&rings);
}

static void count_wake(void *arg)
{
	(*(int *)arg)++;
}

static void ring_watermark_wake_should_fire_once_per_crossing(void)
{
	struct damon_perf_rings rings = {0};
	unsigned int hiwat = damon_perf_ring_hiwat(SMALL);
	unsigned long ew = kt_global(DAMON_PERF_STAT_early_wake);
	struct damon_perf_ring_stats sum;
	struct collector c = {0};
	unsigned int i;
	int wakes = 0;

	KT_ASSERT_EQ(hiwat, 12U);
	KT_ASSERT_EQ(damon_perf_rings_alloc(&rings, SMALL, count_wake, &wakes),
		     0);
	work_seen = 0;
	for (i = 1; i < hiwat; i++) {
		KT_EXPECT_TRUE(push(&rings, i));
		run_irq_work(&rings);
	}
	KT_EXPECT_EQ(wakes, 0);

	/* Crossing: one wake, then none while above the mark or full. */
	for (; i <= SMALL + 4; i++) {
		KT_EXPECT_EQ(push(&rings, i), i <= SMALL);
		run_irq_work(&rings);
	}
	KT_EXPECT_EQ(wakes, 1);

	/* Draining below the mark re-arms; the next crossing wakes again. */
	KT_EXPECT_EQ(damon_perf_rings_drain_pending(&rings, collect, &c),
		     (unsigned int)SMALL);
	for (i = 0; i < hiwat; i++) {
		KT_EXPECT_TRUE(push(&rings, 100 + i));
		run_irq_work(&rings);
	}
	KT_EXPECT_EQ(wakes, 2);
	damon_perf_rings_drain_pending(&rings, collect, &c);

	sum_stats(&rings, &sum);
	KT_EXPECT_EQ(sum.early_wake, 2UL);
	KT_EXPECT_EQ(sum.overflow, 4UL);
	KT_EXPECT_EQ(kt_global(DAMON_PERF_STAT_early_wake) - ew, 2UL);
	damon_perf_rings_free(&rings);
}

/*
 * Every report offered is accounted for exactly once: queued (enqueue)
 * or refused (overflow, busy_drop, no_probe); and every queued one is
 * consumed (dequeue) or still waiting (occupancy). Per ring and in the
 * global counters, over a seeded mix of both CPUs, bad probe indices,
 * nested producers and drains of random size.
 */
static void ring_counters_should_balance_over_a_random_mix(void)
{
	struct damon_perf_rings rings = {0};
	struct damon_perf_ring_stats sum;
	struct collector c = {0};
	unsigned long g_enq = kt_global(DAMON_PERF_STAT_enqueue);
	unsigned long g_deq = kt_global(DAMON_PERF_STAT_dequeue);
	unsigned long g_ovf = kt_global(DAMON_PERF_STAT_overflow);
	unsigned long g_busy = kt_global(DAMON_PERF_STAT_busy_drop);
	unsigned long g_nop = kt_global(DAMON_PERF_STAT_no_probe);
	unsigned long offered = 0, accepted = 0, drained = 0;
	unsigned long refused = 0;
	unsigned int i;

	KT_ASSERT_EQ(damon_perf_rings_alloc(&rings, SMALL, NULL, NULL), 0);
	for (i = 0; i < 5000; i++) {
		struct damon_perf_report r = mk(i + 1);
		struct damon_perf_ring *ring;
		u32 dice = get_random_u32_below(100);
		bool nested = dice < 5;

		shim_cpu = (int)get_random_u32_below(2);
		r.cpu = shim_cpu;
		if (dice >= 5 && dice < 10)
			r.probe_idx = 0;
		ring = this_cpu_ptr(rings.ring);
		if (nested)
			WRITE_ONCE(ring->busy, 1);
		offered++;
		if (damon_perf_report_access(&rings, &r))
			accepted++;
		else
			refused++;
		if (nested)
			WRITE_ONCE(ring->busy, 0);
		if (get_random_u32_below(40) == 0)
			drained += damon_perf_rings_drain_pending(&rings,
								  collect, &c);
	}
	shim_cpu = 0;
	sum_stats(&rings, &sum);
	/* the mix reached every path */
	KT_EXPECT_GT(sum.overflow, 0UL);
	KT_EXPECT_GT(sum.busy_drop, 0UL);
	KT_EXPECT_GT(sum.no_probe, 0UL);
	KT_EXPECT_GT(drained, 0UL);
	KT_EXPECT_EQ(sum.enqueue, accepted);
	KT_EXPECT_EQ(sum.overflow + sum.busy_drop + sum.no_probe, refused);
	KT_EXPECT_EQ(sum.enqueue + sum.overflow + sum.busy_drop + sum.no_probe,
		     offered);
	KT_EXPECT_EQ(sum.dequeue, drained);
	KT_EXPECT_EQ(sum.enqueue, sum.dequeue + sum.occupancy);
	KT_EXPECT_EQ(kt_global(DAMON_PERF_STAT_enqueue) - g_enq, sum.enqueue);
	KT_EXPECT_EQ(kt_global(DAMON_PERF_STAT_dequeue) - g_deq, sum.dequeue);
	KT_EXPECT_EQ(kt_global(DAMON_PERF_STAT_overflow) - g_ovf, sum.overflow);
	KT_EXPECT_EQ(kt_global(DAMON_PERF_STAT_busy_drop) - g_busy,
		     sum.busy_drop);
	KT_EXPECT_EQ(kt_global(DAMON_PERF_STAT_no_probe) - g_nop, sum.no_probe);
	/* what is left comes out intact, each CPU's in order */
	drained += damon_perf_rings_drain_pending(&rings, collect, &c);
	KT_EXPECT_EQ(drained, accepted);
	KT_EXPECT_EQ(c.bad, 0UL);
	sum_stats(&rings, &sum);
	KT_EXPECT_EQ(sum.occupancy, 0U);
	damon_perf_rings_free(&rings);
}

static const struct kt_case cases[] = {
	KT_CASE(ring_alloc_should_accept_only_power_of_two_sizes),
	KT_CASE(ring_memory_should_be_counted_while_allocated),
	KT_CASE(ring_should_start_empty),
	KT_CASE(ring_push_then_drain_should_return_the_report),
	KT_CASE(ring_should_wrap_around_in_order),
	KT_CASE(ring_push_should_drop_when_full),
	KT_CASE(ring_should_refuse_probe_idx_zero),
	KT_CASE(ring_should_refuse_when_not_allocated),
	KT_CASE(ring_should_refuse_while_the_busy_guard_is_held),
	KT_CASE(ring_should_refuse_every_report_nested_in_one),
	KT_CASE(ring_pending_bit_should_follow_publish_and_drain),
	KT_CASE(ring_drain_should_recheck_a_cleared_bit),
	KT_CASE(ring_counters_should_count_past_many_drains),
	KT_CASE(ring_watermark_wake_should_fire_once_per_crossing),
	KT_CASE(ring_counters_should_balance_over_a_random_mix),
	{NULL, NULL},
};

const struct kt_suite kt_ring_suite = {"KmodRing", cases, kt_kmod_init,
				       kt_kmod_fini};
