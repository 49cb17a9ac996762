// SPDX-License-Identifier: GPL-2.0
/*
 * Generic netlink family "damon_perf".
 */
#include <net/genetlink.h>
#include <linux/damon_perf.h>

#include "netlink.h"

static const struct genl_multicast_group damon_perf_mcgrps[] = {
	{ .name = DAMON_PERF_GENL_MCGRP_MONITOR, },
};

static struct genl_family damon_perf_family __ro_after_init = {
	.name = DAMON_PERF_GENL_NAME,
	.version = DAMON_PERF_GENL_VERSION,
	.module = THIS_MODULE,
	.mcgrps = damon_perf_mcgrps,
	.n_mcgrps = ARRAY_SIZE(damon_perf_mcgrps),
};

/**
 * damon_perf_netlink_notify() - Multicast one aggregation to "monitor".
 * @ctx:	the context that aggregated.
 * @snap:	its new snapshot.
 *
 * Context: process context (kdamond).
 */
void damon_perf_netlink_notify(struct damon_perf_ctx *ctx,
			       struct damon_perf_snapshot *snap)
{
}

/**
 * damon_perf_netlink_init() - Register the generic netlink family.
 *
 * Context: module init.
 * Return: 0 or a negative errno from genl_register_family().
 */
int __init damon_perf_netlink_init(void)
{
	return genl_register_family(&damon_perf_family);
}

/**
 * damon_perf_netlink_exit() - Unregister the family.
 *
 * Context: module exit.
 */
void damon_perf_netlink_exit(void)
{
	genl_unregister_family(&damon_perf_family);
}
