#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kernels: stock
# needs: python3
# timeout: 1200
# The kernel's own YNL CLI (tools/net/ynl/cli.py of the 6.12 tree, with
# Documentation/netlink/specs/damon_perf.yaml; /opt/ynl in the image,
# scripts/initramfs.sh --python) drives the module with nothing of the
# project's code on the way: ctx-new, set-attrs, target-add, probe-add,
# start, a ctx-get dump (the status: the target's pid, the probe), a
# snapshot-get dump (an aggregation with regions of that target), stop,
# ctx-del; each reply checked for its content, and one bad request (an
# address range for a vaddr context) refused with the module's extack
# message as cli.py shows it.
. /tests/lib.sh

# ynl ARGS...: cli.py with the spec (JSON output); its output (stdout and
# stderr) in out, its exit status in rc.
ynl() {
	out=$(python3 /opt/ynl/cli.py --spec /opt/ynl/damon_perf.yaml \
		--no-schema --output-json "$@" 2>&1)
	rc=$?
}
# want DESC PATTERN: ok when the last ynl call succeeded and its output
# matches PATTERN (grep -E).
want() {
	if [ "$rc" -eq 0 ] && echo "$out" | grep -qE -- "$2"; then
		ok "$1"
	else
		diag "$out"
		not_ok "$1 (exit $rc, no '$2')"
	fi
}

if ! command -v python3 > /dev/null || [ ! -f /opt/ynl/cli.py ]; then
	not_ok "the YNL CLI is in the image (python3, /opt/ynl/cli.py)"
	finish
fi
load_module damon_perf || finish
ynl --list-ops
want "cli.py reads the spec and finds the family: its operations" '^ctx-new +\[ do \]'
workload_started -s 64 -h 16 -t 0

ynl --do ctx-new --json '{"ctx-name": "ynl", "ctx-ops": "vaddr"}'
want "ctx-new: the reply names the new context" '"ctx-name": "ynl"'
id=$(echo "$out" | sed -n 's/.*"ctx-id": \([0-9][0-9]*\).*/\1/p' | head -n 1)
if [ -z "$id" ]; then
	not_ok "ctx-new: the reply carries a context id"
	stop_workload
	unload_module damon_perf
	finish
fi
ok "ctx-new: context id $id, state $(echo "$out" | sed -n 's/.*"ctx-state": "\([a-z]*\)".*/\1/p')"

ynl --do set-attrs --json "{\"ctx-id\": $id, \"attrs\": {\"sample-us\": 5000, \"aggr-us\": 100000, \"update-us\": 1000000, \"min-nr-regions\": 10}}"
want "set-attrs: acked (no reply)" '^null$'
ynl --do target-add --json "{\"ctx-id\": $id, \"target\": {\"pid\": $WORKLOAD_PID}}"
want "target-add: pid $WORKLOAD_PID acked" '^null$'
ynl --do probe-add --json "{\"ctx-id\": $id, \"probe\": {\"type\": 1, \"config\": 2, \"sample-period\": 1, \"exclude-kernel\": true}}"
want "probe-add: the reply carries the probe's index 1" '"probe-idx": 1[,}]'

# The bad request: an address range for a vaddr context.
ynl --do target-add --json "{\"ctx-id\": $id, \"target\": {\"start\": 4096, \"end\": 8192}}"
if [ "$rc" -ne 0 ] &&
	echo "$out" | grep -q "Netlink error: Invalid argument" &&
	echo "$out" | grep -q "'msg': 'vaddr context: target needs a pid and no address range'"; then
	diag "$out"
	ok "a range for a vaddr context: refused (EINVAL) with the module's extack message"
else
	diag "$out"
	not_ok "a range for a vaddr context: refused with the extack message (exit $rc)"
fi

ynl --do start --json "{\"ctx-id\": $id}"
want "start: acked" '^null$'
ynl --dump ctx-get
want "ctx-get dump: the context running" "\"ctx-id\": $id, \"ctx-name\": \"ynl\", \"ctx-ops\": \"vaddr\", \"ctx-state\": \"running\""
want "ctx-get dump: the target's pid" "\"target\": \\[\\{\"id\": 1, \"pid\": ${WORKLOAD_PID}[,}]"
want "ctx-get dump: the probe (software, page faults, period 1)" \
	'"probe": \[\{"idx": 1, "type": 1, "config": 2, "config1": 0, "config2": 0, "sample-period": 1[,}]'
want "ctx-get dump: the aggregation interval set" '"aggr-us": 100000[,}]'

# An aggregation: the last one the context made (snapshot-get dump),
# polled until there is one with regions (none before the first).
n=0
i=0
while [ $i -lt 10 ]; do
	ynl --dump snapshot-get --json "{\"ctx-id\": $id}"
	n=$(echo "$out" | grep -o '"region": \[' | wc -l)
	[ "$rc" -eq 0 ] && [ "$n" -gt 0 ] && break
	i=$((i + 1))
	sleep 0.5
done
want "snapshot-get dump: an aggregation of context $id" "\"ctx-id\": $id, \"snapshot\": \\{\"seq\": [0-9]+"
regions=$(echo "$out" | grep -o '"target-id": 1, "start": [0-9]*, "end": [0-9]*' | wc -l)
nr=$(echo "$out" | sed -n 's/.*"nr-regions": \([0-9][0-9]*\).*/\1/p' | head -n 1)
if [ "$regions" -gt 0 ] && [ "$regions" = "$nr" ]; then
	ok "snapshot-get dump: $regions regions of target 1, as many as its nr-regions"
else
	diag "$(echo "$out" | head -c 2000)"
	not_ok "snapshot-get dump: regions of target 1 ($regions, nr-regions '$nr')"
fi
# every region [start, end) non-empty, in order, not overlapping
if echo "$out" | grep -o '"start": [0-9]*, "end": [0-9]*, "nr-accesses"' |
	sed 's/"start": \([0-9]*\), "end": \([0-9]*\).*/\1 \2/' |
	awk 'NR > 1 && $1 < e { bad = 1 } $2 <= $1 { bad = 1 } { e = $2 } END { exit bad || NR == 0 }'; then
	ok "snapshot-get dump: the regions are ordered and do not overlap"
else
	not_ok "snapshot-get dump: the regions are ordered and do not overlap"
fi

ynl --do stop --json "{\"ctx-id\": $id}"
want "stop: acked" '^null$'
ynl --do ctx-get --json "{\"ctx-id\": $id}"
want "ctx-get: the context stopped" '"ctx-state": "stopped"'
ynl --do stop --json "{\"ctx-id\": $id}"
if [ "$rc" -ne 0 ] && echo "$out" | grep -q "'msg': 'context is not running'"; then
	diag "$out"
	ok "a second stop: refused with an extack message"
else
	diag "$out"
	not_ok "a second stop: refused with an extack message (exit $rc)"
fi
ynl --do ctx-del --json "{\"ctx-id\": $id}"
want "ctx-del: acked" '^null$'
ynl --dump ctx-get
want "ctx-get dump: no context left" '^\[\]$'
stop_workload
unload_module damon_perf
finish
