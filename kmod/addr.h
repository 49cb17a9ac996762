/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The address walk (addr.c): physical addresses of sampled data
 * addresses, in any context including NMI.
 */
#ifndef _DAMON_PERF_ADDR_H
#define _DAMON_PERF_ADDR_H

#include <linux/mm.h>
#include <linux/types.h>

/* Whether @addr is a user address (below every kernel address). */
static inline bool damon_perf_user_vaddr(unsigned long addr)
{
	return addr < TASK_SIZE_MAX;
}

phys_addr_t damon_perf_virt_to_phys(unsigned long addr);
phys_addr_t damon_perf_walk_user(struct mm_struct *mm, unsigned long addr);

#endif /* _DAMON_PERF_ADDR_H */
