# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Sourced by scripts/check.sh and tests/harness/selftest.sh: the running
# pass/fail count behind make check's final "N passed, N failed" line.

TALLY_PASSED=0
TALLY_FAILED=0
TALLY_SKIPPED=0
TALLY_RESULTS=${TALLY_RESULTS:-/dev/null}

# tally_add PASSED FAILED [SKIPPED]
tally_add() {
	TALLY_PASSED=$((TALLY_PASSED + $1))
	TALLY_FAILED=$((TALLY_FAILED + $2))
	TALLY_SKIPPED=$((TALLY_SKIPPED + ${3:-0}))
}

# tally_test ok|fail NAME: one result of a harness step (a build, ...).
tally_test() {
	if [ "$1" = ok ]; then
		tally_add 1 0
		echo "ok $2" | tee -a "$TALLY_RESULTS"
	else
		tally_add 0 1
		echo "not ok $2" | tee -a "$TALLY_RESULTS"
	fi
}

# tally_logcheck MODE LOG [ARGS...]: run scripts/logcheck, show its test
# lines (all of them with TALLY_VERBOSE=1, else failures and skips), add
# its RESULT counts. An unreadable or unparsable verdict counts as failed.
tally_logcheck() {
	local out res p f s
	out=$("$(dirname "${BASH_SOURCE[0]}")/../logcheck" "$@" 2>&1)
	echo "$out" | grep -E '^(ok|not ok|skip) ' >> "$TALLY_RESULTS"
	if [ "${TALLY_VERBOSE:-0}" = 1 ]; then
		echo "$out" | grep -v '^RESULT' | sed 's/^/  /'
	else
		echo "$out" | grep -E '^(not ok|skip|#) ' | sed 's/^/  /'
	fi
	res=$(echo "$out" | grep '^RESULT ' | tail -n 1)
	if [ -z "$res" ]; then
		tally_test fail "logcheck $1 $2 gave no verdict"
		return 1
	fi
	p=$(echo "$res" | sed 's/.*passed=\([0-9]*\).*/\1/')
	f=$(echo "$res" | sed 's/.*failed=\([0-9]*\).*/\1/')
	s=$(echo "$res" | sed 's/.*skipped=\([0-9]*\).*/\1/')
	tally_add "$p" "$f" "$s"
	# shellcheck disable=SC2034 # read by the caller
	TALLY_LAST="$p passed, $f failed, $s skipped"
	[ "$f" -eq 0 ]
}

# tally_summary: the final line; false when anything failed.
tally_summary() {
	[ "$TALLY_SKIPPED" -eq 0 ] || echo "($TALLY_SKIPPED skipped or TODO, not counted)"
	echo "$TALLY_PASSED passed, $TALLY_FAILED failed"
	[ "$TALLY_FAILED" -eq 0 ] && [ "$TALLY_PASSED" -gt 0 ]
}
