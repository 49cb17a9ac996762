#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# needs: test-build
# kernels: debug
# timeout: 600
# AUX adversaries (attack tier). A thread replaces the AUX mapping with
# munmap() and MAP_FIXED while the buffer is attached over and over: an
# attach either gets the perf pages or fails, and no drain ever parses
# memory the process put there. A PMU writing valid packets that never end
# a record: the drains consume it with bounded work (bytes parsed per
# drain), take no record from it, and the machine stays responsive. Pinned
# pages count against RLIMIT_MEMLOCK and are uncharged on detach. An AUX
# attach needs a probe slot no perf probe uses, and a CPU gets one buffer
# per slot, whoever attaches it. Every allocation of an attach fails in
# turn (fail-nth): an errno, no charge left, a retry that works. Set
# AUX_ATTACK_LONG=1 for 10x the race.
# Needs /bin/auxtest_user; the netlink checks need /bin/damonctl.
. /tests/lib.sh

if [ ! -x /bin/auxtest_user ] ||
   [ ! -f "$DAMON_PERF_MODDIR/damon_perf_testpmu.ko" ]; then
	skip "AUX adversaries" "no auxtest_user or test PMU (debug kernel only)"
	finish
fi
RACE=200
[ "${AUX_ATTACK_LONG:-0}" = 1 ] && RACE=2000

val() { echo "$out" | sed -n "s/.*$1=\([-0-9]*\).*/\1/p" | tail -n 1; }
fin() { echo "$out" | sed -n "s/^final.* $1 \([0-9]*\).*/\1/p" | tail -n 1; }

load_module damon_perf || finish
load_module damon_perf_testpmu hot_pct=80 period_us=200 batch=16 || finish
load_module damon_perf_auxtest || finish

# --- munmap/MAP_FIXED against attach ---------------------------------------
out=$(/bin/auxtest_user 1 4 --race=$RACE 2>&1)
echo "$out" | grep -v '^race drains' | sed 's/^/# /'
n=$(val race_attempts); okn=$(val race_ok); einval=$(val race_einval)
efault=$(val race_efault); other=$(val race_other); swaps=$(val race_swaps)
diag "attempts=$n ok=$okn einval=$einval efault=$efault other=$other swaps=$swaps"
if [ "${swaps:-0}" -gt 0 ] && [ "${n:-0}" = $RACE ]; then
	ok "$RACE attaches raced $swaps mapping swaps"
else
	not_ok "the race ran (attempts=$n swaps=$swaps)"
fi
if [ "${other:-1}" = 0 ] &&
   [ $((${okn:-0} + ${einval:-0} + ${efault:-0})) -eq "${n:-0}" ]; then
	ok "each attach succeeded or failed with EINVAL/EFAULT"
else
	not_ok "attach results: other errnos ($other)"
fi
marked=$(fin marked); scanned=$(val race_scanned)
if [ "${okn:-0}" -gt 0 ] && [ "${scanned:-0}" -ge $((okn * 16384)) ]; then
	ok "each of the $okn drains parsed every pinned page ($scanned bytes)"
else
	not_ok "the drains parsed the pinned pages (ok=$okn scanned=$scanned)"
fi
if [ "${marked:-1}" = 0 ]; then
	ok "no drain parsed the process's own memory (marked=0)"
else
	not_ok "drains parsed records the process wrote (marked=$marked)"
fi

# --- RLIMIT_MEMLOCK --------------------------------------------------------
# 4 AUX pages and 2 data pages are 24 kB: 16 kB is too little, 64 kB enough
out=$(/bin/auxtest_user 1 4 --memlock=16 2>&1)
echo "$out" | sed 's/^/# /'
if [ "$(val memlock_attach)" = -12 ] && [ "$(val memlock_again)" = -12 ]; then
	ok "attach over RLIMIT_MEMLOCK without CAP_IPC_LOCK fails (ENOMEM)"
else
	not_ok "attach over RLIMIT_MEMLOCK fails ($(val memlock_attach))"
fi
if [ "$(val vmlck_before)" = "$(val vmlck_after)" ]; then
	ok "a refused attach leaves no charge"
else
	not_ok "a refused attach leaves no charge"
fi
out=$(/bin/auxtest_user 1 4 --memlock=64 2>&1)
echo "$out" | sed 's/^/# /'
b=$(val vmlck_before); d=$(val vmlck_during); a=$(val vmlck_after)
if [ "$(val memlock_attach)" = 0 ] && [ "$(val memlock_again)" = 0 ] &&
   [ $((d - b)) -eq 24 ] && [ "$a" = "$b" ]; then
	ok "within RLIMIT_MEMLOCK: 24 kB charged while attached, 0 after"
else
	not_ok "locked_vm charge (before=$b during=$d after=$a)"
fi
# --- fault injection during attach --------------------------------------------
# Each allocation the attach makes (the buffer's pin array, the pinned
# pages, its drain state) fails in turn: a clear errno or an absorbed
# failure, no charge left behind, and a retry that attaches and drains.
if fault_injection_prepare; then
	echo "damon_perf: AUX fault injection begins" > /dev/kmsg
	saved=$(cut -f1 /proc/sys/kernel/printk)
	echo 3 > /proc/sys/kernel/printk
	out=$(/bin/auxtest_user 1 4 --inject=400 2>&1)
	echo "$saved" > /proc/sys/kernel/printk
	echo "$out" | grep -v '^inject ' | sed 's/^/# /'
	sites=$(val inject_sites); failed=$(val inject_failed)
	if [ "${sites:-0}" -gt 0 ] && [ "$(val inject_reached_end)" = 1 ] &&
	   [ "${failed:-0}" -gt 0 ]; then
		ok "AUX attach: $sites fault sites failed in turn, $failed attaches failed with an errno, $(val inject_absorbed) absorbed"
	else
		not_ok "AUX attach under fault injection (sites=$sites failed=$failed end=$(val inject_reached_end))"
	fi
	if [ "$(val inject_charged)" = 0 ] && [ "$(val inject_retry_bad)" = 0 ]; then
		ok "AUX attach: no charge left by a failure, every retry attached and drained"
	else
		not_ok "AUX attach: charged=$(val inject_charged) bad retries=$(val inject_retry_bad)"
	fi
	probs=$(kernel_reports_since 'damon_perf: AUX fault injection begins')
	if [ -z "$probs" ]; then
		ok "AUX attach: no BUG, WARNING, KASAN or lockdep report under fault injection"
	else
		diag "$probs"
		not_ok "AUX attach: kernel reports under fault injection"
	fi
else
	skip "AUX attach under fault injection" "no fail-nth or failslab"
fi
unload_module damon_perf_auxtest
unload_module damon_perf_testpmu

# --- records that never end --------------------------------------------------
load_module damon_perf_testpmu period_us=200 batch=64 unterminated=1 || finish
load_module damon_perf_auxtest || finish
rm -f /tmp/spin.stop /tmp/spin.n
sh -c 'i=0; while [ ! -e /tmp/spin.stop ]; do i=$((i + 1)); done; echo $i > /tmp/spin.n' &
spin=$!
# --moved: on until every CPU's tail moved (a count, not 3 s: CPU 0's test
# PMU wrote nothing in 3 s of a loaded single-threaded TCG guest once)
out=$(/bin/auxtest_user 3 256 --moved 2>&1)
touch /tmp/spin.stop
wait $spin
echo "$out" | grep -v '^progress' | sed 's/^/# /'
drains=$(fin drains); reports=$(fin reports); overlong=$(fin overlong)
scanned=$(fin scanned); ncpu=$(nproc)
diag "drains=$drains reports=$reports overlong=$overlong scanned=$scanned"
if [ "${reports:-1}" = 0 ] && [ "${overlong:-0}" -gt 0 ]; then
	ok "endless records are dropped ($overlong), none is reported"
else
	not_ok "endless records (reports=$reports overlong=$overlong)"
fi
# the work bound: 4 MiB plus a slice and a bounce per CPU and drain
bound=$(( ${drains:-0} * ncpu * (4194304 + 16384 + 2058) ))
if [ -n "$scanned" ] && [ "$scanned" -le "$bound" ]; then
	ok "drains parsed $scanned bytes, within $bound"
else
	not_ok "drains parsed $scanned bytes, over $bound"
fi
moved=0
for c in $(seq 0 $((ncpu - 1))); do
	t=$(echo "$out" | sed -n "s/^cpu${c}_aux_head=[0-9]* aux_tail=\([0-9]*\).*/\1/p")
	[ "${t:-0}" -gt 0 ] && moved=$((moved + 1))
done
if [ $moved -eq "$ncpu" ]; then ok "every CPU's tail moved through the junk"
else not_ok "tails moved on $moved of $ncpu CPUs"; fi
if [ "$(cat /tmp/spin.n 2>/dev/null || echo 0)" -gt 0 ]; then
	ok "other work ran meanwhile ($(cat /tmp/spin.n) loop iterations)"
else
	not_ok "other work ran meanwhile"
fi
unload_module damon_perf_auxtest
unload_module damon_perf_testpmu

# --- probe slots and the per-slot limit (netlink) ---------------------------
if [ ! -x /bin/damonctl ]; then
	skip "AUX attach slots" "damonctl not in the image"
	unload_module damon_perf
	finish
fi
load_module damon_perf_testpmu period_us=1000 batch=8 || finish
/bin/nsprobe -t 120 > /tmp/probe.out 2>&1 &
ppid=$!
sleep 0.5
check "a context with a perf probe in slot 1" \
	damonctl start -n aux -p "$ppid" -e page-faults --exclude-kernel
expect_err "an AUX attach to the perf probe's slot is refused" EBUSY \
	"perf probe" damonctl spe attach aux -e arm_spe_test// --probe-idx 1 \
	--aux-pages 4
damonctl spe attach aux -e arm_spe_test// --probe-idx 2 --aux-pages 4 \
	> /tmp/a1.out 2>&1 &
a1=$!
i=0
while [ $i -lt 50 ] && ! grep -q '^attached' /tmp/a1.out; do
	kill -0 $a1 2>/dev/null || break
	sleep 0.2; i=$((i + 1))
done
check "a first attach to slot 2" grep -q '^attached' /tmp/a1.out
expect_err "a second process's attach to slot 2 is refused" EEXIST \
	"buffer for the probe" damonctl spe attach aux -e arm_spe_test// \
	--probe-idx 2 --aux-pages 4
kill -INT $a1 2>/dev/null
wait $a1
damonctl spe attach aux -e arm_spe_test// --probe-idx 2 --aux-pages 4 \
	--poll-ms 100 > /tmp/a2.out 2>&1 &
a2=$!
i=0
while [ $i -lt 50 ] && ! grep -q '^attached' /tmp/a2.out; do
	kill -0 $a2 2>/dev/null || break
	sleep 0.2; i=$((i + 1))
done
check "slot 2 is free again once the first process detached" \
	grep -q '^attached' /tmp/a2.out
kill -INT $a2 2>/dev/null
wait $a2
check "stop" damonctl stop aux
kill $ppid 2>/dev/null
wait $ppid 2>/dev/null
unload_module damon_perf_testpmu
unload_module damon_perf
finish
