// SPDX-License-Identifier: GPL-2.0
/*
 * Out-of-line fallbacks for what older kernels lack (compat.h says which
 * and why). Empty on a kernel that has everything.
 */
#include <linux/kernel.h>
#include <linux/netlink.h>

#ifndef DAMON_PERF_HAVE_NL_ERR_MSG_FMT
#define NR_MSGBUF	16
#define MSGBUF_LEN	128

static char msgbuf[NR_MSGBUF][MSGBUF_LEN];
static unsigned int msgbuf_next;

/**
 * damon_perf_compat_err_msg_fmt() - NL_SET_ERR_MSG_FMT() where it is absent.
 * @extack:	where the message goes; NULL: nowhere.
 * @fmt:	printf format of the message, then its arguments.
 *
 * The message lives in a ring of static buffers, so it outlives the
 * handler until netlink_ack() copies it (a message is only overwritten
 * after 15 more have been formatted).
 *
 * Context: damon_perf_lock held (every netlink handler holds it), which
 * serializes the writers of the ring.
 */
void damon_perf_compat_err_msg_fmt(struct netlink_ext_ack *extack,
				   const char *fmt, ...)
{
	char *buf;
	va_list args;

	if (!extack)
		return;
	buf = msgbuf[msgbuf_next++ % NR_MSGBUF];
	va_start(args, fmt);
	vsnprintf(buf, MSGBUF_LEN, fmt, args);
	va_end(args);
	extack->_msg = buf;
}
#endif

#ifdef DAMON_PERF_HAVE_PERF_PARANOID_ANY
#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/string.h>

/**
 * damon_perf_compat_allow_any() - perf_event_open()'s perf_paranoid_any()
 * test, for the current credentials.
 *
 * Debian's kernels (6.1, 6.12 and 7.2 alike) add perf_event_paranoid 3,
 * the default where CONFIG_SECURITY_PERF_EVENTS_RESTRICT is set (Debian's
 * own images, 12's included): perf_event_open() then refuses every caller
 * without CAP_SYS_ADMIN, CAP_PERFMON not being enough. perf_paranoid_any()
 * is an inline reading sysctl_perf_event_paranoid, which is not exported,
 * so the value is read where userspace reads it. A value that cannot be read
 * (no /proc in the caller's mount namespace) refuses too: the check fails
 * closed, and only for callers it could refuse at all.
 *
 * Context: process context, may sleep.
 * Return: 0, or -EACCES as perf_event_open() would return it.
 */
int damon_perf_compat_allow_any(void)
{
	char buf[16] = {};
	struct file *f;
	loff_t pos = 0;
	ssize_t n;
	int v;

	if (capable(CAP_SYS_ADMIN))
		return 0;
	f = filp_open("/proc/sys/kernel/perf_event_paranoid", O_RDONLY, 0);
	if (IS_ERR(f))
		return -EACCES;
	n = kernel_read(f, buf, sizeof(buf) - 1, &pos);
	filp_close(f, NULL);
	if (n <= 0 || kstrtoint(strim(buf), 10, &v))
		return -EACCES;
	return v > 2 ? -EACCES : 0;
}
#endif
