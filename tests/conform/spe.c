// SPDX-License-Identifier: GPL-2.0
/*
 * damon_perf_conform_spe: an ARM SPE conformance PMU (test builds).
 *
 * "arm_spe_conform" (the name starts with arm_spe, so damon_perf's SPE
 * backend claims it as it claims arm_spe_0) is an AUX tracing PMU whose
 * callbacks are those of drivers/perf/arm_spe_pmu.c, with the SPE
 * registers imitated per CPU: PMBPTR_EL1 (write pointer), PMBLIMITR_EL1
 * (limit and E), PMBSR_EL1 (S, DL, COLL, EC, BSC) and PMSCR_EL1
 * (profiling on). The perf core is the real one: perf_aux_output_begin(),
 * perf_aux_output_end(), perf_aux_output_skip() and perf_aux_output_flag()
 * are exported (GPL), as is irq_work_run(), and are called as the driver
 * calls them. What each function imitates, by its driver name:
 *
 * spe_pad_buf()          arm_spe_pmu_pad_buf() (6.1, 6.12, 7.2 alike)
 * spe_next_off()         arm_spe_pmu_next_off() and
 *                        __arm_spe_pmu_next_off(): pad a misaligned head
 *                        to the alignment, the limit at the page below
 *                        the tail or at the page after the wakeup, pad to
 *                        the limit when less than a maximum-size record
 *                        fits, and with no space left pad it all, flag
 *                        TRUNCATED and end the handle with size 0
 *                        (alike in all three)
 * spe_output_begin()     arm_spe_perf_aux_output_begin(): 6.1 sets
 *                        PERF_HES_STOPPED when perf_aux_output_begin()
 *                        gives no buffer and returns nothing; 6.12 and 7.2
 *                        return -EIO when the limit has no E bit, and
 *                        their callers stop the event. 7.2's discard mode
 *                        (attr discard bit) is not imitated: it writes no
 *                        record
 * spe_output_end()       arm_spe_perf_aux_output_end(): size written is
 *                        PMBPTR minus the head (alike)
 * spe_fault_act()        arm_spe_pmu_buf_get_fault_act(): no S bit is
 *                        spurious (and reports no collision); DL flags
 *                        TRUNCATED | PARTIAL, COLL flags COLLISION, a
 *                        buffer-full event ends the handle (alike)
 * spe_irq()              arm_spe_pmu_irq_handler(): irq_work_run() so a
 *                        TRUNCATED end disables the event first; restart
 *                        unless truncated (6.12 and 7.2: stop the event
 *                        when that restart fails); clear PMBSR
 * spe_start/stop/add/del arm_spe_pmu_start/stop/add/del()
 * spe_setup_aux()        arm_spe_pmu_setup_aux() (overwrite mode, which
 *                        damon_perf refuses, is refused here too)
 *
 * The hardware: a record is written whole at PMBPTR while profiling is on,
 * the buffer enabled and no management event pending; when less than a
 * maximum-size record fits below the limit, a buffer-full management event
 * (S, EC BUF, BSC FULL) freezes PMBPTR and raises the interrupt, which is
 * taken at once (interrupts off, on the sampling CPU; the PPI's handler
 * is called directly). A sample taken while the previous one is still
 * being written collides: it is lost and PMBSR.COLL is set, sticky until
 * the driver clears PMBSR; the case's collisions happen only while COLL is
 * clear, so each COLLISION flag stands for exactly one lost sample.
 * While profiling is off (the event stopped after a TRUNCATED end, until
 * the consumer frees space and enables it again) no sample is taken.
 *
 * debugfs damon_perf_conform_spe/attach takes "CPU FD USER_PAGE AUX_ADDR
 * AUX_SIZE" from the process that opened the PMU on CPU and mapped it
 * (tests/vm/spe_conform.c), as damonctl spe attach does; run, read by that
 * process, runs every case on every attached online CPU under the rules
 * of 6.1 and of 6.12/7.2: a seeded stream of nr_records records per CPU
 * whose data addresses lie in a pinned anonymous mapping of the reading
 * process (physical addresses and CONTEXT packets with its pid when the
 * case asks), drained by damon_perf's SPE backend every drain_every
 * records and once more after the event is disabled (which publishes the
 * last records, arm_spe_pmu_stop()). Every record offered (written, or
 * lost to a collision or a fault) must be accounted for: a report whose
 * fields equal what was written, or a loss damon_perf counted by reason
 * in perf_stats (aux_no_addr, aux_collision, aux_partial); and after a
 * drain that consumed every record written the PMU must run again (it
 * stops on a full buffer until the consumer restarts it). Output: one
 * line per case, then "spe: N offered, N accounted", then "errors N".
 */
#include <linux/debugfs.h>
#include <linux/file.h>
#include <linux/irq_work.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/module.h>
#include <linux/perf_event.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "aux.h"
#include "ring.h"
#include "stats.h"
#include "../nmi/runfile.h"

#define NAME		"damon_perf_conform_spe"
#define NPAGES		64
#define RING		4096	/* per CPU: more than a buffer holds */
#define EXPECT		8192	/* records in flight per CPU, at most */
#define REC_MAX		64	/* longest record written here */

static unsigned int nr_records = 4096;
module_param(nr_records, uint, 0644);
MODULE_PARM_DESC(nr_records, "records each case offers per CPU");
static ulong seed = 0x2545f4914f6cdd1dUL;
module_param(seed, ulong, 0644);
MODULE_PARM_DESC(seed, "seed of the record streams");
static unsigned int max_record_sz = 64;
module_param(max_record_sz, uint, 0444);
MODULE_PARM_DESC(max_record_sz, "PMSIDR_EL1.MaxSize as bytes (64..2048)");
static unsigned int rec_align = 16;
module_param_named(align, rec_align, uint, 0444);
MODULE_PARM_DESC(align, "PMBIDR_EL1.Align as bytes (1..2048, power of 2)");

/* PMBLIMITR_EL1 and PMBSR_EL1 fields (arm64 sysreg layout) */
#define PMBLIMITR_E		BIT_ULL(0)
#define PMBSR_COLL		BIT_ULL(16)
#define PMBSR_S			BIT_ULL(17)
#define PMBSR_DL		BIT_ULL(19)
#define PMBSR_EC_SHIFT		26
#define PMBSR_EC_MASK		(0x3fULL << PMBSR_EC_SHIFT)
#define PMBSR_EC_BUF		0ULL
#define PMBSR_EC_FAULT_S1	0x24ULL
#define PMBSR_BSC_MASK		0x3fULL
#define PMBSR_BSC_FULL		1ULL

/* ARM_SPE_BUF_PAD_BYTE */
#define PAD_BYTE		0

/*
 * Which driver: false 6.1's, true 6.12's and 7.2's (identical in what is
 * imitated). Both run on every kernel: the rules are the driver's.
 */
static bool rules_612;	/* run_lock */

/* struct arm_spe_pmu_buf */
struct spe_buf {
	int nr_pages;
	bool snapshot;
	void *base;
};

/* PERF_IDX2OFF() */
static u64 idx2off(u64 idx, const struct spe_buf *buf)
{
	return idx % ((unsigned long)buf->nr_pages << PAGE_SHIFT);
}

struct spe_cpu {
	struct perf_output_handle handle;	/* spe_pmu->handle */
	struct perf_event *event;		/* between add and del */
	struct perf_event *attached;		/* attached here, run_lock */
	/* the registers */
	u64 pmbptr, pmblimitr, pmbsr;
	bool pmscr;
	/* what the driver did */
	unsigned long irqs, trunc_flags, coll_flags, partial_flags;
	unsigned long pad_bytes, begin_failed;
};

static DEFINE_PER_CPU(struct spe_cpu, spe_cpus);
static struct pmu spe_pmu;

/* ------------------------------------------------------------------ */
/* The driver                                                          */

static void spe_flag(struct spe_cpu *c, u64 flags)
{
	perf_aux_output_flag(&c->handle, flags);
	if (flags & PERF_AUX_FLAG_TRUNCATED)
		c->trunc_flags++;
	if (flags & PERF_AUX_FLAG_COLLISION)
		c->coll_flags++;
	if (flags & PERF_AUX_FLAG_PARTIAL)
		c->partial_flags++;
}

/* arm_spe_pmu_pad_buf() */
static void spe_pad_buf(struct spe_cpu *c, int len)
{
	struct perf_output_handle *handle = &c->handle;
	struct spe_buf *buf = perf_get_aux(handle);
	u64 head = idx2off(handle->head, buf);

	memset(buf->base + head, PAD_BYTE, len);
	c->pad_bytes += len;
	if (!buf->snapshot)
		perf_aux_output_skip(handle, len);
}

/* __arm_spe_pmu_next_off() */
static u64 __spe_next_off(struct spe_cpu *c)
{
	struct perf_output_handle *handle = &c->handle;
	struct spe_buf *buf = perf_get_aux(handle);
	const u64 bufsize = buf->nr_pages * PAGE_SIZE;
	u64 limit = bufsize;
	u64 head, tail, wakeup;

	/* a head left misaligned: pad to the next alignment boundary */
	head = idx2off(handle->head, buf);
	if (!IS_ALIGNED(head, rec_align)) {
		unsigned long delta = roundup(head, rec_align) - head;

		delta = min(delta, handle->size);
		spe_pad_buf(c, delta);
		head = idx2off(handle->head, buf);
	}
	if (!handle->size)
		goto no_space;
	tail = idx2off(handle->head + handle->size, buf);
	wakeup = idx2off(handle->wakeup, buf);
	/* avoid clobbering unconsumed data */
	if (head < tail)
		limit = round_down(tail, PAGE_SIZE);
	/* a wakeup before the wrap: stop at the page boundary after it */
	if ((handle->wakeup - handle->head) < handle->size && head <= wakeup)
		limit = min(limit, round_up(wakeup, PAGE_SIZE));
	if (limit > head)
		return limit;

	spe_pad_buf(c, handle->size);
no_space:
	spe_flag(c, PERF_AUX_FLAG_TRUNCATED);
	perf_aux_output_end(handle, 0);
	return 0;
}

/* arm_spe_pmu_next_off() */
static u64 spe_next_off(struct spe_cpu *c)
{
	struct spe_buf *buf = perf_get_aux(&c->handle);
	u64 limit = __spe_next_off(c);
	u64 head = idx2off(c->handle.head, buf);

	/* too close to the end of the buffer: pad to it, recompute */
	if (limit && (limit - head < max_record_sz)) {
		spe_pad_buf(c, limit - head);
		limit = __spe_next_off(c);
	}
	return limit;
}

/*
 * arm_spe_perf_aux_output_begin(): 6.1's sets PERF_HES_STOPPED when there
 * is no buffer; 6.12's and 7.2's return -EIO when the buffer is not
 * enabled (no buffer, or no space), for the caller to stop the event.
 */
static int spe_output_begin(struct spe_cpu *c, struct perf_event *event)
{
	struct spe_buf *buf;
	u64 base, limit;

	buf = perf_aux_output_begin(&c->handle, event);
	if (!buf) {
		c->begin_failed++;
		if (!rules_612)
			event->hw.state |= PERF_HES_STOPPED;
		limit = 0;
		goto out_write_limit;
	}
	limit = spe_next_off(c);
	if (limit)
		limit |= PMBLIMITR_E;
	limit += (u64)buf->base;
	base = (u64)buf->base + idx2off(c->handle.head, buf);
	c->pmbptr = base;
out_write_limit:
	c->pmblimitr = limit;
	return (limit & PMBLIMITR_E) ? 0 : -EIO;
}

/* arm_spe_perf_aux_output_end() */
static void spe_output_end(struct spe_cpu *c)
{
	struct spe_buf *buf = perf_get_aux(&c->handle);
	u64 offset, size;

	offset = c->pmbptr - (u64)buf->base;
	size = offset - idx2off(c->handle.head, buf);
	if (buf->snapshot)
		c->handle.head = offset;
	/* the records are in memory: the store is ordered by the IRQ path */
	smp_wmb();
	perf_aux_output_end(&c->handle, size);
}

/* arm_spe_pmu_disable_and_drain_local() */
static void spe_disable_and_drain(struct spe_cpu *c)
{
	c->pmscr = false;
	c->pmblimitr = 0;
}

enum fault_act { ACT_SPURIOUS, ACT_FATAL, ACT_OK };

/* arm_spe_pmu_buf_get_fault_act() */
static enum fault_act spe_fault_act(struct spe_cpu *c)
{
	u64 pmbsr = c->pmbsr;
	enum fault_act ret;

	if (!(pmbsr & PMBSR_S))
		return ACT_SPURIOUS;
	if (pmbsr & PMBSR_DL)
		spe_flag(c, PERF_AUX_FLAG_TRUNCATED | PERF_AUX_FLAG_PARTIAL);
	if (pmbsr & PMBSR_COLL)
		spe_flag(c, PERF_AUX_FLAG_COLLISION);
	ret = ACT_FATAL;	/* pr_err_ratelimited() not imitated */
	if ((pmbsr & PMBSR_EC_MASK) == PMBSR_EC_BUF &&
	    (pmbsr & PMBSR_BSC_MASK) == PMBSR_BSC_FULL)
		ret = ACT_OK;
	spe_output_end(c);
	return ret;
}

static void spe_stop(struct perf_event *event, int flags);

/* arm_spe_pmu_irq_handler(), interrupts off on the sampling CPU */
static void spe_irq(struct spe_cpu *c)
{
	struct perf_event *event = c->handle.event;
	enum fault_act act;

	c->irqs++;
	if (!perf_get_aux(&c->handle))
		return;
	act = spe_fault_act(c);
	if (act == ACT_SPURIOUS)
		return;
	/* perf callbacks (a TRUNCATED end's disable) complete first */
	irq_work_run();
	switch (act) {
	case ACT_FATAL:
		spe_disable_and_drain(c);
		break;
	case ACT_OK:
		if (!(c->handle.aux_flags & PERF_AUX_FLAG_TRUNCATED)) {
			/* 6.1 ignores a failed restart; 6.12, 7.2 stop */
			if (spe_output_begin(c, event) && rules_612)
				spe_stop(event, PERF_EF_UPDATE);
		}
		break;
	case ACT_SPURIOUS:
		break;
	}
	c->pmbsr = 0;
}

static int spe_event_init(struct perf_event *event)
{
	const struct perf_event_attr *attr = &event->attr;

	if (attr->type != event->pmu->type)
		return -ENOENT;
	/* the CPUs of this test: CPU-bound events only */
	if (event->cpu < 0)
		return -ENOENT;
	if (attr->exclude_idle)
		return -EOPNOTSUPP;
	/* a buffer of samples cannot be frequency-throttled */
	if (attr->freq)
		return -EINVAL;
	return 0;
}

/* arm_spe_pmu_start() */
static void spe_start(struct perf_event *event, int flags)
{
	struct spe_cpu *c = this_cpu_ptr(&spe_cpus);
	struct hw_perf_event *hwc = &event->hw;

	hwc->state = 0;
	if (rules_612) {
		if (spe_output_begin(c, event)) {
			spe_stop(event, 0);
			return;
		}
	} else {
		spe_output_begin(c, event);
		if (hwc->state)
			return;
	}
	/* PMSFCR, PMSEVFR, PMSLATFR, PMSIRR, PMSICR: no filter here */
	c->pmscr = true;
}

/* arm_spe_pmu_stop() */
static void spe_stop(struct perf_event *event, int flags)
{
	struct spe_cpu *c = this_cpu_ptr(&spe_cpus);
	struct hw_perf_event *hwc = &event->hw;

	if (hwc->state & PERF_HES_STOPPED)
		return;
	spe_disable_and_drain(c);
	if (flags & PERF_EF_UPDATE) {
		/* a pending fault is contained to this buffer */
		if (perf_get_aux(&c->handle)) {
			if (spe_fault_act(c) == ACT_SPURIOUS)
				spe_output_end(c);
			else
				c->pmbsr = 0;
		}
		hwc->state |= PERF_HES_UPTODATE;
	}
	hwc->state |= PERF_HES_STOPPED;
}

/* arm_spe_pmu_add() */
static int spe_add(struct perf_event *event, int flags)
{
	struct spe_cpu *c = this_cpu_ptr(&spe_cpus);
	struct hw_perf_event *hwc = &event->hw;
	int ret = 0;

	hwc->state = PERF_HES_UPTODATE | PERF_HES_STOPPED;
	c->event = event;
	if (flags & PERF_EF_START) {
		spe_start(event, PERF_EF_RELOAD);
		if (hwc->state & PERF_HES_STOPPED)
			ret = -EINVAL;
	}
	return ret;
}

/* arm_spe_pmu_del() */
static void spe_del(struct perf_event *event, int flags)
{
	spe_stop(event, PERF_EF_UPDATE);
	this_cpu_ptr(&spe_cpus)->event = NULL;
}

static void spe_read(struct perf_event *event)
{
}

/* arm_spe_pmu_setup_aux() */
static void *spe_setup_aux(struct perf_event *event, void **pages,
			   int nr_pages, bool snapshot)
{
	struct page **pglist;
	struct spe_buf *buf;
	int i;

	if (nr_pages < 2)
		return NULL;
	/* snapshot mode: damon_perf refuses read-only AUX mappings */
	if (snapshot)
		return NULL;
	buf = kzalloc(sizeof(*buf), GFP_KERNEL);
	if (!buf)
		return NULL;
	pglist = kcalloc(nr_pages, sizeof(*pglist), GFP_KERNEL);
	if (!pglist)
		goto out_free_buf;
	for (i = 0; i < nr_pages; ++i)
		pglist[i] = virt_to_page(pages[i]);
	buf->base = vmap(pglist, nr_pages, VM_MAP, PAGE_KERNEL);
	if (!buf->base)
		goto out_free_pglist;
	buf->nr_pages = nr_pages;
	buf->snapshot = snapshot;
	kfree(pglist);
	return buf;
out_free_pglist:
	kfree(pglist);
out_free_buf:
	kfree(buf);
	return NULL;
}

/* arm_spe_pmu_free_aux() */
static void spe_free_aux(void *aux)
{
	struct spe_buf *buf = aux;

	vunmap(buf->base);
	kfree(buf);
}

static struct pmu spe_pmu = {
	.module		= THIS_MODULE,
	.capabilities	= PERF_PMU_CAP_EXCLUSIVE | PERF_PMU_CAP_ITRACE,
	.task_ctx_nr	= perf_sw_context,
	.event_init	= spe_event_init,
	.add		= spe_add,
	.del		= spe_del,
	.start		= spe_start,
	.stop		= spe_stop,
	.read		= spe_read,
	.setup_aux	= spe_setup_aux,
	.free_aux	= spe_free_aux,
};

/* ------------------------------------------------------------------ */
/* The hardware                                                        */

enum hw_result { HW_OFF, HW_WRITTEN, HW_COLLIDED, HW_PARTIAL };

/*
 * One sample: interrupts off, on the CPU that owns @c. @cut (0: none) is
 * a fault after the first @cut bytes of the record: a stage-1 fault
 * management event with data loss (S, DL, EC FAULT_S1), PMBPTR left
 * after the partial record.
 */
static enum hw_result hw_sample(struct spe_cpu *c, const u8 *rec,
				unsigned int len, bool collide,
				unsigned int cut)
{
	u64 limit;

	if (!c->event || !c->pmscr || !(c->pmblimitr & PMBLIMITR_E) ||
	    (c->pmbsr & PMBSR_S))
		return HW_OFF;
	if (collide && !(c->pmbsr & PMBSR_COLL)) {
		c->pmbsr |= PMBSR_COLL;
		return HW_COLLIDED;
	}
	limit = c->pmblimitr & PAGE_MASK;
	if (WARN_ON_ONCE(limit - c->pmbptr < len))
		return HW_OFF;
	if (cut && cut < len) {
		memcpy((void *)c->pmbptr, rec, cut);
		c->pmbptr += cut;
		c->pmbsr |= PMBSR_S | PMBSR_DL |
			    (PMBSR_EC_FAULT_S1 << PMBSR_EC_SHIFT);
		spe_irq(c);
		return HW_PARTIAL;
	}
	memcpy((void *)c->pmbptr, rec, len);
	c->pmbptr += len;
	if (limit - c->pmbptr < max_record_sz) {
		/* buffer full: PMBPTR frozen, the management interrupt */
		c->pmbsr |= PMBSR_S | (PMBSR_EC_BUF << PMBSR_EC_SHIFT) |
			    PMBSR_BSC_FULL;
		spe_irq(c);
	}
	return HW_WRITTEN;
}

/* ------------------------------------------------------------------ */
/* Cases                                                               */

static const struct tcase {
	const char *name;
	unsigned int drain_every;	/* records between drains */
	unsigned int coll_per_1k;	/* samples that collide, per 1024 */
	unsigned int branch_per_16;	/* records without a data address */
	bool pa, ctx, pad64;
	unsigned int fault_per_1k;	/* records cut by a buffer fault */
	/*
	 * Every drain finds the report ring full (perf samples of another
	 * probe of the context on this CPU) and takes nothing; the next one
	 * finds it empty.
	 */
	bool ring_full;
} cases[] = {
	/* drained often: the buffer never fills, watermark interrupts */
	{ "spe-steady", 64, 0, 2, false, false, false },
	/* drained rarely: the buffer fills, TRUNCATED, the event stops */
	{ "spe-full", 2048, 0, 2, false, false, false },
	{ "spe-collide", 128, 24, 2, false, false, false },
	{ "spe-pa-ctx", 256, 8, 4, true, true, false },
	/* records padded to 64 bytes as Neoverse cores write them */
	{ "spe-pad64-full", 4096, 8, 1, true, false, true },
	/* a fault with data loss: TRUNCATED | PARTIAL, the event stopped */
	{ "spe-fault-partial", 256, 0, 4, true, true, false, 8 },
	{ "spe-full-ring-full", 1024, 0, 2, false, false, false, 0, true },
};

struct want {
	unsigned long vaddr, paddr;
	pid_t tid;
	bool store;
};

static struct damon_perf_aux_event *aux_event;	/* run_lock */
static struct damon_perf_rings rings;
static bool have_rings;

static struct {
	const struct tcase *c;
	struct out *o;
	struct want *w;			/* EXPECT entries, a FIFO */
	unsigned int head, tail;	/* free-running */
	unsigned long seen;
	int cpu;
} chk;				/* run_lock */

struct fixture {
	unsigned long ubuf;
	struct page *upages[NPAGES];
};

static u64 next_rnd(u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static unsigned int pkt(u8 *p, u8 hdr, u64 payload, unsigned int plen)
{
	unsigned int i;

	p[0] = hdr;
	for (i = 0; i < plen; i++)
		p[1 + i] = payload >> (8 * i);
	return 1 + plen;
}

/*
 * One record: PC OP [VA [PA]] LAT EV [CTX] END|TS, padded to 64 bytes
 * when the case says so; @w what its report must hold (false: none).
 */
static unsigned int make_rec(const struct tcase *c, const struct fixture *fx,
			     u64 *rnd, u8 *rec, struct want *w, bool *addr)
{
	u64 x = next_rnd(rnd);
	unsigned int pg = x % NPAGES, n = 0;
	unsigned long off = ((x >> 8) % (PAGE_SIZE / 8)) * 8;
	unsigned long va = fx->ubuf + pg * PAGE_SIZE + off;
	phys_addr_t pa = page_to_phys(fx->upages[pg]) + off;
	bool branch = ((x >> 20) & 15) < c->branch_per_16;
	bool store = (x >> 24) & 1;

	n += pkt(rec + n, 0xb0, BIT_ULL(63) | (0x400000 + (x & 0xfff) * 4), 8);
	if (branch) {
		n += pkt(rec + n, 0x4a, 1, 1);	/* OP_TYPE branch */
	} else {
		n += pkt(rec + n, 0x49, store, 1);	/* OP_TYPE ld/st */
		/* data VA, a top-byte tag the parser strips */
		n += pkt(rec + n, 0xb2, ((u64)0x2a << 56) | va, 8);
		if (c->pa)
			n += pkt(rec + n, 0xb3, BIT_ULL(63) | pa, 8);
	}
	n += pkt(rec + n, 0x98, 20 + ((x >> 28) & 0x3f), 2);
	n += pkt(rec + n, 0x52, 0x0006, 2);
	if (c->ctx)
		n += pkt(rec + n, 0x65, current->pid, 4);
	if ((x >> 36) & 3)
		n += pkt(rec + n, 0x71, x >> 40, 8);	/* TIMESTAMP */
	else
		rec[n++] = 0x01;			/* END */
	if (c->pad64)
		while (n < REC_MAX)
			rec[n++] = 0x00;
	*addr = !branch;
	w->vaddr = va & PAGE_MASK;
	w->paddr = c->pa ? pa & PAGE_MASK : 0;
	w->tid = c->ctx ? current->pid : 0;
	w->store = !branch && store;
	return n;
}

/* probe of the reports that fill the ring ahead of a drain */
#define FILLER_PROBE	2

static void check_report(const struct damon_perf_report *r, void *arg)
{
	struct out *o = chk.o;
	const struct want *w;
	pid_t tgid;

	if (r->probe_idx == FILLER_PROBE)
		return;
	if (chk.tail == chk.head) {
		fail(o, "%s cpu%d: unexpected report vaddr %lx", chk.c->name,
		     chk.cpu, r->vaddr);
		return;
	}
	w = &chk.w[chk.tail++ % EXPECT];
	chk.seen++;
	tgid = w->tid ? current->tgid : 0;
	if (r->vaddr != w->vaddr || r->paddr != w->paddr ||
	    r->is_write != w->store || r->tid != w->tid || r->tgid != tgid)
		fail(o, "%s cpu%d: report %lu vaddr %lx paddr %lx write %u tid %d tgid %d, written %lx %lx %u %d %d",
		     chk.c->name, chk.cpu, chk.seen - 1, r->vaddr, r->paddr,
		     r->is_write, r->tid, r->tgid, w->vaddr, w->paddr,
		     w->store, w->tid, tgid);
	if (r->cpu != chk.cpu || r->probe_idx != 1 ||
	    r->src != DAMON_PERF_SRC_AUX)
		fail(o, "%s cpu%d: cpu %d probe %u src %u", chk.c->name,
		     chk.cpu, r->cpu, r->probe_idx, r->src);
}

/* damon_perf's drain of every buffer, then its reports checked in order */
static void drain(int cpu)
{
	damon_perf_aux_event_drain(aux_event, &rings);
	damon_perf_ring_drain(&rings, cpu, check_report, NULL);
}

/* Fill this CPU's report ring as a busy perf probe would. */
static void fill_ring(void)
{
	struct damon_perf_report r = {
		.vaddr = PAGE_SIZE, .size = PAGE_SIZE,
		.probe_idx = FILLER_PROBE, .src = DAMON_PERF_SRC_OVERFLOW,
	};
	unsigned int i;

	preempt_disable();
	r.cpu = smp_processor_id();
	for (i = 0; i < RING; i++)
		if (!damon_perf_report_access(&rings, &r))
			break;
	preempt_enable();
}

static unsigned long delta(const struct damon_perf_stats *a,
			   const struct damon_perf_stats *b,
			   enum damon_perf_stat_idx idx)
{
	return damon_perf_stats_get(b, idx) - damon_perf_stats_get(a, idx);
}

static unsigned long offered_total, accounted_total;
static cpumask_t saved_mask;	/* run_lock */

static void run_case(const struct tcase *c, const struct fixture *fx,
		     struct out *o)
{
	static struct damon_perf_stats before, after;
	unsigned long offered = 0, written = 0, collided = 0, off = 0;
	unsigned long partial = 0, stalled = 0;
	unsigned long trunc0 = 0, coll0 = 0, irqs0 = 0, pad0 = 0, fail0 = 0;
	unsigned long trunc = 0, coll = 0, irqs = 0, pads = 0, failed = 0;
	unsigned long lost;
	u64 rnd = seed ^ (u64)(c - cases) * 0x100000001b3ULL ^ rules_612;
	u8 rec[REC_MAX + 16];
	int cpu;

	damon_perf_stats_aggregate(&before);
	chk.c = c;
	chk.o = o;
	chk.seen = 0;
	cpumask_copy(&saved_mask, current->cpus_ptr);
	for_each_online_cpu(cpu) {
		struct spe_cpu *sc = per_cpu_ptr(&spe_cpus, cpu);
		struct perf_event *event = sc->attached;
		unsigned int i;

		if (!event || set_cpus_allowed_ptr(current, cpumask_of(cpu)))
			continue;
		chk.cpu = cpu;
		chk.head = 0;
		chk.tail = 0;
		trunc0 = sc->trunc_flags;
		coll0 = sc->coll_flags;
		irqs0 = sc->irqs;
		pad0 = sc->pad_bytes;
		fail0 = sc->begin_failed;
		perf_event_enable(event);
		for (i = 0; i < nr_records; i++) {
			unsigned long flags;
			enum hw_result res;
			unsigned int len, cut = 0;
			bool addr, collide;
			struct want w;
			u64 x;

			len = make_rec(c, fx, &rnd, rec, &w, &addr);
			x = next_rnd(&rnd);
			collide = (x & 1023) < c->coll_per_1k;
			if (((x >> 10) & 1023) < c->fault_per_1k)
				cut = 1 + (x >> 20) % (len - 1);
			local_irq_save(flags);
			res = hw_sample(this_cpu_ptr(&spe_cpus), rec, len,
					collide, cut);
			local_irq_restore(flags);
			if (res == HW_OFF) {
				off++;
			} else if (res == HW_COLLIDED) {
				collided++;
			} else if (res == HW_PARTIAL) {
				partial++;
			} else {
				written++;
				if (addr) {
					if (chk.head - chk.tail >= EXPECT) {
						fail(o, "%s cpu%d: more than %u records in flight",
						     c->name, cpu, EXPECT);
						break;
					}
					chk.w[chk.head++ % EXPECT] = w;
				}
			}
			if ((i + 1) % c->drain_every)
				continue;
			if (c->ring_full) {
				fill_ring();
				drain(cpu);
			}
			drain(cpu);
			/*
			 * Every record published is consumed: a PMU that
			 * stopped on a full buffer must be running again.
			 */
			if (chk.head == chk.tail && !sc->pmscr) {
				stalled++;
				if (stalled == 1)
					fail(o, "%s cpu%d: the event stays stopped after the consumer emptied the buffer (record %u; state %d hw %x on %d aux %d limit %llx sr %llx)",
					     c->name, cpu, i, event->state,
					     event->hw.state,
					     sc->event == event,
					     !!perf_get_aux(&sc->handle),
					     sc->pmblimitr, sc->pmbsr);
			}
		}
		/* arm_spe_pmu_stop() publishes the last records */
		perf_event_disable(event);
		drain(cpu);
		if (chk.head != chk.tail)
			fail(o, "%s cpu%d: %u records written never reported",
			     c->name, cpu, chk.head - chk.tail);
		trunc += sc->trunc_flags - trunc0;
		coll += sc->coll_flags - coll0;
		irqs += sc->irqs - irqs0;
		pads += sc->pad_bytes - pad0;
		failed += sc->begin_failed - fail0;
	}
	set_cpus_allowed_ptr(current, &saved_mask);
	damon_perf_stats_aggregate(&after);

	/*
	 * Offered: every record written, and every sample lost to a
	 * collision that the driver flagged (COLL is sticky, so one still
	 * pending is flagged at a later interrupt).
	 */
	offered = written + coll + partial;
	lost = delta(&before, &after, DAMON_PERF_STAT_aux_no_addr) +
	       delta(&before, &after, DAMON_PERF_STAT_aux_collision) +
	       delta(&before, &after, DAMON_PERF_STAT_aux_partial);
	say(o, "case %s%s offered %lu reports %lu lost %lu (written %lu, collided %lu, flagged %lu, cut by a fault %lu; not sampled while stopped %lu, stalled %lu; interrupts %lu, TRUNCATED %lu, begin without space %lu, pad bytes %lu) aux_record +%lu aux_no_addr +%lu aux_truncated +%lu aux_collision +%lu enqueue +%lu\n",
	    c->name, rules_612 ? "-612" : "-61", offered, chk.seen, lost,
	    written, collided, coll, partial, off, stalled, irqs, trunc,
	    failed, pads,
	    delta(&before, &after, DAMON_PERF_STAT_aux_record),
	    delta(&before, &after, DAMON_PERF_STAT_aux_no_addr),
	    delta(&before, &after, DAMON_PERF_STAT_aux_truncated),
	    delta(&before, &after, DAMON_PERF_STAT_aux_collision),
	    delta(&before, &after, DAMON_PERF_STAT_enqueue));
	if (chk.seen + lost != offered)
		fail(o, "%s: %lu offered, %lu accounted (%lu reports + %lu counted losses)",
		     c->name, offered, chk.seen + lost, chk.seen, lost);
	if (delta(&before, &after, DAMON_PERF_STAT_aux_truncated) != trunc)
		fail(o, "%s: aux_truncated +%lu, the driver flagged %lu",
		     c->name, delta(&before, &after,
				    DAMON_PERF_STAT_aux_truncated), trunc);
	if (delta(&before, &after, DAMON_PERF_STAT_aux_partial) != partial)
		fail(o, "%s: aux_partial +%lu, %lu records cut by a fault",
		     c->name, delta(&before, &after,
				    DAMON_PERF_STAT_aux_partial), partial);
	if (delta(&before, &after, DAMON_PERF_STAT_aux_record) != written)
		fail(o, "%s: aux_record +%lu, %lu records written", c->name,
		     delta(&before, &after, DAMON_PERF_STAT_aux_record),
		     written);
	offered_total += offered;
	accounted_total += chk.seen + lost;
}

static int fixture_get(struct fixture *fx)
{
	int n;

	memset(fx, 0, sizeof(*fx));
	fx->ubuf = vm_mmap(NULL, 0, NPAGES * PAGE_SIZE, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, 0);
	if (IS_ERR_VALUE(fx->ubuf))
		return (int)fx->ubuf;
	/* pinned: the physical addresses stay what the records say */
	n = pin_user_pages_fast(fx->ubuf, NPAGES, FOLL_WRITE | FOLL_LONGTERM,
				fx->upages);
	if (n != NPAGES) {
		if (n > 0)
			unpin_user_pages(fx->upages, n);
		vm_munmap(fx->ubuf, NPAGES * PAGE_SIZE);
		return n < 0 ? n : -EFAULT;
	}
	return 0;
}

static void fixture_put(struct fixture *fx)
{
	unpin_user_pages(fx->upages, NPAGES);
	vm_munmap(fx->ubuf, NPAGES * PAGE_SIZE);
}

static void run_all(struct out *o)
{
	static struct fixture fx;	/* run_lock */
	unsigned int i;
	int ret, r;

	if (!aux_event || !have_rings) {
		fail(o, "no buffer attached");
		return;
	}
	if (max_record_sz < REC_MAX || max_record_sz > SZ_2K ||
	    !is_power_of_2(rec_align) || rec_align > SZ_2K) {
		fail(o, "max_record_sz %u, align %u", max_record_sz,
		     rec_align);
		return;
	}
	ret = fixture_get(&fx);
	if (ret) {
		fail(o, "fixture %d", ret);
		return;
	}
	chk.w = kvcalloc(EXPECT, sizeof(*chk.w), GFP_KERNEL);
	if (!chk.w) {
		fixture_put(&fx);
		fail(o, "no memory");
		return;
	}
	offered_total = 0;
	accounted_total = 0;
	say(o, "max_record_sz %u, align %u, %u records per CPU per case\n",
	    max_record_sz, rec_align, nr_records);
	for (r = 0; r < 2; r++) {
		WRITE_ONCE(rules_612, r);
		for (i = 0; i < ARRAY_SIZE(cases); i++)
			run_case(&cases[i], &fx, o);
	}
	WRITE_ONCE(rules_612, false);
	kvfree(chk.w);
	chk.w = NULL;
	fixture_put(&fx);
	say(o, "spe: %lu offered, %lu accounted\n", offered_total,
	    accounted_total);
}

/* ------------------------------------------------------------------ */
/* debugfs                                                             */

static struct dentry *dir;

static ssize_t attach_write(struct file *file, const char __user *ubuf,
			    size_t len, loff_t *ppos)
{
	struct damon_perf_aux_req req = { .probe_idx = 1 };
	struct damon_perf_aux_args args;
	unsigned long long up, aux, size;
	unsigned int cpu;
	char *kbuf;
	int fd, ret;

	kbuf = memdup_user_nul(ubuf, min_t(size_t, len, 200));
	if (IS_ERR(kbuf))
		return PTR_ERR(kbuf);
	ret = sscanf(kbuf, "%u %d %llx %llx %llx", &cpu, &fd, &up, &aux,
		     &size);
	kfree(kbuf);
	if (ret != 5 || cpu >= nr_cpu_ids || !cpu_possible(cpu))
		return -EINVAL;
	req.cpu = cpu;
	req.fd = fd;
	req.user_page = up;
	req.aux_addr = aux;
	req.aux_size = size;

	mutex_lock(&run_lock);
	if (!have_rings) {
		ret = damon_perf_rings_alloc(&rings, RING, NULL, NULL);
		if (ret)
			goto out;
		have_rings = true;
	}
	if (!aux_event) {
		aux_event = damon_perf_aux_event_new(NULL, 1, 0, 0);
		if (!aux_event) {
			ret = -ENOMEM;
			goto out;
		}
	}
	ret = damon_perf_aux_args_get(&req, &args, NULL);
	if (ret)
		goto out;
	if (args.event->pmu != &spe_pmu) {
		fput(args.file);
		ret = -EINVAL;
		goto out;
	}
	ret = damon_perf_aux_event_add_cpu(aux_event, cpu, &args);
	if (ret)
		fput(args.file);
	else
		per_cpu_ptr(&spe_cpus, cpu)->attached = args.event;
out:
	mutex_unlock(&run_lock);
	return ret ? ret : len;
}

static void detach(void)
{
	int cpu;

	damon_perf_aux_event_free(aux_event);
	aux_event = NULL;
	for_each_possible_cpu(cpu)
		per_cpu_ptr(&spe_cpus, cpu)->attached = NULL;
}

static ssize_t detach_write(struct file *file, const char __user *ubuf,
			    size_t len, loff_t *ppos)
{
	mutex_lock(&run_lock);
	detach();
	mutex_unlock(&run_lock);
	return len;
}

static const struct file_operations attach_fops = {
	.owner	= THIS_MODULE,
	.write	= attach_write,
};

static const struct file_operations detach_fops = {
	.owner	= THIS_MODULE,
	.write	= detach_write,
};

static int __init spe_conform_init(void)
{
	int ret;

	ret = perf_pmu_register(&spe_pmu, "arm_spe_conform", -1);
	if (ret)
		return ret;
	dir = debugfs_create_dir(NAME, NULL);
	debugfs_create_file("attach", 0200, dir, NULL, &attach_fops);
	debugfs_create_file("detach", 0200, dir, NULL, &detach_fops);
	debugfs_create_file("run", 0400, dir, run_all, &run_fops);
	return 0;
}

static void __exit spe_conform_exit(void)
{
	debugfs_remove(dir);
	detach();
	if (have_rings)
		damon_perf_rings_free(&rings);
	perf_pmu_unregister(&spe_pmu);
}

module_init(spe_conform_init);
module_exit(spe_conform_exit);
MODULE_DESCRIPTION("damon_perf: an SPE PMU that writes AUX as the driver does");
MODULE_LICENSE("GPL");
DAMON_PERF_IMPORT_KUNIT_NS();
