/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The types of a monitoring context: targets, regions, attributes, probes,
 * sample filters and snapshots, with no function to call. The files below
 * the lifecycle (regions, drain, kdamond, perf_source, budget) include
 * this; ctx.h adds the lifecycle API that ctx.c implements. Configuration
 * is written under damon_perf_lock; the kdamond reads it only while the
 * context runs, and configuration that the kdamond uses may change only
 * while it is stopped, except the intervals, which are handed over through
 * @pending_attrs.
 */
#ifndef _DAMON_PERF_CTX_TYPES_H
#define _DAMON_PERF_CTX_TYPES_H

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>

#include <linux/damon_perf.h>	/* uapi: modes, limits shared with userspace */

#include "budget.h"
#include "tune.h"
#include "density.h"
#include "ring.h"

#define DAMON_PERF_MAX_CTXS		8
#define DAMON_PERF_MAX_TARGETS		16
#define DAMON_PERF_MAX_PROBES		3
#define DAMON_PERF_MAX_FILTERS		8
#define DAMON_PERF_MAX_FILTER_TIDS	16
#define DAMON_PERF_MAX_REGIONS		DAMON_PERF_NR_REGIONS_MAX
#define DAMON_PERF_NAME_LEN		32
/* sample intervals of a drain pass at most (bits of pass_seen) */
#define DAMON_PERF_PASS_MAX		64

extern struct mutex damon_perf_lock;

/**
 * struct damon_perf_hint - Few samples of a region on one to four pages,
 * kept over aggregations (samples split mode, split.c).
 * @page:	first of the pages.
 * @pages:	their number, 1 to %DAMON_PERF_SPAN_PAGES.
 * @nr:		the samples; 0: no hint.
 * @chance:	how likely uniform samples would have fallen there as they
 *		did, in 1/2^32 (damon_perf_density_span_chance()).
 */
struct damon_perf_hint {
	unsigned long page;
	u32 pages;
	u32 nr;
	u64 chance;
};

/**
 * struct damon_perf_region - A monitored address range.
 * @start:		first address.
 * @end:		one past the last address.
 * @nr_accesses:	accesses in the current aggregation interval.
 * @last_nr_accesses:	@nr_accesses of the previous aggregation.
 * @age:		aggregations since @nr_accesses last changed much.
 * @probe_hits:		raw samples per probe in this aggregation.
 * @events:		sum of the periods of the samples credited in this
 *			aggregation (saturating): the events they stand for.
 * @pass_seq:		first sample interval of the drain pass @pass_seen
 *			belongs to (presence mode).
 * @pass_seen:		sample intervals of that pass already credited, bit
 *			k for @pass_seq + k (presence mode: one access per
 *			interval, whatever order the rings give the reports).
 * @hint:		samples split mode: where the region's few samples of
 *			the latest aggregations with any lay, while on one
 *			or two pages (split.c); kdamond only.
 * @sampled:		the pages the samples credited to the region in this
 *			aggregation fell on (the pieces of a cut clip it, a
 *			merge joins it).
 * @list:		in &damon_perf_target.regions, sorted by @start.
 */
struct damon_perf_region {
	unsigned long start;
	unsigned long end;
	unsigned int nr_accesses;
	unsigned int last_nr_accesses;
	unsigned int age;
	u64 probe_hits[DAMON_PERF_MAX_PROBES];
	u64 events;
	u64 pass_seq;
	u64 pass_seen;
	struct damon_perf_hint hint;
	struct damon_perf_sampled sampled;
	struct list_head list;
};

/**
 * struct damon_perf_target - A process (vaddr) or physical range (paddr).
 * @id:		stable id within the context, from 1.
 * @pid:	process id for vaddr targets, 0 for paddr.
 * @pid_ref:	reference on @pid's struct pid (vaddr).
 * @start:	paddr: first address of the range.
 * @end:	paddr: one past the last address.
 * @dead:	the process exited; kept for reporting, no longer updated.
 *		Written by the kdamond with WRITE_ONCE, read by netlink.
 * @regions:	sorted, non-overlapping regions covering the target.
 * @nr_regions:	length of @regions; written with WRITE_ONCE (the kdamond
 *		changes it while netlink may read it with READ_ONCE).
 * @list:	in &damon_perf_ctx.targets.
 * @last_nr_regions: @nr_regions at the previous split (kdamond only).
 */
struct damon_perf_target {
	u32 id;
	pid_t pid;
	struct pid *pid_ref;
	unsigned long start;
	unsigned long end;
	bool dead;
	struct list_head regions;
	unsigned int nr_regions;
	struct list_head list;
	unsigned int last_nr_regions;
};

/**
 * struct damon_perf_attrs - Monitoring attributes of a context.
 * @sample_us:		sample (drain) interval.
 * @aggr_us:		aggregation interval, a multiple of @sample_us.
 * @update_us:		target update interval, a multiple of @sample_us.
 * @min_nr_regions:	lower bound of regions per target (>= 3).
 * @max_nr_regions:	upper bound of regions per target.
 * @mode:		&enum damon_perf_access_mode (uapi).
 * @ring_size:		report ring entries per CPU, a power of two.
 * @split:		&enum damon_perf_split_mode (uapi): how regions split.
 * @cpu_budget:		CPU budget in 1/DAMON_PERF_CPU_BUDGET_SCALE percent
 *			of one CPU, 0 for none (budget.c).
 * @samples_goal:	samples an aggregation should hold, 0 for a fixed
 *			@aggr_us (tune.c).
 * @goal_aggrs:		aggregations one tuning step observes (>= 1).
 * @min_aggr_us:	shortest tuned aggregation interval, 0: derived.
 * @max_aggr_us:	longest tuned aggregation interval, 0: derived.
 */
struct damon_perf_attrs {
	u64 sample_us;
	u64 aggr_us;
	u64 update_us;
	u32 min_nr_regions;
	u32 max_nr_regions;
	u32 mode;
	u32 ring_size;
	u32 split;
	u32 cpu_budget;
	u32 samples_goal;
	u32 goal_aggrs;
	u64 min_aggr_us;
	u64 max_aggr_us;
};

/**
 * struct damon_perf_probe_attr - What userspace asked for one perf probe.
 * @type:		perf_event_attr.type (PMU type).
 * @config:		perf_event_attr.config.
 * @config1:		perf_event_attr.config1.
 * @config2:		perf_event_attr.config2.
 * @sample_period:	sample period, or sample frequency when @freq.
 * @wakeup_events:	perf_event_attr.wakeup_events.
 * @weight:		credit weight of this probe's samples.
 * @precise_ip:		perf_event_attr.precise_ip.
 * @freq:		@sample_period is a frequency.
 * @sample_phys_addr:	ask for PERF_SAMPLE_PHYS_ADDR.
 * @sample_weight_struct: ask for PERF_SAMPLE_WEIGHT_STRUCT.
 * @exclude_kernel:	perf_event_attr.exclude_kernel.
 * @exclude_hv:		perf_event_attr.exclude_hv.
 * @exclude_user:	perf_event_attr.exclude_user.
 *
 * Fields mirror &struct perf_event_attr; see perf_source.c.
 */
struct damon_perf_probe_attr {
	u32 type;
	u64 config;
	u64 config1;
	u64 config2;
	u64 sample_period;	/* or sample_freq when @freq */
	u32 wakeup_events;
	u32 weight;		/* credit weight of this probe's samples */
	u8 precise_ip;
	bool freq;
	bool sample_phys_addr;
	bool sample_weight_struct;
	bool exclude_kernel;
	bool exclude_hv;
	bool exclude_user;
};

/**
 * struct damon_perf_filter - A sample filter (uapi DAMON_PERF_FILTER_*).
 * @type:	cpumask, tid or write.
 * @allow:	allow (true) or reject (false) what matches.
 * @cpus:	cpumask filter: CPUs that match.
 * @tids:	tid filter: thread ids that match (global ids once set).
 * @nr_tids:	length of @tids.
 */
struct damon_perf_filter {
	u32 type;
	bool allow;
	cpumask_t cpus;
	pid_t tids[DAMON_PERF_MAX_FILTER_TIDS];
	unsigned int nr_tids;
};

/**
 * struct damon_perf_snap_region - One region in a snapshot.
 * @target_id:		id of its target.
 * @nr_accesses:	accesses in the aggregation (see access mode).
 * @age:		aggregations since @nr_accesses last changed much.
 * @start:		first address.
 * @end:		one past the last address.
 * @probe_hits:		raw samples per probe.
 * @rate:		estimated accesses per second.
 * @sampled:		the pages its samples fell on (see
 *			&struct damon_perf_region).
 */
struct damon_perf_snap_region {
	u32 target_id;
	u32 nr_accesses;
	u32 age;
	u64 start;
	u64 end;
	u64 probe_hits[DAMON_PERF_MAX_PROBES];
	u64 rate;		/* estimated accesses per second */
	struct damon_perf_sampled sampled;
};

/**
 * struct damon_perf_snapshot - Result of one aggregation, immutable.
 * @kref:	readers take a reference with damon_perf_snapshot_get().
 * @seq:	aggregation number, from 1.
 * @time_ns:	ktime_get_ns() at aggregation.
 * @aggr_us:	length of the measurement its regions come from: the
 *		aggregation interval, or @windows of them.
 * @nr_samples:	samples credited in the measurement that ended (confidence
 *		met or low) or in the one going on (carried).
 * @floor:	the sample floor the aggregation was judged against.
 * @confidence:	&enum damon_perf_confidence (uapi).
 * @carried:	aggregations since the regions were measured (carried), 0
 *		otherwise.
 * @windows:	aggregation intervals the regions' measurement spans.
 * @nr_regions:	length of @regions.
 * @regions:	every region of every target, by target then address.
 */
struct damon_perf_snapshot {
	struct kref kref;
	u64 seq;		/* aggregation number, from 1 */
	u64 time_ns;		/* ktime_get_ns() at aggregation */
	u64 aggr_us;		/* aggregation interval it covers */
	u64 nr_samples;
	u64 floor;
	u32 confidence;
	u32 carried;
	u32 windows;
	u32 nr_regions;
	struct damon_perf_snap_region regions[];
};

/**
 * struct damon_perf_samples - Where an aggregation's samples landed.
 * @buf:	the samples kept from those credited in this aggregation.
 * @nr:		samples held.
 * @cap:	length of @buf; grows at high-water marks, up to
 *		DAMON_PERF_MAX_SPLIT_SAMPLES.
 * @tmp:	@cap samples of scratch for the radix sort at aggregation
 *		(allocated with @buf; NULL: the sort is a heapsort).
 * @radix:	the radix sort's counts of one key byte (off the stack).
 * @seen:	samples credited in this aggregation. Above @nr when @buf
 *		holds a uniform random subset of them (reservoir sampling).
 * @target_seen: samples credited per target (by list position).
 *
 * Filled by the drain in samples split mode, consumed (sorted) by the
 * split at aggregation; kdamond only.
 */
struct damon_perf_samples {
	struct damon_perf_sample *buf;
	struct damon_perf_sample *tmp;
	u32 nr;
	u32 cap;
	u32 seen;
	u32 target_seen[DAMON_PERF_MAX_TARGETS];
	u32 radix[256];
};

/**
 * struct damon_perf_floor - The sample floor of a context's aggregations.
 * @avg:	decaying average of the samples of the published measurements,
 *		in 1/DAMON_PERF_FLOOR_AVG_SCALE samples.
 * @nr_hot:	regions with accesses in the last published measurement.
 * @carried:	aggregations that carried it forward since.
 * @published:	a measurement was published since the context started.
 *
 * regions.c (damon_perf_floor_judge()) decides; the kdamond only.
 */
struct damon_perf_floor {
	u64 avg;
	u32 nr_hot;
	u32 carried;
	bool published;
};

struct damon_perf_source;	/* perf_source.c: one probe's per-CPU events */

/**
 * struct damon_perf_probe - A perf probe slot (index + 1 is probe_idx).
 * @used:	slot holds a probe.
 * @attr:	its attributes.
 * @src:	its armed per-CPU events, NULL while stopped.
 * @refused:	periods the PMU refused the CPU budget since the start
 *		(a raise, a lowering; 0: none), not asked for again until the
 *		next start (the probe's attributes change only while
 *		stopped). Kdamond only.
 */
struct damon_perf_probe {
	bool used;
	struct damon_perf_probe_attr attr;
	struct damon_perf_source *src;
	u64 refused[2];
};

struct cred;
struct pid_namespace;

/**
 * struct damon_perf_owner - Who a context belongs to, or who asks.
 * @cred:	credentials, a reference (get_current_cred()); the effective
 *		uid is what is compared.
 * @pidns:	active PID namespace, a reference (get_pid_ns()); the pids a
 *		context's targets were named by are of this namespace.
 *
 * Two are the same owner when both the euid and the PID namespace are
 * (damon_perf_owner_same()): a user in a container does not own what the
 * same uid created on the host or in another container.
 */
struct damon_perf_owner {
	const struct cred *cred;
	struct pid_namespace *pidns;
};

/**
 * struct damon_perf_ctx - A monitoring context: what to sample, where, and
 * the results.
 * @id:			stable id, from 1; immutable.
 * @name:		unique name; immutable.
 * @owner:		the creator's euid and PID namespace; immutable.
 * @ops:		uapi DAMON_PERF_OPS_VADDR or DAMON_PERF_OPS_PADDR.
 * @state:		uapi DAMON_PERF_CTX_STATE_*; damon_perf_lock.
 * @attrs:		the attributes in effect. Written under damon_perf_lock
 *			while stopped, by the kdamond (apply_pending()) while
 *			running.
 * @pending_lock:	protects @pending_attrs and @attrs_pending.
 * @pending_attrs:	intervals and mode tuned while running; the kdamond
 *			takes them at its next sample interval.
 * @attrs_pending:	@pending_attrs holds values not yet in @attrs.
 * @targets:		&struct damon_perf_target list, in id order.
 * @nr_targets:		length of @targets.
 * @next_target_id:	id the next target gets.
 * @probes:		perf probe slots; configuration under damon_perf_lock.
 * @filters:		sample filters (first @nr_filters used).
 * @nr_filters:		filters in use.
 * @rings:		per-CPU report rings, allocated at start and freed at
 *			stop, after every producer is gone.
 * @kdamond:		the monitoring thread, NULL while stopped; a task
 *			reference is held from start to stop.
 * @kdamond_wait:	where the kdamond sleeps between sample intervals.
 * @kdamond_wake:	set by the rings' high watermark to wake it early.
 * @kdamond_exited:	what the kdamond calls when it leaves its loop on its
 *			own (damon_perf_kdamond_start()).
 * @snap_lock:		protects the @snap pointer (not the snapshot).
 * @snap:		latest aggregation, immutable, replaced under
 *			@snap_lock; readers use damon_perf_snapshot_get().
 * @drain_snap:		drain scratch: the sorted region array (kdamond only,
 *			see drain.c).
 * @drain_snap_cap:	capacity of @drain_snap in entries.
 * @sample_seq:		first sample interval of the current drain pass,
 *			counted from 1 at start (kdamond; KUnit reads it
 *			with READ_ONCE()).
 * @nr_passes:		passes ended since start (kdamond; KUnit reads it
 *			with READ_ONCE()).
 * @pass_len:		sample intervals of the current pass (kdamond.c);
 *			0 or 1: every report of the pass is credited to
 *			@sample_seq.
 * @pass_start_ns:	damon_perf_clock_ns() the current pass began: a
 *			report stamped k sample intervals later is credited
 *			to interval @sample_seq + k.
 * @sample_wakeups:	the kdamond drains at every sample interval (the
 *			sample_wakeups module parameter when started), not
 *			once per pass of up to DAMON_PERF_PASS_MAX intervals.
 * @samples:		samples kept for the samples split mode (kdamond only).
 * @floor:		the sample floor's state (kdamond only; reset at start).
 * @max_carried:	aggregations an answer may be carried forward at most
 *			(the max_carried module parameter when started; 0:
 *			no floor, every aggregation publishes its samples).
 * @stale_drops:	reports older than one interval; WRITE_ONCE() by the
 *			kdamond, READ_ONCE() by netlink.
 * @arm_failures:	per-CPU event creation failures; updated by the sync
 *			works of every probe.
 * @list:		in the global context list (damon_perf_lock).
 * @last_drain_ns:	damon_perf_clock_ns() of the previous drain, 0 before
 *			the first.
 * @aggr_start_ns:	ktime_get_ns() the current aggregation began.
 * @kdamond_done:	the kdamond left its loop on its own (no live target).
 * @source_armed:	damon_perf_source_arm() succeeded; stop disarms.
 * @budget:		CPU budget state: the cost accounting of the running
 *			context (handler and drain time, the last measured
 *			cost, the period raises and lowers); written by the
 *			kdamond only, read by netlink and debugfs (budget.c).
 * @tune:		intervals tuning state: the aggregation interval in
 *			force and the last step's observation; written by the
 *			kdamond only, read by netlink (tune.c).
 *
 * Created by damon_perf_ctx_new() and freed by damon_perf_ctx_destroy(),
 * both under damon_perf_lock; Documentation/design.rst describes the
 * lifetimes of its parts.
 */
struct damon_perf_ctx {
	u32 id;
	char name[DAMON_PERF_NAME_LEN];
	struct damon_perf_owner owner;	/* the creator; immutable */
	u32 ops;			/* uapi DAMON_PERF_OPS_VADDR/PADDR */
	u32 state;			/* uapi DAMON_PERF_CTX_STATE_* */

	struct damon_perf_attrs attrs;
	/* intervals tuned while running; kdamond applies them */
	spinlock_t pending_lock;
	struct damon_perf_attrs pending_attrs;
	bool attrs_pending;

	struct list_head targets;
	unsigned int nr_targets;
	u32 next_target_id;

	struct damon_perf_probe probes[DAMON_PERF_MAX_PROBES];
	struct damon_perf_filter filters[DAMON_PERF_MAX_FILTERS];
	unsigned int nr_filters;

	struct damon_perf_rings rings;
	struct task_struct *kdamond;
	wait_queue_head_t kdamond_wait;
	bool kdamond_wake;
	void (*kdamond_exited)(struct damon_perf_ctx *ctx);

	/* latest aggregation, replaced under snap_lock */
	spinlock_t snap_lock;
	struct damon_perf_snapshot *snap;

	/* drain scratch (kdamond only), see drain.c */
	void *drain_snap;
	size_t drain_snap_cap;
	u64 sample_seq;			/* first interval of the pass */
	u64 nr_passes;			/* passes ended since start */
	unsigned int pass_len;		/* intervals of the pass */
	u64 pass_start_ns;		/* damon_perf_clock_ns() */
	bool sample_wakeups;		/* a drain every sample interval */
	struct damon_perf_samples samples;	/* split mode samples */
	struct damon_perf_floor floor;		/* regions.c */
	u32 max_carried;

	/* written by the kdamond (WRITE_ONCE), read by netlink (READ_ONCE) */
	u64 stale_drops;		/* reports older than one interval */
	/* per-CPU event creation failures; the sync works of every probe */
	atomic_t arm_failures;
	struct list_head list;		/* in the global context list */

	/* damon_perf_clock_ns() of the last drain, 0 before any */
	u64 last_drain_ns;
	u64 aggr_start_ns;		/* ktime_get_ns() at its start */
	bool kdamond_done;		/* kdamond left its loop on its own */
	bool source_armed;		/* damon_perf_source_arm() succeeded */
	struct damon_perf_budget budget;	/* CPU budget, budget.c */
	struct damon_perf_tune tune;		/* intervals, tune.c */
};

#define damon_perf_for_each_target(t, ctx) \
	list_for_each_entry(t, &(ctx)->targets, list)
#define damon_perf_for_each_region(r, t) \
	list_for_each_entry(r, &(t)->regions, list)
#define damon_perf_for_each_region_safe(r, next, t) \
	list_for_each_entry_safe(r, next, &(t)->regions, list)

#endif /* _DAMON_PERF_CTX_TYPES_H */
