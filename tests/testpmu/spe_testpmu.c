// SPDX-License-Identifier: GPL-2.0
/*
 * Test PMU "arm_spe_test" (tests only): an AUX tracing PMU that, from a
 * per-CPU hrtimer, writes ARM SPE format records into the perf AUX buffer
 * the way drivers/perf/arm_spe_pmu.c has the hardware write them. The
 * data addresses follow a configurable pattern: hot_pct percent of them
 * fall in [hot_start, hot_start + hot_len), the rest in [cold_start,
 * cold_start + cold_len).
 *
 * The buffer handling is the driver's (6.1), over an imitated PMBPTR (the
 * write pointer), PMBLIMITR (the limit) and PMBSR.COLL: at start and after
 * every buffer-full event a transaction begins (perf_aux_output_begin())
 * with the limit of arm_spe_pmu_next_off(): a misaligned head padded to
 * TP_ALIGN, the limit at the page below the consumer's tail or at the
 * page after the wakeup, padding to the limit when less than a
 * maximum-size record (TP_MAX_RECORD) fits, and with no space left the
 * rest padded, PERF_AUX_FLAG_TRUNCATED and an end of size 0, which
 * disables the event until the consumer frees space and enables it
 * again. Records are written whole; when less than a maximum-size record
 * fits below the limit, the buffer-full event ends the transaction with
 * the size written, flagged PERF_AUX_FLAG_COLLISION when a sample collided
 * since the last one, and begins the next. collide_pct percent of the
 * samples taken while COLL is clear collide (are lost, and set COLL), so
 * each COLLISION flag stands for exactly one lost sample. paused=1 ends
 * the transaction at the next tick (a buffer-full event, its COLLISION
 * flag included) and takes no sample until paused=0, so that a consumer
 * can drain everything written. The parameter stats reads "written N
 * collided N truncated N pad_bytes N" summed over the CPUs: written +
 * collided samples were offered, each counted once, as a record in the
 * buffer or as a COLLISION flag. With unterminated=1 no record ever ends:
 * a stream of valid packets that a parser must not take for one endless
 * record.
 *
 * Records whose loss has a known reason, for the end-to-end accounting
 * (tests/vm/spe_e2e.sh): loss_pct percent of the records, taken in turn
 * from the kinds enabled, are not the workload's accesses but
 * - no_addr:  an operation without a data address (no VA packet), which
 *   the parser counts (aux_no_addr) and never reports;
 * - foreign:  an access tagged with foreign_pid, a live process that is
 *   no target (drain: miss_tgid);
 * - gone:     an access tagged with gone_pid, a process that has exited
 *   (no thread group to resolve; drain: miss_tgid);
 * - unmapped: the workload's access to unmapped_addr, in no region
 *   (drain: miss_region).
 * The rest (hit) fall in the hot or cold range, tagged ctx_pid. The
 * module must credit each hit to a region and lose each other record by
 * its own reason. The test PMU hooks the drain (test builds:
 * damon_perf_drain_outcome_hook, kmod/drain.h), classifies every AUX
 * report the drain consumes by what the record was, and counts its
 * outcome; the parameter outcomes reads a line per kind, "KIND written N
 * credited N tgid N region N boundary N stale N filter N nomem N" (no_addr
 * is never reported: its line counts what was written), and a line
 * "other" for AUX reports no kind explains.
 *
 * Events must be CPU-bound (perf_event_open(..., cpu >= 0)) and the AUX
 * area mapped read-write (no overwrite mode) with at least 2 pages, as
 * the driver requires.
 */
#include <linux/hrtimer.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/perf_event.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>

#include "drain.h"

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
static unsigned int collide_pct;
module_param(collide_pct, uint, 0644);
MODULE_PARM_DESC(collide_pct,
		 "percent of the samples taken while COLL is clear that collide");
static bool paused;
module_param(paused, bool, 0644);
MODULE_PARM_DESC(paused, "end the transaction and take no sample");
static unsigned int loss_pct;
module_param(loss_pct, uint, 0444);
MODULE_PARM_DESC(loss_pct, "percent of the records of a known loss kind");
static int foreign_pid;
module_param(foreign_pid, int, 0444);
MODULE_PARM_DESC(foreign_pid, "a live process that is no target (0: none)");
static int gone_pid;
module_param(gone_pid, int, 0444);
MODULE_PARM_DESC(gone_pid, "the pid of a process that has exited (0: none)");
static unsigned long unmapped_addr;
module_param(unmapped_addr, ulong, 0444);
MODULE_PARM_DESC(unmapped_addr, "a workload address in no region (0: none)");

/* What a record was: how the module must account for it. */
enum tp_kind { K_HIT, K_NO_ADDR, K_FOREIGN, K_GONE, K_UNMAPPED, K_OTHER,
	       NR_KINDS };

static const char * const kind_names[NR_KINDS] = {
	"hit", "no_addr", "foreign", "gone", "unmapped", "other",
};

/* outcome columns: credited, then enum damon_perf_miss_reason + 1 */
#define NR_OUTCOMES	(DAMON_PERF_MISS_NOMEM + 2)

static const char * const outcome_names[NR_OUTCOMES] = {
	"credited", "tgid", "region", "boundary", "stale", "filter", "nomem",
};

static atomic_long_t outcomes[NR_KINDS][NR_OUTCOMES];

/* PMSIDR_EL1.MaxSize and PMBIDR_EL1.Align of the imitated hardware */
#define TP_MAX_RECORD	64
#define TP_ALIGN	16

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
	bool paused;		/* paused ended the transaction */
	unsigned long ptr;	/* PMBPTR: stream index of the next record */
	unsigned long limit;	/* PMBLIMITR: stream index, 0: disabled */
	bool coll;		/* PMBSR.COLL */
	unsigned long written;
	unsigned long collided;
	unsigned long truncated;
	unsigned long pad_bytes;
	unsigned long kinds[NR_KINDS];	/* records written, by kind */
	unsigned int next_loss;		/* the loss kind taken in turn */
};

static DEFINE_PER_CPU(struct tp_cpu, tp_cpus);
static struct pmu tp_pmu;

static int tp_stats_get(char *out, const struct kernel_param *kp)
{
	unsigned long w = 0, c = 0, t = 0, p = 0;
	int cpu;

	for_each_possible_cpu(cpu) {
		struct tp_cpu *st = per_cpu_ptr(&tp_cpus, cpu);

		w += READ_ONCE(st->written);
		c += READ_ONCE(st->collided);
		t += READ_ONCE(st->truncated);
		p += READ_ONCE(st->pad_bytes);
	}
	return scnprintf(out, PAGE_SIZE,
			 "written %lu collided %lu truncated %lu pad_bytes %lu\n",
			 w, c, t, p);
}

static const struct kernel_param_ops tp_stats_ops = {
	.get = tp_stats_get,
};
module_param_cb(stats, &tp_stats_ops, NULL, 0444);
MODULE_PARM_DESC(stats, "records written, samples collided, TRUNCATED ends, pad bytes");

static int tp_outcomes_get(char *out, const struct kernel_param *kp)
{
	int k, o, cpu, n = 0;

	for (k = 0; k < NR_KINDS; k++) {
		unsigned long w = 0;

		for_each_possible_cpu(cpu)
			w += READ_ONCE(per_cpu_ptr(&tp_cpus, cpu)->kinds[k]);
		n += scnprintf(out + n, PAGE_SIZE - n, "%s written %lu",
			       kind_names[k], w);
		for (o = 0; o < NR_OUTCOMES; o++)
			n += scnprintf(out + n, PAGE_SIZE - n, " %s %ld",
				       outcome_names[o],
				       atomic_long_read(&outcomes[k][o]));
		n += scnprintf(out + n, PAGE_SIZE - n, "\n");
	}
	return n;
}

static const struct kernel_param_ops tp_outcomes_ops = {
	.get = tp_outcomes_get,
};
module_param_cb(outcomes, &tp_outcomes_ops, NULL, 0444);
MODULE_PARM_DESC(outcomes, "per record kind: written, and each AUX report's outcome in the drain");

static bool in_span(unsigned long a, unsigned long start, unsigned long len)
{
	return a - start < max(len, 8UL);
}

/* The kind of the record an AUX report was decoded from. */
static enum tp_kind report_kind(const struct damon_perf_report *r)
{
	if (gone_pid && r->tid == gone_pid)
		return K_GONE;
	if (foreign_pid && r->tid == foreign_pid)
		return K_FOREIGN;
	if (r->tid != ctx_pid)
		return K_OTHER;
	if (unmapped_addr && r->vaddr == (unmapped_addr & PAGE_MASK))
		return K_UNMAPPED;
	/* reports carry the page of the address */
	if (in_span(r->vaddr, hot_start & PAGE_MASK,
		    hot_start + hot_len - (hot_start & PAGE_MASK)) ||
	    in_span(r->vaddr, cold_start & PAGE_MASK,
		    cold_start + cold_len - (cold_start & PAGE_MASK)))
		return K_HIT;
	return K_OTHER;
}

/* damon_perf_drain_outcome_hook: one AUX report consumed by a drain */
static void tp_outcome(const struct damon_perf_report *r, bool credited,
		       enum damon_perf_miss_reason why)
{
	unsigned int o = credited ? 0 : (unsigned int)why + 1;

	if (r->src != DAMON_PERF_SRC_AUX)
		return;
	if (o >= NR_OUTCOMES)
		o = NR_OUTCOMES - 1;
	atomic_long_inc(&outcomes[report_kind(r)][o]);
}

static void *tp_setup_aux(struct perf_event *event, void **pages,
			  int nr_pages, bool overwrite)
{
	struct tp_buf *buf;

	/* arm_spe_pmu_setup_aux(): at least two pages; no snapshot here */
	if (overwrite || nr_pages < 2 || !is_power_of_2(nr_pages))
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

/*
 * Copy @n bytes to stream position @pos (@src NULL: PAD bytes, 0), wrapping
 * around the buffer.
 */
static void put(struct tp_buf *buf, unsigned long pos, const u8 *src,
		unsigned int n)
{
	while (n) {
		unsigned long off = pos & (buf->size - 1);
		unsigned int in_page = offset_in_page(off);
		unsigned int chunk = min_t(unsigned int, n,
					   PAGE_SIZE - in_page);
		void *dst = buf->pages[off >> PAGE_SHIFT] + in_page;

		if (src) {
			memcpy(dst, src, chunk);
			src += chunk;
		} else {
			memset(dst, 0, chunk);
		}
		pos += chunk;
		n -= chunk;
	}
}

/* arm_spe_pmu_pad_buf() */
static void tp_pad(struct tp_cpu *st, unsigned long len)
{
	struct tp_buf *buf = perf_get_aux(&st->handle);

	put(buf, st->handle.head, NULL, len);
	st->pad_bytes += len;
	perf_aux_output_skip(&st->handle, len);
}

/*
 * __arm_spe_pmu_next_off(): the limit as an offset into the buffer, 0
 * when there is no space (the handle ended, TRUNCATED).
 */
static unsigned long __tp_next_off(struct tp_cpu *st)
{
	struct perf_output_handle *handle = &st->handle;
	struct tp_buf *buf = perf_get_aux(handle);
	unsigned long mask = buf->size - 1, limit = buf->size;
	unsigned long head, tail, wakeup;

	head = handle->head & mask;
	if (!IS_ALIGNED(head, TP_ALIGN)) {
		unsigned long delta = roundup(head, TP_ALIGN) - head;

		tp_pad(st, min(delta, handle->size));
		head = handle->head & mask;
	}
	if (!handle->size)
		goto no_space;
	tail = (handle->head + handle->size) & mask;
	wakeup = handle->wakeup & mask;
	/* avoid clobbering unconsumed data */
	if (head < tail)
		limit = round_down(tail, PAGE_SIZE);
	/* a wakeup before the wrap: stop at the page boundary after it */
	if (handle->wakeup < handle->head + handle->size && head <= wakeup)
		limit = min(limit, round_up(wakeup, PAGE_SIZE));
	if (limit > head)
		return limit;
	tp_pad(st, handle->size);
no_space:
	perf_aux_output_flag(handle, PERF_AUX_FLAG_TRUNCATED);
	st->truncated++;
	perf_aux_output_end(handle, 0);
	return 0;
}

/* arm_spe_pmu_next_off(): too close to the limit, pad to it, recompute */
static unsigned long tp_next_off(struct tp_cpu *st)
{
	struct tp_buf *buf = perf_get_aux(&st->handle);
	unsigned long limit = __tp_next_off(st);
	unsigned long head = st->handle.head & (buf->size - 1);

	if (limit && limit - head < TP_MAX_RECORD) {
		tp_pad(st, limit - head);
		limit = __tp_next_off(st);
	}
	return limit;
}

/*
 * arm_spe_perf_aux_output_begin() (6.1): no buffer stops the event; the
 * limit becomes a stream index, PMBPTR the head.
 */
static void tp_begin(struct tp_cpu *st, struct perf_event *event)
{
	struct tp_buf *buf = perf_aux_output_begin(&st->handle, event);
	unsigned long limit;

	st->limit = 0;
	if (!buf) {
		event->hw.state |= PERF_HES_STOPPED;
		return;
	}
	limit = tp_next_off(st);
	if (!limit)
		return;
	/* the limit as a stream index, in the generation of the head */
	st->ptr = st->handle.head;
	st->limit = st->ptr - (st->ptr & (buf->size - 1)) + limit;
}

/* arm_spe_perf_aux_output_end(): the size written is PMBPTR - head */
static void tp_end(struct tp_cpu *st)
{
	/* the records are in memory before the perf core publishes them */
	smp_wmb();
	perf_aux_output_end(&st->handle, st->ptr - st->handle.head);
	st->limit = 0;
}

/*
 * A buffer-full management event and arm_spe_pmu_irq_handler(): COLL flags
 * COLLISION, the transaction ends with what was written; a new one begins
 * unless @restart is false.
 */
static void tp_buffer_full(struct tp_cpu *st, bool restart)
{
	if (st->coll) {
		perf_aux_output_flag(&st->handle, PERF_AUX_FLAG_COLLISION);
		st->collided++;
		st->coll = false;
	}
	tp_end(st);
	if (restart)
		tp_begin(st, st->event);
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

/* The kind of the next record: a loss kind in turn, loss_pct percent. */
static enum tp_kind next_kind(struct tp_cpu *st)
{
	static const enum tp_kind loss[] = { K_NO_ADDR, K_FOREIGN, K_GONE,
					     K_UNMAPPED };
	unsigned int i;

	if (!loss_pct || next_rnd(st) % 100 >= loss_pct)
		return K_HIT;
	for (i = 0; i < ARRAY_SIZE(loss); i++) {
		enum tp_kind k = loss[st->next_loss++ % ARRAY_SIZE(loss)];

		if (k == K_NO_ADDR || (k == K_FOREIGN && foreign_pid) ||
		    (k == K_GONE && gone_pid) ||
		    (k == K_UNMAPPED && unmapped_addr))
			return k;
	}
	return K_HIT;
}

/* One record: [PAD] PC OP [VA] LAT EV [CTX] END|TS. */
static unsigned int build(struct tp_cpu *st, u8 *rec)
{
	enum tp_kind kind = next_kind(st);
	u64 r = next_rnd(st), seq = st->seq++;
	unsigned long start = cold_start, len = cold_len, addr;
	unsigned int n = 0;
	pid_t pid = ctx_pid;

	if (r % 100 < hot_pct) {
		start = hot_start;
		len = hot_len;
	}
	addr = start + ((r >> 8) % max(len, 8UL));
	if (kind == K_FOREIGN)
		pid = foreign_pid;
	else if (kind == K_GONE)
		pid = gone_pid;
	else if (kind == K_UNMAPPED)
		addr = unmapped_addr;
	st->kinds[kind]++;
	if (!(seq % 16))
		rec[n++] = 0x00;				/* PAD */
	/* PC at EL0, non-secure */
	n += pkt(rec + n, 0xb0, (1ULL << 63) | (0x400000 + (seq & 0xff) * 4),
		 8);
	/* load or store */
	n += pkt(rec + n, 0x49, seq & 1, 1);
	/* data VA with a top-byte tag the parser must strip */
	if (kind != K_NO_ADDR)
		n += pkt(rec + n, 0xb2, ((u64)0x2a << 56) | addr, 8);
	/* total latency, events (retired, L1D access) */
	n += pkt(rec + n, 0x98, 20 + (r & 0x3f), 2);
	n += pkt(rec + n, 0x52, 0x0006, 2);
	if (pid)
		n += pkt(rec + n, 0x65, pid, 4);
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
	struct tp_buf *buf;
	u8 rec[TP_MAX_RECORD];

	if (!st->running)
		return HRTIMER_NORESTART;
	if (READ_ONCE(paused)) {
		if (perf_get_aux(&st->handle))
			tp_buffer_full(st, false);
		st->paused = true;
		goto again;
	}
	if (st->paused) {
		st->paused = false;
		if (st->event && !perf_get_aux(&st->handle))
			tp_begin(st, st->event);
	}
	/* a sample per record while the buffer is enabled */
	for (i = 0; i < todo && st->limit; i++) {
		if (!st->coll && collide_pct &&
		    next_rnd(st) % 100 < collide_pct) {
			/* the previous record is still being written */
			st->coll = true;
			continue;
		}
		buf = perf_get_aux(&st->handle);
		n = build(st, rec);
		put(buf, st->ptr, rec, n);
		st->ptr += n;
		st->written++;
		if (st->limit - st->ptr < TP_MAX_RECORD)
			tp_buffer_full(st, true);
	}
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

/* arm_spe_pmu_start() */
static void tp_start(struct perf_event *event, int flags)
{
	struct tp_cpu *st = this_cpu_ptr(&tp_cpus);

	st->event = event;
	st->running = true;
	event->hw.state = 0;
	if (!perf_get_aux(&st->handle))
		tp_begin(st, event);
	hrtimer_start(&st->timer, ns_to_ktime(max(period_us, 20U) * 1000ULL),
		      HRTIMER_MODE_REL_PINNED_HARD);
}

/*
 * arm_spe_pmu_stop(): no management event is ever pending here, so the
 * transaction ends with what was written; COLL stays set until the next
 * buffer-full event reports it, as PMBSR does.
 */
static void tp_stop(struct perf_event *event, int flags)
{
	struct tp_cpu *st = this_cpu_ptr(&tp_cpus);

	st->running = false;
	/* same CPU, IRQs off: the callback cannot be running */
	hrtimer_try_to_cancel(&st->timer);
	/* stopped already (by tp_begin() too): nothing more to do */
	if (event->hw.state & PERF_HES_STOPPED)
		return;
	if (perf_get_aux(&st->handle))
		tp_end(st);
	st->limit = 0;
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
	int cpu, ret;

	for_each_possible_cpu(cpu) {
		struct tp_cpu *st = per_cpu_ptr(&tp_cpus, cpu);

		hrtimer_setup(&st->timer, tp_tick, CLOCK_MONOTONIC,
			      HRTIMER_MODE_REL_PINNED_HARD);
		st->rnd = 0x9e3779b97f4a7c15ULL ^ cpu;
	}
	rcu_assign_pointer(damon_perf_drain_outcome_hook, tp_outcome);
	ret = perf_pmu_register(&tp_pmu, "arm_spe_test", -1);
	if (ret) {
		RCU_INIT_POINTER(damon_perf_drain_outcome_hook, NULL);
		synchronize_rcu();
	}
	return ret;
}

static void __exit tp_exit(void)
{
	int cpu;

	perf_pmu_unregister(&tp_pmu);
	for_each_possible_cpu(cpu)
		hrtimer_cancel(&per_cpu_ptr(&tp_cpus, cpu)->timer);
	RCU_INIT_POINTER(damon_perf_drain_outcome_hook, NULL);
	/* no drain runs the hook, module text, any more */
	synchronize_rcu();
}

module_init(tp_init);
module_exit(tp_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("damon_perf tests: SPE-format AUX test PMU");
DAMON_PERF_IMPORT_KUNIT_NS();
