/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ARM SPE AUX backend: decodes SPE records from a pinned AUX buffer into
 * access reports (see aux.h for the transport).
 */
#ifndef _DAMON_PERF_SPE_H
#define _DAMON_PERF_SPE_H

int damon_perf_spe_init(void);
void damon_perf_spe_exit(void);

#endif /* _DAMON_PERF_SPE_H */
