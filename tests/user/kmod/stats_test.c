// SPDX-License-Identifier: GPL-2.0
/*
 * kmod/stats.c in userspace: the observe API. The cases of
 * tests/kunit/stats_kunit.c under the same names, each against a
 * private, zeroed set of per-CPU state (damon_perf_stats_swap(), built
 * with the shim's CONFIG_KUNIT), and the balance of the counters over a
 * run of the rings and the drain together.
 */
#include "kt_kmod.h"

#define BASE BIT(30)
#define PG DAMON_PERF_MIN_REGION
#define migrate_disable() barrier()
#define migrate_enable() barrier()

static struct damon_perf_stats_pcpu __percpu *private_set, *saved_set;

static void stats_init(void)
{
	kt_kmod_init();
	private_set = damon_perf_stats_pcpu_alloc();
	if (!private_set)
		abort();
	saved_set = damon_perf_stats_swap(private_set);
}

static void stats_exit(void)
{
	kt_kmod_fini();
	damon_perf_stats_swap(saved_set);
	damon_perf_stats_pcpu_free(private_set);
}

static int cpu_state(int cpu)
{
	struct damon_perf_stats st;

	damon_perf_stats_snapshot(cpu, &st);
	return st.cpu_state;
}

static void state_should_advance_and_never_regress(void)
{
	int __percpu *ev = NULL;
	int cpu;

	KT_ASSERT_EQ(damon_perf_observe_event_alloc(&ev), 0);
	migrate_disable();
	cpu = smp_processor_id();
	KT_EXPECT_EQ(cpu_state(cpu), DAMON_PERF_STATE_UNINIT);

	damon_perf_observe_event_state(ev, cpu, DAMON_PERF_STATE_CREATED);
	KT_EXPECT_EQ(cpu_state(cpu), DAMON_PERF_STATE_CREATED);
	damon_perf_observe_event_state(ev, cpu, DAMON_PERF_STATE_BOUND);
	damon_perf_observe_event_state(ev, cpu, DAMON_PERF_STATE_ENABLED);
	KT_EXPECT_EQ(cpu_state(cpu), DAMON_PERF_STATE_ENABLED);
	damon_perf_observe_sample(0x1000, 0, 1, DAMON_PERF_SAMPLE_VALID, 0, 0);
	KT_EXPECT_EQ(cpu_state(cpu), DAMON_PERF_STATE_RUNNING);

	/* A late create/bind/enable and a destroy leave RUNNING alone. */
	damon_perf_observe_event_state(NULL, cpu, DAMON_PERF_STATE_CREATED);
	damon_perf_observe_event_state(NULL, cpu, DAMON_PERF_STATE_BOUND);
	damon_perf_observe_event_state(NULL, cpu, DAMON_PERF_STATE_ENABLED);
	damon_perf_observe_event_destroyed(ev, cpu);
	KT_EXPECT_EQ(cpu_state(cpu), DAMON_PERF_STATE_RUNNING);
	migrate_enable();

	/* The event's own slot was reset; out-of-range input is ignored. */
	KT_EXPECT_EQ(*per_cpu_ptr(ev, cpu), DAMON_PERF_STATE_UNINIT);
	damon_perf_observe_event_state(ev, cpu, NR_DAMON_PERF_STATES);
	damon_perf_observe_event_state(ev, -1, DAMON_PERF_STATE_BOUND);
	damon_perf_observe_event_state(ev, nr_cpu_ids, DAMON_PERF_STATE_BOUND);
	KT_EXPECT_EQ(*per_cpu_ptr(ev, cpu), DAMON_PERF_STATE_UNINIT);
	damon_perf_observe_event_free(ev);
}

static void first_sample_should_only_promote_enabled(void)
{
	int cpu;

	migrate_disable();
	cpu = smp_processor_id();
	damon_perf_observe_sample(0, 0, 0, DAMON_PERF_SAMPLE_NULL, 0, 0);
	KT_EXPECT_EQ(cpu_state(cpu), DAMON_PERF_STATE_UNINIT);
	damon_perf_observe_event_state(NULL, cpu, DAMON_PERF_STATE_BOUND);
	damon_perf_observe_sample(0, 0, 0, DAMON_PERF_SAMPLE_NULL, 0, 0);
	KT_EXPECT_EQ(cpu_state(cpu), DAMON_PERF_STATE_BOUND);
	damon_perf_observe_event_state(NULL, cpu, DAMON_PERF_STATE_ENABLED);
	damon_perf_observe_sample(0, 0, 0, DAMON_PERF_SAMPLE_NULL, 0, 0);
	KT_EXPECT_EQ(cpu_state(cpu), DAMON_PERF_STATE_RUNNING);
	migrate_enable();
}

static void event_alloc_should_be_lazy_and_idempotent(void)
{
	int __percpu *ev = NULL, *first;
	int cpu;

	KT_ASSERT_EQ(damon_perf_observe_event_alloc(&ev), 0);
	KT_ASSERT_TRUE(ev);
	first = ev;
	KT_EXPECT_EQ(damon_perf_observe_event_alloc(&ev), 0);
	KT_EXPECT_TRUE(ev == first);
	for_each_possible_cpu (cpu)
		KT_EXPECT_EQ(*per_cpu_ptr(ev, cpu), DAMON_PERF_STATE_UNINIT);
	damon_perf_observe_event_free(ev);
	damon_perf_observe_event_free(NULL);
}

static void sample_should_count_by_reason(void)
{
	static const struct {
		enum damon_perf_sample_reason reason;
		enum damon_perf_stat_idx idx;
	} cases[] = {
		{DAMON_PERF_SAMPLE_VALID, DAMON_PERF_STAT_sample_valid},
		{DAMON_PERF_SAMPLE_NULL, DAMON_PERF_STAT_sample_null},
		{DAMON_PERF_SAMPLE_ADDR_ZERO, DAMON_PERF_STAT_sample_addr_zero},
		{DAMON_PERF_SAMPLE_KERNEL, DAMON_PERF_STAT_sample_kernel},
		{DAMON_PERF_SAMPLE_INVALID_PHYS,
		 DAMON_PERF_STAT_sample_invalid_phys},
		{DAMON_PERF_SAMPLE_NO_PHYS, DAMON_PERF_STAT_sample_no_phys},
		{DAMON_PERF_SAMPLE_UNTRANSLATED,
		 DAMON_PERF_STAT_sample_untranslated},
		{DAMON_PERF_SAMPLE_PHYS_ONLY, DAMON_PERF_STAT_sample_phys_only},
		{DAMON_PERF_SAMPLE_TEARDOWN, DAMON_PERF_STAT_sample_teardown},
	};
	struct damon_perf_stats st;
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		for (j = 0; j <= i; j++)
			damon_perf_observe_sample(0x2000, 0, 1, cases[i].reason,
						  0, 0);
	damon_perf_stats_aggregate(&st);
	for (i = 0; i < ARRAY_SIZE(cases); i++)
		KT_EXPECT_EQ_MSG(damon_perf_stats_get(&st, cases[i].idx),
				 (unsigned long)i + 1, "reason %d",
				 cases[i].reason);
	KT_EXPECT_EQ(st.callback, (unsigned long)(ARRAY_SIZE(cases) *
						  (ARRAY_SIZE(cases) + 1) / 2));
	/* a translation is a note on a valid sample, not a class */
	damon_perf_observe_translated();
	damon_perf_stats_aggregate(&st);
	KT_EXPECT_EQ(st.sample_translated, 1UL);
}

static void aggregate_should_sum_counters_and_take_min_state(void)
{
	struct damon_perf_stats st, one;
	int cpu, nr = 0, i;

	/* Consumer-side counters are charged to the CPU named. */
	for_each_online_cpu (cpu) {
		for (i = 0; i <= nr; i++)
			damon_perf_observe_match(cpu);
		damon_perf_observe_ring_dequeue(cpu, 10);
		damon_perf_observe_miss(0, cpu, DAMON_PERF_MISS_REGION);
		damon_perf_observe_miss(0, cpu, DAMON_PERF_MISS_STALE);
		damon_perf_observe_event_state(NULL, cpu,
					       nr ? DAMON_PERF_STATE_BOUND
						  : DAMON_PERF_STATE_ENABLED);
		damon_perf_stats_snapshot(cpu, &one);
		KT_EXPECT_EQ(one.match, (unsigned long)nr + 1);
		nr++;
	}
	migrate_disable();
	damon_perf_observe_ring_enqueue(5);
	damon_perf_observe_ring_enqueue(9);
	damon_perf_observe_ring_enqueue(3);
	migrate_enable();

	damon_perf_stats_aggregate(&st);
	KT_EXPECT_EQ(st.match, (unsigned long)nr * (nr + 1) / 2);
	KT_EXPECT_EQ(st.dequeue, 10UL * nr);
	KT_EXPECT_EQ(st.miss_region, (unsigned long)nr);
	KT_EXPECT_EQ(st.stale, (unsigned long)nr);
	KT_EXPECT_EQ(st.miss_tgid, 0UL);
	KT_EXPECT_EQ(st.enqueue, 3UL);
	KT_EXPECT_EQ(st.ring_peak, 9UL);
	KT_EXPECT_EQ(st.cpu_state, nr > 1 ? DAMON_PERF_STATE_BOUND
					  : DAMON_PERF_STATE_ENABLED);
}

static void reset_should_zero_counters_and_keep_state(void)
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
	KT_EXPECT_EQ(st.overflow, 1UL);
	KT_EXPECT_EQ(st.busy_drop, 1UL);
	KT_EXPECT_EQ(st.early_wake, 1UL);
	KT_EXPECT_EQ(st.update, 1UL);

	damon_perf_stats_reset();
	damon_perf_stats_snapshot(cpu, &st);
	KT_EXPECT_EQ(st.enqueue + st.overflow + st.busy_drop + st.early_wake +
			     st.update + st.ring_peak,
		     0UL);
	KT_EXPECT_EQ(st.cpu_state, DAMON_PERF_STATE_ENABLED);

	/* Counting resumes from zero. */
	migrate_disable();
	damon_perf_observe_ring_overflow(1, DAMON_PERF_DROP_FULL);
	damon_perf_stats_snapshot(smp_processor_id(), &st);
	migrate_enable();
	KT_EXPECT_EQ(st.overflow, 1UL);
}

static void names_should_match_perf_stats_columns(void)
{
	KT_EXPECT_STREQ(damon_perf_state_name(DAMON_PERF_STATE_UNINIT),
			"UNINIT");
	KT_EXPECT_STREQ(damon_perf_state_name(DAMON_PERF_STATE_RUNNING),
			"RUNNING");
	KT_EXPECT_STREQ(damon_perf_state_name(-1), "UNKNOWN");
	KT_EXPECT_STREQ(damon_perf_state_name(NR_DAMON_PERF_STATES), "UNKNOWN");
	KT_EXPECT_STREQ(damon_perf_stat_name(0), "callback");
	KT_EXPECT_STREQ(damon_perf_stat_name(DAMON_PERF_STAT_early_wake),
			"early_wake");
	KT_EXPECT_STREQ(damon_perf_stat_name(NR_DAMON_PERF_STATS), "unknown");
}

static void collect_none(const struct damon_perf_report *r, void *arg)
{
	(void)r;
	(*(unsigned long *)arg)++;
}

/*
 * Every report offered to the rings is counted once: enqueue or one of
 * the drops (overflow, busy_drop, no_probe) or no_ring; every report
 * consumed is counted once: dequeue, and then exactly one of match and
 * the misses (miss_tgid, miss_region, miss_boundary, stale, miss_filter,
 * miss_nomem). Over a seeded mix of reports of a vaddr context of two
 * targets and a filter, through rings of 16 entries and the kdamond's
 * drain.
 */
static void counters_should_balance_through_rings_and_drain(void)
{
	struct damon_perf_ctx *ctx = kt_ctx_new(DAMON_PERF_OPS_VADDR);
	struct damon_perf_target *a = NULL, *b = NULL;
	unsigned long offered = 0, consumed = 0, extra = 0;
	struct damon_perf_stats st;
	unsigned long misses;
	unsigned int i, pass;

	a = kt_target_add(ctx, 100, BASE, 16);
	b = kt_target_add(ctx, 200, BASE + 64 * PG, 16);
	KT_ASSERT_EQ(kt_target_add(ctx, 300, BASE, 4)->pid, 300);
	list_last_entry(&ctx->targets, struct damon_perf_target, list)->dead =
		true;
	ctx->filters[0].type = DAMON_PERF_FILTER_WRITE;
	ctx->filters[0].allow = false;
	ctx->filters[1].type = DAMON_PERF_FILTER_WRITE;
	ctx->filters[1].allow = true;
	ctx->nr_filters = 2;
	KT_ASSERT_EQ(damon_perf_rings_alloc(&ctx->rings, 16, NULL, NULL), 0);
	for (pass = 0; pass < 40; pass++) {
		ctx->sample_seq++;
		for (i = 0; i < 50; i++) {
			static const pid_t tgids[] = {100, 200, 300, 400};
			struct damon_perf_report r = {
				.size = 8,
				.time_ns = damon_perf_clock_ns(),
				.tid = 7,
				.probe_idx = 1,
				.src = DAMON_PERF_SRC_INJECTED,
			};
			u32 dice = get_random_u32_below(100);

			shim_cpu = (int)get_random_u32_below(2);
			r.cpu = shim_cpu;
			r.tgid = tgids[get_random_u32_below(4)];
			/* in a target, in its gap, or straddling a region */
			r.vaddr = BASE + get_random_u32_below(96) * PG +
				  (dice < 10 ? PG - 4 : 64);
			r.is_write = dice >= 10 && dice < 20;
			if (dice >= 20 && dice < 25)
				r.probe_idx = 0;
			if (dice >= 25 && dice < 30)
				r.time_ns = 1; /* stale once a drain ran */
			offered++;
			damon_perf_report_access(&ctx->rings, &r);
		}
		shim_cpu = 0;
		/* the first pass, which allocates the snapshot, without
		 * memory: its reports are consumed all the same */
		shim_fail_alloc = pass == 0;
		consumed += damon_perf_drain_rings(ctx);
		shim_fail_alloc = false;
	}
	/* reports of no context count too */
	damon_perf_report_access(NULL, &(struct damon_perf_report){
					       .probe_idx = 1,
				       });
	extra++;
	damon_perf_stats_aggregate(&st);
	misses = st.miss_tgid + st.miss_region + st.miss_boundary + st.stale +
		 st.miss_filter + st.miss_nomem;
	/* the mix reached every path */
	KT_EXPECT_GT(st.match, 0UL);
	KT_EXPECT_GT(st.miss_tgid, 0UL);
	KT_EXPECT_GT(st.miss_region, 0UL);
	KT_EXPECT_GT(st.miss_boundary, 0UL);
	KT_EXPECT_GT(st.stale, 0UL);
	KT_EXPECT_GT(st.miss_filter, 0UL);
	KT_EXPECT_GT(st.miss_nomem, 0UL);
	KT_EXPECT_GT(st.overflow, 0UL);
	KT_EXPECT_GT(st.no_probe, 0UL);
	KT_EXPECT_EQ(st.no_ring, extra);
	KT_EXPECT_EQ(st.enqueue + st.overflow + st.busy_drop + st.no_probe +
			     st.no_ring,
		     offered + extra);
	KT_EXPECT_EQ(st.dequeue, consumed);
	KT_EXPECT_EQ(st.dequeue, st.match + misses);
	KT_EXPECT_EQ(st.stale, ctx->stale_drops);
	/* whatever is left in the rings is what enqueue has over dequeue */
	damon_perf_rings_recheck_all(&ctx->rings);
	KT_EXPECT_EQ(damon_perf_rings_drain_pending(&ctx->rings, collect_none,
						    &consumed),
		     st.enqueue - st.dequeue);
	KT_EXPECT_TRUE(a->nr_regions == 16 && b->nr_regions == 16);
}

static const struct kt_case cases[] = {
	KT_CASE(state_should_advance_and_never_regress),
	KT_CASE(first_sample_should_only_promote_enabled),
	KT_CASE(event_alloc_should_be_lazy_and_idempotent),
	KT_CASE(sample_should_count_by_reason),
	KT_CASE(aggregate_should_sum_counters_and_take_min_state),
	KT_CASE(reset_should_zero_counters_and_keep_state),
	KT_CASE(names_should_match_perf_stats_columns),
	KT_CASE(counters_should_balance_through_rings_and_drain),
	{NULL, NULL},
};

const struct kt_suite kt_stats_suite = {"KmodStats", cases, stats_init,
					stats_exit};
