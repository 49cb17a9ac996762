// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: observe API (kmod/stats.c). Each case runs against a private,
 * zeroed set of per-CPU state (damon_perf_stats_swap()), so it neither
 * sees nor disturbs the module's own counters; the last one balances them
 * over a run of the rings and the drain together.
 */
#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/cpumask.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>

#include "ctx.h"
#include "drain.h"
#include "regions.h"
#include "ring.h"
#include "snapshot.h"
#include "stats.h"

#define BASE	BIT(30)
#define PG	DAMON_PERF_MIN_REGION

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

/* A vaddr context, freed with its targets, rings and drain at the end. */
static void ctx_res_free(struct kunit_resource *res)
{
	struct damon_perf_ctx *ctx = res->data;
	struct damon_perf_target *t, *next;

	list_for_each_entry_safe(t, next, &ctx->targets, list) {
		damon_perf_regions_free(t);
		kfree(t);
	}
	damon_perf_rings_free(&ctx->rings);
	damon_perf_drain_free(ctx);
	damon_perf_snapshot_put(ctx->snap);
}

static int ctx_res_init(struct kunit_resource *res, void *ctx)
{
	res->data = ctx;
	return 0;
}

static struct damon_perf_ctx *ctx_new(struct kunit *test)
{
	struct damon_perf_ctx *ctx;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	INIT_LIST_HEAD(&ctx->targets);
	ctx->ops = DAMON_PERF_OPS_VADDR;
	damon_perf_attrs_default(&ctx->attrs);
	ctx->sample_seq = 1;
	KUNIT_ASSERT_NOT_NULL(test, kunit_alloc_resource(test, ctx_res_init,
							 ctx_res_free,
							 GFP_KERNEL, ctx));
	return ctx;
}

/* A target of @ctx (freed with it): @nr one-page regions from @start. */
static struct damon_perf_target *target_add(struct kunit *test,
					    struct damon_perf_ctx *ctx,
					    pid_t pid, unsigned long start,
					    unsigned int nr)
{
	struct damon_perf_target *t = damon_perf_target_new(++ctx->nr_targets);

	KUNIT_ASSERT_NOT_NULL(test, t);
	t->pid = pid;
	t->start = start;
	t->end = start + nr * PG;
	list_add_tail(&t->list, &ctx->targets);
	KUNIT_ASSERT_EQ(test, damon_perf_regions_split_evenly(t, t->start,
							      t->end, nr), 0);
	KUNIT_ASSERT_EQ(test, t->nr_regions, nr);
	return t;
}

static void offer_here(void *arg)
{
	struct damon_perf_ctx *ctx = arg;
	static const pid_t tgids[] = { 100, 200, 300, 400 };
	struct damon_perf_report r = {
		.size = 8,
		.time_ns = damon_perf_clock_ns(),
		.cpu = raw_smp_processor_id(),
		.tid = 7,
		.probe_idx = 1,
		.src = DAMON_PERF_SRC_INJECTED,
	};
	u32 dice = get_random_u32_below(100);

	r.tgid = tgids[get_random_u32_below(4)];
	/* in a target, in its gap, or straddling a region */
	r.vaddr = BASE + get_random_u32_below(96) * PG +
		  (dice < 10 ? PG - 4 : 64);
	r.is_write = dice >= 10 && dice < 20;
	if (dice >= 20 && dice < 25)
		r.probe_idx = 0;
	if (dice >= 25 && dice < 30)
		r.time_ns = 1;	/* stale once a drain ran */
	damon_perf_report_access(&ctx->rings, &r);
}

static void count_report(const struct damon_perf_report *r, void *arg)
{
	(*(unsigned long *)arg)++;
}

/*
 * Every report offered to the rings is counted once: enqueue or one of
 * the drops (overflow, busy_drop, no_probe) or no_ring; every report
 * consumed is counted once: dequeue, and then exactly one of match and
 * the misses (miss_tgid, miss_region, miss_boundary, stale, miss_filter,
 * miss_nomem). Over a seeded mix of reports of a vaddr context of two
 * live targets, a dead one and a filter, offered on two CPUs, through
 * rings of 16 entries and the kdamond's drain.
 */
static void counters_should_balance_through_rings_and_drain(struct kunit *test)
{
	struct damon_perf_ctx *ctx = ctx_new(test);
	struct damon_perf_report none = { .probe_idx = 1 };
	unsigned long offered = 0, consumed = 0, extra = 0;
	struct damon_perf_target *a, *b, *dead;
	struct damon_perf_stats st;
	unsigned long misses;
	unsigned int i, pass, real;
	int cpus[2];

	a = target_add(test, ctx, 100, BASE, 16);
	b = target_add(test, ctx, 200, BASE + 64 * PG, 16);
	dead = target_add(test, ctx, 300, BASE, 4);
	dead->dead = true;
	ctx->filters[0].type = DAMON_PERF_FILTER_WRITE;
	ctx->filters[0].allow = false;
	ctx->filters[1].type = DAMON_PERF_FILTER_WRITE;
	ctx->filters[1].allow = true;
	ctx->nr_filters = 2;
	KUNIT_ASSERT_EQ(test, damon_perf_rings_alloc(&ctx->rings, 16, NULL,
						     NULL), 0);
	migrate_disable();
	cpus[0] = smp_processor_id();
	for_each_online_cpu(cpus[1])
		if (cpus[1] != cpus[0])
			break;
	if (cpus[1] >= nr_cpu_ids)
		cpus[1] = cpus[0];
	for (pass = 0; pass < 40; pass++) {
		ctx->sample_seq++;
		for (i = 0; i < 50; i++) {
			offered++;
			smp_call_function_single(cpus[get_random_u32_below(2)],
						 offer_here, ctx, 1);
		}
		/*
		 * The first pass, which allocates the snapshot, without
		 * memory (a region count no allocation can hold): its
		 * reports are consumed all the same.
		 */
		real = a->nr_regions;
		if (!pass)
			a->nr_regions = UINT_MAX;
		consumed += damon_perf_drain_rings(ctx);
		a->nr_regions = real;
	}
	migrate_enable();
	/* reports of no context count too */
	damon_perf_report_access(NULL, &none);
	extra++;
	damon_perf_stats_aggregate(&st);
	misses = st.miss_tgid + st.miss_region + st.miss_boundary + st.stale +
		 st.miss_filter + st.miss_nomem;
	/* the mix reached every path */
	KUNIT_EXPECT_GT(test, st.match, 0UL);
	KUNIT_EXPECT_GT(test, st.miss_tgid, 0UL);
	KUNIT_EXPECT_GT(test, st.miss_region, 0UL);
	KUNIT_EXPECT_GT(test, st.miss_boundary, 0UL);
	KUNIT_EXPECT_GT(test, st.stale, 0UL);
	KUNIT_EXPECT_GT(test, st.miss_filter, 0UL);
	KUNIT_EXPECT_GT(test, st.miss_nomem, 0UL);
	KUNIT_EXPECT_GT(test, st.overflow, 0UL);
	KUNIT_EXPECT_GT(test, st.no_probe, 0UL);
	KUNIT_EXPECT_EQ(test, st.no_ring, extra);
	KUNIT_EXPECT_EQ(test, st.enqueue + st.overflow + st.busy_drop +
			st.no_probe + st.no_ring, offered + extra);
	KUNIT_EXPECT_EQ(test, st.dequeue, consumed);
	KUNIT_EXPECT_EQ(test, st.dequeue, st.match + misses);
	KUNIT_EXPECT_EQ(test, st.stale, ctx->stale_drops);
	/* whatever is left in the rings is what enqueue has over dequeue */
	damon_perf_rings_recheck_all(&ctx->rings);
	KUNIT_EXPECT_EQ(test, damon_perf_rings_drain_pending(&ctx->rings,
							     count_report,
							     &consumed),
			st.enqueue - st.dequeue);
	KUNIT_EXPECT_EQ(test, a->nr_regions, 16U);
	KUNIT_EXPECT_EQ(test, b->nr_regions, 16U);
}

static struct kunit_case stats_cases[] = {
	KUNIT_CASE(state_should_advance_and_never_regress),
	KUNIT_CASE(first_sample_should_only_promote_enabled),
	KUNIT_CASE(event_alloc_should_be_lazy_and_idempotent),
	KUNIT_CASE(sample_should_count_by_reason),
	KUNIT_CASE(aggregate_should_sum_counters_and_take_min_state),
	KUNIT_CASE(reset_should_zero_counters_and_keep_state),
	KUNIT_CASE(names_should_match_perf_stats_columns),
	KUNIT_CASE(counters_should_balance_through_rings_and_drain),
	{}
};

static struct kunit_suite stats_suite = {
	.name = "damon_perf_stats",
	.init = stats_init,
	.exit = stats_exit,
	.test_cases = stats_cases,
};

kunit_test_suites(&stats_suite);
