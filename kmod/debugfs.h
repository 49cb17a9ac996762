/* SPDX-License-Identifier: GPL-2.0 */
/*
 * debugfs: /sys/kernel/debug/damon_perf/perf_stats and ctx<id>/rings.
 * Formats: Documentation/perf_stats.rst.
 */
#ifndef _DAMON_PERF_DEBUGFS_H
#define _DAMON_PERF_DEBUGFS_H

#include <linux/dcache.h>

struct damon_perf_ctx;

extern struct dentry *damon_perf_debugfs_root;

int damon_perf_debugfs_init(void);
void damon_perf_debugfs_exit(void);

/*
 * Per-context files. _add after the context has its id, _del before it is
 * freed; either may be called with or without damon_perf_lock held.
 */
void damon_perf_debugfs_ctx_add(struct damon_perf_ctx *ctx);
void damon_perf_debugfs_ctx_del(struct damon_perf_ctx *ctx);

#endif
