/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/damon_perf.yaml */
/* YNL-GEN kernel header */

#ifndef _LINUX_DAMON_PERF_GEN_H
#define _LINUX_DAMON_PERF_GEN_H

#include <net/netlink.h>
#include <net/genetlink.h>

#include <uapi/linux/damon_perf.h>

/* Common nested types */
extern const struct nla_policy damon_perf_attrs_nl_policy[DAMON_PERF_ATTRS_A_MAX_AGGR_US + 1];
extern const struct nla_policy damon_perf_aux_nl_policy[DAMON_PERF_AUX_A_PROBE_IDX + 1];
extern const struct nla_policy damon_perf_filter_nl_policy[DAMON_PERF_FILTER_A_TID + 1];
extern const struct nla_policy damon_perf_filters_nl_policy[DAMON_PERF_FILTERS_A_FILTER + 1];
extern const struct nla_policy damon_perf_lru_nl_policy[DAMON_PERF_LRU_A_NR_SKIPPED + 1];
extern const struct nla_policy damon_perf_probe_nl_policy[DAMON_PERF_PROBE_A_EFFECTIVE_PERIOD + 1];
extern const struct nla_policy damon_perf_target_nl_policy[DAMON_PERF_TARGET_A_NR_REGIONS + 1];

/* Ops table for damon_perf */
extern const struct genl_split_ops damon_perf_nl_ops[18];

int damon_perf_nl_pre_doit(const struct genl_split_ops *ops,
			   struct sk_buff *skb, struct genl_info *info);
void
damon_perf_nl_post_doit(const struct genl_split_ops *ops, struct sk_buff *skb,
			struct genl_info *info);
int damon_perf_nl_ctx_get_done(struct netlink_callback *cb);
int damon_perf_nl_snapshot_done(struct netlink_callback *cb);

int damon_perf_nl_ctx_new_doit(struct sk_buff *skb, struct genl_info *info);
int damon_perf_nl_ctx_del_doit(struct sk_buff *skb, struct genl_info *info);
int damon_perf_nl_ctx_get_doit(struct sk_buff *skb, struct genl_info *info);
int damon_perf_nl_ctx_get_dumpit(struct sk_buff *skb,
				 struct netlink_callback *cb);
int damon_perf_nl_set_attrs_doit(struct sk_buff *skb, struct genl_info *info);
int damon_perf_nl_target_add_doit(struct sk_buff *skb, struct genl_info *info);
int damon_perf_nl_target_del_doit(struct sk_buff *skb, struct genl_info *info);
int damon_perf_nl_probe_add_doit(struct sk_buff *skb, struct genl_info *info);
int damon_perf_nl_probe_del_doit(struct sk_buff *skb, struct genl_info *info);
int damon_perf_nl_set_filters_doit(struct sk_buff *skb, struct genl_info *info);
int damon_perf_nl_start_doit(struct sk_buff *skb, struct genl_info *info);
int damon_perf_nl_stop_doit(struct sk_buff *skb, struct genl_info *info);
int damon_perf_nl_snapshot_get_dumpit(struct sk_buff *skb,
				      struct netlink_callback *cb);
int damon_perf_nl_stats_get_dumpit(struct sk_buff *skb,
				   struct netlink_callback *cb);
int damon_perf_nl_monitor_subscribe_doit(struct sk_buff *skb,
					 struct genl_info *info);
int damon_perf_nl_monitor_unsubscribe_doit(struct sk_buff *skb,
					   struct genl_info *info);
int damon_perf_nl_aux_attach_doit(struct sk_buff *skb, struct genl_info *info);
int damon_perf_nl_lru_prio_doit(struct sk_buff *skb, struct genl_info *info);

enum {
	DAMON_PERF_NLGRP_MONITOR,
};

#endif /* _LINUX_DAMON_PERF_GEN_H */
