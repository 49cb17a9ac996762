#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make style, and the style tier of make check: every style check of the
# tree, one TAP test each, the findings as "#" lines under a failing one.
# Exits non-zero when any check fails.
#
#   scripts/style.sh [CHECK...]     default: all of them, in this order
#
#   1. shellcheck    every shell script of scripts/, tests/ and .ci/ (*.sh and
#                    executables with a sh/bash shebang); errors and warnings
#                    fail (-S warning). The dialect comes from the shebang
#                    (tests/vm: busybox sh, checked as sh); sourced libraries
#                    name theirs in a "shellcheck shell=" comment.
#   2. checkpatch    scripts/checkpatch.sh with STRICT=1 (--strict) over the
#                    kernel code it lists (kmod/, tests/kunit/, tests/testpmu/)
#   3. kernel-doc    the kernel-doc half of that run
#   4. clang-format  --dry-run -Werror over tools/, tests/user/, tests/kshim/,
#                    tests/vm/*.[ch], tests/vm/*/*.[ch] and tests/fuzz/
#                    (each directory's .clang-format: C++ style at the top,
#                    the kernel's in tests/vm and tests/fuzz)
#   5. clang-tidy    scripts/clang-tidy.sh (tools/ and tests/user/), when the
#                    tree has it; a SKIP otherwise
#   6. ynl-gen       scripts/ynl-gen.sh --check: the uapi header,
#                    kmod/netlink_gen.[ch] and Documentation/netlink/
#                    damon_perf.rst are what the netlink spec generates
#   7. layering      scripts/layering.py: no include or call in kmod/ runs
#                    against the direction Documentation/design.rst draws
#
# checkpatch and clang-tidy keep each file's result in a cache
# (scripts/lib/stylecache.sh: $DAMON_PERF_STYLE_CACHE, default
# ~/.cache/damon-perf/style; "off" for none).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
. scripts/lib/stylecache.sh

all="shellcheck checkpatch kernel-doc clang-format clang-tidy ynl-gen layering"
checks=${*:-$all}
for c in $checks; do
	case " $all " in *" $c "*) ;; *) echo "style: unknown check $c (one of: $all)" >&2; exit 2 ;; esac
done
n=0
failed=0
echo "1..$(echo "$checks" | wc -w)"
# result ok|fail|skip DESC [FINDINGS]: one TAP line, the findings below it.
result() {
	n=$((n + 1))
	case "$1" in
	ok) echo "ok $n - $2" ;;
	skip) echo "ok $n - $2 # SKIP ${3:-}" ;;
	*)
		failed=$((failed + 1))
		echo "not ok $n - $2"
		[ -z "${3:-}" ] || printf '%s\n' "$3" | sed 's/^/# /'
		;;
	esac
}
need() {
	command -v "$1" >/dev/null 2>&1 && return 0
	result fail "$2" "$1 not installed (scripts/deps.sh)"
	return 1
}

shell_scripts() {
	local f
	find .ci scripts tests -type f \( -name '*.sh' -o -perm -u+x \) 2>/dev/null | sort |
		while read -r f; do
			case "$f" in
			*.sh) echo "$f" ;;
			*) head -n 1 "$f" | grep -qE '^#!.*[/ ](ba)?sh( |$)' && echo "$f" ;;
			esac
		done
}

cp_out=
checkpatch_run() {
	[ -n "$cp_out" ] || cp_out=$(STRICT=1 scripts/checkpatch.sh 2>&1)
}

for c in $checks; do
	case "$c" in
	shellcheck)
		need shellcheck shellcheck || continue
		mapfile -t files < <(shell_scripts)
		out=$(shellcheck -S warning -f gcc "${files[@]}" 2>&1)
		if [ -z "$out" ]; then
			result ok "shellcheck: ${#files[@]} scripts, no errors or warnings"
		else
			result fail "shellcheck: $(echo "$out" | wc -l) findings in ${#files[@]} scripts" "$out"
		fi
		;;
	checkpatch | kernel-doc)
		checkpatch_run
		if [ "$c" = checkpatch ]; then
			sum=$(echo "$cp_out" | sed -n 's/^style: checkpatch: \([0-9]*\) problems in \([0-9]*\) files/\1/p')
			what="checkpatch --strict ($(echo "$cp_out" | sed -n 's/^style: checkpatch: .* in \([0-9]*\) files/\1/p') files)"
			findings=$(echo "$cp_out" | grep -E ': (ERROR|WARNING|CHECK):')
		else
			sum=$(echo "$cp_out" | sed -n 's/^style: kernel-doc: \([0-9]*\) problems/\1/p')
			what="kernel-doc"
			findings=$(echo "$cp_out" | grep -E 'warning|error' | grep -vE ': (ERROR|WARNING|CHECK):|^style: ')
		fi
		if [ -z "$sum" ]; then
			result fail "$what did not run" "$(echo "$cp_out" | tail -n 5)"
		elif [ "$sum" -eq 0 ]; then
			result ok "$what: no problems"
		else
			result fail "$what: $sum problems" "$findings"
		fi
		;;
	clang-format)
		need clang-format clang-format || continue
		mapfile -t files < <({
			find tools tests/user tests/kshim tests/fuzz -type f \
				\( -name '*.c' -o -name '*.h' -o -name '*.cpp' -o -name '*.hpp' \)
			ls tests/vm/*.[ch] tests/vm/*/*.[ch]
		} 2>/dev/null | sort)
		out=$(clang-format --dry-run -Werror "${files[@]}" 2>&1)
		if [ -z "$out" ]; then
			result ok "clang-format: ${#files[@]} files formatted"
		else
			bad=$(echo "$out" | sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: error:.*/\1/p' | sort -u)
			result fail "clang-format: $(echo "$bad" | wc -l) files differ (clang-format -i FILE)" \
				"$(echo "$out" | grep ': error:' | head -n 40)"
		fi
		;;
	clang-tidy)
		if [ -x scripts/clang-tidy.sh ]; then out=$(scripts/clang-tidy.sh 2>&1) && result ok "clang-tidy" || result fail "clang-tidy" "$(echo "$out" | tail -n 40)"; else result skip "clang-tidy" "no scripts/clang-tidy.sh"; fi
		;;
	ynl-gen)
		if out=$(scripts/ynl-gen.sh --check 2>&1); then
			result ok "ynl-gen: generated files match Documentation/netlink/specs/damon_perf.yaml"
		else
			result fail "ynl-gen: $(echo "$out" | grep -c ' differs from ') generated files differ from the spec (scripts/ynl-gen.sh)" \
				"$(echo "$out" | head -n 40)"
		fi
		;;
	layering)
		if out=$(scripts/layering.py 2>&1); then
			result ok "$out"
		else
			result fail "layering: $(echo "$out" | grep -c '^layering: .* cycle:') dependency cycles in kmod/ (scripts/layering.py)" \
				"$(echo "$out" | head -n 40)"
		fi
		;;
	esac
done
stylecache_prune
echo "style: $((n - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
