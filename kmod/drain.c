// SPDX-License-Identifier: GPL-2.0
/*
 * Drain: turn the reports queued in a context's rings into region counts.
 *
 * Each drain pass snapshots the regions of the live targets into a reusable
 * array, sorted by address within each target (and, for paddr, over the
 * whole array: paddr targets are kept sorted and never overlap). Each
 * report is then checked (stale window, probe index, sample filters),
 * routed to its target (vaddr: by thread group id) and binary searched.
 * In samples split mode the drain also keeps the target, page, sample
 * interval and probe of every credited sample in ctx->samples for the
 * split at aggregation: the buffer grows here, before a pass, to hold the
 * reports the rings hold, while it holds every sample of the aggregation;
 * once full, reservoir sampling keeps a uniform subset, so the inner loop
 * never allocates.
 *
 * Everything here runs in the kdamond, or in KUnit with the context
 * stopped. Test builds hand every report drained to a hook first, which
 * tests/replay uses to record a live stream and replay it per sample
 * interval and per pass.
 */
#include <linux/bsearch.h>
#include <linux/cpumask.h>
#include <linux/overflow.h>
#include <linux/mm.h>
#include <linux/random.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>

#include "drain.h"
#include "stats.h"

/*
 * Grow the snapshot only at a new high-water mark, by half again at least
 * (a count that creeps up costs a logarithmic number of allocations), and
 * with kvmalloc: the largest context validation accepts,
 * DAMON_PERF_MAX_TARGETS targets of DAMON_PERF_MAX_REGIONS regions, needs
 * 160000 entries (5 MiB), beyond KMALLOC_MAX_SIZE. The entries are not
 * copied: every pass fills them anew. On failure the old array stays and
 * the pass counts its reports as miss_nomem; that count is the report, so
 * the allocator's warnings are off.
 */
static struct damon_perf_drain_ent *reserve(struct damon_perf_ctx *ctx,
					    size_t nr)
{
	struct damon_perf_drain_ent *ents;
	size_t cap;

	if (nr <= ctx->drain_snap_cap)
		return ctx->drain_snap;
	cap = max(nr, ctx->drain_snap_cap + ctx->drain_snap_cap / 2);
	ents = kvmalloc_array(cap, sizeof(*ents), GFP_KERNEL | __GFP_NOWARN);
	if (!ents && cap > nr) {
		cap = nr;
		ents = kvmalloc_array(cap, sizeof(*ents),
				      GFP_KERNEL | __GFP_NOWARN);
	}
	if (!ents)
		return NULL;
	kvfree(ctx->drain_snap);
	ctx->drain_snap = ents;
	ctx->drain_snap_cap = cap;
	return ents;
}

/*
 * Replace the buffer by one of @cap samples holding the same samples, and
 * its scratch for the sort by one as long (without it the sort falls
 * back to a heapsort).
 */
static int samples_grow(struct damon_perf_samples *s, u32 cap)
{
	struct damon_perf_sample *buf;

	buf = kvmalloc_array(cap, sizeof(*buf), GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	if (s->nr)
		memcpy(buf, s->buf, s->nr * sizeof(*buf));
	kvfree(s->buf);
	kvfree(s->tmp);
	s->buf = buf;
	s->cap = cap;
	s->tmp = kvmalloc_array(cap, sizeof(*s->tmp), GFP_KERNEL);
	return 0;
}

/*
 * Grow before a pass, while the buffer still holds every sample of the
 * aggregation, so that it is at most half full once the pass added the
 * @backlog reports the rings hold: a burst (a NUMA scan's hinting faults
 * on a whole range at once) would otherwise pass the buffer within one
 * pass, and the uniform subset kept from there on can lose the only
 * sample of a sparse region, which its counters still count: the cut
 * then leaves whole a wide region that one page made hot. Up to
 * DAMON_PERF_MAX_SPLIT_SAMPLES; a failure keeps the old buffer (a
 * smaller subset).
 */
static void samples_reserve(struct damon_perf_samples *s, u64 backlog)
{
	u32 cap = s->cap ? s->cap : DAMON_PERF_SPLIT_SAMPLES_MIN;

	if (s->cap && s->seen != s->nr)
		return;		/* subsampling started: keep it uniform */
	while (cap < DAMON_PERF_MAX_SPLIT_SAMPLES && s->nr + backlog >= cap / 2)
		cap *= 2;
	if (cap != s->cap)
		samples_grow(s, cap);
}

/* Keep a sample: append while there is room, then reservoir sampling. */
static void samples_keep(struct damon_perf_samples *s, unsigned int pos,
			 u64 key, u32 tag)
{
	u32 j;

	if (s->seen == U32_MAX)
		return;
	s->seen++;
	if (s->target_seen[pos] < U32_MAX)
		s->target_seen[pos]++;
	if (!s->cap)
		return;		/* no buffer: counted, not kept */
	if (s->nr < s->cap) {
		s->buf[s->nr].key = key;
		s->buf[s->nr++].tag = tag;
		return;
	}
	j = get_random_u32_below(s->seen);
	if (j < s->cap) {
		s->buf[j].key = key;
		s->buf[j].tag = tag;
	}
}

/**
 * damon_perf_drain_samples_presize() - Size the sample buffer at a start.
 * @ctx:	the context, starting, in samples split mode.
 * @ring_size:	entries of each CPU's ring.
 *
 * For what one drain pass can bring (every online CPU's ring full), twice
 * over, up to DAMON_PERF_MAX_SPLIT_SAMPLES (16 bytes a sample, and as
 * much scratch for the sort: at most 2 MiB), so that the kdamond rarely
 * allocates while it monitors: each allocation may sleep, and a
 * kdamond woken only at the end of its aggregations
 * (tests/vm/kdamond_passes.sh) would sleep more than it waits. A buffer
 * already as large stays; a failure keeps the buffer there is (the
 * drain grows it, damon_perf_drain_prepare()).
 *
 * Context: process context, the context not running.
 */
void damon_perf_drain_samples_presize(struct damon_perf_ctx *ctx,
				      unsigned int ring_size)
{
	struct damon_perf_samples *s = &ctx->samples;
	u64 want = 2ULL * num_online_cpus() * ring_size;
	u32 cap = s->cap ? s->cap : DAMON_PERF_SPLIT_SAMPLES_MIN;

	while (cap < DAMON_PERF_MAX_SPLIT_SAMPLES && cap < want)
		cap *= 2;
	if (cap != s->cap) {
		s->nr = 0;
		samples_grow(s, cap);
	}
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_drain_samples_presize);

/**
 * damon_perf_drain_samples_reset() - Start the next aggregation's samples.
 * @ctx:	the context.
 *
 * When the aggregation saw more samples than the buffer holds, the buffer
 * doubles (up to DAMON_PERF_MAX_SPLIT_SAMPLES) for the next one.
 *
 * Context: the kdamond of @ctx, or a caller owning a stopped @ctx.
 */
void damon_perf_drain_samples_reset(struct damon_perf_ctx *ctx)
{
	struct damon_perf_samples *s = &ctx->samples;

	s->nr = 0;
	if (s->seen > s->cap && s->cap &&
	    s->cap < DAMON_PERF_MAX_SPLIT_SAMPLES)
		samples_grow(s, s->cap * 2);
	s->seen = 0;
	memset(s->target_seen, 0, sizeof(s->target_seen));
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_drain_samples_reset);

/**
 * damon_perf_drain_prepare() - Snapshot the regions for a drain pass.
 * @ctx:	the context.
 * @d:		the pass to set up.
 *
 * Reports older than one sample interval before the previous pass
 * (@ctx->last_drain_ns) are stale: they belong to an interval already
 * drained. Timestamps and @ctx->last_drain_ns come from one clock for all
 * CPUs, damon_perf_clock_ns(). Before the first pass after a start
 * (@ctx->last_drain_ns is 0) nothing is stale: the rings were allocated
 * by that start. AUX reports are stamped when the kdamond decodes them,
 * just before it drains the rings, so the window never drops them: for
 * them it bounds nothing but the decode itself.
 *
 * Context: the kdamond of @ctx, or a caller owning a stopped @ctx.
 * Return: 0, or -ENOMEM: no snapshot, the pass cannot credit (@d is set
 * up for counting its reports).
 */
int damon_perf_drain_prepare(struct damon_perf_ctx *ctx,
			     struct damon_perf_drain *d)
{
	struct damon_perf_target *t;
	struct damon_perf_region *r;
	struct damon_perf_drain_ent *ents;
	size_t total = 0;
	unsigned int i = 0, pos = 0;
	u64 window = ctx->attrs.sample_us * NSEC_PER_USEC;

	memset(d, 0, sizeof(*d));
	d->ctx = ctx;
	d->seq = ctx->sample_seq;
	d->pass_len = max(ctx->pass_len, 1U);
	d->pass_start_ns = ctx->pass_start_ns;
	d->sample_ns = window;
	d->mode = ctx->attrs.mode;
	if (ctx->attrs.split == DAMON_PERF_SPLIT_SAMPLES) {
		BUILD_BUG_ON(DAMON_PERF_MAX_TARGETS >
			     1ULL << (64 - DAMON_PERF_SAMPLE_POS_SHIFT));
		samples_reserve(&ctx->samples,
				damon_perf_rings_backlog(&ctx->rings));
		d->keep = true;
	}
	d->stale_before = ctx->last_drain_ns > window ?
			  ctx->last_drain_ns - window : 0;
	damon_perf_for_each_target(t, ctx)
		if (!t->dead)
			total += t->nr_regions;
	ents = reserve(ctx, total);
	if (!ents && total)
		return -ENOMEM;
	d->ents = ents;
	damon_perf_for_each_target(t, ctx) {
		struct damon_perf_drain_seg *seg;

		if (t->dead) {
			pos++;
			continue;
		}
		seg = &d->segs[d->nr_segs++];
		seg->t = t;
		seg->pos = pos++;
		seg->first = i;
		damon_perf_for_each_region(r, t) {
			ents[i].t = t;
			ents[i].r = r;
			ents[i].start = r->start;
			ents[i].end = r->end;
			i++;
		}
		seg->nr = i - seg->first;
	}
	d->nr_ents = i;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_drain_prepare);

static bool filter_matches(const struct damon_perf_filter *f,
			   const struct damon_perf_report *report)
{
	unsigned int i;

	switch (f->type) {
	case DAMON_PERF_FILTER_CPUMASK:
		return report->cpu >= 0 && report->cpu < nr_cpu_ids &&
		       cpumask_test_cpu(report->cpu, &f->cpus);
	case DAMON_PERF_FILTER_TID:
		for (i = 0; i < f->nr_tids && i < DAMON_PERF_MAX_FILTER_TIDS;
		     i++)
			if (f->tids[i] == report->tid)
				return true;
		return false;
	case DAMON_PERF_FILTER_WRITE:
		return report->is_write;
	}
	return false;
}

/**
 * damon_perf_filters_reject() - Apply sample filters to a report.
 * @filters:	the filters, in evaluation order.
 * @nr:		their number.
 * @report:	the report.
 *
 * The first filter that matches decides: an allow filter keeps the report,
 * a reject filter drops it. A report no filter matches gets the verdict of
 * the last filter's @allow. Without filters every report is kept.
 *
 * Context: any.
 * Return: true when the report is to be dropped.
 */
bool damon_perf_filters_reject(const struct damon_perf_filter *filters,
			       unsigned int nr,
			       const struct damon_perf_report *report)
{
	unsigned int i;

	if (!nr)
		return false;
	for (i = 0; i < nr; i++)
		if (filter_matches(&filters[i], report))
			return !filters[i].allow;
	return !filters[nr - 1].allow;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_filters_reject);

static int cmp_addr(const void *key, const void *elt)
{
	unsigned long addr = *(const unsigned long *)key;
	const struct damon_perf_drain_ent *e = elt;

	if (addr < e->start)
		return -1;
	if (addr >= e->end)
		return 1;
	return 0;
}

/* The entry of @ents containing @addr, or NULL. */
static const void *search(const struct damon_perf_drain_ent *ents,
			  unsigned int nr, unsigned long addr)
{
	return bsearch(&addr, ents, nr, sizeof(*ents), cmp_addr);
}

static void miss(struct damon_perf_drain *d,
		 const struct damon_perf_report *report, unsigned long addr,
		 enum damon_perf_miss_reason reason)
{
	d->why = reason;
	damon_perf_observe_miss(addr, report->cpu, reason);
}

/*
 * The events a report stands for: the period the producer carried, else
 * (AUX decoders, which know no per-record period) the probe's fixed
 * sample_period, else 1.
 */
static u64 report_period(const struct damon_perf_ctx *ctx,
			 const struct damon_perf_report *report)
{
	const struct damon_perf_probe *p = &ctx->probes[report->probe_idx - 1];

	if (report->period)
		return report->period;
	if (p->used && !p->attr.freq && p->attr.sample_period)
		return p->attr.sample_period;
	return 1;
}

/*
 * The sample interval a report is credited to: the one its timestamp falls
 * in, counted from the start of the pass; one taken before the pass began
 * (the last drain missed it: it was being written) goes to the pass's
 * first, one taken after the pass's last interval ended (while the kdamond
 * woke up) to its last. With one interval per pass (the sample_wakeups
 * kdamond) every report goes to the pass's interval, as the drain at the
 * end of each interval always did.
 */
static u64 report_seq(const struct damon_perf_drain *d,
		      const struct damon_perf_report *report)
{
	u64 k;

	if (d->pass_len <= 1 || report->time_ns <= d->pass_start_ns ||
	    !d->sample_ns)
		return d->seq;
	k = div64_u64(report->time_ns - d->pass_start_ns, d->sample_ns);
	return d->seq + min_t(u64, k, d->pass_len - 1);
}

/*
 * Credit one sample of a probe of weight w (0 counts as 1) taken in sample
 * interval @seq: probe_hits counts it once (raw); events adds period x w;
 * nr_accesses adds w in count mode and, in presence mode, 1 at most per
 * sample interval (a weight says how much an access is worth, not how many
 * sample intervals saw one): pass_seen keeps the intervals of the pass
 * already credited, so the rings' order (one CPU's reports after
 * another's) does not matter. Counters saturate: a long aggregation in
 * count mode must not wrap.
 */
static void credit(struct damon_perf_drain *d, struct damon_perf_region *r,
		   const struct damon_perf_report *report, unsigned long addr,
		   u64 seq)
{
	unsigned int probe = report->probe_idx - 1;
	u32 w = max_t(u32, d->ctx->probes[probe].attr.weight, 1);
	unsigned long page = addr & PAGE_MASK;
	u64 events;

	if (r->probe_hits[probe] < U64_MAX)
		r->probe_hits[probe]++;
	/* every sample is a sampled page, presence mode's repeats too */
	damon_perf_sampled_add(&r->sampled, page,
			       min(page + PAGE_SIZE, r->end));
	if (check_mul_overflow(report_period(d->ctx, report), (u64)w,
			       &events) ||
	    check_add_overflow(r->events, events, &r->events))
		r->events = U64_MAX;
	/* a pass's intervals are the bits of pass_seen */
	BUILD_BUG_ON(BITS_PER_TYPE(r->pass_seen) < DAMON_PERF_PASS_MAX);
	if (d->mode != DAMON_PERF_MODE_COUNT) {
		u64 bit = BIT_ULL(seq - d->seq);

		if (r->pass_seq != d->seq) {
			r->pass_seq = d->seq;
			r->pass_seen = 0;
		}
		if (r->pass_seen & bit)
			return;
		r->pass_seen |= bit;
		w = 1;
	}
	r->nr_accesses = w > UINT_MAX - r->nr_accesses ? UINT_MAX :
			 r->nr_accesses + w;
}

/* The segment holding snapshot entry @e (paddr: one search for all). */
static const struct damon_perf_drain_seg *
seg_of(const struct damon_perf_drain *d, const struct damon_perf_drain_ent *e)
{
	unsigned int idx = e - d->ents, i;

	for (i = 0; i + 1 < d->nr_segs; i++)
		if (idx < d->segs[i].first + d->segs[i].nr)
			break;
	return &d->segs[i];
}

/**
 * damon_perf_drain_report() - Credit one report to its region.
 * @d:		the pass, from damon_perf_drain_prepare().
 * @report:	the report.
 *
 * probe_hits[probe_idx - 1] of the region counts every accepted sample,
 * events adds the period the sample stands for times its probe's weight;
 * nr_accesses adds the probe's weight in count mode and counts at most one
 * per sample interval in presence mode (the interval of the pass the
 * report's timestamp falls in); all saturate at their maximum. Every
 * rejection is counted by reason. In samples split mode the credited
 * sample's key is kept for the split.
 *
 * Context: the kdamond of @d->ctx, or a caller owning a stopped context.
 * Return: true when a region was credited.
 */
bool damon_perf_drain_report(struct damon_perf_drain *d,
			     const struct damon_perf_report *report)
{
	struct damon_perf_ctx *ctx = d->ctx;
	const struct damon_perf_drain_ent *e = NULL;
	const struct damon_perf_drain_seg *seg = NULL;
	bool vaddr = ctx->ops == DAMON_PERF_OPS_VADDR;
	unsigned long addr = vaddr ? report->vaddr : report->paddr;
	unsigned int i;
	u64 seq;

	d->total++;
	if (report->time_ns < d->stale_before) {
		/* netlink reads it while the kdamond runs */
		WRITE_ONCE(ctx->stale_drops, ctx->stale_drops + 1);
		miss(d, report, addr, DAMON_PERF_MISS_STALE);
		return false;
	}
	/* rings refuse 0; anything above the slots is a producer bug */
	if (!report->probe_idx || report->probe_idx > DAMON_PERF_MAX_PROBES) {
		miss(d, report, addr, DAMON_PERF_MISS_FILTER);
		return false;
	}
	if (damon_perf_filters_reject(ctx->filters, ctx->nr_filters, report)) {
		miss(d, report, addr, DAMON_PERF_MISS_FILTER);
		return false;
	}
	if (vaddr) {
		for (i = 0; i < d->nr_segs; i++)
			if (d->segs[i].t->pid == report->tgid)
				break;
		if (i == d->nr_segs) {
			miss(d, report, addr, DAMON_PERF_MISS_TGID);
			return false;
		}
		seg = &d->segs[i];
		if (addr)
			e = search(d->ents + seg->first, seg->nr, addr);
	} else if (addr) {
		e = search(d->ents, d->nr_ents, addr);
	}
	if (!e) {
		miss(d, report, addr, DAMON_PERF_MISS_REGION);
		return false;
	}
	if (report->size > e->end - addr) {
		miss(d, report, addr, DAMON_PERF_MISS_BOUNDARY);
		return false;
	}
	seq = report_seq(d, report);
	credit(d, e->r, report, addr, seq);
	if (d->keep) {
		seg = seg ?: seg_of(d, e);
		samples_keep(&ctx->samples, seg->pos,
			     damon_perf_sample_key(seg->pos, addr),
			     damon_perf_sample_tag(seq,
						   report->probe_idx - 1));
	}
	damon_perf_observe_match(report->cpu);
	d->matched++;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_drain_report);

#ifdef DAMON_PERF_TEST_EXPORTS
damon_perf_drain_hook_fn __rcu damon_perf_drain_record_hook;
EXPORT_SYMBOL_IF_KUNIT(damon_perf_drain_record_hook);

/*
 * Out of line so that a test build shows in /proc/kallsyms as the text
 * symbol damon_perf_drain_record (tests/vm/basic.sh): the hook variable is
 * data, which module kallsyms keep only with CONFIG_KALLSYMS_ALL (Debian's
 * arm64 6.1 has it off).
 */
static noinline void
damon_perf_drain_record(const struct damon_perf_drain *d,
			const struct damon_perf_report *report)
{
	damon_perf_drain_hook_fn hook;

	rcu_read_lock();
	hook = rcu_dereference(damon_perf_drain_record_hook);
	if (hook)
		hook(d, report);
	rcu_read_unlock();
}
#else
static void damon_perf_drain_record(const struct damon_perf_drain *d,
				    const struct damon_perf_report *report)
{
}
#endif

#ifdef DAMON_PERF_TEST_EXPORTS
damon_perf_drain_outcome_fn __rcu damon_perf_drain_outcome_hook;
EXPORT_SYMBOL_IF_KUNIT(damon_perf_drain_outcome_hook);

static void drain_outcome(const struct damon_perf_report *report,
			  bool credited, enum damon_perf_miss_reason why)
{
	damon_perf_drain_outcome_fn hook;

	rcu_read_lock();
	hook = rcu_dereference(damon_perf_drain_outcome_hook);
	if (hook)
		hook(report, credited, why);
	rcu_read_unlock();
}
#else
static void drain_outcome(const struct damon_perf_report *report,
			  bool credited, enum damon_perf_miss_reason why)
{
}
#endif

static void drain_one(const struct damon_perf_report *report, void *arg)
{
	struct damon_perf_drain *d = arg;
	bool credited;

	damon_perf_drain_record(d, report);
	credited = damon_perf_drain_report(d, report);
	drain_outcome(report, credited, d->why);
}

/* A report of a pass without a snapshot: counted, not credited. */
static void drain_lost(const struct damon_perf_report *report, void *arg)
{
	struct damon_perf_drain *d = arg;

	d->total++;
	miss(d, report, d->ctx->ops == DAMON_PERF_OPS_VADDR ? report->vaddr :
	     report->paddr, DAMON_PERF_MISS_NOMEM);
	drain_outcome(report, false, DAMON_PERF_MISS_NOMEM);
}

/**
 * damon_perf_drain_rings() - Drain every pending ring of a context.
 * @ctx:	the context, with its rings.
 *
 * Every pending report is consumed: credited, or counted by the reason it
 * was not (perf_stats miss_* and stale; miss_nomem for every report of a
 * pass that could not allocate its region snapshot).
 *
 * Context: the kdamond of @ctx, or damon_perf_ctx_stop() (and a failed
 * damon_perf_ctx_start()) once the probes are disarmed and no kdamond
 * runs (the last drain).
 * Return: the number of reports consumed.
 */
unsigned int damon_perf_drain_rings(struct damon_perf_ctx *ctx)
{
	struct damon_perf_drain d;
	u64 now = damon_perf_clock_ns();
	unsigned int n;

	if (!damon_perf_rings_pending(&ctx->rings)) {
		ctx->last_drain_ns = now;
		return 0;
	}
	if (damon_perf_drain_prepare(ctx, &d)) {
		/*
		 * No snapshot, no memory: nothing can be credited. Left in
		 * the rings, the reports would fill them (and the last
		 * drain, at stop, would free them uncounted); consumed and
		 * counted as miss_nomem instead, the rings keep accepting
		 * and the next pass tries again.
		 */
		n = damon_perf_rings_drain_pending(&ctx->rings, drain_lost, &d);
	} else {
		n = damon_perf_rings_drain_pending(&ctx->rings, drain_one, &d);
	}
	damon_perf_observe_drain(d.total, d.matched);
	ctx->last_drain_ns = now;
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_drain_rings);

/**
 * damon_perf_drain_free() - Free the drain snapshot and samples of a context.
 * @ctx:	a context that is not running.
 *
 * Context: process context.
 */
void damon_perf_drain_free(struct damon_perf_ctx *ctx)
{
	kvfree(ctx->drain_snap);
	ctx->drain_snap = NULL;
	ctx->drain_snap_cap = 0;
	kvfree(ctx->samples.buf);
	kvfree(ctx->samples.tmp);
	memset(&ctx->samples, 0, sizeof(ctx->samples));
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_drain_free);
