// SPDX-License-Identifier: GPL-2.0
/*
 * The module's fault sites (fault.h): their attributes and their debugfs
 * knobs.
 */
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/fault-inject.h>
#include "fault.h"

#ifdef CONFIG_FAULT_INJECTION
struct fault_attr damon_perf_fail_percpu = FAULT_ATTR_INITIALIZER;
EXPORT_SYMBOL_IF_KUNIT(damon_perf_fail_percpu);
#endif

/**
 * damon_perf_fault_init() - Create the knobs of every fault site.
 * @dir:	the module's debugfs directory (an error pointer or NULL when
 *		there is no debugfs).
 *
 * Nothing without CONFIG_FAULT_INJECTION_DEBUG_FS; the sites then fail
 * only through fail-nth. A knob that cannot be created is not an error:
 * the site just stays off. The knobs go with @dir.
 *
 * Context: module init.
 */
void damon_perf_fault_init(struct dentry *dir)
{
#ifdef CONFIG_FAULT_INJECTION_DEBUG_FS
	if (IS_ERR_OR_NULL(dir))
		return;
	fault_create_debugfs_attr("damon_perf_fail_percpu", dir,
				  &damon_perf_fail_percpu);
#endif
}
