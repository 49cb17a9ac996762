// SPDX-License-Identifier: GPL-2.0
/*
 * The address walk: the physical address of a sampled data address, from
 * the linear map or by a lockless walk of the current task's page tables.
 * Called by the overflow handler (perf_source.c), in NMI too.
 */
#include <linux/io.h>
#include <linux/mm.h>
#include <linux/pgtable.h>
#include <linux/sched.h>
#include <linux/vmalloc.h>

#include "addr.h"

/**
 * damon_perf_walk_user() - Physical address of a user address in an mm.
 * @mm:		the address space, which the caller keeps alive.
 * @addr:	the user address.
 *
 * A lockless walk of @mm's page tables. Interrupts are off,
 * which holds off the TLB-flush IPI or RCU grace period that has to pass
 * before a page-table page is freed: the guarantee get_user_pages_fast()
 * and perf_get_pgtable_size() rely on. The IPI reaches only the CPUs of
 * mm_cpumask(@mm) on x86 before 7.2, and an NMI inside
 * switch_mm_irqs_off() can find current->mm's mask without this CPU:
 * then nothing is walked (damon_perf_pgtables_held(), compat/compat.h,
 * says where and why). Each level is read once into a
 * local copy and the next level is found from that copy, so a concurrent
 * change is seen either before or after, never torn.
 *
 * Unlike get_user_page_fast_only(), which perf_virt_to_phys() uses, this
 * takes no page reference (nothing to put in NMI) and translates PROT_NONE
 * entries: NUMA-balancing hinting faults, the most frequent page faults of
 * a running workload, fault on exactly those.
 *
 * The walk assumes a 64-bit kernel: no HIGHPTE (page tables in high memory
 * need kmap), which is why Kbuild refuses 32-bit kernels.
 *
 * Context: interrupts disabled (NMI included); no lock, no page reference.
 * Return: the physical address, 0 when nothing is mapped at @addr, the
 * page tables of @mm are not held for this CPU, or the architecture has no
 * lockless walk.
 */
phys_addr_t damon_perf_walk_user(struct mm_struct *mm, unsigned long addr)
{
#ifdef DAMON_PERF_HAVE_LOCKLESS_PGTABLE_WALK
	pgd_t *pgdp, pgd;
	p4d_t *p4dp, p4d;
	pud_t *pudp, pud;
	pmd_t *pmdp, pmd;
	pte_t pte;

	if (!damon_perf_pgtables_held(mm))
		return 0;
	pgdp = pgd_offset(mm, addr);
	pgd = READ_ONCE(*pgdp);
	if (pgd_none(pgd) || pgd_leaf(pgd))
		return 0;
	p4dp = p4d_offset_lockless(pgdp, pgd, addr);
	p4d = READ_ONCE(*p4dp);
	if (!p4d_present(p4d) || p4d_leaf(p4d))
		return 0;
	pudp = pud_offset_lockless(p4dp, p4d, addr);
	pud = READ_ONCE(*pudp);
	if (!pud_present(pud))
		return 0;
	if (pud_leaf(pud))
		return PFN_PHYS(pud_pfn(pud)) + (addr & ~PUD_MASK);
	pmdp = pmd_offset_lockless(pudp, pud, addr);
	pmd = READ_ONCE(*pmdp);
	if (!pmd_present(pmd))
		return 0;
	if (pmd_leaf(pmd))
		return PFN_PHYS(pmd_pfn(pmd)) + (addr & ~PMD_MASK);
	/* the table of the copy just checked; no kmap: no HIGHPTE on 64-bit */
	pte = ptep_get_lockless(pte_offset_kernel(&pmd, addr));
	if (!pte_present(pte))
		return 0;
	return PFN_PHYS(pte_pfn(pte)) + (addr & ~PAGE_MASK);
#else
	return 0;
#endif
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_walk_user);

/**
 * damon_perf_virt_to_phys() - Physical address of a sampled data address.
 * @addr:	the sample's virtual data address.
 *
 * What perf_virt_to_phys() (not exported) computes in perf's own output
 * path: a kernel linear-map address by arithmetic, a user address of the
 * current task by a lockless page-table walk. Nothing for vmalloc or other
 * kernel addresses, a task without an mm (kernel threads), or a user page
 * that is not mapped (not yet faulted in, swapped out, being migrated).
 *
 * Context: any, including NMI; takes no lock and no page reference.
 * Return: the physical address, 0 when it cannot be found.
 */
phys_addr_t damon_perf_virt_to_phys(unsigned long addr)
{
	phys_addr_t phys = 0;
	struct mm_struct *mm;
	unsigned long flags;

	if (!addr)
		return 0;
	if (!damon_perf_user_vaddr(addr)) {
		if (virt_addr_valid((void *)addr) &&
		    !is_vmalloc_addr((void *)addr))
			phys = virt_to_phys((void *)addr);
		return phys;
	}
	/*
	 * Our own mm: it cannot go away under us, exit_mm() and exec clear
	 * or switch current->mm in this task, not under its NMI.
	 */
	mm = READ_ONCE(current->mm);
	if (!mm || (current->flags & PF_KTHREAD))
		return 0;
	local_irq_save(flags);
	phys = damon_perf_walk_user(mm, addr);
	local_irq_restore(flags);
	return phys;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_virt_to_phys);
