// SPDX-License-Identifier: GPL-2.0
/*
 * Observe API: per-CPU counters and the per-CPU lifecycle state machine.
 *
 * Every sample source, the report rings and the drain funnel their events
 * through the damon_perf_observe_*() calls here. Counters are per CPU and
 * only grow (a reset moves a baseline, it never rewrites a live counter);
 * tracepoints fire only when enabled.
 *
 * Two kinds of writers share a CPU's counters:
 * - producers (overflow handler, report_access) on that CPU, in any context
 *   up to NMI: this_cpu ops on @local, which are interrupt- and NMI-safe;
 * - consumers (a kdamond draining that CPU's ring, on any CPU; several
 *   kdamonds may drain the same CPU at once): atomic ops on @remote.
 * A reader sums both; values are best-effort, with no consistency between
 * fields. This is debug data: build no policy on it.
 */
#include <linux/atomic.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/hardirq.h>
#include <linux/kernel.h>
#include <linux/percpu.h>
#include <linux/smp.h>
#include <linux/stddef.h>
#include <linux/stringify.h>

#include "stats.h"
#include "trace.h"

/*
 * struct damon_perf_stats_pcpu - The observe state of one CPU.
 * @local:	counters written by this CPU only (this_cpu ops).
 * @remote:	counters charged to this CPU by consumers on any CPU.
 * @base:	@local + @remote at the last reset; readers subtract it.
 * @state:	highest &enum damon_perf_state any event reached here.
 */
struct damon_perf_stats_pcpu {
	unsigned long local[NR_DAMON_PERF_STATS];
	atomic_long_t remote[NR_DAMON_PERF_STATS];
	unsigned long base[NR_DAMON_PERF_STATS];
	int state;
};

static DEFINE_PER_CPU(struct damon_perf_stats_pcpu, damon_perf_pcpu);

/* The set in use: always damon_perf_pcpu outside KUnit. */
static struct damon_perf_stats_pcpu __percpu *cur_set = &damon_perf_pcpu;
/* Per-event states allocated and not yet freed (the observe API's own). */
static atomic_long_t nr_event_states = ATOMIC_LONG_INIT(0);

static const char * const stat_names[] = {
#define DAMON_PERF_STAT(name, doc) __stringify(name),
#include "stats_counters.h"
};

static const size_t stat_offs[] = {
#define DAMON_PERF_STAT(name, doc) offsetof(struct damon_perf_stats, name),
#include "stats_counters.h"
};

static const char * const state_names[] = {
	[DAMON_PERF_STATE_UNINIT]	= "UNINIT",
	[DAMON_PERF_STATE_CREATED]	= "CREATED",
	[DAMON_PERF_STATE_BOUND]	= "BOUND",
	[DAMON_PERF_STATE_ENABLED]	= "ENABLED",
	[DAMON_PERF_STATE_RUNNING]	= "RUNNING",
};

static struct damon_perf_stats_pcpu __percpu *set(void)
{
	return READ_ONCE(cur_set);
}

static void local_inc(enum damon_perf_stat_idx idx)
{
	struct damon_perf_stats_pcpu __percpu *p = set();

	this_cpu_inc(p->local[idx]);
}

static void remote_add(int cpu, enum damon_perf_stat_idx idx, long n)
{
	if (cpu < 0 || cpu >= nr_cpu_ids || !cpu_possible(cpu))
		cpu = raw_smp_processor_id();
	atomic_long_add(n, &per_cpu_ptr(set(), cpu)->remote[idx]);
}

/*
 * Advance @cpu's global state to @state unless it is already there or
 * beyond. cmpxchg, because the first sample's ENABLED -> RUNNING step runs
 * in NMI on that CPU while a lifecycle call may run elsewhere.
 */
static void state_advance(int cpu, int state)
{
	int *p = &per_cpu_ptr(set(), cpu)->state;
	int old = READ_ONCE(*p);

	while (old < state) {
		int prev = cmpxchg(p, old, state);

		if (prev == old)
			break;
		old = prev;
	}
}

static int exec_ctx(void)
{
	if (in_nmi())
		return DAMON_PERF_EXEC_NMI;
	if (in_hardirq())
		return DAMON_PERF_EXEC_HARDIRQ;
	if (in_serving_softirq())
		return DAMON_PERF_EXEC_SOFTIRQ;
	return DAMON_PERF_EXEC_PROCESS;
}

/**
 * damon_perf_observe_event_alloc() - Allocate an event's per-CPU state.
 * @cpu_state:	where the event keeps it; allocated only if still NULL.
 *
 * Called when the event is first created on some CPU; later calls for the
 * other CPUs find it allocated. Every slot starts UNINIT.
 *
 * Context: process; serialized per event by the caller.
 * Return: 0 or -ENOMEM.
 */
int damon_perf_observe_event_alloc(int __percpu **cpu_state)
{
	if (*cpu_state)
		return 0;
	*cpu_state = alloc_percpu(int);
	if (!*cpu_state)
		return -ENOMEM;
	atomic_long_inc(&nr_event_states);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_observe_event_alloc);

/**
 * damon_perf_observe_event_free() - Free an event's per-CPU state.
 * @cpu_state:	from damon_perf_observe_event_alloc(), or NULL.
 *
 * Called once, when the event is freed (never per CPU: a CPU going
 * offline only resets its own slot, see damon_perf_observe_event_destroyed()).
 *
 * Context: process.
 */
void damon_perf_observe_event_free(int __percpu *cpu_state)
{
	if (cpu_state)
		atomic_long_dec(&nr_event_states);
	free_percpu(cpu_state);
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_observe_event_free);

/**
 * damon_perf_observe_nr_event_states() - Per-CPU states not yet freed.
 *
 * What damon_perf_observe_event_alloc() allocated and
 * damon_perf_observe_event_free() has not freed yet: one per armed probe.
 * kmemleak does not report percpu memory (kmemleak_alloc_percpu() makes
 * its objects scanned only), so this count is how a leak shows.
 *
 * Context: any.
 * Return: the count.
 */
long damon_perf_observe_nr_event_states(void)
{
	return atomic_long_read(&nr_event_states);
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_observe_nr_event_states);

/**
 * damon_perf_observe_event_state() - An event reached @state on @cpu.
 * @cpu_state:	the event's per-CPU state, or NULL if it has none.
 * @cpu:	the CPU.
 * @state:	CREATED, BOUND or ENABLED (RUNNING comes from the first
 *		sample).
 *
 * Sets the event's own slot to @state and advances the global state of
 * @cpu, which never goes back: a late create/bind/enable of another event
 * does not regress a CPU that is already RUNNING.
 *
 * Context: process; serialized per event by the caller.
 */
void damon_perf_observe_event_state(int __percpu *cpu_state, int cpu,
				    enum damon_perf_state state)
{
	if (cpu < 0 || cpu >= nr_cpu_ids || !cpu_possible(cpu) ||
	    state >= NR_DAMON_PERF_STATES)
		return;
	if (cpu_state)
		WRITE_ONCE(*per_cpu_ptr(cpu_state, cpu), state);
	state_advance(cpu, state);
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_observe_event_state);

/**
 * damon_perf_observe_event_destroyed() - An event was released on @cpu.
 * @cpu_state:	the event's per-CPU state, or NULL.
 * @cpu:	the CPU.
 *
 * Resets the event's slot of @cpu to UNINIT and leaves the global state
 * alone: another event may still run there.
 *
 * Context: process (cpuhp teardown or event release).
 */
void damon_perf_observe_event_destroyed(int __percpu *cpu_state, int cpu)
{
	if (cpu_state && cpu >= 0 && cpu < nr_cpu_ids && cpu_possible(cpu))
		WRITE_ONCE(*per_cpu_ptr(cpu_state, cpu),
			   DAMON_PERF_STATE_UNINIT);
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_observe_event_destroyed);

/**
 * damon_perf_observe_sample() - Count one overflow callback.
 * @addr:		data address of the sample (0 when none).
 * @data_src:		PERF_SAMPLE_DATA_SRC value, 0 when absent.
 * @period:		sample period.
 * @reason:		how the source classified it.
 * @sample_flags:	perf_sample_data::sample_flags.
 * @sample_type:	perf_event_attr::sample_type.
 *
 * Counts the callback and its class on this CPU, moves this CPU from
 * ENABLED to RUNNING on its first sample, and emits damon_perf_sample with
 * the execution context.
 *
 * Context: any, including NMI.
 */
void damon_perf_observe_sample(unsigned long addr, u64 data_src, u64 period,
			       enum damon_perf_sample_reason reason,
			       u64 sample_flags, u64 sample_type)
{
	struct damon_perf_stats_pcpu __percpu *p = set();

	local_inc(DAMON_PERF_STAT_callback);
	switch (reason) {
	case DAMON_PERF_SAMPLE_VALID:
		local_inc(DAMON_PERF_STAT_sample_valid);
		break;
	case DAMON_PERF_SAMPLE_NULL:
		local_inc(DAMON_PERF_STAT_sample_null);
		break;
	case DAMON_PERF_SAMPLE_ADDR_ZERO:
		local_inc(DAMON_PERF_STAT_sample_addr_zero);
		break;
	case DAMON_PERF_SAMPLE_KERNEL:
		local_inc(DAMON_PERF_STAT_sample_kernel);
		break;
	case DAMON_PERF_SAMPLE_INVALID_PHYS:
		local_inc(DAMON_PERF_STAT_sample_invalid_phys);
		break;
	case DAMON_PERF_SAMPLE_NO_PHYS:
		local_inc(DAMON_PERF_STAT_sample_no_phys);
		break;
	case DAMON_PERF_SAMPLE_UNTRANSLATED:
		local_inc(DAMON_PERF_STAT_sample_untranslated);
		break;
	case DAMON_PERF_SAMPLE_PHYS_ONLY:
		local_inc(DAMON_PERF_STAT_sample_phys_only);
		break;
	case DAMON_PERF_SAMPLE_TEARDOWN:
		local_inc(DAMON_PERF_STAT_sample_teardown);
		break;
	}

	/* First sample: ENABLED -> RUNNING; never from an earlier state. */
	if (this_cpu_read(p->state) == DAMON_PERF_STATE_ENABLED)
		this_cpu_cmpxchg(p->state, DAMON_PERF_STATE_ENABLED,
				 DAMON_PERF_STATE_RUNNING);

	if (trace_damon_perf_sample_enabled())
		trace_damon_perf_sample(addr, data_src, period,
					raw_smp_processor_id(), reason,
					sample_flags, sample_type, exec_ctx());
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_observe_sample);

/**
 * damon_perf_observe_translated() - The handler found a sample's physical
 * address from its virtual one.
 *
 * Context: any, including NMI.
 */
void damon_perf_observe_translated(void)
{
	local_inc(DAMON_PERF_STAT_sample_translated);
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_observe_translated);

/**
 * damon_perf_observe_handler_ns() - Time one overflow callback took.
 * @ns:		nanoseconds (local_clock() delta).
 *
 * Context: any, including NMI; the callback's CPU.
 */
void damon_perf_observe_handler_ns(u64 ns)
{
	struct damon_perf_stats_pcpu __percpu *p = set();

	this_cpu_add(p->local[DAMON_PERF_STAT_handler_ns], ns);
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_observe_handler_ns);

/**
 * damon_perf_observe_drain_ns() - Time one kdamond drain pass took.
 * @ns:		nanoseconds.
 *
 * Context: process context (the kdamond); counted on its current CPU.
 */
void damon_perf_observe_drain_ns(u64 ns)
{
	struct damon_perf_stats_pcpu __percpu *p = set();

	this_cpu_add(p->local[DAMON_PERF_STAT_drain_ns], ns);
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_observe_drain_ns);

/**
 * damon_perf_observe_ring_enqueue() - A report entered this CPU's ring.
 * @occupancy:	reports in that ring after the push.
 *
 * Context: any, including NMI; the producer's CPU.
 */
void damon_perf_observe_ring_enqueue(unsigned int occupancy)
{
	struct damon_perf_stats_pcpu __percpu *p = set();

	local_inc(DAMON_PERF_STAT_enqueue);
	/* Best effort: a nested producer may lose a peak by a few entries. */
	if (occupancy > this_cpu_read(p->local[DAMON_PERF_STAT_ring_peak]))
		this_cpu_write(p->local[DAMON_PERF_STAT_ring_peak], occupancy);
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_observe_ring_enqueue);

/**
 * damon_perf_observe_ring_overflow() - A report was refused.
 * @ctx_id:	id of the context whose ring refused it.
 * @why:	&enum damon_perf_drop_reason.
 *
 * Counts overflow (ring full), busy_drop (nested producer), no_probe or
 * no_ring and emits damon_perf_ring_overflow.
 *
 * Context: any, including NMI; the producer's CPU.
 */
void damon_perf_observe_ring_overflow(int ctx_id, int why)
{
	switch (why) {
	case DAMON_PERF_DROP_FULL:
		local_inc(DAMON_PERF_STAT_overflow);
		break;
	case DAMON_PERF_DROP_BUSY:
		local_inc(DAMON_PERF_STAT_busy_drop);
		break;
	case DAMON_PERF_DROP_NO_PROBE:
		local_inc(DAMON_PERF_STAT_no_probe);
		break;
	default:
		local_inc(DAMON_PERF_STAT_no_ring);
		break;
	}
	if (trace_damon_perf_ring_overflow_enabled())
		trace_damon_perf_ring_overflow(raw_smp_processor_id(), ctx_id,
					       why);
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_observe_ring_overflow);

/**
 * damon_perf_observe_early_wake() - A ring crossed its high watermark and
 * woke its consumer early.
 *
 * Context: any, including NMI; the producer's CPU.
 */
void damon_perf_observe_early_wake(void)
{
	local_inc(DAMON_PERF_STAT_early_wake);
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_observe_early_wake);

/**
 * damon_perf_observe_aux() - An AUX backend's drain counts what it saw.
 * @idx:	one of the aux_* counters.
 * @n:		how many.
 *
 * Context: process context on the CPU that owns the buffer (the drain).
 */
void damon_perf_observe_aux(enum damon_perf_stat_idx idx, unsigned long n)
{
	struct damon_perf_stats_pcpu __percpu *p = set();

	if (n)
		this_cpu_add(p->local[idx], n);
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_observe_aux);

/**
 * damon_perf_observe_ring_dequeue() - Reports were consumed from a ring.
 * @cpu:	CPU of the drained ring.
 * @n:		reports consumed.
 *
 * Context: process (the consumer), any CPU.
 */
void damon_perf_observe_ring_dequeue(int cpu, unsigned int n)
{
	if (n)
		remote_add(cpu, DAMON_PERF_STAT_dequeue, n);
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_observe_ring_dequeue);

/**
 * damon_perf_observe_match() - A drained report credited a region.
 * @cpu:	CPU that took the sample.
 *
 * Context: process (the consumer), any CPU.
 */
void damon_perf_observe_match(int cpu)
{
	remote_add(cpu, DAMON_PERF_STAT_match, 1);
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_observe_match);

/**
 * damon_perf_observe_miss() - A drained report credited no region.
 * @addr:	the address it was matched by.
 * @cpu:	CPU that took the sample.
 * @reason:	why it missed.
 *
 * Counts it by reason and emits damon_perf_report_missed.
 *
 * Context: process (the consumer), any CPU.
 */
void damon_perf_observe_miss(unsigned long addr, int cpu,
			     enum damon_perf_miss_reason reason)
{
	static const enum damon_perf_stat_idx idx[] = {
		[DAMON_PERF_MISS_TGID]		= DAMON_PERF_STAT_miss_tgid,
		[DAMON_PERF_MISS_REGION]	= DAMON_PERF_STAT_miss_region,
		[DAMON_PERF_MISS_BOUNDARY]	= DAMON_PERF_STAT_miss_boundary,
		[DAMON_PERF_MISS_STALE]		= DAMON_PERF_STAT_stale,
		[DAMON_PERF_MISS_FILTER]	= DAMON_PERF_STAT_miss_filter,
		[DAMON_PERF_MISS_NOMEM]		= DAMON_PERF_STAT_miss_nomem,
	};

	if ((unsigned int)reason < ARRAY_SIZE(idx))
		remote_add(cpu, idx[reason], 1);
	if (trace_damon_perf_report_missed_enabled())
		trace_damon_perf_report_missed(addr, cpu, reason);
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_observe_miss);

/**
 * damon_perf_observe_update() - A context refreshed its target ranges.
 *
 * Context: process; counted on the calling CPU.
 */
void damon_perf_observe_update(void)
{
	remote_add(raw_smp_processor_id(), DAMON_PERF_STAT_update, 1);
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_observe_update);

/**
 * damon_perf_observe_drain() - A drain pass finished.
 * @total:	reports consumed.
 * @matched:	reports that credited a region.
 *
 * Emits damon_perf_drain; counts nothing (dequeue and match already did).
 *
 * Context: process (the consumer).
 */
void damon_perf_observe_drain(unsigned int total, unsigned int matched)
{
	if (trace_damon_perf_drain_enabled())
		trace_damon_perf_drain(total, matched);
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_observe_drain);

static unsigned long *field(struct damon_perf_stats *st,
			    enum damon_perf_stat_idx idx)
{
	return (unsigned long *)((char *)st + stat_offs[idx]);
}

/**
 * damon_perf_stats_get() - One counter of a snapshot, by index.
 * @st:		a snapshot.
 * @idx:	the counter.
 *
 * Context: any.
 * Return: its value, 0 for an unknown index.
 */
unsigned long damon_perf_stats_get(const struct damon_perf_stats *st,
				   enum damon_perf_stat_idx idx)
{
	if ((unsigned int)idx >= NR_DAMON_PERF_STATS)
		return 0;
	return *field((struct damon_perf_stats *)st, idx);
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_stats_get);

/**
 * damon_perf_stat_name() - Name of a counter, as perf_stats prints it.
 * @idx:	the counter.
 *
 * Context: any.
 * Return: the name, or "unknown".
 */
const char *damon_perf_stat_name(enum damon_perf_stat_idx idx)
{
	if ((unsigned int)idx >= NR_DAMON_PERF_STATS)
		return "unknown";
	return stat_names[idx];
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_stat_name);

/**
 * damon_perf_stats_snapshot() - Copy the counters and state of one CPU.
 * @cpu:	the CPU (any possible CPU).
 * @dst:	where to copy them.
 *
 * Best effort: each counter is read once, with no consistency between
 * counters.
 *
 * Context: any.
 */
void damon_perf_stats_snapshot(int cpu, struct damon_perf_stats *dst)
{
	struct damon_perf_stats_pcpu *p = per_cpu_ptr(set(), cpu);
	int i;

	for (i = 0; i < NR_DAMON_PERF_STATS; i++) {
		unsigned long v = READ_ONCE(p->local[i]);

		if (i != DAMON_PERF_STAT_ring_peak)
			v += atomic_long_read(&p->remote[i]) -
			     READ_ONCE(p->base[i]);
		*field(dst, i) = v;
	}
	dst->cpu_state = READ_ONCE(p->state);
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_stats_snapshot);

/**
 * damon_perf_stats_add() - Fold one CPU's snapshot into an aggregate.
 * @dst:	the aggregate; start from a zeroed one whose cpu_state is
 *		NR_DAMON_PERF_STATES (no CPU yet).
 * @src:	the snapshot.
 *
 * Sums the counters, keeps the maximum ring_peak and the minimum state.
 *
 * Context: any.
 */
void damon_perf_stats_add(struct damon_perf_stats *dst,
			  const struct damon_perf_stats *src)
{
	int i;

	for (i = 0; i < NR_DAMON_PERF_STATS; i++) {
		unsigned long v = damon_perf_stats_get(src, i);

		if (i == DAMON_PERF_STAT_ring_peak)
			*field(dst, i) = max(*field(dst, i), v);
		else
			*field(dst, i) += v;
	}
	dst->cpu_state = min(dst->cpu_state, src->cpu_state);
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_stats_add);

/**
 * damon_perf_stats_aggregate() - Combine the online CPUs.
 * @dst:	receives the sums of the counters, the maximum ring_peak and
 *		the minimum state: the monitoring has reached a stage only
 *		when every online CPU has.
 *
 * Context: process (takes cpus_read_lock).
 */
void damon_perf_stats_aggregate(struct damon_perf_stats *dst)
{
	struct damon_perf_stats one;
	int cpu;

	memset(dst, 0, sizeof(*dst));
	dst->cpu_state = NR_DAMON_PERF_STATES;
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		damon_perf_stats_snapshot(cpu, &one);
		damon_perf_stats_add(dst, &one);
	}
	cpus_read_unlock();
	if (dst->cpu_state == NR_DAMON_PERF_STATES)
		dst->cpu_state = DAMON_PERF_STATE_UNINIT;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_stats_aggregate);

/**
 * damon_perf_stats_reset() - Restart every counter from zero.
 *
 * Counters are not rewritten under their writers: a reset records the
 * current values as a baseline that readers subtract, so a producer in
 * NMI never races with it. ring_peak, a maximum, is cleared. States are
 * kept: they only advance.
 *
 * Context: process.
 */
void damon_perf_stats_reset(void)
{
	int cpu, i;

	for_each_possible_cpu(cpu) {
		struct damon_perf_stats_pcpu *p = per_cpu_ptr(set(), cpu);

		for (i = 0; i < NR_DAMON_PERF_STATS; i++) {
			if (i == DAMON_PERF_STAT_ring_peak) {
				WRITE_ONCE(p->local[i], 0);
				continue;
			}
			WRITE_ONCE(p->base[i], READ_ONCE(p->local[i]) +
				   atomic_long_read(&p->remote[i]));
		}
	}
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_stats_reset);

/**
 * damon_perf_state_name() - Name of a lifecycle state.
 * @state:	&enum damon_perf_state.
 *
 * Context: any.
 * Return: "UNINIT" ... "RUNNING", or "UNKNOWN".
 */
const char *damon_perf_state_name(int state)
{
	if (state < 0 || state >= NR_DAMON_PERF_STATES)
		return "UNKNOWN";
	return state_names[state];
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_state_name);

/**
 * damon_perf_stats_init() - Check the tables against the counter list.
 *
 * Context: module init.
 * Return: 0.
 */
int damon_perf_stats_init(void)
{
	BUILD_BUG_ON(ARRAY_SIZE(stat_names) != NR_DAMON_PERF_STATS);
	BUILD_BUG_ON(ARRAY_SIZE(stat_offs) != NR_DAMON_PERF_STATS);
	BUILD_BUG_ON(ARRAY_SIZE(state_names) != NR_DAMON_PERF_STATES);
	/* Every listed counter has a field (stat_offs), nothing else does. */
	BUILD_BUG_ON(offsetof(struct damon_perf_stats, cpu_state) !=
		     NR_DAMON_PERF_STATS * sizeof(unsigned long));
	return 0;
}

/**
 * damon_perf_stats_exit() - Nothing to release: the state is static.
 *
 * Context: module exit.
 */
void damon_perf_stats_exit(void)
{
}

#if DAMON_PERF_KUNIT_HOOKS
/**
 * damon_perf_stats_pcpu_alloc() - A zeroed private set of observe state.
 *
 * Context: process.
 * Return: the set or NULL.
 */
struct damon_perf_stats_pcpu __percpu *damon_perf_stats_pcpu_alloc(void)
{
	return alloc_percpu(struct damon_perf_stats_pcpu);
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_stats_pcpu_alloc);

/**
 * damon_perf_stats_pcpu_free() - Free a set from _alloc.
 * @p:	the set, not in use.
 *
 * Context: process.
 */
void damon_perf_stats_pcpu_free(struct damon_perf_stats_pcpu __percpu *p)
{
	free_percpu(p);
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_stats_pcpu_free);

/**
 * damon_perf_stats_swap() - Make @p the set the observe API works on.
 * @p:	a set from _alloc, or NULL for the module's own.
 *
 * For tests that must not disturb (or be disturbed by) the module's
 * counters; nothing else may observe meanwhile.
 *
 * Context: process.
 * Return: the set that was in use.
 */
struct damon_perf_stats_pcpu __percpu *
damon_perf_stats_swap(struct damon_perf_stats_pcpu __percpu *p)
{
	return xchg(&cur_set, p ? p : &damon_perf_pcpu);
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_stats_swap);
#endif
