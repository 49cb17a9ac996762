/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The shim's KUnit (kunit.c), as its runner (tests/user/kunit_native.cpp, C++)
 * sees it: the registered suites and their cases by index, a case run, and the
 * report of each failure, which the runner implements.
 */
#ifndef _DAMON_PERF_KSHIM_KUNIT_SHIM_H
#define _DAMON_PERF_KSHIM_KUNIT_SHIM_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* the results of kunit_shim_run(), as enum kunit_status */
#define KUNIT_SHIM_SUCCESS 0
#define KUNIT_SHIM_FAILURE 1
#define KUNIT_SHIM_SKIPPED 2

unsigned int kunit_shim_nr_suites(void);
const char *kunit_shim_suite_name(unsigned int suite);
/* the name of case @i of @suite, NULL past its last */
const char *kunit_shim_case_name(unsigned int suite, unsigned int i);
/*
 * Run case @i of @suite (every parameter of a parameterised one).
 * Return: KUNIT_SHIM_*; @comment: why it was skipped.
 */
int kunit_shim_run(unsigned int suite, unsigned int i, char *comment,
		   size_t comment_size);
/* a failed expectation (or @assertion) of case @name at @file:@line */
void kunit_shim_report(const char *name, bool assertion, const char *file,
		       int line, const char *msg);

#ifdef __cplusplus
}
#endif

#endif /* _DAMON_PERF_KSHIM_KUNIT_SHIM_H */
