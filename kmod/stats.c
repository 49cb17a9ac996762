// SPDX-License-Identifier: GPL-2.0
/* PLACEHOLDER: replaced by its owner. */
#include "stats.h"

int damon_perf_stats_init(void)
{
	return 0;
}

void damon_perf_stats_exit(void)
{
}
