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
 * The architecture walks user page tables locklessly with interrupts
 * disabled (what get_user_pages_fast() relies on); 6.9 renamed the symbol.
 */
#if defined(CONFIG_HAVE_FAST_GUP) || defined(CONFIG_HAVE_GUP_FAST)
#define DAMON_PERF_HAVE_LOCKLESS_PGTABLE_WALK
#endif

#endif /* _DAMON_PERF_COMPAT_H */
