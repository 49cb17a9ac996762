#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Self-test of the test harness, run first by make check: scripts/logcheck
# must give the expected verdict on every canned log (tests/harness/logs),
# and the check tally must turn a failing KUnit case or a kernel splat into
# a failed run. Prints TAP.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
logcheck=$top/scripts/logcheck
n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }

while read -r log mode args rc p f s; do
	case "$log" in ''|'#'*) continue ;; esac
	[ "$args" = - ] && args=
	args=${args//=/ }
	# shellcheck disable=SC2086
	out=$("$logcheck" "$mode" "$here/logs/$log" $args)
	got_rc=$?
	got=$(echo "$out" | grep '^RESULT ' | tail -n 1)
	want="RESULT passed=$p failed=$f skipped=$s"
	desc="logcheck $mode $args $log: exit $rc, $p passed $f failed $s skipped"
	if [ "$got_rc" = "$rc" ] && [ "$got" = "$want" ]; then
		ok "$desc"
	else
		not_ok "$desc"
		echo "# got exit $got_rc, $got"
		echo "$out" | sed 's/^/#   /'
	fi
done < "$here/expect.txt"

# The tally make check uses: a failing KTAP case, a truncated KTAP run and
# each splat must make the summary fail; a clean run must pass.
run_tally() {
	(
		TALLY_RESULTS=/dev/null
		. "$top/scripts/lib/tally.sh"
		tally_logcheck vm "$here/logs/clean.log" >/dev/null
		for l in "$@"; do
			case "$l" in ktap*) tally_logcheck vm "$here/logs/$l" --ktap ;;
			*) tally_logcheck vm "$here/logs/$l" ;; esac >/dev/null
		done
		tally_summary
	)
}
for l in ktap-fail.log ktap-truncated.log kasan.log lockdep.log warning.log \
	kmemleak.log tap-fail.log timeout.log batch-splat.log batch-crash.log \
	batch-kmemleak.log batch-hung.log; do
	if line=$(run_tally "$l"); then
		not_ok "make check fails when a run looks like $l (got: $(echo "$line" | tail -n 1))"
	else
		ok "make check fails when a run looks like $l: $(echo "$line" | tail -n 1)"
	fi
done
if line=$(run_tally ktap-pass.log tap-todo-skip.log); then
	ok "make check passes on clean runs: $(echo "$line" | tail -n 1)"
else
	not_ok "make check passes on clean runs (got: $(echo "$line" | tail -n 1))"
fi
if [ "$(run_tally ktap-fail.log | tail -n 1)" = "17 passed, 1 failed" ]; then
	ok "summary line format and sum (clean 7 + ktap-fail 10/1)"
else
	not_ok "summary line format and sum: $(run_tally ktap-fail.log | tail -n 1)"
fi

# Skips: make check fails on every skip that tests/skips.allow does not
# name for its kernel, with the reason the test gave; a ctest skip is a
# skip, not a pass. skip_tally ALLOW ITEM...: clean.log and each ITEM
# ("MODE LOG [ARGS...]", LOG in tests/harness/logs) counted as make check
# counts them, then the skip check against ALLOW (a file) and the summary;
# prints the last two lines, fails as make check would.
skip_tally() {
	local allow=$1
	shift
	(
		TALLY_RESULTS=$(mktemp)
		. "$top/scripts/lib/tally.sh"
		tally_logcheck vm "$here/logs/clean.log" > /dev/null
		for item in "$@"; do
			# shellcheck disable=SC2086 # the item's words
			set -- $item
			m=$1 l=$2
			shift 2
			tally_logcheck "$m" "$here/logs/$l" "$@" > /dev/null
		done
		tally_skips "$allow" > /dev/null
		tally_summary
		rc=$?
		rm -f "$TALLY_RESULTS"
		exit $rc
	)
}
# skip_case DESC WANT-RC WANT-LAST-LINE ALLOW-LIST-TEXT ITEM...
skip_case() {
	local desc=$1 want_rc=$2 want=$3 out rc
	printf '%b' "$4" > "$sk/allow"
	shift 4
	out=$(skip_tally "$sk/allow" "$@")
	rc=$?
	if [ "$rc" = "$want_rc" ] && [ "$(echo "$out" | tail -n 1)" = "$want" ]; then
		ok "skips: $desc: $(echo "$out" | tail -n 1)"
	else
		not_ok "skips: $desc: want exit $want_rc, '$want'"
		echo "$out" | sed 's/^/#   got: /'
	fi
}
sk=$(mktemp -d)
# tap-todo-skip.log as basic.sh on the stock kernel: 5 passes, a TODO
# ("damonctl status sees the damon_perf family", damonctl not in the
# image) and a SKIP ("debugfs directory removed", no debugfs)
both='stock "basic: damonctl status sees * # TODO damonctl not in the image" canned\nstock "basic: debugfs directory removed # SKIP no debugfs" canned\n'
skip_case "both listed for stock" 0 "12 passed, 0 failed" "$both" \
	"vm tap-todo-skip.log --name basic-stock"
skip_case "the TODO not listed" 1 "12 passed, 1 failed" \
	'# only the SKIP\nstock "basic: debugfs directory removed # SKIP no debugfs" canned\n' \
	"vm tap-todo-skip.log --name basic-stock"
skip_case "listed for stock, skipped on debug" 1 "12 passed, 2 failed" "$both" \
	"vm tap-todo-skip.log --name basic-debug"
skip_case "listed with another reason" 1 "12 passed, 1 failed" \
	'* "basic: damonctl status sees * # TODO *" canned\n* "basic: debugfs directory removed # SKIP no tracefs" canned\n' \
	"vm tap-todo-skip.log --name basic-stock"
skip_case "listed for stock, skipped in stock's production batch" 0 \
	"12 passed, 0 failed" "$both" "vm tap-todo-skip.log --name basic-stock-prod"
skip_case "listed for stock, skipped in debug's production batch" 1 \
	"12 passed, 2 failed" "$both" "vm tap-todo-skip.log --name basic-debug-prod"
skip_case "an empty allow-list" 1 "12 passed, 2 failed" '' \
	"vm tap-todo-skip.log --name basic-stock"
skip_case "an entry without a reason is no entry" 1 "12 passed, 3 failed" \
	"stock \"basic: *\"\n" "vm tap-todo-skip.log --name basic-stock"
skip_case "an unknown kernel is no entry" 1 "12 passed, 3 failed" \
	"bookworm \"basic: *\" canned\n" "vm tap-todo-skip.log --name basic-stock"
# a KUnit case's SKIP (ktap-pass.log: ring.ring_push_should_count_nested_report)
skip_case "a KUnit skip listed" 0 "18 passed, 0 failed" \
	'debug "kunit: kunit ring.*_nested_report # SKIP no self-NMI on this CPU" canned\n' \
	"vm ktap-pass.log --ktap --name kunit-debug"
skip_case "a KUnit skip not listed" 1 "18 passed, 1 failed" '' \
	"vm ktap-pass.log --ktap --name kunit-debug"
# ctest: the GTEST_SKIP is a skip (ctest said 3 of 3 passed), then on the
# allow-list or a failure
skip_case "a ctest skip listed: a skip, not a pass" 0 "9 passed, 0 failed" \
	'host "Schemes.Collapse # SKIP no MADV_COLLAPSE here" canned\n' \
	"ctest ctest-skip.xml"
skip_case "a ctest skip not listed" 1 "9 passed, 1 failed" '' \
	"ctest ctest-skip.xml"
# the line above the last: what the results are (clean.log and
# tap-todo-skip.log: 6 assertions each; ktap-pass.log: 4 and 7 KUnit
# cases; a clean-log check per run and damonctl_cli are the other checks)
printf '%b' "$both"'debug "kunit: * # SKIP *" canned\nhost "* # SKIP no MADV_COLLAPSE here" canned\n' > "$sk/allow"
line=$(skip_tally "$sk/allow" "vm tap-todo-skip.log --name basic-stock" \
	"vm ktap-pass.log --ktap --name kunit-debug" "ctest ctest-skip.xml" | head -n 1)
want="29 results: 16 assertions in 3 VM script runs, 7 KUnit cases, 2 GoogleTest cases, 4 other checks; 4 skipped, each on $sk/allow"
if [ "$line" = "$want" ]; then
	ok "summary: what the results are: $line"
else
	not_ok "summary: what the results are: want '$want'"
	echo "#   got: $line"
fi
rm -rf "$sk"

# Every kind of report, alone in a log, fails the clean-log test; benign
# lines do not. The stamped header makes it a log with printk timestamps.
tmp=$(mktemp)
benign=0
while IFS= read -r line; do
	case "$line" in '#'*|'') continue ;; '--- benign') benign=1; continue ;; esac
	printf '[    0.000000] Linux version 6.1\n%s\n' "$line" > "$tmp"
	if "$logcheck" splat "$tmp" >/dev/null; then
		[ $benign = 1 ] && ok "benign: $line" || not_ok "flagged: $line"
	else
		[ $benign = 1 ] && not_ok "benign: $line" || ok "flagged: $line"
	fi
done < "$here/splat-lines.txt"
rm -f "$tmp"

# In a batch, the failure lands on the script whose part of the log shows
# it, and the others keep their verdicts.
# (here-strings, not pipes: no writer that a grep -q leaving early could
# cut off under pipefail; what logcheck said is shown on a failure)
v=$("$logcheck" vm "$here/logs/batch-splat.log" --kernel stock 2>&1)
rc=$?
if grep -q '^not ok basic-stock: clean kernel log' <<< "$v" &&
	grep -q '^ok demo-stock: clean kernel log' <<< "$v"; then
	ok "a splat is charged to the script that was running"
else
	not_ok "a splat is charged to the script that was running (logcheck exit $rc)"
	sed 's/^/#   /' <<< "$v"
fi
v=$("$logcheck" vm "$here/logs/batch-crash.log" --kernel stock 2>&1)
rc=$?
if grep -q '^not ok demo-stock: not run' <<< "$v"; then
	ok "scripts after a crash count as failed (not run)"
else
	not_ok "scripts after a crash count as failed (not run; logcheck exit $rc)"
	sed 's/^/#   /' <<< "$v"
fi

# make bench's DAMON side-by-side scorer (tests/vm/bench/damon.sh score()),
# run by the VM's busybox: regions are clipped to the workload's mapping
# [MS, ME) before precision, and what lies outside is counted apart, even
# for a region of 128 TiB (no 32-bit overflow).
score_case() { # WANT REGIONS: REGIONS as "start end nr_accesses" lines
	local want=$1 got
	printf '%b' "$2" > "$tmp_regions"
	got=$(HS=100000 HE=150000 MS=90000 ME=300000 \
		busybox sh -c "$(sed -n '/^score() {/,/^}/p' "$top/tests/vm/bench/damon.sh")
			score $tmp_regions")
	if [ "$got" = "$want" ]; then
		ok "bench score: $want"
	else
		not_ok "bench score: want '$want', got '$got'"
	fi
}
if command -v busybox > /dev/null; then
	tmp_regions=$(mktemp)
	score_case "0.500 1.000 1 0" '4096 8192 0\n100000 200000 5\n'
	score_case "- 0 1 1024" '1048576 2097152 3\n'
	score_case "0.238 1.000 1 137438953267" '0 140737488355328 1\n'
	rm -f "$tmp_regions"
else
	not_ok "bench score: busybox installed (scripts/deps.sh)"
fi

# The style checks' result cache (scripts/lib/stylecache.sh) cannot hide a
# finding: a file whose clean result is cached gets checked again once its
# content (for clang-tidy: a header it includes) changes. On one small file
# each, in a temporary cache.
sc=$(mktemp -d)
export DAMON_PERF_STYLE_CACHE=$sc/cache
printf '// SPDX-License-Identifier: GPL-2.0\n\nstatic int f(int x)\n{\n\treturn x + 1;\n}\n' >"$sc/a.c"
cp_check() { STRICT=1 "$top/scripts/checkpatch.sh" "$sc/a.c" 2>&1 | grep '^style: checkpatch:'; }
c1=$(cp_check)
c2=$(cp_check)
entries=$(find "$sc/cache/checkpatch" -type f | wc -l)
sed -i 's/return x + 1;/return x + 1; /' "$sc/a.c"
c3=$(cp_check)
if [ "$c1" = "style: checkpatch: 0 problems in 1 files" ] && [ "$c2" = "$c1" ] &&
	[ "$entries" = 1 ] && [ "$c3" = "style: checkpatch: 1 problems in 1 files" ]; then
	ok "checkpatch: a cached clean file is checked again once changed"
else
	not_ok "checkpatch: a cached clean file is checked again once changed"
	echo "# clean: $c1; cached: $c2 ($entries entries); changed: $c3"
fi
# clang-tidy.sh on a tree of its own: tools/src/core/a.cpp including a.hpp
if command -v clang-tidy >/dev/null && command -v c++ >/dev/null; then
	t=$sc/tree
	mkdir -p "$t/scripts/lib" "$t/tools/src/core" "$t/build"
	cp "$top/scripts/clang-tidy.sh" "$t/scripts/"
	cp "$top/scripts/lib/stylecache.sh" "$top/scripts/lib/tidy-key.py" "$t/scripts/lib/"
	cp "$top/.clang-tidy" "$t/"
	printf '#include "a.hpp"\nint g() { return f(nullptr); }\n' >"$t/tools/src/core/a.cpp"
	printf '#pragma once\ninline int f(int *p) { return p != nullptr; }\n' >"$t/tools/src/core/a.hpp"
	printf '[{"directory": "%s", "file": "%s", "command": "c++ -std=c++17 -o a.o -c %s"}]\n' \
		"$t/build" "$t/tools/src/core/a.cpp" "$t/tools/src/core/a.cpp" >"$t/build/compile_commands.json"
	"$t/scripts/clang-tidy.sh" "$t/build" >/dev/null 2>&1
	r1=$?
	"$t/scripts/clang-tidy.sh" "$t/build" >/dev/null 2>&1
	r2=$?
	entries=$(find "$sc/cache/clang-tidy" -type f | wc -l)
	sed -i 's/p != nullptr/p != 0/' "$t/tools/src/core/a.hpp"
	"$t/scripts/clang-tidy.sh" "$t/build" >"$sc/tidy.out" 2>&1
	r3=$?
	if [ $r1 = 0 ] && [ $r2 = 0 ] && [ "$entries" = 1 ] && [ $r3 = 1 ] &&
		grep -q 'a.hpp:.*modernize-use-nullptr' "$sc/tidy.out"; then
		ok "clang-tidy: a cached clean file is checked again once a header changes"
	else
		not_ok "clang-tidy: a cached clean file is checked again once a header changes"
		echo "# clean: exit $r1; cached: exit $r2 ($entries entries); changed: exit $r3"
		sed 's/^/#   /' "$sc/tidy.out"
	fi
else
	not_ok "clang-tidy: clang-tidy and c++ installed (scripts/deps.sh)"
fi
unset DAMON_PERF_STYLE_CACHE
rm -rf "$sc"

# scripts/layering.py on a tree of its own: three modules calling down
# pass; one upward call, or one upward include, is a cycle and fails.
lt=$(mktemp -d)
mkdir -p "$lt/scripts" "$lt/kmod"
cp "$top/scripts/layering.py" "$lt/scripts/"
printf '#include "mid.h"\nint top_fn(void)\n{\n\treturn mid_fn();\n}\n' >"$lt/kmod/top.c"
printf '#include "low.h"\nint mid_fn(void)\n{\n\treturn low_fn();\n}\n' >"$lt/kmod/mid.c"
printf 'int low_fn(void)\n{\n\treturn 0;\n}\n' >"$lt/kmod/low.c"
printf 'int top_fn(void);\n' >"$lt/kmod/top.h"
printf 'int mid_fn(void);\n' >"$lt/kmod/mid.h"
printf 'int low_fn(void);\n' >"$lt/kmod/low.h"
"$lt/scripts/layering.py" >"$lt/out" 2>&1
r1=$?
printf 'int top_fn(void);\nint low_fn(void)\n{\n\treturn top_fn();\n}\n' >"$lt/kmod/low.c"
"$lt/scripts/layering.py" >"$lt/call.out" 2>&1
r2=$?
printf '#include "low.h"\nint low_fn(void)\n{\n\treturn 0;\n}\n' >"$lt/kmod/low.c"
printf '#include "top.h"\nint low_fn(void);\n' >"$lt/kmod/low.h"
"$lt/scripts/layering.py" >"$lt/inc.out" 2>&1
r3=$?
if [ $r1 = 0 ] && [ $r2 = 1 ] && [ $r3 = 1 ] &&
	grep -q '^layering: calls cycle: low mid top' "$lt/call.out" &&
	grep -q '^  low -> top: top_fn' "$lt/call.out" &&
	grep -q '^layering: includes cycle: low mid top' "$lt/inc.out"; then
	ok "layering: an upward call or include in kmod/ is a cycle"
else
	not_ok "layering: an upward call or include in kmod/ is a cycle"
	echo "# one way: exit $r1; upward call: exit $r2; upward include: exit $r3"
	cat "$lt/out" "$lt/call.out" "$lt/inc.out" | sed 's/^/#   /'
fi
rm -rf "$lt"

# An unreadable log is a failure, not a silent skip.
if "$logcheck" vm "$here/logs/does-not-exist.log" >/dev/null; then
	not_ok "a missing log fails"
else
	ok "a missing log fails"
fi

echo "1..$n"
[ $failed -eq 0 ]
