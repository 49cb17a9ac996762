// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the per-CPU counters of an armed probe, on a small test PMU that
 * can refuse a period (pmu->check_period, which perf_event_period() asks
 * before it changes anything) or fail add() (a pinned counter that cannot
 * get onto its PMU goes to ERROR) on a chosen CPU. A period change is all
 * or none, and a counter left in ERROR is replaced. An arm that fails
 * partway frees what it had allocated. The CPU budget asks for a period
 * the PMU refused only once per start.
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/cpu.h>
#include <linux/percpu.h>
#include <linux/perf_event.h>

#include "budget.h"
#include "ctx.h"
#include "fault.h"
#include "helpers.h"
#include "perf_source.h"
#include "probe.h"
#include "stats.h"

static int period_fail_cpu = -1;	/* check_period refuses on it */
static atomic_t period_checks;		/* check_period calls */
static int add_fail_cpu = -1;		/* add() fails on it ... */
static atomic_t add_fails;		/* ... this many more times */
static DEFINE_PER_CPU(struct perf_event *, tp_active);
static DEFINE_PER_CPU(u64, tp_period);	/* at the last add() */

static struct pmu tp_pmu;

static int tp_event_init(struct perf_event *event)
{
	if (event->attr.type != tp_pmu.type)
		return -ENOENT;
	if (event->cpu < 0)
		return -EOPNOTSUPP;
	return 0;
}

static void tp_start(struct perf_event *event, int flags)
{
	event->hw.state = 0;
}

static void tp_stop(struct perf_event *event, int flags)
{
	event->hw.state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
}

static int tp_add(struct perf_event *event, int flags)
{
	if (smp_processor_id() == READ_ONCE(add_fail_cpu) &&
	    atomic_dec_if_positive(&add_fails) >= 0)
		return -EBUSY;
	event->hw.state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
	if (flags & PERF_EF_START)
		tp_start(event, flags);
	__this_cpu_write(tp_active, event);
	__this_cpu_write(tp_period, event->hw.sample_period);
	return 0;
}

static void tp_del(struct perf_event *event, int flags)
{
	tp_stop(event, flags);
	if (__this_cpu_read(tp_active) == event)
		__this_cpu_write(tp_active, NULL);
}

static void tp_read(struct perf_event *event)
{
}

static int tp_check_period(struct perf_event *event, u64 value)
{
	atomic_inc(&period_checks);
	return event->cpu == READ_ONCE(period_fail_cpu) ? -EINVAL : 0;
}

static struct pmu tp_pmu = {
	.module		= THIS_MODULE,
	.task_ctx_nr	= perf_invalid_context,
	.event_init	= tp_event_init,
	.add		= tp_add,
	.del		= tp_del,
	.start		= tp_start,
	.stop		= tp_stop,
	.read		= tp_read,
	.check_period	= tp_check_period,
};

static int source_suite_init(struct kunit_suite *suite)
{
	return perf_pmu_register(&tp_pmu, "damon_perf_kunit_src", -1);
}

static void source_suite_exit(struct kunit_suite *suite)
{
	perf_pmu_unregister(&tp_pmu);
}

static int source_test_init(struct kunit *test)
{
	WRITE_ONCE(period_fail_cpu, -1);
	WRITE_ONCE(add_fail_cpu, -1);
	atomic_set(&add_fails, 0);
	atomic_set(&period_checks, 0);
	return 0;
}

/* A running paddr context with one test-PMU probe at period 1000. */
static struct damon_perf_ctx *tp_ctx(struct kunit *test, const char *name)
{
	struct damon_perf_probe_attr pa = {
		.type = tp_pmu.type,
		.sample_period = 1000,
		.exclude_kernel = true,
		.exclude_hv = true,
	};
	struct damon_perf_ctx *ctx;
	int ret;

	ctx = test_ctx_new(test, name, DAMON_PERF_OPS_PADDR);
	KUNIT_ASSERT_GT(test, test_ctx_add_range(ctx, BASE,
						 BASE + 64 * PAGE_SIZE), 0);
	mutex_lock(&damon_perf_lock);
	ret = damon_perf_probe_add(ctx, &pa, NULL);
	mutex_unlock(&damon_perf_lock);
	KUNIT_ASSERT_EQ(test, ret, 1);
	KUNIT_ASSERT_EQ(test, test_ctx_start(ctx), 0);
	return ctx;
}

/* Every online CPU has a counter on the PMU, added with @period. */
static void expect_in_force(struct kunit *test, u64 period)
{
	int cpu;

	for_each_online_cpu(cpu) {
		struct perf_event *active = per_cpu(tp_active, cpu);
		u64 added = per_cpu(tp_period, cpu);

		KUNIT_EXPECT_NOT_NULL_MSG(test, active, "cpu %d", cpu);
		KUNIT_EXPECT_EQ_MSG(test, added, period, "cpu %d", cpu);
	}
}

static struct damon_perf_probe_status tp_status(struct damon_perf_ctx *ctx)
{
	struct damon_perf_probe_status st;

	mutex_lock(&damon_perf_lock);
	damon_perf_probe_status(ctx, 1, &st);
	mutex_unlock(&damon_perf_lock);
	return st;
}

/* The last online CPU refuses: the ones before it must not keep 2000. */
static void set_period_should_roll_back_when_a_cpu_refuses(struct kunit *test)
{
	struct damon_perf_probe_status st;
	struct damon_perf_ctx *ctx;
	int cpu, last = -1;

	cpus_read_lock();
	for_each_online_cpu(cpu)
		last = cpu;
	cpus_read_unlock();
	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two online CPUs");
	ctx = tp_ctx(test, "kunit-src-roll");
	WRITE_ONCE(period_fail_cpu, last);

	KUNIT_EXPECT_EQ(test, damon_perf_source_set_period(ctx, 1, 2000),
			-EINVAL);
	/* what status and the CPU budget read is the period in force */
	KUNIT_EXPECT_EQ(test, damon_perf_source_period(ctx, 1), 1000ULL);
	expect_in_force(test, 1000);

	/* a change every CPU accepts is recorded and in force everywhere */
	WRITE_ONCE(period_fail_cpu, -1);
	KUNIT_EXPECT_EQ(test, damon_perf_source_set_period(ctx, 1, 3000), 0);
	KUNIT_EXPECT_EQ(test, damon_perf_source_period(ctx, 1), 3000ULL);
	expect_in_force(test, 3000);
	st = tp_status(ctx);
	KUNIT_EXPECT_EQ(test, st.nr_active, num_online_cpus());
	KUNIT_EXPECT_EQ(test, st.nr_failed, 0U);
	KUNIT_EXPECT_EQ(test, test_ctx_stop(ctx), 0);
}

/*
 * The enable after the period change fails once on a CPU (its pinned
 * counter goes to ERROR): that counter is replaced at once, not left off
 * its PMU until the CPU goes offline.
 */
static void set_period_should_replace_a_counter_in_error(struct kunit *test)
{
	struct damon_perf_probe_status st;
	int first = cpumask_first(cpu_online_mask);
	struct damon_perf_ctx *ctx;
	struct perf_event *active;

	ctx = tp_ctx(test, "kunit-src-error");
	WRITE_ONCE(add_fail_cpu, first);
	atomic_set(&add_fails, 1);

	KUNIT_EXPECT_EQ(test, damon_perf_source_set_period(ctx, 1, 2000), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&add_fails), 0);
	KUNIT_EXPECT_EQ(test, damon_perf_source_period(ctx, 1), 2000ULL);
	expect_in_force(test, 2000);
	st = tp_status(ctx);
	KUNIT_EXPECT_EQ(test, st.nr_active, num_online_cpus());
	KUNIT_EXPECT_EQ(test, st.nr_failed, 0U);

	/* one that cannot be replaced either is counted, shown in status */
	atomic_set(&add_fails, 2);
	KUNIT_EXPECT_EQ(test, damon_perf_source_set_period(ctx, 1, 4000), 0);
	st = tp_status(ctx);
	KUNIT_EXPECT_EQ(test, st.nr_active, num_online_cpus() - 1);
	KUNIT_EXPECT_EQ(test, st.nr_failed, 1U);
	KUNIT_EXPECT_EQ(test, st.last_err, -EBUSY);
	KUNIT_EXPECT_EQ(test, st.last_err_cpu, first);
	active = per_cpu(tp_active, first);
	KUNIT_EXPECT_NULL(test, active);
	KUNIT_EXPECT_EQ(test, test_ctx_stop(ctx), 0);
}

/*
 * The source's per-CPU counters cannot be allocated (fault site
 * damon_perf_fail_percpu) after its per-CPU observe state was: the start
 * fails with ENOMEM and the state is freed (it used to leak, one per
 * failed arm; kmemleak does not report percpu memory, the count does).
 */
static void
arm_should_free_its_state_when_percpu_alloc_fails(struct kunit *test)
{
#ifdef CONFIG_FAULT_INJECTION
	struct damon_perf_probe_attr pa = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_PAGE_FAULTS,
		.sample_period = 1,
		.exclude_kernel = true,
		.exclude_hv = true,
	};
	struct fault_attr *fa = &damon_perf_fail_percpu;
	unsigned long probability = fa->probability;
	unsigned long interval = fa->interval;
	int verbose = fa->verbose, times = atomic_read(&fa->times);
	struct damon_perf_ctx *ctx;
	long before;
	int ret;

	ctx = test_ctx_new(test, "kunit-failpcpu", DAMON_PERF_OPS_PADDR);
	KUNIT_ASSERT_GT(test, test_ctx_add_range(ctx, BASE,
						 BASE + 64 * PAGE_SIZE), 0);
	mutex_lock(&damon_perf_lock);
	ret = damon_perf_probe_add(ctx, &pa, NULL);
	mutex_unlock(&damon_perf_lock);
	KUNIT_ASSERT_EQ(test, ret, 1);

	before = damon_perf_observe_nr_event_states();
	/* fail the next time the site is reached, quietly */
	fa->probability = 100;
	fa->interval = 1;
	fa->verbose = 0;
	fa->task_filter = false;
	atomic_set(&fa->space, 0);
	atomic_set(&fa->times, 1);
	ret = test_ctx_start(ctx);
	KUNIT_EXPECT_EQ(test, atomic_read(&fa->times), 0);
	fa->probability = probability;
	fa->interval = interval;
	fa->verbose = verbose;
	atomic_set(&fa->times, times);
	KUNIT_EXPECT_EQ(test, ret, -ENOMEM);
	KUNIT_EXPECT_EQ(test, damon_perf_observe_nr_event_states(), before);

	/* the same context arms, one state per probe, none after the stop */
	ret = test_ctx_start(ctx);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, damon_perf_observe_nr_event_states(),
			before + 1);
	if (!ret)
		KUNIT_EXPECT_EQ(test, test_ctx_stop(ctx), 0);
	KUNIT_EXPECT_EQ(test, damon_perf_observe_nr_event_states(), before);
#else
	kunit_skip(test, "needs CONFIG_FAULT_INJECTION");
#endif
}

/*
 * Far above its budget at every aggregation, the context asks for twice
 * the period, which the PMU refuses: asked once per start, not at every
 * aggregation (each try disables and enables a counter), and counted. The
 * budget's state is stepped by hand on an armed context without a
 * kdamond, with the time spent given, so nothing depends on the machine.
 */
static void budget_should_ask_a_refused_period_once(struct kunit *test)
{
	struct damon_perf_probe_attr pa = {
		.sample_period = 1000,
		.exclude_kernel = true,
		.exclude_hv = true,
	};
	struct damon_perf_ctx *ctx;
	u64 now = 0;
	int i, ret;

	pa.type = tp_pmu.type;
	ctx = test_ctx_new(test, "kunit-src-refused", DAMON_PERF_OPS_PADDR);
	mutex_lock(&damon_perf_lock);
	ret = damon_perf_probe_add(ctx, &pa, NULL);
	if (ret == 1)
		ret = damon_perf_source_arm(ctx, NULL);
	mutex_unlock(&damon_perf_lock);
	KUNIT_ASSERT_EQ(test, ret, 0);
	ctx->attrs.cpu_budget = DAMON_PERF_CPU_BUDGET_SCALE;	/* 1 % */
	WRITE_ONCE(period_fail_cpu, cpumask_first(cpu_online_mask));
	atomic_set(&period_checks, 0);

	damon_perf_budget_start(ctx, now);
	for (i = 0; i < 8; i++) {
		/* half a CPU spent draining */
		damon_perf_budget_drained(ctx, NSEC_PER_SEC / 2);
		now += NSEC_PER_SEC;
		damon_perf_budget_step(ctx, now);
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&period_checks), 1);
	KUNIT_EXPECT_EQ(test, ctx->budget.refused, 1ULL);
	KUNIT_EXPECT_EQ(test, ctx->budget.raises, 0ULL);
	KUNIT_EXPECT_EQ(test, damon_perf_source_period(ctx, 1), 1000ULL);
	expect_in_force(test, 1000);

	/* a new start asks again; accepted now, the period is raised */
	WRITE_ONCE(period_fail_cpu, -1);
	damon_perf_budget_start(ctx, now);
	damon_perf_budget_drained(ctx, NSEC_PER_SEC / 2);
	damon_perf_budget_step(ctx, now + NSEC_PER_SEC);
	KUNIT_EXPECT_EQ(test, ctx->budget.refused, 0ULL);
	KUNIT_EXPECT_EQ(test, ctx->budget.raises, 1ULL);
	KUNIT_EXPECT_EQ(test, damon_perf_source_period(ctx, 1), 2000ULL);

	mutex_lock(&damon_perf_lock);
	damon_perf_source_disarm(ctx);
	mutex_unlock(&damon_perf_lock);
}

static struct kunit_case source_cases[] = {
	KUNIT_CASE(set_period_should_roll_back_when_a_cpu_refuses),
	KUNIT_CASE(set_period_should_replace_a_counter_in_error),
	KUNIT_CASE(arm_should_free_its_state_when_percpu_alloc_fails),
	KUNIT_CASE(budget_should_ask_a_refused_period_once),
	{}
};

static struct kunit_suite source_suite = {
	.name = "damon_perf_source",
	.suite_init = source_suite_init,
	.suite_exit = source_suite_exit,
	.init = source_test_init,
	.test_cases = source_cases,
};

kunit_test_suites(&source_suite);
