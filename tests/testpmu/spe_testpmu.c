// SPDX-License-Identifier: GPL-2.0
/*
 * Test PMU "arm_spe_test" (tests only): an AUX tracing PMU that, from a
 * per-CPU hrtimer, writes ARM SPE format records into the perf AUX buffer
 * with perf_aux_output_begin()/perf_aux_output_end(), the way the real
 * arm_spe_pmu driver does from its interrupt. The data addresses follow a
 * configurable pattern: hot_pct percent of them fall in [hot_start,
 * hot_start + hot_len), the rest in [cold_start, cold_start + cold_len).
 * A full buffer ends the transaction with PERF_AUX_FLAG_TRUNCATED, which
 * disables the event until the consumer re-enables it, as on hardware.
 * With unterminated=1 no record ever ends: a stream of valid packets that
 * a parser must not take for one endless record.
 *
 * Events must be CPU-bound (perf_event_open(..., cpu >= 0)) and the AUX
 * area mapped read-write (no overwrite mode).
 */
#include <linux/hrtimer.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/perf_event.h>
#include <linux/percpu.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>

static unsigned long hot_start = 0x7f1000000000UL;
module_param(hot_start, ulong, 0644);
MODULE_PARM_DESC(hot_start, "first address of the hot range");
static unsigned long hot_len = 64UL << 12;
module_param(hot_len, ulong, 0644);
MODULE_PARM_DESC(hot_len, "hot range length in bytes");
static unsigned long cold_start = 0x7f2000000000UL;
module_param(cold_start, ulong, 0644);
MODULE_PARM_DESC(cold_start, "first address of the cold range");
static unsigned long cold_len = 4096UL << 12;
module_param(cold_len, ulong, 0644);
MODULE_PARM_DESC(cold_len, "cold range length in bytes");
static unsigned int hot_pct = 80;
module_param(hot_pct, uint, 0644);
MODULE_PARM_DESC(hot_pct, "percent of records in the hot range");
static unsigned int period_us = 200;
module_param(period_us, uint, 0644);
MODULE_PARM_DESC(period_us, "timer period in microseconds (>= 20)");
static unsigned int batch = 16;
module_param(batch, uint, 0644);
MODULE_PARM_DESC(batch, "records written per timer tick (<= 256)");
static int ctx_pid;
module_param(ctx_pid, int, 0644);
MODULE_PARM_DESC(ctx_pid, "pid put in CONTEXT packets (0: none)");
static bool unterminated;
module_param(unterminated, bool, 0644);
MODULE_PARM_DESC(unterminated,
		 "write valid packets but never END or TIMESTAMP (an adversary)");

struct tp_buf {
	void **pages;
	unsigned long size;
};

struct tp_cpu {
	struct hrtimer timer;
	struct perf_output_handle handle;
	struct perf_event *event;
	u64 seq;
	u64 rnd;
	bool running;
	unsigned long records;
	unsigned long truncated;
};

static DEFINE_PER_CPU(struct tp_cpu, tp_cpus);
static struct pmu tp_pmu;

static void *tp_setup_aux(struct perf_event *event, void **pages,
			  int nr_pages, bool overwrite)
{
	struct tp_buf *buf;

	if (overwrite || !is_power_of_2(nr_pages))
		return NULL;
	buf = kzalloc(sizeof(*buf), GFP_KERNEL);
	if (!buf)
		return NULL;
	buf->pages = kcalloc(nr_pages, sizeof(*pages), GFP_KERNEL);
	if (!buf->pages) {
		kfree(buf);
		return NULL;
	}
	memcpy(buf->pages, pages, nr_pages * sizeof(*pages));
	buf->size = (unsigned long)nr_pages << PAGE_SHIFT;
	return buf;
}

static void tp_free_aux(void *data)
{
	struct tp_buf *buf = data;

	kfree(buf->pages);
	kfree(buf);
}

/* Copy @n bytes to stream position @pos, wrapping around the buffer. */
static void put(struct tp_buf *buf, unsigned long pos, const u8 *src,
		unsigned int n)
{
	while (n) {
		unsigned long off = pos & (buf->size - 1);
		unsigned int in_page = offset_in_page(off);
		unsigned int chunk = min_t(unsigned int, n,
					   PAGE_SIZE - in_page);

		memcpy(buf->pages[off >> PAGE_SHIFT] + in_page, src, chunk);
		pos += chunk;
		src += chunk;
		n -= chunk;
	}
}

static unsigned int pkt(u8 *p, u8 hdr, u64 payload, unsigned int plen)
{
	unsigned int i;

	p[0] = hdr;
	for (i = 0; i < plen; i++)
		p[1 + i] = payload >> (8 * i);
	return 1 + plen;
}

static u64 next_rnd(struct tp_cpu *st)
{
	/* xorshift64: deterministic, fine in hard IRQ context */
	st->rnd ^= st->rnd << 13;
	st->rnd ^= st->rnd >> 7;
	st->rnd ^= st->rnd << 17;
	return st->rnd;
}

/* One record: [PAD] PC OP VA LAT EV [CTX] END|TS. */
static unsigned int build(struct tp_cpu *st, u8 *rec)
{
	u64 r = next_rnd(st), seq = st->seq++;
	unsigned long start = cold_start, len = cold_len, addr;
	unsigned int n = 0;

	if (r % 100 < hot_pct) {
		start = hot_start;
		len = hot_len;
	}
	addr = start + ((r >> 8) % max(len, 8UL));
	if (!(seq % 16))
		rec[n++] = 0x00;				/* PAD */
	/* PC at EL0, non-secure */
	n += pkt(rec + n, 0xb0, (1ULL << 63) | (0x400000 + (seq & 0xff) * 4),
		 8);
	/* load or store */
	n += pkt(rec + n, 0x49, seq & 1, 1);
	/* data VA with a top-byte tag the parser must strip */
	n += pkt(rec + n, 0xb2, ((u64)0x2a << 56) | addr, 8);
	/* total latency, events (retired, L1D access) */
	n += pkt(rec + n, 0x98, 20 + (r & 0x3f), 2);
	n += pkt(rec + n, 0x52, 0x0006, 2);
	if (ctx_pid)
		n += pkt(rec + n, 0x65, ctx_pid, 4);
	if (READ_ONCE(unterminated))
		return n;
	if (seq % 4)
		n += pkt(rec + n, 0x71, local_clock(), 8);	/* TS */
	else
		rec[n++] = 0x01;				/* END */
	return n;
}

static enum hrtimer_restart tp_tick(struct hrtimer *timer)
{
	struct tp_cpu *st = container_of(timer, struct tp_cpu, timer);
	unsigned int i, n, todo = min(batch, 256U);
	unsigned long written = 0;
	bool truncated = false;
	struct tp_buf *buf;
	u8 rec[64];

	if (!st->running)
		return HRTIMER_NORESTART;
	buf = perf_get_aux(&st->handle);
	if (!buf)
		buf = perf_aux_output_begin(&st->handle, st->event);
	if (!buf)
		goto again;
	for (i = 0; i < todo; i++) {
		n = build(st, rec);
		if (written + n > st->handle.size) {
			perf_aux_output_flag(&st->handle,
					     PERF_AUX_FLAG_TRUNCATED);
			st->truncated++;
			truncated = true;
			break;
		}
		put(buf, st->handle.head + written, rec, n);
		written += n;
		st->records++;
	}
	perf_aux_output_end(&st->handle, written);
	/* a truncated buffer disables the event; start() begins anew */
	if (!truncated)
		perf_aux_output_begin(&st->handle, st->event);
again:
	hrtimer_forward_now(timer, ns_to_ktime(max(period_us, 20U) * 1000ULL));
	return HRTIMER_RESTART;
}

static int tp_event_init(struct perf_event *event)
{
	if (event->attr.type != tp_pmu.type)
		return -ENOENT;
	if (event->cpu < 0)
		return -EINVAL;
	return 0;
}

static void tp_start(struct perf_event *event, int flags)
{
	struct tp_cpu *st = this_cpu_ptr(&tp_cpus);

	st->event = event;
	st->running = true;
	event->hw.state = 0;
	if (!perf_get_aux(&st->handle))
		perf_aux_output_begin(&st->handle, event);
	hrtimer_start(&st->timer, ns_to_ktime(max(period_us, 20U) * 1000ULL),
		      HRTIMER_MODE_REL_PINNED_HARD);
}

static void tp_stop(struct perf_event *event, int flags)
{
	struct tp_cpu *st = this_cpu_ptr(&tp_cpus);

	if (event->hw.state & PERF_HES_STOPPED)
		return;
	st->running = false;
	/* same CPU, IRQs off: the callback cannot be running */
	hrtimer_try_to_cancel(&st->timer);
	if (perf_get_aux(&st->handle))
		perf_aux_output_end(&st->handle, 0);
	event->hw.state = PERF_HES_STOPPED;
}

static int tp_add(struct perf_event *event, int flags)
{
	struct tp_cpu *st = this_cpu_ptr(&tp_cpus);

	if (st->event && st->event != event)
		return -EBUSY;
	st->event = event;
	event->hw.state = PERF_HES_STOPPED;
	if (flags & PERF_EF_START)
		tp_start(event, 0);
	return 0;
}

static void tp_del(struct perf_event *event, int flags)
{
	tp_stop(event, PERF_EF_UPDATE);
	this_cpu_ptr(&tp_cpus)->event = NULL;
}

static void tp_read(struct perf_event *event)
{
}

static struct pmu tp_pmu = {
	.module		= THIS_MODULE,
	.task_ctx_nr	= perf_sw_context,
	.capabilities	= PERF_PMU_CAP_ITRACE,
	.event_init	= tp_event_init,
	.add		= tp_add,
	.del		= tp_del,
	.start		= tp_start,
	.stop		= tp_stop,
	.read		= tp_read,
	.setup_aux	= tp_setup_aux,
	.free_aux	= tp_free_aux,
};

static int __init tp_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct tp_cpu *st = per_cpu_ptr(&tp_cpus, cpu);

		hrtimer_init(&st->timer, CLOCK_MONOTONIC,
			     HRTIMER_MODE_REL_PINNED_HARD);
		st->timer.function = tp_tick;
		st->rnd = 0x9e3779b97f4a7c15ULL ^ cpu;
	}
	return perf_pmu_register(&tp_pmu, "arm_spe_test", -1);
}

static void __exit tp_exit(void)
{
	int cpu;

	perf_pmu_unregister(&tp_pmu);
	for_each_possible_cpu(cpu)
		hrtimer_cancel(&per_cpu_ptr(&tp_cpus, cpu)->timer);
}

module_init(tp_init);
module_exit(tp_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("damon_perf tests: SPE-format AUX test PMU");
