/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _DAMON_PERF_NETLINK_H
#define _DAMON_PERF_NETLINK_H

struct damon_perf_ctx;
struct damon_perf_snapshot;

int damon_perf_netlink_init(void);
void damon_perf_netlink_exit(void);

/* One "monitor" multicast per aggregation (kdamond context). */
void damon_perf_netlink_notify(struct damon_perf_ctx *ctx,
			       struct damon_perf_snapshot *snap);

#endif
