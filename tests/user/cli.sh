#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# damonctl's command line without a kernel: what must fail fails as a
# usage error (exit 2, one line naming the problem) before any netlink
# request, and what needs no module works. The module is absent here, so a
# request that reached the kernel would exit 3 ("not loaded") instead.
# Usage: cli.sh DAMONCTL RECORDING.jsonl
set -uo pipefail

damonctl=$1
rec=$2
fails=0
passes=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# expect CODE PATTERN ARGS...: exit code CODE and PATTERN in stderr+stdout
expect() {
	local code=$1 pattern=$2
	shift 2
	"$damonctl" "$@" > "$tmp/out" 2>&1
	local rc=$?
	if [ "$rc" -ne "$code" ] || ! grep -qE -- "$pattern" "$tmp/out"; then
		echo "not ok: damonctl $* -> exit $rc, want $code and /$pattern/:"
		sed 's/^/    /' "$tmp/out"
		fails=$((fails + 1))
	else
		passes=$((passes + 1))
	fi
}

expect 0 '^damonctl [0-9]+\.[0-9]+ \(' --version
expect 2 'period.*(positive|-5)' start -p 1 --period -5
expect 2 'period' start -p 1 --period 0
expect 2 'freq' start -p 1 --freq 0
expect 2 "software event 'page-faults' carries none" start -p 1 -e page-faults -f write
expect 2 "software event 'faults' carries none" start -p 1 -e faults -f '!write'
expect 2 "no context named 'nosuch' in" report -i "$rec" nosuch
expect 2 "no context named 'nosuch' in" report -i "$rec" --heatmap nosuch
expect 0 'context 1 "demo" aggregation 30' report -i "$rec" demo
expect 2 'give -o FILE' record --format damo -o -
expect 2 'format' record --format perf -o "$tmp/x"
expect 2 "input" convert
expect 2 'recording line 1' convert /etc/hostname "$tmp/x.damo"
expect 0 'converted 30 aggregations' convert "$rec" "$tmp/x.damo"
expect 2 "term 'event' has a bad value '0X3c'" events --resolve 'cpu/event=0X3c/'

# the text heatmap: ANSI colour on a terminal only, never with NO_COLOR
expect 0 'address 0x555500000000 \(top\)' report -i "$rec" --heatmap --rows 5 --cols 10
esc=$(printf '\033')
if grep -q "$esc" "$tmp/out"; then
	echo "not ok: heatmap to a file has ANSI escapes"; fails=$((fails + 1))
else
	passes=$((passes + 1))
fi
if command -v script > /dev/null; then
	script -qec "$damonctl report -i $rec --heatmap --rows 5 --cols 10" /dev/null > "$tmp/tty" 2>&1
	if grep -q "$esc\[38;5" "$tmp/tty"; then passes=$((passes + 1)); else
		echo "not ok: heatmap on a terminal has no colour"; fails=$((fails + 1)); fi
	NO_COLOR=1 script -qec "$damonctl report -i $rec --heatmap --rows 5 --cols 10" /dev/null > "$tmp/tty" 2>&1
	if grep -q "$esc\[38;5" "$tmp/tty"; then
		echo "not ok: NO_COLOR=1 heatmap on a terminal has colour"; fails=$((fails + 1))
	else passes=$((passes + 1)); fi
fi
expect 2 'go with --heatmap' report -i "$rec" --range 0x0-0x1000
expect 2 'svg or .png' report -i "$rec" --heatmap -o "$tmp/heat.jpg"
expect 2 'END must be above START' report -i "$rec" --heatmap --range 0x2000-0x1000
expect 0 'wrote .*heat.svg' report -i "$rec" --heatmap -o "$tmp/heat.svg"
expect 0 'wrote .*heat.png' report -i "$rec" --heatmap -o "$tmp/heat.png" --range 0x7f0001000000-0x7f0001800000

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
