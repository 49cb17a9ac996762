/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _DAMON_PERF_AUX_H
#define _DAMON_PERF_AUX_H

int damon_perf_aux_init(void);
void damon_perf_aux_exit(void);

#endif
