// SPDX-License-Identifier: GPL-2.0
/*
 * Replay of a recorded report stream (replay.h) through the module's own
 * drain (drain.c) and regions, two ways side by side, in one access mode:
 *
 * - intervals: one drain per sample interval (pass length 1, as the
 *   sample_wakeups kdamond drains), interval k of a pass taking the pass's
 *   reports whose timestamp falls in it: the reports taken before the pass
 *   began (late: the drain before missed them, or, in the first pass, the
 *   probes fired before the kdamond's first pass) in its first interval,
 *   those taken after it ended (straddling: taken while the kdamond woke
 *   up) in its last;
 * - passes: one drain per recorded pass, its reports in the order the
 *   kdamond drained them (ring after ring), crediting each to the interval
 *   of its timestamp.
 *
 * Each pass is drained with its recorded first interval, start and stale
 * bound, over the regions the recorded drain snapshot held. At the end of
 * an aggregation (or where the recorded regions change within one) the
 * two ways' regions (start, end, nr_accesses, events, probe hits) and the
 * samples kept for the split (target, page, interval, probe) are compared
 * and digested, and both start over. Region age and the published
 * snapshot are functions of these per aggregation (regions.c), so equal
 * nr_accesses over the same regions give equal ages and snapshots.
 */
#include <linux/math64.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>

#include "ctx.h"
#include "drain.h"
#include "regions.h"
#include "replay.h"

struct way {
	struct damon_perf_ctx *ctx;
	struct damon_perf_target *t;
};

static void fnv(u64 *h, u64 v)
{
	int i;

	for (i = 0; i < 8; i++) {
		*h ^= (v >> (8 * i)) & 0xff;
		*h *= 0x100000001b3ULL;
	}
}

static int way_init(struct way *w, const struct damon_perf_replay_stream *st,
		    u32 mode)
{
	struct damon_perf_ctx *ctx;
	int i;

	ctx = kvzalloc(sizeof(*ctx), GFP_KERNEL);
	w->ctx = ctx;
	if (!ctx)
		return -ENOMEM;
	INIT_LIST_HEAD(&ctx->targets);
	ctx->ops = st->ops;
	damon_perf_attrs_default(&ctx->attrs);
	ctx->attrs.mode = mode;
	ctx->attrs.split = DAMON_PERF_SPLIT_SAMPLES;
	ctx->attrs.sample_us = div_u64(st->sample_ns, NSEC_PER_USEC);
	for (i = 0; i < DAMON_PERF_MAX_PROBES; i++) {
		ctx->probes[i].used = st->probes[i].used;
		ctx->probes[i].attr.freq = st->probes[i].freq;
		ctx->probes[i].attr.sample_period =
			st->probes[i].sample_period;
		ctx->probes[i].attr.weight = st->probes[i].weight;
	}
	/*
	 * Room for every sample of an aggregation from the start: the
	 * buffer grows between passes, so the two ways would grow it at
	 * other points, and beyond it reservoir sampling keeps a random
	 * subset, which no comparison can match.
	 */
	ctx->samples.buf = kvmalloc_array(DAMON_PERF_MAX_SPLIT_SAMPLES,
					  sizeof(*ctx->samples.buf),
					  GFP_KERNEL);
	if (!ctx->samples.buf)
		return -ENOMEM;
	ctx->samples.cap = DAMON_PERF_MAX_SPLIT_SAMPLES;
	w->t = damon_perf_target_new(1);
	if (!w->t)
		return -ENOMEM;
	if (st->ops == DAMON_PERF_OPS_VADDR)
		w->t->pid = st->pid;
	list_add_tail(&w->t->list, &ctx->targets);
	ctx->nr_targets = 1;
	return 0;
}

static void way_free(struct way *w)
{
	if (w->t) {
		damon_perf_regions_free(w->t);
		kfree(w->t);
	}
	if (w->ctx) {
		damon_perf_drain_free(w->ctx);
		kvfree(w->ctx);
	}
}

static int set_layout(struct way *w, const struct damon_perf_replay_stream *st,
		      const struct damon_perf_replay_pass *p)
{
	const struct damon_perf_replay_region *g;
	struct damon_perf_region *r;
	u32 i;

	g = st->regions + p->first_region;
	/* as the module keeps them: at least one, sorted, none empty */
	if (!p->nr_regions)
		return -EINVAL;
	for (i = 0; i < p->nr_regions; i++)
		if (g[i].start >= g[i].end || (i && g[i].start < g[i - 1].end))
			return -EINVAL;
	damon_perf_regions_free(w->t);
	for (i = 0; i < p->nr_regions; i++) {
		r = damon_perf_region_new(g[i].start, g[i].end);
		if (!r)
			return -ENOMEM;
		damon_perf_region_add(w->t, r);
	}
	return 0;
}

static bool same_layout(const struct damon_perf_replay_stream *st,
			const struct damon_perf_replay_pass *a,
			const struct damon_perf_replay_pass *b)
{
	return a->nr_regions == b->nr_regions &&
	       (a->first_region == b->first_region ||
		!memcmp(st->regions + a->first_region,
			st->regions + b->first_region,
			a->nr_regions * sizeof(*st->regions)));
}

/* The interval of @p a report taken at @t is credited to, from 0. */
static u32 interval_of(const struct damon_perf_replay_pass *p, u64 t, u64 s)
{
	if (t < p->start_ns)
		return 0;
	return min_t(u64, div64_u64(t - p->start_ns, s), p->len - 1);
}

/*
 * Drain the reports of @p (those of interval @only, or all when @only is
 * negative) as one pass of @len intervals from @seq begun at @start.
 */
static int drain(struct way *w, const struct damon_perf_replay_stream *st,
		 const struct damon_perf_replay_pass *p, u64 seq, u32 len,
		 u64 start, u64 last_drain, int only, u32 *credited,
		 u32 *stale)
{
	const struct damon_perf_replay_report *x;
	struct damon_perf_ctx *ctx = w->ctx;
	struct damon_perf_report report;
	struct damon_perf_drain *d;
	u64 stale0 = ctx->stale_drops;
	u32 k;

	/* a struct of DAMON_PERF_MAX_TARGETS segments: off the stack */
	d = kmalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return -ENOMEM;
	ctx->sample_seq = seq;
	ctx->pass_len = len;
	ctx->pass_start_ns = start;
	ctx->last_drain_ns = last_drain;
	if (damon_perf_drain_prepare(ctx, d)) {
		kfree(d);
		return -ENOMEM;
	}
	for (k = 0; k < p->nr_reports; k++) {
		x = st->reports + p->first_report + k;
		if (only >= 0 &&
		    (int)interval_of(p, x->time_ns, st->sample_ns) != only)
			continue;
		memset(&report, 0, sizeof(report));
		report.paddr = x->addr;
		report.vaddr = x->addr;
		report.size = x->size;
		report.period = x->period;
		report.time_ns = x->time_ns;
		report.cpu = x->cpu;
		report.tid = x->tgid;
		report.tgid = x->tgid;
		report.probe_idx = x->probe_idx;
		if (damon_perf_drain_report(d, &report))
			(*credited)++;
	}
	*stale += ctx->stale_drops - stale0;
	kfree(d);
	return 0;
}

static int cmp_sample(const void *a, const void *b)
{
	const struct damon_perf_sample *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->tag < y->tag ? -1 : x->tag > y->tag;
}

static void mismatch(struct damon_perf_replay_result *res, const char *what,
		     u32 aggr, unsigned long start, u64 a, u64 b)
{
	if (!res->mismatches++)
		snprintf(res->first, sizeof(res->first),
			 "aggregation %u, %s at 0x%lx: intervals %llu, passes %llu",
			 aggr, what, start, a, b);
}

/* Compare and digest the two ways at the end of an aggregation. */
static void close_aggr(struct way *w, struct damon_perf_replay_result *res,
		       u32 aggr)
{
	struct damon_perf_region *ra, *rb;
	struct damon_perf_samples *s[2] = { &w[0].ctx->samples,
					    &w[1].ctx->samples };
	u64 ha, hb;
	u32 i, j;

	rb = list_first_entry(&w[1].t->regions, struct damon_perf_region,
			      list);
	damon_perf_for_each_region(ra, w[0].t) {
		for (j = 0; j < 2; j++) {
			struct damon_perf_region *r = j ? rb : ra;

			fnv(&res->digest[j], aggr);
			fnv(&res->digest[j], r->start);
			fnv(&res->digest[j], r->end);
			fnv(&res->digest[j], r->nr_accesses);
			fnv(&res->digest[j], r->events);
			for (i = 0; i < DAMON_PERF_MAX_PROBES; i++)
				fnv(&res->digest[j], r->probe_hits[i]);
		}
		if (ra->nr_accesses != rb->nr_accesses ||
		    ra->events != rb->events ||
		    memcmp(ra->probe_hits, rb->probe_hits,
			   sizeof(ra->probe_hits)))
			res->region_mismatches++;
		if (ra->nr_accesses != rb->nr_accesses)
			mismatch(res, "nr_accesses", aggr, ra->start,
				 ra->nr_accesses, rb->nr_accesses);
		else if (ra->events != rb->events)
			mismatch(res, "events", aggr, ra->start, ra->events,
				 rb->events);
		else if (memcmp(ra->probe_hits, rb->probe_hits,
				sizeof(ra->probe_hits)))
			mismatch(res, "probe hits", aggr, ra->start,
				 ra->probe_hits[0], rb->probe_hits[0]);
		res->nr_accesses += ra->nr_accesses;
		for (i = 0; i < DAMON_PERF_MAX_PROBES; i++)
			res->hits += ra->probe_hits[i];
		if (ra->nr_accesses > 1)
			res->multi++;
		res->max_nr_accesses = max(res->max_nr_accesses,
					   ra->nr_accesses);
		rb = list_next_entry(rb, list);
	}
	for (j = 0; j < 2; j++) {
		sort(s[j]->buf, s[j]->nr, sizeof(*s[j]->buf), cmp_sample,
		     NULL);
		res->samples[j] += s[j]->nr;
		fnv(&res->digest[j], s[j]->nr);
		for (i = 0; i < s[j]->nr; i++) {
			fnv(&res->digest[j], s[j]->buf[i].key);
			fnv(&res->digest[j], s[j]->buf[i].tag);
		}
	}
	if (s[0]->seen > s[0]->nr || s[1]->seen > s[1]->nr)
		mismatch(res, "samples beyond the buffer", aggr, 0,
			 s[0]->seen, s[1]->seen);
	else if (s[0]->nr != s[1]->nr)
		mismatch(res, "samples kept", aggr, 0, s[0]->nr, s[1]->nr);
	for (i = 0; i < s[0]->nr && i < s[1]->nr; i++) {
		ha = s[0]->buf[i].key ^ (u64)s[0]->buf[i].tag << 40;
		hb = s[1]->buf[i].key ^ (u64)s[1]->buf[i].tag << 40;
		if (s[0]->buf[i].key != s[1]->buf[i].key ||
		    s[0]->buf[i].tag != s[1]->buf[i].tag) {
			mismatch(res, "sample (key, tag)", aggr, 0, ha, hb);
			break;
		}
	}
	for (j = 0; j < 2; j++)
		damon_perf_drain_samples_reset(w[j].ctx);
}

/**
 * damon_perf_replay_run() - Replay a stream both ways in one access mode.
 * @st:		the stream.
 * @mode:	DAMON_PERF_MODE_PRESENCE or DAMON_PERF_MODE_COUNT.
 * @res:	the result, zeroed here.
 *
 * The first way, DAMON_PERF_REPLAY_INTERVALS, drains every sample
 * interval of a pass apart; the second, DAMON_PERF_REPLAY_PASSES, each
 * pass at once (see the top of this file). Perf statistics and
 * tracepoints see the replayed reports as drained ones.
 *
 * Context: process context, may sleep.
 * Return: 0, -EINVAL for a malformed stream, or -ENOMEM.
 */
int damon_perf_replay_run(const struct damon_perf_replay_stream *st,
			  u32 mode, struct damon_perf_replay_result *res)
{
	const struct damon_perf_replay_pass *p, *prev = NULL;
	const struct damon_perf_replay_report *x;
	struct way w[2] = {};
	u64 s = st->sample_ns, last;
	u32 i, j, k;
	int err;

	memset(res, 0, sizeof(*res));
	res->digest[0] = 0xcbf29ce484222325ULL;
	res->digest[1] = res->digest[0];
	if (!s || s % NSEC_PER_USEC || !st->nr_passes)
		return -EINVAL;
	for (j = 0; j < 2; j++) {
		err = way_init(&w[j], st, mode);
		if (err)
			goto out;
	}
	for (i = 0; i < st->nr_passes; i++) {
		p = st->passes + i;
		err = -EINVAL;
		if (!p->len || p->len > DAMON_PERF_PASS_MAX ||
		    p->first_region + p->nr_regions > st->nr_regions ||
		    p->first_report + p->nr_reports > st->nr_reports)
			goto out;
		if (!prev || prev->aggr != p->aggr ||
		    !same_layout(st, prev, p)) {
			if (prev)
				close_aggr(w, res, res->aggrs - 1);
			res->aggrs++;
			for (j = 0; j < 2; j++) {
				err = set_layout(&w[j], st, p);
				if (err)
					goto out;
			}
		}
		prev = p;
		res->passes++;
		res->intervals += p->len;
		res->reports += p->nr_reports;
		for (k = 0; k < p->nr_reports; k++) {
			x = st->reports + p->first_report + k;
			if (x->time_ns < p->start_ns && !i)
				res->late_first++;
			else if (x->time_ns < p->start_ns)
				res->late++;
			else if (x->time_ns >= p->start_ns + p->len * s)
				res->straddling++;
		}
		last = p->stale_before ? p->stale_before + s : 0;
		/* intervals: the drain before interval k ended interval k-1 */
		for (k = 0; k < p->len; k++) {
			err = drain(&w[0], st, p, p->seq + k, 1,
				    p->start_ns + k * s,
				    k ? p->start_ns + k * s : last, k,
				    &res->credited[0], &res->stale[0]);
			if (err)
				goto out;
		}
		err = drain(&w[1], st, p, p->seq, p->len, p->start_ns, last, -1,
			    &res->credited[1], &res->stale[1]);
		if (err)
			goto out;
	}
	close_aggr(w, res, res->aggrs - 1);
	err = 0;
out:
	for (j = 0; j < 2; j++)
		way_free(&w[j]);
	return err;
}
