// SPDX-License-Identifier: GPL-2.0
/*
 * The shim's KUnit (kunit/test.h): the suites of tests/kunit register
 * here, and kunit_shim_run() runs one case of one suite as KUnit's
 * executor does (lib/kunit/test.c): the suite's init, the case (each
 * parameter of a parameterised case in turn), the suite's exit, then the
 * case's resources, newest first, whether an assertion ended it or not.
 * Every case starts on CPU 0 with the same random sequence (seed 1, or
 * KUNIT_SHIM_SEED, to walk the random choices a KUnit run makes
 * differently every time). Failures go to the runner
 * (kunit_shim_report(), tests/user/kunit_native.cpp).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "kunit/test.h"
#include "kunit_shim.h"

#define MAX_SUITES 64

static struct kunit_suite *suites[MAX_SUITES];
static unsigned int nr_suites;

void kunit_shim_register(struct kunit_suite *const *list, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (nr_suites == MAX_SUITES)
			abort();
		suites[nr_suites++] = list[i];
	}
}

unsigned int kunit_shim_nr_suites(void)
{
	return nr_suites;
}

const char *kunit_shim_suite_name(unsigned int suite)
{
	return suites[suite]->name;
}

const char *kunit_shim_case_name(unsigned int suite, unsigned int i)
{
	const struct kunit_case *c = suites[suite]->test_cases;
	unsigned int n;

	for (n = 0; c[n].run_case; n++)
		if (n == i)
			return c[n].name;
	return NULL;
}

struct kunit_resource *kunit_alloc_resource(struct kunit *test,
					    kunit_resource_init_t init,
					    kunit_resource_free_t free,
					    gfp_t gfp, void *context)
{
	struct kunit_resource *res = kzalloc(sizeof(*res), gfp);

	if (!res)
		return NULL;
	/* lib/kunit/resource.c: without an init, the context is the data */
	if (!init) {
		res->data = context;
	} else if (init(res, context)) {
		kfree(res);
		return NULL;
	}
	res->free = free;
	res->next = test->resources;
	test->resources = res;
	return res;
}

static void free_mem(struct kunit_resource *res)
{
	kfree(res->data);
}

void *kunit_kmalloc(struct kunit *test, size_t size, gfp_t gfp)
{
	void *p = kmalloc(size, gfp);

	if (p && !kunit_alloc_resource(test, NULL, free_mem, gfp, p)) {
		kfree(p);
		return NULL;
	}
	return p;
}

void *kunit_kzalloc(struct kunit *test, size_t size, gfp_t gfp)
{
	void *p = kunit_kmalloc(test, size, gfp);

	if (p)
		memset(p, 0, size);
	return p;
}

void *kunit_kcalloc(struct kunit *test, size_t n, size_t size, gfp_t gfp)
{
	size_t bytes;

	if (__builtin_mul_overflow(n, size, &bytes))
		return NULL;
	return kunit_kzalloc(test, bytes, gfp);
}

static void free_resources(struct kunit *test)
{
	struct kunit_resource *res;

	while ((res = test->resources)) {
		test->resources = res->next;
		if (res->free)
			res->free(res);
		kfree(res);
	}
}

static void fail(struct kunit *test, bool fatal, const char *file, int line,
		 const char *msg)
{
	test->status = KUNIT_FAILURE;
	kunit_shim_report(test->name, fatal, file, line, msg);
	if (fatal)
		longjmp(*test->abort, 1);
}

void kunit_shim_fail(struct kunit *test, bool fatal, const char *file, int line,
		     const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fail(test, fatal, file, line, msg);
}

/* lib/kunit/assert.c's kunit_binary_assert_format(), one side a line */
void kunit_shim_fail_int(struct kunit *test, bool fatal, const char *file,
			 int line, const char *left, const char *op,
			 const char *right, long long lv, long long rv,
			 const char *msg)
{
	kunit_shim_fail(test, fatal, file, line,
			"Expected %s %s %s, but\n    %s == %lld (0x%llx)\n"
			"    %s == %lld (0x%llx)%s",
			left, op, right, left, lv, (unsigned long long)lv,
			right, rv, (unsigned long long)rv, msg);
}

void kunit_shim_fail_ptr(struct kunit *test, bool fatal, const char *file,
			 int line, const char *left, const char *op,
			 const char *right, const void *lv, const void *rv,
			 const char *msg)
{
	kunit_shim_fail(test, fatal, file, line,
			"Expected %s %s %s, but\n    %s == %p\n    %s == %p%s",
			left, op, right, left, lv, right, rv, msg);
}

void kunit_shim_fail_str(struct kunit *test, bool fatal, const char *file,
			 int line, const char *left, const char *op,
			 const char *right, const char *lv, const char *rv,
			 const char *msg)
{
	kunit_shim_fail(test, fatal, file, line,
			"Expected %s %s %s, but\n    %s == \"%s\"\n"
			"    %s == \"%s\"%s",
			left, op, right, left, lv, right, rv, msg);
}

const char *kunit_shim_msg(struct kunit *test, const char *fmt, ...)
{
	static char msg[512];
	va_list ap;

	(void)test;
	/* "\n" alone: an assertion without a message */
	if (!strcmp(fmt, "\n"))
		return "";
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return msg;
}

void kunit_shim_skip(struct kunit *test, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(test->status_comment, sizeof(test->status_comment), fmt, ap);
	va_end(ap);
	if (test->status == KUNIT_SUCCESS)
		test->status = KUNIT_SKIPPED;
	longjmp(*test->abort, 1);
}

void kunit_shim_info(struct kunit *test, const char *fmt, ...)
{
	va_list ap;

	printf("    # %s: ", test->name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
}

/* One case with @param_value: init, case, exit, resources. */
static enum kunit_status run_one(const struct kunit_suite *suite,
				 const struct kunit_case *c, const char *name,
				 const void *param_value, char *comment,
				 size_t comment_size)
{
	/* volatile: read after the longjmp() of an assertion */
	struct kunit test_mem = {0};
	struct kunit *volatile test = &test_mem;
	jmp_buf abort_case;
	const char *seed = getenv("KUNIT_SHIM_SEED");

	shim_cpu = 0;
	shim_random_seed(seed ? strtoull(seed, NULL, 0) : 1);
	test->name = name;
	test->param_value = param_value;
	test->abort = &abort_case;
	if (!setjmp(abort_case)) {
		if (suite->init && suite->init(test))
			kunit_shim_fail(test, true, __FILE__, __LINE__,
					"the suite's init failed");
		c->run_case(test);
	}
	/* KUnit runs the exit after a failed assertion too */
	if (suite->exit && !setjmp(abort_case))
		suite->exit(test);
	free_resources(test);
	shim_cpu = 0;
	snprintf(comment, comment_size, "%s", test->status_comment);
	return test->status;
}

static enum kunit_status run(const struct kunit_suite *suite,
			     const struct kunit_case *c, char *comment,
			     size_t comment_size)
{
	char desc[KUNIT_PARAM_DESC_SIZE], name[512];
	enum kunit_status st, worst = KUNIT_SKIPPED;
	const void *param;

	comment[0] = '\0';
	if (!c->generate_params)
		return run_one(suite, c, c->name, NULL, comment, comment_size);
	/* every parameter in turn, each named as KUnit names it */
	desc[0] = '\0';
	for (param = c->generate_params(NULL, desc); param;
	     param = c->generate_params(param, desc)) {
		snprintf(name, sizeof(name), "%s: %s", c->name, desc);
		st = run_one(suite, c, name, param, comment, comment_size);
		/* failed if one failed, skipped if all skipped */
		if (st == KUNIT_FAILURE ||
		    (st == KUNIT_SUCCESS && worst == KUNIT_SKIPPED))
			worst = st;
		desc[0] = '\0';
	}
	return worst;
}

int kunit_shim_run(unsigned int suite, unsigned int i, char *comment,
		   size_t comment_size)
{
	return run(suites[suite], &suites[suite]->test_cases[i], comment,
		   comment_size);
}
