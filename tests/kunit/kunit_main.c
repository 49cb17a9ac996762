// SPDX-License-Identifier: GPL-2.0
/*
 * damon_perf KUnit test module: every suite of tests/kunit/ is linked into
 * this one module and registered here; loading it runs them all.
 */
#include <kunit/test.h>
#include <linux/module.h>

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit tests for damon_perf");
DAMON_PERF_IMPORT_KUNIT_NS();
