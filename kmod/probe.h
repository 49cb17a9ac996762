/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Perf probe slots of a context (probe.c): validation and the ownership
 * of PMU types. Arming them is perf_source.h's.
 */
#ifndef _DAMON_PERF_PROBE_H
#define _DAMON_PERF_PROBE_H

#include "ctx_types.h"

struct netlink_ext_ack;

/*
 * Probe slots (damon_perf_lock held, context stopped). _add returns the
 * 1-based probe_idx, -EBUSY when another context owns the PMU type,
 * -ENOSPC when all DAMON_PERF_MAX_PROBES slots are used.
 */
int damon_perf_probe_add(struct damon_perf_ctx *ctx,
			 const struct damon_perf_probe_attr *attr,
			 struct netlink_ext_ack *extack);
int damon_perf_probe_del(struct damon_perf_ctx *ctx, unsigned int probe_idx,
			 struct netlink_ext_ack *extack);
void damon_perf_probes_release(struct damon_perf_ctx *ctx);
void damon_perf_probes_exit(void);

#endif /* _DAMON_PERF_PROBE_H */
