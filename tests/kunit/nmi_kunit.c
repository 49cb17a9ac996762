// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the ring's busy guard under true NMI nesting (x86).
 *
 * A test NMI handler pushes a report. The process-context producer sends
 * the self-NMI from inside damon_perf_report_access(), with the busy guard
 * held (through the KUnit-only damon_perf_ring_busy_hook), and waits for
 * the handler: every nested report must be refused and counted as
 * busy_drop, and the outer report queued intact. A self-NMI sent outside
 * report_access must be queued like any other report.
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/hardirq.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <asm/apic.h>
#include <asm/nmi.h>

#include "ring.h"
#include "stats.h"
#include "../nmi/selfnmi.h"

#define NMI_ROUNDS	100
#define NMI_MARK	BIT(40)

/*
 * x86 reports an NMI handler that runs longer than debugfs
 * x86/nmi_longest_ns (1 ms) with an "INFO: NMI handler ... took too long"
 * line. Under TCG on a busy host a handler of a few instructions can
 * exceed that whenever the vCPU thread is preempted, so for the duration
 * of a case the test raises the threshold, as an administrator would by
 * writing that file (debugfs u64 files keep their variable in i_private).
 */
static u64 *nmi_longest;
static u64 nmi_longest_saved;

static void raise_nmi_threshold(void)
{
	struct dentry *d = debugfs_lookup("nmi_longest_ns", arch_debugfs_dir);

	if (IS_ERR_OR_NULL(d))
		return;
	nmi_longest = d_inode(d)->i_private;
	dput(d);
	if (!nmi_longest)
		return;
	nmi_longest_saved = READ_ONCE(*nmi_longest);
	WRITE_ONCE(*nmi_longest, 10ULL * NSEC_PER_SEC);
}

static void restore_nmi_threshold(void)
{
	if (nmi_longest)
		WRITE_ONCE(*nmi_longest, nmi_longest_saved);
	nmi_longest = NULL;
}

static struct {
	struct damon_perf_rings *rings;
	struct selfnmi nmi;
	unsigned long seq;
	int queued;		/* pushes from NMI accepted */
	int refused;		/* pushes from NMI refused */
} nt;

static int test_nmi_handler(unsigned int type, struct pt_regs *regs)
{
	struct damon_perf_report r = {};

	if (!selfnmi_claim(&nt.nmi))
		return NMI_DONE;

	r.vaddr = NMI_MARK | nt.seq;
	r.paddr = r.vaddr << PAGE_SHIFT;
	r.size = PAGE_SIZE;
	r.cpu = smp_processor_id();
	r.probe_idx = 1;
	r.src = DAMON_PERF_SRC_INJECTED;
	if (damon_perf_report_access(nt.rings, &r))
		nt.queued++;
	else
		nt.refused++;
	selfnmi_done(&nt.nmi);
	return NMI_HANDLED;
}

static void nmi_busy_hook(struct damon_perf_rings *rings)
{
	if (rings == nt.rings)
		selfnmi_send(&nt.nmi);
}

struct seen {
	unsigned long outer;	/* process-context reports */
	unsigned long inner;	/* NMI reports */
	unsigned long last_outer;
	unsigned long disorder;
	unsigned long bad;
};

static void check(const struct damon_perf_report *r, void *arg)
{
	struct seen *s = arg;

	if (r->paddr != r->vaddr << PAGE_SHIFT || r->size != PAGE_SIZE ||
	    r->probe_idx != 1)
		s->bad++;
	if (r->vaddr & NMI_MARK) {
		s->inner++;
		return;
	}
	if (s->outer && r->vaddr <= s->last_outer)
		s->disorder++;
	s->last_outer = r->vaddr;
	s->outer++;
}

static unsigned long global(enum damon_perf_stat_idx idx)
{
	struct damon_perf_stats st;

	damon_perf_stats_aggregate(&st);
	return damon_perf_stats_get(&st, idx);
}

static int nmi_test_init(struct kunit *test)
{
	int ret;

	memset(&nt, 0, sizeof(nt));
	nt.nmi.cpu = -1;
	nt.rings = kunit_kzalloc(test, sizeof(*nt.rings), GFP_KERNEL);
	if (!nt.rings)
		return -ENOMEM;
	ret = damon_perf_rings_alloc(nt.rings, DAMON_PERF_RING_DEF_SIZE,
				     NULL, NULL);
	if (ret)
		return ret;
	raise_nmi_threshold();
	ret = register_nmi_handler(NMI_LOCAL, test_nmi_handler, 0,
				   "damon_perf_kunit");
	if (ret) {
		restore_nmi_threshold();
		damon_perf_rings_free(nt.rings);
	}
	return ret;
}

static void nmi_test_exit(struct kunit *test)
{
	WRITE_ONCE(damon_perf_ring_busy_hook, NULL);
	unregister_nmi_handler(NMI_LOCAL, "damon_perf_kunit");
	restore_nmi_threshold();
	damon_perf_rings_free(nt.rings);
}

static void
busy_guard_should_drop_exactly_the_nested_nmi_reports(struct kunit *test)
{
	unsigned long bd = global(DAMON_PERF_STAT_busy_drop);
	struct damon_perf_ring_stats st;
	struct damon_perf_report r = {};
	struct seen s = {};
	int i, cpu, outer_ok = 0;

	preempt_disable();
	cpu = smp_processor_id();
	WRITE_ONCE(damon_perf_ring_busy_hook, nmi_busy_hook);
	for (i = 1; i <= NMI_ROUNDS; i++) {
		r.vaddr = i;
		r.paddr = r.vaddr << PAGE_SHIFT;
		r.size = PAGE_SIZE;
		r.probe_idx = 1;
		nt.seq = i;
		outer_ok += damon_perf_report_access(nt.rings, &r);
	}
	WRITE_ONCE(damon_perf_ring_busy_hook, NULL);
	preempt_enable();

	KUNIT_ASSERT_EQ_MSG(test, nt.nmi.delivered, NMI_ROUNDS,
			    "self-NMIs delivered");
	KUNIT_EXPECT_EQ(test, nt.nmi.not_nmi, 0);
	KUNIT_EXPECT_EQ(test, outer_ok, NMI_ROUNDS);
	KUNIT_EXPECT_EQ(test, nt.refused, NMI_ROUNDS);
	KUNIT_EXPECT_EQ(test, nt.queued, 0);

	damon_perf_ring_read_stats(nt.rings, cpu, &st);
	KUNIT_EXPECT_EQ(test, st.busy_drop, (unsigned long)NMI_ROUNDS);
	KUNIT_EXPECT_EQ(test, st.enqueue, (unsigned long)NMI_ROUNDS);
	KUNIT_EXPECT_EQ(test, st.overflow, 0UL);
	KUNIT_EXPECT_EQ(test, global(DAMON_PERF_STAT_busy_drop) - bd,
			(unsigned long)NMI_ROUNDS);

	KUNIT_EXPECT_EQ(test, damon_perf_ring_drain(nt.rings, cpu, check, &s),
			(unsigned int)NMI_ROUNDS);
	KUNIT_EXPECT_EQ(test, s.outer, (unsigned long)NMI_ROUNDS);
	KUNIT_EXPECT_EQ(test, s.inner, 0UL);
	KUNIT_EXPECT_EQ(test, s.last_outer, (unsigned long)NMI_ROUNDS);
	KUNIT_EXPECT_EQ(test, s.disorder + s.bad, 0UL);
	pr_info("expect busy_drop>=%d\n", NMI_ROUNDS);
}

static void nmi_producer_should_queue_when_not_nested(struct kunit *test)
{
	unsigned long bd = global(DAMON_PERF_STAT_busy_drop);
	struct damon_perf_ring_stats st;
	struct seen s = {};
	int i, cpu, sent = 0;

	preempt_disable();
	cpu = smp_processor_id();
	for (i = 1; i <= NMI_ROUNDS; i++) {
		nt.seq = i;
		sent += selfnmi_send(&nt.nmi);
	}
	preempt_enable();

	KUNIT_ASSERT_EQ_MSG(test, sent, NMI_ROUNDS, "self-NMIs delivered");
	KUNIT_EXPECT_EQ(test, nt.nmi.not_nmi, 0);
	KUNIT_EXPECT_EQ(test, nt.queued, NMI_ROUNDS);
	KUNIT_EXPECT_EQ(test, nt.refused, 0);
	damon_perf_ring_read_stats(nt.rings, cpu, &st);
	KUNIT_EXPECT_EQ(test, st.busy_drop, 0UL);
	KUNIT_EXPECT_EQ(test, global(DAMON_PERF_STAT_busy_drop) - bd, 0UL);

	KUNIT_EXPECT_EQ(test, damon_perf_ring_drain(nt.rings, cpu, check, &s),
			(unsigned int)NMI_ROUNDS);
	KUNIT_EXPECT_EQ(test, s.inner, (unsigned long)NMI_ROUNDS);
	KUNIT_EXPECT_EQ(test, s.outer, 0UL);
	KUNIT_EXPECT_EQ(test, s.bad, 0UL);
}

static struct kunit_case nmi_cases[] = {
	KUNIT_CASE(busy_guard_should_drop_exactly_the_nested_nmi_reports),
	KUNIT_CASE(nmi_producer_should_queue_when_not_nested),
	{}
};

static struct kunit_suite nmi_suite = {
	.name = "damon_perf_ring_nmi",
	.init = nmi_test_init,
	.exit = nmi_test_exit,
	.test_cases = nmi_cases,
};

kunit_test_suites(&nmi_suite);
