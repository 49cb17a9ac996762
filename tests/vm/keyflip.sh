#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kernels: debug stock
# timeout: 600
# The page-fault event's static key (perf_swevent_enabled[
# PERF_COUNT_SW_PAGE_FAULTS]) flipped many times while every CPU takes page
# faults through the branch it patches in do_user_addr_fault():
#  - without the module: /bin/keyflip (tests/vm/keyflip.c) opens and
#    closes a software page-fault counter from userspace KEYFLIP_OPENS
#    times (default 200; two patches each) while a process per CPU faults;
#  - through the module: a page-fault probe started and stopped
#    KEYFLIP_STARTS times (default 10; damonctl start/stop, two patches
#    each) on one of keyflip's faulting processes.
# Multi-threaded TCG (scripts/vm.sh --tcg multi) now and then runs code the
# patch already replaced and the guest dies of "int3" in
# do_user_addr_fault (Documentation/testing.rst, "Code patching under
# TCG"); the harness fails the run on that oops (scripts/logcheck), so this
# is the regression test of vm.sh's single-threaded TCG.
# Under multi-threaded TCG 6.1 died of it in each of 3 boots, once before
# the 100th open (figures: git log Documentation/testing.rst). By hand:
#   scripts/vm.sh --tcg multi --append "KEYFLIP_OPENS=5000 KEYFLIP_STARTS=0" tests/vm/keyflip.sh
. /tests/lib.sh

OPENS=${KEYFLIP_OPENS:-200}
STARTS=${KEYFLIP_STARTS:-10}

# one test: keyflip's own flips, its lines shown as they come
if [ "$OPENS" -gt 0 ]; then
	rm -f /tmp/keyflip.out
	{ /bin/keyflip -n "$OPENS" 2>&1; echo "rc=$?" > /tmp/keyflip.rc; } |
		while read -r l; do echo "$l" >> /tmp/keyflip.out; echo "# $l"; done
	rc=$(sed -n 's/^rc=//p' /tmp/keyflip.rc)
	if [ "$rc" = 0 ] && grep -q "^KEYFLIP opens=$OPENS flips=$((2 * OPENS)) " /tmp/keyflip.out; then
		ok "$OPENS page-fault counters opened and closed from userspace while every CPU faults"
	else
		not_ok "$OPENS page-fault counters opened and closed from userspace (exit $rc)"
	fi
fi
[ "$STARTS" -gt 0 ] || finish

need_damonctl "page-fault probes started and stopped while every CPU faults"
load_module damon_perf || finish
rm -f /tmp/keyflip.stop /tmp/keyflip.out
/bin/keyflip -n 0 -w /tmp/keyflip.stop > /tmp/keyflip.out 2>&1 &
kflip=$!
i=0
while ! grep -q '^KEYFLIP pid=' /tmp/keyflip.out 2>/dev/null && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
check "keyflip faults on every CPU" grep -q '^KEYFLIP pid=' /tmp/keyflip.out
kpid=$(sed -n 's/^KEYFLIP pid=.* faulter=\([0-9]*\).*/\1/p' /tmp/keyflip.out)
i=0
while [ $i -lt "$STARTS" ]; do
	if ! damonctl start -n flip -p "$kpid" -e page-faults --period 1 \
		--exclude-kernel > /tmp/keyflip.ctl 2>&1 ||
		! damonctl stop flip >> /tmp/keyflip.ctl 2>&1; then
		break
	fi
	i=$((i + 1))
	[ $((i % 100)) != 0 ] || diag "$i starts and stops"
done
if [ $i = "$STARTS" ]; then
	ok "$STARTS page-fault probes started and stopped while every CPU faults"
else
	diag "$(cat /tmp/keyflip.ctl)"
	not_ok "$STARTS page-fault probes started and stopped (failed at $i)"
fi
touch /tmp/keyflip.stop
wait $kflip
diag "$(cat /tmp/keyflip.out)"
check "perf_stats balanced" stats_balanced
unload_module damon_perf
finish
