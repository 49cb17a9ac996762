// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: what a requester may make the module do on its behalf. Counters
 * get perf_event_open()'s permission checks under the requester's
 * credentials, also those a kworker creates when a CPU comes back online;
 * an AUX attach accepts only a real perf file and a probe
 * slot no perf probe uses; tid filters take ids of the caller's PID
 * namespace.
 */
#include <kunit/test.h>
#include <linux/anon_inodes.h>
#include <linux/capability.h>
#include <linux/cpu.h>
#include <linux/cred.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/perf_event.h>
#include <linux/pid_namespace.h>
#include <linux/sched.h>
#include <linux/string.h>

#include "aux.h"
#include "ctx.h"
#include "helpers.h"
#include "perf_source.h"
#include "probe.h"

/*
 * A paddr context over 64 pages with one page-fault probe, asking for
 * physical addresses when @phys.
 */
static struct damon_perf_ctx *probe_ctx_phys(struct kunit *test,
					     const char *name, bool phys)
{
	struct damon_perf_probe_attr pa = {
		.sample_phys_addr = phys,
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_PAGE_FAULTS,
		.sample_period = 1,
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
	return ctx;
}

static struct damon_perf_ctx *probe_ctx(struct kunit *test, const char *name)
{
	return probe_ctx_phys(test, name, false);
}

/* Credentials like the current ones without any capability. */
static const struct cred *no_caps_cred(struct kunit *test)
{
	struct cred *c = prepare_creds();

	KUNIT_ASSERT_NOT_NULL(test, c);
	cap_clear(c->cap_effective);
	cap_clear(c->cap_permitted);
	cap_clear(c->cap_inheritable);
	cap_clear(c->cap_ambient);
	return c;
}

#define PARANOID "/proc/sys/kernel/perf_event_paranoid"

static int paranoid_get(int *v)
{
	struct file *f = filp_open(PARANOID, O_RDONLY, 0);
	char buf[16] = {};
	loff_t pos = 0;
	ssize_t n;

	if (IS_ERR(f))
		return PTR_ERR(f);
	n = kernel_read(f, buf, sizeof(buf) - 1, &pos);
	filp_close(f, NULL);
	if (n <= 0)
		return n ? (int)n : -EIO;
	return kstrtoint(strim(buf), 10, v);
}

static int paranoid_set(int v)
{
	struct file *f = filp_open(PARANOID, O_WRONLY, 0);
	char buf[16];
	loff_t pos = 0;
	ssize_t n;
	int len = snprintf(buf, sizeof(buf), "%d\n", v);

	if (IS_ERR(f))
		return PTR_ERR(f);
	n = kernel_write(f, buf, len, &pos);
	filp_close(f, NULL);
	return n == len ? 0 : -EIO;
}

/*
 * perf_event_open() refuses CPU-wide counters to a task without
 * CAP_PERFMON (perf_event_paranoid >= 1); so does the start of a context
 * for such a requester.
 */
static void arm_should_refuse_a_requester_without_perfmon(struct kunit *test)
{
	struct damon_perf_ctx *ctx = probe_ctx(test, "kunit-perm");
	const struct cred *nocaps = no_caps_cred(test);
	struct netlink_ext_ack extack = {};
	const struct cred *old;
	int ret, saved;

	KUNIT_ASSERT_EQ(test, paranoid_get(&saved), 0);
	KUNIT_ASSERT_EQ(test, paranoid_set(2), 0);
	old = override_creds(nocaps);
	mutex_lock(&damon_perf_lock);
	ret = damon_perf_ctx_start(ctx, &extack);
	mutex_unlock(&damon_perf_lock);
	revert_creds(old);
	put_cred(nocaps);
	KUNIT_EXPECT_EQ(test, paranoid_set(saved), 0);
	KUNIT_EXPECT_EQ(test, ret, -EACCES);
	KUNIT_EXPECT_NOT_NULL(test, extack._msg);
	KUNIT_EXPECT_NE(test, READ_ONCE(ctx->state),
			(u32)DAMON_PERF_CTX_STATE_RUNNING);

	/* the same context starts for a privileged requester */
	mutex_lock(&damon_perf_lock);
	KUNIT_EXPECT_EQ(test, damon_perf_ctx_start(ctx, NULL), 0);
	KUNIT_EXPECT_EQ(test, damon_perf_ctx_stop(ctx), 0);
	mutex_unlock(&damon_perf_lock);
}

/*
 * A requester allowed CPU-wide counters (perf_event_paranoid -1) starts
 * a context, then the sysctl forbids them (2) and CPU 1 goes offline and
 * back: the counter the sync work creates for it must be refused as the
 * requester's perf_event_open() would be. It used to be created with the
 * kworker's (kernel) credentials, which pass every check.
 */
static void
cpu_online_should_create_counters_as_the_requester(struct kunit *test)
{
	struct damon_perf_ctx *ctx;
	const struct cred *nocaps, *old;
	struct damon_perf_probe_status st = {};
	int saved, ret;

	if (num_online_cpus() < 2 || !cpu_online(1))
		kunit_skip(test, "needs CPU 1 online");
	KUNIT_ASSERT_EQ(test, paranoid_get(&saved), 0);
	KUNIT_ASSERT_EQ(test, paranoid_set(-1), 0);
	ctx = probe_ctx(test, "kunit-online");
	nocaps = no_caps_cred(test);
	old = override_creds(nocaps);
	ret = test_ctx_start(ctx);
	revert_creds(old);
	put_cred(nocaps);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, paranoid_set(2), 0);
	if (!ret) {
		KUNIT_EXPECT_EQ(test, remove_cpu(1), 0);
		KUNIT_EXPECT_EQ(test, add_cpu(1), 0);
		/*
		 * add_cpu() queued the sync work from its cpuhp callback; the
		 * offline's sync may not have run yet, so polling could see
		 * the old counter still counted. Wait for the work instead.
		 */
		mutex_lock(&damon_perf_lock);
		damon_perf_source_settle(ctx);
		damon_perf_probe_status(ctx, 1, &st);
		mutex_unlock(&damon_perf_lock);
		KUNIT_EXPECT_EQ(test, st.nr_failed, 1U);
		KUNIT_EXPECT_EQ(test, st.last_err, -EACCES);
		KUNIT_EXPECT_EQ(test, st.last_err_cpu, 1);
		KUNIT_EXPECT_EQ(test, st.nr_active, num_online_cpus() - 1);
		KUNIT_EXPECT_EQ(test, test_ctx_stop(ctx), 0);
	}
	KUNIT_EXPECT_EQ(test, paranoid_set(saved), 0);
}

/*
 * Start @ctx as a requester with CAP_PERFMON alone (no CAP_SYS_ADMIN),
 * perf_event_paranoid @paranoid; stop it again if it started.
 */
static int start_as_perfmon(struct kunit *test, struct damon_perf_ctx *ctx,
			    int paranoid)
{
	struct cred *c = (struct cred *)no_caps_cred(test);
	const struct cred *old;
	int ret, saved;

	KUNIT_ASSERT_EQ(test, paranoid_get(&saved), 0);
	KUNIT_ASSERT_EQ(test, paranoid_set(paranoid), 0);
	cap_raise(c->cap_effective, CAP_PERFMON);
	cap_raise(c->cap_permitted, CAP_PERFMON);
	old = override_creds(c);
	ret = test_ctx_start(ctx);
	revert_creds(old);
	put_cred(c);
	KUNIT_EXPECT_EQ(test, paranoid_set(saved), 0);
	if (!ret)
		KUNIT_EXPECT_EQ(test, test_ctx_stop(ctx), 0);
	return ret;
}

/* With CAP_PERFMON alone (no CAP_SYS_ADMIN) it is allowed. */
static void arm_should_allow_perfmon_alone(struct kunit *test)
{
	struct damon_perf_ctx *ctx = probe_ctx(test, "kunit-perfmon");

	KUNIT_EXPECT_EQ(test, start_as_perfmon(test, ctx, 2), 0);
}

/*
 * Physical addresses: perf_event_open() asks perf_allow_kernel() for
 * PERF_SAMPLE_PHYS_ADDR even with exclude_kernel. A requester without
 * CAP_PERFMON at perf_event_paranoid 2 is refused (perf_allow_cpu()
 * refuses it first), one with CAP_PERFMON is not.
 */
static void arm_should_refuse_phys_addr_without_perfmon(struct kunit *test)
{
	struct damon_perf_ctx *ctx = probe_ctx_phys(test, "kunit-phys", true);
	const struct cred *nocaps = no_caps_cred(test);
	struct netlink_ext_ack extack = {};
	const struct cred *old;
	int ret, saved;

	KUNIT_ASSERT_TRUE(test, ctx->probes[0].attr.exclude_kernel);
	KUNIT_ASSERT_EQ(test, paranoid_get(&saved), 0);
	KUNIT_ASSERT_EQ(test, paranoid_set(2), 0);
	old = override_creds(nocaps);
	mutex_lock(&damon_perf_lock);
	ret = damon_perf_ctx_start(ctx, &extack);
	mutex_unlock(&damon_perf_lock);
	revert_creds(old);
	put_cred(nocaps);
	KUNIT_EXPECT_EQ(test, paranoid_set(saved), 0);
	KUNIT_EXPECT_EQ(test, ret, -EACCES);
	KUNIT_EXPECT_NOT_NULL(test, extack._msg);

	KUNIT_EXPECT_EQ(test, start_as_perfmon(test, ctx, 2), 0);
}

/*
 * Debian's perf_event_paranoid 3 (perf_paranoid_any()): perf_event_open()
 * wants CAP_SYS_ADMIN, CAP_PERFMON is not enough; so does the start of a
 * context. It used to start, perf_allow_cpu() taking CAP_PERFMON.
 */
static void arm_should_refuse_perfmon_alone_at_paranoid_3(struct kunit *test)
{
#ifdef DAMON_PERF_HAVE_PERF_PARANOID_ANY
	struct damon_perf_ctx *ctx = probe_ctx(test, "kunit-paranoid3");
	int saved;

	KUNIT_EXPECT_EQ(test, start_as_perfmon(test, ctx, 3), -EACCES);
	KUNIT_EXPECT_NE(test, READ_ONCE(ctx->state),
			(u32)DAMON_PERF_CTX_STATE_RUNNING);
	/* CAP_SYS_ADMIN (the test's own credentials) is */
	KUNIT_ASSERT_EQ(test, paranoid_get(&saved), 0);
	KUNIT_ASSERT_EQ(test, paranoid_set(3), 0);
	KUNIT_EXPECT_EQ(test, test_ctx_start(ctx), 0);
	KUNIT_EXPECT_EQ(test, paranoid_set(saved), 0);
	KUNIT_EXPECT_EQ(test, test_ctx_stop(ctx), 0);
#else
	kunit_skip(test, "kernel has no perf_event_paranoid 3");
#endif
}

static int fake_release(struct inode *inode, struct file *file)
{
	return 0;
}

static const struct file_operations fake_perf_fops = {
	.release = fake_release,
};

/* Any code can name an anon inode "[perf_event]"; that is no perf file. */
static void aux_should_not_take_a_file_for_perf_by_its_name(struct kunit *test)
{
	static int priv;
	struct file *file;

	file = anon_inode_getfile("[perf_event]", &fake_perf_fops, &priv,
				  O_RDWR);
	KUNIT_ASSERT_FALSE(test, IS_ERR(file));
	KUNIT_EXPECT_FALSE(test, damon_perf_aux_is_perf_file(file));
	fput(file);
}

/*
 * A slot a perf probe uses is not an AUX slot: its period would scale the
 * AUX hits. The slot is checked before the fd (-1 here: EBADF otherwise).
 */
static void aux_attach_should_refuse_a_perf_probe_slot(struct kunit *test)
{
	struct damon_perf_ctx *ctx = probe_ctx(test, "kunit-auxslot");
	struct netlink_ext_ack extack = {};
	struct damon_perf_aux_req req = {
		.cpu = 0, .fd = -1, .aux_size = 2 * PAGE_SIZE, .probe_idx = 1,
	};

	mutex_lock(&damon_perf_lock);
	KUNIT_EXPECT_EQ(test, damon_perf_aux_attach(ctx, &req, 0, &extack),
			-EBUSY);
	KUNIT_EXPECT_NOT_NULL(test, extack._msg);
	req.probe_idx = 2;	/* free: gets as far as the fd */
	KUNIT_EXPECT_EQ(test, damon_perf_aux_attach(ctx, &req, 0, NULL),
			-EBADF);
	mutex_unlock(&damon_perf_lock);
}

/* Tids are resolved in the caller's namespace, stored global. */
static void tid_filter_should_resolve_tids(struct kunit *test)
{
	struct damon_perf_ctx *ctx = probe_ctx(test, "kunit-tid");
	struct damon_perf_filter f = {
		.type = DAMON_PERF_FILTER_TID, .nr_tids = 1,
	};
	struct netlink_ext_ack extack = {};

	/* an id beyond pid_max names no thread */
	f.tids[0] = PID_MAX_LIMIT + 1;
	mutex_lock(&damon_perf_lock);
	KUNIT_EXPECT_EQ(test, damon_perf_ctx_set_filters(ctx, &f, 1, &extack),
			-ESRCH);
	KUNIT_EXPECT_NOT_NULL(test, extack._msg);
	KUNIT_EXPECT_EQ(test, ctx->nr_filters, 0U);
	f.tids[0] = task_pid_vnr(current);
	KUNIT_EXPECT_EQ(test, damon_perf_ctx_set_filters(ctx, &f, 1, NULL), 0);
	KUNIT_EXPECT_EQ(test, ctx->filters[0].tids[0], task_pid_nr(current));
	KUNIT_EXPECT_EQ(test, damon_perf_tid_vnr(ctx->filters[0].tids[0]),
			task_pid_vnr(current));
	mutex_unlock(&damon_perf_lock);
}

static struct kunit_case perm_cases[] = {
	KUNIT_CASE(arm_should_refuse_a_requester_without_perfmon),
	KUNIT_CASE(arm_should_allow_perfmon_alone),
	KUNIT_CASE(arm_should_refuse_phys_addr_without_perfmon),
	KUNIT_CASE(arm_should_refuse_perfmon_alone_at_paranoid_3),
	KUNIT_CASE(cpu_online_should_create_counters_as_the_requester),
	KUNIT_CASE(aux_should_not_take_a_file_for_perf_by_its_name),
	KUNIT_CASE(aux_attach_should_refuse_a_perf_probe_slot),
	KUNIT_CASE(tid_filter_should_resolve_tids),
	{}
};

static struct kunit_suite perm_suite = {
	.name = "damon_perf_perm",
	.test_cases = perm_cases,
};

kunit_test_suites(&perm_suite);
