// SPDX-License-Identifier: GPL-2.0
/*
 * AUX trace-buffer backends: registry, selection, attach of userspace
 * mapped AUX buffers, per-CPU drain scheduling and teardown.
 *
 * Locking: backends_lock guards the registry; aux_lock guards the event
 * list and every event's buffers (add, drain, free). A drain holds
 * cpus_read_lock() from queueing the per-CPU works until they are flushed,
 * so a buffer's CPU cannot go away while its drain is pending; the work
 * is queued with queue_work_on() on a per-CPU workqueue and therefore runs
 * on the CPU that owns the buffer, the only producer its rings allow.
 */
#include <linux/cpu.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/log2.h>
#include <linux/magic.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/netlink.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <net/net_namespace.h>

#include "aux.h"
#include "ctx.h"
#include "kunit_export.h"
#include "spe.h"

static const struct damon_perf_backend_ops *
	backends[DAMON_PERF_AUX_MAX_BACKENDS];
static DEFINE_MUTEX(backends_lock);

static LIST_HEAD(aux_events);
static DEFINE_MUTEX(aux_lock);
static struct workqueue_struct *aux_wq;

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
DAMON_PERF_EXPORT_FOR_KUNIT(damon_perf_aux_register_backend);

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
DAMON_PERF_EXPORT_FOR_KUNIT(damon_perf_aux_unregister_backend);

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
DAMON_PERF_EXPORT_FOR_KUNIT(damon_perf_aux_find_backend);

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
DAMON_PERF_EXPORT_FOR_KUNIT(damon_perf_aux_select);

static void drain_work(struct work_struct *work)
{
	struct damon_perf_aux_cpu *pc =
		container_of(work, struct damon_perf_aux_cpu, work);
	struct damon_perf_aux_event *event = pc->event;

	pc->last = 0;
	if (event->ops && event->rings)
		pc->last = event->ops->drain(event, pc->cpu);
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
	return event;
}
DAMON_PERF_EXPORT_FOR_KUNIT(damon_perf_aux_event_new);

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
DAMON_PERF_EXPORT_FOR_KUNIT(damon_perf_aux_event_add_cpu);

/**
 * damon_perf_aux_event_free() - Disarm, clean up and free an AUX event.
 * @event: the event, off the global list (or never on it).
 *
 * Context: process context, may sleep; no drain of @event may run.
 */
void damon_perf_aux_event_free(struct damon_perf_aux_event *event)
{
	int cpu;

	if (!event)
		return;
	for_each_cpu(cpu, &event->aux_cpumask) {
		struct damon_perf_aux_cpu *pc = per_cpu_ptr(event->pcpu, cpu);

		flush_work(&pc->work);
		if (event->ops->disarm)
			event->ops->disarm(event, cpu);
		event->ops->cleanup(event, cpu);
		if (pc->file)
			fput(pc->file);
	}
	free_percpu(event->pcpu);
	kfree(event);
}
DAMON_PERF_EXPORT_FOR_KUNIT(damon_perf_aux_event_free);

/**
 * damon_perf_aux_event_drain() - Drain every buffer of @event on its CPU.
 * @event:	the event.
 * @rings:	rings the reports go to.
 *
 * Queues the backend's drain on each online CPU of @event->aux_cpumask
 * and waits for all of them, with CPU hotplug held off throughout.
 * Buffers of offline CPUs keep their data until the CPU comes back.
 *
 * Context: process context, may sleep; aux_lock held or @event private.
 * Return: the reports the rings accepted.
 */
unsigned int damon_perf_aux_event_drain(struct damon_perf_aux_event *event,
					struct damon_perf_rings *rings)
{
	unsigned int total = 0;
	int cpu;

	if (!event->ops || cpumask_empty(&event->aux_cpumask))
		return 0;
	/* published to the works by queue_work_on()'s ordering */
	event->rings = rings;
	cpus_read_lock();
	for_each_cpu_and(cpu, &event->aux_cpumask, cpu_online_mask)
		queue_work_on(cpu, aux_wq,
			      &per_cpu_ptr(event->pcpu, cpu)->work);
	for_each_cpu_and(cpu, &event->aux_cpumask, cpu_online_mask) {
		struct damon_perf_aux_cpu *pc = per_cpu_ptr(event->pcpu, cpu);

		flush_work(&pc->work);
		total += pc->last;
	}
	cpus_read_unlock();
	event->rings = NULL;
	return total;
}
DAMON_PERF_EXPORT_FOR_KUNIT(damon_perf_aux_event_drain);

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
	bool ok;

	if (!event->rings)
		return false;
	report->src = DAMON_PERF_SRC_AUX;
	report->probe_idx = event->probe_idx;
	/* the ring's producer must not be preempted by another one */
	preempt_disable();
	report->cpu = smp_processor_id();
	ok = damon_perf_report_access(event->rings, report);
	preempt_enable();
	return ok;
}
DAMON_PERF_EXPORT_FOR_KUNIT(damon_perf_aux_report);

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
DAMON_PERF_EXPORT_FOR_KUNIT(damon_perf_aux_report_batch);

/* A perf event file: an anon inode named as perf_event_open() names it. */
static bool is_perf_file(struct file *file)
{
	struct inode *inode = file_inode(file);

	return inode && inode->i_sb &&
	       inode->i_sb->s_magic == ANON_INODE_FS_MAGIC &&
	       !strcmp(file_dentry(file)->d_name.name, "[perf_event]") &&
	       file->private_data;
}

static struct damon_perf_aux_event *find_event(struct damon_perf_ctx *ctx,
					       u8 probe_idx, u32 portid)
{
	struct damon_perf_aux_event *event;

	list_for_each_entry(event, &aux_events, list)
		if (event->ctx == ctx && event->probe_idx == probe_idx &&
		    event->portid == portid)
			return event;
	return NULL;
}

/**
 * damon_perf_aux_args_get() - Resolve an attach request's perf event.
 * @req:	the request.
 * @args:	filled in; holds a reference on @args->file on success.
 * @extack:	error message.
 *
 * The fd must be a perf event of the calling process bound to @req->cpu.
 *
 * Context: process context of the requesting task.
 * Return: 0, or -EBADF / -EINVAL with @extack set.
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
	if (!is_perf_file(args->file)) {
		NL_SET_ERR_MSG(extack, "AUX: fd is not a perf event");
		goto err;
	}
	args->event = args->file->private_data;
	if (args->event->cpu != req->cpu) {
		NL_SET_ERR_MSG(extack,
			       "AUX: perf event is not bound to this CPU");
		goto err;
	}
	args->user_page = req->user_page;
	args->aux_addr = req->aux_addr;
	args->aux_size = req->aux_size;
	args->pid = req->pid;
	return 0;
err:
	fput(args->file);
	args->file = NULL;
	return -EINVAL;
}
DAMON_PERF_EXPORT_FOR_KUNIT(damon_perf_aux_args_get);

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
 *
 * Context: process context of the requesting task, may sleep.
 * Return: 0 or a negative errno with @extack set.
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
	ret = damon_perf_aux_args_get(req, &args, extack);
	if (ret)
		return ret;

	mutex_lock(&aux_lock);
	event = find_event(ctx, req->probe_idx, portid);
	if (!event) {
		event = damon_perf_aux_event_new(ctx, req->probe_idx, portid,
						 req->pid);
		if (!event) {
			ret = -ENOMEM;
			goto err_unlock;
		}
		created = true;
	}
	ret = damon_perf_aux_event_add_cpu(event, req->cpu, &args);
	if (ret) {
		if (ret == -EOPNOTSUPP)
			NL_SET_ERR_MSG(extack,
				       "AUX: PMU has no AUX tracing backend");
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

/**
 * damon_perf_aux_drain() - Drain every AUX buffer attached to @ctx.
 * @ctx: a running context (its rings exist).
 *
 * Context: the context's kdamond, each sample interval, before it drains
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

static bool match_portid(struct damon_perf_aux_event *event, void *arg)
{
	return event->portid == *(u32 *)arg;
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

/**
 * damon_perf_aux_release_portid() - Tear down the buffers of a netlink port.
 * @portid: the port of a closed socket (its process exited or closed it).
 *
 * Context: process context, may sleep; takes aux_lock.
 */
void damon_perf_aux_release_portid(u32 portid)
{
	if (portid)
		release_if(match_portid, &portid);
}

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
 * Pin @nr pages at @addr, the first @nr_write of them for writing, and
 * map them contiguously; NULL on failure. Perf refuses write faults on
 * every page of its mappings but the user page.
 */
static void *pin_map(unsigned long addr, unsigned int nr,
		     unsigned int nr_write, struct page ***pagesp,
		     pgprot_t prot)
{
	struct page **pages;
	long got = 0, more;
	void *base;

	pages = kvcalloc(nr, sizeof(*pages), GFP_KERNEL);
	if (!pages)
		return NULL;
	if (nr_write) {
		got = pin_user_pages_fast(addr, nr_write, FOLL_WRITE, pages);
		if (got != nr_write)
			goto err;
	}
	if (nr > nr_write) {
		more = pin_user_pages_fast(addr + (got << PAGE_SHIFT),
					   nr - got, 0, pages + got);
		if (more > 0)
			got += more;
		if (got != nr)
			goto err;
	}
	base = vmap(pages, nr, VM_MAP, prot);
	if (!base)
		goto err;
	*pagesp = pages;
	return base;
err:
	if (got > 0)
		unpin_user_pages(pages, got);
	kvfree(pages);
	return NULL;
}

/**
 * damon_perf_aux_map_pin() - Pin and map a userspace AUX buffer.
 * @map:	filled in.
 * @args:	the buffer, mapped by the calling process.
 *
 * Checks that both addresses start VMAs of @args->file, read-write: the
 * data mapping at page offset 0 (the user page and a power-of-two data
 * ring), the AUX mapping at the user page's aux_offset with its aux_size.
 * Pins the user page for writing (aux_tail, data_tail), the data ring and
 * the AUX pages for reading, and maps each mapping contiguously. The pins
 * keep the pages alive even after the process unmaps them or exits.
 * FOLL_LONGTERM is not used: newer kernels refuse it for writable shared
 * mappings with page_mkwrite, which perf mappings are, and these
 * kernel-allocated perf pages are never migrated anyway.
 *
 * Context: process context of the mapping task, may sleep.
 * Return: 0 or a negative errno; nothing is left pinned on error.
 */
int damon_perf_aux_map_pin(struct damon_perf_aux_map *map,
			   const struct damon_perf_aux_args *args)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	unsigned long aux_pgoff = 0, nr_data = 0;
	int ret = -EINVAL;

	memset(map, 0, sizeof(*map));
	if (!mm || !args->file || args->aux_size < PAGE_SIZE ||
	    args->aux_size > DAMON_PERF_AUX_MAX_SIZE ||
	    !is_power_of_2(args->aux_size) ||
	    !PAGE_ALIGNED(args->user_page) || !PAGE_ALIGNED(args->aux_addr))
		return -EINVAL;

	mmap_read_lock(mm);
	vma = vma_lookup(mm, args->user_page);
	if (!vma || vma->vm_file != args->file || vma->vm_pgoff ||
	    vma->vm_start != args->user_page || !(vma->vm_flags & VM_WRITE))
		goto unlock;
	nr_data = vma_pages(vma);
	if (nr_data > DAMON_PERF_AUX_MAX_DATA_PAGES ||
	    (nr_data > 1 && !is_power_of_2(nr_data - 1)))
		goto unlock;
	vma = vma_lookup(mm, args->aux_addr);
	if (!vma || vma->vm_file != args->file ||
	    vma->vm_start != args->aux_addr ||
	    vma->vm_end - vma->vm_start != args->aux_size ||
	    !(vma->vm_flags & VM_WRITE))
		goto unlock;
	aux_pgoff = vma->vm_pgoff;
	ret = 0;
unlock:
	mmap_read_unlock(mm);
	if (ret)
		return ret;

	map->up = pin_map(args->user_page, nr_data, 1, &map->data_pages,
			  PAGE_KERNEL);
	if (!map->up)
		return -EFAULT;
	map->nr_data = nr_data;
	map->data = (u8 *)map->up + PAGE_SIZE;
	map->data_size = (nr_data - 1) << PAGE_SHIFT;
	if (READ_ONCE(map->up->aux_size) != args->aux_size ||
	    READ_ONCE(map->up->aux_offset) != (u64)aux_pgoff << PAGE_SHIFT) {
		ret = -EINVAL;
		goto err;
	}
	map->base = pin_map(args->aux_addr, args->aux_size >> PAGE_SHIFT, 0,
			    &map->pages, PAGE_KERNEL_RO);
	if (!map->base) {
		ret = -EFAULT;
		goto err;
	}
	map->nr_pages = args->aux_size >> PAGE_SHIFT;
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
	if (map->base) {
		vunmap(map->base);
		unpin_user_pages(map->pages, map->nr_pages);
		kvfree(map->pages);
	}
	if (map->up) {
		vunmap(map->up);
		unpin_user_pages(map->data_pages, map->nr_data);
		kvfree(map->data_pages);
	}
	memset(map, 0, sizeof(*map));
}

/**
 * damon_perf_aux_init() - Set up the AUX transport and its backends.
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
	ret = damon_perf_spe_init();
	if (ret)
		goto err_nb;
	return 0;

err_nb:
	netlink_unregister_notifier(&aux_netlink_nb);
err_wq:
	destroy_workqueue(aux_wq);
	return ret;
}

/**
 * damon_perf_aux_exit() - Tear down every AUX buffer and the backends.
 *
 * Context: module exit, after the contexts stopped.
 */
void damon_perf_aux_exit(void)
{
	netlink_unregister_notifier(&aux_netlink_nb);
	release_if(match_all, NULL);
	damon_perf_spe_exit();
	destroy_workqueue(aux_wq);
}
