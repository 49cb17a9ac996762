// SPDX-License-Identifier: GPL-2.0
/*
 * damon_perf_conform: conformance PMUs (x86 test builds).
 *
 * Two test PMUs whose counters damon_perf arms through its own probe path,
 * each delivering samples the way one real driver does, from a real NMI
 * (the local APIC's self IPI, tests/nmi/selfnmi.h):
 *
 * damon_perf_pebs  Intel PEBS. event_init computes auto-reload and
 *                  large-PEBS eligibility from the attr as
 *                  intel_pmu_hw_config() does (arch/x86/events/intel/core.c,
 *                  identical in 6.1, 6.12 and 7.2 but for 7.2's AUX-action
 *                  exception), with the large-PEBS flags of an adaptive
 *                  (baseline) PEBS machine: intel_pmu_large_pebs_flags().
 *                  Records go to an imitated DS buffer whose PMI threshold is
 *                  one record, or pebs_capacity records for large PEBS
 *                  (pebs_update_threshold()). The PMI drains it as
 *                  __intel_pmu_pebs_event() of 6.1 and 6.12 (7.2:
 *                  __intel_pmu_pebs_event() and __intel_pmu_pebs_last_event())
 *                  do: records 1..n-1 to perf_event_output(), the last to
 *                  perf_event_overflow(); a drain outside the PMI
 *                  (intel_pmu_pebs_disable() when every PEBS event of the CPU
 *                  is large: disable, period change, sched-out, del) gives
 *                  all of them to perf_event_output(). Each record's sample
 *                  is set up as setup_pebs_fixed_sample_data() does (weight
 *                  for loads, data_src, addr for PERF_SAMPLE_ADDR_TYPE; never
 *                  phys_addr, which perf_prepare_sample() fills on the output
 *                  path only), each only when sample_type asks.
 * damon_perf_ibs   AMD IBS Op. event_init applies perf_ibs_init()'s period
 *                  rules: 6.1 and 6.12 mask the low nibble off a fixed period
 *                  (0 becomes 0x10; the low-nibble refusal there is dead
 *                  code, sample_freq being sample_period's union twin) and
 *                  ignore exclude_*; 7.2 masks it too but refuses a period
 *                  below 0x90 and exclude_* without config2's software
 *                  filter bit (a CPU without the RIP[63] filter), and its
 *                  check_period (perf_ibs_check_period()) refuses a new
 *                  period with a low nibble or below 0x90. The IBS cases
 *                  run under both rule sets on every kernel (the rules
 *                  are the driver's, not the perf core's). Every sample
 *                  is one perf_event_overflow(), as perf_ibs_handle_irq()
 *                  does, its data set up as perf_ibs_parse_ld_st_data() of
 *                  6.1: data_src PERF_MEM_NA and nothing else for an op
 *                  that is neither load nor store, addr only with
 *                  IbsDcLinAdValid, phys_addr only with IbsDcPhyAdValid,
 *                  weight for loads that missed.
 *
 * perf_event_output() and perf_event_overflow() are not exported (and
 * calling a kernel function found by address trips IBT), so both are
 * imitated here exactly for what they do to a kernel counter:
 * perf_event_output() prepares the sample and asks perf_output_begin() for
 * space in event->rb, which a kernel counter never has (only mmap() of a
 * perf fd sets one): the record is dropped, the overflow handler never
 * sees it. perf_event_overflow() (__perf_event_overflow()) accounts the
 * interrupt for throttling and calls event->overflow_handler; throttling
 * (more than max_samples_per_tick in a tick) is not imitated: it stops the
 * PMU, which would only make the stream shorter, never lose a delivered
 * sample.
 *
 * debugfs damon_perf_conform/run runs every case on every online CPU: a
 * seeded stream of nr_samples records per CPU over a pinned anonymous
 * mapping of the reading process (and kernel pages for kernel-mode
 * loads), the probe's period changed through damon_perf_source_set_period()
 * (the CPU budget's path) every batch on fixed-period cases; then it
 * checks that every record the driver offered is accounted for: a report
 * whose fields equal what the driver filled, or a loss counted by reason
 * in perf_stats. Each case runs twice on one context, stopped and armed
 * again in between; as each stop begins one more record per CPU has
 * raised its PMI, which lands in the counter's del, after damon_perf
 * unpublished the context: it must be counted as sample_teardown. Output:
 * one line per case, then "<driver>: N offered, N accounted" per driver,
 * then "errors N".
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/module.h>
#include <linux/perf_event.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <asm/nmi.h>

#include "ctx.h"
#include "perf_source.h"
#include "probe.h"
#include "ring.h"
#include "stats.h"
#include "../nmi/runfile.h"
#include "../nmi/selfnmi.h"

#define NAME		"damon_perf_conform"
#define NPAGES		64
#define RING		512	/* per CPU; drained every BATCH records */
#define BATCH		128
#define PEBS_MAX	64	/* most records the imitated DS buffer holds */

static unsigned int nr_samples = 1024;
module_param(nr_samples, uint, 0644);
MODULE_PARM_DESC(nr_samples, "records each driver offers per CPU per case");
static unsigned int pebs_capacity = 16;
module_param(pebs_capacity, uint, 0644);
MODULE_PARM_DESC(pebs_capacity,
		 "large PEBS: records buffered before the PMI (2..64)");
static ulong seed = 0x9e3779b97f4a7c15UL;
module_param(seed, ulong, 0644);
MODULE_PARM_DESC(seed, "seed of the sample streams");

/* the hw_perf_event flags of intel_pmu_hw_config() (perf_event.h) */
#define PEBS_AUTO_RELOAD	BIT(0)
#define PEBS_LARGE		BIT(1)

/* LARGE_PEBS_FLAGS of arch/x86/events/perf_event.h (6.1 .. 7.2) */
#define LARGE_PEBS_FLAGS \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_ADDR | \
	 PERF_SAMPLE_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_STREAM_ID | \
	 PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_IDENTIFIER | \
	 PERF_SAMPLE_TRANSACTION | PERF_SAMPLE_PHYS_ADDR | \
	 PERF_SAMPLE_REGS_INTR | PERF_SAMPLE_REGS_USER | \
	 PERF_SAMPLE_PERIOD | PERF_SAMPLE_CODE_PAGE_SIZE | \
	 PERF_SAMPLE_WEIGHT_TYPE)
/* x86's PERF_SAMPLE_ADDR_TYPE */
#define SAMPLE_ADDR_TYPE (PERF_SAMPLE_ADDR | PERF_SAMPLE_PHYS_ADDR | \
			  PERF_SAMPLE_DATA_PAGE_SIZE)

/* perf_ibs_op of arch/x86/events/amd/ibs.c, without IBS_CAPS_OPCNTEXT */
#define IBS_OP_CONFIG_MASK	(IBS_OP_CNT_CTL | IBS_OP_MAX_CNT)
#define IBS_OP_CNT_MASK		(IBS_OP_MAX_CNT | IBS_OP_CUR_CNT | \
				 IBS_OP_CUR_CNT_RAND)
#define IBS_OP_MIN_PERIOD_72	0x90
#define IBS_SW_FILTER_MASK	1	/* config2: 7.2's software filter */
/*
 * Which driver IBS imitates: false 6.1's and 6.12's rules, true 7.2's.
 * Both run on every kernel: the rules are the driver's, not the core's.
 */
static bool ibs_72;	/* run_lock */
#define IBS_72_RULES	READ_ONCE(ibs_72)

/* One record as the hardware wrote it, and what it must become. */
struct rec {
	unsigned long addr;	/* data linear address (0: none) */
	phys_addr_t paddr;
	u64 period;		/* hw.last_period when written */
	u32 lat;
	bool store;
	bool lin_valid;		/* IBS: IbsDcLinAdValid */
	bool phy_valid;		/* IBS: IbsDcPhyAdValid */
	bool mem;		/* IBS: a load or store op */
	bool miss;		/* IBS: dc_miss */
};

struct conf_cpu {
	struct perf_event *event;	/* the active event, either PMU */
	struct rec ds[PEBS_MAX];	/* PEBS: the imitated DS buffer */
	unsigned int n;
	struct rec ibs;			/* IBS: the op the PMI reports */
	/* what the driver did with its records */
	unsigned long to_output, to_overflow, output_dropped;
	/* a PMI raised before the stop disables the counter (run_case) */
	bool pmi_at_del;
	unsigned long at_del_lost;	/* its NMI never came */
};

static DEFINE_PER_CPU(struct conf_cpu, conf_cpus);
static struct pmu pebs_pmu, ibs_pmu;
static struct selfnmi nmi;

/* ------------------------------------------------------------------ */
/* The perf core, for a kernel counter                                 */

static void core_output(struct conf_cpu *c, struct perf_event *event,
			struct perf_sample_data *data, struct pt_regs *regs)
{
	c->to_output++;
	/* __perf_output_begin(): no event->rb, -ENOSPC, record gone */
	if (!READ_ONCE(event->rb))
		c->output_dropped++;
}

static void core_overflow(struct conf_cpu *c, struct perf_event *event,
			  struct perf_sample_data *data, struct pt_regs *regs)
{
	perf_overflow_handler_t handler = READ_ONCE(event->overflow_handler);

	c->to_overflow++;
	handler(event, data, regs);
}

/* ------------------------------------------------------------------ */
/* Intel PEBS                                                          */

static unsigned long large_pebs_flags(const struct perf_event *event)
{
	/* an adaptive PEBS machine: format 4 with pebs_baseline */
	unsigned long flags = LARGE_PEBS_FLAGS | PERF_SAMPLE_BRANCH_STACK |
			      PERF_SAMPLE_TIME;

	/* intel_pmu_large_pebs_flags() */
	if (event->attr.use_clockid)
		flags &= ~PERF_SAMPLE_TIME;
	if (!event->attr.exclude_kernel)
		flags &= ~PERF_SAMPLE_REGS_USER;
	return flags;
}

static int pebs_event_init(struct perf_event *event)
{
	const struct perf_event_attr *attr = &event->attr;

	if (attr->type != pebs_pmu.type)
		return -ENOENT;
	if (event->cpu < 0)
		return -EOPNOTSUPP;
	/* x86_pmu_hw_config(): precise_ip above x86_pmu_max_precise() */
	if (attr->precise_ip > 3)
		return -EOPNOTSUPP;
	event->hw.flags = 0;
	/* intel_pmu_hw_config() */
	if (attr->precise_ip &&
	    !(attr->freq || (attr->wakeup_events && !attr->watermark))) {
		event->hw.flags |= PEBS_AUTO_RELOAD;
		if (!(attr->sample_type & ~large_pebs_flags(event)))
			event->hw.flags |= PEBS_LARGE;
	}
	return 0;
}

/* setup_pebs_fixed_sample_data() of 6.1 for one record */
static void pebs_setup(struct perf_event *event, const struct rec *r,
		       struct perf_sample_data *data)
{
	u64 type = event->attr.sample_type;

	perf_sample_data_init(data, 0, event->hw.last_period);
	/* no precise_ip: a plain counter's PMI (x86_pmu_handle_irq()) */
	if (!event->attr.precise_ip)
		return;
	if ((type & PERF_SAMPLE_WEIGHT_TYPE) && !r->store) {
		data->weight.full = r->lat;
		data->sample_flags |= PERF_SAMPLE_WEIGHT_TYPE;
	}
	if (type & PERF_SAMPLE_DATA_SRC) {
		if (r->store)		/* precise_store_data() */
			data->data_src.val = PERF_MEM_S(OP, STORE) |
					     PERF_MEM_S(LVL, L1) |
					     PERF_MEM_S(LVL, HIT) |
					     PERF_MEM_S(SNOOP, NA);
		else			/* pebs_data_source[]: L1 hit */
			data->data_src.val = PERF_MEM_S(OP, LOAD) |
					     PERF_MEM_S(LVL, L1) |
					     PERF_MEM_S(LVL, HIT) |
					     PERF_MEM_S(LVLNUM, L1) |
					     PERF_MEM_S(SNOOP, NONE);
		data->sample_flags |= PERF_SAMPLE_DATA_SRC;
	}
	if (type & SAMPLE_ADDR_TYPE) {
		data->addr = r->addr;
		data->sample_flags |= PERF_SAMPLE_ADDR;
	}
}

/*
 * __intel_pmu_pebs_event(): @iregs NULL for a drain outside the PMI
 * (dummy_iregs there).
 */
static void pebs_drain(struct conf_cpu *c, struct perf_event *event,
		       struct pt_regs *iregs)
{
	static struct pt_regs dummy_iregs;
	struct perf_sample_data data;
	unsigned int i, n = c->n;

	c->n = 0;
	for (i = 0; i < n; i++) {
		pebs_setup(event, &c->ds[i], &data);
		if (i + 1 < n || !iregs)
			core_output(c, event, &data,
				    iregs ? iregs : &dummy_iregs);
		else
			core_overflow(c, event, &data, iregs);
	}
}

/* ------------------------------------------------------------------ */
/* AMD IBS Op                                                          */

static int ibs_event_init(struct perf_event *event)
{
	struct hw_perf_event *hwc = &event->hw;
	const struct perf_event_attr *attr = &event->attr;

	if (attr->type != ibs_pmu.type)
		return -ENOENT;
	if (event->cpu < 0)
		return -EOPNOTSUPP;
	if (attr->config & ~IBS_OP_CONFIG_MASK)
		return -EINVAL;
	if (IBS_72_RULES) {
		if (attr->exclude_host || attr->exclude_guest ||
		    attr->exclude_idle)
			return -EINVAL;
		if (!(attr->config2 & IBS_SW_FILTER_MASK) &&
		    (attr->exclude_kernel || attr->exclude_user ||
		     attr->exclude_hv))
			return -EINVAL;
	}
	if (hwc->sample_period) {
		if (attr->config & IBS_OP_CNT_MASK)
			return -EINVAL;	/* raw max_cnt may not be set */
		if (IBS_72_RULES && attr->freq) {
			hwc->sample_period = IBS_OP_MIN_PERIOD_72;
		} else {
			hwc->sample_period &= ~0x0FULL;
			if (IBS_72_RULES &&
			    hwc->sample_period < IBS_OP_MIN_PERIOD_72)
				return -EINVAL;
			if (!hwc->sample_period)
				hwc->sample_period = 0x10;
		}
	} else {
		if (IBS_72_RULES && attr->freq)
			return -EINVAL;
		hwc->sample_period = (attr->config & IBS_OP_MAX_CNT) << 4;
		event->attr.sample_period = hwc->sample_period;
	}
	if (!hwc->sample_period)
		return -EINVAL;
	hwc->last_period = hwc->sample_period;
	local64_set(&hwc->period_left, hwc->sample_period);
	return 0;
}

/* perf_ibs_check_period() of 7.2 */
static int ibs_check_period(struct perf_event *event, u64 value)
{
	if (!IBS_72_RULES || event->attr.freq)
		return 0;
	if ((value & 0xFULL) || value < IBS_OP_MIN_PERIOD_72)
		return -EINVAL;
	return 0;
}

/* perf_ibs_handle_irq() with perf_ibs_parse_ld_st_data() of 6.1 */
static void ibs_irq(struct conf_cpu *c, struct perf_event *event,
		    struct pt_regs *regs)
{
	u64 type = event->attr.sample_type;
	const struct rec *r = &c->ibs;
	struct perf_sample_data data;

	perf_sample_data_init(&data, 0, event->hw.last_period);
	data.data_src.val = PERF_MEM_NA;
	if (r->mem) {
		data.data_src.mem_op = r->store ? PERF_MEM_OP_STORE :
						  PERF_MEM_OP_LOAD;
		if (type & PERF_SAMPLE_DATA_SRC) {
			data.data_src.mem_lvl = PERF_MEM_LVL_L2 |
						PERF_MEM_LVL_HIT;
			data.data_src.mem_lvl_num = PERF_MEM_LVLNUM_L2;
			data.sample_flags |= PERF_SAMPLE_DATA_SRC;
		}
		if ((type & PERF_SAMPLE_WEIGHT_TYPE) && r->miss && !r->store) {
			if (type & PERF_SAMPLE_WEIGHT_STRUCT) {
				data.weight.var1_dw = r->lat;
				data.weight.var2_w = r->lat / 2;
			} else if (type & PERF_SAMPLE_WEIGHT) {
				data.weight.full = r->lat;
			}
			data.sample_flags |= PERF_SAMPLE_WEIGHT_TYPE;
		}
		if ((type & PERF_SAMPLE_ADDR) && r->lin_valid) {
			data.addr = r->addr;
			data.sample_flags |= PERF_SAMPLE_ADDR;
		}
		if ((type & PERF_SAMPLE_PHYS_ADDR) && r->phy_valid) {
			data.phys_addr = r->paddr;
			data.sample_flags |= PERF_SAMPLE_PHYS_ADDR;
		}
	}
	core_overflow(c, event, &data, regs);
}

/* ------------------------------------------------------------------ */
/* PMU callbacks shared by both                                        */

static void conf_start(struct perf_event *event, int flags)
{
	if (flags & PERF_EF_RELOAD)
		event->hw.last_period = event->hw.sample_period;
	event->hw.state = 0;
}

static void conf_stop(struct perf_event *event, int flags)
{
	struct conf_cpu *c = this_cpu_ptr(&conf_cpus);

	/*
	 * x86_pmu_stop() -> intel_pmu_disable_event() ->
	 * intel_pmu_pebs_disable(): with every PEBS event of the CPU large,
	 * the buffer is drained outside the PMI.
	 */
	if (event->pmu == &pebs_pmu && (event->hw.flags & PEBS_LARGE) &&
	    c->event == event && c->n)
		pebs_drain(c, event, NULL);
	event->hw.state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
}

static int conf_add(struct perf_event *event, int flags)
{
	struct conf_cpu *c = this_cpu_ptr(&conf_cpus);

	/* x86_perf_event_set_period() on the first start */
	event->hw.last_period = event->hw.sample_period;
	event->hw.state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
	if (flags & PERF_EF_START)
		conf_start(event, flags);
	c->event = event;
	return 0;
}

static void conf_del(struct perf_event *event, int flags)
{
	struct conf_cpu *c = this_cpu_ptr(&conf_cpus);

	/*
	 * The record left pending at stop raised its PMI before the counter
	 * was disabled: the NMI lands now, in the IPI that removes the
	 * counter, after damon_perf unpublished the context.
	 */
	if (c->pmi_at_del && c->event == event && !event->hw.state &&
	    !selfnmi_send(&nmi))
		c->at_del_lost++;
	c->pmi_at_del = false;
	conf_stop(event, PERF_EF_UPDATE);
	if (c->event == event) {
		c->event = NULL;
		c->n = 0;
	}
}

static void conf_read(struct perf_event *event)
{
}

static struct pmu pebs_pmu = {
	.module		= THIS_MODULE,
	.task_ctx_nr	= perf_invalid_context,
	.event_init	= pebs_event_init,
	.add		= conf_add,
	.del		= conf_del,
	.start		= conf_start,
	.stop		= conf_stop,
	.read		= conf_read,
};

static struct pmu ibs_pmu = {
	.module		= THIS_MODULE,
	.task_ctx_nr	= perf_invalid_context,
	.event_init	= ibs_event_init,
	.add		= conf_add,
	.del		= conf_del,
	.start		= conf_start,
	.stop		= conf_stop,
	.read		= conf_read,
	.check_period	= ibs_check_period,
};

/* The PMI: a drain (PEBS) or one op (IBS). */
static int nmi_handler(unsigned int type, struct pt_regs *regs)
{
	struct conf_cpu *c = this_cpu_ptr(&conf_cpus);
	struct perf_event *event;

	if (!selfnmi_claim(&nmi))
		return NMI_DONE;
	event = c->event;
	if (event && !event->hw.state) {
		if (event->pmu == &pebs_pmu)
			pebs_drain(c, event, regs);
		else
			ibs_irq(c, event, regs);
	}
	selfnmi_done(&nmi);
	return NMI_HANDLED;
}

/* ------------------------------------------------------------------ */
/* Cases                                                               */

enum driver { PEBS, IBS };
/* totals: PEBS, IBS with 6.1/6.12 rules, IBS with 7.2 rules */
#define NR_TOTALS	3
static const char * const total_name[NR_TOTALS] = {
	"pebs", "ibs (6.1/6.12 rules)", "ibs (7.2 rules)"
};

static const struct tcase {
	const char *name;
	enum driver drv;
	u32 ops;
	u64 period;
	bool freq;
	u8 precise_ip;
	u32 wakeup_events;
	bool phys, wstruct, excl_kernel, store;
	u64 config2;
	int want_arm;		/* expected arm result: 0 or -errno */
	int want_arm_72;	/* the same on 7.2 rules */
} cases[] = {
	/* the admin guide's recipe: mem-loads, ldlat, :P, period 1000 */
	{ "pebs-loads-p1000", PEBS, DAMON_PERF_OPS_VADDR, 1000, false, 2, 0,
	  false, false, false, false },
	{ "pebs-loads-wakeup7", PEBS, DAMON_PERF_OPS_VADDR, 1000, false, 2, 7,
	  false, false, false, false },
	{ "pebs-stores-p1", PEBS, DAMON_PERF_OPS_VADDR, 1, false, 1, 0,
	  false, false, false, true },
	{ "pebs-loads-paddr", PEBS, DAMON_PERF_OPS_PADDR, 20011, false, 3, 0,
	  true, true, false, false },
	{ "pebs-loads-freq", PEBS, DAMON_PERF_OPS_VADDR, 4000, true, 2, 0,
	  false, false, false, false },
	{ "pebs-loads-exclk", PEBS, DAMON_PERF_OPS_VADDR, 3, false, 2, 0,
	  false, false, true, false },
	/* a counter without precise_ip: no PEBS, no data address */
	{ "pebs-imprecise", PEBS, DAMON_PERF_OPS_VADDR, 1000, false, 0, 0,
	  false, false, false, false },
	{ "ibs-op-vaddr", IBS, DAMON_PERF_OPS_VADDR, 0x10000, false, 0, 0,
	  true, true, false, false },
	{ "ibs-op-paddr", IBS, DAMON_PERF_OPS_PADDR, 0x100000, false, 0, 0,
	  true, false, false, false },
	{ "ibs-op-nibble", IBS, DAMON_PERF_OPS_VADDR, 0x10007, false, 0, 0,
	  false, false, false, false },
	{ "ibs-op-small", IBS, DAMON_PERF_OPS_VADDR, 0x20, false, 0, 0,
	  false, false, false, false, 0, 0, -EINVAL },
	{ "ibs-op-exclk", IBS, DAMON_PERF_OPS_VADDR, 0x4000, false, 0, 0,
	  false, false, true, false, 0, 0, -EINVAL },
	{ "ibs-op-exclk-swfilt", IBS, DAMON_PERF_OPS_VADDR, 0x4000, false, 0,
	  0, false, false, true, false, IBS_SW_FILTER_MASK },
	{ "ibs-op-freq", IBS, DAMON_PERF_OPS_VADDR, 2000, true, 0, 0,
	  true, false, false, false },
};

struct fixture {
	unsigned long ubuf;
	struct page *upages[NPAGES];
	struct page *kpage;
};

/*
 * What the handler must make of a record, and the fields of its report;
 * kept per CPU in the order the driver delivered them.
 */
struct want {
	unsigned long vaddr, paddr;
	u64 period;
	bool store;
};

static struct {
	const struct tcase *c;
	struct out *o;
	struct want w[RING];
	unsigned int nw, idx, seen;
	int cpu;
	pid_t tid, tgid;
	int probe_idx;
} chk;				/* run_lock */

static u64 next_rnd(u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void make_rec(const struct tcase *c, const struct fixture *fx,
		     u64 *rnd, struct rec *r)
{
	u64 x = next_rnd(rnd);
	unsigned int pg = x % NPAGES;
	unsigned long off = ((x >> 8) % (PAGE_SIZE / 8)) * 8;

	memset(r, 0, sizeof(*r));
	r->lat = 30 + ((x >> 20) & 0x3ff);
	r->store = c->store;
	r->mem = true;
	r->lin_valid = true;
	r->phy_valid = true;
	r->miss = (x >> 32) & 1;
	if (c->drv == IBS) {
		/* a mix of ops: stores, non-memory ops, missing addresses */
		r->store = ((x >> 33) & 3) == 0;
		r->mem = ((x >> 35) & 7) != 0;
		r->lin_valid = ((x >> 38) & 15) != 0;
		r->phy_valid = ((x >> 42) & 7) != 0;
	}
	if (c->drv == PEBS && !c->excl_kernel && !((x >> 45) & 15)) {
		/* a load of a kernel (linear map) address */
		r->addr = (unsigned long)page_address(fx->kpage) + off;
		r->paddr = page_to_phys(fx->kpage) + off;
	} else {
		r->addr = fx->ubuf + pg * PAGE_SIZE + off;
		r->paddr = page_to_phys(fx->upages[pg]) + off;
	}
}

/* What a report of @r must hold, false when @r must be counted lost. */
static bool expect_report(const struct tcase *c, struct perf_event *event,
			  const struct rec *r, struct want *w)
{
	u64 type = event->attr.sample_type;
	bool has_v, has_p;

	if (c->drv == PEBS) {
		has_v = event->attr.precise_ip && (type & SAMPLE_ADDR_TYPE);
		has_p = false;
	} else {
		has_v = r->mem && r->lin_valid && (type & PERF_SAMPLE_ADDR);
		has_p = r->mem && r->phy_valid &&
			(type & PERF_SAMPLE_PHYS_ADDR);
	}
	w->vaddr = has_v ? r->addr & PAGE_MASK : 0;
	w->paddr = has_p ? r->paddr & PAGE_MASK : 0;
	w->period = r->period;
	if (c->drv == PEBS)
		w->store = event->attr.precise_ip && r->store;
	else
		w->store = r->mem && r->store;
	if (c->ops == DAMON_PERF_OPS_PADDR) {
		/* damon_perf translates the vaddr of a PHYS_ADDR probe */
		if (!w->paddr && w->vaddr && (type & PERF_SAMPLE_PHYS_ADDR))
			w->paddr = r->paddr & PAGE_MASK;
		return w->paddr;
	}
	if (w->vaddr) {
		if (w->vaddr >= TASK_SIZE_MAX)
			return false;
		/* a vaddr report carries a flagged paddr as it is */
		return true;
	}
	return false;
}

static void check_report(const struct damon_perf_report *r, void *arg)
{
	const struct tcase *c = chk.c;
	struct out *o = chk.o;
	const struct want *w;

	if (chk.idx >= chk.nw) {
		fail(o, "%s cpu%d: unexpected report vaddr %lx", c->name,
		     chk.cpu, r->vaddr);
		return;
	}
	w = &chk.w[chk.idx++];
	chk.seen++;
	if (r->vaddr != w->vaddr || r->paddr != w->paddr ||
	    r->is_write != w->store || r->period != w->period)
		fail(o, "%s cpu%d: report %u vaddr %lx paddr %lx write %u period %llu, driver filled %lx %lx %u %llu",
		     c->name, chk.cpu, chk.idx - 1, r->vaddr, r->paddr,
		     r->is_write, r->period, w->vaddr, w->paddr, w->store,
		     w->period);
	if (r->cpu != chk.cpu || r->tid != chk.tid || r->tgid != chk.tgid ||
	    r->probe_idx != chk.probe_idx || r->src != DAMON_PERF_SRC_OVERFLOW)
		fail(o, "%s cpu%d: cpu %d tid %d tgid %d probe %u src %u",
		     c->name, chk.cpu, r->cpu, r->tid, r->tgid, r->probe_idx,
		     r->src);
}

static void drain_check(struct damon_perf_ctx *ctx, int cpu)
{
	damon_perf_ring_drain(&ctx->rings, cpu, check_report, NULL);
	/* every wanted report arrived: rings keep order */
	if (chk.idx != chk.nw)
		fail(chk.o, "%s cpu%d: %u reports of %u the driver delivered",
		     chk.c->name, cpu, chk.idx, chk.nw);
	chk.nw = 0;
	chk.idx = 0;
}

/* the loss reasons of perf_stats: every sample is a report or one of them */
static const enum damon_perf_stat_idx loss_reasons[] = {
	DAMON_PERF_STAT_sample_null,
	DAMON_PERF_STAT_sample_addr_zero,
	DAMON_PERF_STAT_sample_kernel,
	DAMON_PERF_STAT_sample_invalid_phys,
	DAMON_PERF_STAT_sample_no_phys,
	DAMON_PERF_STAT_sample_untranslated,
	DAMON_PERF_STAT_sample_phys_only,
	DAMON_PERF_STAT_overflow,
	DAMON_PERF_STAT_busy_drop,
	DAMON_PERF_STAT_no_probe,
	DAMON_PERF_STAT_no_ring,
	DAMON_PERF_STAT_sample_teardown,
};

static unsigned long delta(const struct damon_perf_stats *a,
			   const struct damon_perf_stats *b,
			   enum damon_perf_stat_idx idx)
{
	return damon_perf_stats_get(b, idx) - damon_perf_stats_get(a, idx);
}

/* What the driver's check_period says of a new period. */
static int driver_check_period(const struct tcase *c, u64 period)
{
	if (c->drv != IBS || !IBS_72_RULES || c->freq)
		return 0;
	return (period & 0xFULL) || period < IBS_OP_MIN_PERIOD_72 ? -EINVAL : 0;
}

/*
 * Each case runs ROUNDS times on one context: armed, offered, stopped,
 * armed again (a restart), offered, stopped.
 */
#define ROUNDS	2

/*
 * One record per CPU left pending as the stop begins, its PMI raised: it
 * reaches damon_perf's handler from the counter's del (conf_del()), after
 * the context was unpublished. No report may come of it; it must be
 * counted, as sample_teardown. Return: 1 if left pending.
 */
static unsigned int pend_at_stop(const struct tcase *c,
				 const struct fixture *fx, u64 *rnd,
				 struct conf_cpu *cc, int cpu)
{
	struct perf_event *event;
	unsigned long flags;
	unsigned int n = 0;
	struct rec r;

	preempt_disable();
	event = cc->event;
	if (smp_processor_id() == cpu && event && !event->hw.state) {
		make_rec(c, fx, rnd, &r);
		r.period = event->hw.last_period;
		local_irq_save(flags);
		if (c->drv == PEBS)
			cc->ds[cc->n++] = r;
		else
			cc->ibs = r;
		cc->pmi_at_del = true;
		local_irq_restore(flags);
		n = 1;
	}
	preempt_enable();
	return n;
}

static unsigned long at_del_lost(void)
{
	unsigned long n = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		n += per_cpu_ptr(&conf_cpus, cpu)->at_del_lost;
	return n;
}

static cpumask_t saved_mask;	/* run_lock */
static unsigned long offered_total[NR_TOTALS], accounted_total[NR_TOTALS];

/* One record written by the hardware; a PMI when its threshold is hit. */
static bool offer(const struct tcase *c, struct conf_cpu *cc,
		  struct perf_event *event, struct rec *r)
{
	unsigned int threshold = 1;
	unsigned long flags;
	bool ok = true;

	local_irq_save(flags);
	if (c->drv == PEBS) {
		if (event->hw.flags & PEBS_LARGE)
			threshold = clamp_t(unsigned int, pebs_capacity, 2,
					    PEBS_MAX);
		cc->ds[cc->n++] = *r;
		if (cc->n >= threshold)
			ok = selfnmi_send(&nmi);
	} else {
		cc->ibs = *r;
		ok = selfnmi_send(&nmi);
	}
	local_irq_restore(flags);
	return ok;
}

static int run_case(const struct tcase *c, const struct fixture *fx,
		    struct out *o)
{
	struct damon_perf_probe_attr pa = {
		.sample_period = c->period,
		.freq = c->freq,
		.precise_ip = c->precise_ip,
		.wakeup_events = c->wakeup_events,
		.weight = 1,
		.sample_phys_addr = c->phys,
		.sample_weight_struct = c->wstruct,
		.exclude_kernel = c->excl_kernel,
		.config2 = c->config2,
	};
	static struct damon_perf_stats before, after;
	int want_arm = IBS_72_RULES ? c->want_arm_72 : c->want_arm;
	unsigned long offered = 0, reports = 0, lost = 0, dropped = 0;
	unsigned long to_output = 0, to_overflow = 0;
	unsigned long at_stop = 0, del_lost;
	struct damon_perf_ctx *ctx;
	unsigned int round;
	u64 rnd = seed ^ (u64)(c - cases) * 0x100000001b3ULL;
	int cpu, idx, ret;
	unsigned int i;

	pa.type = c->drv == PEBS ? pebs_pmu.type : ibs_pmu.type;
	mutex_lock(&damon_perf_lock);
	ctx = damon_perf_ctx_new("conform", c->ops, NULL);
	if (IS_ERR(ctx)) {
		mutex_unlock(&damon_perf_lock);
		fail(o, "%s: ctx_new %ld", c->name, PTR_ERR(ctx));
		return PTR_ERR(ctx);
	}
	idx = damon_perf_probe_add(ctx, &pa, NULL);
	ret = idx < 0 ? idx : 0;
	if (!ret) {
		ctx->rings.ctx_id = ctx->id;
		ret = damon_perf_rings_alloc(&ctx->rings, RING, NULL, NULL);
	}
	if (!ret) {
		ret = damon_perf_source_arm(ctx, NULL);
		if (ret)
			damon_perf_rings_free(&ctx->rings);
	}
	mutex_unlock(&damon_perf_lock);
	if (ret != want_arm)
		fail(o, "%s: arm %d, the driver's event_init wants %d",
		     c->name, ret, want_arm);
	if (ret) {
		say(o, "case %s%s refused %d\n", c->name,
		    c->drv == IBS && IBS_72_RULES ? "-72" : "", ret);
		goto out_ctx;
	}

	damon_perf_stats_aggregate(&before);
	del_lost = at_del_lost();
	for (round = 0; round < ROUNDS; round++) {
		if (round) {
			/* a restart: the same context and rings, armed again */
			mutex_lock(&damon_perf_lock);
			ret = damon_perf_source_arm(ctx, NULL);
			mutex_unlock(&damon_perf_lock);
			if (ret) {
				fail(o, "%s: restart: arm %d", c->name, ret);
				break;
			}
		}
		memset(&chk, 0, sizeof(chk));
		chk.c = c;
		chk.o = o;
		chk.tid = current->pid;
		chk.tgid = current->tgid;
		chk.probe_idx = idx;
		cpumask_copy(&saved_mask, current->cpus_ptr);
		for_each_online_cpu(cpu) {
			struct conf_cpu *cc = per_cpu_ptr(&conf_cpus, cpu);
			unsigned long out0 = cc->to_output;
			unsigned long ovf0 = cc->to_overflow;
			unsigned long drop0 = cc->output_dropped;

			if (set_cpus_allowed_ptr(current, cpumask_of(cpu)))
				continue;
			chk.cpu = cpu;
			for (i = 0; i < nr_samples; i++) {
				struct perf_event *event;
				struct rec r;

				preempt_disable();
				event = cc->event;
				if (smp_processor_id() != cpu || !event ||
				    event->hw.state) {
					preempt_enable();
					fail(o, "%s cpu%d: no running counter",
					     c->name, cpu);
					break;
				}
				make_rec(c, fx, &rnd, &r);
				r.period = event->hw.last_period;
				if (expect_report(c, event, &r,
						  &chk.w[chk.nw]))
					chk.nw++;
				offered++;
				if (!offer(c, cc, event, &r)) {
					preempt_enable();
					fail(o, "%s cpu%d: NMI not delivered",
					     c->name, cpu);
					break;
				}
				preempt_enable();
				if ((i + 1) % BATCH)
					continue;
				/* the CPU budget's path: period x2 or /2 */
				if (!c->freq) {
					u64 p = (i / BATCH) % 2 ?
						c->period : c->period * 2;
					int want = driver_check_period(c, p);

					ret = damon_perf_source_set_period(ctx,
									   idx,
									   p);
					if (ret != want)
						fail(o, "%s: set_period %llu: %d, the driver's check_period wants %d",
						     c->name, p, ret, want);
				}
				drain_check(ctx, cpu);
			}
			if (chk.nw)
				drain_check(ctx, cpu);
			to_output += cc->to_output - out0;
			to_overflow += cc->to_overflow - ovf0;
			dropped += cc->output_dropped - drop0;
			reports += chk.seen;
			chk.seen = 0;
		}
		/*
		 * Only now: a period change disables the counters, and a PMI
		 * pending then lands while the context is still published.
		 */
		for_each_online_cpu(cpu)
			if (!set_cpus_allowed_ptr(current, cpumask_of(cpu)))
				at_stop += pend_at_stop(c, fx, &rnd,
							per_cpu_ptr(&conf_cpus,
								    cpu),
							cpu);
		set_cpus_allowed_ptr(current, &saved_mask);

		mutex_lock(&damon_perf_lock);
		damon_perf_source_disarm(ctx);
		mutex_unlock(&damon_perf_lock);
		/*
		 * The records still buffered went at disarm (del), to
		 * perf_event_output(): no report may come of them.
		 */
		for_each_possible_cpu(cpu) {
			chk.cpu = cpu;
			reports += damon_perf_ring_drain(&ctx->rings, cpu,
							 check_report, NULL);
		}
	}
	damon_perf_stats_aggregate(&after);
	del_lost = at_del_lost() - del_lost;
	for (i = 0; i < ARRAY_SIZE(loss_reasons); i++)
		lost += delta(&before, &after, loss_reasons[i]);
	mutex_lock(&damon_perf_lock);
	damon_perf_rings_free(&ctx->rings);
	mutex_unlock(&damon_perf_lock);

	offered += at_stop;
	say(o, "case %s%s offered %lu reports %lu lost %lu (to perf_event_overflow %lu, to perf_event_output %lu, dropped there %lu) callback +%lu enqueue +%lu at stop %lu teardown +%lu\n",
	    c->name, c->drv == IBS && IBS_72_RULES ? "-72" : "", offered,
	    reports, lost, to_overflow, to_output, dropped,
	    delta(&before, &after, DAMON_PERF_STAT_callback),
	    delta(&before, &after, DAMON_PERF_STAT_enqueue), at_stop,
	    delta(&before, &after, DAMON_PERF_STAT_sample_teardown));
	if (del_lost)
		fail(o, "%s: %lu PMIs at stop never delivered", c->name,
		     del_lost);
	if (delta(&before, &after, DAMON_PERF_STAT_sample_teardown) != at_stop)
		fail(o, "%s: %lu records at stop, sample_teardown +%lu",
		     c->name, at_stop,
		     delta(&before, &after, DAMON_PERF_STAT_sample_teardown));
	if (reports + lost != offered)
		fail(o, "%s: %lu offered, %lu accounted (%lu reports + %lu counted losses)",
		     c->name, offered, reports + lost, reports, lost);
	if (delta(&before, &after, DAMON_PERF_STAT_enqueue) != reports)
		fail(o, "%s: enqueue +%lu, %lu reports drained", c->name,
		     delta(&before, &after, DAMON_PERF_STAT_enqueue), reports);
	i = c->drv == PEBS ? 0 : 1 + IBS_72_RULES;
	offered_total[i] += offered;
	accounted_total[i] += reports + lost;
out_ctx:
	mutex_lock(&damon_perf_lock);
	damon_perf_ctx_destroy(ctx, NULL);
	mutex_unlock(&damon_perf_lock);
	return ret;
}

static int fixture_get(struct fixture *fx)
{
	int n;

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
	/* pinned: the physical addresses stay what the records say */
	n = pin_user_pages_fast(fx->ubuf, NPAGES, FOLL_WRITE | FOLL_LONGTERM,
				fx->upages);
	if (n != NPAGES) {
		if (n > 0)
			unpin_user_pages(fx->upages, n);
		vm_munmap(fx->ubuf, NPAGES * PAGE_SIZE);
		__free_page(fx->kpage);
		return n < 0 ? n : -EFAULT;
	}
	return 0;
}

static void fixture_put(struct fixture *fx)
{
	unpin_user_pages(fx->upages, NPAGES);
	vm_munmap(fx->ubuf, NPAGES * PAGE_SIZE);
	__free_page(fx->kpage);
}

static void run_all(struct out *o)
{
	static struct fixture fx;	/* run_lock */
	unsigned int i;
	int ret;

	ret = fixture_get(&fx);
	if (ret) {
		fail(o, "fixture %d", ret);
		return;
	}
	memset(offered_total, 0, sizeof(offered_total));
	memset(accounted_total, 0, sizeof(accounted_total));
	say(o, "large pebs capacity %u, %u records per CPU per case\n",
	    pebs_capacity, nr_samples);
	WRITE_ONCE(ibs_72, false);
	for (i = 0; i < ARRAY_SIZE(cases); i++)
		run_case(&cases[i], &fx, o);
	WRITE_ONCE(ibs_72, true);
	for (i = 0; i < ARRAY_SIZE(cases); i++)
		if (cases[i].drv == IBS)
			run_case(&cases[i], &fx, o);
	WRITE_ONCE(ibs_72, false);
	fixture_put(&fx);
	if (nmi.not_nmi)
		fail(o, "%d claims outside NMI context", nmi.not_nmi);
	for (i = 0; i < NR_TOTALS; i++)
		say(o, "%s: %lu offered, %lu accounted\n", total_name[i],
		    offered_total[i], accounted_total[i]);
}

/* ------------------------------------------------------------------ */
/* debugfs                                                             */

static struct dentry *dir;

static int __init conform_init(void)
{
	int ret;

	ret = perf_pmu_register(&pebs_pmu, "damon_perf_pebs", -1);
	if (ret)
		return ret;
	ret = perf_pmu_register(&ibs_pmu, "damon_perf_ibs", -1);
	if (ret)
		goto out_pebs;
	ret = register_nmi_handler(NMI_LOCAL, nmi_handler, 0, NAME);
	if (ret)
		goto out_ibs;
	dir = debugfs_create_dir(NAME, NULL);
	debugfs_create_file("run", 0400, dir, run_all, &run_fops);
	return 0;
out_ibs:
	perf_pmu_unregister(&ibs_pmu);
out_pebs:
	perf_pmu_unregister(&pebs_pmu);
	return ret;
}

static void __exit conform_exit(void)
{
	debugfs_remove(dir);
	unregister_nmi_handler(NMI_LOCAL, NAME);
	perf_pmu_unregister(&ibs_pmu);
	perf_pmu_unregister(&pebs_pmu);
}

module_init(conform_init);
module_exit(conform_exit);
MODULE_DESCRIPTION("damon_perf: PMUs that deliver samples as real drivers do");
MODULE_LICENSE("GPL");
DAMON_PERF_IMPORT_KUNIT_NS();
