// SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause)
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/damon_perf.yaml */
/* YNL-GEN kernel source */

#include <net/netlink.h>
#include <net/genetlink.h>

#include "netlink_gen.h"

#include <uapi/linux/damon_perf.h>

/* Integer value ranges */
static const struct netlink_range_validation damon_perf_attrs_a_sample_us_range = {
	.min	= DAMON_PERF_SAMPLE_US_MIN,
	.max	= DAMON_PERF_SAMPLE_US_MAX,
};

static const struct netlink_range_validation damon_perf_attrs_a_aggr_us_range = {
	.min	= DAMON_PERF_INTERVAL_US_MIN,
	.max	= DAMON_PERF_INTERVAL_US_MAX,
};

static const struct netlink_range_validation damon_perf_attrs_a_update_us_range = {
	.min	= DAMON_PERF_INTERVAL_US_MIN,
	.max	= DAMON_PERF_INTERVAL_US_MAX,
};

static const struct netlink_range_validation damon_perf_attrs_a_ring_size_range = {
	.min	= DAMON_PERF_RING_SIZE_MIN,
	.max	= DAMON_PERF_RING_SIZE_MAX,
};

static const struct netlink_range_validation damon_perf_attrs_a_samples_goal_range = {
	.max	= DAMON_PERF_SAMPLES_GOAL_MAX,
};

static const struct netlink_range_validation damon_perf_attrs_a_min_aggr_us_range = {
	.max	= DAMON_PERF_INTERVAL_US_MAX,
};

static const struct netlink_range_validation damon_perf_attrs_a_max_aggr_us_range = {
	.max	= DAMON_PERF_INTERVAL_US_MAX,
};

static const struct netlink_range_validation damon_perf_target_a_pid_range = {
	.min	= 1ULL,
	.max	= DAMON_PERF_PID_MAX,
};

static const struct netlink_range_validation damon_perf_probe_a_weight_range = {
	.min	= 1ULL,
	.max	= 65535ULL,
};

static const struct netlink_range_validation damon_perf_filter_a_tid_range = {
	.min	= 1ULL,
	.max	= DAMON_PERF_PID_MAX,
};

static const struct netlink_range_validation damon_perf_aux_a_pid_range = {
	.min	= 0ULL,
	.max	= DAMON_PERF_PID_MAX,
};

/* Common nested types */
const struct nla_policy damon_perf_attrs_nl_policy[DAMON_PERF_ATTRS_A_MAX_AGGR_US + 1] = {
	[DAMON_PERF_ATTRS_A_SAMPLE_US] = NLA_POLICY_FULL_RANGE(NLA_U64, &damon_perf_attrs_a_sample_us_range),
	[DAMON_PERF_ATTRS_A_AGGR_US] = NLA_POLICY_FULL_RANGE(NLA_U64, &damon_perf_attrs_a_aggr_us_range),
	[DAMON_PERF_ATTRS_A_UPDATE_US] = NLA_POLICY_FULL_RANGE(NLA_U64, &damon_perf_attrs_a_update_us_range),
	[DAMON_PERF_ATTRS_A_MIN_NR_REGIONS] = NLA_POLICY_RANGE(NLA_U32, DAMON_PERF_NR_REGIONS_MIN, DAMON_PERF_NR_REGIONS_MAX),
	[DAMON_PERF_ATTRS_A_MAX_NR_REGIONS] = NLA_POLICY_RANGE(NLA_U32, DAMON_PERF_NR_REGIONS_MIN, DAMON_PERF_NR_REGIONS_MAX),
	[DAMON_PERF_ATTRS_A_MODE] = NLA_POLICY_MAX(NLA_U32, 1),
	[DAMON_PERF_ATTRS_A_RING_SIZE] = NLA_POLICY_FULL_RANGE(NLA_U32, &damon_perf_attrs_a_ring_size_range),
	[DAMON_PERF_ATTRS_A_SPLIT] = NLA_POLICY_MAX(NLA_U32, 1),
	[DAMON_PERF_ATTRS_A_CPU_BUDGET] = NLA_POLICY_MAX(NLA_U32, DAMON_PERF_CPU_BUDGET_MAX),
	[DAMON_PERF_ATTRS_A_SAMPLES_GOAL] = NLA_POLICY_FULL_RANGE(NLA_U32, &damon_perf_attrs_a_samples_goal_range),
	[DAMON_PERF_ATTRS_A_GOAL_AGGRS] = NLA_POLICY_RANGE(NLA_U32, 1, DAMON_PERF_GOAL_AGGRS_MAX),
	[DAMON_PERF_ATTRS_A_MIN_AGGR_US] = NLA_POLICY_FULL_RANGE(NLA_U64, &damon_perf_attrs_a_min_aggr_us_range),
	[DAMON_PERF_ATTRS_A_MAX_AGGR_US] = NLA_POLICY_FULL_RANGE(NLA_U64, &damon_perf_attrs_a_max_aggr_us_range),
};

const struct nla_policy damon_perf_aux_nl_policy[DAMON_PERF_AUX_A_PROBE_IDX + 1] = {
	[DAMON_PERF_AUX_A_CPU] = { .type = NLA_U32, },
	[DAMON_PERF_AUX_A_FD] = NLA_POLICY_MIN(NLA_S32, 0),
	[DAMON_PERF_AUX_A_USER_PAGE] = { .type = NLA_U64, },
	[DAMON_PERF_AUX_A_AUX_ADDR] = { .type = NLA_U64, },
	[DAMON_PERF_AUX_A_AUX_SIZE] = NLA_POLICY_MIN(NLA_U64, 1),
	[DAMON_PERF_AUX_A_PID] = NLA_POLICY_FULL_RANGE(NLA_U32, &damon_perf_aux_a_pid_range),
	[DAMON_PERF_AUX_A_PROBE_IDX] = NLA_POLICY_RANGE(NLA_U8, 1, 3),
};

const struct nla_policy damon_perf_filter_nl_policy[DAMON_PERF_FILTER_A_TID + 1] = {
	[DAMON_PERF_FILTER_A_TYPE] = NLA_POLICY_MAX(NLA_U32, 2),
	[DAMON_PERF_FILTER_A_ALLOW] = { .type = NLA_FLAG, },
	[DAMON_PERF_FILTER_A_CPUS] = { .type = NLA_NUL_STRING, .len = 1023, },
	[DAMON_PERF_FILTER_A_TID] = NLA_POLICY_FULL_RANGE(NLA_U32, &damon_perf_filter_a_tid_range),
};

const struct nla_policy damon_perf_filters_nl_policy[DAMON_PERF_FILTERS_A_FILTER + 1] = {
	[DAMON_PERF_FILTERS_A_FILTER] = NLA_POLICY_NESTED(damon_perf_filter_nl_policy),
};

const struct nla_policy damon_perf_lru_nl_policy[DAMON_PERF_LRU_A_NR_SKIPPED + 1] = {
	[DAMON_PERF_LRU_A_START] = { .type = NLA_U64, },
	[DAMON_PERF_LRU_A_END] = { .type = NLA_U64, },
	[DAMON_PERF_LRU_A_NR_TRIED] = { .type = NLA_U64, },
	[DAMON_PERF_LRU_A_NR_APPLIED] = { .type = NLA_U64, },
	[DAMON_PERF_LRU_A_NR_SKIPPED] = { .type = NLA_U64, },
};

const struct nla_policy damon_perf_probe_nl_policy[DAMON_PERF_PROBE_A_EFFECTIVE_PERIOD + 1] = {
	[DAMON_PERF_PROBE_A_IDX] = { .type = NLA_U32, },
	[DAMON_PERF_PROBE_A_TYPE] = { .type = NLA_U32, },
	[DAMON_PERF_PROBE_A_CONFIG] = { .type = NLA_U64, },
	[DAMON_PERF_PROBE_A_CONFIG1] = { .type = NLA_U64, },
	[DAMON_PERF_PROBE_A_CONFIG2] = { .type = NLA_U64, },
	[DAMON_PERF_PROBE_A_SAMPLE_PERIOD] = NLA_POLICY_MIN(NLA_U64, 1),
	[DAMON_PERF_PROBE_A_FREQ] = { .type = NLA_FLAG, },
	[DAMON_PERF_PROBE_A_WAKEUP_EVENTS] = { .type = NLA_U32, },
	[DAMON_PERF_PROBE_A_WEIGHT] = NLA_POLICY_FULL_RANGE(NLA_U32, &damon_perf_probe_a_weight_range),
	[DAMON_PERF_PROBE_A_PRECISE_IP] = NLA_POLICY_MAX(NLA_U8, 3),
	[DAMON_PERF_PROBE_A_SAMPLE_PHYS_ADDR] = { .type = NLA_FLAG, },
	[DAMON_PERF_PROBE_A_SAMPLE_WEIGHT_STRUCT] = { .type = NLA_FLAG, },
	[DAMON_PERF_PROBE_A_EXCLUDE_KERNEL] = { .type = NLA_FLAG, },
	[DAMON_PERF_PROBE_A_EXCLUDE_HV] = { .type = NLA_FLAG, },
	[DAMON_PERF_PROBE_A_EXCLUDE_USER] = { .type = NLA_FLAG, },
	[DAMON_PERF_PROBE_A_EFFECTIVE_PERIOD] = { .type = NLA_U64, },
};

const struct nla_policy damon_perf_target_nl_policy[DAMON_PERF_TARGET_A_NR_REGIONS + 1] = {
	[DAMON_PERF_TARGET_A_ID] = { .type = NLA_U32, },
	[DAMON_PERF_TARGET_A_PID] = NLA_POLICY_FULL_RANGE(NLA_U32, &damon_perf_target_a_pid_range),
	[DAMON_PERF_TARGET_A_START] = { .type = NLA_U64, },
	[DAMON_PERF_TARGET_A_END] = NLA_POLICY_MIN(NLA_U64, 1),
	[DAMON_PERF_TARGET_A_DEAD] = { .type = NLA_FLAG, },
	[DAMON_PERF_TARGET_A_NR_REGIONS] = { .type = NLA_U32, },
};

/* DAMON_PERF_CMD_CTX_NEW - do */
static const struct nla_policy damon_perf_ctx_new_nl_policy[DAMON_PERF_A_CTX_OPS + 1] = {
	[DAMON_PERF_A_CTX_NAME] = { .type = NLA_NUL_STRING, .len = 31, },
	[DAMON_PERF_A_CTX_OPS] = NLA_POLICY_MAX(NLA_U32, 1),
};

/* DAMON_PERF_CMD_CTX_DEL - do */
static const struct nla_policy damon_perf_ctx_del_nl_policy[DAMON_PERF_A_CTX_NAME + 1] = {
	[DAMON_PERF_A_CTX_ID] = NLA_POLICY_MIN(NLA_U32, 1),
	[DAMON_PERF_A_CTX_NAME] = { .type = NLA_NUL_STRING, .len = 31, },
};

/* DAMON_PERF_CMD_CTX_GET - do */
static const struct nla_policy damon_perf_ctx_get_do_nl_policy[DAMON_PERF_A_CTX_NAME + 1] = {
	[DAMON_PERF_A_CTX_ID] = NLA_POLICY_MIN(NLA_U32, 1),
	[DAMON_PERF_A_CTX_NAME] = { .type = NLA_NUL_STRING, .len = 31, },
};

/* DAMON_PERF_CMD_CTX_GET - dump */
static const struct nla_policy damon_perf_ctx_get_dump_nl_policy[DAMON_PERF_A_CTX_NAME + 1] = {
	[DAMON_PERF_A_CTX_ID] = NLA_POLICY_MIN(NLA_U32, 1),
	[DAMON_PERF_A_CTX_NAME] = { .type = NLA_NUL_STRING, .len = 31, },
};

/* DAMON_PERF_CMD_SET_ATTRS - do */
static const struct nla_policy damon_perf_set_attrs_nl_policy[DAMON_PERF_A_ATTRS + 1] = {
	[DAMON_PERF_A_CTX_ID] = NLA_POLICY_MIN(NLA_U32, 1),
	[DAMON_PERF_A_CTX_NAME] = { .type = NLA_NUL_STRING, .len = 31, },
	[DAMON_PERF_A_ATTRS] = NLA_POLICY_NESTED(damon_perf_attrs_nl_policy),
};

/* DAMON_PERF_CMD_TARGET_ADD - do */
static const struct nla_policy damon_perf_target_add_nl_policy[DAMON_PERF_A_TARGET + 1] = {
	[DAMON_PERF_A_CTX_ID] = NLA_POLICY_MIN(NLA_U32, 1),
	[DAMON_PERF_A_CTX_NAME] = { .type = NLA_NUL_STRING, .len = 31, },
	[DAMON_PERF_A_TARGET] = NLA_POLICY_NESTED(damon_perf_target_nl_policy),
};

/* DAMON_PERF_CMD_TARGET_DEL - do */
static const struct nla_policy damon_perf_target_del_nl_policy[DAMON_PERF_A_TARGET_ID + 1] = {
	[DAMON_PERF_A_CTX_ID] = NLA_POLICY_MIN(NLA_U32, 1),
	[DAMON_PERF_A_CTX_NAME] = { .type = NLA_NUL_STRING, .len = 31, },
	[DAMON_PERF_A_TARGET_ID] = NLA_POLICY_MIN(NLA_U32, 1),
};

/* DAMON_PERF_CMD_PROBE_ADD - do */
static const struct nla_policy damon_perf_probe_add_nl_policy[DAMON_PERF_A_PROBE + 1] = {
	[DAMON_PERF_A_CTX_ID] = NLA_POLICY_MIN(NLA_U32, 1),
	[DAMON_PERF_A_CTX_NAME] = { .type = NLA_NUL_STRING, .len = 31, },
	[DAMON_PERF_A_PROBE] = NLA_POLICY_NESTED(damon_perf_probe_nl_policy),
};

/* DAMON_PERF_CMD_PROBE_DEL - do */
static const struct nla_policy damon_perf_probe_del_nl_policy[DAMON_PERF_A_PROBE_IDX + 1] = {
	[DAMON_PERF_A_CTX_ID] = NLA_POLICY_MIN(NLA_U32, 1),
	[DAMON_PERF_A_CTX_NAME] = { .type = NLA_NUL_STRING, .len = 31, },
	[DAMON_PERF_A_PROBE_IDX] = NLA_POLICY_RANGE(NLA_U32, 1, 3),
};

/* DAMON_PERF_CMD_SET_FILTERS - do */
static const struct nla_policy damon_perf_set_filters_nl_policy[DAMON_PERF_A_FILTERS + 1] = {
	[DAMON_PERF_A_CTX_ID] = NLA_POLICY_MIN(NLA_U32, 1),
	[DAMON_PERF_A_CTX_NAME] = { .type = NLA_NUL_STRING, .len = 31, },
	[DAMON_PERF_A_FILTERS] = NLA_POLICY_NESTED(damon_perf_filters_nl_policy),
};

/* DAMON_PERF_CMD_START - do */
static const struct nla_policy damon_perf_start_nl_policy[DAMON_PERF_A_CTX_NAME + 1] = {
	[DAMON_PERF_A_CTX_ID] = NLA_POLICY_MIN(NLA_U32, 1),
	[DAMON_PERF_A_CTX_NAME] = { .type = NLA_NUL_STRING, .len = 31, },
};

/* DAMON_PERF_CMD_STOP - do */
static const struct nla_policy damon_perf_stop_nl_policy[DAMON_PERF_A_CTX_NAME + 1] = {
	[DAMON_PERF_A_CTX_ID] = NLA_POLICY_MIN(NLA_U32, 1),
	[DAMON_PERF_A_CTX_NAME] = { .type = NLA_NUL_STRING, .len = 31, },
};

/* DAMON_PERF_CMD_SNAPSHOT_GET - dump */
static const struct nla_policy damon_perf_snapshot_get_nl_policy[DAMON_PERF_A_CTX_NAME + 1] = {
	[DAMON_PERF_A_CTX_ID] = NLA_POLICY_MIN(NLA_U32, 1),
	[DAMON_PERF_A_CTX_NAME] = { .type = NLA_NUL_STRING, .len = 31, },
};

/* DAMON_PERF_CMD_STATS_GET - dump */
static const struct nla_policy damon_perf_stats_get_nl_policy[DAMON_PERF_A_PAD + 1] = {
};

/* DAMON_PERF_CMD_MONITOR_SUBSCRIBE - do */
static const struct nla_policy damon_perf_monitor_subscribe_nl_policy[DAMON_PERF_A_PAD + 1] = {
};

/* DAMON_PERF_CMD_MONITOR_UNSUBSCRIBE - do */
static const struct nla_policy damon_perf_monitor_unsubscribe_nl_policy[DAMON_PERF_A_PAD + 1] = {
};

/* DAMON_PERF_CMD_AUX_ATTACH - do */
static const struct nla_policy damon_perf_aux_attach_nl_policy[DAMON_PERF_A_AUX + 1] = {
	[DAMON_PERF_A_CTX_ID] = NLA_POLICY_MIN(NLA_U32, 1),
	[DAMON_PERF_A_CTX_NAME] = { .type = NLA_NUL_STRING, .len = 31, },
	[DAMON_PERF_A_AUX] = NLA_POLICY_NESTED(damon_perf_aux_nl_policy),
};

/* DAMON_PERF_CMD_LRU_PRIO - do */
static const struct nla_policy damon_perf_lru_prio_nl_policy[DAMON_PERF_A_LRU + 1] = {
	[DAMON_PERF_A_CTX_ID] = NLA_POLICY_MIN(NLA_U32, 1),
	[DAMON_PERF_A_CTX_NAME] = { .type = NLA_NUL_STRING, .len = 31, },
	[DAMON_PERF_A_LRU] = NLA_POLICY_NESTED(damon_perf_lru_nl_policy),
};

/* Ops table for damon_perf */
const struct genl_split_ops damon_perf_nl_ops[18] = {
	{
		.cmd		= DAMON_PERF_CMD_CTX_NEW,
		.pre_doit	= damon_perf_nl_pre_doit,
		.doit		= damon_perf_nl_ctx_new_doit,
		.post_doit	= damon_perf_nl_post_doit,
		.policy		= damon_perf_ctx_new_nl_policy,
		.maxattr	= DAMON_PERF_A_CTX_OPS,
		.flags		= GENL_CMD_CAP_DO,
	},
	{
		.cmd		= DAMON_PERF_CMD_CTX_DEL,
		.pre_doit	= damon_perf_nl_pre_doit,
		.doit		= damon_perf_nl_ctx_del_doit,
		.post_doit	= damon_perf_nl_post_doit,
		.policy		= damon_perf_ctx_del_nl_policy,
		.maxattr	= DAMON_PERF_A_CTX_NAME,
		.flags		= GENL_CMD_CAP_DO,
	},
	{
		.cmd		= DAMON_PERF_CMD_CTX_GET,
		.pre_doit	= damon_perf_nl_pre_doit,
		.doit		= damon_perf_nl_ctx_get_doit,
		.post_doit	= damon_perf_nl_post_doit,
		.policy		= damon_perf_ctx_get_do_nl_policy,
		.maxattr	= DAMON_PERF_A_CTX_NAME,
		.flags		= GENL_CMD_CAP_DO,
	},
	{
		.cmd		= DAMON_PERF_CMD_CTX_GET,
		.dumpit		= damon_perf_nl_ctx_get_dumpit,
		.done		= damon_perf_nl_ctx_get_done,
		.policy		= damon_perf_ctx_get_dump_nl_policy,
		.maxattr	= DAMON_PERF_A_CTX_NAME,
		.flags		= GENL_CMD_CAP_DUMP,
	},
	{
		.cmd		= DAMON_PERF_CMD_SET_ATTRS,
		.pre_doit	= damon_perf_nl_pre_doit,
		.doit		= damon_perf_nl_set_attrs_doit,
		.post_doit	= damon_perf_nl_post_doit,
		.policy		= damon_perf_set_attrs_nl_policy,
		.maxattr	= DAMON_PERF_A_ATTRS,
		.flags		= GENL_CMD_CAP_DO,
	},
	{
		.cmd		= DAMON_PERF_CMD_TARGET_ADD,
		.pre_doit	= damon_perf_nl_pre_doit,
		.doit		= damon_perf_nl_target_add_doit,
		.post_doit	= damon_perf_nl_post_doit,
		.policy		= damon_perf_target_add_nl_policy,
		.maxattr	= DAMON_PERF_A_TARGET,
		.flags		= GENL_CMD_CAP_DO,
	},
	{
		.cmd		= DAMON_PERF_CMD_TARGET_DEL,
		.pre_doit	= damon_perf_nl_pre_doit,
		.doit		= damon_perf_nl_target_del_doit,
		.post_doit	= damon_perf_nl_post_doit,
		.policy		= damon_perf_target_del_nl_policy,
		.maxattr	= DAMON_PERF_A_TARGET_ID,
		.flags		= GENL_CMD_CAP_DO,
	},
	{
		.cmd		= DAMON_PERF_CMD_PROBE_ADD,
		.pre_doit	= damon_perf_nl_pre_doit,
		.doit		= damon_perf_nl_probe_add_doit,
		.post_doit	= damon_perf_nl_post_doit,
		.policy		= damon_perf_probe_add_nl_policy,
		.maxattr	= DAMON_PERF_A_PROBE,
		.flags		= GENL_CMD_CAP_DO,
	},
	{
		.cmd		= DAMON_PERF_CMD_PROBE_DEL,
		.pre_doit	= damon_perf_nl_pre_doit,
		.doit		= damon_perf_nl_probe_del_doit,
		.post_doit	= damon_perf_nl_post_doit,
		.policy		= damon_perf_probe_del_nl_policy,
		.maxattr	= DAMON_PERF_A_PROBE_IDX,
		.flags		= GENL_CMD_CAP_DO,
	},
	{
		.cmd		= DAMON_PERF_CMD_SET_FILTERS,
		.pre_doit	= damon_perf_nl_pre_doit,
		.doit		= damon_perf_nl_set_filters_doit,
		.post_doit	= damon_perf_nl_post_doit,
		.policy		= damon_perf_set_filters_nl_policy,
		.maxattr	= DAMON_PERF_A_FILTERS,
		.flags		= GENL_CMD_CAP_DO,
	},
	{
		.cmd		= DAMON_PERF_CMD_START,
		.pre_doit	= damon_perf_nl_pre_doit,
		.doit		= damon_perf_nl_start_doit,
		.post_doit	= damon_perf_nl_post_doit,
		.policy		= damon_perf_start_nl_policy,
		.maxattr	= DAMON_PERF_A_CTX_NAME,
		.flags		= GENL_CMD_CAP_DO,
	},
	{
		.cmd		= DAMON_PERF_CMD_STOP,
		.pre_doit	= damon_perf_nl_pre_doit,
		.doit		= damon_perf_nl_stop_doit,
		.post_doit	= damon_perf_nl_post_doit,
		.policy		= damon_perf_stop_nl_policy,
		.maxattr	= DAMON_PERF_A_CTX_NAME,
		.flags		= GENL_CMD_CAP_DO,
	},
	{
		.cmd		= DAMON_PERF_CMD_SNAPSHOT_GET,
		.dumpit		= damon_perf_nl_snapshot_get_dumpit,
		.done		= damon_perf_nl_snapshot_done,
		.policy		= damon_perf_snapshot_get_nl_policy,
		.maxattr	= DAMON_PERF_A_CTX_NAME,
		.flags		= GENL_CMD_CAP_DUMP,
	},
	{
		.cmd		= DAMON_PERF_CMD_STATS_GET,
		.dumpit		= damon_perf_nl_stats_get_dumpit,
		.policy		= damon_perf_stats_get_nl_policy,
		.maxattr	= DAMON_PERF_A_PAD,
		.flags		= GENL_CMD_CAP_DUMP,
	},
	{
		.cmd		= DAMON_PERF_CMD_MONITOR_SUBSCRIBE,
		.pre_doit	= damon_perf_nl_pre_doit,
		.doit		= damon_perf_nl_monitor_subscribe_doit,
		.post_doit	= damon_perf_nl_post_doit,
		.policy		= damon_perf_monitor_subscribe_nl_policy,
		.maxattr	= DAMON_PERF_A_PAD,
		.flags		= GENL_CMD_CAP_DO,
	},
	{
		.cmd		= DAMON_PERF_CMD_MONITOR_UNSUBSCRIBE,
		.pre_doit	= damon_perf_nl_pre_doit,
		.doit		= damon_perf_nl_monitor_unsubscribe_doit,
		.post_doit	= damon_perf_nl_post_doit,
		.policy		= damon_perf_monitor_unsubscribe_nl_policy,
		.maxattr	= DAMON_PERF_A_PAD,
		.flags		= GENL_CMD_CAP_DO,
	},
	{
		.cmd		= DAMON_PERF_CMD_AUX_ATTACH,
		.pre_doit	= damon_perf_nl_pre_doit,
		.doit		= damon_perf_nl_aux_attach_doit,
		.post_doit	= damon_perf_nl_post_doit,
		.policy		= damon_perf_aux_attach_nl_policy,
		.maxattr	= DAMON_PERF_A_AUX,
		.flags		= GENL_CMD_CAP_DO,
	},
	{
		.cmd		= DAMON_PERF_CMD_LRU_PRIO,
		.pre_doit	= damon_perf_nl_pre_doit,
		.doit		= damon_perf_nl_lru_prio_doit,
		.post_doit	= damon_perf_nl_post_doit,
		.policy		= damon_perf_lru_prio_nl_policy,
		.maxattr	= DAMON_PERF_A_LRU,
		.flags		= GENL_CMD_CAP_DO,
	},
};

static const struct genl_multicast_group damon_perf_nl_mcgrps[] = {
	[DAMON_PERF_NLGRP_MONITOR] = { "monitor", },
};
