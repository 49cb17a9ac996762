/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of the "damon_perf" generic netlink family share:
 * netlink.c (family, policies, doit handlers), netlink_dump.c (dumps) and
 * netlink_notify.c (AGGREGATION notifications and their subscribers).
 * Nothing outside these three files includes it.
 */
#ifndef _DAMON_PERF_NETLINK_INTERNAL_H
#define _DAMON_PERF_NETLINK_INTERNAL_H

#include <linux/init.h>
#include <net/genetlink.h>

/* the handlers and hooks the generated operations table names */
#include "netlink_gen.h"

struct damon_perf_ctx;
struct damon_perf_snap_region;
struct damon_perf_snapshot;
struct damon_perf_target;

extern struct genl_family damon_perf_family;

/* A u64 attribute, @pad the attribute set's padding type. */
static inline int put_u64(struct sk_buff *skb, int type, u64 value, int pad)
{
	return nla_put_u64_64bit(skb, type, value, pad);
}

/* netlink.c */
int damon_perf_nl_check_perm(struct sk_buff *skb,
			     struct netlink_ext_ack *extack);
struct damon_perf_ctx *damon_perf_nl_lookup(struct nlattr **attrs,
					    struct netlink_ext_ack *extack);
int damon_perf_nl_fill_target(struct sk_buff *skb,
			      const struct damon_perf_target *t);
int damon_perf_nl_fill_ctx(struct sk_buff *skb, struct damon_perf_ctx *ctx);

/* netlink_dump.c */
int damon_perf_nl_fill_snap(struct sk_buff *skb,
			    const struct damon_perf_snapshot *s);
int damon_perf_nl_fill_region(struct sk_buff *skb,
			      const struct damon_perf_snap_region *r);

/* netlink_notify.c */
int __init damon_perf_nl_notify_init(void);
void damon_perf_nl_notify_start(void);
void damon_perf_nl_notify_stop(void);
void damon_perf_nl_notify_exit(void);

#endif /* _DAMON_PERF_NETLINK_INTERNAL_H */
