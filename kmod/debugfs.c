// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs: /sys/kernel/debug/damon_perf/
 *
 *   perf_stats		per-CPU observe counters and lifecycle state
 *   ctx<id>/rings	per-CPU report ring counters of one context
 *   subscribers	the notification subscriptions (netlink_notify.c)
 *
 * The first two are tables: a header line of column names, then one row per CPU
 * and a "total" row, fields separated by one space. Columns are only ever
 * added at the end. Documentation/perf_stats.rst describes every field.
 */
#include <linux/cpu.h>
#include <linux/debugfs.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "ctx_types.h"
#include "debugfs.h"
#include "fault.h"
#include "ring.h"
#include "stats.h"

struct dentry *damon_perf_debugfs_root;

/*
 * Contexts with debugfs files. A rings file names its context by id, not
 * by pointer, and is created without debugfs' removal protection: _del
 * then never waits for a reader, which may be blocked on a lock the
 * caller of _del holds. A reader finds the context here under ctx_lock,
 * so it sees only contexts not yet deleted.
 */
struct ctx_entry {
	struct list_head list;
	struct damon_perf_ctx *ctx;
	u32 id;
	struct dentry *dir;
};

static LIST_HEAD(ctx_list);
static DEFINE_MUTEX(ctx_lock);

static void stats_row(struct seq_file *m, const struct damon_perf_stats *st)
{
	int i;

	seq_printf(m, " %s", damon_perf_state_name(st->cpu_state));
	for (i = 0; i < NR_DAMON_PERF_STATS; i++)
		seq_printf(m, " %lu", damon_perf_stats_get(st, i));
	seq_putc(m, '\n');
}

static int perf_stats_show(struct seq_file *m, void *v)
{
	struct damon_perf_stats one, total;
	int cpu, i;

	seq_puts(m, "cpu state");
	for (i = 0; i < NR_DAMON_PERF_STATS; i++)
		seq_printf(m, " %s", damon_perf_stat_name(i));
	seq_putc(m, '\n');

	/* The total is folded from the printed rows, so it always adds up. */
	memset(&total, 0, sizeof(total));
	total.cpu_state = NR_DAMON_PERF_STATES;
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		damon_perf_stats_snapshot(cpu, &one);
		damon_perf_stats_add(&total, &one);
		seq_printf(m, "%d", cpu);
		stats_row(m, &one);
	}
	cpus_read_unlock();
	if (total.cpu_state == NR_DAMON_PERF_STATES)
		total.cpu_state = DAMON_PERF_STATE_UNINIT;
	seq_puts(m, "total");
	stats_row(m, &total);
	return 0;
}

static int perf_stats_open(struct inode *inode, struct file *file)
{
	return single_open(file, perf_stats_show, inode->i_private);
}

/* "reset" (optionally newline-terminated) restarts every counter. */
static ssize_t perf_stats_write(struct file *file, const char __user *ubuf,
				size_t len, loff_t *ppos)
{
	char buf[8];

	if (len == 0 || len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	if (strcmp(strim(buf), "reset"))
		return -EINVAL;
	damon_perf_stats_reset();
	return len;
}

static const struct file_operations perf_stats_fops = {
	.owner = THIS_MODULE,
	.open = perf_stats_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.write = perf_stats_write,
	.release = single_release,
};

static void rings_row(struct seq_file *m,
		      const struct damon_perf_ring_stats *st)
{
	seq_printf(m, " %u %u %lu %lu %lu %lu %lu %u %lu\n", st->size,
		   st->occupancy, st->enqueue, st->dequeue, st->overflow,
		   st->busy_drop, st->no_probe, st->peak, st->early_wake);
}

static int rings_show(struct seq_file *m, void *v)
{
	u32 id = (u32)(unsigned long)m->private;
	struct damon_perf_ring_stats one, total = {};
	struct damon_perf_ctx *ctx = NULL;
	struct ctx_entry *e;
	int cpu, ret = 0;

	seq_puts(m, "cpu size occupancy enqueue dequeue overflow busy_drop no_probe peak early_wake\n");

	mutex_lock(&ctx_lock);
	list_for_each_entry(e, &ctx_list, list) {
		if (e->id == id) {
			ctx = e->ctx;
			break;
		}
	}
	if (!ctx) {
		ret = -ENODEV;
		goto out;
	}
	/* The context is alive (listed); its rings may come and go. */
	mutex_lock(&damon_perf_rings_lock);
	if (!ctx->rings.ring) {
		mutex_unlock(&damon_perf_rings_lock);
		goto out;
	}
	for_each_possible_cpu(cpu) {
		damon_perf_ring_read_stats(&ctx->rings, cpu, &one);
		seq_printf(m, "%d", cpu);
		rings_row(m, &one);
		total.size = one.size;
		total.occupancy += one.occupancy;
		total.enqueue += one.enqueue;
		total.dequeue += one.dequeue;
		total.overflow += one.overflow;
		total.busy_drop += one.busy_drop;
		total.no_probe += one.no_probe;
		total.peak = max(total.peak, one.peak);
		total.early_wake += one.early_wake;
	}
	mutex_unlock(&damon_perf_rings_lock);
	seq_puts(m, "total");
	rings_row(m, &total);
out:
	mutex_unlock(&ctx_lock);
	return ret;
}

static int rings_open(struct inode *inode, struct file *file)
{
	return single_open(file, rings_show, inode->i_private);
}

static const struct file_operations rings_fops = {
	.owner = THIS_MODULE,
	.open = rings_open,
	.read_iter = seq_read_iter,
	.llseek = seq_lseek,
	.release = single_release,
};

/**
 * damon_perf_debugfs_ctx_add() - Create ctx<id>/rings for a new context.
 * @ctx:	the context, with its id set.
 *
 * Also records the id in @ctx->rings for tracepoints. Best effort, like
 * all of debugfs: a failure leaves the context without the files.
 *
 * Context: process; with or without damon_perf_lock.
 */
void damon_perf_debugfs_ctx_add(struct damon_perf_ctx *ctx)
{
	struct ctx_entry *e;
	char name[16];

	/* The rings report this id in damon_perf_ring_overflow. */
	ctx->rings.ctx_id = ctx->id;
	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return;
	e->ctx = ctx;
	e->id = ctx->id;
	snprintf(name, sizeof(name), "ctx%u", ctx->id);
	e->dir = debugfs_create_dir(name, damon_perf_debugfs_root);
	debugfs_create_file_unsafe("rings", 0400, e->dir,
				   (void *)(unsigned long)ctx->id,
				   &rings_fops);
	mutex_lock(&ctx_lock);
	list_add_tail(&e->list, &ctx_list);
	mutex_unlock(&ctx_lock);
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_debugfs_ctx_add);

/**
 * damon_perf_debugfs_ctx_del() - Remove the files of a context.
 * @ctx:	the context, before it is freed.
 *
 * After this returns no reader touches @ctx. Never waits for a reader.
 *
 * Context: process; with or without damon_perf_lock.
 */
void damon_perf_debugfs_ctx_del(struct damon_perf_ctx *ctx)
{
	struct ctx_entry *e, *found = NULL;

	mutex_lock(&ctx_lock);
	list_for_each_entry(e, &ctx_list, list) {
		if (e->ctx == ctx) {
			list_del(&e->list);
			found = e;
			break;
		}
	}
	mutex_unlock(&ctx_lock);
	if (!found)
		return;
	debugfs_remove_recursive(found->dir);
	kfree(found);
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_debugfs_ctx_del);

/**
 * damon_perf_debugfs_init() - Create /sys/kernel/debug/damon_perf.
 *
 * With its files: perf_stats, and the knobs of the fault sites (fault.h).
 *
 * Context: module init.
 * Return: 0; a kernel without debugfs is not an error.
 */
int damon_perf_debugfs_init(void)
{
	damon_perf_debugfs_root = debugfs_create_dir("damon_perf", NULL);
	debugfs_create_file("perf_stats", 0600, damon_perf_debugfs_root, NULL,
			    &perf_stats_fops);
	damon_perf_fault_init(damon_perf_debugfs_root);
	return 0;
}

/**
 * damon_perf_debugfs_exit() - Remove the debugfs directory and its files.
 *
 * Context: module exit, after every context is gone.
 */
void damon_perf_debugfs_exit(void)
{
	struct ctx_entry *e, *next;

	debugfs_remove_recursive(damon_perf_debugfs_root);
	damon_perf_debugfs_root = NULL;
	mutex_lock(&ctx_lock);
	list_for_each_entry_safe(e, next, &ctx_list, list) {
		list_del(&e->list);
		kfree(e);
	}
	mutex_unlock(&ctx_lock);
}
