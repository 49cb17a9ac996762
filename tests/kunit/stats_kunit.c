// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: observe API (kmod/stats.c). Each case runs against a private,
 * zeroed set of per-CPU state (damon_perf_stats_swap()), so it neither
 * sees nor disturbs the module's own counters.
 */
#include <kunit/test.h>
#include <linux/cpumask.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/string.h>

#include "stats.h"

struct stats_test {
	struct damon_perf_stats_pcpu __percpu *set;
	struct damon_perf_stats_pcpu __percpu *saved;
};

static int stats_init(struct kunit *test)
{
	struct stats_test *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);

	if (!t)
		return -ENOMEM;
	t->set = damon_perf_stats_pcpu_alloc();
	if (!t->set)
		return -ENOMEM;
	t->saved = damon_perf_stats_swap(t->set);
	test->priv = t;
	return 0;
}

static void stats_exit(struct kunit *test)
{
	struct stats_test *t = test->priv;

	damon_perf_stats_swap(t->saved);
	damon_perf_stats_pcpu_free(t->set);
}

static int cpu_state(int cpu)
{
	struct damon_perf_stats st;

	damon_perf_stats_snapshot(cpu, &st);
	return st.cpu_state;
}

static void state_should_advance_and_never_regress(struct kunit *test)
{
	int __percpu *ev = NULL;
	int cpu;

	KUNIT_ASSERT_EQ(test, damon_perf_observe_event_alloc(&ev), 0);
	migrate_disable();
	cpu = smp_processor_id();
	KUNIT_EXPECT_EQ(test, cpu_state(cpu), DAMON_PERF_STATE_UNINIT);

	damon_perf_observe_event_state(ev, cpu, DAMON_PERF_STATE_CREATED);
	KUNIT_EXPECT_EQ(test, cpu_state(cpu), DAMON_PERF_STATE_CREATED);
	damon_perf_observe_event_state(ev, cpu, DAMON_PERF_STATE_BOUND);
	damon_perf_observe_event_state(ev, cpu, DAMON_PERF_STATE_ENABLED);
	KUNIT_EXPECT_EQ(test, cpu_state(cpu), DAMON_PERF_STATE_ENABLED);
	damon_perf_observe_sample(0x1000, 0, 1, DAMON_PERF_SAMPLE_VALID, 0, 0);
	KUNIT_EXPECT_EQ(test, cpu_state(cpu), DAMON_PERF_STATE_RUNNING);

	/* A late create/bind/enable and a destroy leave RUNNING alone. */
	damon_perf_observe_event_state(NULL, cpu, DAMON_PERF_STATE_CREATED);
	damon_perf_observe_event_state(NULL, cpu, DAMON_PERF_STATE_BOUND);
	damon_perf_observe_event_state(NULL, cpu, DAMON_PERF_STATE_ENABLED);
	damon_perf_observe_event_destroyed(ev, cpu);
	KUNIT_EXPECT_EQ(test, cpu_state(cpu), DAMON_PERF_STATE_RUNNING);
	migrate_enable();

	/* The event's own slot was reset; out-of-range input is ignored. */
	KUNIT_EXPECT_EQ(test, *per_cpu_ptr(ev, cpu), DAMON_PERF_STATE_UNINIT);
	damon_perf_observe_event_state(ev, cpu, NR_DAMON_PERF_STATES);
	damon_perf_observe_event_state(ev, -1, DAMON_PERF_STATE_BOUND);
	damon_perf_observe_event_state(ev, nr_cpu_ids, DAMON_PERF_STATE_BOUND);
	KUNIT_EXPECT_EQ(test, *per_cpu_ptr(ev, cpu), DAMON_PERF_STATE_UNINIT);
	damon_perf_observe_event_free(ev);
}

static void first_sample_should_only_promote_enabled(struct kunit *test)
{
	int cpu;

	migrate_disable();
	cpu = smp_processor_id();
	damon_perf_observe_sample(0, 0, 0, DAMON_PERF_SAMPLE_NULL, 0, 0);
	KUNIT_EXPECT_EQ(test, cpu_state(cpu), DAMON_PERF_STATE_UNINIT);
	damon_perf_observe_event_state(NULL, cpu, DAMON_PERF_STATE_BOUND);
	damon_perf_observe_sample(0, 0, 0, DAMON_PERF_SAMPLE_NULL, 0, 0);
	KUNIT_EXPECT_EQ(test, cpu_state(cpu), DAMON_PERF_STATE_BOUND);
	damon_perf_observe_event_state(NULL, cpu, DAMON_PERF_STATE_ENABLED);
	damon_perf_observe_sample(0, 0, 0, DAMON_PERF_SAMPLE_NULL, 0, 0);
	KUNIT_EXPECT_EQ(test, cpu_state(cpu), DAMON_PERF_STATE_RUNNING);
	migrate_enable();
}

static void event_alloc_should_be_lazy_and_idempotent(struct kunit *test)
{
	int __percpu *ev = NULL, *first;
	int cpu;

	KUNIT_ASSERT_EQ(test, damon_perf_observe_event_alloc(&ev), 0);
	KUNIT_ASSERT_TRUE(test, ev);
	first = ev;
	KUNIT_EXPECT_EQ(test, damon_perf_observe_event_alloc(&ev), 0);
	KUNIT_EXPECT_TRUE(test, ev == first);
	for_each_possible_cpu(cpu)
		KUNIT_EXPECT_EQ(test, *per_cpu_ptr(ev, cpu),
				DAMON_PERF_STATE_UNINIT);
	damon_perf_observe_event_free(ev);
	damon_perf_observe_event_free(NULL);
}

static void sample_should_count_by_reason(struct kunit *test)
{
	static const struct {
		enum damon_perf_sample_reason reason;
		enum damon_perf_stat_idx idx;
	} cases[] = {
		{ DAMON_PERF_SAMPLE_VALID, DAMON_PERF_STAT_sample_valid },
		{ DAMON_PERF_SAMPLE_NULL, DAMON_PERF_STAT_sample_null },
		{ DAMON_PERF_SAMPLE_ADDR_ZERO,
		  DAMON_PERF_STAT_sample_addr_zero },
		{ DAMON_PERF_SAMPLE_KERNEL, DAMON_PERF_STAT_sample_kernel },
		{ DAMON_PERF_SAMPLE_INVALID_PHYS,
		  DAMON_PERF_STAT_sample_invalid_phys },
		{ DAMON_PERF_SAMPLE_NO_PHYS, DAMON_PERF_STAT_sample_no_phys },
		{ DAMON_PERF_SAMPLE_UNTRANSLATED,
		  DAMON_PERF_STAT_sample_untranslated },
		{ DAMON_PERF_SAMPLE_PHYS_ONLY,
		  DAMON_PERF_STAT_sample_phys_only },
		{ DAMON_PERF_SAMPLE_TEARDOWN,
		  DAMON_PERF_STAT_sample_teardown },
	};
	struct damon_perf_stats st;
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		for (j = 0; j <= i; j++)
			damon_perf_observe_sample(0x2000, 0, 1,
						  cases[i].reason, 0, 0);
	damon_perf_stats_aggregate(&st);
	for (i = 0; i < ARRAY_SIZE(cases); i++)
		KUNIT_EXPECT_EQ_MSG(test, damon_perf_stats_get(&st,
							       cases[i].idx),
				    (unsigned long)i + 1, "reason %d",
				    cases[i].reason);
	KUNIT_EXPECT_EQ(test, st.callback,
			(unsigned long)(ARRAY_SIZE(cases) *
					(ARRAY_SIZE(cases) + 1) / 2));
	/* a translation is a note on a valid sample, not a class */
	damon_perf_observe_translated();
	damon_perf_stats_aggregate(&st);
	KUNIT_EXPECT_EQ(test, st.sample_translated, 1UL);
}

static void aggregate_should_sum_counters_and_take_min_state(struct kunit *test)
{
	struct damon_perf_stats st, one;
	int cpu, nr = 0, i;

	/* Consumer-side counters are charged to the CPU named. */
	for_each_online_cpu(cpu) {
		for (i = 0; i <= nr; i++)
			damon_perf_observe_match(cpu);
		damon_perf_observe_ring_dequeue(cpu, 10);
		damon_perf_observe_miss(0, cpu, DAMON_PERF_MISS_REGION);
		damon_perf_observe_miss(0, cpu, DAMON_PERF_MISS_STALE);
		damon_perf_observe_event_state(NULL, cpu,
					       nr ? DAMON_PERF_STATE_BOUND :
						    DAMON_PERF_STATE_ENABLED);
		damon_perf_stats_snapshot(cpu, &one);
		KUNIT_EXPECT_EQ(test, one.match, (unsigned long)nr + 1);
		nr++;
	}
	migrate_disable();
	damon_perf_observe_ring_enqueue(5);
	damon_perf_observe_ring_enqueue(9);
	damon_perf_observe_ring_enqueue(3);
	migrate_enable();

	damon_perf_stats_aggregate(&st);
	KUNIT_EXPECT_EQ(test, st.match, (unsigned long)nr * (nr + 1) / 2);
	KUNIT_EXPECT_EQ(test, st.dequeue, 10UL * nr);
	KUNIT_EXPECT_EQ(test, st.miss_region, (unsigned long)nr);
	KUNIT_EXPECT_EQ(test, st.stale, (unsigned long)nr);
	KUNIT_EXPECT_EQ(test, st.miss_tgid, 0UL);
	KUNIT_EXPECT_EQ(test, st.enqueue, 3UL);
	KUNIT_EXPECT_EQ(test, st.ring_peak, 9UL);
	KUNIT_EXPECT_EQ(test, st.cpu_state, nr > 1 ? DAMON_PERF_STATE_BOUND :
				DAMON_PERF_STATE_ENABLED);
}

static void reset_should_zero_counters_and_keep_state(struct kunit *test)
{
	struct damon_perf_stats st;
	int cpu;

	migrate_disable();
	cpu = smp_processor_id();
	damon_perf_observe_event_state(NULL, cpu, DAMON_PERF_STATE_ENABLED);
	damon_perf_observe_ring_enqueue(4);
	damon_perf_observe_ring_overflow(1, DAMON_PERF_DROP_FULL);
	damon_perf_observe_ring_overflow(1, DAMON_PERF_DROP_BUSY);
	damon_perf_observe_early_wake();
	damon_perf_observe_update();
	migrate_enable();
	damon_perf_stats_aggregate(&st);
	KUNIT_EXPECT_EQ(test, st.overflow, 1UL);
	KUNIT_EXPECT_EQ(test, st.busy_drop, 1UL);
	KUNIT_EXPECT_EQ(test, st.early_wake, 1UL);
	KUNIT_EXPECT_EQ(test, st.update, 1UL);

	damon_perf_stats_reset();
	damon_perf_stats_snapshot(cpu, &st);
	KUNIT_EXPECT_EQ(test, st.enqueue + st.overflow + st.busy_drop +
			st.early_wake + st.update + st.ring_peak, 0UL);
	KUNIT_EXPECT_EQ(test, st.cpu_state, DAMON_PERF_STATE_ENABLED);

	/* Counting resumes from zero. */
	migrate_disable();
	damon_perf_observe_ring_overflow(1, DAMON_PERF_DROP_FULL);
	damon_perf_stats_snapshot(smp_processor_id(), &st);
	migrate_enable();
	KUNIT_EXPECT_EQ(test, st.overflow, 1UL);
}

static void names_should_match_perf_stats_columns(struct kunit *test)
{
	KUNIT_EXPECT_STREQ(test, damon_perf_state_name(DAMON_PERF_STATE_UNINIT),
			   "UNINIT");
	KUNIT_EXPECT_STREQ(test,
			   damon_perf_state_name(DAMON_PERF_STATE_RUNNING),
			   "RUNNING");
	KUNIT_EXPECT_STREQ(test, damon_perf_state_name(-1), "UNKNOWN");
	KUNIT_EXPECT_STREQ(test, damon_perf_state_name(NR_DAMON_PERF_STATES),
			   "UNKNOWN");
	KUNIT_EXPECT_STREQ(test, damon_perf_stat_name(0), "callback");
	KUNIT_EXPECT_STREQ(test,
			   damon_perf_stat_name(DAMON_PERF_STAT_early_wake),
			   "early_wake");
	KUNIT_EXPECT_STREQ(test, damon_perf_stat_name(NR_DAMON_PERF_STATS),
			   "unknown");
}

static struct kunit_case stats_cases[] = {
	KUNIT_CASE(state_should_advance_and_never_regress),
	KUNIT_CASE(first_sample_should_only_promote_enabled),
	KUNIT_CASE(event_alloc_should_be_lazy_and_idempotent),
	KUNIT_CASE(sample_should_count_by_reason),
	KUNIT_CASE(aggregate_should_sum_counters_and_take_min_state),
	KUNIT_CASE(reset_should_zero_counters_and_keep_state),
	KUNIT_CASE(names_should_match_perf_stats_columns),
	{}
};

static struct kunit_suite stats_suite = {
	.name = "damon_perf_stats",
	.init = stats_init,
	.exit = stats_exit,
	.test_cases = stats_cases,
};

kunit_test_suites(&stats_suite);
