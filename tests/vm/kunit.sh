#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# needs: test-build
# kernels: debug
# Runs every KUnit suite: loading damon_perf_kunit.ko runs them, and their
# KTAP goes to the console, where the host counts each case
# (scripts/logcheck ktap). The TAP below only covers loading/unloading.
. /tests/lib.sh

if [ ! -d /sys/kernel/debug/kunit ]; then
	not_ok "kernel has KUnit debugfs (DAMON_PERF_KERNEL=$DAMON_PERF_KERNEL)"
	finish
fi
load_module damon_perf || finish
for m in "$DAMON_PERF_MODDIR"/*.ko; do
	n=$(basename "$m" .ko)
	case "$n" in damon_perf|damon_perf_kunit) continue ;; esac
	load_module "$n"
done
load_module damon_perf_kunit
kunit_results
for m in "$DAMON_PERF_MODDIR"/*.ko; do
	n=$(basename "$m" .ko)
	[ "$n" = damon_perf ] && continue
	module_loaded "$n" && unload_module "$n"
done
unload_module damon_perf
finish
