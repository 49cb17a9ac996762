// SPDX-License-Identifier: GPL-2.0
/* PLACEHOLDER: replaced by its owner. */
#include "perf_source.h"

int damon_perf_source_init(void)
{
	return 0;
}

void damon_perf_source_exit(void)
{
}
