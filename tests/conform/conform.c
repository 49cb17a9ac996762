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
 *                  path only), each only when sample_type asks. The drain
 *                  first counts each record to the enabled PEBS counters its
 *                  status bits name, as intel_pmu_drain_pebs_icl() (format
 *                  4) or intel_pmu_drain_pebs_nhm() (format 2) of 6.1, 6.12
 *                  and 7.2 do, and drops silently what they drop: a record
 *                  with no enabled PEBS counter's bit (stale; format 2 takes
 *                  it as the counter's own when that counter is the only
 *                  PEBS one), and in format 2 a record with two PEBS
 *                  counters' bits (a collision: perf_log_lost_samples(),
 *                  which writes nothing for a counter without a ring
 *                  buffer). Four cases set such bits on a seeded share of
 *                  records, with or without another PEBS counter enabled.
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
 *                  weight for loads that missed; regs carry the op's
 *                  IbsOpRip (set_linear_ip()). A seeded share of ops is of
 *                  kernel code, another of kernel data addresses; under
 *                  7.2's rules with config2's software filter and
 *                  exclude_kernel the PMI discards both
 *                  (perf_ibs_discard_sample()) before the overflow, as 7.2
 *                  does; 6.1's and 6.12's offer them.
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
 * unpublished the context: it must be counted as sample_teardown.
 *
 * Two accounts are checked per case, from what each record was written as
 * (driver_fate(), expect_report()), not from what the code above did with
 * it. The driver's: every record generated was offered to the handler
 * (perf_event_overflow()) or dropped by the driver, each drop counted by
 * reason where the imitated driver drops it (stale, collision, kernel-ip,
 * kernel-addr; output: perf_event_output() without a ring buffer), the
 * count of each reason as the records say, and offered + dropped =
 * generated. The module's: what was offered is a report or a loss, each
 * perf_stats loss reason growing by exactly the records that must come to
 * it. The module sees only the offered. Output: one line per case, then
 * per driver "<driver>: N offered, N accounted" and "<driver>: G
 * generated, dropped by the driver: stale N collision N kernel-ip N
 * kernel-addr N output N", then "errors N".
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

/*
 * The imitated cpuc of a PEBS case: damon_perf's counter is general counter
 * 0 (cpuc->events[0]); another user's PEBS counter may be enabled as
 * counter 1; counter 2 counts without PEBS (its overflow sets a status bit
 * in records written meanwhile); counter 3 had PEBS and was disabled after
 * writing records still in the buffer. x86_pmu.pebs_events_mask: 4
 * general counters.
 */
#define PEBS_OURS		BIT_ULL(0)
#define PEBS_FOREIGN		BIT_ULL(1)
#define PEBS_NOT_PEBS		BIT_ULL(2)
#define PEBS_GONE		BIT_ULL(3)
#define PEBS_EVENTS_MASK	0xfULL
static u64 pebs_enabled;	/* cpuc->pebs_enabled; run_lock */
static bool pebs_old_fmt;	/* pebs_format 2 (drain_nhm), else 4 (icl) */

/*
 * What became of a record the hardware wrote: offered to the handler
 * (perf_event_overflow()), or dropped by the driver (or the perf core)
 * where the handler never sees it, by reason.
 */
enum fate {
	OFFERED,
	STALE,		/* no status bit of an enabled PEBS counter */
	COLLISION,	/* pebs_format < 3: several PEBS counters' bits */
	KERNEL_IP,	/* IBS, 7.2, exclude_kernel: perf_exclude_event() */
	KERNEL_ADDR,	/* IBS, 7.2, exclude_kernel: a kernel IbsDcLinAd */
	OUTPUT,		/* perf_event_output(): no ring buffer */
	NR_FATES
};

static const char * const fate_name[NR_FATES] = {
	"offered", "stale", "collision", "kernel-ip", "kernel-addr", "output"
};

/* How make_rec() wrote a PEBS record's status bits. */
enum pebs_kind { PLAIN, STALE_BITS, COLLIDING, EXTRA_BIT };

/* One record as the hardware wrote it, and what it must become. */
struct rec {
	unsigned long addr;	/* data linear address (0: none) */
	phys_addr_t paddr;
	u64 period;		/* hw.last_period when written */
	u64 status;		/* PEBS: status / applicable counters */
	enum pebs_kind kind;	/* PEBS: what make_rec() wrote there */
	unsigned long ip;	/* IBS: IbsOpRip */
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
	unsigned long to_output, fate[NR_FATES];
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
		c->fate[OUTPUT]++;
}

static void core_overflow(struct conf_cpu *c, struct perf_event *event,
			  struct perf_sample_data *data, struct pt_regs *regs)
{
	perf_overflow_handler_t handler = READ_ONCE(event->overflow_handler);

	c->fate[OFFERED]++;
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
 * Whether a record of the buffer is damon_perf's counter's, as the drain
 * counts them (6.1, 6.12 and 7.2 alike):
 *
 * pebs_format >= 3, intel_pmu_drain_pebs_icl() (7.2: its
 * __intel_pmu_handle_pebs_record()), and intel_pmu_drain_pebs_nhm() for
 * format 3: the record belongs to each enabled PEBS counter whose bit its
 * status (applicable_counters) has; a record with none belongs to no
 * counter and is dropped, counted nowhere (stale).
 *
 * pebs_format < 3, intel_pmu_drain_pebs_nhm(): status & pebs_enabled &
 * mask; zero with a single PEBS counter enabled is taken as that counter's
 * (p->status rewritten); zero with several is dropped, counted nowhere
 * (find_first_bit() finds no PEBS counter: stale); two or more bits is a
 * collision, dropped for each counter with error[bit]++ and
 * perf_log_lost_samples(), which for a counter without a ring buffer
 * writes nothing (perf_output_begin() fails): the overflow handler sees
 * nothing of it either way. One bit: counts[bit]++, and
 * get_next_pebs_record_by_bit() finds it again after clearing the bits of
 * counters without PEBS.
 */
static enum fate pebs_record_fate(struct rec *p)
{
	u64 enabled = READ_ONCE(pebs_enabled);
	u64 st = p->status & enabled & PEBS_EVENTS_MASK;

	if (!READ_ONCE(pebs_old_fmt))
		return st & PEBS_OURS ? OFFERED : STALE;
	if (!st && enabled && !(enabled & (enabled - 1))) {
		p->status = enabled;
		st = enabled;
	}
	if (!st)
		return STALE;
	if (st != (st & -st))
		return COLLISION;
	/* a record of another counter alone: never written for ours */
	return st == PEBS_OURS ? OFFERED : STALE;
}

/*
 * __intel_pmu_pebs_event() for the records the drain counted (above):
 * @iregs NULL for a drain outside the PMI (dummy_iregs there).
 */
static void pebs_drain(struct conf_cpu *c, struct perf_event *event,
		       struct pt_regs *iregs)
{
	static struct pt_regs dummy_iregs;
	struct perf_sample_data data;
	unsigned int i, k, n = c->n;
	enum fate f;

	c->n = 0;
	/* a plain counter's PMI (no precise_ip) has no PEBS record */
	for (i = 0, k = 0; i < n; i++) {
		f = event->attr.precise_ip ?
		    pebs_record_fate(&c->ds[i]) : OFFERED;
		if (f == OFFERED)
			c->ds[k++] = c->ds[i];
		else
			c->fate[f]++;
	}
	for (i = 0; i < k; i++) {
		pebs_setup(event, &c->ds[i], &data);
		if (i + 1 < k || !iregs)
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

/* kernel_ip() of arch/x86/events/perf_event.h (64-bit) */
static bool ibs_kernel_ip(unsigned long ip)
{
	return (long)ip < 0;
}

/*
 * perf_ibs_discard_sample() of 7.2, called by perf_ibs_handle_irq() when
 * the CPU has the RIP[63] filter or config2 asks the software filter; the
 * PMU imitates a CPU without the former. perf_exclude_event() drops an op
 * whose IbsOpRip is in the kernel (set_linear_ip() made regs say so) under
 * exclude_kernel; then, under exclude_kernel, an op whose valid IbsDcLinAd
 * is a kernel address when sample_type has PERF_SAMPLE_ADDR or RAW
 * (perf_ibs_is_kernel_data_addr(): any op, load, store or neither). The
 * driver counts neither; only perf_event_account_interrupt() sees them.
 */
static enum fate ibs_discard(struct perf_event *event, const struct rec *r,
			     struct pt_regs *regs)
{
	const struct perf_event_attr *attr = &event->attr;

	if (!IBS_72_RULES || !(attr->config2 & IBS_SW_FILTER_MASK))
		return OFFERED;
	if (attr->exclude_kernel && !user_mode(regs))
		return KERNEL_IP;
	if (attr->exclude_kernel &&
	    (attr->sample_type & (PERF_SAMPLE_ADDR | PERF_SAMPLE_RAW)) &&
	    r->lin_valid && ibs_kernel_ip(r->addr))
		return KERNEL_ADDR;
	return OFFERED;
}

/*
 * perf_ibs_handle_irq() with perf_ibs_parse_ld_st_data() of 6.1; under 7.2
 * rules with its software filter (ibs_discard()).
 */
static void ibs_irq(struct conf_cpu *c, struct perf_event *event,
		    struct pt_regs *iregs)
{
	u64 type = event->attr.sample_type;
	const struct rec *r = &c->ibs;
	struct perf_sample_data data;
	struct pt_regs regs = *iregs;
	enum fate f;

	/* set_linear_ip(): the op's IbsOpRip, its mode by kernel_ip() */
	regs.cs = ibs_kernel_ip(r->ip) ? __KERNEL_CS : __USER_CS;
	regs.ip = r->ip;
	regs.flags |= PERF_EFLAGS_EXACT;
	f = ibs_discard(event, r, &regs);
	if (f != OFFERED) {
		c->fate[f]++;
		return;
	}
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
	core_overflow(c, event, &data, &regs);
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
	/* PEBS: pebs_format 2, not 4; another PEBS counter enabled */
	bool old_fmt, foreign;
	bool mix;		/* PEBS: stale and colliding status bits */
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
	/*
	 * Status bits as the hardware leaves them: stale, a counter without
	 * PEBS, another PEBS counter's. Format 4 with another PEBS counter:
	 * stale records dropped. Format 2 with it: stale records and
	 * collisions dropped. Format 2 alone: every record kept.
	 */
	{ .name = "pebs-fmt4-stale", .drv = PEBS,
	  .ops = DAMON_PERF_OPS_VADDR, .period = 1000, .precise_ip = 2,
	  .foreign = true, .mix = true },
	{ .name = "pebs-fmt2-collide", .drv = PEBS,
	  .ops = DAMON_PERF_OPS_VADDR, .period = 1000, .precise_ip = 2,
	  .old_fmt = true, .foreign = true, .mix = true },
	{ .name = "pebs-fmt2-collide-paddr", .drv = PEBS,
	  .ops = DAMON_PERF_OPS_PADDR, .period = 20011, .precise_ip = 3,
	  .phys = true, .old_fmt = true, .foreign = true, .mix = true },
	{ .name = "pebs-fmt2-alone", .drv = PEBS,
	  .ops = DAMON_PERF_OPS_VADDR, .period = 1000, .precise_ip = 2,
	  .old_fmt = true, .mix = true },
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
	{ "ibs-op-paddr-exclk-swfilt", IBS, DAMON_PERF_OPS_PADDR, 0x4000,
	  false, 0, 0, true, false, true, false, IBS_SW_FILTER_MASK },
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
	r->status = PEBS_OURS;
	if (c->drv == PEBS && c->mix && c->precise_ip) {
		static const u64 stale[] = { 0, PEBS_NOT_PEBS, PEBS_GONE };

		switch ((x >> 49) & 7) {
		case 0:
			r->kind = STALE_BITS;
			r->status = stale[((x >> 52) & 3) % ARRAY_SIZE(stale)];
			break;
		case 1:
			if (c->foreign) {
				r->kind = COLLIDING;
				r->status |= PEBS_FOREIGN;
				break;
			}
			fallthrough;
		case 2:
			r->kind = EXTRA_BIT;
			r->status |= PEBS_NOT_PEBS;
			break;
		}
	}
	/* IBS: an op of kernel code on a seeded share, of user code else */
	r->ip = (x >> 49) & 7 ? 0x401000UL + ((x >> 8) & 0xfff) :
				(unsigned long)ibs_irq;
	if (c->drv == PEBS ? !c->excl_kernel && !((x >> 45) & 15) :
			     !((x >> 52) & 7)) {
		/* an access to a kernel (linear map) address */
		r->addr = (unsigned long)page_address(fx->kpage) + off;
		r->paddr = page_to_phys(fx->kpage) + off;
	} else {
		r->addr = fx->ubuf + pg * PAGE_SIZE + off;
		r->paddr = page_to_phys(fx->upages[pg]) + off;
	}
}

/*
 * What the driver does with @r, said from how make_rec() wrote it and the
 * case, not from its bits: the module cannot see what this drops.
 */
static enum fate driver_fate(const struct tcase *c, struct perf_event *event,
			     const struct rec *r)
{
	if (c->drv == PEBS) {
		if (!event->attr.precise_ip)
			return OFFERED;
		switch (r->kind) {
		case STALE_BITS:
			/* format 2 with one PEBS counter takes it as its own */
			return c->old_fmt && !c->foreign ? OFFERED : STALE;
		case COLLIDING:
			return c->old_fmt ? COLLISION : OFFERED;
		default:
			return OFFERED;
		}
	}
	/* 7.2, exclude_kernel with the software filter: kernel ops, data */
	if (!IBS_72_RULES || !c->excl_kernel ||
	    !(c->config2 & IBS_SW_FILTER_MASK))
		return OFFERED;
	if ((long)r->ip < 0)
		return KERNEL_IP;
	if (r->lin_valid && (long)r->addr < 0 &&
	    (event->attr.sample_type & PERF_SAMPLE_ADDR))
		return KERNEL_ADDR;
	return OFFERED;
}

/*
 * What a report of @r must hold; the reason perf_stats must count @r
 * under: DAMON_PERF_SAMPLE_VALID for a report.
 */
static enum damon_perf_sample_reason
expect_report(const struct tcase *c, struct perf_event *event,
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
		if (w->paddr)
			return DAMON_PERF_SAMPLE_VALID;
		if (!w->vaddr)
			return DAMON_PERF_SAMPLE_ADDR_ZERO;
		return type & PERF_SAMPLE_PHYS_ADDR ?
		       DAMON_PERF_SAMPLE_UNTRANSLATED :
		       DAMON_PERF_SAMPLE_NO_PHYS;
	}
	if (w->vaddr)
		/* a vaddr report carries a flagged paddr as it is */
		return w->vaddr < TASK_SIZE_MAX ? DAMON_PERF_SAMPLE_VALID :
						  DAMON_PERF_SAMPLE_KERNEL;
	return w->paddr ? DAMON_PERF_SAMPLE_PHYS_ONLY :
			  DAMON_PERF_SAMPLE_ADDR_ZERO;
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

#define NR_WHY	(DAMON_PERF_SAMPLE_TEARDOWN + 1)
#define NO_WHY	-1	/* a loss no record of a case may come to */

/*
 * The loss reasons of perf_stats: every sample offered to the handler is a
 * report or one of them, the reason expect_report() says.
 */
static const struct {
	enum damon_perf_stat_idx idx;
	int why;
	const char *name;
} loss_reasons[] = {
	{ DAMON_PERF_STAT_sample_null, DAMON_PERF_SAMPLE_NULL, "null" },
	{ DAMON_PERF_STAT_sample_addr_zero, DAMON_PERF_SAMPLE_ADDR_ZERO,
	  "addr_zero" },
	{ DAMON_PERF_STAT_sample_kernel, DAMON_PERF_SAMPLE_KERNEL, "kernel" },
	{ DAMON_PERF_STAT_sample_invalid_phys, DAMON_PERF_SAMPLE_INVALID_PHYS,
	  "invalid_phys" },
	{ DAMON_PERF_STAT_sample_no_phys, DAMON_PERF_SAMPLE_NO_PHYS,
	  "no_phys" },
	{ DAMON_PERF_STAT_sample_untranslated, DAMON_PERF_SAMPLE_UNTRANSLATED,
	  "untranslated" },
	{ DAMON_PERF_STAT_sample_phys_only, DAMON_PERF_SAMPLE_PHYS_ONLY,
	  "phys_only" },
	{ DAMON_PERF_STAT_overflow, NO_WHY, "overflow" },
	{ DAMON_PERF_STAT_busy_drop, NO_WHY, "busy_drop" },
	{ DAMON_PERF_STAT_no_probe, NO_WHY, "no_probe" },
	{ DAMON_PERF_STAT_no_ring, NO_WHY, "no_ring" },
	{ DAMON_PERF_STAT_sample_teardown, DAMON_PERF_SAMPLE_TEARDOWN,
	  "teardown" },
};

/* What the records of a case written so far must come to. */
struct tally {
	unsigned long generated;	/* records the hardware wrote */
	unsigned long fate[NR_FATES];	/* offered, or dropped by reason */
	unsigned long why[NR_WHY];	/* of the offered: report, loss */
};

/*
 * Count @r in @t. Return: true if a report must come of it (then
 * described in @w).
 */
static bool predict(const struct tcase *c, struct perf_event *event,
		    const struct rec *r, struct want *w, struct tally *t,
		    bool at_stop)
{
	enum fate f = driver_fate(c, event, r);
	enum damon_perf_sample_reason why;

	t->generated++;
	t->fate[f]++;
	if (f != OFFERED)
		return false;
	why = at_stop ? DAMON_PERF_SAMPLE_TEARDOWN :
			expect_report(c, event, r, w);
	t->why[why]++;
	return why == DAMON_PERF_SAMPLE_VALID;
}

/* The fates the imitated drivers counted, summed over every CPU. */
static void fates_now(unsigned long *fate)
{
	int cpu, f;

	memset(fate, 0, NR_FATES * sizeof(*fate));
	for_each_possible_cpu(cpu)
		for (f = 0; f < NR_FATES; f++)
			fate[f] += per_cpu_ptr(&conf_cpus, cpu)->fate[f];
}

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
 * counted, as sample_teardown, unless the driver drops it first. Return: 1
 * if left pending.
 */
static unsigned int pend_at_stop(const struct tcase *c,
				 const struct fixture *fx, u64 *rnd,
				 struct conf_cpu *cc, int cpu, struct tally *t)
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
		predict(c, event, &r, NULL, t, true);
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
static unsigned long generated_total[NR_TOTALS];
static unsigned long fate_total[NR_TOTALS][NR_FATES];

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
	unsigned long reports = 0, lost = 0, dropped = 0, got, want;
	unsigned long fate0[NR_FATES], fate[NR_FATES], to_output;
	unsigned long at_stop = 0, del_lost;
	struct tally t = {};
	struct damon_perf_ctx *ctx;
	const char *sep;
	unsigned int round, j;
	u64 rnd = seed ^ (u64)(c - cases) * 0x100000001b3ULL;
	int cpu, idx, ret;
	unsigned int i;

	pa.type = c->drv == PEBS ? pebs_pmu.type : ibs_pmu.type;
	/* the imitated cpuc and PEBS format of the case */
	WRITE_ONCE(pebs_old_fmt, c->old_fmt);
	WRITE_ONCE(pebs_enabled, PEBS_OURS | (c->foreign ? PEBS_FOREIGN : 0));
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
	fates_now(fate0);
	to_output = 0;
	for_each_possible_cpu(cpu)
		to_output -= per_cpu_ptr(&conf_cpus, cpu)->to_output;
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
				if (predict(c, event, &r, &chk.w[chk.nw], &t,
					    false))
					chk.nw++;
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
							cpu, &t);
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
	fates_now(fate);
	for_each_possible_cpu(cpu)
		to_output += per_cpu_ptr(&conf_cpus, cpu)->to_output;
	del_lost = at_del_lost() - del_lost;
	mutex_lock(&damon_perf_lock);
	damon_perf_rings_free(&ctx->rings);
	mutex_unlock(&damon_perf_lock);

	for (i = 0; i < NR_FATES; i++) {
		fate[i] -= fate0[i];
		if (i != OFFERED)
			dropped += fate[i];
	}
	for (i = 0; i < ARRAY_SIZE(loss_reasons); i++)
		lost += delta(&before, &after, loss_reasons[i].idx);
	say(o, "case %s%s generated %lu offered %lu reports %lu lost %lu (",
	    c->name, c->drv == IBS && IBS_72_RULES ? "-72" : "", t.generated,
	    fate[OFFERED], reports, lost);
	sep = "";
	for (i = 0; i < ARRAY_SIZE(loss_reasons); i++) {
		got = delta(&before, &after, loss_reasons[i].idx);
		if (got) {
			say(o, "%s%s %lu", sep, loss_reasons[i].name, got);
			sep = ", ";
		}
	}
	say(o, ") dropped by the driver %lu (", dropped);
	for (i = OFFERED + 1; i < NR_FATES; i++)
		say(o, "%s%s %lu", i == OFFERED + 1 ? "" : ", ", fate_name[i],
		    fate[i]);
	say(o, ") to perf_event_output %lu callback +%lu enqueue +%lu at stop %lu\n",
	    to_output, delta(&before, &after, DAMON_PERF_STAT_callback),
	    delta(&before, &after, DAMON_PERF_STAT_enqueue), at_stop);
	if (del_lost)
		fail(o, "%s: %lu PMIs at stop never delivered", c->name,
		     del_lost);
	/* what the driver did: as the records written say, nothing lost */
	for (i = 0; i < NR_FATES; i++)
		if (fate[i] != t.fate[i])
			fail(o, "%s: the driver's %s %lu, its records say %lu",
			     c->name, fate_name[i], fate[i], t.fate[i]);
	if (fate[OFFERED] + dropped != t.generated)
		fail(o, "%s: %lu offered + %lu dropped by the driver, %lu generated",
		     c->name, fate[OFFERED], dropped, t.generated);
	/* what damon_perf did with what it was offered: each by reason */
	if (reports + lost != fate[OFFERED])
		fail(o, "%s: %lu offered, %lu accounted (%lu reports + %lu counted losses)",
		     c->name, fate[OFFERED], reports + lost, reports, lost);
	if (reports != t.why[DAMON_PERF_SAMPLE_VALID])
		fail(o, "%s: %lu reports, %lu records the driver offered make one",
		     c->name, reports, t.why[DAMON_PERF_SAMPLE_VALID]);
	for (i = 0; i < ARRAY_SIZE(loss_reasons); i++) {
		got = delta(&before, &after, loss_reasons[i].idx);
		want = loss_reasons[i].why == NO_WHY ? 0 :
		       t.why[loss_reasons[i].why];
		if (got != want)
			fail(o, "%s: %s +%lu, the records offered make %lu",
			     c->name, loss_reasons[i].name, got, want);
	}
	if (delta(&before, &after, DAMON_PERF_STAT_enqueue) != reports)
		fail(o, "%s: enqueue +%lu, %lu reports drained", c->name,
		     delta(&before, &after, DAMON_PERF_STAT_enqueue), reports);
	i = c->drv == PEBS ? 0 : 1 + IBS_72_RULES;
	offered_total[i] += fate[OFFERED];
	accounted_total[i] += reports + lost;
	generated_total[i] += t.generated;
	for (j = 0; j < NR_FATES; j++)
		fate_total[i][j] += fate[j];
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
	unsigned int i, j;
	int ret;

	ret = fixture_get(&fx);
	if (ret) {
		fail(o, "fixture %d", ret);
		return;
	}
	memset(offered_total, 0, sizeof(offered_total));
	memset(generated_total, 0, sizeof(generated_total));
	memset(fate_total, 0, sizeof(fate_total));
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
	for (i = 0; i < NR_TOTALS; i++) {
		say(o, "%s: %lu offered, %lu accounted\n", total_name[i],
		    offered_total[i], accounted_total[i]);
		/* apart: what the driver dropped, the module never saw */
		say(o, "%s: %lu generated, dropped by the driver:",
		    total_name[i], generated_total[i]);
		for (j = OFFERED + 1; j < NR_FATES; j++)
			say(o, " %s %lu", fate_name[j], fate_total[i][j]);
		say(o, "\n");
	}
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
