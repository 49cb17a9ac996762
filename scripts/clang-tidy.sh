#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# clang-tidy (the checks of .clang-tidy) over every C++ file of tools/src
# and tests/user that build/tools compiles, with its compile_commands.json.
# Prints the findings; exits 1 on any (warning or error), 2 when it cannot
# run (no clang-tidy, or tools/ not configured and not configurable).
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
log=$(mktemp)
trap 'rm -f "$log"' EXIT
rc=0
for f in "${files[@]}"; do
	"$tidy" -p "$bt" --quiet "$f" >>"$log" 2>/dev/null || rc=1
done
# findings in our files only (the header filter of .clang-tidy)
if grep -E '^(/[^:]+):[0-9]+:[0-9]+: (warning|error):' "$log" >/dev/null; then
	grep -E -A3 '^(/[^:]+):[0-9]+:[0-9]+: (warning|error):' "$log"
	n=$(grep -cE '^(/[^:]+):[0-9]+:[0-9]+: (warning|error):' "$log")
	echo "clang-tidy.sh: $n findings in ${#files[@]} files" >&2
	exit 1
fi
if [ "$rc" -ne 0 ]; then
	cat "$log"
	echo "clang-tidy.sh: clang-tidy failed" >&2
	exit 1
fi
echo "clang-tidy.sh: ${#files[@]} files, no findings"
