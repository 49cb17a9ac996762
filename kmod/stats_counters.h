/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The counters of perf_stats, in the order it prints them (and the netlink
 * STATS_GET dump sends them): one DAMON_PERF_STAT(name, doc) per counter,
 * doc a one-line summary of Documentation/perf_stats.rst.
 *
 * An X-include, no include guard: define DAMON_PERF_STAT(name, doc), then
 * include this file where the list expands (stats.h, stats.c,
 * netlink_msg.c); it undefines DAMON_PERF_STAT at its end.
 */
DAMON_PERF_STAT(callback, "overflow callbacks, every sample delivered")
DAMON_PERF_STAT(sample_valid, "samples with a usable address: a report")
DAMON_PERF_STAT(sample_null, "samples without sample data")
DAMON_PERF_STAT(sample_addr_zero, "samples with no data address at all")
DAMON_PERF_STAT(sample_kernel, "vaddr: samples of a kernel address")
DAMON_PERF_STAT(sample_invalid_phys, "paddr: physical address not RAM")
DAMON_PERF_STAT(enqueue, "reports a ring of this CPU accepted")
DAMON_PERF_STAT(dequeue, "reports a kdamond consumed from those rings")
DAMON_PERF_STAT(overflow, "reports refused: the ring was full")
DAMON_PERF_STAT(busy_drop, "reports refused: a nested producer")
DAMON_PERF_STAT(ring_peak, "highest ring occupancy after a push (maximum)")
DAMON_PERF_STAT(match, "drained reports that credited a region")
DAMON_PERF_STAT(miss_tgid, "drained reports of no target's process")
DAMON_PERF_STAT(miss_region, "drained reports in no region")
DAMON_PERF_STAT(miss_boundary, "drained reports straddling a region end")
DAMON_PERF_STAT(stale, "drained reports older than a sample interval")
DAMON_PERF_STAT(update, "target range updates")
DAMON_PERF_STAT(early_wake, "high watermark crossings that woke the kdamond")
DAMON_PERF_STAT(no_probe, "reports refused: probe index 0")
DAMON_PERF_STAT(no_ring, "reports refused: the context had no rings")
DAMON_PERF_STAT(miss_filter, "drained reports a sample filter rejected")
DAMON_PERF_STAT(sample_no_phys, "paddr: virtual only, translation not asked")
DAMON_PERF_STAT(sample_untranslated, "paddr: virtual only, not mapped")
DAMON_PERF_STAT(sample_phys_only, "vaddr: physical address only")
DAMON_PERF_STAT(sample_translated, "paddr: physical found from virtual")
DAMON_PERF_STAT(handler_ns, "nanoseconds in the overflow handler")
DAMON_PERF_STAT(drain_ns, "nanoseconds kdamonds spent draining")
DAMON_PERF_STAT(miss_nomem, "drained reports of a pass without memory")
DAMON_PERF_STAT(aux_record, "AUX records decoded and consumed")
DAMON_PERF_STAT(aux_no_addr, "AUX records without a data address")
DAMON_PERF_STAT(aux_truncated, "AUX transactions flagged TRUNCATED")
DAMON_PERF_STAT(aux_collision, "AUX transactions flagged COLLISION")
DAMON_PERF_STAT(aux_partial, "AUX transactions flagged PARTIAL")
DAMON_PERF_STAT(sample_teardown, "samples arriving as their context stopped")
DAMON_PERF_STAT(aux_drain_busy, "AUX drains not queued: the last not run yet")
DAMON_PERF_STAT(aux_drain_late, "AUX drains running past the kdamond's wait")

#undef DAMON_PERF_STAT
