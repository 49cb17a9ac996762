/* SPDX-License-Identifier: GPL-2.0 */
/*
 * AUX trace-buffer backends (ARM SPE and the like): a small registry of
 * backend operations, the choice of a backend for a perf event whose PMU
 * advertises AUX tracing, per-CPU AUX buffers handed over by userspace,
 * and drains scheduled on the CPU that owns each buffer.
 *
 * Stock kernels give a module no way to own an AUX buffer: a kernel
 * counter has no ring buffer, and the AUX area exists only once a task
 * mmaps it. So damonctl opens the PMU per CPU with perf_event_open(),
 * mmaps the data and AUX areas, and attaches them here (see
 * damon_perf_aux_attach()); the backend pins those pages and consumes the
 * AUX data in the kernel, zero-copy.
 */
#ifndef _DAMON_PERF_AUX_H
#define _DAMON_PERF_AUX_H

#include <linux/bits.h>
#include <linux/cpumask.h>
#include <linux/list.h>
#include <linux/netlink.h>
#include <linux/perf_event.h>
#include <linux/refcount.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "ring.h"

struct damon_perf_ctx;
struct damon_perf_aux_event;
struct sock;

/**
 * struct damon_perf_aux_args - One CPU's AUX buffer as userspace mapped it.
 * @file:	the perf event's file (aux.c holds a reference).
 * @event:	the perf event behind @file.
 * @user_page:	address of the mmapped &struct perf_event_mmap_page.
 * @aux_addr:	address of the mmapped AUX area.
 * @aux_size:	its size in bytes, a power of two number of pages.
 * @pid:	global tgid the event is bound to, 0 for a CPU-wide event.
 */
struct damon_perf_aux_args {
	struct file *file;
	struct perf_event *event;
	unsigned long user_page;
	unsigned long aux_addr;
	unsigned long aux_size;
	pid_t pid;
};

/**
 * struct damon_perf_backend_ops - PMU-specific AUX backend operations.
 * @name:	backend name.
 * @flags:	DAMON_PERF_BACKEND_* bits.
 * @match_pmu:	true when this backend understands @perf_event's AUX data.
 * @init:	set up @cpu's buffer of @event (pin, map, private state).
 * @cleanup:	release what @init set up for @cpu.
 * @arm:	prepare @cpu's buffer before the first drain.
 * @disarm:	quiesce @cpu's buffer; no drain follows until @arm.
 * @drain:	parse @cpu's pending AUX data into reports; runs on @cpu
 *		with CPU hotplug held off; returns the reports accepted.
 *
 * All callbacks run in process context. aux.c serializes them per event
 * and calls @drain only for CPUs in &damon_perf_aux_event.aux_cpumask.
 */
struct damon_perf_backend_ops {
	const char *name;
	u32 flags;
	bool (*match_pmu)(struct perf_event *perf_event);
	int (*init)(struct damon_perf_aux_event *event, int cpu,
		    const struct damon_perf_aux_args *args);
	void (*cleanup)(struct damon_perf_aux_event *event, int cpu);
	int (*arm)(struct damon_perf_aux_event *event, int cpu);
	void (*disarm)(struct damon_perf_aux_event *event, int cpu);
	unsigned int (*drain)(struct damon_perf_aux_event *event, int cpu);
};

#define DAMON_PERF_BACKEND_AUX		BIT(0)
#define DAMON_PERF_AUX_MAX_BACKENDS	4

/**
 * struct damon_perf_aux_cpu - One CPU's buffer of an AUX event.
 * @work:	the drain, queued on this CPU.
 * @event:	owning event.
 * @file:	perf event file reference.
 * @priv:	backend state.
 * @cpu:	this CPU.
 * @queued:	queueings of @work not yet run to their end (each holds a
 *		reference on @event).
 * @records:	records decoded.
 * @reports:	reports accepted by the ring.
 * @refused:	drains stopped by a full ring (data kept for the next one).
 * @errors:	bytes the parser skipped.
 * @restarts:	times the event was re-enabled after a truncation.
 * @scanned:	bytes handed to the parser (work done, for the bound).
 * @overlong:	records dropped for running past the longest record.
 * @budget_stops: drains that stopped at their work bound with data left.
 */
struct damon_perf_aux_cpu {
	struct work_struct work;
	struct damon_perf_aux_event *event;
	struct file *file;
	void *priv;
	int cpu;
	atomic_t queued;
	u64 records;
	u64 reports;
	u64 refused;
	u64 errors;
	u64 restarts;
	u64 scanned;
	u64 overlong;
	u64 budget_stops;
};

/**
 * struct damon_perf_aux_event - AUX buffers of one probe of a context.
 * @ops:	selected backend.
 * @aux_cpumask: CPUs with a buffer.
 * @pcpu:	per-CPU buffers (valid for CPUs in @aux_cpumask).
 * @ctx:	owning context.
 * @rings:	report rings, set only while a drain runs (the kdamond's
 *		wait for its works); a push reads it once, with preemption
 *		disabled, so a grace period after it is cleared ends every
 *		push into the rings it named.
 * @portid:	netlink port of the attaching process; its release tears
 *		the event down ...
 * @sk:		... once the socket that attached it (held; NULL: none) is
 *		dead: the port id alone may be another socket's by then.
 * @pid:	global tgid the events are bound to, 0 for CPU-wide.
 * @probe_idx:	1-based probe index carried by the reports.
 * @list:	in the global event list.
 * @ref:	the owner's reference (the list, or a test) and one per
 *		queued drain work: the buffers go when the last is dropped.
 * @idle:	woken when a drain work ends.
 * @accepted:	reports the drain works accepted since the kdamond last
 *		collected them.
 * @wait:	how long a drain waits for its works (jiffies): a bound, so
 *		that a CPU whose kworker starves (an RT task spinning there
 *		with RT throttling off) holds up no lock for ever;
 *		MAX_SCHEDULE_TIMEOUT, for tests, waits for every work.
 */
struct damon_perf_aux_event {
	const struct damon_perf_backend_ops *ops;
	cpumask_t aux_cpumask;
	struct damon_perf_aux_cpu __percpu *pcpu;
	struct damon_perf_ctx *ctx;
	struct damon_perf_rings *rings;
	u32 portid;
	struct sock *sk;
	pid_t pid;
	u8 probe_idx;
	struct list_head list;
	refcount_t ref;
	wait_queue_head_t idle;
	atomic_t accepted;
	long wait;
};

/**
 * struct damon_perf_aux_req - An attach request (from netlink).
 * @cpu:	CPU of the perf event.
 * @fd:		perf event file descriptor in the calling process.
 * @user_page:	address of its mmapped first page.
 * @aux_addr:	address of its mmapped AUX area.
 * @aux_size:	size of the AUX area.
 * @pid:	tgid the event is bound to in the requester's PID namespace,
 *		0 for CPU-wide.
 * @probe_idx:	1-based probe index for the reports.
 * @sk:		the requesting netlink socket, NULL for none (tests): the
 *		buffer lives until that socket is released.
 */
struct damon_perf_aux_req {
	u32 cpu;
	s32 fd;
	u64 user_page;
	u64 aux_addr;
	u64 aux_size;
	pid_t pid;
	u8 probe_idx;
	struct sock *sk;
};

/**
 * struct damon_perf_aux_map - A pinned, kernel-mapped AUX buffer.
 * @data_pages:	pinned pages of the data mapping (user page first).
 * @nr_data:	number of @data_pages.
 * @up:		kernel mapping of the data mapping: the user page
 *		(aux_head, aux_tail, data_head, data_tail) ...
 * @data:	... followed by the data ring (PERF_RECORD_AUX records).
 * @data_size:	data ring size in bytes (power of two, may be 0).
 * @pages:	pinned AUX pages.
 * @nr_pages:	number of @pages.
 * @base:	contiguous read-only kernel mapping of @pages.
 * @size:	AUX size in bytes (power of two).
 * @mm:		address space the pages are charged to (mmgrab()bed).
 * @charged:	pages charged to @mm's locked_vm.
 * @data_refs:	@data_pages hold page references, not pins (a VM_PFNMAP
 *		perf mapping, 6.15 and later) ...
 * @aux_refs:	... and @pages too.
 */
struct damon_perf_aux_map {
	struct page **data_pages;
	unsigned int nr_data;
	struct perf_event_mmap_page *up;
	u8 *data;
	unsigned long data_size;
	struct page **pages;
	unsigned int nr_pages;
	void *base;
	unsigned long size;
	struct mm_struct *mm;
	unsigned long charged;
	bool data_refs;
	bool aux_refs;
};

/* Largest data mapping (user page + ring) a backend maps: 1 + 256 pages. */
#define DAMON_PERF_AUX_MAX_DATA_PAGES	257
/* Largest AUX area a backend maps: 64 MiB. */
#define DAMON_PERF_AUX_MAX_SIZE		(64UL << 20)

int damon_perf_aux_map_pin(struct damon_perf_aux_map *map,
			   const struct damon_perf_aux_args *args);
void damon_perf_aux_map_unpin(struct damon_perf_aux_map *map);

int damon_perf_aux_init(void);
void damon_perf_aux_exit(void);

int damon_perf_aux_register_backend(const struct damon_perf_backend_ops *ops);
void
damon_perf_aux_unregister_backend(const struct damon_perf_backend_ops *ops);
const struct damon_perf_backend_ops *
damon_perf_aux_find_backend(struct perf_event *perf_event);
void damon_perf_aux_select(struct damon_perf_aux_event *event,
			   struct perf_event *perf_event);

struct damon_perf_aux_event *
damon_perf_aux_event_new(struct damon_perf_ctx *ctx, u8 probe_idx, u32 portid,
			 pid_t pid);
int damon_perf_aux_event_add_cpu(struct damon_perf_aux_event *event, int cpu,
				 const struct damon_perf_aux_args *args);
void damon_perf_aux_event_free(struct damon_perf_aux_event *event);
unsigned int damon_perf_aux_event_drain(struct damon_perf_aux_event *event,
					struct damon_perf_rings *rings);

bool damon_perf_aux_report(struct damon_perf_aux_event *event,
			   struct damon_perf_report *report);
unsigned int damon_perf_aux_report_batch(struct damon_perf_aux_event *event,
					 struct damon_perf_report *reports,
					 unsigned int nr);

bool damon_perf_aux_is_perf_file(struct file *file);
int damon_perf_aux_args_get(const struct damon_perf_aux_req *req,
			    struct damon_perf_aux_args *args,
			    struct netlink_ext_ack *extack);
int damon_perf_aux_attach(struct damon_perf_ctx *ctx,
			  const struct damon_perf_aux_req *req, u32 portid,
			  struct netlink_ext_ack *extack);
unsigned int damon_perf_aux_drain(struct damon_perf_ctx *ctx);
bool damon_perf_aux_attached(struct damon_perf_ctx *ctx);
void damon_perf_aux_release_ctx(struct damon_perf_ctx *ctx);
void damon_perf_aux_release_portid(u32 portid);
#if IS_ENABLED(CONFIG_KUNIT)
void damon_perf_aux_test_add(struct damon_perf_aux_event *event,
			     struct sock *sk);
#endif
#ifdef DAMON_PERF_TEST_EXPORTS
void damon_perf_aux_test_flush(void);
#endif

#endif /* _DAMON_PERF_AUX_H */
