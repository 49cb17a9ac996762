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
