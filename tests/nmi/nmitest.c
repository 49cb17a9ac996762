// SPDX-License-Identifier: GPL-2.0
/*
 * damon_perf_nmitest: hardware-shaped samples from a real NMI (x86).
 *
 * A test PMU, "damon_perf_nmi", whose CPU-wide counters damon_perf arms
 * through its own probe path (damon_perf_probe_add(), damon_perf_source_arm()).
 * The test sends itself an NMI (the local APIC's self IPI, NMI vector) and
 * the NMI handler, standing in for a PMU interrupt, fills perf_sample_data
 * the way a sampling driver of 6.1 does and calls the counter's overflow
 * handler, damon_perf's, as __perf_event_overflow() would:
 *
 * - Intel PEBS (arch/x86/events/intel/ds.c, setup_pebs_fixed_sample_data):
 *   PERF_SAMPLE_ADDR, DATA_SRC and WEIGHT when sample_type asks, never
 *   PHYS_ADDR (perf_prepare_sample() fills it, after a custom handler);
 * - AMD IBS Op (arch/x86/events/amd/ibs.c, perf_ibs_parse_ld_st_data):
 *   data_src always written (PERF_MEM_NA, then mem_op), DATA_SRC, WEIGHT
 *   (loads), ADDR (linear address valid) and PHYS_ADDR (physical address
 *   valid) flagged when sample_type asks;
 * - an ARM SPE record: arm_spe_pmu delivers its records through the AUX
 *   buffer (spe_aux.sh covers that path); the SPE shape here is what an SPE
 *   record carries (virtual and physical address, load/store, latency),
 *   flagged whatever sample_type asks.
 *
 * Six debugfs files under damon_perf_nmitest/, each runs when opened and
 * reads back its results (root only):
 *
 * fields  every field of every resulting report (vaddr, paddr, is_write,
 *         period, cpu, tid, tgid, probe_idx, src, size, timestamps within
 *         the firing window and monotonic), the classification of samples
 *         that must not become reports, in_nmi() in the handler, and the
 *         perf_stats deltas; one "case" line each, then "fields: ..." with
 *         the totals and "errors N".
 * handover samples handled while another task is current: the handler
 *         takes tid/tgid from current, and a paddr context without a
 *         carried physical address translates through current->mm, as
 *         perf itself does (perf_prepare_sample(), perf_virt_to_phys()).
 *         On 6.1 Intel PEBS drains its buffer at sched-out with current
 *         still the task that took the samples; a sample whose overflow
 *         runs while another task or a kthread is current is what this
 *         covers. A kthread bound to each CPU in turn raises the NMIs,
 *         carrying addresses of the reading process (the vaddr target; for
 *         paddr, its 8 pinned pages are the targets), and the test drains
 *         each ring through damon_perf_drain_report(), the kdamond's, and
 *         checks every record: vaddr (PEBS and IBS) reports carry the
 *         kthread's tid/tgid and are miss_tgid, never credited to the
 *         reader's regions; paddr with PEBS semantics finds no mm
 *         (sample_untranslated, no report); paddr with IBS semantics
 *         (physical address in the sample) is credited by it. Two control
 *         cases raise them from the reader (match). Each case prints
 *         "N offered, N accounted" (accounted: each record's final
 *         outcome, a refused class or the drain's credit or miss) and
 *         checks the exact perf_stats deltas and the regions' probe_hits.
 * exited_fire, exited_drain
 *         samples of a task that has exited. exited_fire, read by a
 *         process that then exits, makes that process a vaddr target,
 *         sends PER_CPU records on every CPU with it current and leaves
 *         the reports in the rings; exited_drain, read after the process
 *         was reaped, drains the first CPU's ring as the kdamond does
 *         before its next update (the target's regions stand: match),
 *         then runs damon_perf_regions_update() (-ESRCH: the target dies,
 *         as the kdamond's update() marks it) and drains the other rings
 *         (the dead target is out of the snapshot: miss_tgid).
 * access  ns per damon_perf_report_access() in NMI and in process context
 *         against a per-CPU counter increment (benchmark, make bench).
 * drops   reports dropped by a started context as a paced producer (an
 *         hrtimer per CPU sending a self-NMI) raises the rate from 10 k to
 *         1 M reports/s per CPU, with and without the watermark wake
 *         (benchmark, make bench).
 */
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/hardirq.h>
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/module.h>
#include <linux/perf_event.h>
#include <linux/pid.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/vmalloc.h>
#include <asm/apic.h>
#include <asm/nmi.h>
#include <asm/tsc.h>

#include "ctx.h"
#include "drain.h"
#include "perf_source.h"
#include "probe.h"
#include "regions.h"
#include "ring.h"
#include "stats.h"
#include "runfile.h"
#include "selfnmi.h"

#define NMI_NAME	"damon_perf_nmitest"
#define CTX_NAME	"nmitest"

/* fields: samples per case per online CPU; below the ring's watermark */
#define PER_CPU		40
#define FIELD_RING	64
#define NPAGES		8
/* x86's PERF_SAMPLE_ADDR_TYPE (arch/x86/events/perf_event.h) */
#define SAMPLE_ADDR_TYPE (PERF_SAMPLE_ADDR | PERF_SAMPLE_PHYS_ADDR | \
			  PERF_SAMPLE_DATA_PAGE_SIZE)

static unsigned int access_iters = 2000;
module_param(access_iters, uint, 0644);
MODULE_PARM_DESC(access_iters, "access: timed batches per mode (default 2000)");
static unsigned int access_batch = 64;
module_param(access_batch, uint, 0644);
MODULE_PARM_DESC(access_batch, "access: calls per timed batch (default 64)");
static unsigned int drop_step_ms = 1000;
module_param(drop_step_ms, uint, 0644);
MODULE_PARM_DESC(drop_step_ms, "drops: producer time per rate step (default 1000)");
static unsigned int drop_tick_us = 200;
module_param(drop_tick_us, uint, 0644);
MODULE_PARM_DESC(drop_tick_us, "drops: producer hrtimer period (default 200)");

/* ------------------------------------------------------------------ */
/* The test PMU: CPU-wide counters only, driven by our self-NMI.       */

static DEFINE_PER_CPU(struct perf_event *, active);
static struct pmu tpmu;

static int tpmu_event_init(struct perf_event *event)
{
	if (event->attr.type != tpmu.type)
		return -ENOENT;
	if (event->cpu < 0)
		return -EOPNOTSUPP;
	return 0;
}

static void tpmu_start(struct perf_event *event, int flags)
{
	event->hw.state = 0;
}

static void tpmu_stop(struct perf_event *event, int flags)
{
	event->hw.state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
}

static int tpmu_add(struct perf_event *event, int flags)
{
	event->hw.state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
	if (flags & PERF_EF_START)
		tpmu_start(event, flags);
	/* IRQs are off here; our NMIs are only sent between arm and disarm */
	__this_cpu_write(active, event);
	return 0;
}

static void tpmu_del(struct perf_event *event, int flags)
{
	tpmu_stop(event, flags);
	if (__this_cpu_read(active) == event)
		__this_cpu_write(active, NULL);
}

static void tpmu_read(struct perf_event *event)
{
}

static struct pmu tpmu = {
	.module		= THIS_MODULE,
	.task_ctx_nr	= perf_invalid_context,
	.event_init	= tpmu_event_init,
	.add		= tpmu_add,
	.del		= tpmu_del,
	.start		= tpmu_start,
	.stop		= tpmu_stop,
	.read		= tpmu_read,
};

/* ------------------------------------------------------------------ */
/* Sample shapes                                                       */

enum shape {
	PEBS_LOAD,	/* load latency record */
	PEBS_STORE,	/* precise store */
	PEBS_KERNEL,	/* load of a kernel (linear map) address */
	IBS_LOAD,
	IBS_STORE,
	IBS_PHYS_ONLY,	/* physical address valid, linear address not */
	IBS_NO_MEM,	/* an op that is neither load nor store */
	SPE_LOAD,
	SPE_STORE,
};

static bool shape_store(int shape)
{
	return shape == PEBS_STORE || shape == IBS_STORE || shape == SPE_STORE;
}

static bool shape_pebs(int shape)
{
	return shape == PEBS_LOAD || shape == PEBS_STORE ||
	       shape == PEBS_KERNEL;
}

struct shot {
	int shape;
	unsigned long vaddr;
	phys_addr_t paddr;
	u32 lat;
};

static void fill_pebs(u64 type, const struct shot *s,
		      struct perf_sample_data *data)
{
	/* setup_pebs_fixed_sample_data() of 6.1 */
	if ((type & PERF_SAMPLE_WEIGHT_TYPE) && !shape_store(s->shape)) {
		data->weight.full = s->lat;
		data->sample_flags |= PERF_SAMPLE_WEIGHT_TYPE;
	}
	if (type & PERF_SAMPLE_DATA_SRC) {
		if (shape_store(s->shape))	/* precise_store_data() */
			data->data_src.val = PERF_MEM_S(OP, STORE) |
					     PERF_MEM_S(LVL, L1) |
					     PERF_MEM_S(LVL, HIT) |
					     PERF_MEM_S(SNOOP, NA);
		else				/* pebs_data_source[] L1 hit */
			data->data_src.val = PERF_MEM_S(OP, LOAD) |
					     PERF_MEM_S(LVL, L1) |
					     PERF_MEM_S(LVL, HIT) |
					     PERF_MEM_S(LVLNUM, L1) |
					     PERF_MEM_S(SNOOP, NONE);
		data->sample_flags |= PERF_SAMPLE_DATA_SRC;
	}
	if (type & SAMPLE_ADDR_TYPE) {
		data->addr = s->vaddr;
		data->sample_flags |= PERF_SAMPLE_ADDR;
	}
}

static void fill_ibs(u64 type, const struct shot *s,
		     struct perf_sample_data *data)
{
	/* perf_ibs_parse_ld_st_data() of 6.1 */
	data->data_src.val = PERF_MEM_NA;
	if (s->shape == IBS_NO_MEM)
		return;
	data->data_src.mem_op = shape_store(s->shape) ? PERF_MEM_OP_STORE :
							PERF_MEM_OP_LOAD;
	if (type & PERF_SAMPLE_DATA_SRC) {
		data->data_src.mem_lvl = PERF_MEM_LVL_L2 | PERF_MEM_LVL_HIT;
		data->data_src.mem_lvl_num = PERF_MEM_LVLNUM_L2;
		data->sample_flags |= PERF_SAMPLE_DATA_SRC;
	}
	if ((type & PERF_SAMPLE_WEIGHT_TYPE) && !shape_store(s->shape)) {
		if (type & PERF_SAMPLE_WEIGHT_STRUCT) {
			data->weight.var1_dw = s->lat;	/* dc_miss_lat */
			data->weight.var2_w = s->lat / 2; /* tag_to_ret_ctr */
		} else {
			data->weight.full = s->lat;
		}
		data->sample_flags |= PERF_SAMPLE_WEIGHT_TYPE;
	}
	if ((type & PERF_SAMPLE_ADDR) && s->shape != IBS_PHYS_ONLY) {
		data->addr = s->vaddr;
		data->sample_flags |= PERF_SAMPLE_ADDR;
	}
	if (type & PERF_SAMPLE_PHYS_ADDR) {
		data->phys_addr = s->paddr;
		data->sample_flags |= PERF_SAMPLE_PHYS_ADDR;
	}
}

static void fill_spe(const struct shot *s, struct perf_sample_data *data)
{
	data->data_src.val = PERF_MEM_NA;
	data->data_src.mem_op = shape_store(s->shape) ? PERF_MEM_OP_STORE :
							PERF_MEM_OP_LOAD;
	data->data_src.mem_lvl = PERF_MEM_LVL_L1 | PERF_MEM_LVL_HIT;
	data->addr = s->vaddr;
	data->phys_addr = s->paddr;
	data->weight.full = s->lat;
	data->sample_flags |= PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_ADDR |
			      PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_WEIGHT;
}

static void fill(struct perf_event *event, const struct shot *s,
		 struct perf_sample_data *data)
{
	u64 type = event->attr.sample_type;

	perf_sample_data_init(data, 0, event->hw.last_period);
	if (shape_pebs(s->shape))
		fill_pebs(type, s, data);
	else if (s->shape == SPE_LOAD || s->shape == SPE_STORE)
		fill_spe(s, data);
	else
		fill_ibs(type, s, data);
}

/* ------------------------------------------------------------------ */
/* The NMI handler                                                     */

enum nmi_mode {
	MODE_SAMPLE,	/* fill a sample, call the counter's overflow handler */
	MODE_ACCESS,	/* time a batch of report_access calls */
	MODE_INC,	/* time a batch of per-CPU counter increments */
	MODE_EMPTY,	/* time an empty batch: the clock's own cost */
};

static DEFINE_PER_CPU(unsigned long, inc_counter);

static struct {
	struct selfnmi nmi;
	int mode;
	struct shot shot;
	struct damon_perf_rings *rings;	/* MODE_ACCESS */
	u64 batch_ns;			/* MODE_ACCESS/INC/EMPTY result */
	int no_event;
} nt;

/* drops: per-CPU producer */
struct producer {
	struct hrtimer timer;
	struct damon_perf_rings *rings;
	u64 start_ns;
	u64 rate;		/* reports per second */
	u64 cap;		/* most reports one NMI queues */
	u64 produced;		/* reports due so far, queued or lost */
	u64 lost;		/* due but never offered (timer late) */
	u64 offered;		/* report_access calls */
	u64 refused;
	u64 nmis;
	int armed;		/* an NMI was sent and is ours */
	bool stop;
};

static DEFINE_PER_CPU(struct producer, producers);
static phys_addr_t drop_paddr;

/*
 * Cycles of a batch of @mode, by the TSC: local_clock() is not fine enough
 * where the guest marked the TSC unstable (TCG), since sched_clock_local()
 * then holds the clock back within a tick.
 */
static u64 time_batch(int mode, struct damon_perf_rings *rings,
		      const struct damon_perf_report *r)
{
	unsigned int i, n = access_batch;
	u64 t0, t1;

	t0 = rdtsc_ordered();
	switch (mode) {
	case MODE_ACCESS:
		for (i = 0; i < n; i++)
			damon_perf_report_access(rings, r);
		break;
	case MODE_INC:
		for (i = 0; i < n; i++)
			this_cpu_inc(inc_counter);
		break;
	default:
		break;
	}
	t1 = rdtsc_ordered();
	return t1 - t0;
}

static void bench_report(struct damon_perf_report *r)
{
	memset(r, 0, sizeof(*r));
	r->paddr = drop_paddr;
	r->size = PAGE_SIZE;
	r->cpu = smp_processor_id();
	r->probe_idx = 1;
	r->src = DAMON_PERF_SRC_INJECTED;
}

/* drops: produce what is due on this CPU, in NMI context */
static void produce(struct producer *p)
{
	struct damon_perf_report r;
	u64 due, now = ktime_get_mono_fast_ns();

	due = div_u64((now - p->start_ns) * p->rate, NSEC_PER_SEC);
	if (due <= p->produced)
		return;
	due -= p->produced;
	/*
	 * A late timer catches up by at most the ring's high watermark per
	 * NMI: a burst that fills the ring from empty would measure the
	 * burst, not the consumer. Time lost beyond that stays lost, and
	 * the achieved rate falls short of the target.
	 */
	if (due > p->cap) {
		p->produced += due - p->cap;
		p->lost += due - p->cap;
		due = p->cap;
	}
	bench_report(&r);
	while (due--) {
		if (!damon_perf_report_access(p->rings, &r))
			p->refused++;
		p->produced++;
		p->offered++;
	}
}

static int nmi_handler(unsigned int type, struct pt_regs *regs)
{
	struct producer *p = this_cpu_ptr(&producers);
	perf_overflow_handler_t handler;
	struct perf_sample_data data;
	struct damon_perf_report r;
	struct perf_event *event;

	if (READ_ONCE(p->armed)) {
		WRITE_ONCE(p->armed, 0);
		produce(p);
		return NMI_HANDLED;
	}
	if (!selfnmi_claim(&nt.nmi))
		return NMI_DONE;
	switch (nt.mode) {
	case MODE_SAMPLE:
		event = __this_cpu_read(active);
		if (!event || event->hw.state) {
			nt.no_event++;
			break;
		}
		fill(event, &nt.shot, &data);
		handler = READ_ONCE(event->overflow_handler);
		handler(event, &data, regs);
		break;
	default:
		bench_report(&r);
		nt.batch_ns = time_batch(nt.mode, nt.rings, &r);
		break;
	}
	selfnmi_done(&nt.nmi);
	return NMI_HANDLED;
}

/* ------------------------------------------------------------------ */
/* fields                                                              */

static const struct tcase {
	const char *name;
	int shape;
	u32 ops;
	bool phys;		/* probe asks for PERF_SAMPLE_PHYS_ADDR */
	bool wstruct;		/* probe asks for PERF_SAMPLE_WEIGHT_STRUCT */
	u64 period;
} cases[] = {
	{ "pebs-load-vaddr", PEBS_LOAD, DAMON_PERF_OPS_VADDR,
	  false, false, 1 },
	{ "pebs-store-vaddr", PEBS_STORE, DAMON_PERF_OPS_VADDR,
	  false, false, 10007 },
	{ "pebs-load-paddr", PEBS_LOAD, DAMON_PERF_OPS_PADDR,
	  true, true, 100 },
	{ "pebs-store-paddr", PEBS_STORE, DAMON_PERF_OPS_PADDR,
	  true, false, 3 },
	{ "pebs-kernel-vaddr", PEBS_KERNEL, DAMON_PERF_OPS_VADDR,
	  false, false, 1 },
	{ "pebs-kernel-paddr", PEBS_KERNEL, DAMON_PERF_OPS_PADDR,
	  true, false, 2 },
	{ "ibs-load-vaddr", IBS_LOAD, DAMON_PERF_OPS_VADDR,
	  true, true, 1ULL << 20 },
	{ "ibs-store-vaddr", IBS_STORE, DAMON_PERF_OPS_VADDR,
	  false, false, 65536 },
	{ "ibs-load-paddr", IBS_LOAD, DAMON_PERF_OPS_PADDR,
	  true, false, 4096 },
	{ "ibs-store-paddr", IBS_STORE, DAMON_PERF_OPS_PADDR,
	  true, true, 1 },
	{ "ibs-physonly-vaddr", IBS_PHYS_ONLY, DAMON_PERF_OPS_VADDR,
	  true, false, 1 },
	{ "ibs-physonly-paddr", IBS_PHYS_ONLY, DAMON_PERF_OPS_PADDR,
	  true, false, 7 },
	{ "ibs-nomem-vaddr", IBS_NO_MEM, DAMON_PERF_OPS_VADDR,
	  true, false, 1 },
	{ "ibs-nomem-paddr", IBS_NO_MEM, DAMON_PERF_OPS_PADDR,
	  true, false, 1 },
	{ "spe-load-vaddr", SPE_LOAD, DAMON_PERF_OPS_VADDR,
	  false, false, 1024 },
	{ "spe-store-vaddr", SPE_STORE, DAMON_PERF_OPS_VADDR,
	  true, false, 1 },
	{ "spe-load-paddr", SPE_LOAD, DAMON_PERF_OPS_PADDR,
	  true, false, 1ULL << 40 },
	{ "spe-store-paddr", SPE_STORE, DAMON_PERF_OPS_PADDR,
	  false, false, 5 },
};

/* What damon_perf must make of a sample. */
enum verdict { V_VALID, V_KERNEL, V_PHYS_ONLY, V_ADDR_ZERO };

struct expect {
	enum verdict v;
	bool translated;	/* paddr found by damon_perf's walk in NMI */
	unsigned long vaddr;	/* page-aligned */
	unsigned long paddr;	/* page-aligned */
};

static void expect(const struct tcase *c, const struct shot *s,
		   struct expect *e)
{
	bool spe = c->shape == SPE_LOAD || c->shape == SPE_STORE;
	bool has_v, has_p;

	/* what the sample carries, flagged */
	has_v = s->vaddr && c->shape != IBS_PHYS_ONLY && c->shape != IBS_NO_MEM;
	has_p = c->shape != IBS_NO_MEM && !shape_pebs(c->shape) &&
		(spe || c->phys);
	e->vaddr = has_v ? s->vaddr & PAGE_MASK : 0;
	e->paddr = has_p ? s->paddr & PAGE_MASK : 0;
	e->translated = false;
	if (c->ops == DAMON_PERF_OPS_PADDR) {
		if (!e->paddr && e->vaddr && c->phys) {
			e->paddr = s->paddr & PAGE_MASK;
			e->translated = true;
		}
		e->v = e->paddr ? V_VALID : V_ADDR_ZERO;
	} else if (e->vaddr) {
		e->v = s->vaddr < TASK_SIZE_MAX ? V_VALID : V_KERNEL;
	} else {
		e->v = e->paddr ? V_PHYS_ONLY : V_ADDR_ZERO;
	}
}

struct fired {
	const struct tcase *c;
	struct out *o;
	struct shot shots[PER_CPU];
	struct expect exp[PER_CPU];
	int cpu;
	unsigned int seen;
	unsigned int idx;
	u64 t0, t1, last_ns;
	pid_t tid, tgid;
	int probe_idx;
};

static void check_report(const struct damon_perf_report *r, void *arg)
{
	struct fired *f = arg;
	const struct tcase *c = f->c;
	struct out *o = f->o;
	const struct expect *e;

	/* reports leave a ring in the order they were fired */
	while (f->idx < PER_CPU && f->exp[f->idx].v != V_VALID)
		f->idx++;
	if (f->idx >= PER_CPU) {
		fail(o, "%s cpu%d: unexpected report vaddr %lx", c->name,
		     f->cpu, r->vaddr);
		return;
	}
	e = &f->exp[f->idx++];
	f->seen++;
	if (r->vaddr != e->vaddr)
		fail(o, "%s cpu%d: vaddr %lx, want %lx", c->name, f->cpu,
		     r->vaddr, e->vaddr);
	if (r->paddr != e->paddr)
		fail(o, "%s cpu%d: paddr %lx, want %lx", c->name, f->cpu,
		     r->paddr, e->paddr);
	if (r->is_write != shape_store(c->shape))
		fail(o, "%s cpu%d: is_write %u", c->name, f->cpu, r->is_write);
	if (r->period != c->period)
		fail(o, "%s cpu%d: period %llu, want %llu", c->name, f->cpu,
		     r->period, c->period);
	if (r->cpu != f->cpu)
		fail(o, "%s: cpu %d, want %d", c->name, r->cpu, f->cpu);
	if (r->tid != f->tid || r->tgid != f->tgid)
		fail(o, "%s cpu%d: tid/tgid %d/%d, want %d/%d", c->name,
		     f->cpu, r->tid, r->tgid, f->tid, f->tgid);
	if (r->probe_idx != f->probe_idx || r->src != DAMON_PERF_SRC_OVERFLOW ||
	    r->size != PAGE_SIZE)
		fail(o, "%s cpu%d: probe_idx %u src %u size %lu", c->name,
		     f->cpu, r->probe_idx, r->src, r->size);
	if (r->time_ns < f->t0 || r->time_ns > f->t1 || r->time_ns < f->last_ns)
		fail(o, "%s cpu%d: time %llu outside %llu..%llu or before %llu",
		     c->name, f->cpu, r->time_ns, f->t0, f->t1, f->last_ns);
	f->last_ns = r->time_ns;
}

static cpumask_t saved_mask;	/* run_lock */

struct fixture {
	unsigned long ubuf;
	struct page *upages[NPAGES];
	int nr_pinned;
	struct page *kpage;
};

static unsigned long delta(const struct damon_perf_stats *a,
			   const struct damon_perf_stats *b,
			   enum damon_perf_stat_idx idx)
{
	return damon_perf_stats_get(b, idx) - damon_perf_stats_get(a, idx);
}

static void make_shot(const struct tcase *c, const struct fixture *fx,
		      int i, struct shot *s)
{
	unsigned int pg = i % NPAGES;
	unsigned long off = (i * 72 + 8) % PAGE_SIZE;

	s->shape = c->shape;
	s->lat = 30 + i;
	if (c->shape == PEBS_KERNEL) {
		s->vaddr = (unsigned long)page_address(fx->kpage) + off;
		s->paddr = page_to_phys(fx->kpage) + off;
	} else {
		s->vaddr = fx->ubuf + pg * PAGE_SIZE + off;
		s->paddr = page_to_phys(fx->upages[pg]) + off;
	}
}

static int run_case(const struct tcase *c, const struct fixture *fx,
		    struct out *o, unsigned int *nr_reports)
{
	struct damon_perf_probe_attr pa = {
		.sample_period = c->period,
		.weight = 1,
		.sample_phys_addr = c->phys,
		.sample_weight_struct = c->wstruct,
	};
	/* run_lock serializes runs; static keeps the frame small */
	static unsigned long want[NR_DAMON_PERF_STATS];
	static struct damon_perf_stats before, after;
	static struct fired f;
	struct damon_perf_ctx *ctx;
	unsigned int fired = 0, valid = 0, reports = 0;
	u64 span = 0;
	int cpu, i, idx, ret;

	pa.type = tpmu.type;
	memset(want, 0, sizeof(want));
	mutex_lock(&damon_perf_lock);
	ctx = damon_perf_ctx_new(CTX_NAME, c->ops, NULL);
	if (IS_ERR(ctx)) {
		mutex_unlock(&damon_perf_lock);
		fail(o, "%s: ctx_new %ld", c->name, PTR_ERR(ctx));
		return PTR_ERR(ctx);
	}
	idx = damon_perf_probe_add(ctx, &pa, NULL);
	ret = idx < 0 ? idx : 0;
	if (!ret) {
		ctx->rings.ctx_id = ctx->id;
		ret = damon_perf_rings_alloc(&ctx->rings, FIELD_RING, NULL,
					     NULL);
	}
	if (!ret) {
		ret = damon_perf_source_arm(ctx, NULL);
		if (ret)
			damon_perf_rings_free(&ctx->rings);
	}
	mutex_unlock(&damon_perf_lock);
	if (ret) {
		fail(o, "%s: probe/rings/arm %d", c->name, ret);
		goto out_ctx;
	}

	damon_perf_stats_aggregate(&before);
	memset(&f, 0, sizeof(f));
	f.c = c;
	f.o = o;
	f.tid = current->pid;
	f.tgid = current->tgid;
	f.probe_idx = idx;
	cpumask_copy(&saved_mask, current->cpus_ptr);
	for_each_online_cpu(cpu) {
		if (set_cpus_allowed_ptr(current, cpumask_of(cpu)))
			continue;
		f.cpu = cpu;
		f.seen = 0;
		f.idx = 0;
		for (i = 0; i < PER_CPU; i++) {
			make_shot(c, fx, i, &f.shots[i]);
			expect(c, &f.shots[i], &f.exp[i]);
		}
		f.t0 = damon_perf_clock_ns();
		f.last_ns = f.t0;
		preempt_disable();
		if (smp_processor_id() != cpu) {
			preempt_enable();
			fail(o, "%s: not on cpu %d", c->name, cpu);
			continue;
		}
		nt.mode = MODE_SAMPLE;
		for (i = 0; i < PER_CPU; i++) {
			nt.shot = f.shots[i];
			if (!selfnmi_send(&nt.nmi))
				break;
			fired++;
		}
		preempt_enable();
		f.t1 = damon_perf_clock_ns();
		span += f.t1 - f.t0;
		if (i < PER_CPU)
			fail(o, "%s cpu%d: NMI %d not delivered", c->name,
			     cpu, i);
		for (i = 0; i < PER_CPU; i++) {
			const struct expect *e = &f.exp[i];

			valid += e->v == V_VALID;
			want[DAMON_PERF_STAT_sample_valid] += e->v == V_VALID;
			want[DAMON_PERF_STAT_sample_kernel] += e->v == V_KERNEL;
			want[DAMON_PERF_STAT_sample_phys_only] +=
				e->v == V_PHYS_ONLY;
			want[DAMON_PERF_STAT_sample_addr_zero] +=
				e->v == V_ADDR_ZERO;
			want[DAMON_PERF_STAT_sample_translated] +=
				e->translated;
		}
		damon_perf_ring_drain(&ctx->rings, cpu, check_report, &f);
		reports += f.seen;
		for (i = f.idx; i < PER_CPU; i++)
			if (f.exp[i].v == V_VALID)
				fail(o, "%s cpu%d: report %d missing", c->name,
				     cpu, i);
	}
	set_cpus_allowed_ptr(current, &saved_mask);
	damon_perf_stats_aggregate(&after);

	want[DAMON_PERF_STAT_callback] = fired;
	want[DAMON_PERF_STAT_enqueue] = valid;
	want[DAMON_PERF_STAT_dequeue] = valid;
	for (i = 0; i < NR_DAMON_PERF_STATS; i++) {
		unsigned long d = delta(&before, &after, i);

		if (i == DAMON_PERF_STAT_ring_peak ||
		    i == DAMON_PERF_STAT_update ||
		    i == DAMON_PERF_STAT_drain_ns)
			continue;
		/*
		 * A sum of local_clock() differences, one per handler call,
		 * each within a CPU's t0..t1. It need not grow: under TCG
		 * local_clock() can tick at jiffies (sched_clock unstable),
		 * and 80 short calls then add 0. It may not exceed the time
		 * the CPUs spent firing, plus a tick a call of rounding.
		 */
		if (i == DAMON_PERF_STAT_handler_ns) {
			u64 most = span + (u64)(fired + 1) * TICK_NSEC;

			if (d > most)
				fail(o, "%s: perf_stats handler_ns +%lu over %u calls, more than the %llu ns they had",
				     c->name, d, fired, most);
			continue;
		}
		if (d != want[i])
			fail(o, "%s: perf_stats %s +%lu, want +%lu", c->name,
			     damon_perf_stat_name(i), d, want[i]);
	}
	say(o, "case %s fired %u reports %u callback +%lu valid +%lu kernel +%lu phys_only +%lu addr_zero +%lu translated +%lu enqueue +%lu dequeue +%lu\n",
	    c->name, fired, reports,
	    delta(&before, &after, DAMON_PERF_STAT_callback),
	    delta(&before, &after, DAMON_PERF_STAT_sample_valid),
	    delta(&before, &after, DAMON_PERF_STAT_sample_kernel),
	    delta(&before, &after, DAMON_PERF_STAT_sample_phys_only),
	    delta(&before, &after, DAMON_PERF_STAT_sample_addr_zero),
	    delta(&before, &after, DAMON_PERF_STAT_sample_translated),
	    delta(&before, &after, DAMON_PERF_STAT_enqueue),
	    delta(&before, &after, DAMON_PERF_STAT_dequeue));
	*nr_reports += reports;

	mutex_lock(&damon_perf_lock);
	damon_perf_source_disarm(ctx);
	/* nothing may arrive after the last drain */
	for_each_possible_cpu(cpu)
		if (damon_perf_ring_drain(&ctx->rings, cpu, check_report, &f))
			fail(o, "%s: reports after disarm", c->name);
	damon_perf_rings_free(&ctx->rings);
	mutex_unlock(&damon_perf_lock);
out_ctx:
	mutex_lock(&damon_perf_lock);
	damon_perf_ctx_destroy(ctx, NULL);
	mutex_unlock(&damon_perf_lock);
	return ret;
}

static int fixture_get(struct fixture *fx)
{
	memset(fx, 0, sizeof(*fx));
	fx->kpage = alloc_page(GFP_KERNEL | __GFP_ZERO);
	if (!fx->kpage)
		return -ENOMEM;
	fx->ubuf = vm_mmap(NULL, 0, NPAGES * PAGE_SIZE, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, 0);
	if (IS_ERR_VALUE(fx->ubuf)) {
		__free_page(fx->kpage);
		return (int)fx->ubuf;
	}
	/* pinned: the physical addresses stay what the test expects */
	fx->nr_pinned = pin_user_pages_fast(fx->ubuf, NPAGES,
					    FOLL_WRITE | FOLL_LONGTERM,
					    fx->upages);
	if (fx->nr_pinned != NPAGES) {
		if (fx->nr_pinned > 0)
			unpin_user_pages(fx->upages, fx->nr_pinned);
		vm_munmap(fx->ubuf, NPAGES * PAGE_SIZE);
		__free_page(fx->kpage);
		return fx->nr_pinned < 0 ? fx->nr_pinned : -EFAULT;
	}
	return 0;
}

static void fixture_put(struct fixture *fx)
{
	unpin_user_pages(fx->upages, fx->nr_pinned);
	vm_munmap(fx->ubuf, NPAGES * PAGE_SIZE);
	__free_page(fx->kpage);
}

static void run_fields(struct out *o)
{
	unsigned int reports = 0, nr = 0;
	struct fixture fx;
	int i, ret;

	ret = fixture_get(&fx);
	if (ret) {
		fail(o, "fixture %d", ret);
		return;
	}
	nt.nmi.not_nmi = 0;
	nt.no_event = 0;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		if (run_case(&cases[i], &fx, o, &reports))
			break;
		nr++;
	}
	fixture_put(&fx);
	if (nt.nmi.not_nmi)
		fail(o, "handler ran outside NMI context %d times",
		     nt.nmi.not_nmi);
	if (nt.no_event)
		fail(o, "%d NMIs found no started counter", nt.no_event);
	say(o, "fields: cases %u/%zu reports %u not_nmi %d no_event %d errors %d\n",
	    nr, ARRAY_SIZE(cases), reports, nt.nmi.not_nmi, nt.no_event,
	    o->errors);
}

/* ------------------------------------------------------------------ */
/* access: report_access ns in NMI and process context                 */

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static void noop_report(const struct damon_perf_report *r, void *arg)
{
}

/* min and median of @n batches of TSC cycles, in tenths of ns per call */
static void summarize(u64 *v, unsigned int n, u64 *min10, u64 *med10)
{
	u64 khz = max_t(u64, tsc_khz, 1);

	sort(v, n, sizeof(*v), cmp_u64, NULL);
	*min10 = div64_u64(v[0] * 10 * USEC_PER_SEC, khz * access_batch);
	*med10 = div64_u64(v[n / 2] * 10 * USEC_PER_SEC, khz * access_batch);
}

static void run_access(struct out *o)
{
	static const char * const names[] = { "report_access", "counter_inc",
					      "empty" };
	static const int modes[] = { MODE_ACCESS, MODE_INC, MODE_EMPTY };
	u64 min10[2][3], med10[2][3];
	struct damon_perf_rings rings = { 0 };
	struct damon_perf_report r;
	unsigned int n = max(access_iters, 11U), i, m, in_nmi_ctx;
	u64 *v;
	int cpu, ret;

	access_batch = clamp(access_batch, 1U, DAMON_PERF_RING_DEF_SIZE / 2);
	v = kvcalloc(n, sizeof(*v), GFP_KERNEL);
	if (!v) {
		fail(o, "no memory");
		return;
	}
	ret = damon_perf_rings_alloc(&rings, DAMON_PERF_RING_DEF_SIZE, NULL,
				     NULL);
	if (ret) {
		kvfree(v);
		fail(o, "rings_alloc %d", ret);
		return;
	}
	cpu = get_cpu();
	for (in_nmi_ctx = 0; in_nmi_ctx < 2; in_nmi_ctx++) {
		for (m = 0; m < ARRAY_SIZE(modes); m++) {
			for (i = 0; i < n; i++) {
				if (in_nmi_ctx) {
					nt.mode = modes[m];
					nt.rings = &rings;
					if (!selfnmi_send(&nt.nmi)) {
						fail(o, "NMI not delivered");
						goto out;
					}
					v[i] = nt.batch_ns;
				} else {
					bench_report(&r);
					v[i] = time_batch(modes[m], &rings, &r);
				}
				/* empty again, off the clock */
				damon_perf_ring_drain(&rings, cpu, noop_report,
						      NULL);
			}
			summarize(v, n, &min10[in_nmi_ctx][m],
				  &med10[in_nmi_ctx][m]);
		}
	}
	for (in_nmi_ctx = 0; in_nmi_ctx < 2; in_nmi_ctx++)
		for (m = 0; m < ARRAY_SIZE(modes); m++)
			say(o, "access ctx=%s op=%s batches=%u batch=%u tsc_khz=%u min_ns=%llu.%llu median_ns=%llu.%llu\n",
			    in_nmi_ctx ? "nmi" : "process", names[m], n,
			    access_batch, tsc_khz,
			    min10[in_nmi_ctx][m] / 10,
			    min10[in_nmi_ctx][m] % 10,
			    med10[in_nmi_ctx][m] / 10,
			    med10[in_nmi_ctx][m] % 10);
	/* ratio of medians, report_access over counter_inc, x100 */
	for (in_nmi_ctx = 0; in_nmi_ctx < 2; in_nmi_ctx++)
		say(o, "access ratio ctx=%s report_access/counter_inc median_x100=%llu min_x100=%llu\n",
		    in_nmi_ctx ? "nmi" : "process",
		    div64_u64(med10[in_nmi_ctx][0] * 100,
			      max_t(u64, med10[in_nmi_ctx][1], 1)),
		    div64_u64(min10[in_nmi_ctx][0] * 100,
			      max_t(u64, min10[in_nmi_ctx][1], 1)));
out:
	put_cpu();
	damon_perf_rings_free(&rings);
	kvfree(v);
}

/* ------------------------------------------------------------------ */
/* handover: samples handled while another task runs, of exited tasks  */

/*
 * What the module must make of one record: the class its handler counts
 * (sample_valid for a report), and for a report the drain's outcome.
 */
struct hcase {
	const char *name;
	int shape;
	u32 ops;
	bool kthread;		/* raised by a kthread, not the reader */
	enum damon_perf_stat_idx sample;	/* the handler's class */
	bool translated;	/* paddr by damon_perf's own walk */
	bool credited;		/* the drain credits the report */
	enum damon_perf_miss_reason why;	/* else, the reason */
};

static const struct hcase hcases[] = {
	/* control: the sample's owner is current, as in fields */
	{ "reader-pebs-vaddr", PEBS_LOAD, DAMON_PERF_OPS_VADDR, false,
	  DAMON_PERF_STAT_sample_valid, false, true, 0 },
	/* tid/tgid are current's: the kthread's, no target of the drain */
	{ "kthread-pebs-vaddr", PEBS_LOAD, DAMON_PERF_OPS_VADDR, true,
	  DAMON_PERF_STAT_sample_valid, false, false, DAMON_PERF_MISS_TGID },
	{ "kthread-ibs-vaddr", IBS_LOAD, DAMON_PERF_OPS_VADDR, true,
	  DAMON_PERF_STAT_sample_valid, false, false, DAMON_PERF_MISS_TGID },
	{ "reader-pebs-paddr", PEBS_LOAD, DAMON_PERF_OPS_PADDR, false,
	  DAMON_PERF_STAT_sample_valid, true, true, 0 },
	/* the walk goes through current->mm: a kthread has none */
	{ "kthread-pebs-paddr", PEBS_LOAD, DAMON_PERF_OPS_PADDR, true,
	  DAMON_PERF_STAT_sample_untranslated, false, false, 0 },
	/* the physical address is the sample's: whoever runs, it counts */
	{ "kthread-ibs-paddr", IBS_LOAD, DAMON_PERF_OPS_PADDR, true,
	  DAMON_PERF_STAT_sample_valid, false, true, 0 },
};

/* The perf_stats a handover case checks exactly (all others: no change). */
static const enum damon_perf_stat_idx hstats[] = {
	DAMON_PERF_STAT_callback, DAMON_PERF_STAT_sample_valid,
	DAMON_PERF_STAT_sample_untranslated, DAMON_PERF_STAT_sample_translated,
	DAMON_PERF_STAT_enqueue, DAMON_PERF_STAT_dequeue,
	DAMON_PERF_STAT_match, DAMON_PERF_STAT_miss_tgid,
	DAMON_PERF_STAT_miss_region, DAMON_PERF_STAT_miss_boundary,
	DAMON_PERF_STAT_miss_filter, DAMON_PERF_STAT_stale,
	DAMON_PERF_STAT_sample_no_phys, DAMON_PERF_STAT_sample_kernel,
	DAMON_PERF_STAT_sample_addr_zero, DAMON_PERF_STAT_sample_phys_only,
	DAMON_PERF_STAT_miss_nomem,
};

/* The perf_stats counter of a drain's miss reason (stats.c's map). */
static enum damon_perf_stat_idx miss_stat(enum damon_perf_miss_reason why)
{
	static const enum damon_perf_stat_idx idx[] = {
		[DAMON_PERF_MISS_TGID]		= DAMON_PERF_STAT_miss_tgid,
		[DAMON_PERF_MISS_REGION]	= DAMON_PERF_STAT_miss_region,
		[DAMON_PERF_MISS_BOUNDARY]	= DAMON_PERF_STAT_miss_boundary,
		[DAMON_PERF_MISS_STALE]		= DAMON_PERF_STAT_stale,
		[DAMON_PERF_MISS_FILTER]	= DAMON_PERF_STAT_miss_filter,
		[DAMON_PERF_MISS_NOMEM]		= DAMON_PERF_STAT_miss_nomem,
	};

	return (unsigned int)why < ARRAY_SIZE(idx) ? idx[why] :
						     DAMON_PERF_STAT_miss_nomem;
}

/* One handover run: the context, its expectations, what the drain saw. */
struct hrun {
	const char *name;
	struct out *o;
	struct damon_perf_ctx *ctx;
	int probe_idx;
	struct damon_perf_drain d;
	struct shot shots[PER_CPU];
	int cpu;
	pid_t tid, tgid;	/* the task current was at the NMI */
	unsigned int fired;	/* on this CPU */
	unsigned int idx;	/* next record a report must be */
	bool report;		/* the records become reports */
	bool credited;		/* the drain must credit, else miss @why */
	enum damon_perf_miss_reason why;
	unsigned long want[NR_DAMON_PERF_STATS];
	unsigned int reports, credits, misses;
};

static struct hrun hr;	/* run_lock */

/*
 * A new context of @ops with the process @vpid (vaddr) or the fixture's
 * pages (paddr) as its targets, armed on the test PMU. Process context.
 */
static struct damon_perf_ctx *hctx_new(u32 ops, pid_t vpid, bool phys,
				       const struct fixture *fx, int *probe_idx)
{
	struct damon_perf_probe_attr pa = {
		.sample_period = 1,
		.weight = 1,
		.sample_phys_addr = phys,
	};
	struct damon_perf_target *t;
	struct damon_perf_ctx *ctx;
	int i, ret = 0;

	pa.type = tpmu.type;
	mutex_lock(&damon_perf_lock);
	ctx = damon_perf_ctx_new(CTX_NAME, ops, NULL);
	if (IS_ERR(ctx)) {
		mutex_unlock(&damon_perf_lock);
		return ctx;
	}
	if (ops == DAMON_PERF_OPS_VADDR) {
		ret = damon_perf_target_add_pid(ctx, vpid, true, NULL);
	} else {
		for (i = 0; i < NPAGES && ret >= 0; i++) {
			phys_addr_t p = page_to_phys(fx->upages[i]);

			ret = damon_perf_target_add_range(ctx, p, p + PAGE_SIZE,
							  NULL);
		}
	}
	if (ret >= 0) {
		ret = 0;
		damon_perf_for_each_target(t, ctx)
			if (!ret)
				ret = damon_perf_regions_init(ctx, t);
	}
	if (!ret) {
		*probe_idx = damon_perf_probe_add(ctx, &pa, NULL);
		ret = *probe_idx < 0 ? *probe_idx : 0;
	}
	if (!ret) {
		ctx->rings.ctx_id = ctx->id;
		ret = damon_perf_rings_alloc(&ctx->rings, FIELD_RING, NULL,
					     NULL);
	}
	if (!ret) {
		ret = damon_perf_source_arm(ctx, NULL);
		if (ret)
			damon_perf_rings_free(&ctx->rings);
	}
	if (ret) {
		damon_perf_ctx_destroy(ctx, NULL);
		ctx = ERR_PTR(ret);
	}
	mutex_unlock(&damon_perf_lock);
	return ctx;
}

/*
 * Disarm, drop what is left (a failure when @o is given: nothing may be),
 * free.
 */
static void hctx_free(struct damon_perf_ctx *ctx, struct out *o,
		      const char *name)
{
	int cpu;

	mutex_lock(&damon_perf_lock);
	damon_perf_source_disarm(ctx);
	for_each_possible_cpu(cpu)
		if (damon_perf_ring_drain(&ctx->rings, cpu, noop_report,
					  NULL) && o)
			fail(o, "%s: reports left in cpu%d's ring", name, cpu);
	damon_perf_rings_free(&ctx->rings);
	damon_perf_ctx_destroy(ctx, NULL);
	mutex_unlock(&damon_perf_lock);
}

/* Fire @n records of @shots on this CPU. Preemption disabled. */
static unsigned int hfire(const struct shot *shots, unsigned int n)
{
	unsigned int i;

	nt.mode = MODE_SAMPLE;
	for (i = 0; i < n; i++) {
		nt.shot = shots[i];
		if (!selfnmi_send(&nt.nmi))
			break;
	}
	return i;
}

/* A kthread bound to a CPU raises the NMIs: current is the kthread. */
struct kfire {
	struct completion done;
	int cpu;
	bool on_cpu;
};

static int kfire_fn(void *arg)
{
	struct kfire *k = arg;

	preempt_disable();
	k->on_cpu = smp_processor_id() == k->cpu;
	if (k->on_cpu)
		hr.fired = hfire(hr.shots, PER_CPU);
	preempt_enable();
	hr.tid = current->pid;
	hr.tgid = current->tgid;
	complete(&k->done);
	while (!kthread_should_stop()) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (!kthread_should_stop())
			schedule();
		__set_current_state(TASK_RUNNING);
	}
	return 0;
}

/*
 * The drain of one report, as the kdamond's (drain_one()): the report
 * first, field by field, then the drain's verdict on it.
 */
static void hcheck(const struct damon_perf_report *r, void *arg)
{
	struct hrun *h = arg;
	const struct shot *s;
	bool credited;

	h->reports++;
	if (h->idx >= h->fired) {
		fail(h->o, "%s cpu%d: unexpected report vaddr %lx", h->name,
		     h->cpu, r->vaddr);
		return;
	}
	s = &h->shots[h->idx++];
	if (h->ctx->ops == DAMON_PERF_OPS_VADDR ?
	    r->vaddr != (s->vaddr & PAGE_MASK) :
	    r->paddr != (s->paddr & PAGE_MASK))
		fail(h->o, "%s cpu%d: report %u vaddr %lx paddr %lx, want %lx %llx",
		     h->name, h->cpu, h->idx - 1, r->vaddr, r->paddr,
		     s->vaddr & PAGE_MASK,
		     (unsigned long long)(s->paddr & PAGE_MASK));
	if (r->tid != h->tid || r->tgid != h->tgid || r->cpu != h->cpu)
		fail(h->o, "%s cpu%d: report %u tid/tgid %d/%d cpu %d, want %d/%d (current at the NMI)",
		     h->name, h->cpu, h->idx - 1, r->tid, r->tgid, r->cpu,
		     h->tid, h->tgid);
	credited = damon_perf_drain_report(&h->d, r);
	if (credited) {
		h->credits++;
		if (!h->credited)
			fail(h->o, "%s cpu%d: report %u (tgid %d) credited, want %s",
			     h->name, h->cpu, h->idx - 1, r->tgid,
			     damon_perf_stat_name(miss_stat(h->why)));
	} else {
		h->misses++;
		if (h->credited || h->d.why != h->why)
			fail(h->o, "%s cpu%d: report %u (tgid %d) %s, want %s",
			     h->name, h->cpu, h->idx - 1, r->tgid,
			     damon_perf_stat_name(miss_stat(h->d.why)),
			     h->credited ? "match" :
			     damon_perf_stat_name(miss_stat(h->why)));
	}
}

/* probe_hits of @probe_idx over every region of @ctx */
static u64 hits(struct damon_perf_ctx *ctx, int probe_idx)
{
	struct damon_perf_target *t;
	struct damon_perf_region *r;
	u64 n = 0;

	damon_perf_for_each_target(t, ctx)
		damon_perf_for_each_region(r, t)
			n += r->probe_hits[probe_idx - 1];
	return n;
}

/* Expected perf_stats of @n records of one outcome. */
static void hwant(struct hrun *h, unsigned int n, enum damon_perf_stat_idx cls,
		  bool translated, bool credited,
		  enum damon_perf_miss_reason why)
{
	h->want[DAMON_PERF_STAT_callback] += n;
	h->want[cls] += n;
	if (translated)
		h->want[DAMON_PERF_STAT_sample_translated] += n;
	if (cls != DAMON_PERF_STAT_sample_valid)
		return;
	h->want[DAMON_PERF_STAT_enqueue] += n;
	h->want[DAMON_PERF_STAT_dequeue] += n;
	if (credited)
		h->want[DAMON_PERF_STAT_match] += n;
	else
		h->want[miss_stat(why)] += n;
}

/*
 * The stats deltas against the wanted ones, and the "offered, accounted"
 * line: offered the records sent, accounted each record's final outcome
 * (a class the handler refused, or the drain's credit or miss).
 */
static void hstats_check(struct hrun *h, const struct damon_perf_stats *a,
			 const struct damon_perf_stats *b, unsigned int offered,
			 u64 region_hits)
{
	unsigned long accounted = 0, d;
	int i;

	for (i = 0; i < ARRAY_SIZE(hstats); i++) {
		d = delta(a, b, hstats[i]);
		if (d != h->want[hstats[i]])
			fail(h->o, "%s: perf_stats %s +%lu, want +%lu", h->name,
			     damon_perf_stat_name(hstats[i]), d,
			     h->want[hstats[i]]);
		if (hstats[i] != DAMON_PERF_STAT_callback &&
		    hstats[i] != DAMON_PERF_STAT_sample_valid &&
		    hstats[i] != DAMON_PERF_STAT_sample_translated &&
		    hstats[i] != DAMON_PERF_STAT_enqueue &&
		    hstats[i] != DAMON_PERF_STAT_dequeue)
			accounted += d;
	}
	if (region_hits != h->want[DAMON_PERF_STAT_match])
		fail(h->o, "%s: regions' probe_hits %llu, want %lu", h->name,
		     region_hits, h->want[DAMON_PERF_STAT_match]);
	if (accounted != offered)
		fail(h->o, "%s: %u offered, %lu accounted", h->name, offered,
		     accounted);
	say(h->o, "%s: %u offered, %lu accounted: callback +%lu valid +%lu untranslated +%lu translated +%lu match +%lu miss_tgid +%lu miss_region +%lu region_hits %llu\n",
	    h->name, offered, accounted,
	    delta(a, b, DAMON_PERF_STAT_callback),
	    delta(a, b, DAMON_PERF_STAT_sample_valid),
	    delta(a, b, DAMON_PERF_STAT_sample_untranslated),
	    delta(a, b, DAMON_PERF_STAT_sample_translated),
	    delta(a, b, DAMON_PERF_STAT_match),
	    delta(a, b, DAMON_PERF_STAT_miss_tgid),
	    delta(a, b, DAMON_PERF_STAT_miss_region), region_hits);
}

/* Drain @cpu's ring through damon_perf_drain_report(), checking each. */
static void hdrain_cpu(struct hrun *h, int cpu)
{
	int ret;

	h->cpu = cpu;
	h->idx = 0;
	ret = damon_perf_drain_prepare(h->ctx, &h->d);
	if (ret) {
		fail(h->o, "%s: drain_prepare %d", h->name, ret);
		return;
	}
	damon_perf_ring_drain(&h->ctx->rings, cpu, hcheck, h);
	if (h->idx != (h->report ? h->fired : 0))
		fail(h->o, "%s cpu%d: %u of %u records came out as reports",
		     h->name, cpu, h->idx, h->fired);
}

static void hshots(int shape, const struct fixture *fx, struct shot *shots)
{
	struct tcase tc = { .shape = shape };
	int i;

	for (i = 0; i < PER_CPU; i++)
		make_shot(&tc, fx, i, &shots[i]);
}

static void hcase_run(const struct hcase *c, const struct fixture *fx,
		      struct out *o, unsigned int *offered_total,
		      unsigned int *nr_reports)
{
	static struct damon_perf_stats before, after;
	unsigned int offered = 0;
	struct task_struct *task;
	struct kfire k;
	int cpu;

	memset(&hr, 0, sizeof(hr));
	hr.name = c->name;
	hr.o = o;
	hr.report = c->sample == DAMON_PERF_STAT_sample_valid;
	hr.credited = c->credited;
	hr.why = c->why;
	hr.ctx = hctx_new(c->ops, task_tgid_vnr(current),
			  c->ops == DAMON_PERF_OPS_PADDR, fx, &hr.probe_idx);
	if (IS_ERR(hr.ctx)) {
		fail(o, "%s: context %ld", c->name, PTR_ERR(hr.ctx));
		return;
	}
	damon_perf_stats_aggregate(&before);
	cpumask_copy(&saved_mask, current->cpus_ptr);
	for_each_online_cpu(cpu) {
		hshots(c->shape, fx, hr.shots);
		hr.fired = 0;
		if (c->kthread) {
			init_completion(&k.done);
			k.cpu = cpu;
			k.on_cpu = false;
			task = kthread_create_on_cpu(kfire_fn, &k, cpu,
						     "damon_perf_nmix/%u");
			if (IS_ERR(task)) {
				fail(o, "%s: kthread %ld", c->name,
				     PTR_ERR(task));
				continue;
			}
			wake_up_process(task);
			wait_for_completion(&k.done);
			kthread_stop(task);
			if (!k.on_cpu)
				fail(o, "%s: kthread not on cpu%d", c->name,
				     cpu);
		} else {
			if (set_cpus_allowed_ptr(current, cpumask_of(cpu)))
				continue;
			preempt_disable();
			if (smp_processor_id() == cpu)
				hr.fired = hfire(hr.shots, PER_CPU);
			preempt_enable();
			hr.tid = current->pid;
			hr.tgid = current->tgid;
		}
		if (hr.fired < PER_CPU)
			fail(o, "%s cpu%d: %u of %d NMIs delivered", c->name,
			     cpu, hr.fired, PER_CPU);
		offered += hr.fired;
		hwant(&hr, hr.fired, c->sample, c->translated, c->credited,
		      c->why);
		hdrain_cpu(&hr, cpu);
	}
	set_cpus_allowed_ptr(current, &saved_mask);
	damon_perf_stats_aggregate(&after);
	hstats_check(&hr, &before, &after, offered,
		     hits(hr.ctx, hr.probe_idx));
	hctx_free(hr.ctx, o, c->name);
	*offered_total += offered;
	*nr_reports += hr.reports;
}

static void run_handover(struct out *o)
{
	unsigned int offered = 0, reports = 0;
	struct fixture fx;
	int i, ret;

	ret = fixture_get(&fx);
	if (ret) {
		fail(o, "fixture %d", ret);
		return;
	}
	nt.nmi.not_nmi = 0;
	nt.no_event = 0;
	for (i = 0; i < ARRAY_SIZE(hcases); i++)
		hcase_run(&hcases[i], &fx, o, &offered, &reports);
	fixture_put(&fx);
	if (nt.nmi.not_nmi || nt.no_event)
		fail(o, "not_nmi %d no_event %d", nt.nmi.not_nmi, nt.no_event);
	say(o, "handover: cases %zu offered %u reports %u not_nmi %d no_event %d\n",
	    ARRAY_SIZE(hcases), offered, reports, nt.nmi.not_nmi, nt.no_event);
}

/*
 * exited: exited_fire, read by a process that then exits, arms a vaddr
 * context whose target is that process and sends PER_CPU records on every
 * CPU, current being the process, and leaves the reports in the rings;
 * exited_drain, read once the process is gone, drains them as the kdamond
 * would: the first CPU's ring before the update that finds the process
 * gone, the other rings after it.
 */
static struct {
	struct damon_perf_ctx *ctx;
	int probe_idx;
	struct fixture fx;
	pid_t tid, tgid;
	unsigned int fired[NR_CPUS];
	struct damon_perf_stats before;
} ex;	/* run_lock */

static void run_exited_fire(struct out *o)
{
	struct shot *shots = hr.shots;
	unsigned int offered = 0;
	int cpu, ret;

	if (ex.ctx) {
		hctx_free(ex.ctx, NULL, NULL);
		ex.ctx = NULL;
		say(o, "exited_fire: the previous fire was never drained\n");
	}
	ret = fixture_get(&ex.fx);
	if (ret) {
		fail(o, "fixture %d", ret);
		return;
	}
	ex.ctx = hctx_new(DAMON_PERF_OPS_VADDR, task_tgid_vnr(current), false,
			  &ex.fx, &ex.probe_idx);
	if (IS_ERR(ex.ctx)) {
		fail(o, "exited_fire: context %ld", PTR_ERR(ex.ctx));
		ex.ctx = NULL;
		fixture_put(&ex.fx);
		return;
	}
	ex.tid = current->pid;
	ex.tgid = current->tgid;
	memset(ex.fired, 0, sizeof(ex.fired));
	damon_perf_stats_aggregate(&ex.before);
	cpumask_copy(&saved_mask, current->cpus_ptr);
	for_each_online_cpu(cpu) {
		if (set_cpus_allowed_ptr(current, cpumask_of(cpu)))
			continue;
		hshots(PEBS_LOAD, &ex.fx, shots);
		preempt_disable();
		if (smp_processor_id() == cpu)
			ex.fired[cpu] = hfire(shots, PER_CPU);
		preempt_enable();
		if (ex.fired[cpu] < PER_CPU)
			fail(o, "exited_fire cpu%d: %u of %d NMIs delivered",
			     cpu, ex.fired[cpu], PER_CPU);
		offered += ex.fired[cpu];
	}
	set_cpus_allowed_ptr(current, &saved_mask);
	/* the mapping goes with the process; the pages need no pin now */
	unpin_user_pages(ex.fx.upages, ex.fx.nr_pinned);
	__free_page(ex.fx.kpage);
	say(o, "exited_fire: pid %d offered %u, reports left in the rings\n",
	    ex.tgid, offered);
}

static void run_exited_drain(struct out *o)
{
	static struct damon_perf_stats after;
	struct damon_perf_target *t;
	unsigned int offered = 0, n1 = 0, c1 = 0, n2 = 0, m2 = 0;
	int first, cpu, ret;
	bool alive;

	if (!ex.ctx) {
		fail(o, "exited_drain: no exited_fire before");
		return;
	}
	memset(&hr, 0, sizeof(hr));
	hr.o = o;
	hr.ctx = ex.ctx;
	hr.probe_idx = ex.probe_idx;
	hr.tid = ex.tid;
	hr.tgid = ex.tgid;
	hr.report = true;
	t = list_first_entry(&ex.ctx->targets, struct damon_perf_target, list);
	rcu_read_lock();
	alive = pid_task(t->pid_ref, PIDTYPE_TGID);
	rcu_read_unlock();
	if (alive)
		fail(o, "exited_drain: process %d has not exited", ex.tgid);

	/* before the update: the target's last regions still stand */
	first = cpumask_first(cpu_online_mask);
	hr.name = "exited-before-update";
	hr.credited = true;
	hr.fired = ex.fired[first];
	hshots(PEBS_LOAD, &ex.fx, hr.shots);
	hwant(&hr, hr.fired, DAMON_PERF_STAT_sample_valid, false, true, 0);
	hdrain_cpu(&hr, first);
	n1 = hr.reports;
	c1 = hr.credits;
	offered += hr.fired;

	/* the update finds the process gone: the kdamond's update() */
	ret = damon_perf_regions_update(ex.ctx, t);
	if (ret != -ESRCH)
		fail(o, "exited_drain: regions_update %d, want %d", ret,
		     -ESRCH);
	if (ret == -ESRCH)
		WRITE_ONCE(t->dead, true);

	/* after it: no live target has the thread group */
	hr.name = "exited-after-update";
	hr.credited = false;
	hr.why = DAMON_PERF_MISS_TGID;
	for_each_online_cpu(cpu) {
		if (cpu == first)
			continue;
		hr.fired = ex.fired[cpu];
		hwant(&hr, hr.fired, DAMON_PERF_STAT_sample_valid, false,
		      false, DAMON_PERF_MISS_TGID);
		hdrain_cpu(&hr, cpu);
		offered += hr.fired;
	}
	n2 = hr.reports - n1;
	m2 = hr.misses;
	damon_perf_stats_aggregate(&after);
	say(o, "exited-before-update cpu%d: %u reports, %u credited\n",
	    first, n1, c1);
	say(o, "exited-after-update: regions_update %d, %u reports, %u missed\n",
	    ret, n2, m2);
	hr.name = "exited";
	hstats_check(&hr, &ex.before, &after, offered,
		     hits(ex.ctx, ex.probe_idx));
	hctx_free(ex.ctx, o, "exited");
	ex.ctx = NULL;
}

/* ------------------------------------------------------------------ */
/* drops: a paced producer against a started context                   */

static enum hrtimer_restart producer_tick(struct hrtimer *t)
{
	struct producer *p = container_of(t, struct producer, timer);

	if (READ_ONCE(p->stop))
		return HRTIMER_NORESTART;
	WRITE_ONCE(p->armed, 1);
	p->nmis++;
	apic->send_IPI_self(NMI_VECTOR);
	hrtimer_forward_now(t, ns_to_ktime(drop_tick_us * NSEC_PER_USEC));
	return HRTIMER_RESTART;
}

static void producer_start(void *arg)
{
	struct producer *p = this_cpu_ptr(&producers);

	p->start_ns = ktime_get_mono_fast_ns();
	hrtimer_start(&p->timer, ns_to_ktime(drop_tick_us * NSEC_PER_USEC),
		      HRTIMER_MODE_REL_PINNED_HARD);
}

static void ring_totals(struct damon_perf_rings *rings,
			struct damon_perf_ring_stats *sum)
{
	struct damon_perf_ring_stats st;
	int cpu;

	memset(sum, 0, sizeof(*sum));
	mutex_lock(&damon_perf_rings_lock);
	for_each_possible_cpu(cpu) {
		damon_perf_ring_read_stats(rings, cpu, &st);
		sum->enqueue += st.enqueue;
		sum->overflow += st.overflow;
		sum->busy_drop += st.busy_drop;
		sum->early_wake += st.early_wake;
	}
	mutex_unlock(&damon_perf_rings_lock);
}

static void drop_step(struct out *o, struct damon_perf_ctx *ctx, u64 rate,
		      bool wake)
{
	void (*saved)(void *arg) = ctx->rings.wake;
	struct damon_perf_ring_stats a, b;
	u64 offered = 0, refused = 0, nmis = 0, t0, ns;
	unsigned int nr_cpus = 0;
	int cpu;

	if (!wake)
		WRITE_ONCE(ctx->rings.wake, NULL);
	ring_totals(&ctx->rings, &a);
	for_each_online_cpu(cpu) {
		struct producer *p = per_cpu_ptr(&producers, cpu);

		p->rings = &ctx->rings;
		p->rate = rate;
		p->cap = damon_perf_ring_hiwat(ctx->rings.size);
		p->produced = 0;
		p->lost = 0;
		p->offered = 0;
		p->refused = 0;
		p->nmis = 0;
		WRITE_ONCE(p->stop, false);
		hrtimer_setup(&p->timer, producer_tick, CLOCK_MONOTONIC,
			      HRTIMER_MODE_REL_PINNED_HARD);
	}
	t0 = ktime_get_mono_fast_ns();
	on_each_cpu(producer_start, NULL, 1);
	msleep(drop_step_ms);
	for_each_online_cpu(cpu) {
		struct producer *p = per_cpu_ptr(&producers, cpu);

		WRITE_ONCE(p->stop, true);
		hrtimer_cancel(&p->timer);
	}
	ns = ktime_get_mono_fast_ns() - t0;
	/* the last NMI sent has run once its CPU took any interrupt */
	synchronize_rcu();
	for_each_online_cpu(cpu) {
		struct producer *p = per_cpu_ptr(&producers, cpu);

		offered += p->offered;
		refused += p->refused;
		nmis += p->nmis;
		nr_cpus++;
	}
	ring_totals(&ctx->rings, &b);
	WRITE_ONCE(ctx->rings.wake, saved);
	ns = max_t(u64, ns, 1) * nr_cpus;
	say(o, "drops wake=%s rate=%llu achieved=%llu nmi_rate=%llu cpus=%u produced=%llu dropped=%lu busy=%lu early_wake=%lu drop_permille=%llu\n",
	    wake ? "on" : "off", rate,
	    div64_u64(offered * NSEC_PER_SEC, ns),
	    div64_u64(nmis * NSEC_PER_SEC, ns),
	    nr_cpus, offered, b.overflow - a.overflow,
	    b.busy_drop - a.busy_drop, b.early_wake - a.early_wake,
	    div64_u64(refused * 1000, max_t(u64, offered, 1)));
}

static void run_drops(struct out *o)
{
	static const u64 rates[] = { 10000, 50000, 100000, 200000, 500000,
				     1000000 };
	struct damon_perf_ctx *ctx;
	struct page *page;
	int i, w, ret;

	page = alloc_page(GFP_KERNEL);
	if (!page) {
		fail(o, "no memory");
		return;
	}
	drop_paddr = page_to_phys(page);
	mutex_lock(&damon_perf_lock);
	ctx = damon_perf_ctx_new(CTX_NAME, DAMON_PERF_OPS_PADDR, NULL);
	if (IS_ERR(ctx)) {
		ret = PTR_ERR(ctx);
	} else {
		ret = damon_perf_ctx_start(ctx, NULL);
		if (ret)
			damon_perf_ctx_destroy(ctx, NULL);
	}
	mutex_unlock(&damon_perf_lock);
	if (ret) {
		fail(o, "ctx start %d", ret);
		goto out;
	}
	say(o, "drops ring=%u sample_us=%llu tick_us=%u step_ms=%u\n",
	    ctx->rings.size, ctx->attrs.sample_us, drop_tick_us,
	    drop_step_ms);
	/* both modes at each rate, one after the other: the same host load */
	for (i = 0; i < ARRAY_SIZE(rates); i++)
		for (w = 0; w < 2; w++)
			drop_step(o, ctx, rates[i], w);
	mutex_lock(&damon_perf_lock);
	damon_perf_ctx_stop(ctx);
	damon_perf_ctx_destroy(ctx, NULL);
	mutex_unlock(&damon_perf_lock);
out:
	__free_page(page);
}

/* ------------------------------------------------------------------ */
/* debugfs                                                             */

static struct dentry *dir;

static int __init nmitest_init(void)
{
	int ret;

	ret = perf_pmu_register(&tpmu, "damon_perf_nmi", -1);
	if (ret)
		return ret;
	ret = register_nmi_handler(NMI_LOCAL, nmi_handler, 0, NMI_NAME);
	if (ret) {
		perf_pmu_unregister(&tpmu);
		return ret;
	}
	dir = debugfs_create_dir(NMI_NAME, NULL);
	debugfs_create_file("fields", 0400, dir, run_fields, &run_fops);
	debugfs_create_file("access", 0400, dir, run_access, &run_fops);
	debugfs_create_file("drops", 0400, dir, run_drops, &run_fops);
	debugfs_create_file("handover", 0400, dir, run_handover, &run_fops);
	debugfs_create_file("exited_fire", 0400, dir, run_exited_fire,
			    &run_fops);
	debugfs_create_file("exited_drain", 0400, dir, run_exited_drain,
			    &run_fops);
	return 0;
}

static void __exit nmitest_exit(void)
{
	debugfs_remove(dir);
	if (ex.ctx)
		hctx_free(ex.ctx, NULL, NULL);
	unregister_nmi_handler(NMI_LOCAL, NMI_NAME);
	perf_pmu_unregister(&tpmu);
}

module_init(nmitest_init);
module_exit(nmitest_exit);
MODULE_DESCRIPTION("damon_perf: hardware-shaped samples from a real NMI");
MODULE_LICENSE("GPL");
DAMON_PERF_IMPORT_KUNIT_NS();
