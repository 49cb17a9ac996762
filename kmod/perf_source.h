/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Perf probes: attribute validation, per-PMU ownership, cpuhp-managed
 * per-CPU counters and the NMI-safe overflow handler.
 */
#ifndef _DAMON_PERF_PERF_SOURCE_H
#define _DAMON_PERF_PERF_SOURCE_H

#include "ctx_types.h"

int damon_perf_source_init(void);
phys_addr_t damon_perf_virt_to_phys(unsigned long addr);
phys_addr_t damon_perf_walk_user(struct mm_struct *mm, unsigned long addr);
void damon_perf_source_exit(void);

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

/**
 * struct damon_perf_probe_status - How an armed probe's counters are doing.
 * @nr_active:		CPUs with a live counter.
 * @nr_failed:		counter creations that failed since the last arm.
 * @last_err:		last creation error (negative errno), 0 if none.
 * @last_err_cpu:	CPU of @last_err, -1 if none.
 */
struct damon_perf_probe_status {
	u32 nr_active;
	u32 nr_failed;
	s32 last_err;
	s32 last_err_cpu;
};

int damon_perf_probe_status(struct damon_perf_ctx *ctx, unsigned int probe_idx,
			    struct damon_perf_probe_status *st);

/*
 * Arm every probe of @ctx on every online CPU (and on CPUs coming online)
 * after the rings exist; disarm clears the owner with smp_store_release,
 * removes the cpuhp instances (releasing every counter), then frees the
 * per-event state. damon_perf_lock held.
 */
int damon_perf_source_arm(struct damon_perf_ctx *ctx,
			  struct netlink_ext_ack *extack);
void damon_perf_source_disarm(struct damon_perf_ctx *ctx);

/*
 * CPU budget (budget.c), from the kdamond or under damon_perf_lock: the
 * time the handlers spent, the period in force and changing it.
 */
u64 damon_perf_source_handler_ns(struct damon_perf_ctx *ctx);
u64 damon_perf_source_period(struct damon_perf_ctx *ctx,
			     unsigned int probe_idx);
int damon_perf_source_set_period(struct damon_perf_ctx *ctx,
				 unsigned int probe_idx, u64 period);
void damon_perf_source_adapt(struct damon_perf_ctx *ctx, u64 now);

#endif
