#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Print the numbers of include/uapi/linux/damon_perf.h as shell variables,
# for the VM tests (/tests/uapi.sh, sourced by tests/vm/lib.sh):
#
#   scripts/lib/uapi-sh.sh [HEADER] > uapi.sh
#
# Every enumerator DAMON_PERF_X becomes X=<value> (DAMON_PERF_CMD_CTX_NEW ->
# CMD_CTX_NEW=1, DAMON_PERF_PROBE_A_TYPE -> PROBE_A_TYPE=3); names starting
# with "__" are left out; so are #define'd numbers and strings
# (DAMON_PERF_CMD_MAX -> CMD_MAX, DAMON_PERF_GENL_NAME -> GENL_NAME). The values come from the compiler, so the header
# stays the only place a number is written.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
hdr=${1:-$top/include/uapi/linux/damon_perf.h}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Enumerators: identifiers at the start of a line inside an enum body.
names=$(awk '
	/^enum [a-z_]+ \{/ { in_e = 1; next }
	in_e && /^\};/ { in_e = 0; next }
	in_e && match($0, /^[ \t]+DAMON_PERF_[A-Z0-9_]+/) {
		n = substr($0, RSTART, RLENGTH); gsub(/[ \t]/, "", n); print n
	}' "$hdr")
# Macros: numbers (limits, *_MAX) and strings (the family and group names).
defs=$(sed -nE 's/^#define[ \t]+(DAMON_PERF_[A-Z0-9_]+)[ \t]+[^" \t].*/\1/p' "$hdr")
strs=$(sed -nE 's/^#define[ \t]+(DAMON_PERF_[A-Z0-9_]+)[ \t]+".*/\1/p' "$hdr")
[ -n "$names" ] || { echo "uapi-sh: no enumerators in $hdr" >&2; exit 1; }
{
	echo '#include <stdio.h>'
	echo "#include \"$hdr\""
	echo 'int main(void)'
	echo '{'
	for n in $names; do
		echo "	printf(\"%s=%lld\\n\", \"${n#DAMON_PERF_}\", (long long)$n);"
	done
	for n in $defs; do
		echo "	printf(\"%s=%lld\\n\", \"${n#DAMON_PERF_}\", (long long)($n));"
	done
	for n in $strs; do
		echo "	printf(\"%s=%s\\n\", \"${n#DAMON_PERF_}\", $n);"
	done
	echo '	return 0;'
	echo '}'
} > "$tmp/gen.c"
gcc -Wall -Werror -o "$tmp/gen" "$tmp/gen.c"
echo "# SPDX-License-Identifier: GPL-2.0"
echo "# shellcheck shell=sh disable=SC2034"
echo "# Generated from include/uapi/linux/damon_perf.h by scripts/lib/uapi-sh.sh."
echo "NLA_F_NESTED=32768"
"$tmp/gen"
