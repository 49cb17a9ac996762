// SPDX-License-Identifier: GPL-2.0
/*
 * The address ranges of a vaddr target: the three big chunks of its
 * process's mapped address space (everything between the lowest and the
 * highest mapping minus the two largest unmapped gaps, DAMON's vaddr
 * initial regions), read from its VMAs at start and at every update
 * interval (regions.c fits the regions to them).
 */
#include <linux/mm.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>

#include "regions.h"

struct gap {
	unsigned long start;
	unsigned long end;
};

static unsigned long gap_sz(const struct gap *g)
{
	return g->end - g->start;
}

/**
 * damon_perf_regions_vma_ranges() - The three big chunks of an mm.
 * @mm:		the address space.
 * @ranges:	receives up to three sorted, aligned ranges.
 *
 * Everything from the lowest to the highest mapping, minus the two largest
 * gaps between mappings (DAMON's vaddr initial regions).
 *
 * Context: process context; takes the mmap read lock of @mm.
 * Return: the number of ranges (1 to 3), or -ENOENT for an mm without any
 * mapping.
 */
int damon_perf_regions_vma_ranges(struct mm_struct *mm,
				  struct damon_perf_range ranges[3])
{
	struct gap first = {}, second = {}, g;
	unsigned long start = 0, prev_end = 0;
	struct vm_area_struct *vma;
	struct vma_iterator vmi;
	bool any = false;
	int n = 0;

	vma_iter_init(&vmi, mm, 0);
	mmap_read_lock(mm);
	for_each_vma(vmi, vma) {
		if (!any) {
			start = vma->vm_start;
			any = true;
		} else if (vma->vm_start > prev_end) {
			g.start = prev_end;
			g.end = vma->vm_start;
			if (gap_sz(&g) > gap_sz(&first)) {
				second = first;
				first = g;
			} else if (gap_sz(&g) > gap_sz(&second)) {
				second = g;
			}
		}
		prev_end = vma->vm_end;
	}
	mmap_read_unlock(mm);
	if (!any)
		return -ENOENT;

	if (second.start && first.start > second.start)
		swap(first, second);	/* first is now the lower gap */
	ranges[n].start = start;
	if (first.end) {
		ranges[n++].end = first.start;
		ranges[n].start = first.end;
	}
	if (second.end) {
		ranges[n++].end = second.start;
		ranges[n].start = second.end;
	}
	ranges[n++].end = prev_end;
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(damon_perf_regions_vma_ranges);

/*
 * The mm of a live vaddr target, or NULL once its process is gone. The
 * thread-group leader may have called pthread_exit(): it then stays a
 * zombie without an mm while its other threads run on, so any live
 * thread's mm (they all share it) stands for the process.
 */
static struct mm_struct *target_mm(struct damon_perf_target *t)
{
	struct task_struct *leader, *thread;
	struct mm_struct *mm = NULL;

	rcu_read_lock();
	leader = pid_task(t->pid_ref, PIDTYPE_TGID);
	if (leader) {
		for_each_thread(leader, thread) {
			mm = get_task_mm(thread);
			if (mm)
				break;
		}
	}
	rcu_read_unlock();
	return mm;
}

/**
 * damon_perf_regions_target_ranges() - The three big chunks of a process.
 * @t:		a vaddr target.
 * @ranges:	receives up to three sorted, aligned ranges.
 *
 * damon_perf_regions_vma_ranges() of the mm of @t's process.
 *
 * Context: process context; takes the mmap read lock of the mm.
 * Return: the number of ranges (1 to 3), or -ESRCH when the process is
 * gone or has no mapping.
 */
int damon_perf_regions_target_ranges(struct damon_perf_target *t,
				     struct damon_perf_range ranges[3])
{
	struct mm_struct *mm;
	int n;

	mm = target_mm(t);
	if (!mm)
		return -ESRCH;
	n = damon_perf_regions_vma_ranges(mm, ranges);
	mmput(mm);
	return n == -ENOENT ? -ESRCH : n;
}
