/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A debugfs file whose open runs a test and whose read returns its report,
 * shared by the test modules (tests/nmi/nmitest.c, tests/conform/conform.c,
 * tests/conform/spe.c), one source file each.
 *
 * The test is the file's data (debugfs_create_file(name, 0400, dir, fn,
 * &run_fops), fn a void (*)(struct out *)); open allocates the report,
 * runs fn under run_lock (a module may take the lock for its own state as
 * well), ends the report with "errors N" and keeps it for read until the
 * file is released. The test writes its report with say() and counts a
 * failure with fail(), which prints the first 40 as "FAIL ..." lines.
 */
#ifndef _DAMON_PERF_RUNFILE_H
#define _DAMON_PERF_RUNFILE_H

#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>

/* Size of one report. */
#define OUT_SIZE	(64 * 1024)

/**
 * struct out - The report of one run.
 * @buf:	OUT_SIZE bytes.
 * @len:	bytes written.
 * @errors:	failures counted.
 */
struct out {
	char *buf;
	size_t len;
	int errors;
};

static __printf(2, 3) void say(struct out *o, const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	o->len += vscnprintf(o->buf + o->len, OUT_SIZE - o->len, fmt, args);
	va_end(args);
}

#define fail(o, fmt, ...) do {						\
	struct out *__fo = (o);						\
									\
	__fo->errors++;							\
	if (__fo->errors <= 40)						\
		say(__fo, "FAIL " fmt "\n", ##__VA_ARGS__);		\
} while (0)

/* One run at a time. */
static DEFINE_MUTEX(run_lock);

static int run_open(struct inode *inode, struct file *file)
{
	void (*run)(struct out *o) = inode->i_private;
	struct out *o;

	o = kzalloc(sizeof(*o), GFP_KERNEL);
	if (!o)
		return -ENOMEM;
	o->buf = kvzalloc(OUT_SIZE, GFP_KERNEL);
	if (!o->buf) {
		kfree(o);
		return -ENOMEM;
	}
	if (mutex_lock_interruptible(&run_lock)) {
		kvfree(o->buf);
		kfree(o);
		return -EINTR;
	}
	run(o);
	say(o, "errors %d\n", o->errors);
	mutex_unlock(&run_lock);
	file->private_data = o;
	return 0;
}

static ssize_t run_read(struct file *file, char __user *ubuf, size_t len,
			loff_t *ppos)
{
	struct out *o = file->private_data;

	return simple_read_from_buffer(ubuf, len, ppos, o->buf, o->len);
}

static int run_release(struct inode *inode, struct file *file)
{
	struct out *o = file->private_data;

	kvfree(o->buf);
	kfree(o);
	return 0;
}

static const struct file_operations run_fops = {
	.owner		= THIS_MODULE,
	.open		= run_open,
	.read		= run_read,
	.release	= run_release,
	.llseek		= default_llseek,
};

#endif /* _DAMON_PERF_RUNFILE_H */
