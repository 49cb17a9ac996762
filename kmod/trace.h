/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of damon_perf (TRACE_SYSTEM damon_perf); see
 * Documentation/tracepoints.rst. Callers emit them only under
 * trace_<name>_enabled(), so a disabled tracepoint costs one static branch.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM damon_perf

#if !defined(_DAMON_PERF_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _DAMON_PERF_TRACE_H

#include <linux/tracepoint.h>
#include <linux/types.h>

TRACE_EVENT(damon_perf_sample,

	TP_PROTO(unsigned long addr, u64 data_src, u64 period, int cpu,
		 int reason, u64 sample_flags, u64 sample_type, int exec_ctx),

	TP_ARGS(addr, data_src, period, cpu, reason, sample_flags,
		sample_type, exec_ctx),

	TP_STRUCT__entry(
		__field(unsigned long, addr)
		__field(u64, data_src)
		__field(u64, period)
		__field(u64, sample_flags)
		__field(u64, sample_type)
		__field(int, cpu)
		__field(int, reason)
		__field(int, exec_ctx)
	),

	TP_fast_assign(
		__entry->addr = addr;
		__entry->data_src = data_src;
		__entry->period = period;
		__entry->sample_flags = sample_flags;
		__entry->sample_type = sample_type;
		__entry->cpu = cpu;
		__entry->reason = reason;
		__entry->exec_ctx = exec_ctx;
	),

	TP_printk("addr=0x%lx data_src=0x%llx period=%llu cpu=%d reason=%s sample_flags=0x%llx sample_type=0x%llx ctx=%s",
		  __entry->addr, __entry->data_src, __entry->period,
		  __entry->cpu,
		  __print_symbolic(__entry->reason,
				   { 0, "valid" }, { 1, "null" },
				   { 2, "addr_zero" }, { 3, "kernel" },
				   { 4, "invalid_phys" }, { 5, "no_phys" },
				   { 6, "untranslated" }, { 7, "phys_only" },
				   { 8, "teardown" }),
		  __entry->sample_flags, __entry->sample_type,
		  __print_symbolic(__entry->exec_ctx,
				   { 0, "process" }, { 1, "softirq" },
				   { 2, "hardirq" }, { 3, "nmi" }))
);

TRACE_EVENT(damon_perf_ring_overflow,

	TP_PROTO(int cpu, int ctx_id, int why),

	TP_ARGS(cpu, ctx_id, why),

	TP_STRUCT__entry(
		__field(int, cpu)
		__field(int, ctx_id)
		__field(int, why)
	),

	TP_fast_assign(
		__entry->cpu = cpu;
		__entry->ctx_id = ctx_id;
		__entry->why = why;
	),

	TP_printk("cpu=%d ctx=%d why=%s", __entry->cpu, __entry->ctx_id,
		  __print_symbolic(__entry->why,
				   { 0, "full" }, { 1, "busy" },
				   { 2, "no_probe" }, { 3, "no_ring" }))
);

TRACE_EVENT(damon_perf_report_missed,

	TP_PROTO(unsigned long addr, int cpu, int reason),

	TP_ARGS(addr, cpu, reason),

	TP_STRUCT__entry(
		__field(unsigned long, addr)
		__field(int, cpu)
		__field(int, reason)
	),

	TP_fast_assign(
		__entry->addr = addr;
		__entry->cpu = cpu;
		__entry->reason = reason;
	),

	TP_printk("addr=0x%lx cpu=%d reason=%s", __entry->addr, __entry->cpu,
		  __print_symbolic(__entry->reason,
				   { 0, "tgid" }, { 1, "region" },
				   { 2, "boundary" }, { 3, "stale" },
				   { 4, "filter" }, { 5, "nomem" }))
);

TRACE_EVENT(damon_perf_drain,

	TP_PROTO(unsigned int total, unsigned int matched),

	TP_ARGS(total, matched),

	TP_STRUCT__entry(
		__field(unsigned int, total)
		__field(unsigned int, matched)
	),

	TP_fast_assign(
		__entry->total = total;
		__entry->matched = matched;
	),

	TP_printk("total=%u matched=%u", __entry->total, __entry->matched)
);

TRACE_EVENT(damon_perf_aggregated,

	TP_PROTO(unsigned int ctx_id, unsigned int target_id,
		 unsigned int nr_regions, unsigned long start,
		 unsigned long end, unsigned int nr_accesses,
		 unsigned int age),

	TP_ARGS(ctx_id, target_id, nr_regions, start, end, nr_accesses, age),

	TP_STRUCT__entry(
		__field(unsigned long, start)
		__field(unsigned long, end)
		__field(unsigned int, ctx_id)
		__field(unsigned int, target_id)
		__field(unsigned int, nr_regions)
		__field(unsigned int, nr_accesses)
		__field(unsigned int, age)
	),

	TP_fast_assign(
		__entry->start = start;
		__entry->end = end;
		__entry->ctx_id = ctx_id;
		__entry->target_id = target_id;
		__entry->nr_regions = nr_regions;
		__entry->nr_accesses = nr_accesses;
		__entry->age = age;
	),

	TP_printk("ctx_id=%u target_id=%u nr_regions=%u %lu-%lu: %u %u",
		  __entry->ctx_id, __entry->target_id, __entry->nr_regions,
		  __entry->start, __entry->end, __entry->nr_accesses,
		  __entry->age)
);

#endif /* _DAMON_PERF_TRACE_H */

/* Out of tree: define_trace.h finds this file through CFLAGS_trace.o. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
