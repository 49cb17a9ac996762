/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The unit tests of the module's pure code in userspace (kmod_test): C
 * cases over the module's own sources built on the kernel shim (tests/kshim),
 * run by a GoogleTest binary (kmod_test.cpp). The cases are C because the
 * module's headers are: in C++ the shim's <linux/types.h> would shadow the one
 * the C library includes, and its min()/max() the standard library's.
 *
 * A case is a void function; KT_EXPECT_* record a failure and go on,
 * KT_ASSERT_* record it and return from the case. Each operand is
 * evaluated once. The GoogleTest side prints the expression, both values
 * and the file and line of a failure.
 */
#ifndef _DAMON_PERF_KT_H
#define _DAMON_PERF_KT_H

#ifdef __cplusplus
extern "C" {
#endif

struct kt_case {
	const char *name;
	void (*run)(void);
};

/* the cases of one file, ending with { NULL, NULL } */
struct kt_suite {
	const char *name;
	const struct kt_case *cases;
	void (*init)(void); /* before each case, or NULL */
	void (*fini)(void); /* after each case, failed or not, or NULL */
};

extern const struct kt_suite kt_ring_suite;
extern const struct kt_suite kt_drain_suite;
extern const struct kt_suite kt_regions_suite;
extern const struct kt_suite kt_stats_suite;

/* Record a failure of @expr when !@ok. Return: @ok. */
int kt_check(const char *file, int line, const char *expr, int ok,
	     unsigned long long a, unsigned long long b);
/* Record a failure, printf-style. */
void kt_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((__format__(__printf__, 3, 4)));

#ifdef __cplusplus
}
#endif

#ifndef __cplusplus
#define KT_CASE(fn)                                                            \
	{                                                                      \
#fn, fn                                                        \
	}

#define KT_CMP(a, op, b)                                                       \
	({                                                                     \
		__typeof__(a) kt_a = (a);                                      \
		__typeof__(b) kt_b = (b);                                      \
		kt_check(__FILE__, __LINE__, #a " " #op " " #b, kt_a op kt_b,  \
			 (unsigned long long)kt_a, (unsigned long long)kt_b);  \
	})
#define KT_EXPECT_EQ(a, b) ((void)KT_CMP(a, ==, b))
#define KT_EXPECT_NE(a, b) ((void)KT_CMP(a, !=, b))
#define KT_EXPECT_LT(a, b) ((void)KT_CMP(a, <, b))
#define KT_EXPECT_LE(a, b) ((void)KT_CMP(a, <=, b))
#define KT_EXPECT_GT(a, b) ((void)KT_CMP(a, >, b))
#define KT_EXPECT_GE(a, b) ((void)KT_CMP(a, >=, b))
#define KT_EXPECT_TRUE(c) KT_EXPECT_EQ(!!(c), 1)
#define KT_EXPECT_FALSE(c) KT_EXPECT_EQ(!!(c), 0)
#define KT_ASSERT_EQ(a, b)                                                     \
	do {                                                                   \
		if (!KT_CMP(a, ==, b))                                         \
			return;                                                \
	} while (0)
#define KT_ASSERT_CMP(a, op, b)                                                \
	do {                                                                   \
		if (!KT_CMP(a, op, b))                                         \
			return;                                                \
	} while (0)
#define KT_ASSERT_GT(a, b) KT_ASSERT_CMP(a, >, b)
#define KT_ASSERT_TRUE(c) KT_ASSERT_EQ(!!(c), 1)
#define KT_ASSERT_FALSE(c) KT_ASSERT_EQ(!!(c), 0)
#define KT_EXPECT_PTR_EQ(a, b) KT_EXPECT_TRUE((a) == (b))
#define KT_EXPECT_NULL(p) KT_EXPECT_TRUE((p) == NULL)
#define KT_EXPECT_NOT_NULL(p) KT_EXPECT_TRUE((p) != NULL)
#define KT_ASSERT_NOT_NULL(p) KT_ASSERT_TRUE((p) != NULL)
/* the message of the KUnit _MSG forms is left out: the line tells */
#define KT_EXPECT_EQ_MSG(a, b, ...) KT_EXPECT_EQ(a, b)
#define KT_EXPECT_TRUE_MSG(c, ...) KT_EXPECT_TRUE(c)
#define KT_FAIL(...) kt_fail(__FILE__, __LINE__, __VA_ARGS__)
#define KT_EXPECT_STREQ(a, b)                                                  \
	do {                                                                   \
		const char *kt_sa = (a), *kt_sb = (b);                         \
		if (strcmp(kt_sa, kt_sb))                                      \
			KT_FAIL("expected %s == %s\n  left:  \"%s\"\n  "       \
				"right: \"%s\"",                               \
				#a, #b, kt_sa, kt_sb);                         \
	} while (0)
#define KT_ASSERT_FAILURE(...)                                                 \
	do {                                                                   \
		KT_FAIL(__VA_ARGS__);                                          \
		return;                                                        \
	} while (0)
#endif

#endif /* _DAMON_PERF_KT_H */
