// SPDX-License-Identifier: GPL-2.0
/* PLACEHOLDER: replaced by its owner. */
#include "aux.h"

int damon_perf_aux_init(void)
{
	return 0;
}

void damon_perf_aux_exit(void)
{
}
