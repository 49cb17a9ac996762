// SPDX-License-Identifier: GPL-2.0
/*
 * The samples split mode: regions cut where the sample density changes.
 *
 * Every sample names the page it touched, so the drain keeps the
 * aggregation's samples (drain.c) and, at the end of the aggregation and
 * before the merge (regions.c), they are sorted by key (a radix sort) and
 * each region is cut where its sample density changes. A region's sorted
 * sample pages are compared with a uniform spread over the region
 * (Kolmogorov-Smirnov): the page boundary where the two cumulative shares
 * differ most is the cut, taken when the difference is significant (above
 * 2 / sqrt(samples)) and at least 1/64, else at the edge of the longest
 * empty gap between samples when a uniform spread would hardly leave such
 * a gap (fewer than SPLIT_MIN_SAMPLES samples are cut out only when they
 * all lie within 1/SPLIT_SPAN of the region, or on one to four pages they
 * would hardly all hit by chance, density.c); both pieces are tested
 * again, down to a depth of 2 log2(samples) + 2 pieces of pieces per
 * region, at least 16 (split_depth()), and up to max_nr_regions per
 * target. The pieces get the counters their samples give them, so the
 * aggregation that saw a hot range already reports its exact edges.
 *
 * Too few samples on one to four pages to cut in one aggregation (two on
 * one page of a 301-page stack) stay as the region's hint: the pages,
 * the samples and how likely uniform samples would have fallen there.
 * When the next aggregation's few samples fall on those pages (or next to
 * them, also across the edge of a neighbour holding the hint), the chance
 * of both is (w / len)^n smaller, and below 1/1000 the region is cut to
 * the pages, before any density cut spends the budget; an accessed region
 * with a hint merges with no other accessed one (regions.c), so a loop on
 * one to four pages of a region is a region of its own by its second
 * aggregation whatever the region's size and the samples elsewhere.
 */
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sort.h>

#include "density.h"
#include "drain.h"
#include "regions.h"

/*
 * Depth of the cuts of a region in samples mode: a piece of a piece ...
 * at most this deep. Each level of pieces holds each sample at most once,
 * so a region of n samples costs at most (depth + 1) n steps; the depth is
 * split_depth(n), at most this for a 65536-sample buffer.
 */
#define SPLIT_MAX_DEPTH		34
/* Never shallower: as deep as the 16 cuts a region had before. */
#define SPLIT_MIN_DEPTH		16
struct orig {
	unsigned int nr_accesses;
	u64 probe_hits[DAMON_PERF_MAX_PROBES];
	u64 events;
};

static unsigned long smp_page(const struct damon_perf_sample *smp, u32 i)
{
	return damon_perf_sample_page(smp[i].key);
}

struct piece {
	struct damon_perf_region *r;
	u32 lo;
	u32 hi;
};

/*
 * How deep the cuts of a region with @n samples go: 2 log2(n) + 2, at
 * least SPLIT_MIN_DEPTH, so a balanced cut sequence isolates every
 * sampled page run and one that peels a run at a time (a comb of small
 * hot ranges, cut at the edges of its gaps) still takes log2(n) + 1 runs
 * an aggregation, at a cost of O(n log n) steps; the next aggregation
 * goes on from the pieces.
 */
static unsigned int split_depth(u32 n)
{
	return clamp_t(unsigned int, 2 * ilog2(max_t(u32, n, 1)) + 2,
		       SPLIT_MIN_DEPTH, SPLIT_MAX_DEPTH);
}

/* Cut @r at its density changes; returns the number of cuts. */
static unsigned int cut_region(struct damon_perf_target *t,
			       struct damon_perf_region *r,
			       const struct damon_perf_sample *smp,
			       u32 lo, u32 hi, unsigned int budget)
{
	/*
	 * Depth first: a piece at depth d is cut only when d < limit, and
	 * the stack holds at most one pending piece per depth plus the top
	 * pair, so at most limit + 1 pieces.
	 */
	struct piece stack[SPLIT_MAX_DEPTH + 1];
	u8 depth[SPLIT_MAX_DEPTH + 1];
	unsigned int limit = split_depth(hi - lo);
	unsigned int top = 0, cuts = 0, d;
	struct damon_perf_region *n;
	unsigned long page;
	struct piece p;
	u32 mid;

	depth[top] = 0;
	stack[top++] = (struct piece){ r, lo, hi };
	while (top && cuts < budget) {
		p = stack[--top];
		d = depth[top];
		if (d >= limit ||
		    !damon_perf_density_cut(smp, p.lo, p.hi,
					    p.r->start >> PAGE_SHIFT,
					    p.r->end >> PAGE_SHIFT,
					    &page, &mid))
			continue;
		n = damon_perf_region_split_at(t, p.r, page << PAGE_SHIFT);
		if (!n)
			break;
		cuts++;
		depth[top] = d + 1;
		stack[top++] = (struct piece){ p.r, p.lo, mid };
		depth[top] = d + 1;
		stack[top++] = (struct piece){ n, mid, p.hi };
	}
	return cuts;
}

/* Samples a hint counts at most. */
#define HINT_MAX_NR		BIT(16)
#define CHANCE_ONE		BIT_ULL(32)

static unsigned long nr_pages(const struct damon_perf_region *r)
{
	return (r->end - r->start) >> PAGE_SHIFT;
}

/* The hint of samples [@lo, @hi) of a region of @len pages alone. */
static struct damon_perf_hint
hint_of(const struct damon_perf_sample *smp, u32 lo, u32 hi,
	unsigned long len)
{
	unsigned long a = smp_page(smp, lo), b = smp_page(smp, hi - 1) + 1;

	return (struct damon_perf_hint){
		.page = a, .pages = b - a, .nr = hi - lo,
		.chance = damon_perf_density_span_chance(b - a, len, hi - lo,
							 false),
	};
}

/*
 * Hint @h with the samples [@lo, @hi) of this aggregation, of a region of
 * @len pages: in @sum when all of them lie on at most DAMON_PERF_SPAN_PAGES
 * pages (false otherwise). The chance of the samples of @h grows by the
 * share the widened pages add for each of them; that of the new ones is
 * (w / len)^n, their pages being named by @h.
 */
static bool hint_add(const struct damon_perf_hint *h,
		     const struct damon_perf_sample *smp, u32 lo, u32 hi,
		     unsigned long len, struct damon_perf_hint *sum)
{
	unsigned long a = smp_page(smp, lo), b = smp_page(smp, hi - 1) + 1;
	u64 c = h->chance, placed;
	u32 i;

	if (!h->nr)
		return false;
	a = min(a, h->page);
	b = max(b, h->page + h->pages);
	if (b - a > DAMON_PERF_SPAN_PAGES)
		return false;
	for (i = 0; i < h->nr && c < CHANCE_ONE && b - a > h->pages; i++)
		c = min_t(u64, div_u64(c * (b - a), h->pages), CHANCE_ONE);
	/* the new samples fell on pages the hint named */
	placed = damon_perf_density_span_chance(b - a, len, hi - lo, true);
	c = mul_u64_u64_div_u64(c, placed, CHANCE_ONE);
	*sum = (struct damon_perf_hint){
		.page = a, .pages = b - a,
		.nr = min_t(u32, h->nr + (hi - lo), HINT_MAX_NR), .chance = c,
	};
	return true;
}

static bool unlikely_chance(u64 c)
{
	return c * DAMON_PERF_SPAN_UNLIKELY < CHANCE_ONE;
}

/*
 * Cut @r to the pages of its few samples [@lo, @hi) of this aggregation
 * when the hint of @r, or of the neighbour whose edge page is next to
 * them (@prev, @next, may be NULL), with them, makes a chance below
 * 1/DAMON_PERF_SPAN_UNLIKELY: at most two cuts, within @budget. The piece
 * of those pages gets the sum as its hint when the hint was its own, else
 * the samples alone.
 * Return: the number of cuts.
 */
static unsigned int cut_hint(struct damon_perf_target *t,
			     struct damon_perf_region *r,
			     const struct damon_perf_region *prev,
			     const struct damon_perf_region *next,
			     const struct damon_perf_sample *smp, u32 lo,
			     u32 hi, unsigned int budget)
{
	const struct damon_perf_hint *cand[] = {
		&r->hint, prev ? &prev->hint : NULL, next ? &next->hint : NULL,
	};
	unsigned long first = r->start >> PAGE_SHIFT;
	unsigned long end = r->end >> PAGE_SHIFT, a, b, len = nr_pages(r);
	struct damon_perf_hint h;
	unsigned int need, i;

	if (hi - lo >= DAMON_PERF_SPLIT_MIN_SAMPLES)
		return 0;
	for (i = 0; i < ARRAY_SIZE(cand); i++)
		if (cand[i] && hint_add(cand[i], smp, lo, hi, len, &h) &&
		    unlikely_chance(h.chance))
			break;
	if (i == ARRAY_SIZE(cand))
		return 0;
	a = max(h.page, first);
	b = min(h.page + h.pages, end);
	if (i)
		h = hint_of(smp, lo, hi, len);
	need = (a > first) + (b < end);
	if (!need || need > budget)
		return 0;
	if (a > first) {
		r = damon_perf_region_split_at(t, r, a << PAGE_SHIFT);
		if (!r)
			return 0;
	}
	r->hint = h;
	if (b < end && !damon_perf_region_split_at(t, r, b << PAGE_SHIFT))
		return need - 1;
	return need;
}

/*
 * After this aggregation's tests left @r whole, with its samples
 * [@lo, @hi): when they are few and on at most DAMON_PERF_SPAN_PAGES
 * pages, they join its hint (hint_add()), or start a new one; else it has
 * none. Samples on the only pages of @r say nothing of where in it they
 * fall: the hint stays as it is.
 */
static void note_hint(struct damon_perf_region *r,
		      const struct damon_perf_sample *smp, u32 lo, u32 hi)
{
	unsigned long a = smp_page(smp, lo), b = smp_page(smp, hi - 1) + 1;
	unsigned long len = nr_pages(r);
	struct damon_perf_hint *h = &r->hint, sum;

	if (hi - lo >= DAMON_PERF_SPLIT_MIN_SAMPLES ||
	    b - a > DAMON_PERF_SPAN_PAGES) {
		h->nr = 0;
		return;
	}
	if (b - a >= len)
		return;
	*h = hint_add(h, smp, lo, hi, len, &sum) ? sum :
	     hint_of(smp, lo, hi, len);
}

/*
 * @r with its samples [@lo, @hi) was cut into the pieces up to @next,
 * from @len pages: when they are few, a piece whose samples lie on at most
 * DAMON_PERF_SPAN_PAGES pages keeps them as its hint, taken over the @len
 * pages, when they are all the samples of @r or a run that chance would
 * hardly give (few_run() cut it out, density.c; a stray sample is no
 * hint); the others have none. The pieces of a region of many samples
 * (density cuts) have none: a few samples at the edge of a hot range are
 * no evidence over the region they were cut from. A hint keeps the piece
 * from merging with an accessed neighbour (regions.c) and names its pages
 * to the next aggregation's cut_hint().
 */
static void hint_pieces(struct damon_perf_region *r,
			struct damon_perf_region *next,
			const struct damon_perf_sample *smp, u32 lo, u32 hi,
			unsigned long len)
{
	struct damon_perf_hint h;
	u32 plo = lo, phi;

	for (; r != next; r = list_next_entry(r, list)) {
		r->hint.nr = 0;
		if (hi - lo >= DAMON_PERF_SPLIT_MIN_SAMPLES)
			continue;
		while (plo < hi && smp_page(smp, plo) < r->start >> PAGE_SHIFT)
			plo++;
		for (phi = plo; phi < hi &&
		     smp_page(smp, phi) < r->end >> PAGE_SHIFT; phi++)
			;
		if (phi == plo)
			continue;
		h = hint_of(smp, plo, phi, len);
		if (h.pages <= DAMON_PERF_SPAN_PAGES &&
		    ((plo == lo && phi == hi) || unlikely_chance(h.chance)))
			r->hint = h;
		plo = phi;
	}
}

/*
 * @r itself (@self) or the region before it; NULL for the list head of @t
 * (where a safe walk's next ends).
 */
static struct damon_perf_region *
region_or_null(struct damon_perf_target *t, struct damon_perf_region *r,
	       bool self)
{
	struct list_head *l = self ? &r->list : r->list.prev;

	return l == &t->regions ? NULL :
	       list_entry(l, struct damon_perf_region, list);
}

static int cmp_key(const void *a, const void *b)
{
	u64 x = ((const struct damon_perf_sample *)a)->key;
	u64 y = ((const struct damon_perf_sample *)b)->key;

	return x < y ? -1 : x > y;
}

static int cmp_interval(const void *a, const void *b)
{
	const struct damon_perf_sample *sa = a, *sb = b;
	u32 x = damon_perf_sample_interval(sa->tag);
	u32 y = damon_perf_sample_interval(sb->tag);

	return x < y ? -1 : x > y;
}

/* Sample intervals one bitmap pass of distinct_intervals() covers. */
#define INTERVAL_WINDOW		1024
/* Passes before distinct_intervals() sorts instead. */
#define INTERVAL_PASSES		8

/*
 * The distinct sample intervals of @smp[@a, @b) (sorted by key; left so):
 * an on-stack bitmap of INTERVAL_WINDOW intervals from the lowest one not
 * yet counted, one pass per window that holds any (a single pass when the
 * aggregation is at most INTERVAL_WINDOW sample intervals long), so
 * O(@b - @a). Intervals spread over more than INTERVAL_PASSES windows
 * (aggregations of many thousand sample intervals) are counted by
 * sorting the piece by interval and back by key instead.
 */
static u32 distinct_intervals(struct damon_perf_sample *smp, u32 a, u32 b)
{
	u64 seen[INTERVAL_WINDOW / 64], bit;
	u32 i, v, lo, hi, next, n = 0;

	if (a == b)
		return 0;
	lo = damon_perf_sample_interval(smp[a].tag);
	hi = lo;
	for (i = a + 1; i < b; i++) {
		v = damon_perf_sample_interval(smp[i].tag);
		lo = min(lo, v);
		hi = max(hi, v);
	}
	if (hi - lo >= INTERVAL_WINDOW * INTERVAL_PASSES) {
		sort(smp + a, b - a, sizeof(*smp), cmp_interval, NULL);
		for (i = a; i < b; i++)
			n += i == a ||
			     damon_perf_sample_interval(smp[i].tag) !=
			     damon_perf_sample_interval(smp[i - 1].tag);
		sort(smp + a, b - a, sizeof(*smp), cmp_key, NULL);
		return n;
	}
	for (;;) {
		memset(seen, 0, sizeof(seen));
		next = lo;
		for (i = a; i < b; i++) {
			v = damon_perf_sample_interval(smp[i].tag);
			if (v < lo)
				continue;
			if (v - lo < INTERVAL_WINDOW) {
				bit = 1ULL << ((v - lo) % 64);
				n += !(seen[(v - lo) / 64] & bit);
				seen[(v - lo) / 64] |= bit;
			} else if (next == lo || v < next) {
				next = v;	/* lowest interval beyond */
			}
		}
		if (next == lo)
			return n;
		lo = next;
	}
}

/*
 * The counters of the pieces [@first, @stop) of a cut region, whose
 * counters before the cut were @orig, from its samples [@lo, @hi): raw
 * probe hits in proportion to each probe's samples, the events they stand
 * for and count-mode nr_accesses in proportion to the samples weighted by
 * their probe's weight @w (what crediting added for them; drain.c)
 * (exact when the buffer holds every sample), presence-mode nr_accesses
 * from the distinct sample intervals seen in each piece
 * (distinct_intervals()); a piece without samples, no span of them (the
 * others keep theirs, clipped by the cut). O(@hi - @lo + pieces): the
 * samples stay in the
 * order of the one sort by key.
 */
static void recount(struct damon_perf_region *first,
		    struct damon_perf_region *stop, const struct orig *o,
		    u32 mode, const u32 *w, struct damon_perf_sample *smp,
		    u32 lo, u32 hi)
{
	u32 tot[DAMON_PERF_MAX_PROBES] = {}, cnt[DAMON_PERF_MAX_PROBES];
	struct damon_perf_region *p;
	u64 wtot = 0, wcnt;
	u32 i, a = lo, b;
	unsigned int slot;

	for (i = lo; i < hi; i++) {
		slot = damon_perf_sample_slot(smp[i].tag);
		if (slot < DAMON_PERF_MAX_PROBES)
			tot[slot]++;
	}
	for (i = 0; i < DAMON_PERF_MAX_PROBES; i++)
		wtot += (u64)w[i] * tot[i];
	for (p = first; p != stop; p = list_next_entry(p, list)) {
		for (b = a; b < hi && smp_page(smp, b) < p->end >> PAGE_SHIFT;
		     b++)
			;
		memset(cnt, 0, sizeof(cnt));
		for (i = a; i < b; i++) {
			slot = damon_perf_sample_slot(smp[i].tag);
			if (slot < DAMON_PERF_MAX_PROBES)
				cnt[slot]++;
		}
		wcnt = 0;
		for (i = 0; i < DAMON_PERF_MAX_PROBES; i++) {
			p->probe_hits[i] = tot[i] ?
				mul_u64_u64_div_u64(o->probe_hits[i], cnt[i],
						    tot[i]) : 0;
			wcnt += (u64)w[i] * cnt[i];
		}
		p->events = wtot ? mul_u64_u64_div_u64(o->events, wcnt, wtot) :
			    0;
		if (mode == DAMON_PERF_MODE_COUNT)
			p->nr_accesses = wtot ?
				mul_u64_u64_div_u64(o->nr_accesses, wcnt,
						    wtot) : 0;
		else
			p->nr_accesses = min(distinct_intervals(smp, a, b),
					     o->nr_accesses);
		/* counters from no sample: no span either */
		if (a == b)
			p->sampled.nr = 0;
		a = b;
	}
}

/**
 * damon_perf_regions_split_samples() - Cut where the sample density
 * changes.
 * @t:		the target.
 * @attrs:	the attributes (max_nr_regions, access mode).
 * @weights:	the weight of each probe slot's samples (&struct
 *		damon_perf_probe_attr), 0 counting as 1; NULL: all 1.
 * @smp:	the target's samples of the aggregation, sorted by key.
 * @nr:		their number.
 *
 * First the regions whose few samples a hint confirms are cut to those
 * pages (cut_hint()); then each region is cut at the page boundaries where
 * the density of its samples changes significantly (see the top of this
 * file), pieces of pieces down to split_depth() of its samples, and the
 * regions it leaves whole keep their few samples' pages as their hint;
 * the target never exceeds max_nr_regions. The
 * pieces of a cut region get the counters the aggregation would have
 * given them, from the samples (see recount()), and its age. Samples
 * outside every region are ignored. An allocation failure ends the split
 * early (the list stays valid).
 *
 * Context: target owned by the caller.
 * Return: the number of cuts.
 */
unsigned int
damon_perf_regions_split_samples(struct damon_perf_target *t,
				 const struct damon_perf_attrs *attrs,
				 const u32 *weights,
				 struct damon_perf_sample *smp,
				 u32 nr)
{
	struct damon_perf_region *r, *next;
	unsigned int budget = 0, cuts = 0, c, i, pass;
	u32 w[DAMON_PERF_MAX_PROBES];
	unsigned long first, end, len;
	struct orig o;
	u32 lo, hi;

	if (t->nr_regions < attrs->max_nr_regions)
		budget = attrs->max_nr_regions - t->nr_regions;
	for (i = 0; i < DAMON_PERF_MAX_PROBES; i++)
		w[i] = weights ? max_t(u32, weights[i], 1) : 1;
	/*
	 * Pass 0 cuts the regions whose few samples a hint confirms (at
	 * most two cuts each) before pass 1's density tests spend the
	 * budget; pass 1 then tests every region, the pieces of pass 0's
	 * cuts too, and keeps the hints of those it leaves whole.
	 */
	for (pass = 0; pass < 2; pass++) {
		lo = 0;
		damon_perf_for_each_region_safe(r, next, t) {
			first = r->start >> PAGE_SHIFT;
			end = r->end >> PAGE_SHIFT;
			while (lo < nr && smp_page(smp, lo) < first)
				lo++;
			for (hi = lo; hi < nr && smp_page(smp, hi) < end; hi++)
				;
			if (hi == lo)
				continue;
			o.nr_accesses = r->nr_accesses;
			memcpy(o.probe_hits, r->probe_hits,
			       sizeof(o.probe_hits));
			o.events = r->events;
			len = nr_pages(r);
			c = 0;
			if (pass == 0)
				c = cut_hint(t, r, region_or_null(t, r, false),
					     region_or_null(t, next, true), smp,
					     lo, hi, budget);
			else if (budget)
				c = cut_region(t, r, smp, lo, hi, budget);
			if (c) {
				recount(r, next, &o, attrs->mode, w, smp, lo,
					hi);
				if (pass == 1)
					hint_pieces(r, next, smp, lo, hi, len);
			} else if (pass == 1) {
				note_hint(r, smp, lo, hi);
			}
			budget -= c;
			cuts += c;
			lo = hi;
		}
	}
	return cuts;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_regions_split_samples);

/*
 * Sort the @s->nr samples of @s by key: a least-significant-digit radix
 * sort, a byte a pass, skipping the bytes every key shares (the target
 * position and the high address bits), through @s->tmp; stable. O(n) per
 * pass, at most 8 passes; a heapsort when there is no @s->tmp.
 */
static void sort_by_key(struct damon_perf_samples *s)
{
	struct damon_perf_sample *smp = s->buf, *a = s->buf, *b = s->tmp, *t;
	u32 *cnt = s->radix, n = s->nr, i, sum, c;
	unsigned int shift;
	u64 differ = 0;

	if (!b) {
		sort(smp, n, sizeof(*smp), cmp_key, NULL);
		return;
	}
	for (i = 1; i < n; i++)
		differ |= smp[i].key ^ smp[0].key;
	for (shift = 0; shift < 64; shift += 8) {
		if (!((differ >> shift) & 0xff))
			continue;
		memset(cnt, 0, sizeof(s->radix));
		for (i = 0; i < n; i++)
			cnt[(a[i].key >> shift) & 0xff]++;
		for (sum = 0, i = 0; i < 256; i++) {
			c = cnt[i];
			cnt[i] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			b[cnt[(a[i].key >> shift) & 0xff]++] = a[i];
		t = a;
		a = b;
		b = t;
	}
	if (a != smp)
		memcpy(smp, a, n * sizeof(*smp));
}

/**
 * damon_perf_regions_cut_ctx() - Cut the regions of a context by samples.
 * @ctx:	the context, at the end of an aggregation, before the merge.
 *
 * Samples split mode only: sorts the aggregation's samples by target and
 * page (sort_by_key(): O(n) per key byte that differs, or a heapsort)
 * and hands each live target its run to
 * damon_perf_regions_split_samples(), so the aggregation's snapshot
 * already has the regions its samples describe.
 *
 * Context: the kdamond of @ctx, or a caller owning a stopped @ctx.
 */
void damon_perf_regions_cut_ctx(struct damon_perf_ctx *ctx)
{
	struct damon_perf_samples *s = &ctx->samples;
	u32 w[DAMON_PERF_MAX_PROBES];
	struct damon_perf_target *t;
	unsigned int pos = 0, i;
	u32 lo = 0, hi;

	if (ctx->attrs.split != DAMON_PERF_SPLIT_SAMPLES || !s->nr)
		return;
	for (i = 0; i < DAMON_PERF_MAX_PROBES; i++)
		w[i] = ctx->probes[i].attr.weight;
	sort_by_key(s);
	damon_perf_for_each_target(t, ctx) {
		for (hi = lo; hi < s->nr &&
		     damon_perf_sample_pos(s->buf[hi].key) == pos; hi++)
			;
		if (!t->dead)
			damon_perf_regions_split_samples(t, &ctx->attrs, w,
							 s->buf + lo, hi - lo);
		lo = hi;
		pos++;
		cond_resched();
	}
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_regions_cut_ctx);
