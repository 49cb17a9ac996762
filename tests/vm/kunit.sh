#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# needs: test-build
# kernels: debug
# Runs every KUnit suite: loading damon_perf_kunit.ko runs them, and their
# KTAP goes to the console, where the host counts each case
# (scripts/logcheck ktap). The TAP below covers loading, unloading and
# each suite's verdict from debugfs, so that a run alone tells a failure.
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
# each suite's verdict too, so that a run of this script alone says it
for _r in /sys/kernel/debug/kunit/damon_perf*/results; do
	[ -f "$_r" ] || continue
	_s=$(basename "$(dirname "$_r")")
	_v=$(grep -E '^(not )?ok [0-9]+ ' "$_r" | tail -n 1)
	case "$_v" in
	"ok "*) ok "suite $_s" ;;
	*) not_ok "suite $_s: ${_v:-no verdict}" ;;
	esac
done
for m in "$DAMON_PERF_MODDIR"/*.ko; do
	n=$(basename "$m" .ko)
	[ "$n" = damon_perf ] && continue
	module_loaded "$n" && unload_module "$n"
done
unload_module damon_perf
finish
