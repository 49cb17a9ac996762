#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kernels: debug bookworm
# timeout: 900
# Attack tiers on the netlink interface, driven by /bin/nlattack
# (tests/vm/nlattack/), which reads the family's policies from the kernel
# (CTRL_CMD_GETPOLICY) and generates its requests from them:
#  - boundary sweep: every numeric attribute of every command at 0, 1, its
#    minimum and maximum, maximum + 1, 2^32-1, 2^63-1, 2^63 and 2^64-1, with
#    page faults sampled: a clear error (extack message), or a context that
#    starts and aggregates;
#  - fuzzer: ATTACK_FUZZ messages (default 100000 on the stock kernel and
#    20000 on the debug kernel, where a message costs five times as much;
#    ATTACK_LONG=1: 1000000), mutations of valid messages across several
#    contexts, every reply a success or an error with an extack message,
#    and CTX_GET reads back exactly what the accepted requests built. The
#    seed is printed; ATTACK_SEED=N replays a run.
# Afterwards perf_stats balances (enqueue = dequeue; TODO until stops drain
# in-flight reports) and the module unloads.
# Longer runs: scripts/vm.sh --kernel debug --append ATTACK_LONG=1 tests/vm/attack_netlink.sh
. /tests/lib.sh

FUZZ=${ATTACK_FUZZ:-$([ "$DAMON_PERF_KERNEL" = debug ] && echo 20000 || echo 100000)}
[ "${ATTACK_LONG:-0}" = 1 ] && FUZZ=${ATTACK_FUZZ:-1000000}
SEED=${ATTACK_SEED:-$(date +%s)}

# run_tier DESC CMD...: one test; what CMD prints goes out as diagnostics as
# it comes (the per-case lines of the sweep only with NLATTACK_VERBOSE).
run_tier() {
	_d=$1
	shift
	{ "$@" 2>&1; echo "rc=$?" > /tmp/tier.rc; } | while read -r l; do
		case "$l" in "nlattack: sweep: cmd"*) [ -n "${NLATTACK_VERBOSE:-}" ] || continue ;; esac
		echo "# $l"
	done
	_rc=$(sed -n 's/^rc=//p' /tmp/tier.rc)
	if [ "$_rc" = 0 ]; then ok "$_d"; else not_ok "$_d (exit $_rc)"; fi
}

load_module damon_perf || finish
out=$(nlattack policy 2>&1)
n=$(echo "$out" | grep -c '^policy ')
if [ "$n" -gt 20 ]; then
	ok "the family's policies read from nlctrl ($n attributes)"
else
	diag "$out"
	not_ok "the family's policies read from nlctrl ($n attributes)"
fi
[ "${ATTACK_SWEEP:-1}" = 0 ] || run_tier "boundary sweep" nlattack sweep
run_tier "fuzzer: $FUZZ messages, seed $SEED" nlattack fuzz "$FUZZ" "$SEED"
check "no context left" sh -c '! damonctl status | grep -q running'
check "after the attacks: perf_stats balanced" stats_balanced
unload_module damon_perf
finish
