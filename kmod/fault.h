/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fault sites of the module's own: failures that failslab and
 * fail_page_alloc cannot reach (the percpu allocator, for one), injected
 * through the kernel's fault-injection framework
 * (Documentation/fault-injection/fault-injection.rst there).
 *
 * Each site is a struct fault_attr named damon_perf_fail_<site>, with its
 * knobs in /sys/kernel/debug/damon_perf/damon_perf_fail_<site>/
 * (probability, times, interval, task-filter, verbose, ...). Like every
 * fault_attr it also counts towards a task's /proc/<pid>/fail-nth, so the
 * tests that walk fail-nth over every site of a request reach these too.
 * Without CONFIG_FAULT_INJECTION a site never fails and costs nothing.
 */
#ifndef _DAMON_PERF_FAULT_H
#define _DAMON_PERF_FAULT_H

#include <linux/dcache.h>
#include <linux/fault-inject.h>

#ifdef CONFIG_FAULT_INJECTION
/* alloc_percpu() of a perf source's per-CPU state (perf_source.c) */
extern struct fault_attr damon_perf_fail_percpu;

/* True when site @name (damon_perf_fail_<name>) is to fail now. */
#define damon_perf_should_fail(name) \
	should_fail(&damon_perf_fail_##name, 1)
#else
#define damon_perf_should_fail(name) false
#endif

void damon_perf_fault_init(struct dentry *dir);

#endif
