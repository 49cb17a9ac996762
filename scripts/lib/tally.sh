# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Sourced by scripts/check.sh and tests/harness/selftest.sh: the running
# pass/fail count behind make check's final "N passed, N failed" line,
# and what the results are (VM script runs, the assertions they printed,
# KUnit cases, GoogleTest cases) for the line above it.

TALLY_PASSED=0
TALLY_FAILED=0
TALLY_SKIPPED=0
TALLY_RUNS=0
TALLY_ASSERTIONS=0
TALLY_KUNIT=0
TALLY_GTEST=0
TALLY_ALLOWED=0
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
	tally_counts "$(echo "$out" | grep '^COUNTS ' | tail -n 1)"
	# shellcheck disable=SC2034 # read by the caller
	TALLY_LAST="$p passed, $f failed, $s skipped"
	[ "$f" -eq 0 ]
}

# tally_counts "COUNTS runs=N assertions=N ...": add logcheck's counts.
tally_counts() {
	local kv k v
	for kv in ${1#COUNTS }; do
		k=${kv%%=*}
		v=${kv#*=}
		[[ "$v" =~ ^[0-9]+$ ]] || continue
		case $k in
		runs) TALLY_RUNS=$((TALLY_RUNS + v)) ;;
		assertions) TALLY_ASSERTIONS=$((TALLY_ASSERTIONS + v)) ;;
		kunit) TALLY_KUNIT=$((TALLY_KUNIT + v)) ;;
		gtest) TALLY_GTEST=$((TALLY_GTEST + v)) ;;
		allowed) TALLY_ALLOWED=$((TALLY_ALLOWED + v)) ;;
		esac
	done
}

# tally_skips ALLOW: every skip (SKIP or TODO) counted so far must be on
# the allow-list ALLOW (tests/skips.allow): each one that is not moves
# from skipped to failed, and is shown. Needs TALLY_RESULTS to be a file.
TALLY_ALLOW_LIST=
tally_skips() {
	local out res f unlisted
	out=$("$(dirname "${BASH_SOURCE[0]}")/../logcheck" skips "$TALLY_RESULTS" "$1" 2>&1)
	res=$(echo "$out" | grep '^RESULT ' | tail -n 1)
	if [ -z "$res" ]; then
		tally_test fail "skips: logcheck skips gave no verdict"
		return 1
	fi
	TALLY_ALLOW_LIST=$1
	echo "$out" | grep -E '^not ok ' | tee -a "$TALLY_RESULTS" | sed 's/^/  /'
	# the skips allowed; with TALLY_ALLOW_UNUSED=1 (a full run) also the
	# entries that named no skip (stale, or a test that ran after all)
	[ "${TALLY_VERBOSE:-0}" = 0 ] || echo "$out" | grep '^# allowed' | sed 's/^/  /'
	[ "${TALLY_ALLOW_UNUSED:-0}" = 0 ] ||
		echo "$out" | grep '^# .* named no skip of this run' | sed 's/^/  /'
	f=$(echo "$res" | sed 's/.*failed=\([0-9]*\).*/\1/')
	# an unlisted skip was counted as a skip: it is a failure instead (a
	# malformed allow-list line is a failure that was no skip)
	unlisted=$(echo "$out" | grep -c '^not ok .*(a skip .* does not list for ')
	tally_add 0 "$f" "-$unlisted"
	tally_counts "$(echo "$out" | grep '^COUNTS ' | tail -n 1)"
	# shellcheck disable=SC2034 # read by the caller
	TALLY_LAST="$TALLY_ALLOWED skips on the allow-list, $unlisted not"
	[ "$f" -eq 0 ]
}

# tally_summary: what the results are, then the final line; false when
# anything failed.
#   N results: A assertions in R VM script runs, K KUnit cases, G GoogleTest cases, O other checks; S skipped[, each on ALLOW]
#   N passed, N failed
# (A + K + G + O = N = passed + failed + skipped; "each on ALLOW" once
# tally_skips ALLOW ran)
tally_summary() {
	local n other
	n=$((TALLY_PASSED + TALLY_FAILED + TALLY_SKIPPED))
	other=$((n - TALLY_ASSERTIONS - TALLY_KUNIT - TALLY_GTEST))
	printf '%d results: %d assertions in %d VM script runs, %d KUnit cases, %d GoogleTest cases, %d other checks; %d skipped%s\n' \
		"$n" "$TALLY_ASSERTIONS" "$TALLY_RUNS" "$TALLY_KUNIT" "$TALLY_GTEST" \
		"$other" "$TALLY_SKIPPED" \
		"$([ -z "$TALLY_ALLOW_LIST" ] || echo ", each on ${TALLY_ALLOW_LIST#"${top:-}/"}")"
	echo "$TALLY_PASSED passed, $TALLY_FAILED failed"
	[ "$TALLY_FAILED" -eq 0 ] && [ "$TALLY_PASSED" -gt 0 ]
}
