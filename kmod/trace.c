// SPDX-License-Identifier: GPL-2.0
/*
 * Instantiates the damon_perf tracepoints declared in trace.h.
 */
#define CREATE_TRACE_POINTS
#include "trace.h"
