// SPDX-License-Identifier: GPL-2.0
/*
 * lru_prio for physical-address contexts, as DAMOS's paddr operations do
 * it (mm/damon/paddr.c damon_pa_mark_accessed()): every LRU folio of the
 * range is marked accessed, so that reclaim keeps it.
 *
 * A module may not isolate, migrate or deactivate folios (folio_deactivate(),
 * DAMOS's lru_deprio, is not exported in 6.1 to 7.x), but
 * pfn_to_online_page() and folio_mark_accessed() are. Each frame is taken
 * as mm/damon/ops-common.c damon_get_folio() takes it: an online page
 * (pfn_to_online_page(): no hole, no offline section, no ZONE_DEVICE),
 * then a reference on its folio that only counts if the page still
 * belongs to it and it is on an LRU list. The work of one request is
 * bounded by DAMON_PERF_LRU_PAGES_MAX pages, with cond_resched() between
 * chunks.
 */
#include <linux/list.h>
#include <linux/memory_hotplug.h>
#include <linux/mm.h>
#include <linux/page-flags.h>
#include <linux/pfn.h>
#include <linux/sched.h>
#include <linux/swap.h>

#include <linux/damon_perf.h>

#include "ctx_types.h"
#include "lru.h"

/* frames looked at between two cond_resched() */
#define LRU_CHUNK	1024

/**
 * damon_perf_lru_check() - Whether lru_prio may act on [@start, @end).
 * @ctx:	the context.
 * @start:	first physical address.
 * @end:	one past the last.
 * @extack:	where the reason goes, or NULL.
 *
 * The context must be a paddr one and the range must lie within one of
 * its targets, and cover at most DAMON_PERF_LRU_PAGES_MAX pages (those
 * the range overlaps).
 *
 * Context: damon_perf_lock held (the targets do not change).
 * Return: 0, -EOPNOTSUPP for a vaddr context, -EINVAL for a bad range,
 * -E2BIG for one too long, -ERANGE for one outside the targets.
 */
int damon_perf_lru_check(const struct damon_perf_ctx *ctx, u64 start,
			 u64 end, struct netlink_ext_ack *extack)
{
	const struct damon_perf_target *t;

	if (ctx->ops != DAMON_PERF_OPS_PADDR) {
		NL_SET_ERR_MSG(extack,
			       "lru_prio needs a paddr context: a vaddr context's addresses are no frames");
		return -EOPNOTSUPP;
	}
	if (start >= end) {
		NL_SET_ERR_MSG(extack, "lru range end must be above start");
		return -EINVAL;
	}
	if (PFN_UP(end) - PFN_DOWN(start) > DAMON_PERF_LRU_PAGES_MAX) {
		NL_SET_ERR_MSG(extack,
			       "lru range covers more than lru-pages-max pages");
		return -E2BIG;
	}
	list_for_each_entry(t, &ctx->targets, list)
		if (t->start <= start && end <= t->end)
			return 0;
	NL_SET_ERR_MSG(extack,
		       "lru range is not within one target of the context");
	return -ERANGE;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_lru_check);

/* damon_get_folio() of mm/damon/ops-common.c: a referenced LRU folio */
static struct folio *get_lru_folio(unsigned long pfn)
{
	struct page *page = pfn_to_online_page(pfn);
	struct folio *folio;

	if (!page)
		return NULL;
	folio = page_folio(page);
	if (!folio_try_get(folio))
		return NULL;
	if (unlikely(page_folio(page) != folio) || !folio_test_lru(folio)) {
		folio_put(folio);
		return NULL;
	}
	return folio;
}

/**
 * damon_perf_lru_prio() - Mark the LRU folios of a range accessed.
 * @start:	first physical address.
 * @end:	one past the last (above @start; the range checked by
 *		damon_perf_lru_check()).
 * @st:		what it did, counted in pages of the range.
 *
 * Every page the range overlaps is tried once: a page of an LRU folio
 * counts as applied (the folio marked accessed once, also when it
 * reaches beyond the range), any other page as skipped.
 *
 * Context: process context, may sleep.
 */
void damon_perf_lru_prio(u64 start, u64 end, struct damon_perf_lru_stats *st)
{
	unsigned long pfn = PFN_DOWN(start), end_pfn = PFN_UP(end);
	unsigned long next_resched = pfn + LRU_CHUNK;

	memset(st, 0, sizeof(*st));
	while (pfn < end_pfn) {
		struct folio *folio = get_lru_folio(pfn);
		unsigned long next;

		if (!folio) {
			next = pfn + 1;
			st->nr_skipped++;
		} else {
			/* a large folio's head may lie before @pfn */
			next = min(folio_pfn(folio) + folio_nr_pages(folio),
				   end_pfn);
			folio_mark_accessed(folio);
			folio_put(folio);
			st->nr_applied += next - pfn;
		}
		pfn = next;
		if (pfn >= next_resched) {
			cond_resched();
			next_resched = pfn + LRU_CHUNK;
		}
	}
	st->nr_tried = st->nr_applied + st->nr_skipped;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_lru_prio);
