// SPDX-License-Identifier: GPL-2.0
/*
 * ARM SPE AUX backend.
 *
 * Each CPU's AUX buffer, mapped by damonctl and pinned by aux.c, is
 * consumed here on its own CPU: the bytes between our tail and the
 * published aux_head are parsed in place (zero-copy; only a record that
 * wraps around the end of the buffer goes through a small bounce copy),
 * each record with a data address becomes one access report, and
 * aux_tail advances only past records the ring accepted, so a full ring
 * leaves the rest for the next drain.
 */
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "aux.h"
#include "spe.h"
#include "spe_parse.h"
#include "stats.h"

/* Holds any record the parser accepts, and the packet that overruns it. */
#define SPE_BOUNCE	(DAMON_PERF_SPE_REC_MAX + DAMON_PERF_SPE_PKT_MAX)
/*
 * One drain parses at most SPE_DRAIN_BUDGET bytes of one CPU's buffer, in
 * slices of SPE_SLICE with a scheduling point between them; the rest
 * waits for the next sample interval. A slice is longer than a bounce, so
 * each one consumes something unless a record is still being written.
 */
#define SPE_SLICE	(16UL << 10)
#define SPE_DRAIN_BUDGET (4UL << 20)
/* Ends of PARTIAL transactions the parse has not reached yet (a FIFO). */
#define SPE_CUTS	32

/**
 * struct spe_buf - One CPU's SPE buffer.
 * @map:	pinned user page and AUX pages.
 * @event:	the perf event (its file is held by aux.c).
 * @tail:	consumer position in the AUX stream (published as aux_tail).
 * @pid:	tgid the event is bound to, 0 for CPU-wide.
 * @last_tid:	cache of the last CONTEXT id resolved to a tgid, for
 *		one drain only: a thread id may name another thread by the
 *		next (its thread exited, the id was reused) ...
 * @last_tgid:	... and that tgid.
 * @resync:	@tail is inside a dropped overlong record (parser state).
 * @test:	@map is plain memory from a test, not pinned pages.
 * @cuts:	stream offsets where a PERF_AUX_FLAG_PARTIAL transaction
 *		ended: the record there is incomplete, the next one starts
 *		after the driver's padding. A FIFO, ...
 * @cut_head:	... its producer index (scan_data()) ...
 * @cut_tail:	... and consumer index (the parse), both free-running.
 * @restart:	the PMU stopped on a full buffer; restart it once a drain
 *		has left room.
 * @bounce:	copy of a record that wraps around the end of the buffer.
 */
struct spe_buf {
	struct damon_perf_aux_map map;
	struct perf_event *event;
	u64 tail;
	pid_t pid;
	pid_t last_tid;
	pid_t last_tgid;
	bool resync;
	bool test;
	u64 cuts[SPE_CUTS];
	unsigned int cut_head;
	unsigned int cut_tail;
	bool restart;
	u8 bounce[SPE_BOUNCE];
};

struct spe_drain {
	struct damon_perf_aux_event *event;
	struct spe_buf *buf;
	unsigned int accepted;
	unsigned int no_addr;
};

static struct spe_buf *cpu_buf(struct damon_perf_aux_event *event, int cpu)
{
	return per_cpu_ptr(event->pcpu, cpu)->priv;
}

static bool spe_match_pmu(struct perf_event *perf_event)
{
	const char *name = perf_event->pmu->name;

	return name && !strncmp(name, "arm_spe", 7);
}

static int spe_init(struct damon_perf_aux_event *event, int cpu,
		    const struct damon_perf_aux_args *args)
{
	struct spe_buf *buf;
	int ret;

	buf = kzalloc(sizeof(*buf), GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	ret = damon_perf_aux_map_pin(&buf->map, args);
	if (ret) {
		kfree(buf);
		return ret;
	}
	buf->event = args->event;
	buf->pid = args->pid;
	per_cpu_ptr(event->pcpu, cpu)->priv = buf;
	return 0;
}

static void spe_cleanup(struct damon_perf_aux_event *event, int cpu)
{
	struct damon_perf_aux_cpu *pc = per_cpu_ptr(event->pcpu, cpu);
	struct spe_buf *buf = pc->priv;

	if (!buf)
		return;
	if (!buf->test)
		damon_perf_aux_map_unpin(&buf->map);
	kfree(buf);
	pc->priv = NULL;
}

static int spe_arm(struct damon_perf_aux_event *event, int cpu)
{
	struct spe_buf *buf = cpu_buf(event, cpu);

	/* start where userspace left the consumer */
	buf->tail = READ_ONCE(buf->map.up->aux_tail);
	return 0;
}

/* Thread group of the thread whose pid the CONTEXT packet carries. */
static pid_t tgid_of(struct spe_buf *buf, pid_t tid)
{
	struct task_struct *task;
	pid_t tgid = 0;

	if (tid == buf->last_tid)
		return buf->last_tgid;
	rcu_read_lock();
	task = pid_task(find_pid_ns(tid, &init_pid_ns), PIDTYPE_PID);
	if (task)
		tgid = task_tgid_nr(task);
	rcu_read_unlock();
	buf->last_tid = tid;
	buf->last_tgid = tgid;
	return tgid;
}

static bool spe_record(const struct damon_perf_spe_record *rec, void *arg)
{
	struct spe_drain *d = arg;
	struct damon_perf_report r = { 0 };

	/* branches and other operations carry no data address */
	if (!(rec->flags & (DAMON_PERF_SPE_REC_VADDR |
			    DAMON_PERF_SPE_REC_PADDR))) {
		d->no_addr++;
		return true;
	}
	if (rec->flags & DAMON_PERF_SPE_REC_VADDR)
		r.vaddr = (unsigned long)rec->vaddr & PAGE_MASK;
	if (rec->flags & DAMON_PERF_SPE_REC_PADDR)
		r.paddr = (unsigned long)rec->paddr & PAGE_MASK;
	r.size = PAGE_SIZE;
	r.time_ns = damon_perf_clock_ns();
	r.is_write = !!(rec->flags & DAMON_PERF_SPE_REC_STORE);
	if (rec->flags & DAMON_PERF_SPE_REC_CONTEXT) {
		r.tid = (pid_t)rec->context_id;
		r.tgid = tgid_of(d->buf, r.tid);
	} else {
		r.tid = d->buf->pid;
		r.tgid = d->buf->pid;
	}
	if (!damon_perf_aux_report(d->event, &r))
		return false;
	d->accepted++;
	return true;
}

/*
 * A record cut by the end of the buffer: parse it from a bounce copy of
 * the bytes at @tail, wrapping to the start. Returns the bytes consumed.
 */
static size_t parse_wrapped(struct spe_buf *buf, u64 tail, u64 avail,
			    struct damon_perf_spe_stats *st,
			    struct spe_drain *d)
{
	unsigned long size = buf->map.size;
	unsigned long off = tail & (size - 1);
	size_t n = min_t(u64, avail, SPE_BOUNCE);
	size_t first = min_t(size_t, n, size - off);

	memcpy(buf->bounce, buf->map.base + off, first);
	memcpy(buf->bounce + first, buf->map.base, n - first);
	return damon_perf_spe_parse(buf->bounce, n, tail, st, spe_record, d);
}

/* Copy @n bytes at data ring position @pos, wrapping around its end. */
static void data_read(const struct damon_perf_aux_map *map, u64 pos,
		      void *dst, size_t n)
{
	unsigned long mask = map->data_size - 1;
	u8 *d = dst;
	size_t i;

	for (i = 0; i < n; i++)
		d[i] = map->data[(pos + i) & mask];
}

/*
 * Consume the data ring, which only carries PERF_RECORD_AUX and the like
 * here, counting the flags of its PERF_RECORD_AUX records and noting
 * where each PARTIAL one ends (its last record is incomplete: the SPE
 * driver sets it with TRUNCATED when PMBSR_EL1.DL says data was lost);
 * true when one says the PMU truncated its AUX data (buffer full, or that
 * loss), which disables the event until its consumer enables it again.
 */
static bool scan_data(struct spe_buf *buf)
{
	struct damon_perf_aux_map *map = &buf->map;
	unsigned long nr_trunc = 0, nr_coll = 0, nr_partial = 0;
	struct perf_event_header hdr;
	u64 head, tail, rec[3];

	if (!map->data_size)
		return false;
	head = READ_ONCE(map->up->data_head);
	/* C: pairs with B (smp_wmb() before data_head) in the perf core */
	smp_rmb();
	tail = READ_ONCE(map->up->data_tail);
	while (head - tail >= sizeof(hdr) && head - tail <= map->data_size) {
		data_read(map, tail, &hdr, sizeof(hdr));
		if (hdr.size < sizeof(hdr) || hdr.size > head - tail)
			break;
		/* PERF_RECORD_AUX: header, aux_offset, aux_size, flags */
		if (hdr.type == PERF_RECORD_AUX &&
		    hdr.size >= sizeof(hdr) + 3 * sizeof(u64)) {
			data_read(map, tail + sizeof(hdr), rec, sizeof(rec));
			nr_trunc += !!(rec[2] & PERF_AUX_FLAG_TRUNCATED);
			nr_coll += !!(rec[2] & PERF_AUX_FLAG_COLLISION);
			if (rec[2] & PERF_AUX_FLAG_PARTIAL) {
				nr_partial++;
				/* a full FIFO: that record is parsed as is */
				if (buf->cut_head - buf->cut_tail < SPE_CUTS)
					buf->cuts[buf->cut_head++ % SPE_CUTS] =
						rec[0] + rec[1];
			}
		}
		tail += hdr.size;
	}
	/* D: record reads before the tail store; pairs with A in the core */
	smp_mb();
	WRITE_ONCE(map->up->data_tail, head);
	damon_perf_observe_aux(DAMON_PERF_STAT_aux_truncated, nr_trunc);
	damon_perf_observe_aux(DAMON_PERF_STAT_aux_collision, nr_coll);
	damon_perf_observe_aux(DAMON_PERF_STAT_aux_partial, nr_partial);
	return nr_trunc;
}

static unsigned int spe_drain(struct damon_perf_aux_event *event, int cpu)
{
	struct damon_perf_aux_cpu *pc = per_cpu_ptr(event->pcpu, cpu);
	struct spe_buf *buf = pc->priv;
	struct perf_event_mmap_page *up = buf->map.up;
	unsigned long size = buf->map.size, off;
	struct damon_perf_spe_stats st = { 0 };
	struct spe_drain d = { .event = event, .buf = buf };
	u64 head, tail = buf->tail, avail, chunk, scanned = 0;
	bool truncated;
	size_t used;

	BUILD_BUG_ON(SPE_SLICE <= SPE_BOUNCE);
	/* tids resolved by an earlier drain may name other threads now */
	buf->last_tid = -1;
	truncated = scan_data(buf);
	head = READ_ONCE(up->aux_head);
	/* pairs with the PMU driver's barrier before perf_aux_output_end() */
	smp_rmb();
	/*
	 * TRUNCATED: the PMU stopped on a full buffer. A buffer full to the
	 * byte stopped it too, with no record: perf_aux_output_begin() found
	 * no space, asked for a disable and returned nothing.
	 */
	if (truncated || head - tail == size)
		buf->restart = true;
	st.resync = buf->resync;
	if (head - tail > size) {
		/* overwritten data (cannot happen in non-overwrite mode) */
		pc->errors++;
		tail = head;
		st.resync = false;
	}
	while (tail != head && !st.refused) {
		u64 end = head;

		if (scanned >= SPE_DRAIN_BUDGET) {
			pc->budget_stops++;
			break;
		}
		/* parse no record across the end of a PARTIAL transaction */
		while (buf->cut_tail != buf->cut_head &&
		       (s64)(buf->cuts[buf->cut_tail % SPE_CUTS] - tail) <= 0)
			buf->cut_tail++;
		if (buf->cut_tail != buf->cut_head &&
		    buf->cuts[buf->cut_tail % SPE_CUTS] - tail < head - tail)
			end = buf->cuts[buf->cut_tail % SPE_CUTS];
		avail = end - tail;
		off = tail & (size - 1);
		chunk = min3(avail, (u64)(size - off), (u64)SPE_SLICE);
		used = damon_perf_spe_parse(buf->map.base + off, chunk, tail,
					    &st, spe_record, &d);
		scanned += chunk;
		if (!used && !st.refused) {
			if (chunk == avail) {
				if (end != head)
					goto cut;
				break;	/* a record still being written */
			}
			if (off + chunk == size && chunk < SPE_BOUNCE) {
				/* a record cut by the end of the buffer */
				used = parse_wrapped(buf, tail, avail, &st, &d);
				scanned += min_t(u64, avail, SPE_BOUNCE);
			}
			if (!used && !st.refused) {
				if (avail < SPE_BOUNCE && end != head)
					goto cut;
				if (avail < SPE_BOUNCE)
					break;	/* still being written */
				/*
				 * An alignment packet asking for more than a
				 * slice: no record is that long, skip a byte.
				 */
				pc->errors++;
				used = 1;
			}
		}
		tail += used;
		cond_resched();
		continue;
cut:
		/*
		 * Up to @end, the incomplete last record of a PARTIAL
		 * transaction: dropped (counted in aux_partial); the next
		 * record starts there, after the driver's padding.
		 */
		tail = end;
		buf->cut_tail++;
		st.resync = false;
	}

	buf->resync = st.resync;
	pc->scanned += scanned;
	pc->overlong += st.overlong;
	pc->records += st.records;
	pc->errors += st.errors;
	pc->reports += d.accepted;
	damon_perf_observe_aux(DAMON_PERF_STAT_aux_record,
			       d.accepted + d.no_addr);
	damon_perf_observe_aux(DAMON_PERF_STAT_aux_no_addr, d.no_addr);
	if (st.refused)
		pc->refused++;
	if (tail != buf->tail) {
		buf->tail = tail;
		/*
		 * Order the AUX data reads above before the tail store that
		 * lets the PMU overwrite them; pairs with the control
		 * dependency on aux_tail in perf_aux_output_begin().
		 */
		smp_mb();
		WRITE_ONCE(up->aux_tail, tail);
	}
	/*
	 * Restart a PMU that stopped on a full buffer once there is room:
	 * perf_aux_output_begin() refuses a handle without space, and an
	 * event enabled before a drain freed any (a full report ring) would
	 * stop again at once, with no TRUNCATED record to say so. A disable
	 * first: perf's disable of a truncated event may never have happened
	 * (6.1 stable flags it with the CPU number, which __perf_pending_irq()
	 * reads as "no disable" on CPU 0; an event whose add failed is not
	 * running there), and an enable of an event still enabled does
	 * nothing, so only a disable and an enable restart it for sure.
	 * And a disable perf did without a TRUNCATED record (6.1 again: a
	 * stale disable request of an event that was not running when it
	 * was made is served at its next wakeup) leaves it off: an attached
	 * event that perf turned off is restarted too (damonctl never turns
	 * one off; per-task events sleep INACTIVE, not OFF).
	 */
	if (buf->event) {
		int state = READ_ONCE(buf->event->state);

		/* not EXIT or DEAD: a task event whose task is gone */
		if (state == PERF_EVENT_STATE_OFF ||
		    state == PERF_EVENT_STATE_ERROR)
			buf->restart = true;
	}
	if (buf->restart && head - tail < size - 1) {
		buf->restart = false;
		if (buf->event) {
			perf_event_disable(buf->event);
			perf_event_enable(buf->event);
		}
		pc->restarts++;
	}
	return d.accepted;
}

static const struct damon_perf_backend_ops spe_ops;

#if DAMON_PERF_KUNIT_HOOKS
/**
 * damon_perf_spe_test_attach() - Give a CPU an SPE buffer of plain memory.
 * @event:	an AUX event without a backend or with the SPE one.
 * @cpu:	an online CPU without a buffer.
 * @up:		stands for the user page (aux_head/aux_tail, data_*).
 * @data:	stands for the data ring, @data_size bytes (power of two).
 * @data_size:	its size, 0 for none.
 * @aux:	stands for the AUX area, @aux_size bytes (power of two).
 * @aux_size:	its size.
 *
 * For KUnit: drives the SPE drain over buffers a test fills by hand. The
 * memory stays the test's; cleanup does not unpin it.
 *
 * Context: process context.
 * Return: 0 or -ENOMEM.
 */
int damon_perf_spe_test_attach(struct damon_perf_aux_event *event, int cpu,
			       struct perf_event_mmap_page *up, u8 *data,
			       unsigned long data_size, void *aux,
			       unsigned long aux_size)
{
	struct spe_buf *buf = kzalloc(sizeof(*buf), GFP_KERNEL);

	if (!buf)
		return -ENOMEM;
	buf->test = true;
	buf->map.up = up;
	buf->map.data = data;
	buf->map.data_size = data_size;
	buf->map.base = aux;
	buf->map.size = aux_size;
	buf->tail = READ_ONCE(up->aux_tail);
	buf->pid = event->pid;
	per_cpu_ptr(event->pcpu, cpu)->priv = buf;
	event->ops = &spe_ops;
	cpumask_set_cpu(cpu, &event->aux_cpumask);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_spe_test_attach);
#endif

static const struct damon_perf_backend_ops spe_ops = {
	.name = "arm_spe",
	.flags = DAMON_PERF_BACKEND_AUX,
	.match_pmu = spe_match_pmu,
	.init = spe_init,
	.cleanup = spe_cleanup,
	.arm = spe_arm,
	.drain = spe_drain,
};

/**
 * damon_perf_spe_init() - Register the SPE backend.
 *
 * Context: module init, after damon_perf_aux_init().
 * Return: 0 or a negative errno.
 */
int damon_perf_spe_init(void)
{
	return damon_perf_aux_register_backend(&spe_ops);
}

/**
 * damon_perf_spe_exit() - Unregister the SPE backend.
 *
 * Context: module exit, after damon_perf_aux_exit() freed every AUX event.
 */
void damon_perf_spe_exit(void)
{
	damon_perf_aux_unregister_backend(&spe_ops);
}
