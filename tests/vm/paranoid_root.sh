#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kernels: debug stock
# timeout: 300
# Debian's perf_event_paranoid 3 is read as init sees it, never through
# the caller's root. A non-root user with CAP_PERFMON and CAP_SYS_CHROOT
# (a container's default set has the latter) chroots into a directory
# whose proc/sys/kernel/perf_event_paranoid it wrote itself:
# - holding "2" or "-1" while the real value is 3, the start of its paddr
#   context (CPU-wide counters) is refused with EACCES, as its own
#   perf_event_open() of a CPU-wide counter is (tests/vm/perfcpu.c, run in
#   the same chroot with the same credentials);
# - holding "3" while the real value is 2, the start succeeds, as
#   perf_event_open() does;
# - a FIFO in place of the file (a path that never answers, as a FUSE
#   mount whose daemon never replies would be): the start returns (refused
#   at 3, started at 2) instead of blocking in the netlink handler with
#   genl_mutex held. The wait is bounded (60 s; it takes well under one
#   second): a regression fails, then the FIFO is fed (once per open, one
#   per CPU's counter) to free the request.
# Kernels without the paranoid 3 patch (perf_event_open() opens the counter
# at 3) skip it.
. /tests/lib.sh

need_damonctl "paranoid read through init's root"
P=/proc/sys/kernel/perf_event_paranoid
boot=$(cat $P)
diag "perf_event_paranoid at boot: $boot (kernel $DAMON_PERF_KERNEL)"
case $DAMON_PERF_KERNEL in
stock | trixie | sid)
	check "Debian's kernel boots with perf_event_paranoid 3" test "$boot" = 3 ;;
esac

# The jail: the image's programs and libraries (bind mounts), and a
# proc/sys/kernel the user fills.
J=/tmp/jail
F=$J/proc/sys/kernel/perf_event_paranoid
mkdir -p $J/proc/sys/kernel
for d in bin sbin lib lib32 lib64 usr etc; do
	if [ -L /$d ]; then
		cp -a /$d $J/$d
	elif [ -d /$d ]; then
		mkdir -p $J/$d
		mount --bind /$d $J/$d
	fi
done
chown 65534 $J/proc/sys/kernel
jailed() { capexec 65534 perfmon,sys_chroot chroot $J "$@"; }
# fake VALUE: the user's file (as the user writes it), or "fifo".
fake() {
	rm -f $F
	if [ "$1" = fifo ]; then
		jailed mkfifo -m 0666 /proc/sys/kernel/perf_event_paranoid
	else
		jailed sh -c "echo '$1' > /proc/sys/kernel/perf_event_paranoid"
	fi
}

echo 3 > $P
fake 2
out=$(jailed perfcpu 2>&1)
diag "perf_event_open at 3, chroot says 2: $out"
if [ "$out" = ok ]; then
	skip "paranoid read through init's root" "no perf_event_paranoid 3 in this kernel"
	echo "$boot" > $P
	finish
fi
check "jail: uid 65534 with CAP_PERFMON and CAP_SYS_CHROOT only" sh -c \
	"capexec 65534 perfmon,sys_chroot cat /proc/self/status | grep -q '^CapEff:.*0000004000040000$'"

load_module damon_perf || finish
RAM=$(ram_ranges)
# start: the jailed user's paddr context "jail" over System RAM.
start() {
	# shellcheck disable=SC2086 # the -r options
	jailed damonctl start -n jail --ops paddr $RAM -e page-faults \
		--exclude-kernel --sample-us 5000 --aggr-us 100000 \
		--update-us 500000
}
running() { damonctl status jail 2>/dev/null | grep -q running; }
cleanup() { damonctl stop jail > /dev/null 2>&1; }

# as_perf REAL FAKE: the real value REAL, the jail's FAKE; the start must
# end as the jailed perf_event_open() does: "ok" a running context,
# otherwise exit 1 with the same errno and nothing running.
as_perf() {
	echo "$1" > $P
	fake "$2"
	_want=$(jailed perfcpu 2>&1)
	_o=$(start 2>&1)
	_r=$?
	diag "$_o"
	_d="paranoid $1, chroot's file $2: start as perf_event_open ($_want)"
	if [ "$_want" = ok ] && [ $_r -eq 0 ] && running; then
		ok "$_d"
	elif [ "$_want" != ok ] && [ $_r -eq 1 ] &&
		echo "$_o" | grep -q "($_want)" && ! running; then
		ok "$_d"
	else
		not_ok "$_d (exit $_r)"
	fi
	cleanup
}
# The real values and what perf_event_open() must say, so that a kernel
# where both allow (or both refuse) everything cannot pass.
echo 3 > $P
fake 2
check "paranoid 3: the jailed perf_event_open() is refused" sh -c \
	"[ \"\$(capexec 65534 perfmon,sys_chroot chroot $J perfcpu)\" = EACCES ]"
echo 2 > $P
fake 3
check "paranoid 2: the jailed perf_event_open() opens" sh -c \
	"[ \"\$(capexec 65534 perfmon,sys_chroot chroot $J perfcpu)\" = ok ]"
as_perf 3 2
as_perf 3 -1
as_perf 2 3
as_perf 2 2

# stalled REAL WANT: the FIFO; the start must return within the bound and
# exit WANT (1 with EACCES, or 0).
stalled() {
	echo "$1" > $P
	fake fifo
	start > /tmp/jail.out 2>&1 &
	_pid=$!
	_i=0
	while kill -0 $_pid 2>/dev/null && [ $_i -lt 60 ]; do
		sleep 1
		_i=$((_i + 1))
	done
	_d="paranoid $1, a FIFO for the chroot's file: the start returns"
	if kill -0 $_pid 2>/dev/null; then
		not_ok "$_d (blocked for ${_i} s)"
		# free it: each open completes once a writer comes (one
		# open per CPU's counter)
		_j=0
		while kill -0 $_pid 2>/dev/null && [ $_j -lt 32 ]; do
			timeout 5 sh -c "echo 2 > $F"
			_j=$((_j + 1))
		done
		wait $_pid
		diag "$(cat /tmp/jail.out)"
	else
		wait $_pid
		_r=$?
		diag "$(cat /tmp/jail.out)"
		if [ "$2" = 0 ] && [ $_r -eq 0 ] && running; then
			ok "$_d, started"
		elif [ "$2" = 1 ] && [ $_r -eq 1 ] &&
			grep -q '(EACCES)' /tmp/jail.out && ! running; then
			ok "$_d, refused (EACCES)"
		else
			not_ok "$_d (exit $_r, want $2)"
		fi
	fi
	cleanup
}
stalled 3 1
stalled 2 0
check "generic netlink still answers (status)" damonctl status

echo "$boot" > $P
for d in bin sbin lib lib32 lib64 usr etc; do
	[ -L /$d ] || umount $J/$d 2>/dev/null
done
unload_module damon_perf
finish
