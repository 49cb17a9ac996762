// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: AUX backend registry, backend selection (PERF_PMU_CAP_ITRACE plus
 * match_pmu), per-CPU drain scheduling on the owning CPU, a drain and a
 * teardown that do not wait for a CPU whose drain never ends, init/arm
 * unwinding, the batch producer stopping at the first refusal, and the
 * release of a netlink port sparing a socket that reused its id.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/net.h>
#include <linux/netlink.h>
#include <linux/perf_event.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <net/net_namespace.h>
#include <net/sock.h>

#include "aux.h"
#include "ring.h"

/* What the fake backend saw; one test at a time uses it. */
struct fake_state {
	int *drain_calls;	/* per CPU */
	int *drain_on;		/* CPU the drain ran on, per CPU */
	int *cleanups;		/* per CPU */
	int arm_ret;
	int block_cpu;		/* its drain waits for @unblock (-1: none) */
	struct completion unblock;
	struct completion blocked;	/* that drain has begun */
};

static struct fake_state *fake;

static bool fake_match(struct perf_event *pe)
{
	return !strcmp(pe->pmu->name, "damon_test_aux");
}

static int fake_init(struct damon_perf_aux_event *event, int cpu,
		     const struct damon_perf_aux_args *args)
{
	return 0;
}

static void fake_cleanup(struct damon_perf_aux_event *event, int cpu)
{
	fake->cleanups[cpu]++;
}

static int fake_arm(struct damon_perf_aux_event *event, int cpu)
{
	return fake->arm_ret;
}

static unsigned int fake_drain(struct damon_perf_aux_event *event, int cpu)
{
	fake->drain_calls[cpu]++;
	fake->drain_on[cpu] = raw_smp_processor_id();
	if (cpu == fake->block_cpu) {
		complete(&fake->blocked);
		/* a bound on a broken test, not a measure */
		wait_for_completion_timeout(&fake->unblock, 30 * HZ);
	}
	return cpu + 1;
}

static const struct damon_perf_backend_ops fake_ops = {
	.name = "damon_test_aux",
	.match_pmu = fake_match,
	.init = fake_init,
	.cleanup = fake_cleanup,
	.arm = fake_arm,
	.drain = fake_drain,
};

static struct perf_event *fake_event(struct kunit *test, const char *name,
				     int caps)
{
	struct perf_event *pe = kunit_kzalloc(test, sizeof(*pe), GFP_KERNEL);
	struct pmu *pmu = kunit_kzalloc(test, sizeof(*pmu), GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pe);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pmu);
	pmu->name = name;
	pmu->capabilities = caps;
	pe->pmu = pmu;
	return pe;
}

static int aux_test_init(struct kunit *test)
{
	fake = kunit_kzalloc(test, sizeof(*fake), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, fake);
	fake->drain_calls = kunit_kcalloc(test, nr_cpu_ids, sizeof(int),
					  GFP_KERNEL);
	fake->drain_on = kunit_kcalloc(test, nr_cpu_ids, sizeof(int),
				       GFP_KERNEL);
	fake->cleanups = kunit_kcalloc(test, nr_cpu_ids, sizeof(int),
				       GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, fake->drain_calls);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, fake->drain_on);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, fake->cleanups);
	fake->block_cpu = -1;
	init_completion(&fake->unblock);
	init_completion(&fake->blocked);
	return damon_perf_aux_register_backend(&fake_ops);
}

static void aux_test_exit(struct kunit *test)
{
	damon_perf_aux_unregister_backend(&fake_ops);
	fake = NULL;
}

static const char *const extra_names[DAMON_PERF_AUX_MAX_BACKENDS] = {
	"damon_test_extra0", "damon_test_extra1", "damon_test_extra2",
	"damon_test_extra3",
};

static void aux_register_should_refuse_bad_and_duplicate(struct kunit *test)
{
	struct damon_perf_backend_ops no_drain = fake_ops;
	struct damon_perf_backend_ops same_name = fake_ops;
	struct damon_perf_backend_ops *extra;
	int i, ret, added = 0;

	no_drain.drain = NULL;
	no_drain.name = "damon_test_no_drain";
	KUNIT_EXPECT_EQ(test, damon_perf_aux_register_backend(&no_drain),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, damon_perf_aux_register_backend(NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, damon_perf_aux_register_backend(&fake_ops),
			-EEXIST);
	KUNIT_EXPECT_EQ(test, damon_perf_aux_register_backend(&same_name),
			-EEXIST);

	/* fill the registry: it holds DAMON_PERF_AUX_MAX_BACKENDS */
	extra = kunit_kcalloc(test, DAMON_PERF_AUX_MAX_BACKENDS,
			      sizeof(*extra), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, extra);
	for (i = 0; i < DAMON_PERF_AUX_MAX_BACKENDS; i++) {
		extra[i] = fake_ops;
		extra[i].name = extra_names[i];
		ret = damon_perf_aux_register_backend(&extra[i]);
		if (ret) {
			KUNIT_EXPECT_EQ(test, ret, -ENOSPC);
			break;
		}
		added++;
	}
	KUNIT_EXPECT_LT(test, added, DAMON_PERF_AUX_MAX_BACKENDS);
	KUNIT_EXPECT_EQ(test, i, added);
	for (i = 0; i < added; i++)
		damon_perf_aux_unregister_backend(&extra[i]);
	/* a freed slot is reusable */
	KUNIT_EXPECT_EQ(test, damon_perf_aux_register_backend(&extra[0]), 0);
	damon_perf_aux_unregister_backend(&extra[0]);
}

static void aux_find_should_require_itrace_and_a_match(struct kunit *test)
{
	struct perf_event *plain = fake_event(test, "damon_test_aux", 0);
	struct perf_event *itrace = fake_event(test, "damon_test_aux",
					       PERF_PMU_CAP_ITRACE);
	struct perf_event *other = fake_event(test, "intel_pt",
					      PERF_PMU_CAP_ITRACE);
	struct perf_event *spe = fake_event(test, "arm_spe_0",
					    PERF_PMU_CAP_ITRACE |
					    PERF_PMU_CAP_EXCLUSIVE);
	const struct damon_perf_backend_ops *ops;

	KUNIT_EXPECT_NULL(test, damon_perf_aux_find_backend(NULL));
	KUNIT_EXPECT_NULL(test, damon_perf_aux_find_backend(plain));
	KUNIT_EXPECT_PTR_EQ(test, damon_perf_aux_find_backend(itrace),
			    &fake_ops);
	KUNIT_EXPECT_NULL(test, damon_perf_aux_find_backend(other));
	ops = damon_perf_aux_find_backend(spe);
	KUNIT_ASSERT_NOT_NULL(test, ops);
	KUNIT_EXPECT_STREQ(test, ops->name, "arm_spe");

	damon_perf_aux_unregister_backend(&fake_ops);
	KUNIT_EXPECT_NULL(test, damon_perf_aux_find_backend(itrace));
}

static void aux_select_should_set_the_event_backend(struct kunit *test)
{
	struct perf_event *itrace = fake_event(test, "damon_test_aux",
					       PERF_PMU_CAP_ITRACE);
	struct perf_event *plain = fake_event(test, "damon_test_aux", 0);
	struct damon_perf_aux_event *event;

	event = damon_perf_aux_event_new(NULL, 1, 0, 0);
	KUNIT_ASSERT_NOT_NULL(test, event);
	damon_perf_aux_select(event, plain);
	KUNIT_EXPECT_NULL(test, event->ops);
	damon_perf_aux_select(event, itrace);
	KUNIT_EXPECT_PTR_EQ(test, event->ops, &fake_ops);
	damon_perf_aux_event_free(event);
}

static void aux_drain_should_run_on_each_owning_cpu(struct kunit *test)
{
	struct damon_perf_aux_args args = {
		.event = fake_event(test, "damon_test_aux",
				    PERF_PMU_CAP_ITRACE),
	};
	struct damon_perf_aux_args plain = {
		.event = fake_event(test, "damon_test_aux", 0),
	};
	struct damon_perf_rings dummy = { 0 };
	struct damon_perf_aux_event *event;
	unsigned int expect = 0, got;
	int cpu, n = 0;

	event = damon_perf_aux_event_new(NULL, 1, 0, 0);
	KUNIT_ASSERT_NOT_NULL(test, event);
	KUNIT_EXPECT_EQ(test, damon_perf_aux_event_add_cpu(event, 0, &plain),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, damon_perf_aux_event_add_cpu(event, nr_cpu_ids,
							   &args), -EINVAL);
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		KUNIT_EXPECT_EQ(test,
				damon_perf_aux_event_add_cpu(event, cpu, &args),
				0);
		expect += cpu + 1;
		n++;
	}
	cpus_read_unlock();
	KUNIT_EXPECT_EQ(test, (int)cpumask_weight(&event->aux_cpumask), n);
	KUNIT_EXPECT_EQ(test, damon_perf_aux_event_add_cpu(event, 0, &args),
			-EEXIST);

	/* no rings: no drain runs */
	KUNIT_EXPECT_EQ(test, damon_perf_aux_event_drain(event, NULL), 0U);
	got = damon_perf_aux_event_drain(event, &dummy);
	KUNIT_EXPECT_EQ(test, got, expect);
	for_each_cpu(cpu, &event->aux_cpumask) {
		KUNIT_EXPECT_EQ_MSG(test, fake->drain_calls[cpu], 1,
				    "cpu %d", cpu);
		KUNIT_EXPECT_EQ_MSG(test, fake->drain_on[cpu], cpu,
				    "drain of cpu %d ran elsewhere", cpu);
	}
	KUNIT_EXPECT_NULL(test, event->rings);

	damon_perf_aux_event_free(event);
	for_each_online_cpu(cpu)
		KUNIT_EXPECT_EQ(test, fake->cleanups[cpu], 1);
}

/*
 * A CPU whose drain work never ends (its kworker starved by an RT task
 * with RT throttling off) must hold up neither the kdamond's drain, past
 * the event's wait, nor a teardown: the drain counts the others and
 * clears the rings, a second drain queues the stuck CPU's work behind the
 * running one, a third finds it pending and skips it, and the free
 * returns at once, its buffers released by the stuck work once it ends.
 */
static void aux_drain_should_not_wait_for_a_stuck_cpu(struct kunit *test)
{
	struct damon_perf_aux_args args = {
		.event = fake_event(test, "damon_test_aux",
				    PERF_PMU_CAP_ITRACE),
	};
	struct damon_perf_rings dummy = { 0 };
	struct damon_perf_aux_event *event;
	struct damon_perf_aux_cpu *pc0;
	unsigned int others = 0;
	int cpu, i;

	event = damon_perf_aux_event_new(NULL, 1, 0, 0);
	KUNIT_ASSERT_NOT_NULL(test, event);
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		KUNIT_EXPECT_EQ(test,
				damon_perf_aux_event_add_cpu(event, cpu, &args),
				0);
		if (cpu)
			others += cpu + 1;
	}
	cpus_read_unlock();
	KUNIT_ASSERT_TRUE(test, cpu_online(0));
	pc0 = per_cpu_ptr(event->pcpu, 0);
	event->wait = msecs_to_jiffies(20);
	fake->block_cpu = 0;

	/* the stuck CPU's reports are not counted; the others' are */
	KUNIT_EXPECT_EQ(test, damon_perf_aux_event_drain(event, &dummy),
			others);
	KUNIT_EXPECT_TRUE(test,
			  wait_for_completion_timeout(&fake->blocked, 30 * HZ));
	KUNIT_EXPECT_NULL(test, event->rings);
	KUNIT_EXPECT_EQ(test, atomic_read(&pc0->queued), 1);
	/* queued behind the running one */
	damon_perf_aux_event_drain(event, &dummy);
	KUNIT_EXPECT_EQ(test, atomic_read(&pc0->queued), 2);
	/* still pending: not queued again */
	damon_perf_aux_event_drain(event, &dummy);
	KUNIT_EXPECT_EQ(test, atomic_read(&pc0->queued), 2);
	KUNIT_EXPECT_EQ(test, fake->drain_calls[0], 1);

	/* returns with the work still running; nothing released yet */
	damon_perf_aux_event_free(event);
	KUNIT_EXPECT_EQ(test, fake->cleanups[0], 0);
	fake->block_cpu = -1;
	complete(&fake->unblock);
	/* the running work drops the last reference (a bound, not a measure) */
	for (i = 0; i < 1500 && !READ_ONCE(fake->cleanups[0]); i++)
		msleep(20);
	for_each_online_cpu(cpu)
		KUNIT_EXPECT_EQ_MSG(test, READ_ONCE(fake->cleanups[cpu]), 1,
				    "cpu %d", cpu);
	/* the pending one was cancelled, not run */
	KUNIT_EXPECT_EQ(test, fake->drain_calls[0], 1);
}

static void aux_add_cpu_should_unwind_when_arm_fails(struct kunit *test)
{
	struct damon_perf_aux_args args = {
		.event = fake_event(test, "damon_test_aux",
				    PERF_PMU_CAP_ITRACE),
	};
	struct damon_perf_aux_event *event;

	event = damon_perf_aux_event_new(NULL, 1, 0, 0);
	KUNIT_ASSERT_NOT_NULL(test, event);
	fake->arm_ret = -EIO;
	KUNIT_EXPECT_EQ(test, damon_perf_aux_event_add_cpu(event, 0, &args),
			-EIO);
	KUNIT_EXPECT_EQ(test, fake->cleanups[0], 1);
	KUNIT_EXPECT_FALSE(test, cpumask_test_cpu(0, &event->aux_cpumask));
	fake->arm_ret = 0;
	damon_perf_aux_event_free(event);
	KUNIT_EXPECT_EQ(test, fake->cleanups[0], 1);
}

struct seen {
	unsigned int n;
	bool all_aux;
	bool all_probe;
};

static void count_report(const struct damon_perf_report *r, void *arg)
{
	struct seen *s = arg;

	s->n++;
	s->all_aux &= r->src == DAMON_PERF_SRC_AUX;
	s->all_probe &= r->probe_idx == 2;
}

static void aux_batch_should_stop_at_first_refusal(struct kunit *test)
{
	const unsigned int size = DAMON_PERF_RING_MIN_SIZE, nr = size + 5;
	struct damon_perf_report *reports;
	struct damon_perf_aux_event *event;
	struct damon_perf_rings rings = { 0 };
	struct seen seen = { 0, true, true };
	unsigned int i, accepted;
	int cpu;

	reports = kunit_kcalloc(test, nr, sizeof(*reports), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, reports);
	for (i = 0; i < nr; i++)
		reports[i].vaddr = 0x1000UL * (i + 1);
	KUNIT_ASSERT_EQ(test, damon_perf_rings_alloc(&rings, size, NULL, NULL),
			0);
	event = damon_perf_aux_event_new(NULL, 2, 0, 0);
	KUNIT_ASSERT_NOT_NULL(test, event);

	/* without a drain running there are no rings: nothing is taken */
	KUNIT_EXPECT_EQ(test, damon_perf_aux_report_batch(event, reports, nr),
			0U);

	event->rings = &rings;
	preempt_disable();	/* one CPU's ring, like a drain work */
	cpu = smp_processor_id();
	accepted = damon_perf_aux_report_batch(event, reports, nr);
	preempt_enable();
	event->rings = NULL;

	KUNIT_EXPECT_EQ(test, accepted, size);
	KUNIT_EXPECT_EQ(test, reports[0].src, (u8)DAMON_PERF_SRC_AUX);
	KUNIT_EXPECT_EQ(test, reports[0].probe_idx, (u8)2);
	/* the refused one and those after it were left alone */
	KUNIT_EXPECT_EQ(test, reports[size + 1].probe_idx, (u8)0);

	KUNIT_EXPECT_EQ(test,
			damon_perf_ring_drain(&rings, cpu, count_report, &seen),
			size);
	KUNIT_EXPECT_EQ(test, seen.n, size);
	KUNIT_EXPECT_TRUE(test, seen.all_aux);
	KUNIT_EXPECT_TRUE(test, seen.all_probe);

	damon_perf_aux_event_free(event);
	damon_perf_rings_free(&rings);
}

/*
 * netlink_release() unhashes a socket's port before it marks the socket
 * dead and before NETLINK_URELEASE: a new socket may bind the same port
 * id and attach buffers in between. The release of the old port must tear
 * down the old socket's buffers only.
 */
static void aux_release_should_spare_a_reused_port(struct kunit *test)
{
	/* tokens: the release compares context pointers, never follows them */
	struct damon_perf_ctx *ctx_old = kunit_kzalloc(test, 8, GFP_KERNEL);
	struct damon_perf_ctx *ctx_new = kunit_kzalloc(test, 8, GFP_KERNEL);
	struct damon_perf_aux_event *ev_old, *ev_new;
	struct socket *old, *new;
	const u32 port = 4242;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ctx_old);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ctx_new);
	KUNIT_ASSERT_EQ(test, sock_create_kern(&init_net, AF_NETLINK,
					       SOCK_RAW, NETLINK_GENERIC,
					       &old), 0);
	if (sock_create_kern(&init_net, AF_NETLINK, SOCK_RAW,
			     NETLINK_GENERIC, &new)) {
		sock_release(old);
		KUNIT_ASSERT_FAILURE(test, "second socket");
	}
	ev_old = damon_perf_aux_event_new(ctx_old, 1, port, 0);
	ev_new = damon_perf_aux_event_new(ctx_new, 1, port, 0);
	KUNIT_ASSERT_NOT_NULL(test, ev_old);
	KUNIT_ASSERT_NOT_NULL(test, ev_new);
	damon_perf_aux_test_add(ev_old, old->sk);
	damon_perf_aux_test_add(ev_new, new->sk);

	/* the old socket is closed (dead); its URELEASE comes late */
	sock_release(old);
	damon_perf_aux_release_portid(port);
	KUNIT_EXPECT_FALSE(test, damon_perf_aux_attached(ctx_old));
	KUNIT_EXPECT_TRUE(test, damon_perf_aux_attached(ctx_new));

	/* the new one's own release ends its buffers */
	sock_release(new);
	damon_perf_aux_release_portid(port);
	KUNIT_EXPECT_FALSE(test, damon_perf_aux_attached(ctx_new));
	/* whatever the above said, nothing of this test stays listed */
	damon_perf_aux_release_ctx(ctx_old);
	damon_perf_aux_release_ctx(ctx_new);
}

static struct kunit_case aux_cases[] = {
	KUNIT_CASE(aux_register_should_refuse_bad_and_duplicate),
	KUNIT_CASE(aux_find_should_require_itrace_and_a_match),
	KUNIT_CASE(aux_select_should_set_the_event_backend),
	KUNIT_CASE(aux_drain_should_run_on_each_owning_cpu),
	KUNIT_CASE(aux_drain_should_not_wait_for_a_stuck_cpu),
	KUNIT_CASE(aux_add_cpu_should_unwind_when_arm_fails),
	KUNIT_CASE(aux_batch_should_stop_at_first_refusal),
	KUNIT_CASE(aux_release_should_spare_a_reused_port),
	{}
};

static struct kunit_suite aux_suite = {
	.name = "damon_perf_aux",
	.init = aux_test_init,
	.exit = aux_test_exit,
	.test_cases = aux_cases,
};

kunit_test_suites(&aux_suite);
