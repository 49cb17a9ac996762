/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What several suites share: managed contexts and the lifecycle calls
 * under damon_perf_lock.
 */
#ifndef _DAMON_PERF_KUNIT_HELPERS_H
#define _DAMON_PERF_KUNIT_HELPERS_H

#include <kunit/test.h>

#include "ctx.h"

#define BASE	BIT(30)

/* An assertion inside damon_perf_lock: drop the lock before aborting. */
#define ASSERT_LOCKED(test, cond)					\
	do {								\
		if (!(cond)) {						\
			mutex_unlock(&damon_perf_lock);			\
			KUNIT_ASSERT_FAILURE(test, "%s", #cond);	\
		}							\
	} while (0)

struct damon_perf_ctx *test_ctx_new(struct kunit *test, const char *name,
				    u32 ops);
int test_ctx_add_range(struct damon_perf_ctx *ctx, unsigned long start,
		       unsigned long end);
int test_ctx_start(struct damon_perf_ctx *ctx);
int test_ctx_stop(struct damon_perf_ctx *ctx);
void test_ctx_set_fast(struct kunit *test, struct damon_perf_ctx *ctx,
		       u64 sample_us, u64 aggr_us);
pid_t test_spawn(char **argv);
pid_t test_spawn_sleep(const char *secs);
bool test_wait_asleep(pid_t pid);
void test_kill(pid_t pid);

#endif /* _DAMON_PERF_KUNIT_HELPERS_H */
