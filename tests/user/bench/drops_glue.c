// SPDX-License-Identifier: GPL-2.0
/*
 * Glue of ring_drops: one context's rings (kmod/ring.c over tests/kshim) with
 * a producer thread and a consumer thread, through ring.h's API only. The
 * producer is CPU 0, as the overflow handler is its CPU's; after each
 * report it runs the irq_work report_access queued, as the CPU would on
 * leaving the NMI, which calls the wake callback. The consumer drains as
 * the kdamond does (damon_perf_drain_rings() without crediting).
 */
#include <stdlib.h>

#include "kshim.h"
#include "ring.h"
#include "glue.h"

struct bench_drops {
	struct damon_perf_rings rings;
	unsigned long work_seen; /* producer only: wake_work.queued run */
	unsigned long drained;   /* consumer only */
};

int bench_drops_valid_size(unsigned int size)
{
	return damon_perf_rings_valid_size(size);
}

void bench_drops_set_cpu(int cpu)
{
	if (cpu < 0 || cpu >= (int)nr_cpu_ids)
		abort();
	shim_cpu = cpu;
}

struct bench_drops *bench_drops_new(unsigned int size, void (*wake)(void *),
				    void *arg)
{
	struct bench_drops *d = calloc(1, sizeof(*d));

	if (!d || damon_perf_rings_alloc(&d->rings, size, wake, arg))
		abort();
	return d;
}

static const struct damon_perf_report drops_report = {
	.paddr = 0x12345000UL,
	.vaddr = 0x7f0000001000UL,
	.size = PAGE_SIZE,
	.time_ns = 0, /* stamped by report_access, as the handler stamps it */
	.cpu = 0,
	.tid = 4242,
	.tgid = 4242,
	.probe_idx = 1,
	.src = DAMON_PERF_SRC_OVERFLOW,
};

int bench_drops_report(struct bench_drops *d)
{
	struct irq_work *w = &d->rings.wake_work;
	int queued = damon_perf_report_access(&d->rings, &drops_report);

	/* the irq_work runs once per queueing, on the producer's CPU */
	if (w->queued != d->work_seen) {
		d->work_seen = w->queued;
		w->func(w);
	}
	return queued;
}

static void drops_count(const struct damon_perf_report *report, void *arg)
{
	struct bench_drops *d = arg;

	if (report->probe_idx != drops_report.probe_idx)
		abort();
	d->drained++;
}

unsigned int bench_drops_drain(struct bench_drops *d)
{
	return damon_perf_rings_drain_pending(&d->rings, drops_count, d);
}

unsigned int bench_drops_drain_all(struct bench_drops *d)
{
	damon_perf_rings_recheck_all(&d->rings);
	return bench_drops_drain(d);
}

void bench_drops_read(struct bench_drops *d, struct bench_drops_stats *st)
{
	struct damon_perf_ring_stats rs;

	damon_perf_ring_read_stats(&d->rings, 0, &rs);
	st->enqueue = rs.enqueue;
	st->dequeue = rs.dequeue;
	st->overflow = rs.overflow;
	st->busy_drop = rs.busy_drop;
	st->no_probe = rs.no_probe;
	st->early_wake = rs.early_wake;
	st->drained = READ_ONCE(d->drained);
	st->peak = rs.peak;
	st->occupancy = rs.occupancy;
	st->size = rs.size;
	st->hiwat = damon_perf_ring_hiwat(rs.size);
}

void bench_drops_free(struct bench_drops *d)
{
	if (!d)
		return;
	damon_perf_rings_free(&d->rings);
	free(d);
}
