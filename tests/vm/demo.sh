#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# numa: yes
# kernels: stock
# The demo payload (make demo): load the module, show what damonctl and the
# observability counters say.
. /tests/lib.sh

echo "== damon_perf demo on the $DAMON_PERF_KERNEL kernel ($(uname -r)):" \
	"$(nproc) CPUs, $(ls -d /sys/devices/system/node/node* 2>/dev/null | wc -l) NUMA nodes"
numa_balancing_fast
load_module damon_perf || finish
if [ -x /bin/damonctl ]; then
	echo "== damonctl status"
	if out=$(damonctl status 2>&1); then
		echo "$out"
		ok "damonctl status"
	else
		echo "$out"
		not_ok "damonctl status"
	fi
else
	todo "damonctl status" "damonctl not in the image"
fi
echo "== /sys/kernel/debug/damon_perf/perf_stats"
if [ -r /sys/kernel/debug/damon_perf/perf_stats ]; then
	cat /sys/kernel/debug/damon_perf/perf_stats
	ok "perf_stats readable"
else
	todo "perf_stats readable" "not there yet"
fi
unload_module damon_perf
finish
