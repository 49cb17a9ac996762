// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers the suites share (helpers.h).
 */
#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/umh.h>

#include "helpers.h"

/* Destroy the context at the end of the case, even after a failure. */
static int ctx_res_init(struct kunit_resource *res, void *ctx)
{
	res->data = ctx;
	return 0;
}

static void ctx_res_free(struct kunit_resource *res)
{
	mutex_lock(&damon_perf_lock);
	damon_perf_ctx_destroy(res->data, NULL);
	mutex_unlock(&damon_perf_lock);
}

/**
 * test_ctx_new() - A context the case's end destroys.
 * @test:	the case; the assertion that fails aborts it.
 * @name:	the context's name.
 * @ops:	DAMON_PERF_OPS_VADDR or DAMON_PERF_OPS_PADDR.
 *
 * Context: process context, damon_perf_lock not held.
 * Return: the context.
 */
struct damon_perf_ctx *test_ctx_new(struct kunit *test, const char *name,
				    u32 ops)
{
	struct damon_perf_ctx *ctx;

	mutex_lock(&damon_perf_lock);
	ctx = damon_perf_ctx_new(name, ops, NULL);
	mutex_unlock(&damon_perf_lock);
	KUNIT_ASSERT_FALSE(test, IS_ERR(ctx));
	if (!kunit_alloc_resource(test, ctx_res_init, ctx_res_free,
				  GFP_KERNEL, ctx)) {
		mutex_lock(&damon_perf_lock);
		damon_perf_ctx_destroy(ctx, NULL);
		mutex_unlock(&damon_perf_lock);
		KUNIT_ASSERT_FAILURE(test, "no memory for the cleanup");
	}
	return ctx;
}

/**
 * test_ctx_add_range() - damon_perf_target_add_range() under the lock.
 * @ctx:	a stopped paddr context.
 * @start:	first address.
 * @end:	one past the last address.
 *
 * Context: process context, damon_perf_lock not held.
 * Return: the new target's id or a negative errno.
 */
int test_ctx_add_range(struct damon_perf_ctx *ctx, unsigned long start,
		       unsigned long end)
{
	int ret;

	mutex_lock(&damon_perf_lock);
	ret = damon_perf_target_add_range(ctx, start, end, NULL);
	mutex_unlock(&damon_perf_lock);
	return ret;
}

/**
 * test_ctx_start() - damon_perf_ctx_start() under the lock.
 * @ctx:	the context.
 *
 * Context: process context, damon_perf_lock not held.
 * Return: what damon_perf_ctx_start() returns.
 */
int test_ctx_start(struct damon_perf_ctx *ctx)
{
	int ret;

	mutex_lock(&damon_perf_lock);
	ret = damon_perf_ctx_start(ctx, NULL);
	mutex_unlock(&damon_perf_lock);
	return ret;
}

/**
 * test_ctx_stop() - damon_perf_ctx_stop() under the lock.
 * @ctx:	the context.
 *
 * Context: process context, damon_perf_lock not held.
 * Return: what damon_perf_ctx_stop() returns.
 */
int test_ctx_stop(struct damon_perf_ctx *ctx)
{
	int ret;

	mutex_lock(&damon_perf_lock);
	ret = damon_perf_ctx_stop(ctx);
	mutex_unlock(&damon_perf_lock);
	return ret;
}

/**
 * test_ctx_set_fast() - Short intervals for a run under test.
 * @test:	the case (asserts that the attributes are taken).
 * @ctx:	the context.
 * @sample_us:	its sample interval.
 * @aggr_us:	its aggregation interval; the update interval is five times it.
 *
 * At most 100 regions, DAMON's defaults otherwise.
 *
 * Context: process context, damon_perf_lock held.
 */
void test_ctx_set_fast(struct kunit *test, struct damon_perf_ctx *ctx,
		       u64 sample_us, u64 aggr_us)
{
	struct damon_perf_attrs a;

	damon_perf_attrs_default(&a);
	a.sample_us = sample_us;
	a.aggr_us = aggr_us;
	a.update_us = aggr_us * 5;
	a.max_nr_regions = 100;
	ASSERT_LOCKED(test, damon_perf_ctx_set_attrs(ctx, &a, NULL) == 0);
}

struct spawn {
	pid_t tgid;
};

static int spawn_init(struct subprocess_info *info, struct cred *new)
{
	struct spawn *s = info->data;

	s->tgid = task_tgid_nr(current);
	return 0;
}

/**
 * test_spawn() - Start a user process.
 * @argv:	its command line, NULL-terminated; @argv[0] is the program.
 *
 * Context: process context, may sleep.
 * Return: its pid, 0 when that is impossible.
 */
pid_t test_spawn(char **argv)
{
	struct subprocess_info *info;
	struct spawn s = {};
	char *envp[2];

	envp[0] = "PATH=/bin:/usr/bin";
	envp[1] = NULL;
	info = call_usermodehelper_setup(argv[0], argv, envp, GFP_KERNEL,
					 spawn_init, NULL, &s);
	if (!info)
		return 0;
	if (call_usermodehelper_exec(info, UMH_WAIT_EXEC))
		return 0;
	return s.tgid;
}

/**
 * test_spawn_sleep() - Start /bin/sleep.
 * @secs:	its argument.
 *
 * Context: process context, may sleep.
 * Return: its pid, 0 when that is impossible.
 */
pid_t test_spawn_sleep(const char *secs)
{
	char *argv[3];

	argv[0] = "/bin/sleep";
	argv[1] = (char *)secs;
	argv[2] = NULL;
	return test_spawn(argv);
}

/**
 * test_kill() - End a process test_spawn() started.
 * @pid:	its pid; it may have exited already.
 *
 * Context: process context.
 */
void test_kill(pid_t pid)
{
	struct pid *p = find_get_pid(pid);

	if (p) {
		kill_pid(p, SIGKILL, 1);
		put_pid(p);
	}
}

/**
 * test_wait_asleep() - Wait until a process sleeps interruptibly.
 * @pid:	the process (its main thread), as test_spawn() gave it.
 *
 * test_spawn() returns once the exec began: the program still faults its
 * pages in, and a test reading its page tables races with that. Two
 * looks 20 ms apart finding it in an interruptible sleep (/bin/sleep's
 * nanosleep, TASK_INTERRUPTIBLE with TASK_FREEZABLE since 6.1) mean it
 * settled. At most 500 looks: a bound on a hang.
 *
 * Context: process context, may sleep.
 * Return: true when it sleeps, false when it is gone or never slept.
 */
bool test_wait_asleep(pid_t pid)
{
	struct task_struct *task;
	unsigned int i, asleep = 0;
	struct pid *p;

	p = find_get_pid(pid);
	task = p ? get_pid_task(p, PIDTYPE_PID) : NULL;
	put_pid(p);
	if (!task)
		return false;
	for (i = 0; i < 500 && asleep < 2; i++) {
		msleep(20);
		if (READ_ONCE(task->__state) & TASK_INTERRUPTIBLE)
			asleep++;
		else
			asleep = 0;
	}
	put_task_struct(task);
	return asleep == 2;
}
