// SPDX-License-Identifier: GPL-2.0
/*
 * damon_perf: hardware-sampled DAMON-style access monitoring.
 *
 * Module init brings the subsystems up in dependency order and unwinds in
 * reverse on failure and on exit.
 */
#include <linux/module.h>

#include "aux.h"
#include "ctx.h"
#include "debugfs.h"
#include "netlink.h"
#include "perf_source.h"
#include "probe.h"
#include "spe.h"
#include "stats.h"

static int __init damon_perf_init(void)
{
	int ret;

	ret = damon_perf_stats_init();
	if (ret)
		return ret;
	ret = damon_perf_debugfs_init();
	if (ret)
		goto err_debugfs;
	ret = damon_perf_source_init();
	if (ret)
		goto err_source;
	ret = damon_perf_aux_init();
	if (ret)
		goto err_aux;
	/* the AUX backends, into the registry of aux.c */
	ret = damon_perf_spe_init();
	if (ret)
		goto err_backends;
	ret = damon_perf_ctx_init();
	if (ret)
		goto err_ctx;
	ret = damon_perf_netlink_init();
	if (ret)
		goto err_netlink;
	pr_info("loaded\n");
	return 0;

err_netlink:
	damon_perf_ctx_exit();
err_ctx:
	/* before netlink is up no AUX event exists: plain reverse order */
	damon_perf_spe_exit();
err_backends:
	damon_perf_aux_exit();
err_aux:
	damon_perf_source_exit();
err_source:
	damon_perf_debugfs_exit();
err_debugfs:
	damon_perf_stats_exit();
	return ret;
}

static void __exit damon_perf_exit(void)
{
	damon_perf_netlink_exit();
	damon_perf_ctx_exit();
	/* the backends once no AUX event uses them */
	damon_perf_aux_exit();
	damon_perf_spe_exit();
	damon_perf_probes_exit();
	damon_perf_source_exit();
	damon_perf_debugfs_exit();
	damon_perf_stats_exit();
	pr_info("unloaded\n");
}

module_init(damon_perf_init);
module_exit(damon_perf_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Hardware-sampled DAMON-style memory access monitoring");
MODULE_VERSION(DAMON_PERF_VERSION);
