/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * damon_perf: generic netlink interface.
 *
 * Family DAMON_PERF_GENL_NAME, version DAMON_PERF_GENL_VERSION, initial
 * network namespace only. Every command needs CAP_SYS_ADMIN or
 * CAP_PERFMON. Validation is strict for every command: unknown attributes,
 * wrong lengths, out-of-range values and a non-zero genlmsghdr.reserved are
 * rejected with an extack message. Enums below only ever grow at their end.
 *
 * Attribute tree (request = what a command accepts, reply = what the kernel
 * sends back; "rep" = the attribute may repeat):
 *
 *  DAMON_PERF_A_CTX_ID          u32, >= 1          context id
 *  DAMON_PERF_A_CTX_NAME        NUL string, 1..31 bytes
 *  DAMON_PERF_A_CTX_OPS         u32, enum damon_perf_ops
 *  DAMON_PERF_A_CTX_STATE       u32, enum damon_perf_ctx_state (reply)
 *  DAMON_PERF_A_ATTRS           nest
 *    DAMON_PERF_ATTRS_A_SAMPLE_US       u64, DAMON_PERF_SAMPLE_US_MIN ..
 *                                       DAMON_PERF_SAMPLE_US_MAX
 *    DAMON_PERF_ATTRS_A_AGGR_US         u64, DAMON_PERF_INTERVAL_US_MIN ..
 *                                       DAMON_PERF_INTERVAL_US_MAX
 *    DAMON_PERF_ATTRS_A_UPDATE_US       u64, as AGGR_US
 *    DAMON_PERF_ATTRS_A_MIN_NR_REGIONS  u32, DAMON_PERF_NR_REGIONS_MIN ..
 *                                       DAMON_PERF_NR_REGIONS_MAX
 *    DAMON_PERF_ATTRS_A_MAX_NR_REGIONS  u32, as MIN_NR_REGIONS
 *    DAMON_PERF_ATTRS_A_MODE            u32, enum damon_perf_access_mode
 *    DAMON_PERF_ATTRS_A_RING_SIZE       u32, DAMON_PERF_RING_SIZE_MIN ..
 *                                       DAMON_PERF_RING_SIZE_MAX, a power
 *                                       of two
 *    DAMON_PERF_ATTRS_A_SPLIT           u32, enum damon_perf_split_mode
 *    DAMON_PERF_ATTRS_A_CPU_BUDGET      u32, 0 .. DAMON_PERF_CPU_BUDGET_MAX,
 *                                       in 1/DAMON_PERF_CPU_BUDGET_SCALE
 *                                       percent of one CPU; 0 = no budget
 *  DAMON_PERF_A_TARGET          nest, rep in replies
 *    DAMON_PERF_TARGET_A_ID             u32 (reply)
 *    DAMON_PERF_TARGET_A_PID            u32, 1 .. DAMON_PERF_PID_MAX (vaddr
 *                                       contexts)
 *    DAMON_PERF_TARGET_A_START          u64 (paddr contexts)
 *    DAMON_PERF_TARGET_A_END            u64, > START (paddr contexts)
 *    DAMON_PERF_TARGET_A_DEAD           flag (reply: the process exited)
 *    DAMON_PERF_TARGET_A_NR_REGIONS     u32 (reply)
 *  DAMON_PERF_A_TARGET_ID       u32, >= 1          (TARGET_DEL)
 *  DAMON_PERF_A_PROBE           nest, rep in replies; fields of
 *                               struct perf_event_attr
 *    DAMON_PERF_PROBE_A_IDX             u32 (reply)
 *    DAMON_PERF_PROBE_A_TYPE            u32 (required)
 *    DAMON_PERF_PROBE_A_CONFIG          u64
 *    DAMON_PERF_PROBE_A_CONFIG1         u64
 *    DAMON_PERF_PROBE_A_CONFIG2         u64
 *    DAMON_PERF_PROBE_A_SAMPLE_PERIOD   u64, 1 .. 2^48 (required); a
 *                                       frequency in Hz, 1 .. 100000,
 *                                       when FREQ
 *    DAMON_PERF_PROBE_A_FREQ            flag
 *    DAMON_PERF_PROBE_A_WAKEUP_EVENTS   u32
 *    DAMON_PERF_PROBE_A_WEIGHT          u32, 1 .. 65535 (default 1)
 *    DAMON_PERF_PROBE_A_PRECISE_IP      u8, 0 .. 3
 *    DAMON_PERF_PROBE_A_SAMPLE_PHYS_ADDR     flag
 *    DAMON_PERF_PROBE_A_SAMPLE_WEIGHT_STRUCT flag
 *    DAMON_PERF_PROBE_A_EXCLUDE_KERNEL  flag
 *    DAMON_PERF_PROBE_A_EXCLUDE_HV      flag
 *    DAMON_PERF_PROBE_A_EXCLUDE_USER    flag
 *    DAMON_PERF_PROBE_A_EFFECTIVE_PERIOD u64 (reply, running fixed-period
 *                                       probes): the period in force,
 *                                       raised by the CPU budget
 *  DAMON_PERF_A_PROBE_IDX       u32, 1 .. 3        (PROBE_DEL; PROBE_ADD reply)
 *  DAMON_PERF_A_FILTERS         nest (an empty nest clears the filters)
 *    DAMON_PERF_FILTERS_A_FILTER        nest, rep, at most 8
 *      DAMON_PERF_FILTER_A_TYPE         u32, enum damon_perf_filter_type
 *      DAMON_PERF_FILTER_A_ALLOW        flag (absent: reject what matches)
 *      DAMON_PERF_FILTER_A_CPUS         NUL string, cpu list "0-3,8",
 *                                       1..1023 bytes (cpumask filters)
 *      DAMON_PERF_FILTER_A_TID          u32, 1 .. DAMON_PERF_PID_MAX, rep,
 *                                       at most 16
 *                                       (tid filters)
 *  DAMON_PERF_A_ARM_FAILURES    u32 (reply)
 *  DAMON_PERF_A_STALE_DROPS     u64 (reply)
 *  DAMON_PERF_A_SNAPSHOT        nest (reply)
 *    DAMON_PERF_SNAP_A_SEQ              u64, aggregation number from 1
 *    DAMON_PERF_SNAP_A_TIME_NS          u64, CLOCK_MONOTONIC
 *    DAMON_PERF_SNAP_A_AGGR_US          u64, interval it covers
 *    DAMON_PERF_SNAP_A_NR_REGIONS       u32
 *  DAMON_PERF_A_REGION          nest, rep (reply)
 *    DAMON_PERF_REGION_A_TARGET_ID      u32
 *    DAMON_PERF_REGION_A_START          u64
 *    DAMON_PERF_REGION_A_END            u64
 *    DAMON_PERF_REGION_A_NR_ACCESSES    u32
 *    DAMON_PERF_REGION_A_AGE            u32
 *    DAMON_PERF_REGION_A_RATE           u64, estimated accesses per second
 *    DAMON_PERF_REGION_A_PROBE_HITS     nest: u64 per probe, attribute
 *                                       type = probe index (1 .. 3)
 *  DAMON_PERF_A_TRUNCATED       flag (AGGREGATION: regions did not fit)
 *  DAMON_PERF_A_STATS           nest (reply), one per CPU and one total
 *    DAMON_PERF_STATS_A_CPU             u32 (absent in the total row)
 *    DAMON_PERF_STATS_A_TOTAL           flag (the total row)
 *    DAMON_PERF_STATS_A_STATE           u32, per-CPU event state
 *    DAMON_PERF_STATS_A_STATE_NAME      NUL string
 *    DAMON_PERF_STATS_A_COUNTER         nest, rep, one per counter
 *      DAMON_PERF_COUNTER_A_NAME        NUL string (as in perf_stats)
 *      DAMON_PERF_COUNTER_A_VALUE       u64
 *  DAMON_PERF_A_AUX             nest (AUX_ATTACH), every field required
 *    DAMON_PERF_AUX_A_CPU               u32, CPU of the perf event
 *    DAMON_PERF_AUX_A_FD                s32, >= 0, perf event fd of the
 *                                       sender
 *    DAMON_PERF_AUX_A_USER_PAGE         u64, address of its first page
 *    DAMON_PERF_AUX_A_AUX_ADDR          u64, address of its AUX area
 *    DAMON_PERF_AUX_A_AUX_SIZE          u64, >= 1, size of the AUX area
 *    DAMON_PERF_AUX_A_PID               u32, tgid the event is bound to,
 *                                       0 for CPU-wide
 *    DAMON_PERF_AUX_A_PROBE_IDX         u8, 1 .. 3
 *  DAMON_PERF_A_BUDGET          nest (reply, CTX_GET of a running or
 *                               stopped context): the CPU budget's view
 *    DAMON_PERF_BUDGET_A_COST           u32, cost measured at the last
 *                                       aggregation, in millionths of one
 *                                       CPU (DAMON_PERF_CPU_COST_SCALE)
 *    DAMON_PERF_BUDGET_A_HANDLER_NS     u64, overflow handler time since
 *                                       start (all probes, all CPUs)
 *    DAMON_PERF_BUDGET_A_DRAIN_NS       u64, kdamond drain and aggregation
 *                                       time since start
 *    DAMON_PERF_BUDGET_A_RAISES         u64, steps that raised the period
 *    DAMON_PERF_BUDGET_A_LOWERS         u64, steps that lowered it
 *
 * Commands (doit unless noted):
 *  CTX_NEW       CTX_NAME, CTX_OPS (default vaddr) -> reply as CTX_GET
 *  CTX_DEL       CTX_ID | CTX_NAME
 *  CTX_GET       CTX_ID | CTX_NAME -> CTX_ID, CTX_NAME, CTX_OPS, CTX_STATE,
 *                ATTRS, TARGET (rep), PROBE (rep), FILTERS, ARM_FAILURES,
 *                STALE_DROPS, BUDGET; dump without attributes: one per
 *                context
 *  SET_ATTRS     CTX_ID | CTX_NAME, ATTRS (fields absent stay unchanged;
 *                only the intervals, the access mode and the CPU budget
 *                may change while running)
 *  TARGET_ADD    CTX_ID | CTX_NAME, TARGET (PID, or START and END)
 *  TARGET_DEL    CTX_ID | CTX_NAME, TARGET_ID
 *  PROBE_ADD     CTX_ID | CTX_NAME, PROBE -> PROBE_IDX
 *  PROBE_DEL     CTX_ID | CTX_NAME, PROBE_IDX
 *  SET_FILTERS   CTX_ID | CTX_NAME, FILTERS (replaces every filter)
 *  START, STOP   CTX_ID | CTX_NAME
 *  SNAPSHOT_GET  dump; CTX_ID | CTX_NAME -> first message: CTX_ID,
 *                SNAPSHOT, TARGET (rep); then REGION (rep) over as many
 *                messages as needed. No message when nothing aggregated yet.
 *  STATS_GET     dump -> one STATS per possible CPU, then the total
 *  MONITOR_SUBSCRIBE, MONITOR_UNSUBSCRIBE
 *                no attributes; the socket (by port id) receives or stops
 *                receiving AGGREGATION messages by unicast
 *  AGGREGATION   notification, one per aggregation of a running context:
 *                CTX_ID, CTX_NAME, SNAPSHOT, REGION (rep) when all fit in
 *                one message, otherwise TRUNCATED and no REGION. Sent to
 *                subscribers, and to the "monitor" multicast group on
 *                kernels that check CAP_SYS_ADMIN when a socket joins it.
 *  AUX_ATTACH    CTX_ID | CTX_NAME, AUX: hands one CPU's mmapped AUX buffer
 *                (ARM SPE) to the context; closing the sending socket
 *                tears it down (Documentation/spe.rst)
 */
#ifndef _UAPI_LINUX_DAMON_PERF_H
#define _UAPI_LINUX_DAMON_PERF_H

#define DAMON_PERF_GENL_NAME		"damon_perf"
#define DAMON_PERF_GENL_VERSION		1
#define DAMON_PERF_GENL_MCGRP_MONITOR	"monitor"

/*
 * Limits of the interface, defined here once: the module's checks, its
 * netlink policies and damonctl all use these values.
 */
#define DAMON_PERF_SAMPLE_US_MIN	100
#define DAMON_PERF_SAMPLE_US_MAX	10000000	/* 10 s */
/* aggregation and update intervals */
#define DAMON_PERF_INTERVAL_US_MIN	100
#define DAMON_PERF_INTERVAL_US_MAX	3600000000ULL	/* 1 h */
#define DAMON_PERF_NR_REGIONS_MIN	3
#define DAMON_PERF_NR_REGIONS_MAX	10000
/* report ring entries per CPU, a power of two */
#define DAMON_PERF_RING_SIZE_MIN	16
#define DAMON_PERF_RING_SIZE_MAX	65536
#define DAMON_PERF_RING_SIZE_DEF	256
/* pids and tids: PID_MAX_LIMIT of a 64-bit kernel */
#define DAMON_PERF_PID_MAX		4194304
/*
 * Largest fixed sample period: the widest hardware counters (x86
 * full-width counters) count 48 bits; a longer period never samples.
 */
#define DAMON_PERF_SAMPLE_PERIOD_MAX	(1ULL << 48)
/* CPU budget, in 1/DAMON_PERF_CPU_BUDGET_SCALE percent of one CPU */
#define DAMON_PERF_CPU_BUDGET_SCALE	100
#define DAMON_PERF_CPU_BUDGET_MAX	10000	/* 100 %: one CPU */
/* measured cost: millionths of one CPU (finer than the budget's unit) */
#define DAMON_PERF_CPU_COST_SCALE	1000000

/* Address space of a context. */
enum damon_perf_ops {
	DAMON_PERF_OPS_VADDR,		/* processes, by pid */
	DAMON_PERF_OPS_PADDR,		/* physical address ranges */
};

enum damon_perf_ctx_state {
	DAMON_PERF_CTX_STATE_CONFIGURED,
	DAMON_PERF_CTX_STATE_RUNNING,
	DAMON_PERF_CTX_STATE_STOPPED,
};

/* How samples turn into nr_accesses. */
enum damon_perf_access_mode {
	DAMON_PERF_MODE_PRESENCE,	/* <= 1 per region per sample interval */
	DAMON_PERF_MODE_COUNT,		/* every sample counts */
};

/* Where regions split at each aggregation. */
enum damon_perf_split_mode {
	DAMON_PERF_SPLIT_SAMPLES,	/* where the sample density changes */
	DAMON_PERF_SPLIT_RANDOM,	/* at random points, as DAMON does */
};

enum damon_perf_filter_type {
	DAMON_PERF_FILTER_CPUMASK,
	DAMON_PERF_FILTER_TID,
	DAMON_PERF_FILTER_WRITE,
};

enum damon_perf_cmd {
	DAMON_PERF_CMD_UNSPEC,
	DAMON_PERF_CMD_CTX_NEW,
	DAMON_PERF_CMD_CTX_DEL,
	DAMON_PERF_CMD_CTX_GET,
	DAMON_PERF_CMD_SET_ATTRS,
	DAMON_PERF_CMD_TARGET_ADD,
	DAMON_PERF_CMD_TARGET_DEL,
	DAMON_PERF_CMD_PROBE_ADD,
	DAMON_PERF_CMD_PROBE_DEL,
	DAMON_PERF_CMD_SET_FILTERS,
	DAMON_PERF_CMD_START,
	DAMON_PERF_CMD_STOP,
	DAMON_PERF_CMD_SNAPSHOT_GET,
	DAMON_PERF_CMD_STATS_GET,
	DAMON_PERF_CMD_MONITOR_SUBSCRIBE,
	DAMON_PERF_CMD_MONITOR_UNSUBSCRIBE,
	DAMON_PERF_CMD_AGGREGATION,
	DAMON_PERF_CMD_AUX_ATTACH,

	__DAMON_PERF_CMD_MAX,
};
#define DAMON_PERF_CMD_MAX (__DAMON_PERF_CMD_MAX - 1)

enum damon_perf_nl_attr {
	DAMON_PERF_A_UNSPEC,
	DAMON_PERF_A_PAD,
	DAMON_PERF_A_CTX_ID,
	DAMON_PERF_A_CTX_NAME,
	DAMON_PERF_A_CTX_OPS,
	DAMON_PERF_A_CTX_STATE,
	DAMON_PERF_A_ATTRS,
	DAMON_PERF_A_TARGET,
	DAMON_PERF_A_TARGET_ID,
	DAMON_PERF_A_PROBE,
	DAMON_PERF_A_PROBE_IDX,
	DAMON_PERF_A_FILTERS,
	DAMON_PERF_A_ARM_FAILURES,
	DAMON_PERF_A_STALE_DROPS,
	DAMON_PERF_A_SNAPSHOT,
	DAMON_PERF_A_REGION,
	DAMON_PERF_A_TRUNCATED,
	DAMON_PERF_A_STATS,
	DAMON_PERF_A_AUX,
	DAMON_PERF_A_BUDGET,

	__DAMON_PERF_A_MAX,
};
#define DAMON_PERF_A_MAX (__DAMON_PERF_A_MAX - 1)

enum damon_perf_nl_attrs_attr {
	DAMON_PERF_ATTRS_A_UNSPEC,
	DAMON_PERF_ATTRS_A_PAD,
	DAMON_PERF_ATTRS_A_SAMPLE_US,
	DAMON_PERF_ATTRS_A_AGGR_US,
	DAMON_PERF_ATTRS_A_UPDATE_US,
	DAMON_PERF_ATTRS_A_MIN_NR_REGIONS,
	DAMON_PERF_ATTRS_A_MAX_NR_REGIONS,
	DAMON_PERF_ATTRS_A_MODE,
	DAMON_PERF_ATTRS_A_RING_SIZE,
	DAMON_PERF_ATTRS_A_SPLIT,
	DAMON_PERF_ATTRS_A_CPU_BUDGET,

	__DAMON_PERF_ATTRS_A_MAX,
};
#define DAMON_PERF_ATTRS_A_MAX (__DAMON_PERF_ATTRS_A_MAX - 1)

enum damon_perf_nl_target_attr {
	DAMON_PERF_TARGET_A_UNSPEC,
	DAMON_PERF_TARGET_A_PAD,
	DAMON_PERF_TARGET_A_ID,
	DAMON_PERF_TARGET_A_PID,
	DAMON_PERF_TARGET_A_START,
	DAMON_PERF_TARGET_A_END,
	DAMON_PERF_TARGET_A_DEAD,
	DAMON_PERF_TARGET_A_NR_REGIONS,

	__DAMON_PERF_TARGET_A_MAX,
};
#define DAMON_PERF_TARGET_A_MAX (__DAMON_PERF_TARGET_A_MAX - 1)

enum damon_perf_nl_probe_attr {
	DAMON_PERF_PROBE_A_UNSPEC,
	DAMON_PERF_PROBE_A_PAD,
	DAMON_PERF_PROBE_A_IDX,
	DAMON_PERF_PROBE_A_TYPE,
	DAMON_PERF_PROBE_A_CONFIG,
	DAMON_PERF_PROBE_A_CONFIG1,
	DAMON_PERF_PROBE_A_CONFIG2,
	DAMON_PERF_PROBE_A_SAMPLE_PERIOD,
	DAMON_PERF_PROBE_A_FREQ,
	DAMON_PERF_PROBE_A_WAKEUP_EVENTS,
	DAMON_PERF_PROBE_A_WEIGHT,
	DAMON_PERF_PROBE_A_PRECISE_IP,
	DAMON_PERF_PROBE_A_SAMPLE_PHYS_ADDR,
	DAMON_PERF_PROBE_A_SAMPLE_WEIGHT_STRUCT,
	DAMON_PERF_PROBE_A_EXCLUDE_KERNEL,
	DAMON_PERF_PROBE_A_EXCLUDE_HV,
	DAMON_PERF_PROBE_A_EXCLUDE_USER,
	DAMON_PERF_PROBE_A_EFFECTIVE_PERIOD,

	__DAMON_PERF_PROBE_A_MAX,
};
#define DAMON_PERF_PROBE_A_MAX (__DAMON_PERF_PROBE_A_MAX - 1)

enum damon_perf_nl_filters_attr {
	DAMON_PERF_FILTERS_A_UNSPEC,
	DAMON_PERF_FILTERS_A_FILTER,

	__DAMON_PERF_FILTERS_A_MAX,
};
#define DAMON_PERF_FILTERS_A_MAX (__DAMON_PERF_FILTERS_A_MAX - 1)

enum damon_perf_nl_filter_attr {
	DAMON_PERF_FILTER_A_UNSPEC,
	DAMON_PERF_FILTER_A_TYPE,
	DAMON_PERF_FILTER_A_ALLOW,
	DAMON_PERF_FILTER_A_CPUS,
	DAMON_PERF_FILTER_A_TID,

	__DAMON_PERF_FILTER_A_MAX,
};
#define DAMON_PERF_FILTER_A_MAX (__DAMON_PERF_FILTER_A_MAX - 1)

enum damon_perf_nl_snap_attr {
	DAMON_PERF_SNAP_A_UNSPEC,
	DAMON_PERF_SNAP_A_PAD,
	DAMON_PERF_SNAP_A_SEQ,
	DAMON_PERF_SNAP_A_TIME_NS,
	DAMON_PERF_SNAP_A_AGGR_US,
	DAMON_PERF_SNAP_A_NR_REGIONS,

	__DAMON_PERF_SNAP_A_MAX,
};
#define DAMON_PERF_SNAP_A_MAX (__DAMON_PERF_SNAP_A_MAX - 1)

enum damon_perf_nl_region_attr {
	DAMON_PERF_REGION_A_UNSPEC,
	DAMON_PERF_REGION_A_PAD,
	DAMON_PERF_REGION_A_TARGET_ID,
	DAMON_PERF_REGION_A_START,
	DAMON_PERF_REGION_A_END,
	DAMON_PERF_REGION_A_NR_ACCESSES,
	DAMON_PERF_REGION_A_AGE,
	DAMON_PERF_REGION_A_RATE,
	DAMON_PERF_REGION_A_PROBE_HITS,

	__DAMON_PERF_REGION_A_MAX,
};
#define DAMON_PERF_REGION_A_MAX (__DAMON_PERF_REGION_A_MAX - 1)

enum damon_perf_nl_stats_attr {
	DAMON_PERF_STATS_A_UNSPEC,
	DAMON_PERF_STATS_A_PAD,
	DAMON_PERF_STATS_A_CPU,
	DAMON_PERF_STATS_A_TOTAL,
	DAMON_PERF_STATS_A_STATE,
	DAMON_PERF_STATS_A_STATE_NAME,
	DAMON_PERF_STATS_A_COUNTER,

	__DAMON_PERF_STATS_A_MAX,
};
#define DAMON_PERF_STATS_A_MAX (__DAMON_PERF_STATS_A_MAX - 1)

enum damon_perf_nl_counter_attr {
	DAMON_PERF_COUNTER_A_UNSPEC,
	DAMON_PERF_COUNTER_A_PAD,
	DAMON_PERF_COUNTER_A_NAME,
	DAMON_PERF_COUNTER_A_VALUE,

	__DAMON_PERF_COUNTER_A_MAX,
};
#define DAMON_PERF_COUNTER_A_MAX (__DAMON_PERF_COUNTER_A_MAX - 1)

enum damon_perf_nl_aux_attr {
	DAMON_PERF_AUX_A_UNSPEC,
	DAMON_PERF_AUX_A_PAD,
	DAMON_PERF_AUX_A_CPU,
	DAMON_PERF_AUX_A_FD,
	DAMON_PERF_AUX_A_USER_PAGE,
	DAMON_PERF_AUX_A_AUX_ADDR,
	DAMON_PERF_AUX_A_AUX_SIZE,
	DAMON_PERF_AUX_A_PID,
	DAMON_PERF_AUX_A_PROBE_IDX,

	__DAMON_PERF_AUX_A_MAX,
};
#define DAMON_PERF_AUX_A_MAX (__DAMON_PERF_AUX_A_MAX - 1)

enum damon_perf_nl_budget_attr {
	DAMON_PERF_BUDGET_A_UNSPEC,
	DAMON_PERF_BUDGET_A_PAD,
	DAMON_PERF_BUDGET_A_COST,
	DAMON_PERF_BUDGET_A_HANDLER_NS,
	DAMON_PERF_BUDGET_A_DRAIN_NS,
	DAMON_PERF_BUDGET_A_RAISES,
	DAMON_PERF_BUDGET_A_LOWERS,

	__DAMON_PERF_BUDGET_A_MAX,
};
#define DAMON_PERF_BUDGET_A_MAX (__DAMON_PERF_BUDGET_A_MAX - 1)

#endif /* _UAPI_LINUX_DAMON_PERF_H */
