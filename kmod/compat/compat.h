/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Everything that differs between the kernels damon_perf supports (6.1 LTS
 * and newer), keyed on capability macros from compat/Kbuild.include.
 */
#ifndef _DAMON_PERF_COMPAT_H
#define _DAMON_PERF_COMPAT_H

#ifndef DAMON_PERF_HAVE_TIMER_DELETE
#define timer_delete_sync(t) del_timer_sync(t)
#endif

/*
 * Generic netlink: the op type the pre_doit/post_doit hooks receive, and a
 * dump's parsed attributes (6.1: genl_dumpit_info.attrs; since 6.2:
 * genl_dumpit_info.info.attrs). Callers include <net/genetlink.h>.
 */
#ifdef DAMON_PERF_HAVE_GENL_SPLIT_OPS
#define damon_perf_genl_hook_ops genl_split_ops
#define damon_perf_dumpit_attrs(cb) (genl_dumpit_info(cb)->info.attrs)
#else
#define damon_perf_genl_hook_ops genl_ops
#define damon_perf_dumpit_attrs(cb) (genl_dumpit_info(cb)->attrs)
#endif

/*
 * Exports only the KUnit test module may use, in the namespace the kernel
 * reserves for them; the test module imports it.
 */
#ifdef DAMON_PERF_HAVE_KUNIT_VISIBILITY
#include <kunit/visibility.h>
#elif IS_ENABLED(CONFIG_KUNIT)
#define EXPORT_SYMBOL_IF_KUNIT(symbol) \
	EXPORT_SYMBOL_NS(symbol, EXPORTED_FOR_KUNIT_TESTING)
#endif
#ifdef DAMON_PERF_HAVE_NS_STRING
#define DAMON_PERF_IMPORT_KUNIT_NS() \
	MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING")
#define DAMON_PERF_EXPORT_FOR_TESTS(symbol) \
	EXPORT_SYMBOL_NS_GPL(symbol, "EXPORTED_FOR_KUNIT_TESTING")
#else
#define DAMON_PERF_IMPORT_KUNIT_NS() MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING)
#define DAMON_PERF_EXPORT_FOR_TESTS(symbol) \
	EXPORT_SYMBOL_NS_GPL(symbol, EXPORTED_FOR_KUNIT_TESTING)
#endif

/* Kernels without WQ_PERCPU bind workqueues per CPU unless WQ_UNBOUND. */
#ifndef DAMON_PERF_HAVE_WQ_PERCPU
#define WQ_PERCPU 0
#endif

/*
 * The architecture walks user page tables locklessly with interrupts
 * disabled (what get_user_pages_fast() relies on); 6.9 renamed the symbol.
 */
#if defined(CONFIG_HAVE_FAST_GUP) || defined(CONFIG_HAVE_GUP_FAST)
#define DAMON_PERF_HAVE_LOCKLESS_PGTABLE_WALK
#endif

#ifdef DAMON_PERF_HAVE_GUP_VMAS
#define damon_perf_pin_user_pages(start, nr, flags, pages) \
	pin_user_pages(start, nr, flags, pages, NULL)
#else
#define damon_perf_pin_user_pages(start, nr, flags, pages) \
	pin_user_pages(start, nr, flags, pages)
#endif

#ifndef DAMON_PERF_HAVE_HRTIMER_SETUP
#define hrtimer_setup(timer, fn, clock, mode)		\
	do {						\
		hrtimer_init(timer, clock, mode);	\
		(timer)->function = (fn);		\
	} while (0)
#endif

#endif /* _DAMON_PERF_COMPAT_H */
