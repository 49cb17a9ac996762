/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _DAMON_PERF_KUNIT_EXPORT_H
#define _DAMON_PERF_KUNIT_EXPORT_H

#include <linux/export.h>

/*
 * The KUnit test module (tests/kunit) and the hardware-shaped sample test
 * (tests/nmi) reach module internals through these exports; they exist
 * only when the target kernel has KUnit, or in a test build
 * (scripts/kbuild.sh passes DAMON_PERF_TEST_EXPORTS=y, kmod/Kbuild turns
 * it into the macro), and only in the EXPORTED_FOR_KUNIT_TESTING namespace
 * (compat/compat.h), which no other module imports. A plain build
 * (make module) of a kernel without KUnit exports none of them.
 */
#if IS_ENABLED(CONFIG_KUNIT)
#define DAMON_PERF_EXPORT_FOR_KUNIT(sym) EXPORT_SYMBOL_IF_KUNIT(sym)
#elif defined(DAMON_PERF_TEST_EXPORTS)
#define DAMON_PERF_EXPORT_FOR_KUNIT(sym) DAMON_PERF_EXPORT_FOR_TESTS(sym)
#else
#define DAMON_PERF_EXPORT_FOR_KUNIT(sym)
#endif

#endif
