/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _DAMON_PERF_KUNIT_EXPORT_H
#define _DAMON_PERF_KUNIT_EXPORT_H

#include <linux/export.h>

/*
 * The KUnit test module (tests/kunit) reaches module internals through
 * these exports; they exist only when the target kernel has KUnit, and
 * only in the EXPORTED_FOR_KUNIT_TESTING namespace (compat/compat.h), which
 * no other module imports.
 */
#if IS_ENABLED(CONFIG_KUNIT)
#define DAMON_PERF_EXPORT_FOR_KUNIT(sym) EXPORT_SYMBOL_IF_KUNIT(sym)
#else
#define DAMON_PERF_EXPORT_FOR_KUNIT(sym)
#endif

#endif
