#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# clang-tidy (the checks of .clang-tidy) over every C++ file of tools/src
# and tests/user that build/tools compiles, with its compile_commands.json.
# Prints the findings; exits 1 on any (warning or error), 2 when it cannot
# run (no clang-tidy, or tools/ not configured and not configurable).
# A file's clean result is cached in $DAMON_PERF_STYLE_CACHE
# (scripts/lib/stylecache.sh) and the file is not checked again until it,
# a header it includes, its compile command, .clang-tidy or clang-tidy
# change.
#
#   scripts/clang-tidy.sh [BUILD_DIR]     (default build/tools; configured
#                                          there first when missing)
#   CLANG_TIDY=clang-tidy-14 scripts/clang-tidy.sh
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
bt=${1:-$top/build/tools}
tidy=${CLANG_TIDY:-$(command -v clang-tidy || command -v clang-tidy-14 || true)}
if [ -z "$tidy" ]; then
	echo "clang-tidy.sh: no clang-tidy (apt-get install clang-tidy)" >&2
	exit 2
fi
if [ ! -f "$bt/compile_commands.json" ] &&
	! cmake -S "$top/tools" -B "$bt" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null; then
	echo "clang-tidy.sh: cannot configure $bt" >&2
	exit 2
fi
# The sources compile_commands.json names below tools/src and tests/user.
mapfile -t files < <(python3 - "$bt/compile_commands.json" "$top" <<'PY'
import json, os, sys
top = os.path.realpath(sys.argv[2])
seen = set()
for e in json.load(open(sys.argv[1])):
    f = os.path.realpath(os.path.join(e["directory"], e["file"]))
    rel = os.path.relpath(f, top)
    if f.endswith(".cpp") and rel.startswith(("tools/src/", "tests/user/")) \
            and f not in seen:
        seen.add(f)
        print(f)
PY
)
if [ "${#files[@]}" -eq 0 ]; then
	echo "clang-tidy.sh: no C++ files in $bt/compile_commands.json" >&2
	exit 2
fi
# One clang-tidy a file, CLANG_TIDY_JOBS (default 2) at a time, each
# finding an error (--warnings-as-errors) so that its exit status tells.
# A clean result is cached (scripts/lib/stylecache.sh) under a hash of the
# file and every header it includes, its compile command, .clang-tidy and
# clang-tidy's version (scripts/lib/tidy-key.py); a file with findings is
# checked again each time.
. "$top/scripts/lib/stylecache.sh"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
tidy_tag="clang-tidy $("$tidy" --version | tr '\n' ' ') --quiet --warnings-as-errors=*"
# tidy_one FILE
tidy_one() {
	local log key
	log=$out/$(echo "$1" | tr / _).log
	key=$(python3 "$top/scripts/lib/tidy-key.py" "$bt/compile_commands.json" "$1" "$tidy_tag")
	if [ -n "$key" ] && stylecache_get clang-tidy "$key" >/dev/null; then
		return 0
	fi
	if "$tidy" -p "$bt" --quiet --warnings-as-errors="*" "$1" >"$log" 2>&1; then
		[ -z "$key" ] || stylecache_put clang-tidy "$key" 0 /dev/null
	else
		echo "$1" >>"$out/failed"
	fi
}
export top tidy bt out tidy_tag
export -f tidy_one stylecache_key stylecache_get stylecache_put
printf '%s\n' "${files[@]}" | xargs -P "${CLANG_TIDY_JOBS:-2}" -I{} bash -c 'tidy_one "$1"' tidy_one {}
if [ -s "$out/failed" ]; then
	while read -r f; do
		log=$out/$(echo "$f" | tr / _).log
		if grep -q ': \(warning\|error\):' "$log"; then
			sed -n '/: \(warning\|error\):/,+3p' "$log"
		else
			tail -n 20 "$log" # clang-tidy itself failed
		fi
	done <"$out/failed"
	echo "clang-tidy.sh: findings in $(wc -l <"$out/failed") of ${#files[@]} files:" >&2
	sed 's/^/  /' "$out/failed" >&2
	exit 1
fi
echo "clang-tidy.sh: ${#files[@]} files, no findings"
