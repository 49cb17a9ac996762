// SPDX-License-Identifier: GPL-2.0
/*
 * Where the density of a region's samples changes: the cut point of the
 * samples split mode (split.c). Pure code over a sorted sample array,
 * built in the kernel and in userspace (Google Benchmark, tests/user).
 */
#include "density.h"

#ifndef __KERNEL__
#define min_t(type, a, b)	((type)(a) < (type)(b) ? (type)(a) : (type)(b))

static inline u64 div_u64(u64 a, u32 b)
{
	return a / b;
}

static inline u64 mul_u64_u64_div_u64(u64 a, u64 b, u64 c)
{
	return (u64)((__uint128_t)a * b / c);
}

static inline int ilog2(u32 n)
{
	return 31 - __builtin_clz(n);
}
#else
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/math64.h>
#endif

/* Fewer samples than this are no evidence (see best_cut()). */
#define SPLIT_MIN_SAMPLES	DAMON_PERF_SPLIT_MIN_SAMPLES
/* Deviation of the cumulative shares, in 1/2^16. */
#define DEV_SHIFT		16
/* Significance: dev^2 * n above (2 << DEV_SHIFT)^2, i.e. dev > 2/sqrt(n). */
#define DEV_SIGNIFICANT		(4ULL << (2 * DEV_SHIFT))
/* Smallest deviation worth a cut: 1/64 of the region's samples. */
#define DEV_MIN			((1U << DEV_SHIFT) / 64)
/* Fewer samples, all within 1/SPLIT_SPAN of the region: cut them out. */
#define SPLIT_SPAN		1024
/*
 * ... or two or more on at most SPAN_PAGES pages, a part they would hardly
 * all fall in by chance (below 1/SPAN_UNLIKELY); wider runs of so few
 * samples wait for more.
 */
#define SPAN_UNLIKELY		DAMON_PERF_SPAN_UNLIKELY
#define SPAN_PAGES		DAMON_PERF_SPAN_PAGES
/*
 * ... or a run of some of them on at most RUN_PAGES pages (few_run()):
 * the run is picked from the samples after the fact, so it stays as
 * narrow as it was; all of a region's few samples on up to SPAN_PAGES
 * pages (a loop over a program's globals: three pages) are cut out.
 */
#define RUN_PAGES		2

struct cut {
	u64 dev;		/* deviation in 1/2^32, or gap in pages */
	unsigned long page;	/* first page of the right piece */
	u32 mid;		/* first sample of the right piece */
};

static unsigned long smp_page(const struct damon_perf_sample *smp, u32 i)
{
	return (unsigned long)damon_perf_sample_page(smp[i].key);
}

/* Cut at @page, with @k of the @n samples on its left: is it the best? */
static void consider(struct cut *best, unsigned long first, unsigned long len,
		     unsigned long page, u32 k, u32 n, u32 mid)
{
	u64 share, uniform, dev;

	if (page - first > len)
		return;		/* unsorted input: never divide out of range */
	share = div_u64((u64)k << 32, n);
	uniform = mul_u64_u64_div_u64(page - first, 1ULL << 32, len);
	dev = share > uniform ? share - uniform : uniform - share;
	if (dev > best->dev) {
		best->dev = dev;
		best->page = page;
		best->mid = mid;
	}
}

/* The empty gap [@a, @b) pages: the longest so far? */
static void gap(struct cut *g, unsigned long first, unsigned long a,
		unsigned long b, u32 mid)
{
	if (b - a > g->dev) {
		g->dev = b - a;
		/* cut at the edge that lies inside the piece */
		g->page = a > first ? a : b;
		g->mid = mid;
	}
}

/*
 * Is an empty gap of @g of the @len pages unlikely among @n uniform
 * samples? The chance that one exists is about n * exp(-n g / len); below
 * 1/1000 when n g / len > ln n + 7 (ln n from ilog2, a little low).
 */
static bool gap_significant(u64 g, unsigned long len, u32 n)
{
	u64 frac = mul_u64_u64_div_u64(g, 1ULL << 32, len);

	return frac * n * 10 > (u64)(7 * ilog2(n) + 70) << 32;
}

/*
 * Are @n >= 2 uniform samples over @len pages unlikely to span only @w
 * (at most SPAN_PAGES) pages? The chance is below n (w / len)^(n - 1)
 * (damon_perf_density_span_chance()); a cut when that is below
 * 1/SPAN_UNLIKELY. Two samples on one page of a 201-page stack are not
 * (2/201), three are (3/201^2): a loop touching one or two pages of a
 * region shows it within a few samples.
 */
static bool span_significant(unsigned long w, unsigned long len, u32 n)
{
	return n >= 2 && damon_perf_density_span_chance(w, len, n, false) *
			 SPAN_UNLIKELY < 1ULL << 32;
}

/* n choose k, for n < SPLIT_MIN_SAMPLES */
static u32 choose(u32 n, u32 k)
{
	u32 c = 1, i;

	for (i = 1; i <= k; i++)
		c = c * (n - k + i) / i;
	return c;
}

/*
 * Few samples [@lo, @hi) over the @len pages from @first that span more
 * than SPAN_PAGES: the run of k >= 2 of them on at most RUN_PAGES pages
 * that uniform samples would least likely give (some k of the n on so few
 * pages: choose(n, k) times the span chance of k), when that is below
 * 1/SPAN_UNLIKELY; the cut at the edge of the run that lies inside the
 * region goes into @best. Four samples on the last page of a 923-page
 * region whose first page has two more are such a run (15 * 4 / 923^3);
 * two of six on one page are not (15 * 2 / 923).
 */
static bool few_run(const struct damon_perf_sample *smp, u32 lo, u32 hi,
		    unsigned long first, unsigned long len, struct cut *best)
{
	u32 n = hi - lo, i, j, k;
	u64 c, least = 1ULL << 32;
	unsigned long w;

	for (i = lo, j = lo; i < hi; i++) {
		if (j < i)
			j = i;
		while (j < hi &&
		       smp_page(smp, j) - smp_page(smp, i) < RUN_PAGES)
			j++;
		k = j - i;
		if (k < 2 || k == n)
			continue;
		w = smp_page(smp, j - 1) + 1 - smp_page(smp, i);
		c = damon_perf_density_span_chance(w, len, k, false) *
		    choose(n, k);
		if (c >= least)
			continue;
		least = c;
		if (smp_page(smp, i) > first) {
			best->page = smp_page(smp, i);
			best->mid = i;
		} else {
			best->page = smp_page(smp, j - 1) + 1;
			best->mid = j;
		}
	}
	return least * SPAN_UNLIKELY < 1ULL << 32;
}

/*
 * The page boundary inside [@first, @end) pages where the share of the
 * samples [@lo, @hi) on its left differs most from the share of the pages
 * (Kolmogorov-Smirnov); true when that difference is significant.
 * Candidates are the edges of the sampled pages, where the difference
 * peaks. Failing that, an edge of the longest empty gap between samples
 * when such a gap is unlikely under a uniform spread (many small hot
 * ranges look uniform from afar). O(@hi - @lo).
 */
static bool best_cut(const struct damon_perf_sample *smp, u32 lo, u32 hi,
		     unsigned long first, unsigned long end, struct cut *best)
{
	unsigned long len = end - first, page, prev = first, last;
	u32 n = hi - lo, i = lo, j;
	struct cut g = {};
	u64 dev;

	best->dev = 0;
	if (!n || len < 2)
		return false;
	if (n < SPLIT_MIN_SAMPLES) {
		/*
		 * Too few for a test; but a few samples on a tiny part of a
		 * huge region (a stray one on a stack page next to a cold
		 * mapping), or two or more on a part they would hardly all
		 * fall in by chance (a loop on one page of a stack),
		 * describe that part, not the region: cut it out; so is a
		 * run of them that chance would hardly give (few_run()).
		 */
		page = smp_page(smp, lo);
		last = smp_page(smp, hi - 1) + 1;
		if (page < first || last > end)
			return false;	/* unsorted or outside: no cut */
		if ((u64)(last - page) * SPLIT_SPAN > len &&
		    !span_significant(last - page, len, n))
			return few_run(smp, lo, hi, first, len, best) &&
			       best->page < end;
		best->page = page > first ? page : last;
		best->mid = page > first ? lo : hi;
		return best->page < end;
	}
	while (i < hi) {
		page = smp_page(smp, i);
		for (j = i + 1; j < hi && smp_page(smp, j) == page; j++)
			;
		if (page > first)
			consider(best, first, len, page, i - lo, n, i);
		if (page + 1 < end)
			consider(best, first, len, page + 1, j - lo, n, j);
		if (page > prev)
			gap(&g, first, prev, page, i);
		prev = page + 1;
		i = j;
	}
	if (end > prev)
		gap(&g, first, prev, end, hi);
	dev = best->dev >> (32 - DEV_SHIFT);
	if (dev >= DEV_MIN &&
	    dev * dev * min_t(u32, n, 1U << 24) > DEV_SIGNIFICANT)
		return true;
	if (g.dev && gap_significant(g.dev, len, n)) {
		*best = g;
		return true;
	}
	return false;
}

/**
 * damon_perf_density_span_chance() - How likely uniform samples would all
 * fall on a few pages.
 * @w:		the pages, at most %DAMON_PERF_SPAN_PAGES.
 * @len:	pages of the region.
 * @n:		samples (more than 65536 count as 65536).
 * @placed:	the pages were named before the samples were taken (a
 *		hint, split.c): the chance is (w / len)^n; else they are
 *		wherever the samples fell, and it is below n (w / len)^(n - 1).
 *
 * Context: any.
 * Return: the chance in 1/2^32, at most 2^32, which it is also for @w not
 * below @len or above %DAMON_PERF_SPAN_PAGES (no evidence).
 */
u64 damon_perf_density_span_chance(unsigned long w, unsigned long len, u32 n,
				   bool placed)
{
	u64 frac, p = 1ULL << 32;
	u32 i;

	if (w > SPAN_PAGES || w >= len)
		return p;
	n = min_t(u32, n, 1U << 16);
	frac = mul_u64_u64_div_u64(w, 1ULL << 32, len);
	/* frac <= 2/3: p is 0 within 55 steps */
	for (i = placed ? 0 : 1; i < n && p; i++)
		p = (p * frac) >> 32;
	if (!placed)
		p = min_t(u64, p * n, 1ULL << 32);
	return p;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_density_span_chance);

/**
 * damon_perf_density_cut() - Where the density of a region's samples
 * changes.
 * @smp:	samples sorted by key.
 * @lo:		first sample of the region.
 * @hi:		one past its last sample.
 * @first:	first page of the region.
 * @end:	one past its last page.
 * @page:	receives the first page of the right piece.
 * @mid:	receives the first sample of the right piece.
 *
 * See best_cut(). O(@hi - @lo), no allocation.
 *
 * Context: any.
 * Return: true when the region is to be cut at @page.
 */
bool damon_perf_density_cut(const struct damon_perf_sample *smp, u32 lo,
			    u32 hi, unsigned long first, unsigned long end,
			    unsigned long *page, u32 *mid)
{
	struct cut c = {};

	if (!best_cut(smp, lo, hi, first, end, &c))
		return false;
	*page = c.page;
	*mid = c.mid;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_density_cut);

/**
 * damon_perf_sampled_add() - Add a run of sampled pages.
 * @s:		the sampled pages of a region.
 * @start:	first address of the run.
 * @end:	one past its last address, above @start.
 *
 * A run touching or overlapping others joins them; one more run than
 * DAMON_PERF_SAMPLED_RUNS_MAX joins the two runs (the new one included)
 * with the smallest gap between them, so every sampled page stays inside
 * a run.
 *
 * Context: the kdamond, or a caller owning the region.
 */
void damon_perf_sampled_add(struct damon_perf_sampled *s, unsigned long start,
			    unsigned long end)
{
	struct {
		unsigned long start;
		unsigned long end;
	} run[DAMON_PERF_SAMPLED_RUNS_MAX + 1];
	unsigned int nr = 0, i, best;
	bool placed = false;

	/* the runs in order with [start, end) inserted, touching ones joined */
	for (i = 0; i <= s->nr; i++) {
		unsigned long a, b;

		if (i < s->nr && (placed || s->run[i].start < start)) {
			a = s->run[i].start;
			b = s->run[i].end;
		} else if (!placed) {
			a = start;
			b = end;
			placed = true;
			i--;	/* run i (if any) comes next */
		} else {
			break;
		}
		if (nr && a <= run[nr - 1].end) {
			if (b > run[nr - 1].end)
				run[nr - 1].end = b;
		} else {
			run[nr].start = a;
			run[nr].end = b;
			nr++;
		}
	}
	if (nr > DAMON_PERF_SAMPLED_RUNS_MAX) {
		best = 0;
		for (i = 1; i + 1 < nr; i++)
			if (run[i + 1].start - run[i].end <
			    run[best + 1].start - run[best].end)
				best = i;
		run[best].end = run[best + 1].end;
		for (i = best + 1; i + 1 < nr; i++)
			run[i] = run[i + 1];
		nr--;
	}
	for (i = 0; i < nr; i++) {
		s->run[i].start = run[i].start;
		s->run[i].end = run[i].end;
	}
	s->nr = nr;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_sampled_add);

/**
 * damon_perf_sampled_clip() - Keep the sampled pages within a range.
 * @s:		the sampled pages of a region.
 * @start:	first address of the range.
 * @end:	one past its last address.
 *
 * Context: the kdamond, or a caller owning the region.
 */
void damon_perf_sampled_clip(struct damon_perf_sampled *s, unsigned long start,
			     unsigned long end)
{
	unsigned int i, nr = 0;

	for (i = 0; i < s->nr; i++) {
		unsigned long a = s->run[i].start, b = s->run[i].end;

		if (a < start)
			a = start;
		if (b > end)
			b = end;

		if (a >= b)
			continue;
		s->run[nr].start = a;
		s->run[nr].end = b;
		nr++;
	}
	s->nr = nr;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_sampled_clip);

/**
 * damon_perf_sampled_join() - Add the sampled pages of another region.
 * @l:		the sampled pages of a region.
 * @r:		those of the region after it.
 *
 * Context: the kdamond, or a caller owning the regions.
 */
void damon_perf_sampled_join(struct damon_perf_sampled *l,
			     const struct damon_perf_sampled *r)
{
	unsigned int i;

	for (i = 0; i < r->nr; i++)
		damon_perf_sampled_add(l, r->run[i].start, r->run[i].end);
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_sampled_join);
