/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lru_prio of physical address ranges: what DAMOS's paddr lru_prio does
 * (mm/damon/paddr.c damon_pa_mark_accessed()), with the two functions the
 * kernel exports to modules, pfn_to_online_page() and
 * folio_mark_accessed().
 */
#ifndef _DAMON_PERF_LRU_H
#define _DAMON_PERF_LRU_H

#include <linux/netlink.h>
#include <linux/types.h>

struct damon_perf_ctx;

/**
 * struct damon_perf_lru_stats - What one lru_prio request did.
 * @nr_tried:	pages of the range looked at.
 * @nr_applied:	pages of the range in LRU folios marked accessed.
 * @nr_skipped:	pages of the range in no LRU folio.
 */
struct damon_perf_lru_stats {
	u64 nr_tried;
	u64 nr_applied;
	u64 nr_skipped;
};

int damon_perf_lru_check(const struct damon_perf_ctx *ctx, u64 start,
			 u64 end, struct netlink_ext_ack *extack);
void damon_perf_lru_prio(u64 start, u64 end, struct damon_perf_lru_stats *st);

#endif /* _DAMON_PERF_LRU_H */
