#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# flavours: test prod
# arches: x86_64 arm64
# The module loads, shows its debugfs directory and generic netlink family,
# and unloads without leaving anything behind. Its build is the one asked
# for: a production build (scripts/vm.sh --prod) has no test hook, a test
# build has the drain path's record hook (its function, a text symbol:
# module data symbols are in /proc/kallsyms only with CONFIG_KALLSYMS_ALL,
# which Debian's arm64 6.1 leaves out).
. /tests/lib.sh

load_module damon_perf || finish
check "debugfs directory exists" test -d /sys/kernel/debug/damon_perf
check "module is live" grep -q '^damon_perf .* Live ' /proc/modules
if [ "$DAMON_PERF_FLAVOUR" = prod ]; then
	check_fail "production build: no test hook in the module's symbols" \
		grep -q 'damon_perf_drain_record[[:space:]]*\[damon_perf\]' \
		/proc/kallsyms
else
	check "test build: the drain path's record hook in the module's symbols" \
		grep -q 'damon_perf_drain_record[[:space:]]*\[damon_perf\]' \
		/proc/kallsyms
fi
if [ -x /bin/damonctl ]; then
	check "damonctl status sees the damon_perf family" damonctl status
	# Every command needs CAP_SYS_ADMIN or CAP_PERFMON.
	check_fail "damonctl status as nobody is refused" as_nobody damonctl status
else
	not_ok "damonctl status sees the damon_perf family (no /bin/damonctl in the image)"
fi
unload_module damon_perf
check "debugfs directory removed" test ! -e /sys/kernel/debug/damon_perf
if [ -x /bin/damonctl ]; then
	check_fail "damonctl status fails once the family is gone" damonctl status
fi
finish
