#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The module loads, shows its debugfs directory and generic netlink family,
# and unloads without leaving anything behind.
. /tests/lib.sh

load_module damon_perf || finish
check "debugfs directory exists" test -d /sys/kernel/debug/damon_perf
check "module is live" grep -q '^damon_perf .* Live ' /proc/modules
if [ -x /bin/damonctl ]; then
	check "damonctl status sees the damon_perf family" damonctl status
else
	todo "damonctl status sees the damon_perf family" "damonctl not in the image"
fi
unload_module damon_perf
check "debugfs directory removed" test ! -e /sys/kernel/debug/damon_perf
finish
