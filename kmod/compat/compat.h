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

#endif /* _DAMON_PERF_COMPAT_H */
