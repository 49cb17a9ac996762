/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of the "damon_perf" generic netlink family share:
 * netlink.c (family, doit handlers), netlink_dump.c (dumps),
 * netlink_notify.c (AGGREGATION notifications and their subscribers) and,
 * below the three, netlink_msg.c (permission check, context lookup and
 * the message builders they all use). Nothing outside these files
 * includes it.
 */
#ifndef _DAMON_PERF_NETLINK_INTERNAL_H
#define _DAMON_PERF_NETLINK_INTERNAL_H

#include <linux/init.h>
#include <net/genetlink.h>

/* the handlers and hooks the generated operations table names */
#include "netlink_gen.h"

struct damon_perf_attrs;
struct damon_perf_ctx;
struct damon_perf_snap_region;
struct damon_perf_snapshot;
struct damon_perf_stats;
struct damon_perf_target;

/* A u64 attribute, @pad the attribute set's padding type. */
static inline int put_u64(struct sk_buff *skb, int type, u64 value, int pad)
{
	return nla_put_u64_64bit(skb, type, value, pad);
}

/* netlink.c */
extern struct genl_family damon_perf_family;

/* netlink_msg.c: requests and message builders */
int damon_perf_nl_check_perm(struct sk_buff *skb,
			     struct netlink_ext_ack *extack);
bool damon_perf_nl_admin(struct sk_buff *skb);
struct damon_perf_ctx *damon_perf_nl_lookup(struct sk_buff *skb,
					    struct nlattr **attrs,
					    struct netlink_ext_ack *extack);
void damon_perf_nl_current_attrs(struct damon_perf_ctx *ctx,
				 struct damon_perf_attrs *a);
int damon_perf_nl_fill_target(struct sk_buff *skb,
			      const struct damon_perf_target *t);
int damon_perf_nl_fill_ctx(struct sk_buff *skb, struct damon_perf_ctx *ctx);
int damon_perf_nl_fill_snap(struct sk_buff *skb,
			    const struct damon_perf_snapshot *s);
int damon_perf_nl_fill_region(struct sk_buff *skb,
			      const struct damon_perf_snap_region *r);
int damon_perf_nl_fill_stats(struct sk_buff *skb,
			     const struct damon_perf_stats *st, int cpu);

/* netlink_notify.c */
int __init damon_perf_nl_notify_init(void);
void damon_perf_nl_notify_start(void);
void damon_perf_nl_notify_stop(void);
void damon_perf_nl_notify_exit(void);

#endif /* _DAMON_PERF_NETLINK_INTERNAL_H */
