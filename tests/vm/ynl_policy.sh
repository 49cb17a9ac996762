#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kernels: debug stock
# The loaded module's policies are the spec's: every attribute of every
# command's do and dump policy, with its type, range, length and nested
# maximum, as CTRL_CMD_GETPOLICY reports them ("nlattack table",
# tests/vm/nlattack/policy.c), equal line for line to the table that
# scripts/lib/ynl-policy.py makes on the host from
# Documentation/netlink/specs/damon_perf.yaml (/tests/ynl_policy.txt).
. /tests/lib.sh

want=/tests/ynl_policy.txt
load_module damon_perf || finish
if [ ! -s "$want" ]; then
	not_ok "policies match the spec: no $want in the image"
else
	nlattack table > /tmp/ynl_policy.got 2>&1
	rc=$?
	n=$(wc -l < "$want")
	got=$(wc -l < /tmp/ynl_policy.got)
	if [ $rc -eq 0 ] && cmp -s "$want" /tmp/ynl_policy.got; then
		ok "policies match the spec: $n attribute lines over every command"
	else
		diag "$(diff "$want" /tmp/ynl_policy.got | head -n 40)"
		not_ok "policies match the spec: $got lines reported, $n in the spec (exit $rc)"
	fi
fi
unload_module damon_perf
finish
