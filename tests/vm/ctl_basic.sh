#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# flavours: test prod
# arches: x86_64 arm64
# kernels: stock debug
# timeout: 900
# Every damonctl subcommand against the module: start (flags and config
# file, vaddr and paddr), status, report (table, --hot, --json), tune while
# running, monitor, record and report --input (with the heatmap), stats
# (table, --json, --openmetrics), events, stop; exit codes for usage
# errors, kernel refusals and a missing module.
. /tests/lib.sh

if [ ! -x /bin/damonctl ]; then
	todo "damonctl subcommands" "damonctl not in the image"
	finish
fi

expect_exit 3 "status without the module: exit 3" damonctl status
has "the missing module is named" "damon_perf module is not loaded" \
	sh -c 'damonctl status 2>&1; true'
load_module damon_perf || finish

has "status: no contexts" "no contexts" damonctl status
has "status --json: empty list" '"contexts": \[\]' damonctl status --json
expect_exit 2 "start without a target: usage error" damonctl start -n x
expect_exit 2 "unknown event: usage error" \
	damonctl start -n x -p 1 -e nosuchpmu/x=1/
expect_exit 2 "unknown subcommand: usage error" damonctl frobnicate
expect_exit 0 "--help" damonctl --help
for c in start stop tune status report monitor record stats events; do
	expect_exit 0 "$c --help" damonctl $c --help
done

start_target -s 64 -o 8 -h 16 -t 0
# Its mapping and pid are what the commands need; its loop would only take
# a vCPU from every step (TCG): stopped until it is ended.
kill -STOP "$WORKLOAD_PID"
check "start a vaddr context on the workload" \
	damonctl start -n work -p "$WORKLOAD_PID" -e page-faults \
	--sample-us 5000 --aggr-us 100000 --update-us 500000
has "status: running" 'running' damonctl status work
has "status: the target pid" "pid $WORKLOAD_PID" damonctl status work
has "status --json: the probe" '"sample_period": 1' damonctl status --json
expect_exit 1 "a second context with the same name is refused" \
	damonctl start -n work -p "$WORKLOAD_PID"
has "the refusal is one line with the errno" '^damonctl: .*(E[A-Z]*)$' \
	sh -c "damonctl start -n work -p $WORKLOAD_PID 2>&1; true"
expect_exit 1 "a target pid that does not exist is refused" \
	damonctl start -n ghost -p 4000000
has "nothing half-configured is left behind" '"contexts": \[$' \
	damonctl status --json
sleep 2
has "report: regions table" 'working set' damonctl report work
has "report --hot 3" 'nr_accesses' damonctl report work --hot 3
has "report --json" '"regions"' damonctl report --json
check "tune while running" damonctl tune work --aggr-us 200000
has "tune took effect" '"aggr_us": 200000' damonctl status --json work
expect_exit 1 "tuning a missing context is refused" \
	damonctl tune nosuch --aggr-us 200000
expect_exit 2 "tune without a value: usage error" damonctl tune work
has "monitor: one aggregation" '"regions"' \
	damonctl monitor --count 1 --duration 20 --json
check "record: three aggregations" \
	damonctl record -o /tmp/rec.jsonl --count 3 --duration 30
has "recording has three lines" '^3$' sh -c 'wc -l < /tmp/rec.jsonl'
has "report --input" 'working set' damonctl report -i /tmp/rec.jsonl
has "report --input --heatmap" 'address' \
	damonctl report -i /tmp/rec.jsonl --heatmap --rows 5 --cols 10
has "stats: total" 'total' damonctl stats
has "stats --per-cpu" 'cpu0' damonctl stats --per-cpu
has "stats --json has every counter" '"early_wake"' damonctl stats --json
has "stats --openmetrics ends with EOF" '^# EOF$' damonctl stats --openmetrics
has "events: software PMU" 'software' damonctl events
has "events --resolve --json" '"type": 1' \
	damonctl events --resolve page-faults --json
check "stop --keep" damonctl stop work --keep
has "kept context is stopped" 'stopped' damonctl status work
check "stop deletes" damonctl stop
check "perf_stats balanced after the stop" stats_balanced
has "no contexts after stop" "no contexts" damonctl status
kill -CONT "$WORKLOAD_PID"
stop_workload

# physical address space, from a config file
ram=$(grep 'System RAM' /proc/iomem | head -n 1 | sed 's/ *\([0-9a-f]*\)-\([0-9a-f]*\).*/0x\1 0x\2/')
set -- $ram
if [ -n "${1:-}" ] && [ "$1" != "0x00000000" ]; then
	start=$1
else
	start=0x100000
fi
# 128 MiB of RAM: up to 0x8000000 where RAM starts low (x86), else from
# where it starts (arm64 virt: 0x40000000).
end=0x8000000
[ $((start)) -lt $((end)) ] || end=$(printf '0x%x' $((start + 0x8000000)))
cat > /tmp/paddr.json <<JSON
{"contexts": [{"name": "phys", "ops": "paddr",
  "targets": [{"start": "$start", "end": "$end"}],
  "intervals": {"sample_us": 5000, "aggr_us": 100000, "update_us": 1000000},
  "nr_regions": {"min": 10, "max": 100},
  "probes": [{"event": "page-faults", "phys_addr": true}],
  "filters": [{"type": "cpumask", "cpus": "0-1", "allow": true}]}]}
JSON
check "start a paddr context from a config file" \
	damonctl start --config /tmp/paddr.json
has "status: paddr with its filter" 'cpumask cpus 0-1' damonctl status phys
expect_exit 2 "--config and flags together: usage error" \
	damonctl start --config /tmp/paddr.json -n other
check "stop the paddr context" damonctl stop phys
check "perf_stats balanced after the stop" stats_balanced
unload_module damon_perf
finish
