/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Perf probes armed: cpuhp-managed per-CPU counters, the NMI-safe overflow
 * handler and the period changes of the CPU budget. The probe slots,
 * their validation and PMU ownership are probe.h's, the address walk
 * addr.h's.
 */
#ifndef _DAMON_PERF_PERF_SOURCE_H
#define _DAMON_PERF_PERF_SOURCE_H

#include "ctx_types.h"

struct netlink_ext_ack;

int damon_perf_source_init(void);
void damon_perf_source_exit(void);

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
void damon_perf_source_settle(struct damon_perf_ctx *ctx);

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
bool damon_perf_source_adapts(struct damon_perf_ctx *ctx);

#endif
