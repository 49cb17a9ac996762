// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs: /sys/kernel/debug/damon_perf/
 */
#include <linux/debugfs.h>

#include "debugfs.h"

struct dentry *damon_perf_debugfs_root;

/**
 * damon_perf_debugfs_init() - Create /sys/kernel/debug/damon_perf.
 *
 * Context: module init.
 * Return: 0; a kernel without debugfs is not an error.
 */
int damon_perf_debugfs_init(void)
{
	damon_perf_debugfs_root = debugfs_create_dir("damon_perf", NULL);
	return 0;
}

/**
 * damon_perf_debugfs_exit() - Remove the debugfs directory and its files.
 *
 * Context: module exit.
 */
void damon_perf_debugfs_exit(void)
{
	debugfs_remove_recursive(damon_perf_debugfs_root);
	damon_perf_debugfs_root = NULL;
}
