// SPDX-License-Identifier: GPL-2.0
/*
 * AUX trace-buffer backends: registry, selection, attach of userspace
 * mapped AUX buffers, per-CPU drain scheduling and teardown.
 *
 * Locking: backends_lock guards the registry; aux_lock guards the event
 * list and every event's buffers (add, drain, free). A drain queues each
 * buffer's work with queue_work_on() on a per-CPU workqueue, so it runs on
 * the CPU that owns the buffer, and then waits for the works a bounded
 * time (the event's @wait), holding aux_lock but not cpus_read_lock():
 * a CPU whose kworker never runs (an RT task spinning there with RT
 * throttling off) delays the kdamond's pass, STOP and a socket's release
 * by that bound at most, and CPU hotplug not at all. A work that runs
 * late, or on another CPU because its CPU went offline, finds the rings
 * gone or not its own and leaves the data for the next drain. Each
 * queued work holds a reference on its event, so a teardown never waits
 * for a work that has started: it cancels the ones that have not and the
 * last reference frees the buffers.
 */
#include <linux/cpu.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/kallsyms.h>
#include <linux/log2.h>
#include <linux/magic.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/netlink.h>
#include <linux/percpu.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <net/net_namespace.h>
#include <net/sock.h>

#include "aux.h"
#include "ctx_types.h"
#include "stats.h"

static const struct damon_perf_backend_ops *
	backends[DAMON_PERF_AUX_MAX_BACKENDS];
static DEFINE_MUTEX(backends_lock);

static LIST_HEAD(aux_events);
static DEFINE_MUTEX(aux_lock);
static struct workqueue_struct *aux_wq;

/*
 * How long the kdamond waits for an attached event's drain works: far
 * above a drain's run time (SPE_DRAIN_BUDGET bytes), far below what a
 * netlink caller would take for a hang.
 */
#define AUX_DRAIN_WAIT_MS	1000

/**
 * damon_perf_aux_register_backend() - Add a backend to the registry.
 * @ops: backend operations; must outlive its registration.
 *
 * Context: process context; takes backends_lock.
 * Return: 0, -EINVAL when a mandatory operation is missing, -EEXIST when
 * @ops or its name is registered already, -ENOSPC when the registry is
 * full.
 */
int damon_perf_aux_register_backend(const struct damon_perf_backend_ops *ops)
{
	int i, free = -1, ret = 0;

	if (!ops || !ops->name || !ops->match_pmu || !ops->init ||
	    !ops->cleanup || !ops->drain)
		return -EINVAL;
	mutex_lock(&backends_lock);
	for (i = 0; i < ARRAY_SIZE(backends); i++) {
		if (!backends[i]) {
			if (free < 0)
				free = i;
			continue;
		}
		if (backends[i] == ops ||
		    !strcmp(backends[i]->name, ops->name)) {
			ret = -EEXIST;
			goto out;
		}
	}
	if (free < 0)
		ret = -ENOSPC;
	else
		backends[free] = ops;
out:
	mutex_unlock(&backends_lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_aux_register_backend);

/**
 * damon_perf_aux_unregister_backend() - Remove a backend from the registry.
 * @ops: a registered backend; events using it must be freed already.
 *
 * Context: process context; takes backends_lock.
 */
void
damon_perf_aux_unregister_backend(const struct damon_perf_backend_ops *ops)
{
	int i;

	mutex_lock(&backends_lock);
	for (i = 0; i < ARRAY_SIZE(backends); i++)
		if (backends[i] == ops)
			backends[i] = NULL;
	mutex_unlock(&backends_lock);
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_aux_unregister_backend);

/**
 * damon_perf_aux_find_backend() - The backend for a perf event, if any.
 * @perf_event: the event.
 *
 * Only PMUs that advertise AUX tracing (PERF_PMU_CAP_ITRACE) qualify; the
 * first registered backend whose match_pmu() accepts the event wins.
 *
 * Context: process context; takes backends_lock.
 * Return: the backend, or NULL.
 */
const struct damon_perf_backend_ops *
damon_perf_aux_find_backend(struct perf_event *perf_event)
{
	const struct damon_perf_backend_ops *found = NULL;
	int i;

	if (!perf_event || !perf_event->pmu ||
	    !(perf_event->pmu->capabilities & PERF_PMU_CAP_ITRACE))
		return NULL;
	mutex_lock(&backends_lock);
	for (i = 0; i < ARRAY_SIZE(backends) && !found; i++)
		if (backends[i] && backends[i]->match_pmu(perf_event))
			found = backends[i];
	mutex_unlock(&backends_lock);
	return found;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_aux_find_backend);

/**
 * damon_perf_aux_select() - Choose @event's backend from a perf event.
 * @event:	the AUX event.
 * @perf_event:	one of its perf events.
 *
 * Context: process context.
 */
void damon_perf_aux_select(struct damon_perf_aux_event *event,
			   struct perf_event *perf_event)
{
	event->ops = damon_perf_aux_find_backend(perf_event);
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_aux_select);

static void event_release(struct damon_perf_aux_event *event)
{
	int cpu;

	for_each_cpu(cpu, &event->aux_cpumask) {
		struct damon_perf_aux_cpu *pc = per_cpu_ptr(event->pcpu, cpu);

		if (event->ops->disarm)
			event->ops->disarm(event, cpu);
		event->ops->cleanup(event, cpu);
		if (pc->file)
			fput(pc->file);
	}
	if (event->sk)
		sock_put(event->sk);
	free_percpu(event->pcpu);
	kfree(event);
}

static void event_put(struct damon_perf_aux_event *event)
{
	if (refcount_dec_and_test(&event->ref))
		event_release(event);
}

static void drain_work(struct work_struct *work)
{
	struct damon_perf_aux_cpu *pc =
		container_of(work, struct damon_perf_aux_cpu, work);
	struct damon_perf_aux_event *event = pc->event;

	/*
	 * On its own CPU only: the work of a CPU that went offline runs on
	 * another one, and one that ran past the kdamond's wait finds no
	 * rings; both leave the buffer for the next drain.
	 */
	if (event->ops && READ_ONCE(event->rings) &&
	    raw_smp_processor_id() == pc->cpu)
		atomic_add(event->ops->drain(event, pc->cpu), &event->accepted);
	/* the drain's stores before the count its waiter reads */
	atomic_dec_return_release(&pc->queued);
	wake_up(&event->idle);
	/* may free @work: the last use of it */
	event_put(event);
}

/**
 * damon_perf_aux_event_new() - Allocate an AUX event with no buffer yet.
 * @ctx:	owning context (may be NULL in tests).
 * @probe_idx:	1-based probe index its reports carry.
 * @portid:	netlink port whose release frees it (0: none).
 * @pid:	tgid the perf events are bound to, 0 for CPU-wide.
 *
 * Context: process context, may sleep.
 * Return: the event, or NULL on allocation failure.
 */
struct damon_perf_aux_event *
damon_perf_aux_event_new(struct damon_perf_ctx *ctx, u8 probe_idx, u32 portid,
			 pid_t pid)
{
	struct damon_perf_aux_event *event;
	int cpu;

	event = kzalloc(sizeof(*event), GFP_KERNEL);
	if (!event)
		return NULL;
	event->pcpu = alloc_percpu(struct damon_perf_aux_cpu);
	if (!event->pcpu) {
		kfree(event);
		return NULL;
	}
	for_each_possible_cpu(cpu) {
		struct damon_perf_aux_cpu *pc = per_cpu_ptr(event->pcpu, cpu);

		INIT_WORK(&pc->work, drain_work);
		pc->event = event;
		pc->cpu = cpu;
	}
	event->ctx = ctx;
	event->probe_idx = probe_idx;
	event->portid = portid;
	event->pid = pid;
	INIT_LIST_HEAD(&event->list);
	refcount_set(&event->ref, 1);
	init_waitqueue_head(&event->idle);
	event->wait = MAX_SCHEDULE_TIMEOUT;
	return event;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_aux_event_new);

/**
 * damon_perf_aux_event_add_cpu() - Give @event the buffer of one CPU.
 * @event:	the AUX event (not being drained).
 * @cpu:	the CPU owning the buffer.
 * @args:	the buffer; on success @event owns the @args->file reference.
 *
 * Selects the backend from the first buffer; later buffers must use the
 * same one. Calls the backend's init and arm.
 *
 * Context: process context, may sleep; aux_lock held or @event private.
 * Return: 0, -EINVAL (bad CPU, other backend), -EEXIST (CPU has a buffer),
 * -EOPNOTSUPP (no backend for this PMU), or the backend's error.
 */
int damon_perf_aux_event_add_cpu(struct damon_perf_aux_event *event, int cpu,
				 const struct damon_perf_aux_args *args)
{
	const struct damon_perf_backend_ops *ops;
	struct damon_perf_aux_cpu *pc;
	int ret;

	if (cpu < 0 || cpu >= nr_cpu_ids || !cpu_possible(cpu))
		return -EINVAL;
	if (cpumask_test_cpu(cpu, &event->aux_cpumask))
		return -EEXIST;
	ops = damon_perf_aux_find_backend(args->event);
	if (!ops)
		return -EOPNOTSUPP;
	if (event->ops && event->ops != ops)
		return -EINVAL;
	event->ops = ops;

	pc = per_cpu_ptr(event->pcpu, cpu);
	ret = ops->init(event, cpu, args);
	if (ret)
		return ret;
	if (ops->arm) {
		ret = ops->arm(event, cpu);
		if (ret) {
			ops->cleanup(event, cpu);
			return ret;
		}
	}
	pc->file = args->file;
	cpumask_set_cpu(cpu, &event->aux_cpumask);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_aux_event_add_cpu);

/**
 * damon_perf_aux_event_free() - Drop the owner's hold on an AUX event.
 * @event: the event, off the global list (or never on it).
 *
 * Cancels the drain works that have not started; the buffers are
 * disarmed, cleaned up and freed now, or by the last drain work still
 * running (a starved one) when it ends. Either way no report reaches the
 * rings of the event's last drain after this returns: a work still
 * running pushed nothing since the kdamond cleared the rings, or pushes
 * nothing more after the grace period waited for here.
 *
 * Context: process context, may sleep; no drain of @event may be
 * waiting (the kdamond's runs under aux_lock).
 */
void damon_perf_aux_event_free(struct damon_perf_aux_event *event)
{
	bool running = false;
	int cpu;

	if (!event)
		return;
	WRITE_ONCE(event->rings, NULL);
	for_each_possible_cpu(cpu) {
		struct damon_perf_aux_cpu *pc = per_cpu_ptr(event->pcpu, cpu);

		if (cancel_work(&pc->work)) {
			atomic_dec(&pc->queued);
			/* never the last: the owner holds one */
			refcount_dec(&event->ref);
		}
		if (atomic_read(&pc->queued))
			running = true;
	}
	/* a push that loaded the rings before they were cleared has ended */
	if (running)
		synchronize_rcu();
	event_put(event);
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_aux_event_free);

/* every work this drain queued (@mask) ran to its end */
static bool works_done(struct damon_perf_aux_event *event,
		       const struct cpumask *mask)
{
	int cpu;

	for_each_cpu(cpu, mask)
		if (atomic_read_acquire(&per_cpu_ptr(event->pcpu, cpu)->queued))
			return false;
	return true;
}

/**
 * damon_perf_aux_event_drain() - Drain every buffer of @event on its CPU.
 * @event:	the event.
 * @rings:	rings the reports go to.
 *
 * Queues the backend's drain on each online CPU of @event->aux_cpumask
 * and waits for them, @event->wait at most. A CPU whose last drain has
 * not run yet gets no second one (aux_drain_busy), and a drain still
 * running at the end of the wait (aux_drain_late) pushes nothing more:
 * the rings are cleared before this returns. Buffers of offline CPUs
 * keep their data until the CPU comes back.
 *
 * Context: process context, may sleep; aux_lock held or @event private.
 * Return: the reports the rings accepted since the last drain.
 */
unsigned int damon_perf_aux_event_drain(struct damon_perf_aux_event *event,
					struct damon_perf_rings *rings)
{
	unsigned long busy = 0, late = 0;
	cpumask_var_t mask;
	int cpu;

	if (!event->ops || cpumask_empty(&event->aux_cpumask))
		return 0;
	if (!zalloc_cpumask_var(&mask, GFP_KERNEL))
		return 0;
	/* published to the works by queue_work_on()'s ordering */
	WRITE_ONCE(event->rings, rings);
	/* (queued on online CPUs; the wait holds off no hotplug) */
	cpus_read_lock();
	for_each_cpu_and(cpu, &event->aux_cpumask, cpu_online_mask) {
		struct damon_perf_aux_cpu *pc = per_cpu_ptr(event->pcpu, cpu);

		refcount_inc(&event->ref);
		atomic_inc(&pc->queued);
		if (queue_work_on(cpu, aux_wq, &pc->work)) {
			cpumask_set_cpu(cpu, mask);
			continue;
		}
		/* still pending from an earlier drain: it holds its own */
		atomic_dec(&pc->queued);
		refcount_dec(&event->ref);
		busy++;
	}
	cpus_read_unlock();
	wait_event_timeout(event->idle, works_done(event, mask), event->wait);
	for_each_cpu(cpu, mask)
		if (atomic_read(&per_cpu_ptr(event->pcpu, cpu)->queued))
			late++;
	WRITE_ONCE(event->rings, NULL);
	free_cpumask_var(mask);
	damon_perf_observe_aux(DAMON_PERF_STAT_aux_drain_busy, busy);
	damon_perf_observe_aux(DAMON_PERF_STAT_aux_drain_late, late);
	return atomic_xchg(&event->accepted, 0);
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_aux_event_drain);

/**
 * damon_perf_aux_report() - Push one decoded access to the drain's rings.
 * @event:	the event being drained.
 * @report:	the access; src, probe_idx and cpu are filled in here.
 *
 * Context: a backend's drain (process context on the buffer's CPU).
 * Return: true when the ring took it; false when it was refused (ring
 * full, nested producer, or no drain running), and the caller must keep
 * the data for the next drain.
 */
bool damon_perf_aux_report(struct damon_perf_aux_event *event,
			   struct damon_perf_report *report)
{
	struct damon_perf_rings *rings;
	bool ok = false;

	report->src = DAMON_PERF_SRC_AUX;
	report->probe_idx = event->probe_idx;
	/*
	 * The ring's producer must not be preempted by another one; and a
	 * push that loaded @event->rings ends before a grace period does
	 * (damon_perf_aux_event_free()).
	 */
	preempt_disable();
	rings = READ_ONCE(event->rings);
	if (rings) {
		report->cpu = smp_processor_id();
		ok = damon_perf_report_access(rings, report);
	}
	preempt_enable();
	return ok;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_aux_report);

/**
 * damon_perf_aux_report_batch() - Push reports until the first refusal.
 * @event:	the event being drained.
 * @reports:	the accesses, in order.
 * @nr:		how many.
 *
 * Context: a backend's drain.
 * Return: the number accepted; @reports[return..@nr) were not pushed.
 */
unsigned int damon_perf_aux_report_batch(struct damon_perf_aux_event *event,
					 struct damon_perf_report *reports,
					 unsigned int nr)
{
	unsigned int i;

	for (i = 0; i < nr; i++)
		if (!damon_perf_aux_report(event, &reports[i]))
			break;
	return i;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_aux_report_batch);

/*
 * perf_event_open()'s file operations, once one perf file was recognised.
 * The kernel exports neither perf_fops nor a lookup that tests for it
 * (perf_event_get() and perf_get_event() are not exported on 6.1), so the
 * first candidate is identified by what its operations are: the core
 * kernel's perf_release, perf_mmap and perf_ioctl (kallsyms names a
 * module's function "name [module]", so a module cannot pass), and no
 * owning module. Every later file is compared with the pointer.
 */
static const struct file_operations *perf_fops_seen;

static bool is_core_fn(const void *fn, const char *name)
{
	char sym[KSYM_SYMBOL_LEN];

	if (!fn)
		return false;
	sprint_symbol_no_offset(sym, (unsigned long)fn);
	return !strcmp(sym, name);
}

/**
 * damon_perf_aux_is_perf_file() - Whether @file is a perf event's file.
 * @file: an open file.
 *
 * Recognises perf_event_open()'s file operations, not a name: any code
 * can create an anon inode called "[perf_event]".
 *
 * Context: any process context.
 * Return: true for a perf event file, whose private_data is the event.
 */
bool damon_perf_aux_is_perf_file(struct file *file)
{
	const struct file_operations *fops = file->f_op;
	const struct file_operations *seen = READ_ONCE(perf_fops_seen);

	if (!fops || !file->private_data)
		return false;
	if (seen)
		return fops == seen;
	if (fops->owner || !is_core_fn(fops->release, "perf_release") ||
	    !is_core_fn(fops->mmap, "perf_mmap") ||
	    !is_core_fn(fops->unlocked_ioctl, "perf_ioctl"))
		return false;
	WRITE_ONCE(perf_fops_seen, fops);
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_aux_is_perf_file);

/* @sk's event for @ctx's probe @probe_idx: a dead socket's is not. */
static struct damon_perf_aux_event *find_event(struct damon_perf_ctx *ctx,
					       u8 probe_idx, u32 portid,
					       struct sock *sk)
{
	struct damon_perf_aux_event *event;

	list_for_each_entry(event, &aux_events, list)
		if (event->ctx == ctx && event->probe_idx == probe_idx &&
		    event->portid == portid && event->sk == sk)
			return event;
	return NULL;
}

/* Tie @event to the socket @sk: its release, not its port's, ends it. */
static void event_set_sock(struct damon_perf_aux_event *event,
			   struct sock *sk)
{
	if (sk)
		sock_hold(sk);
	event->sk = sk;
}

/* Whether a buffer of @ctx's probe @probe_idx for @cpu exists (any port). */
static bool cpu_taken(struct damon_perf_ctx *ctx, u8 probe_idx, int cpu)
{
	struct damon_perf_aux_event *event;

	list_for_each_entry(event, &aux_events, list)
		if (event->ctx == ctx && event->probe_idx == probe_idx &&
		    cpumask_test_cpu(cpu, &event->aux_cpumask))
			return true;
	return false;
}

/*
 * Whether @pe's buffer is attached already, to any context, probe slot or
 * socket: the same perf event, or another event writing into the same
 * ring buffer (PERF_EVENT_IOC_SET_OUTPUT). Two attachments of one buffer
 * would each advance its aux_tail, parse every record twice and pin and
 * charge its pages twice.
 */
static bool buffer_taken(struct perf_event *pe)
{
	struct perf_buffer *rb = READ_ONCE(pe->rb);
	struct damon_perf_aux_event *event;
	int cpu;

	list_for_each_entry(event, &aux_events, list) {
		for_each_cpu(cpu, &event->aux_cpumask) {
			struct file *file = per_cpu_ptr(event->pcpu, cpu)->file;
			struct perf_event *other;

			if (!file)
				continue;
			other = file->private_data;
			if (other == pe || (rb && READ_ONCE(other->rb) == rb))
				return true;
		}
	}
	return false;
}

/*
 * The global tgid of the task a per-task perf event follows, 0 for a
 * CPU-wide event. hw.target is set at creation and never changes.
 */
static pid_t event_tgid(struct perf_event *event)
{
	struct task_struct *task = event->hw.target;

	if (!(event->attach_state & PERF_ATTACH_TASK) || !task)
		return 0;
	return task_tgid_nr(task);
}

/* @pid of the caller's PID namespace as a global tgid; 0 if none. */
static pid_t global_tgid(pid_t pid)
{
	struct task_struct *task;
	pid_t tgid = 0;

	rcu_read_lock();
	task = pid_task(find_vpid(pid), PIDTYPE_PID);
	if (task)
		tgid = task_tgid_nr(task);
	rcu_read_unlock();
	return tgid;
}

/**
 * damon_perf_aux_args_get() - Resolve an attach request's perf event.
 * @req:	the request.
 * @args:	filled in; holds a reference on @args->file on success.
 * @extack:	error message.
 *
 * The fd must be a perf event of the calling process bound to @req->cpu.
 * @req->pid is a pid of the caller's PID namespace, 0 for a CPU-wide
 * event; it must name the thread group a per-task event follows, and
 * @args->pid gets its global tgid, the id SPE CONTEXT packets and the
 * drain use.
 *
 * Context: process context of the requesting task.
 * Return: 0, or -EBADF / -EINVAL / -ESRCH with @extack set.
 */
int damon_perf_aux_args_get(const struct damon_perf_aux_req *req,
			    struct damon_perf_aux_args *args,
			    struct netlink_ext_ack *extack)
{
	memset(args, 0, sizeof(*args));
	if (req->cpu >= nr_cpu_ids || !cpu_possible(req->cpu)) {
		NL_SET_ERR_MSG(extack, "AUX: no such CPU");
		return -EINVAL;
	}
	args->file = fget(req->fd);
	if (!args->file) {
		NL_SET_ERR_MSG(extack, "AUX: bad file descriptor");
		return -EBADF;
	}
	if (!damon_perf_aux_is_perf_file(args->file)) {
		NL_SET_ERR_MSG(extack, "AUX: fd is not a perf event");
		goto err;
	}
	args->event = args->file->private_data;
	if (args->event->cpu != req->cpu) {
		NL_SET_ERR_MSG(extack,
			       "AUX: perf event is not bound to this CPU");
		goto err;
	}
	args->pid = req->pid ? global_tgid(req->pid) : 0;
	if (req->pid && !args->pid) {
		NL_SET_ERR_MSG(extack, "AUX: no process with this pid");
		fput(args->file);
		args->file = NULL;
		return -ESRCH;
	}
	if (args->pid != event_tgid(args->event)) {
		NL_SET_ERR_MSG(extack,
			       "AUX: pid is not the process the perf event follows (0: CPU-wide)");
		goto err;
	}
	args->user_page = req->user_page;
	args->aux_addr = req->aux_addr;
	args->aux_size = req->aux_size;
	return 0;
err:
	fput(args->file);
	args->file = NULL;
	return -EINVAL;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_aux_args_get);

/**
 * damon_perf_aux_attach() - Hand one CPU's AUX buffer over to a context.
 * @ctx:	the context (damon_perf_lock held).
 * @req:	the perf event fd, its CPU and its mappings in the caller.
 * @portid:	caller's netlink port; closing it tears the buffer down.
 * @extack:	error message.
 *
 * The fd must be a perf event bound to @req->cpu whose PMU has AUX
 * tracing and a backend; @req->user_page and @req->aux_addr must be that
 * event's own data and AUX mappings, read-write, in the calling process.
 * The probe slot must be one no perf probe of @ctx uses (its reports
 * would be scaled by that probe's period), and each CPU has at most one
 * buffer per slot, whichever socket attached it: a context holds at most
 * nr_cpu_ids * DAMON_PERF_MAX_PROBES buffers. A buffer is attached at most
 * once, to one context, slot and CPU.
 *
 * Context: process context of the requesting task, may sleep.
 * Return: 0 or a negative errno with @extack set: -EEXIST when the CPU has a
 * buffer for the slot, -EBUSY when the slot is a perf probe's or the
 * buffer is attached already.
 */
int damon_perf_aux_attach(struct damon_perf_ctx *ctx,
			  const struct damon_perf_aux_req *req, u32 portid,
			  struct netlink_ext_ack *extack)
{
	struct damon_perf_aux_event *event;
	struct damon_perf_aux_args args;
	bool created = false;
	int ret;

	if (!req->probe_idx || req->probe_idx > DAMON_PERF_MAX_PROBES) {
		NL_SET_ERR_MSG(extack, "AUX: probe index out of range");
		return -EINVAL;
	}
	if (ctx && ctx->probes[req->probe_idx - 1].used) {
		NL_SET_ERR_MSG(extack,
			       "AUX: probe slot is a perf probe's; attach to a free slot");
		return -EBUSY;
	}
	ret = damon_perf_aux_args_get(req, &args, extack);
	if (ret)
		return ret;

	mutex_lock(&aux_lock);
	if (cpu_taken(ctx, req->probe_idx, req->cpu)) {
		NL_SET_ERR_MSG(extack,
			       "AUX: this CPU has a buffer for the probe already");
		ret = -EEXIST;
		goto err_unlock;
	}
	if (buffer_taken(args.event)) {
		NL_SET_ERR_MSG(extack,
			       "AUX: this perf event's buffer is attached already");
		ret = -EBUSY;
		goto err_unlock;
	}
	event = find_event(ctx, req->probe_idx, portid, req->sk);
	if (event && event->pid != args.pid) {
		NL_SET_ERR_MSG(extack,
			       "AUX: the probe's buffers follow another pid");
		ret = -EINVAL;
		goto err_unlock;
	}
	if (!event) {
		event = damon_perf_aux_event_new(ctx, req->probe_idx, portid,
						 args.pid);
		if (!event) {
			ret = -ENOMEM;
			goto err_unlock;
		}
		event_set_sock(event, req->sk);
		event->wait = msecs_to_jiffies(AUX_DRAIN_WAIT_MS);
		created = true;
	}
	ret = damon_perf_aux_event_add_cpu(event, req->cpu, &args);
	if (ret) {
		if (ret == -EOPNOTSUPP)
			NL_SET_ERR_MSG(extack,
				       "AUX: PMU has no AUX tracing backend");
		else if (ret == -ENOMEM)
			NL_SET_ERR_MSG(extack,
				       "AUX: pinning the buffer exceeds RLIMIT_MEMLOCK (or out of memory)");
		else
			NL_SET_ERR_MSG(extack, "AUX: cannot map this buffer");
		if (created)
			damon_perf_aux_event_free(event);
		goto err_unlock;
	}
	if (created)
		list_add_tail(&event->list, &aux_events);
	mutex_unlock(&aux_lock);
	return 0;

err_unlock:
	mutex_unlock(&aux_lock);
	fput(args.file);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_aux_attach);

/**
 * damon_perf_aux_attached() - Whether an AUX buffer is attached to @ctx.
 * @ctx: the context.
 *
 * Context: process context; takes aux_lock.
 * Return: true when @ctx has an AUX event.
 */
bool damon_perf_aux_attached(struct damon_perf_ctx *ctx)
{
	struct damon_perf_aux_event *event;
	bool found = false;

	mutex_lock(&aux_lock);
	list_for_each_entry(event, &aux_events, list)
		if (event->ctx == ctx)
			found = true;
	mutex_unlock(&aux_lock);
	return found;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_aux_attached);

/**
 * damon_perf_aux_drain() - Drain every AUX buffer attached to @ctx.
 * @ctx: a running context (its rings exist).
 *
 * Context: the context's kdamond, each pass (one sample interval while an
 * AUX buffer is attached: its reports are stamped here), before it drains
 * the rings; takes aux_lock.
 * Return: the reports accepted.
 */
unsigned int damon_perf_aux_drain(struct damon_perf_ctx *ctx)
{
	struct damon_perf_aux_event *event;
	unsigned int total = 0;

	mutex_lock(&aux_lock);
	list_for_each_entry(event, &aux_events, list)
		if (event->ctx == ctx)
			total += damon_perf_aux_event_drain(event, &ctx->rings);
	mutex_unlock(&aux_lock);
	return total;
}

static void release_if(bool (*match)(struct damon_perf_aux_event *, void *),
		       void *arg)
{
	struct damon_perf_aux_event *event, *next;

	mutex_lock(&aux_lock);
	list_for_each_entry_safe(event, next, &aux_events, list) {
		if (!match(event, arg))
			continue;
		list_del(&event->list);
		damon_perf_aux_event_free(event);
	}
	mutex_unlock(&aux_lock);
}

static bool match_ctx(struct damon_perf_aux_event *event, void *arg)
{
	return event->ctx == arg;
}

/*
 * The port of a released socket: netlink_release() takes the socket out
 * of the port table before it marks it dead and before NETLINK_URELEASE
 * runs, so another socket may have bound the same port id, and attached
 * buffers, meanwhile; those live on. (The subscriptions of
 * netlink_notify.c end the same way.)
 */
static bool match_portid(struct damon_perf_aux_event *event, void *arg)
{
	return event->portid == *(u32 *)arg &&
	       (!event->sk || sock_flag(event->sk, SOCK_DEAD));
}

static bool match_all(struct damon_perf_aux_event *event, void *arg)
{
	return true;
}

/**
 * damon_perf_aux_release_ctx() - Tear down every AUX buffer of @ctx.
 * @ctx: a context that stops or goes away (its kdamond no longer runs).
 *
 * Context: process context, may sleep; takes aux_lock.
 */
void damon_perf_aux_release_ctx(struct damon_perf_ctx *ctx)
{
	release_if(match_ctx, ctx);
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_aux_release_ctx);

/**
 * damon_perf_aux_release_portid() - Tear down the buffers of a netlink port.
 * @portid: the port of a closed socket (its process exited or closed it).
 *
 * Only the buffers the closed (dead) socket attached: a socket that bound
 * the same port id since keeps its own.
 *
 * Context: process context, may sleep; takes aux_lock.
 */
void damon_perf_aux_release_portid(u32 portid)
{
	if (portid)
		release_if(match_portid, &portid);
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_aux_release_portid);

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * damon_perf_aux_test_add() - List an event as attached by @sk.
 * @event:	an event of damon_perf_aux_event_new(), no buffer needed.
 * @sk:		the socket it stands attached by (a reference is taken).
 *
 * For KUnit: the port release without a perf AUX buffer.
 *
 * Context: process context; takes aux_lock.
 */
void damon_perf_aux_test_add(struct damon_perf_aux_event *event,
			     struct sock *sk)
{
	event_set_sock(event, sk);
	mutex_lock(&aux_lock);
	list_add_tail(&event->list, &aux_events);
	mutex_unlock(&aux_lock);
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_aux_test_add);
#endif

#ifdef DAMON_PERF_TEST_EXPORTS
/**
 * damon_perf_aux_test_flush() - Wait for every drain work to end.
 *
 * For the AUX test harness (test builds only): a drain work that still
 * held its reference when the owner freed the event cleans the buffers
 * up (unpins, uncharges) when it ends, so a harness that checks the
 * charge right after a detach waits for that first.
 *
 * Context: process context, may sleep; no aux_lock held.
 */
void damon_perf_aux_test_flush(void)
{
	flush_workqueue(aux_wq);
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_aux_test_flush);
#endif

static int aux_netlink_event(struct notifier_block *nb, unsigned long state,
			     void *ptr)
{
	struct netlink_notify *n = ptr;

	if (state == NETLINK_URELEASE && n->protocol == NETLINK_GENERIC &&
	    net_eq(n->net, &init_net))
		damon_perf_aux_release_portid(n->portid);
	return NOTIFY_DONE;
}

static struct notifier_block aux_netlink_nb = {
	.notifier_call = aux_netlink_event,
};

/*
 * Pin @nr pages at @addr, mmap_read_lock() held: the caller checked the
 * VMAs under the same hold, so the pages are the perf buffer's and no
 * munmap() or MAP_FIXED can replace them in between. FOLL_LONGTERM, as
 * the pins last as long as the attachment. No FOLL_WRITE: perf refuses
 * write faults on all its pages but the user page, and newer kernels
 * refuse FOLL_LONGTERM | FOLL_WRITE on shared mappings with page_mkwrite;
 * the mapping is shared (checked VM_SHARED), so there is no copy on
 * write, and the kernel's writes (aux_tail, data_tail) land in the very
 * page the process maps. Since 6.15 perf maps its buffers VM_PFNMAP
 * (remap_pfn_range() of its own pages), which GUP refuses: then each
 * page is found from its pfn and held by a page reference (*@refs), which
 * keeps it alive as a pin would.
 */
static int pin_locked(unsigned long addr, unsigned int nr,
		      struct page ***pagesp, bool *refs)
{
	struct vm_area_struct *vma = vma_lookup(current->mm, addr);
	struct page **pages;
	long got;

	pages = kvcalloc(nr, sizeof(*pages), GFP_KERNEL);
	if (!pages)
		return -ENOMEM;
	*refs = false;
	if (vma && (vma->vm_flags & VM_PFNMAP)) {
		/* perf's buffers since 6.15: no GUP, page references */
		got = damon_perf_get_pfnmap_pages(vma, addr, nr, pages);
		*refs = true;
	} else {
		got = damon_perf_pin_user_pages(addr, nr, FOLL_LONGTERM,
						pages);
		if (got > 0 && got != nr)
			unpin_user_pages(pages, got);
	}
	if (got != nr) {
		kvfree(pages);
		return got < 0 ? (int)got : -EFAULT;
	}
	*pagesp = pages;
	return 0;
}

/* Release what pin_locked() took. */
static void unpin(struct page **pages, unsigned int nr, bool refs)
{
	unsigned int i;

	if (!refs) {
		unpin_user_pages(pages, nr);
		return;
	}
	for (i = 0; i < nr; i++)
		put_page(pages[i]);
}

/* The VMA at @addr if it is exactly a shared, writable one of @file. */
static struct vm_area_struct *perf_vma(struct mm_struct *mm,
				       unsigned long addr, struct file *file)
{
	struct vm_area_struct *vma = vma_lookup(mm, addr);

	if (!vma || vma->vm_file != file || vma->vm_start != addr ||
	    (vma->vm_flags & (VM_WRITE | VM_SHARED)) != (VM_WRITE | VM_SHARED))
		return NULL;
	return vma;
}

/**
 * damon_perf_aux_map_pin() - Pin and map a userspace AUX buffer.
 * @map:	filled in.
 * @args:	the buffer, mapped by the calling process.
 *
 * Checks that both addresses start VMAs of @args->file, shared and
 * read-write: the data mapping at page offset 0 (the user page and a
 * power-of-two data ring), the AUX mapping at the user page's aux_offset
 * with its aux_size. With mmap_read_lock() held from those checks to the
 * last pin (another thread may munmap() or MAP_FIXED over the range the
 * moment the lock drops), pins every page FOLL_LONGTERM; then maps each
 * mapping contiguously. The pins keep the pages alive even after the
 * process unmaps them or exits.
 *
 * The pinned pages are charged to the process's locked_vm and count
 * against its RLIMIT_MEMLOCK (unless CAP_IPC_LOCK), as perf charges the
 * AUX pages it allocates beyond perf_event_mlock_kb; the charge is
 * returned at unpin, even after the process exited. perf_event_mlock_kb
 * itself (sysctl_perf_event_mlock) is not exported on 6.1, so a module
 * cannot apply the per-user perf allowance; RLIMIT_MEMLOCK is the limit.
 *
 * Context: process context of the mapping task, may sleep; takes the
 * mmap lock.
 * Return: 0, -EINVAL (mappings that are not the event's), -ENOMEM (over
 * RLIMIT_MEMLOCK, or no memory), -EFAULT (pages could not be pinned);
 * nothing is left pinned or charged on error.
 */
int damon_perf_aux_map_pin(struct damon_perf_aux_map *map,
			   const struct damon_perf_aux_args *args)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	unsigned long aux_pgoff, nr_data, nr_aux, charge;
	struct perf_event_mmap_page *up;
	int ret;

	memset(map, 0, sizeof(*map));
	if (!mm || !args->file || args->aux_size < PAGE_SIZE ||
	    args->aux_size > DAMON_PERF_AUX_MAX_SIZE ||
	    !is_power_of_2(args->aux_size) ||
	    !PAGE_ALIGNED(args->user_page) || !PAGE_ALIGNED(args->aux_addr))
		return -EINVAL;
	nr_aux = args->aux_size >> PAGE_SHIFT;
	/* a first look for the size of the charge, checked again below */
	mmap_read_lock(mm);
	vma = perf_vma(mm, args->user_page, args->file);
	nr_data = vma ? vma_pages(vma) : 0;
	mmap_read_unlock(mm);
	if (!nr_data || nr_data > DAMON_PERF_AUX_MAX_DATA_PAGES ||
	    (nr_data > 1 && !is_power_of_2(nr_data - 1)))
		return -EINVAL;
	/* charged before locking: account_locked_vm() takes the mmap lock */
	charge = nr_data + nr_aux;
	ret = account_locked_vm(mm, charge, true);
	if (ret)
		return ret;

	mmap_read_lock(mm);
	ret = -EINVAL;
	vma = perf_vma(mm, args->user_page, args->file);
	if (!vma || vma->vm_pgoff || vma_pages(vma) != nr_data)
		goto unlock;
	vma = perf_vma(mm, args->aux_addr, args->file);
	if (!vma || vma->vm_end - vma->vm_start != args->aux_size)
		goto unlock;
	aux_pgoff = vma->vm_pgoff;

	ret = pin_locked(args->user_page, nr_data, &map->data_pages,
			 &map->data_refs);
	if (ret)
		goto unlock;
	map->nr_data = nr_data;
	/* the user page as the process sees it now, before pinning more */
	up = page_address(map->data_pages[0]);
	if (READ_ONCE(up->aux_size) != args->aux_size ||
	    READ_ONCE(up->aux_offset) != (u64)aux_pgoff << PAGE_SHIFT) {
		ret = -EINVAL;
		goto unlock;
	}
	ret = pin_locked(args->aux_addr, nr_aux, &map->pages, &map->aux_refs);
	if (ret)
		goto unlock;
	map->nr_pages = nr_aux;
unlock:
	mmap_read_unlock(mm);
	/* keep only the charge of what was pinned */
	account_locked_vm(mm, charge - map->nr_data - map->nr_pages, false);
	mmgrab(mm);
	map->mm = mm;
	map->charged = map->nr_data + map->nr_pages;
	if (ret)
		goto err;

	ret = -ENOMEM;
	map->up = vmap(map->data_pages, nr_data, VM_MAP, PAGE_KERNEL);
	if (!map->up)
		goto err;
	map->data = (u8 *)map->up + PAGE_SIZE;
	map->data_size = (nr_data - 1) << PAGE_SHIFT;
	map->base = vmap(map->pages, nr_aux, VM_MAP, PAGE_KERNEL_RO);
	if (!map->base)
		goto err;
	map->size = args->aux_size;
	return 0;

err:
	damon_perf_aux_map_unpin(map);
	return ret;
}

/**
 * damon_perf_aux_map_unpin() - Undo damon_perf_aux_map_pin().
 * @map: a pinned (or partly pinned, or zeroed) map; zeroed on return.
 *
 * Context: process context, may sleep.
 */
void damon_perf_aux_map_unpin(struct damon_perf_aux_map *map)
{
	if (map->base)
		vunmap(map->base);
	if (map->pages) {
		unpin(map->pages, map->nr_pages, map->aux_refs);
		kvfree(map->pages);
	}
	if (map->up)
		vunmap(map->up);
	if (map->data_pages) {
		unpin(map->data_pages, map->nr_data, map->data_refs);
		kvfree(map->data_pages);
	}
	if (map->mm) {
		account_locked_vm(map->mm, map->charged, false);
		mmdrop(map->mm);
	}
	memset(map, 0, sizeof(*map));
}

/**
 * damon_perf_aux_init() - Set up the AUX transport.
 *
 * The backends register afterwards (module init, main.c).
 *
 * Context: module init.
 * Return: 0 or a negative errno.
 */
int damon_perf_aux_init(void)
{
	int ret;

	aux_wq = alloc_workqueue("damon_perf_aux", WQ_HIGHPRI | WQ_PERCPU, 0);
	if (!aux_wq)
		return -ENOMEM;
	ret = netlink_register_notifier(&aux_netlink_nb);
	if (ret)
		goto err_wq;
	return 0;

err_wq:
	destroy_workqueue(aux_wq);
	return ret;
}

/**
 * damon_perf_aux_exit() - Tear down every AUX buffer and the transport.
 *
 * The backends unregister afterwards, once no event uses them.
 *
 * Context: module exit, after the contexts stopped.
 */
void damon_perf_aux_exit(void)
{
	netlink_unregister_notifier(&aux_netlink_nb);
	release_if(match_all, NULL);
	destroy_workqueue(aux_wq);
}
