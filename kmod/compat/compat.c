// SPDX-License-Identifier: GPL-2.0
/*
 * Out-of-line fallbacks for what older kernels lack (compat.h says which
 * and why). Empty on a kernel that has everything.
 */
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/netlink.h>

/**
 * damon_perf_get_pfnmap_pages() - References on the pages of a VM_PFNMAP
 * range.
 * @vma:	the mapping (VM_PFNMAP), whose owner the caller checked.
 * @start:	first address, page aligned, in @vma.
 * @nr:		pages wanted.
 * @pages:	filled with @nr referenced pages (put_page() each).
 *
 * perf maps its ring and AUX buffers with remap_pfn_range() since 6.15
 * (map_range() in kernel/events/core.c), so pin_user_pages() fails on
 * them; their pfns are ordinary kernel pages, each with its own reference
 * (high-order AUX allocations are split_page()d), and a reference keeps
 * one alive after perf frees its buffer.
 *
 * Context: process context, the mmap lock of @vma's mm held.
 * Return: @nr, or -EFAULT with no reference taken (a hole, a pfn without
 * a struct page, or a kernel without follow_pfnmap_start()).
 */
long damon_perf_get_pfnmap_pages(struct vm_area_struct *vma,
				 unsigned long start, unsigned int nr,
				 struct page **pages)
{
#ifdef DAMON_PERF_HAVE_FOLLOW_PFNMAP
	unsigned int i;

	for (i = 0; i < nr; i++) {
		struct follow_pfnmap_args args = {
			.vma = vma,
			.address = start + ((unsigned long)i << PAGE_SHIFT),
		};
		struct page *page = NULL;

		if (args.address >= vma->vm_end || follow_pfnmap_start(&args))
			goto err;
		if (pfn_valid(args.pfn)) {
			page = pfn_to_page(args.pfn);
			if (!get_page_unless_zero(page))
				page = NULL;
		}
		follow_pfnmap_end(&args);
		if (!page)
			goto err;
		pages[i] = page;
	}
	return nr;
err:
	while (i--)
		put_page(pages[i]);
#endif
	return -EFAULT;
}

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
