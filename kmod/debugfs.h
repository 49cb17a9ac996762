/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _DAMON_PERF_DEBUGFS_H
#define _DAMON_PERF_DEBUGFS_H

#include <linux/dcache.h>

extern struct dentry *damon_perf_debugfs_root;

int damon_perf_debugfs_init(void);
void damon_perf_debugfs_exit(void);

#endif
