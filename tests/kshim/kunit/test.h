/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The shim's <kunit/test.h>: enough of KUnit (include/kunit/test.h,
 * include/kunit/assert.h) to build the suites of tests/kunit unchanged in
 * userspace and run them natively (kunit.c, under GoogleTest:
 * tests/user/kunit_native.cpp). The same meaning as the kernel's: an EXPECT
 * records a failure and goes on, an ASSERT records it and ends the case (here
 * with a longjmp() to the runner, where KUnit ends the case's kthread),
 * kunit_skip() ends the case skipped; each operand is evaluated once;
 * managed allocations and resources are released, newest first, when the
 * case ends, failed or not. A failure is reported as KUnit prints it: the
 * file and line, the expression and each side's value.
 */
#ifndef _DAMON_PERF_KSHIM_KUNIT_TEST_H
#define _DAMON_PERF_KSHIM_KUNIT_TEST_H

#include <setjmp.h>

#include "kshim.h"

#define KUNIT_PARAM_DESC_SIZE 128

enum kunit_status {
	KUNIT_SUCCESS,
	KUNIT_FAILURE,
	KUNIT_SKIPPED,
};

struct kunit_resource;

/* one running case (one parameter of a parameterised case) */
struct kunit {
	void *priv; /* the suite's init and the case share it */
	const void *param_value;
	/* private: the runner's */
	const char *name;
	enum kunit_status status;
	char status_comment[256];
	jmp_buf *abort;
	struct kunit_resource *resources; /* newest first */
};

struct kunit_case {
	void (*run_case)(struct kunit *test);
	const char *name;
	const void *(*generate_params)(const void *prev, char *desc);
};

struct kunit_suite {
	const char *name;
	int (*suite_init)(struct kunit_suite *suite);
	void (*suite_exit)(struct kunit_suite *suite);
	int (*init)(struct kunit *test);
	void (*exit)(struct kunit *test);
	struct kunit_case *test_cases;
};

#define KUNIT_CASE(test_name)                                                  \
	{                                                                      \
		.run_case = test_name, .name = #test_name                      \
	}
#define KUNIT_CASE_PARAM(test_name, gen_params)                                \
	{                                                                      \
		.run_case = test_name, .name = #test_name,                     \
		.generate_params = gen_params                                  \
	}

#define KUNIT_ARRAY_PARAM(name, array, get_desc)                               \
	static const void *name##_gen_params(const void *prev, char *desc)     \
	{                                                                      \
		typeof((array)[0]) *__next =                                   \
			prev ? ((typeof(__next))prev) + 1 : (array);           \
		void (*__get_desc)(typeof(__next), char *) = get_desc;         \
		if (__next - (array) < (long)ARRAY_SIZE((array))) {            \
			if (__get_desc)                                        \
				__get_desc(__next, desc);                      \
			return __next;                                         \
		}                                                              \
		return NULL;                                                   \
	}
#define KUNIT_ARRAY_PARAM_DESC(name, array, desc_member)                       \
	static const void *name##_gen_params(const void *prev, char *desc)     \
	{                                                                      \
		typeof((array)[0]) *__next =                                   \
			prev ? ((typeof(__next))prev) + 1 : (array);           \
		if (__next - (array) < (long)ARRAY_SIZE((array))) {            \
			snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s",            \
				 __next->desc_member);                         \
			return __next;                                         \
		}                                                              \
		return NULL;                                                   \
	}

/*
 * The suites of a file: registered with the runner (kunit.c) before
 * main(), where the kernel lists them in a section its KUnit walks.
 */
void kunit_shim_register(struct kunit_suite *const *suites, unsigned int n);
#define kunit_test_suites(...)                                                 \
	static struct kunit_suite *const __kunit_shim_suites[] = {             \
		__VA_ARGS__};                                                  \
	__attribute__((__constructor__)) static void __kunit_shim_init(void)   \
	{                                                                      \
		kunit_shim_register(__kunit_shim_suites,                       \
				    ARRAY_SIZE(__kunit_shim_suites));          \
	}                                                                      \
	_Static_assert(1, "kunit_test_suites")

/* ---- managed memory and resources (include/kunit/resource.h) ---- */
typedef int (*kunit_resource_init_t)(struct kunit_resource *res, void *ctx);
typedef void (*kunit_resource_free_t)(struct kunit_resource *res);

struct kunit_resource {
	void *data;
	/* private: */
	kunit_resource_free_t free;
	struct kunit_resource *next;
};

struct kunit_resource *kunit_alloc_resource(struct kunit *test,
					    kunit_resource_init_t init,
					    kunit_resource_free_t free,
					    gfp_t gfp, void *context);
void *kunit_kmalloc(struct kunit *test, size_t size, gfp_t gfp);
void *kunit_kzalloc(struct kunit *test, size_t size, gfp_t gfp);
void *kunit_kcalloc(struct kunit *test, size_t n, size_t size, gfp_t gfp);

/* ---- what a failing expectation reports ---- */
/* a failure at @file:@line, then the case ends if @fatal */
void kunit_shim_fail(struct kunit *test, bool fatal, const char *file, int line,
		     const char *fmt, ...)
	__attribute__((__format__(__printf__, 5, 6)));
void kunit_shim_fail_int(struct kunit *test, bool fatal, const char *file,
			 int line, const char *left, const char *op,
			 const char *right, long long lv, long long rv,
			 const char *msg);
void kunit_shim_fail_ptr(struct kunit *test, bool fatal, const char *file,
			 int line, const char *left, const char *op,
			 const char *right, const void *lv, const void *rv,
			 const char *msg);
void kunit_shim_fail_str(struct kunit *test, bool fatal, const char *file,
			 int line, const char *left, const char *op,
			 const char *right, const char *lv, const char *rv,
			 const char *msg);
/* the message of a _MSG assertion, in a buffer of the case's */
const char *kunit_shim_msg(struct kunit *test, const char *fmt, ...)
	__attribute__((__format__(__printf__, 2, 3)));
/* end the case skipped */
void kunit_shim_skip(struct kunit *test, const char *fmt, ...)
	__attribute__((__format__(__printf__, 2, 3), __noreturn__));
void kunit_shim_info(struct kunit *test, const char *fmt, ...)
	__attribute__((__format__(__printf__, 2, 3)));

#define __KUNIT_MSG(test, ...) (kunit_shim_msg(test, "\n" __VA_ARGS__))

#define __KUNIT_INT(test, fatal, left, op, right, ...)                         \
	do {                                                                   \
		const typeof(left) __left = (left);                            \
		const typeof(right) __right = (right);                         \
		if (!(__left op __right))                                      \
			kunit_shim_fail_int(                                   \
				test, fatal, __FILE__, __LINE__, #left, #op,   \
				#right, (long long)__left, (long long)__right, \
				__KUNIT_MSG(test, __VA_ARGS__));               \
	} while (0)
#define __KUNIT_PTR(test, fatal, left, op, right, ...)                         \
	do {                                                                   \
		const void *__left = (left);                                   \
		const void *__right = (right);                                 \
		if (!(__left op __right))                                      \
			kunit_shim_fail_ptr(test, fatal, __FILE__, __LINE__,   \
					    #left, #op, #right, __left,        \
					    __right,                           \
					    __KUNIT_MSG(test, __VA_ARGS__));   \
	} while (0)
#define __KUNIT_STR(test, fatal, left, op, right, ...)                         \
	do {                                                                   \
		const char *__left = (left);                                   \
		const char *__right = (right);                                 \
		if (!(strcmp(__left, __right) op 0))                           \
			kunit_shim_fail_str(test, fatal, __FILE__, __LINE__,   \
					    #left, #op, #right, __left,        \
					    __right,                           \
					    __KUNIT_MSG(test, __VA_ARGS__));   \
	} while (0)
#define __KUNIT_TRUE(test, fatal, cond, want, ...)                             \
	do {                                                                   \
		if ((!!(cond)) != (want))                                      \
			kunit_shim_fail(test, fatal, __FILE__, __LINE__,       \
					"Expected %s to be %s, but is %s%s",   \
					#cond, (want) ? "true" : "false",      \
					(want) ? "false" : "true",             \
					__KUNIT_MSG(test, __VA_ARGS__));       \
	} while (0)

#define KUNIT_EXPECT_EQ(test, l, r) __KUNIT_INT(test, false, l, ==, r)
#define KUNIT_EXPECT_NE(test, l, r) __KUNIT_INT(test, false, l, !=, r)
#define KUNIT_EXPECT_LT(test, l, r) __KUNIT_INT(test, false, l, <, r)
#define KUNIT_EXPECT_LE(test, l, r) __KUNIT_INT(test, false, l, <=, r)
#define KUNIT_EXPECT_GT(test, l, r) __KUNIT_INT(test, false, l, >, r)
#define KUNIT_EXPECT_GE(test, l, r) __KUNIT_INT(test, false, l, >=, r)
#define KUNIT_EXPECT_EQ_MSG(test, l, r, ...)                                   \
	__KUNIT_INT(test, false, l, ==, r, __VA_ARGS__)
#define KUNIT_EXPECT_TRUE(test, c) __KUNIT_TRUE(test, false, c, true)
#define KUNIT_EXPECT_FALSE(test, c) __KUNIT_TRUE(test, false, c, false)
#define KUNIT_EXPECT_TRUE_MSG(test, c, ...)                                    \
	__KUNIT_TRUE(test, false, c, true, __VA_ARGS__)
#define KUNIT_EXPECT_FALSE_MSG(test, c, ...)                                   \
	__KUNIT_TRUE(test, false, c, false, __VA_ARGS__)
#define KUNIT_EXPECT_PTR_EQ(test, l, r) __KUNIT_PTR(test, false, l, ==, r)
#define KUNIT_EXPECT_PTR_NE(test, l, r) __KUNIT_PTR(test, false, l, !=, r)
#define KUNIT_EXPECT_NULL(test, p) __KUNIT_PTR(test, false, p, ==, NULL)
#define KUNIT_EXPECT_NOT_NULL(test, p) __KUNIT_PTR(test, false, p, !=, NULL)
#define KUNIT_EXPECT_STREQ(test, l, r) __KUNIT_STR(test, false, l, ==, r)
#define KUNIT_EXPECT_STRNEQ(test, l, r) __KUNIT_STR(test, false, l, !=, r)

#define KUNIT_ASSERT_EQ(test, l, r) __KUNIT_INT(test, true, l, ==, r)
#define KUNIT_ASSERT_NE(test, l, r) __KUNIT_INT(test, true, l, !=, r)
#define KUNIT_ASSERT_LT(test, l, r) __KUNIT_INT(test, true, l, <, r)
#define KUNIT_ASSERT_LE(test, l, r) __KUNIT_INT(test, true, l, <=, r)
#define KUNIT_ASSERT_GT(test, l, r) __KUNIT_INT(test, true, l, >, r)
#define KUNIT_ASSERT_GE(test, l, r) __KUNIT_INT(test, true, l, >=, r)
#define KUNIT_ASSERT_TRUE(test, c) __KUNIT_TRUE(test, true, c, true)
#define KUNIT_ASSERT_FALSE(test, c) __KUNIT_TRUE(test, true, c, false)
#define KUNIT_ASSERT_PTR_EQ(test, l, r) __KUNIT_PTR(test, true, l, ==, r)
#define KUNIT_ASSERT_NULL(test, p) __KUNIT_PTR(test, true, p, ==, NULL)
#define KUNIT_ASSERT_NOT_NULL(test, p) __KUNIT_PTR(test, true, p, !=, NULL)
#define KUNIT_ASSERT_STREQ(test, l, r) __KUNIT_STR(test, true, l, ==, r)

#define KUNIT_FAIL(test, fmt, ...)                                             \
	kunit_shim_fail(test, false, __FILE__, __LINE__, fmt, ##__VA_ARGS__)
#define KUNIT_ASSERT_FAILURE(test, fmt, ...)                                   \
	kunit_shim_fail(test, true, __FILE__, __LINE__, fmt, ##__VA_ARGS__)

#define kunit_skip(test, fmt, ...) kunit_shim_skip(test, fmt, ##__VA_ARGS__)
#define kunit_info(test, fmt, ...) kunit_shim_info(test, fmt, ##__VA_ARGS__)

#endif /* _DAMON_PERF_KSHIM_KUNIT_TEST_H */
