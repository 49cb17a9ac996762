/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * damon_perf: generic netlink interface.
 *
 * (Attribute tree: see the block comment below the enums; grows only at
 * the ends of enums.)
 */
#ifndef _UAPI_LINUX_DAMON_PERF_H
#define _UAPI_LINUX_DAMON_PERF_H

#define DAMON_PERF_GENL_NAME		"damon_perf"
#define DAMON_PERF_GENL_VERSION		1
#define DAMON_PERF_GENL_MCGRP_MONITOR	"monitor"

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

enum damon_perf_filter_type {
	DAMON_PERF_FILTER_CPUMASK,
	DAMON_PERF_FILTER_TID,
	DAMON_PERF_FILTER_WRITE,
};

#endif /* _UAPI_LINUX_DAMON_PERF_H */
