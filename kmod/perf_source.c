// SPDX-License-Identifier: GPL-2.0
/*
 * Perf probes: turn perf overflow samples into access reports.
 *
 * A probe is a perf_event_attr chosen by userspace. While its context runs,
 * the probe owns one kernel counter per online CPU; a cpuhp multi-instance
 * state tells it about CPUs coming and going, and a work item then creates
 * or releases their counters so that every online CPU keeps exactly one.
 * Every counter calls overflow() with the probe's
 * &struct damon_perf_source as its context; overflow() classifies the sample
 * through the observe API and pushes a &struct damon_perf_report into the
 * owning context's report ring.
 *
 * Lifetimes (see Documentation/probes.rst):
 *  - the rings exist before arm() creates the first counter (ctx.c);
 *  - disarm() clears src->ctx with a release store, removes the cpuhp
 *    instance, releases every counter, waits for an RCU grace period so
 *    that no handler still runs with a pointer it read earlier, and only
 *    then frees the per-probe state; ctx.c frees the rings afterwards.
 *
 * A PMU type is driven by at most one context: the owner table of
 * probe.c, which also validates and adds the probes, sees to that. The
 * address of a sample is translated by addr.c.
 */
#include <linux/atomic.h>
#include <linux/cpu.h>
#include <linux/capability.h>
#include <linux/cpuhotplug.h>
#include <linux/cred.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/netlink.h>
#include <linux/percpu.h>
#include <linux/perf_event.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "addr.h"
#include "ctx_types.h"
#include "fault.h"
#include "perf_source.h"
#include "ring.h"
#include "stats.h"

/* Largest sample_period (uapi): 48-bit hardware counters. */
#define MAX_SAMPLE_PERIOD	((u64)DAMON_PERF_SAMPLE_PERIOD_MAX)

/*
 * Module frequency mode (swevent_freq()): the probe's events are measured
 * first after FREQ_FIRST_NS (its period starts at 1), then over at least
 * FREQ_ADAPT_NS each, long enough to average out the stalls of a busy
 * machine (a measurement that mostly saw a stall would give a period that
 * samples the next one several times over), and its period is changed
 * only when they ask for one more than a factor 1.5 away from it.
 */
#define FREQ_FIRST_NS		(NSEC_PER_SEC / 100)
#define FREQ_ADAPT_NS		(NSEC_PER_SEC / 10)

struct src_cpu {
	struct perf_event *event;	/* NULL when offline or failed */
	int err;			/* last creation error, 0 if none */
	/*
	 * Time spent in overflow() on this CPU: this_cpu_add() by the
	 * handler, READ_ONCE() by the kdamond (budget.c).
	 */
	u64 handler_ns;
	/*
	 * Module frequency mode (swevent_freq()), src->lock: the counter's
	 * count at the last measurement.
	 */
	u64 freq_count;
};

/**
 * struct damon_perf_source - The armed per-CPU counters of one probe.
 * @ctx:	owning context read by the overflow handler; NULL once
 *		teardown began.
 * @owner:	owning context for process-context bookkeeping (never NULL).
 * @probe_idx:	1-based index of the probe in @owner.
 * @attr:	the perf attributes every CPU's counter is created with.
 * @cpu:	per-CPU counter and last creation error.
 * @cpu_state:	per-CPU lifecycle state (observe API).
 * @nr_active:	CPUs with a live counter.
 * @nr_failed:	counter creations that failed since arm.
 * @last_err:	last creation error.
 * @last_err_cpu: CPU of @last_err.
 * @node:	cpuhp instance.
 * @cred:	credentials of the task that armed the probe; every counter,
 *		also one created when a CPU comes back online, is checked
 *		and created with them.
 * @sync:	work that creates and releases the per-CPU counters.
 * @lock:	serializes @sync with arm and disarm; protects @cpu and the
 *		counts. Taken outside cpus_read_lock(), never in cpuhp
 *		callbacks.
 * @period:	the sample period in force (@attr.sample_period), 0 in
 *		frequency mode; written under @lock with WRITE_ONCE.
 * @freq:	the probe's sample_freq when the module adapts the period
 *		itself (swevent_freq(); @attr is then in period mode, from
 *		1), else 0.
 * @freq_ns:	ktime_get_ns() of the last measurement in that mode; @lock.
 * @freq_seen:	a measurement in that mode counted events; @lock.
 */
struct damon_perf_source {
	struct damon_perf_ctx *ctx;
	struct damon_perf_ctx *owner;
	unsigned int probe_idx;
	struct perf_event_attr attr;
	struct src_cpu __percpu *cpu;
	int __percpu *cpu_state;
	unsigned int nr_active;
	unsigned int nr_failed;
	int last_err;
	int last_err_cpu;
	struct hlist_node node;
	const struct cred *cred;
	struct work_struct sync;
	struct mutex lock;	/* see @lock above */
	u64 period;
	u64 freq;
	u64 freq_ns;
	bool freq_seen;
};

static enum cpuhp_state hp_state;

/*
 * Keeps a context's sources alive for its kdamond (the CPU budget), which
 * never takes damon_perf_lock: disarm frees them under it. Taken after
 * damon_perf_lock, before &damon_perf_source.lock.
 */
static DEFINE_MUTEX(period_lock);

/* Address of a sample, by what the sample says it carries. */
static bool sample_has(const struct perf_sample_data *data, u64 flag)
{
	return data->sample_flags & flag;
}

/* The sample's data address, 0 when it has none (compat/compat.h). */
static unsigned long sample_vaddr(const struct perf_sample_data *data)
{
	return damon_perf_sample_addr(data);
}

/*
 * The overflow handler. Runs in NMI (hardware PMUs), hard IRQ (hrtimer
 * software events) or process context with preemption disabled under
 * rcu_read_lock() (page faults and other software events): no locks, no
 * allocation, no printk.
 */
static void handle(struct damon_perf_source *src,
		   const struct perf_event *event,
		   struct perf_sample_data *data)
{
	u64 type = event->attr.sample_type;
	struct damon_perf_report report = {
		.size = PAGE_SIZE,
		.src = DAMON_PERF_SRC_OVERFLOW,
	};
	enum damon_perf_sample_reason why;
	struct damon_perf_ctx *ctx;
	unsigned long addr, vaddr;
	u64 data_src = 0;

	/* Pairs with smp_store_release() in disarm() and arm_probe(). */
	ctx = smp_load_acquire(&src->ctx);
	if (!ctx) {
		/* disarm() has begun: the counter is going, no ring to fill */
		damon_perf_observe_sample(0, 0, data ? data->period : 0,
					  DAMON_PERF_SAMPLE_TEARDOWN, 0, type);
		return;
	}
	if (WARN_ONCE(!src->probe_idx, "damon_perf: sample with probe_idx 0\n"))
		return;

	if (!data) {
		damon_perf_observe_sample(0, 0, 0, DAMON_PERF_SAMPLE_NULL, 0,
					  type);
		return;
	}

	vaddr = sample_vaddr(data);
	report.vaddr = vaddr & PAGE_MASK;
	if (sample_has(data, PERF_SAMPLE_PHYS_ADDR))
		report.paddr = data->phys_addr & PAGE_MASK;
	if (sample_has(data, PERF_SAMPLE_DATA_SRC)) {
		data_src = data->data_src.val;
		report.is_write = !!(data->data_src.mem_op & PERF_MEM_OP_STORE);
	}
	/* perf_sample_data_init() always sets it: the events this stands for */
	report.period = data->period;

	if (ctx->ops == DAMON_PERF_OPS_PADDR) {
		/*
		 * A custom handler runs before perf_prepare_sample(), which
		 * is where perf fills phys_addr for PMUs that leave it to the
		 * core (software events, Intel PEBS): translate here, when
		 * the probe asked for physical addresses.
		 */
		if (!report.paddr && vaddr && (type & PERF_SAMPLE_PHYS_ADDR)) {
			report.paddr = damon_perf_virt_to_phys(vaddr) &
				       PAGE_MASK;
			if (report.paddr)
				damon_perf_observe_translated();
		}
		addr = report.paddr;
		if (addr)
			why = pfn_valid(PHYS_PFN(addr)) ?
			      DAMON_PERF_SAMPLE_VALID :
			      DAMON_PERF_SAMPLE_INVALID_PHYS;
		else if (!vaddr)
			why = DAMON_PERF_SAMPLE_ADDR_ZERO;
		else if (!(type & PERF_SAMPLE_PHYS_ADDR))
			why = DAMON_PERF_SAMPLE_NO_PHYS;
		else
			why = DAMON_PERF_SAMPLE_UNTRANSLATED;
		if (!addr)
			addr = vaddr;	/* traced: what there was */
	} else {
		addr = report.vaddr;
		if (addr)
			why = damon_perf_user_vaddr(addr) ?
				DAMON_PERF_SAMPLE_VALID :
				DAMON_PERF_SAMPLE_KERNEL;
		else if (report.paddr)
			/* a physical address alone names no process page */
			why = DAMON_PERF_SAMPLE_PHYS_ONLY;
		else
			why = DAMON_PERF_SAMPLE_ADDR_ZERO;
		if (why == DAMON_PERF_SAMPLE_PHYS_ONLY)
			addr = report.paddr;
		if (report.paddr && !pfn_valid(PHYS_PFN(report.paddr)))
			report.paddr = 0;
	}
	damon_perf_observe_sample(addr, data_src, data->period, why,
				  data->sample_flags, type);
	if (why != DAMON_PERF_SAMPLE_VALID)
		return;

	report.time_ns = damon_perf_clock_ns();
	report.cpu = smp_processor_id();
	/* Global ids: the drain compares them with pid_nr() of its targets. */
	report.tid = current->pid;
	report.tgid = current->tgid;
	report.probe_idx = src->probe_idx;
	damon_perf_report_access(&ctx->rings, &report);
}

/*
 * The handler's own cost, for the CPU budget: local_clock() is NMI-safe
 * and cheap, and both reads happen on this CPU with preemption off.
 */
static void overflow(struct perf_event *event, struct perf_sample_data *data,
		     struct pt_regs *regs)
{
	struct damon_perf_source *src = event->overflow_handler_context;
	u64 start = local_clock(), ns;

	handle(src, event, data);
	ns = local_clock() - start;
	this_cpu_add(src->cpu->handler_ns, ns);
	damon_perf_observe_handler_ns(ns);
}

/*
 * Whether the module, not the perf core, adapts the period of a frequency
 * mode probe: events counted by perf_swevent_event() (software events but
 * the hrtimer ones, tracepoints). For them the perf core's adaptation runs
 * away (6.1, 6.12 and 7.2 alike): perf_swevent_set_period() stores the new
 * sample_period in hw.last_period before __perf_event_account_interrupt()
 * passes hw.last_period to perf_adjust_period() as the events of the
 * interval that just ended, while that interval was armed with the
 * previous last_period. From the start period 1, each overflow less than
 * two ticks after the one before multiplies the period by up to
 * count/(elapsed x sample_freq): a burst of page faults 24 us apart takes
 * it from 1 to 53, 2807 and 148654 in three overflows. Nothing shortens
 * the armed interval afterwards: perf_adjust_period() resets period_left
 * only when it is above 8 x the new period, and a software event's
 * period_left counts up from minus the period, so the tick's lower
 * period waits until the huge interval has been counted out, and the
 * next one is armed with the last_period stored meanwhile. Userspace
 * perf (perf record -F) runs the same code and gets the same few samples.
 * The hrtimer events (cpu-clock, task-clock) turn a frequency into a
 * fixed period of their own (perf_swevent_init_hrtimer()) and are left to
 * the kernel, as are kprobes and uprobes (dynamic types; no data address).
 */
static bool swevent_freq(const struct damon_perf_probe_attr *pa)
{
	if (!pa->freq)
		return false;
	if (pa->type == PERF_TYPE_TRACEPOINT)
		return true;
	return pa->type == PERF_TYPE_SOFTWARE &&
	       pa->config != PERF_COUNT_SW_CPU_CLOCK &&
	       pa->config != PERF_COUNT_SW_TASK_CLOCK;
}

static void build_attr(const struct damon_perf_probe_attr *pa,
		       struct perf_event_attr *attr)
{
	/*
	 * No PERF_SAMPLE_PERIOD: the handler reads data->period, which
	 * perf_sample_data_init() always fills, and with PERF_SAMPLE_PERIOD
	 * in sample_type and freq off perf_swevent_event() (software,
	 * tracepoint, kprobe and uprobe events) overflows on every event,
	 * whatever sample_period says (6.1 to 7.2 alike).
	 */
	u64 type = PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC;

	/*
	 * Physical addresses cost the PMU a page-table walk per sample (or
	 * are not provided at all): only when asked.
	 */
	if (pa->sample_phys_addr)
		type |= PERF_SAMPLE_PHYS_ADDR;
	if (pa->sample_weight_struct)
		type |= PERF_SAMPLE_WEIGHT_STRUCT;

	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = pa->type;
	attr->config = pa->config;
	attr->config1 = pa->config1;
	attr->config2 = pa->config2;
	attr->sample_type = type;
	/*
	 * Module frequency mode: a fixed period, from 1 as the perf core
	 * starts (perf_event_alloc()), that damon_perf_source_adapt() moves.
	 */
	attr->freq = pa->freq && !swevent_freq(pa);
	if (attr->freq)
		attr->sample_freq = pa->sample_period;
	else if (pa->freq)
		attr->sample_period = 1;
	else
		attr->sample_period = pa->sample_period;
	/*
	 * Never 0: with wakeup_events 0 and a fixed period, Intel's
	 * intel_pmu_hw_config() (6.1 to 7.2) turns on PEBS auto-reload and,
	 * for this sample_type, large PEBS, whose drain hands every record
	 * but the last of each PMI, and all of them when it drains at
	 * disable or a period change, to perf_event_output(); a kernel
	 * counter has no ring buffer, so those records never reach the
	 * overflow handler. Any wakeup_events without watermark keeps one
	 * PMI per record, each through perf_event_overflow(). Without a ring
	 * buffer it changes nothing else.
	 */
	attr->wakeup_events = max(pa->wakeup_events, 1U);
	attr->watermark = 0;
	attr->precise_ip = pa->precise_ip;
	attr->exclude_kernel = pa->exclude_kernel;
	attr->exclude_hv = pa->exclude_hv;
	attr->exclude_user = pa->exclude_user;
	attr->pinned = 1;
	/* Enabled by get_counter() once the counter is fully set up. */
	attr->disabled = 1;
}

static void note_failure(struct damon_perf_source *src, int cpu, int err)
{
	struct damon_perf_ctx *ctx = src->owner;

	per_cpu_ptr(src->cpu, cpu)->err = err;
	WRITE_ONCE(src->nr_failed, src->nr_failed + 1);
	WRITE_ONCE(src->last_err, err);
	WRITE_ONCE(src->last_err_cpu, cpu);
	atomic_inc(&ctx->arm_failures);
}

/*
 * Create, then enable, @cpu's counter. src->lock held. @arming: called by
 * arm, which must hear of every failure; the sync work instead ignores
 * ENODEV, which the perf core returns for a CPU already on its way down
 * (perf's own teardown runs before cpu_online() turns false), and lets the
 * sync queued by that CPU's offline callback settle it.
 */
/*
 * What perf_event_open() checks for @attr that the kernel-counter path
 * does not, for the credentials in force (the requester's, see
 * get_counter()). Followed: sys_perf_event_open() and perf_copy_attr() of
 * 6.1, 6.12 and 7.2; Documentation/probes.rst lists the same.
 *
 * The perf core applies perf_allow_cpu() to every CPU-wide counter, kernel
 * ones included (find_get_context()): perf_event_paranoid against
 * perfmon_capable(), then the LSM perf_event_open hook; and the LSM
 * perf_event_alloc hook at allocation. Both use the current credentials,
 * hence the override. What only perf_event_open() adds, and applies to
 * the attributes build_attr() can make:
 *
 * - perf_paranoid_any() (Debian's perf_event_paranoid 3): CAP_SYS_ADMIN,
 *   CAP_PERFMON not being enough (damon_perf_allow_any(), compat/).
 * - perf_allow_kernel() unless exclude_kernel, and again for
 *   PERF_SAMPLE_PHYS_ADDR whatever exclude_kernel says. Its paranoid test
 *   is implied by perf_allow_cpu() having passed (paranoid <= 0, or
 *   perfmon_capable()); its LSM hook (PERF_SECURITY_KERNEL) cannot be
 *   called on 6.1, which exports neither security_perf_event_open() nor
 *   perf_allow_kernel() (an inline there). Where the kernel exports
 *   perf_allow_kernel() (6.12, 7.2), it is called.
 *
 * What does not apply, since build_attr() never sets it: REGS_INTR
 * (lockdown), branch stacks at kernel or hypervisor level
 * (perf_allow_kernel() in perf_copy_attr()), kernel callchains (7.2),
 * text_poke, namespaces, sigtrap, cgroups and task counters (ptrace).
 * validate() bounds sample_freq by perf_event_max_sample_rate's default
 * and sample_period far below bit 63. Tracepoints are checked by the tracepoint
 * PMU itself (perf_trace_event_perm()), at creation, with these
 * credentials too.
 */
static int may_open(const struct perf_event_attr *attr)
{
	int err;

	err = damon_perf_allow_any();
	if (err)
		return err;
	if (!attr->exclude_kernel ||
	    (attr->sample_type & PERF_SAMPLE_PHYS_ADDR))
		return damon_perf_allow_kernel();
	return 0;
}

static void get_counter(struct damon_perf_source *src, int cpu, bool arming)
{
	struct src_cpu *pc = per_cpu_ptr(src->cpu, cpu);
	struct perf_event *event;
	const struct cred *old;
	int state, err;

	/*
	 * Every check perf makes uses the current credentials, and the sync
	 * work (a CPU came online) runs as a kworker: act as the requester.
	 */
	old = override_creds(src->cred);
	err = may_open(&src->attr);
	if (err)
		event = ERR_PTR(err);
	else
		event = perf_event_create_kernel_counter(&src->attr, cpu, NULL,
							 overflow, src);
	revert_creds(old);
	if (IS_ERR(event)) {
		if (PTR_ERR(event) != -ENODEV || (arming && cpu_online(cpu)))
			note_failure(src, cpu, PTR_ERR(event));
		return;
	}
	damon_perf_observe_event_state(src->cpu_state, cpu,
				       DAMON_PERF_STATE_CREATED);
	/* The create call installed it in @cpu's perf context. */
	damon_perf_observe_event_state(src->cpu_state, cpu,
				       DAMON_PERF_STATE_BOUND);

	perf_event_enable(event);
	/*
	 * Enabled counters are INACTIVE or ACTIVE. A pinned one that cannot
	 * get onto its PMU goes to ERROR; one whose CPU went offline meanwhile
	 * stays OFF.
	 */
	state = READ_ONCE(event->state);
	if (state < PERF_EVENT_STATE_INACTIVE) {
		perf_event_release_kernel(event);
		damon_perf_observe_event_destroyed(src->cpu_state, cpu);
		if (state == PERF_EVENT_STATE_ERROR)
			note_failure(src, cpu, -EBUSY);
		return;
	}
	damon_perf_observe_event_state(src->cpu_state, cpu,
				       DAMON_PERF_STATE_ENABLED);
	pc->event = event;
	pc->err = 0;
	pc->freq_count = 0;
	WRITE_ONCE(src->nr_active, src->nr_active + 1);
}

/* Disable and release @cpu's counter. src->lock held. */
static void put_counter(struct damon_perf_source *src, int cpu)
{
	struct src_cpu *pc = per_cpu_ptr(src->cpu, cpu);
	struct perf_event *event = pc->event;

	pc->event = NULL;
	perf_event_disable(event);
	perf_event_release_kernel(event);
	damon_perf_observe_event_destroyed(src->cpu_state, cpu);
	WRITE_ONCE(src->nr_active, src->nr_active - 1);
}

/*
 * Give every online CPU a live counter and release those of offline CPUs.
 * A counter whose CPU went offline and came back before this ran was
 * detached by the perf core (state OFF) and is replaced. A CPU whose
 * creation failed is retried only after it has been offline.
 */
static void sync_cpus(struct damon_perf_source *src, bool arming)
{
	int cpu;

	mutex_lock(&src->lock);
	for_each_possible_cpu(cpu) {
		struct src_cpu *pc = per_cpu_ptr(src->cpu, cpu);
		bool online = cpu_online(cpu);

		if (pc->event &&
		    (!online ||
		     READ_ONCE(pc->event->state) < PERF_EVENT_STATE_INACTIVE))
			put_counter(src, cpu);
		if (!online)
			pc->err = 0;
		else if (!pc->event && !pc->err)
			get_counter(src, cpu, arming);
	}
	mutex_unlock(&src->lock);
}

static void sync_work(struct work_struct *work)
{
	sync_cpus(container_of(work, struct damon_perf_source, sync), false);
}

/*
 * cpuhp callbacks, on @cpu, for every armed probe. Creating or releasing a
 * counter can take cpus_read_lock() (the software PMU flips static keys), so
 * it cannot happen here, under the hotplug lock: the counters are synced by
 * a work item once the hotplug operation is done. Meanwhile the perf core
 * itself takes a dying CPU's counters off its PMU (CPUHP_AP_PERF_ONLINE runs
 * after this state on the way down).
 */
static int src_online(unsigned int cpu, struct hlist_node *node)
{
	struct damon_perf_source *src =
		hlist_entry(node, struct damon_perf_source, node);

	queue_work(system_unbound_wq, &src->sync);
	return 0;
}

static int src_offline(unsigned int cpu, struct hlist_node *node)
{
	return src_online(cpu, node);
}

/**
 * damon_perf_probe_status() - Report how a probe's counters are doing.
 * @ctx:	the context.
 * @probe_idx:	1-based probe index.
 * @st:		filled in; all zero while the context is stopped.
 *
 * Context: process context, damon_perf_lock held.
 * Return: 0, or -ENOENT when there is no such probe.
 */
int damon_perf_probe_status(struct damon_perf_ctx *ctx, unsigned int probe_idx,
			    struct damon_perf_probe_status *st)
{
	struct damon_perf_source *src;

	lockdep_assert_held(&damon_perf_lock);
	memset(st, 0, sizeof(*st));
	if (!probe_idx || probe_idx > DAMON_PERF_MAX_PROBES ||
	    !ctx->probes[probe_idx - 1].used)
		return -ENOENT;
	src = ctx->probes[probe_idx - 1].src;
	st->last_err_cpu = -1;
	if (!src)
		return 0;
	/* Written by the sync work; a racy but untorn view. */
	st->nr_active = READ_ONCE(src->nr_active);
	st->nr_failed = READ_ONCE(src->nr_failed);
	st->last_err = READ_ONCE(src->last_err);
	if (st->last_err)
		st->last_err_cpu = READ_ONCE(src->last_err_cpu);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_probe_status);

/**
 * damon_perf_source_settle() - Wait for the CPU syncs queued so far.
 * @ctx:	the context.
 *
 * A hotplug operation queues each armed probe's sync work from its cpuhp
 * callback; once this returns, a sync that started after that operation
 * has finished, so the counters match the CPUs online then.
 *
 * Context: process context, damon_perf_lock held (the sync work never
 * takes it).
 */
void damon_perf_source_settle(struct damon_perf_ctx *ctx)
{
	int i;

	lockdep_assert_held(&damon_perf_lock);
	for (i = 0; i < DAMON_PERF_MAX_PROBES; i++)
		if (ctx->probes[i].used && ctx->probes[i].src)
			flush_work(&ctx->probes[i].src->sync);
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_source_settle);

static void free_source(struct damon_perf_source *src)
{
	put_cred(src->cred);
	mutex_destroy(&src->lock);
	damon_perf_observe_event_free(src->cpu_state);
	free_percpu(src->cpu);
	kfree(src);
}

static const char *why_failed(int err)
{
	switch (-err) {
	case ENOENT:
		return "no such PMU or event";
	case ENODEV:
		return "PMU not present on this CPU";
	case EOPNOTSUPP:
		return "cannot sample with these attributes";
	case EACCES:
	case EPERM:
		return "not permitted";
	case EBUSY:
		return "pinned counter could not be scheduled";
	default:
		return "rejected the attributes";
	}
}

/* Errors that mean "these attributes are wrong", not "not on this CPU". */
static bool attr_error(int err)
{
	return err == -EINVAL || err == -EOPNOTSUPP || err == -EACCES ||
	       err == -EPERM || err == -E2BIG;
}

static int arm_probe(struct damon_perf_ctx *ctx, unsigned int idx,
		     struct netlink_ext_ack *extack)
{
	struct damon_perf_probe *probe = &ctx->probes[idx - 1];
	struct damon_perf_source *src;
	int err, cpu;

	src = kzalloc(sizeof(*src), GFP_KERNEL);
	if (!src)
		return -ENOMEM;
	/* Each allocation undone in reverse, each only once it succeeded. */
	err = damon_perf_observe_event_alloc(&src->cpu_state);
	if (err)
		goto err_src;
	src->cpu = damon_perf_should_fail(percpu) ? NULL :
		   alloc_percpu(struct src_cpu);
	if (!src->cpu) {
		err = -ENOMEM;
		goto err_cpu_state;
	}
	src->owner = ctx;
	src->probe_idx = idx;
	src->cred = get_current_cred();
	mutex_init(&src->lock);
	INIT_WORK(&src->sync, sync_work);
	build_attr(&probe->attr, &src->attr);
	src->period = probe->attr.freq ? 0 : probe->attr.sample_period;
	src->freq = swevent_freq(&probe->attr) ? probe->attr.sample_period : 0;
	src->freq_ns = ktime_get_ns();
	/*
	 * Publish the initialized source before any counter can call
	 * overflow(); pairs with smp_load_acquire() there.
	 */
	smp_store_release(&src->ctx, ctx);
	probe->src = src;

	/* From here on CPUs coming and going queue a sync. */
	err = cpuhp_state_add_instance_nocalls(hp_state, &src->node);
	if (err) {
		probe->src = NULL;
		free_source(src);
		NL_SET_ERR_MSG(extack, "cannot add the CPU hotplug instance");
		return err;
	}
	sync_cpus(src, true);

	/*
	 * A CPU may fail while others succeed (hybrid CPUs with per-core PMU
	 * types): that is counted and shown in status. Fail the arm when no
	 * CPU has a counter, or when the first CPU's attributes were rejected.
	 */
	mutex_lock(&src->lock);
	cpu = cpumask_first(cpu_online_mask);
	err = per_cpu_ptr(src->cpu, cpu)->err;
	if (src->nr_active && !attr_error(err)) {
		err = 0;
	} else if (!err) {
		/* Nothing armed: name the first CPU that failed. */
		for_each_online_cpu(cpu) {
			err = per_cpu_ptr(src->cpu, cpu)->err;
			if (err)
				break;
		}
	}
	mutex_unlock(&src->lock);
	if (!err)
		return 0;
	/* The errno itself reaches userspace as the request's error. */
	NL_SET_ERR_MSG_FMT(extack,
			   "probe %u on cpu %d: PMU type %u %s",
			   idx, cpu, probe->attr.type, why_failed(err));
	return err;

err_cpu_state:
	damon_perf_observe_event_free(src->cpu_state);
err_src:
	kfree(src);
	return err;
}

/**
 * damon_perf_source_arm() - Create the counters of every probe of a context.
 * @ctx:	the context being started; its rings exist.
 * @extack:	receives a message naming the probe, CPU and error.
 *
 * Creates one pinned counter per online CPU for each probe, and keeps doing
 * so for CPUs that come online until damon_perf_source_disarm().
 * ctx->arm_failures restarts from 0.
 *
 * Context: process context, may sleep, damon_perf_lock held.
 * Return: 0, or the creation error of the failing probe (nothing stays
 * armed).
 */
int damon_perf_source_arm(struct damon_perf_ctx *ctx,
			  struct netlink_ext_ack *extack)
{
	int i, err;

	lockdep_assert_held(&damon_perf_lock);
	atomic_set(&ctx->arm_failures, 0);
	for (i = 0; i < DAMON_PERF_MAX_PROBES; i++) {
		if (!ctx->probes[i].used || ctx->probes[i].src)
			continue;
		err = arm_probe(ctx, i + 1, extack);
		if (err) {
			damon_perf_source_disarm(ctx);
			return err;
		}
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_source_arm);

/**
 * damon_perf_source_disarm() - Release the counters of every probe.
 * @ctx:	the context being stopped.
 *
 * After it returns no overflow handler runs, or will run, for @ctx, so the
 * caller may free the rings.
 *
 * Context: process context, may sleep, damon_perf_lock held.
 */
void damon_perf_source_disarm(struct damon_perf_ctx *ctx)
{
	struct damon_perf_source *src;
	bool armed = false;
	int i;

	lockdep_assert_held(&damon_perf_lock);
	for (i = 0; i < DAMON_PERF_MAX_PROBES; i++) {
		src = ctx->probes[i].src;
		if (src) {
			/* Pairs with smp_load_acquire() in overflow(). */
			smp_store_release(&src->ctx, NULL);
			armed = true;
		}
	}
	if (!armed)
		return;
	for (i = 0; i < DAMON_PERF_MAX_PROBES; i++) {
		int cpu;

		src = ctx->probes[i].src;
		if (!src)
			continue;
		cpuhp_state_remove_instance_nocalls(hp_state, &src->node);
		cancel_work_sync(&src->sync);
		mutex_lock(&src->lock);
		for_each_possible_cpu(cpu)
			if (per_cpu_ptr(src->cpu, cpu)->event)
				put_counter(src, cpu);
		mutex_unlock(&src->lock);
	}
	/*
	 * A handler may still be running with @src, or with the context it
	 * loaded before the release store: releasing a counter takes it off
	 * its PMU through an IPI, which does not wait for a software event's
	 * handler that the IPI interrupted. Every handler runs with
	 * preemption disabled (NMI, hard IRQ, or the software event path's
	 * rcu_read_lock()), so one grace period waits for all of them.
	 */
	synchronize_rcu();
	/* the kdamond may still be reading or moving a period */
	mutex_lock(&period_lock);
	for (i = 0; i < DAMON_PERF_MAX_PROBES; i++) {
		src = ctx->probes[i].src;
		if (src) {
			ctx->probes[i].src = NULL;
			free_source(src);
		}
	}
	mutex_unlock(&period_lock);
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_source_disarm);

/**
 * damon_perf_source_handler_ns() - Time a context's handlers spent.
 * @ctx:	the context.
 *
 * Context: process context, may sleep; the kdamond of @ctx or
 * damon_perf_lock held.
 * Return: nanoseconds spent in the overflow handler of every armed probe
 * of @ctx on every CPU since it was armed.
 */
u64 damon_perf_source_handler_ns(struct damon_perf_ctx *ctx)
{
	struct damon_perf_source *src;
	u64 sum = 0;
	int i, cpu;

	mutex_lock(&period_lock);
	for (i = 0; i < DAMON_PERF_MAX_PROBES; i++) {
		src = ctx->probes[i].src;
		if (!src)
			continue;
		for_each_possible_cpu(cpu)
			sum += READ_ONCE(per_cpu_ptr(src->cpu,
						     cpu)->handler_ns);
	}
	mutex_unlock(&period_lock);
	return sum;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_source_handler_ns);

/**
 * damon_perf_source_period() - The sample period a probe runs with.
 * @ctx:	the context.
 * @probe_idx:	1-based probe index.
 *
 * Context: process context, may sleep; the kdamond of @ctx or
 * damon_perf_lock held.
 * Return: the period in force, 0 when the probe is not armed or samples
 * by frequency.
 */
u64 damon_perf_source_period(struct damon_perf_ctx *ctx,
			     unsigned int probe_idx)
{
	struct damon_perf_source *src;
	u64 period = 0;

	if (!probe_idx || probe_idx > DAMON_PERF_MAX_PROBES)
		return 0;
	mutex_lock(&period_lock);
	src = ctx->probes[probe_idx - 1].src;
	if (src)
		period = READ_ONCE(src->period);
	mutex_unlock(&period_lock);
	return period;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_source_period);

/*
 * Give @cpu's counter @period: disable, change, enable. src->lock held.
 * perf_event_period() asks the PMU (check_period) before it changes
 * anything, so a refusal leaves the counter as it was.
 */
static int cpu_set_period(struct damon_perf_source *src, int cpu, u64 period)
{
	struct perf_event *event = per_cpu_ptr(src->cpu, cpu)->event;
	int ret;

	perf_event_disable(event);
	ret = perf_event_period(event, period);
	perf_event_enable(event);
	return ret;
}

/*
 * A pinned counter that an enable left in ERROR (it could not get back
 * onto its PMU) is released and created anew from src->attr; a failure to
 * do so is counted as at arm. src->lock held.
 */
static void renew_failed(struct damon_perf_source *src, int cpu)
{
	struct perf_event *event = per_cpu_ptr(src->cpu, cpu)->event;

	if (event && READ_ONCE(event->state) < PERF_EVENT_STATE_INACTIVE) {
		put_counter(src, cpu);
		if (cpu_online(cpu))
			get_counter(src, cpu, false);
	}
}

/*
 * Give every CPU's counter @period, all or none (see
 * damon_perf_source_set_period()); src->attr.sample_period follows on
 * success. src->lock held.
 */
static int apply_period(struct damon_perf_source *src, u64 period)
{
	int cpu, failed = -1, ret = 0;

	for_each_possible_cpu(cpu) {
		if (!per_cpu_ptr(src->cpu, cpu)->event)
			continue;
		ret = cpu_set_period(src, cpu, period);
		if (ret) {
			failed = cpu;
			break;
		}
	}
	if (ret) {
		/* Accepted before, so accepted again. */
		for_each_possible_cpu(cpu) {
			if (cpu == failed)
				break;
			if (per_cpu_ptr(src->cpu, cpu)->event)
				cpu_set_period(src, cpu,
					       src->attr.sample_period);
		}
	} else {
		src->attr.sample_period = period;
	}
	/* With src->attr final: a counter in ERROR is made anew from it. */
	for_each_possible_cpu(cpu)
		renew_failed(src, cpu);
	return ret;
}

/**
 * damon_perf_source_set_period() - Change the period of an armed probe.
 * @ctx:	the context.
 * @probe_idx:	1-based probe index.
 * @period:	the new period, 1 .. DAMON_PERF_SAMPLE_PERIOD_MAX.
 *
 * Each CPU's counter is disabled, given the period and enabled again; so
 * is every counter created later (CPUs coming online). Disabling first
 * matters for software events: perf_event_period() alone restarts them
 * without resetting hw.last_period, which is what their samples report as
 * data->period, and a period of 1 never updates it at all; enabling runs
 * the PMU's add(), which sets it. The events between disable and enable
 * are not counted.
 *
 * All or none: when perf refuses the period on one CPU, the CPUs already
 * changed get the old one back, and the period recorded (status, the CPU
 * budget, later counters) is the one in force. A pinned counter that the
 * enable leaves in ERROR (it could not get back onto its PMU) is released
 * and created anew; a failure to do so is counted as at arm, shown in
 * status.
 *
 * Context: process context, may sleep; the kdamond of @ctx.
 * Return: 0, -ENOENT when the probe is not armed, -EINVAL for a
 * frequency-mode probe or a period perf refuses on some CPU (no CPU
 * changed).
 */
int damon_perf_source_set_period(struct damon_perf_ctx *ctx,
				 unsigned int probe_idx, u64 period)
{
	struct damon_perf_source *src;
	int ret = 0;

	if (!probe_idx || probe_idx > DAMON_PERF_MAX_PROBES || !period ||
	    period > MAX_SAMPLE_PERIOD)
		return -EINVAL;
	mutex_lock(&period_lock);
	src = ctx->probes[probe_idx - 1].src;
	if (!src) {
		ret = -ENOENT;
		goto out;
	}
	mutex_lock(&src->lock);
	if (src->attr.freq || src->freq)
		ret = -EINVAL;
	else
		ret = apply_period(src, period);
	if (!ret)
		WRITE_ONCE(src->period, period);
	mutex_unlock(&src->lock);
out:
	mutex_unlock(&period_lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_source_set_period);

/*
 * One step of module frequency mode: the period that would have given
 * @src->freq samples per second for the events every CPU's counter counted
 * since the last measurement. No events, no change: there was nothing to
 * sample, and a lower period would sample every event of the next burst
 * until the next measurement. src->lock held.
 */
static void adapt(struct damon_perf_source *src, u64 now)
{
	u64 count, delta = 0, dt, enabled, running, target;
	u64 cur = src->attr.sample_period;
	int cpu;

	dt = now - src->freq_ns;
	if (now < src->freq_ns ||
	    dt < (src->freq_seen ? FREQ_ADAPT_NS : FREQ_FIRST_NS))
		return;
	src->freq_ns = now;
	for_each_possible_cpu(cpu) {
		struct src_cpu *pc = per_cpu_ptr(src->cpu, cpu);

		if (!pc->event)
			continue;
		count = perf_event_read_value(pc->event, &enabled, &running);
		if (count > pc->freq_count)
			delta += count - pc->freq_count;
		pc->freq_count = count;
	}
	if (!delta)
		return;
	src->freq_seen = true;
	/* events x 10^9 / (ns x Hz), as perf_calculate_period() */
	target = mul_u64_u64_div_u64(delta, NSEC_PER_SEC, dt);
	target = clamp_val(div64_u64(target, src->freq), 1, MAX_SAMPLE_PERIOD);
	/*
	 * Within a factor 1.5 of the period in force: left alone, as every
	 * change loses the events of the intervals it cuts short.
	 */
	if (target * 3 >= cur * 2 && target * 2 <= cur * 3)
		return;
	/*
	 * Up at once, down by half at most: a measurement that saw few
	 * events (a stall, a thread descheduled) would otherwise set a
	 * period that samples the next busy 100 ms many times over.
	 */
	target = max(target, cur / 2);
	/*
	 * Each counter disabled while perf_event_period() runs, as for the
	 * CPU budget: the enable's add() arms the new period in full and
	 * makes it the samples' data->period (hw.last_period).
	 */
	apply_period(src, target);
}

/**
 * damon_perf_source_adapt() - Module frequency mode: adapt the periods.
 * @ctx:	the context.
 * @now:	ktime_get_ns().
 *
 * For every frequency-mode probe whose period the module adapts (software
 * events but cpu-clock and task-clock, and tracepoints: see swevent_freq()),
 * measured after FREQ_FIRST_NS, then every FREQ_ADAPT_NS at most: the
 * period that would have given sample_freq samples per second over the
 * events all its counters counted since the last measurement, when that is
 * more than a factor 1.5 away from the one in force, becomes every CPU's
 * period (a lower one at most halves it). Samples carry the period they
 * were taken with (data->period), so rate stays the events' rate.
 *
 * Context: process context, may sleep; the kdamond of @ctx.
 */
void damon_perf_source_adapt(struct damon_perf_ctx *ctx, u64 now)
{
	struct damon_perf_source *src;
	unsigned int i;

	mutex_lock(&period_lock);
	for (i = 0; i < DAMON_PERF_MAX_PROBES; i++) {
		src = ctx->probes[i].src;
		if (!src || !src->freq)
			continue;
		mutex_lock(&src->lock);
		adapt(src, now);
		mutex_unlock(&src->lock);
	}
	mutex_unlock(&period_lock);
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_source_adapt);

/**
 * damon_perf_source_adapts() - Whether the module adapts a probe's period.
 * @ctx:	the context.
 *
 * Context: process context, may sleep; the kdamond of @ctx.
 * Return: true when a probe of @ctx is in module frequency mode, whose
 * period damon_perf_source_adapt() moves.
 */
bool damon_perf_source_adapts(struct damon_perf_ctx *ctx)
{
	bool adapts = false;
	unsigned int i;

	/* disarm frees the sources under it, maybe while we run */
	mutex_lock(&period_lock);
	for (i = 0; i < DAMON_PERF_MAX_PROBES; i++)
		if (ctx->probes[i].src && ctx->probes[i].src->freq)
			adapts = true;
	mutex_unlock(&period_lock);
	return adapts;
}

/**
 * damon_perf_source_init() - Register the CPU hotplug multi-instance state.
 *
 * Context: module init.
 * Return: 0 or a negative error from cpuhp_setup_state_multi().
 */
int damon_perf_source_init(void)
{
	int ret;

	ret = cpuhp_setup_state_multi(CPUHP_AP_ONLINE_DYN, "damon_perf:online",
				      src_online, src_offline);
	if (ret < 0)
		return ret;
	hp_state = ret;
	return 0;
}

/**
 * damon_perf_source_exit() - Remove the CPU hotplug state.
 *
 * Every context has been destroyed (and its probes disarmed) before.
 *
 * Context: module exit.
 */
void damon_perf_source_exit(void)
{
	cpuhp_remove_multi_state(hp_state);
}
