/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ARM SPE AUX backend: decodes SPE records from a pinned AUX buffer into
 * access reports (see aux.h for the transport).
 */
#ifndef _DAMON_PERF_SPE_H
#define _DAMON_PERF_SPE_H

#include <linux/perf_event.h>
#include <linux/types.h>

struct damon_perf_aux_event;

int damon_perf_spe_init(void);
void damon_perf_spe_exit(void);

#if DAMON_PERF_KUNIT_HOOKS
int damon_perf_spe_test_attach(struct damon_perf_aux_event *event, int cpu,
			       struct perf_event_mmap_page *up, u8 *data,
			       unsigned long data_size, void *aux,
			       unsigned long aux_size);
#endif

#endif /* _DAMON_PERF_SPE_H */
