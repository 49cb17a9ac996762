/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Observe API: per-CPU counters and the per-CPU lifecycle state machine
 * of the perf events, exported through debugfs perf_stats, netlink and
 * tracepoints.
 */
#ifndef _DAMON_PERF_STATS_H
#define _DAMON_PERF_STATS_H

#include <linux/types.h>

/* Lifecycle of a perf event on one CPU; only ever advances globally. */
enum damon_perf_state {
	DAMON_PERF_STATE_UNINIT,
	DAMON_PERF_STATE_CREATED,
	DAMON_PERF_STATE_BOUND,
	DAMON_PERF_STATE_ENABLED,
	DAMON_PERF_STATE_RUNNING,
	NR_DAMON_PERF_STATES,
};

/* Why a sample was not turned into a report. */
enum damon_perf_sample_reason {
	DAMON_PERF_SAMPLE_VALID,
	DAMON_PERF_SAMPLE_NULL,		/* no sample data */
	DAMON_PERF_SAMPLE_ADDR_ZERO,	/* no address at all in the sample */
	DAMON_PERF_SAMPLE_KERNEL,	/* vaddr: kernel address */
	DAMON_PERF_SAMPLE_INVALID_PHYS,	/* paddr: physical address not RAM */
	DAMON_PERF_SAMPLE_NO_PHYS,	/* paddr: virtual only, not asked */
	DAMON_PERF_SAMPLE_UNTRANSLATED,	/* paddr: virtual only, not mapped */
	DAMON_PERF_SAMPLE_PHYS_ONLY,	/* vaddr: physical only */
	DAMON_PERF_SAMPLE_TEARDOWN,	/* its context was being stopped */
};

/* Why a report matched no region. */
enum damon_perf_miss_reason {
	DAMON_PERF_MISS_TGID,		/* no target with this thread group */
	DAMON_PERF_MISS_REGION,		/* address in no region */
	DAMON_PERF_MISS_BOUNDARY,	/* access straddles a region end */
	DAMON_PERF_MISS_STALE,		/* older than one sample interval */
	DAMON_PERF_MISS_FILTER,		/* rejected by a sample filter */
	DAMON_PERF_MISS_NOMEM,		/* pass without a region snapshot */
};

/* Why damon_perf_report_access() refused a report (@why of ring_overflow). */
enum damon_perf_drop_reason {
	DAMON_PERF_DROP_FULL,		/* ring full: counted as overflow */
	DAMON_PERF_DROP_BUSY,		/* nested producer: busy_drop */
	DAMON_PERF_DROP_NO_PROBE,	/* probe_idx 0: no_probe */
	DAMON_PERF_DROP_NO_RING,	/* context has no rings: no_ring */
};

/* Execution context of a sample, as damon_perf_sample reports it. */
enum damon_perf_exec_ctx {
	DAMON_PERF_EXEC_PROCESS,
	DAMON_PERF_EXEC_SOFTIRQ,
	DAMON_PERF_EXEC_HARDIRQ,
	DAMON_PERF_EXEC_NMI,
};

/* Index of each counter: DAMON_PERF_STAT_<name> (stats_counters.h). */
enum damon_perf_stat_idx {
#define DAMON_PERF_STAT(name, doc) DAMON_PERF_STAT_##name,
#include "stats_counters.h"
	NR_DAMON_PERF_STATS,
};

/*
 * struct damon_perf_stats - A snapshot of the counters and the state, of
 * one CPU or aggregated (Documentation/perf_stats.rst describes each).
 *
 * One field per counter of stats_counters.h, named alike; stats.c checks
 * at build time that both lists agree.
 */
struct damon_perf_stats {
	unsigned long callback;
	unsigned long sample_valid;
	unsigned long sample_null;
	unsigned long sample_addr_zero;
	unsigned long sample_kernel;
	unsigned long sample_invalid_phys;
	unsigned long enqueue;
	unsigned long dequeue;
	unsigned long overflow;
	unsigned long busy_drop;
	unsigned long ring_peak;
	unsigned long match;
	unsigned long miss_tgid;
	unsigned long miss_region;
	unsigned long miss_boundary;
	unsigned long stale;
	unsigned long update;
	unsigned long early_wake;
	unsigned long no_probe;
	unsigned long no_ring;
	unsigned long miss_filter;
	unsigned long sample_no_phys;
	unsigned long sample_untranslated;
	unsigned long sample_phys_only;
	unsigned long sample_translated;
	unsigned long handler_ns;
	unsigned long drain_ns;
	unsigned long miss_nomem;
	unsigned long aux_record;
	unsigned long aux_no_addr;
	unsigned long aux_truncated;
	unsigned long aux_collision;
	unsigned long aux_partial;
	unsigned long sample_teardown;
	unsigned long aux_drain_busy;
	unsigned long aux_drain_late;
	/* the counters above are exactly those of stats_counters.h */
	int cpu_state;
};

struct damon_perf_event;	/* perf_source.c: one probe's per-CPU events */

int damon_perf_stats_init(void);
void damon_perf_stats_exit(void);

/* Lifecycle (process context, serialized by the caller per event). */
int damon_perf_observe_event_alloc(int __percpu **cpu_state);
void damon_perf_observe_event_free(int __percpu *cpu_state);
void damon_perf_observe_event_state(int __percpu *cpu_state, int cpu,
				    enum damon_perf_state state);
void damon_perf_observe_event_destroyed(int __percpu *cpu_state, int cpu);
long damon_perf_observe_nr_event_states(void);

/* NMI-safe: this CPU's counters only. */
void damon_perf_observe_sample(unsigned long addr, u64 data_src, u64 period,
			       enum damon_perf_sample_reason reason,
			       u64 sample_flags, u64 sample_type);
void damon_perf_observe_translated(void);
void damon_perf_observe_handler_ns(u64 ns);
void damon_perf_observe_drain_ns(u64 ns);
void damon_perf_observe_ring_enqueue(unsigned int occupancy);
void damon_perf_observe_ring_overflow(int ctx_id, int why);
void damon_perf_observe_early_wake(void);
void damon_perf_observe_aux(enum damon_perf_stat_idx idx, unsigned long n);

/* Consumer side (kdamond): the counter of @cpu. */
void damon_perf_observe_ring_dequeue(int cpu, unsigned int n);
void damon_perf_observe_match(int cpu);
void damon_perf_observe_miss(unsigned long addr, int cpu,
			     enum damon_perf_miss_reason reason);
void damon_perf_observe_update(void);
void damon_perf_observe_drain(unsigned int total, unsigned int matched);

void damon_perf_stats_snapshot(int cpu, struct damon_perf_stats *dst);
unsigned long damon_perf_stats_get(const struct damon_perf_stats *st,
				   enum damon_perf_stat_idx idx);
const char *damon_perf_stat_name(enum damon_perf_stat_idx idx);
void damon_perf_stats_add(struct damon_perf_stats *dst,
			  const struct damon_perf_stats *src);
void damon_perf_stats_aggregate(struct damon_perf_stats *dst);
void damon_perf_stats_reset(void);
const char *damon_perf_state_name(int state);

#if DAMON_PERF_KUNIT_HOOKS
/* Tests run the observe API against a private set of per-CPU state. */
struct damon_perf_stats_pcpu;
struct damon_perf_stats_pcpu __percpu *damon_perf_stats_pcpu_alloc(void);
void damon_perf_stats_pcpu_free(struct damon_perf_stats_pcpu __percpu *p);
struct damon_perf_stats_pcpu __percpu *
damon_perf_stats_swap(struct damon_perf_stats_pcpu __percpu *p);
#endif

#endif /* _DAMON_PERF_STATS_H */
