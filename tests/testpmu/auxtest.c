// SPDX-License-Identifier: GPL-2.0
/*
 * AUX transport harness (tests only, needs a KUnit kernel for the
 * exports): drives damon_perf's AUX attach, per-CPU drain and report
 * rings without a monitoring context, through debugfs:
 *
 *   damon_perf_auxtest/attach  write "CPU FD USER_PAGE AUX_ADDR AUX_SIZE PID"
 *                              (hex addresses) from the process owning FD;
 *                              with a seventh field SLOT, the buffer goes
 *                              through damon_perf_aux_attach() (no
 *                              context, probe slot SLOT) instead, which
 *                              detach tears down too, and a refusal's
 *                              extack message is kept for
 *   damon_perf_auxtest/error   read: that message
 *   damon_perf_auxtest/drain   read: drain every buffer on its CPU, consume
 *                              the rings, print the running totals
 *   damon_perf_auxtest/detach  write anything: tear every buffer down;
 *                              returns when every buffer is unpinned
 *
 * Reports are classified by the module parameters hot_start/hot_len;
 * ring_size sets the report rings' size (a small one makes drains stop at
 * a full ring and keep the rest of the AUX data for the next drain).
 * Reports on the page of marker count as "marked": records a process
 * wrote into memory of its own, which no attach may ever pin.
 */
#include <linux/debugfs.h>
#include <linux/file.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "aux.h"
#include "ring.h"

static unsigned long hot_start = 0x7f1000000000UL;
module_param(hot_start, ulong, 0644);
MODULE_PARM_DESC(hot_start, "first address of the hot range");
static unsigned long hot_len = 64UL << 12;
module_param(hot_len, ulong, 0644);
MODULE_PARM_DESC(hot_len, "hot range length in bytes");

static unsigned long marker = 0x4141414000UL;
module_param(marker, ulong, 0644);
MODULE_PARM_DESC(marker, "address of records no drain may ever see");

static unsigned int ring_size = 4096;
module_param(ring_size, uint, 0444);
MODULE_PARM_DESC(ring_size, "report ring entries per CPU (power of two)");

static DEFINE_MUTEX(lock);
static struct dentry *dir;
static struct damon_perf_aux_event *event;
static struct damon_perf_rings rings;
static bool have_rings;
static char last_error[128];

static struct {
	u64 reports, hot, other, writes, bad, drains, marked;
} tot;

static void count(const struct damon_perf_report *r, void *arg)
{
	tot.reports++;
	if (r->vaddr >= hot_start && r->vaddr < hot_start + hot_len)
		tot.hot++;
	else
		tot.other++;
	if (r->is_write)
		tot.writes++;
	if ((r->vaddr & PAGE_MASK) == (marker & PAGE_MASK))
		tot.marked++;
	if (r->src != DAMON_PERF_SRC_AUX || r->probe_idx != 1 ||
	    (r->vaddr & ~PAGE_MASK))
		tot.bad++;
}

static ssize_t attach_write(struct file *file, const char __user *ubuf,
			    size_t len, loff_t *ppos)
{
	struct damon_perf_aux_req req = { .probe_idx = 1 };
	struct damon_perf_aux_args args;
	unsigned long long up, aux, size;
	unsigned int cpu, slot;
	int fd, pid, ret;
	char *kbuf;

	kbuf = memdup_user_nul(ubuf, min_t(size_t, len, 200));
	if (IS_ERR(kbuf))
		return PTR_ERR(kbuf);
	ret = sscanf(kbuf, "%u %d %llx %llx %llx %d %u", &cpu, &fd, &up, &aux,
		     &size, &pid, &slot);
	kfree(kbuf);
	if (ret != 6 && ret != 7)
		return -EINVAL;
	req.cpu = cpu;
	req.fd = fd;
	req.user_page = up;
	req.aux_addr = aux;
	req.aux_size = size;
	req.pid = pid;

	mutex_lock(&lock);
	if (ret == 7) {
		struct netlink_ext_ack ext = {};

		req.probe_idx = slot > U8_MAX ? 0 : slot;
		ret = damon_perf_aux_attach(NULL, &req, 0, &ext);
		strscpy(last_error, ext._msg ? ext._msg : "",
			sizeof(last_error));
		goto out;
	}
	if (!have_rings) {
		ret = damon_perf_rings_alloc(&rings, ring_size, NULL, NULL);
		if (ret)
			goto out;
		have_rings = true;
	}
	if (!event) {
		event = damon_perf_aux_event_new(NULL, 1, 0, pid);
		if (!event) {
			ret = -ENOMEM;
			goto out;
		}
	}
	ret = damon_perf_aux_args_get(&req, &args, NULL);
	if (ret)
		goto out;
	ret = damon_perf_aux_event_add_cpu(event, cpu, &args);
	if (ret)
		fput(args.file);
out:
	mutex_unlock(&lock);
	return ret ? ret : len;
}

static int drain_show(struct seq_file *m, void *v)
{
	u64 records = 0, errors = 0, refused = 0, scanned = 0, overlong = 0;
	u64 stops = 0;
	int cpu;

	mutex_lock(&lock);
	if (event && have_rings) {
		damon_perf_aux_event_drain(event, &rings);
		tot.drains++;
		for_each_possible_cpu(cpu)
			damon_perf_ring_drain(&rings, cpu, count, NULL);
		for_each_cpu(cpu, &event->aux_cpumask) {
			struct damon_perf_aux_cpu *pc =
				per_cpu_ptr(event->pcpu, cpu);

			records += pc->records;
			errors += pc->errors;
			refused += pc->refused;
			scanned += pc->scanned;
			overlong += pc->overlong;
			stops += pc->budget_stops;
		}
	}
	seq_printf(m, "drains %llu reports %llu hot %llu other %llu",
		   tot.drains, tot.reports, tot.hot, tot.other);
	seq_printf(m, " writes %llu bad %llu records %llu errors %llu",
		   tot.writes, tot.bad, records, errors);
	seq_printf(m, " refused %llu scanned %llu overlong %llu", refused,
		   scanned, overlong);
	seq_printf(m, " budget_stops %llu marked %llu\n", stops, tot.marked);
	mutex_unlock(&lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(drain);

static int error_show(struct seq_file *m, void *v)
{
	mutex_lock(&lock);
	seq_printf(m, "%s\n", last_error);
	mutex_unlock(&lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(error);

static void detach(void)
{
	damon_perf_aux_release_ctx(NULL);
	damon_perf_aux_event_free(event);
	event = NULL;
	/* a drain work that ended after the wait releases the buffers */
	damon_perf_aux_test_flush();
}

static ssize_t detach_write(struct file *file, const char __user *ubuf,
			    size_t len, loff_t *ppos)
{
	mutex_lock(&lock);
	detach();
	mutex_unlock(&lock);
	return len;
}

static const struct file_operations attach_fops = {
	.owner = THIS_MODULE,
	.write = attach_write,
};

static const struct file_operations detach_fops = {
	.owner = THIS_MODULE,
	.write = detach_write,
};

static int __init auxtest_init(void)
{
	dir = debugfs_create_dir("damon_perf_auxtest", NULL);
	debugfs_create_file("attach", 0200, dir, NULL, &attach_fops);
	debugfs_create_file("drain", 0400, dir, NULL, &drain_fops);
	debugfs_create_file("detach", 0200, dir, NULL, &detach_fops);
	debugfs_create_file("error", 0400, dir, NULL, &error_fops);
	return 0;
}

static void __exit auxtest_exit(void)
{
	debugfs_remove(dir);
	detach();
	if (have_rings)
		damon_perf_rings_free(&rings);
}

module_init(auxtest_init);
module_exit(auxtest_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("damon_perf tests: AUX transport harness");
DAMON_PERF_IMPORT_KUNIT_NS();
