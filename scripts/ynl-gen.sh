#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Generate, from the one schema Documentation/netlink/specs/damon_perf.yaml,
# with the kernel's own YNL generators (tools/net/ynl of the 6.12 tree that
# scripts/kernel/stock.sh fetches for trixie):
#
#   include/uapi/linux/damon_perf.h   ynl-gen-c.py --mode uapi
#   kmod/netlink_gen.c, netlink_gen.h ynl-gen-c.py --mode kernel (policies,
#                                     split ops; 6.1 bridged in kmod/compat/)
#   Documentation/netlink/damon_perf.rst  ynl-gen-rst.py
#
#   scripts/ynl-gen.sh           write them into the tree
#   scripts/ynl-gen.sh --check   regenerate into a temporary directory and
#                                fail, naming each file, on any difference
#
# YNL_TREE=DIR picks the kernel tree (default: the newest cached
# $DAMON_PERF_CACHE/stock-trixie-*/build, fetched by stock.sh if none).
# Needs python3 with PyYAML and jsonschema (as the kernel's generators do).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
check=0
case "${1:-}" in
--check) check=1 ;;
"") ;;
*) echo "usage: scripts/ynl-gen.sh [--check]" >&2; exit 2 ;;
esac

. "$top/scripts/lib/kernels.sh"
tree=$(ynl_tree) || exit 1
ynl=$tree/tools/net/ynl
schema=$tree/Documentation/netlink/genetlink-c.yaml
for f in "$ynl/ynl-gen-c.py" "$ynl/ynl-gen-rst.py" "$schema"; do
	if [ -z "$tree" ] || [ ! -f "$f" ]; then
		echo "ynl-gen: the kernel's YNL tools are missing (${f:-no tree});" \
			"run scripts/kernel/stock.sh trixie or set YNL_TREE=" >&2
		exit 1
	fi
done
python3 -c 'import yaml, jsonschema' 2>/dev/null || {
	echo "ynl-gen: python3 needs PyYAML and jsonschema" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The generators read the schema next to the spec's directory and name the
# spec by its path below the first directory holding MAINTAINERS: give them
# a tree of that shape, so every file says Documentation/netlink/specs/...
mkdir -p "$tmp/src/Documentation/netlink/specs" "$tmp/out"
: >"$tmp/src/MAINTAINERS"
cp "$top/Documentation/netlink/specs/damon_perf.yaml" \
	"$tmp/src/Documentation/netlink/specs/"
cp "$schema" "$tmp/src/Documentation/netlink/"
spec=$tmp/src/Documentation/netlink/specs/damon_perf.yaml

gen() { # FILE ARGS...: one output, relative to the top
	local out=$tmp/out/$1
	shift
	mkdir -p "$(dirname "$out")"
	(cd "$ynl" && "$@" >"$tmp/log" 2>&1) || {
		cat "$tmp/log" >&2; echo "ynl-gen: failed: $*" >&2; exit 1; }
}
gen include/uapi/linux/damon_perf.h python3 ./ynl-gen-c.py --spec "$spec" \
	--mode uapi --header -o "$tmp/out/include/uapi/linux/damon_perf.h"
gen kmod/netlink_gen.c python3 ./ynl-gen-c.py --spec "$spec" \
	--mode kernel --source -o "$tmp/out/kmod/netlink_gen.c"
gen kmod/netlink_gen.h python3 ./ynl-gen-c.py --spec "$spec" \
	--mode kernel --header -o "$tmp/out/kmod/netlink_gen.h"
gen Documentation/netlink/damon_perf.rst python3 ./ynl-gen-rst.py \
	-i "$spec" -o "$tmp/out/Documentation/netlink/damon_perf.rst"

files="include/uapi/linux/damon_perf.h kmod/netlink_gen.c kmod/netlink_gen.h
Documentation/netlink/damon_perf.rst"
if [ "$check" = 1 ]; then
	bad=0
	for f in $files; do
		if ! cmp -s "$tmp/out/$f" "$top/$f"; then
			echo "ynl-gen: $f differs from what Documentation/netlink/specs/damon_perf.yaml generates (run scripts/ynl-gen.sh)" >&2
			diff -u "$top/$f" "$tmp/out/$f" 2>&1 | head -n 20 >&2 || true
			bad=$((bad + 1))
		fi
	done
	[ "$bad" = 0 ] || exit 1
	echo "ynl-gen: 4 generated files match the spec"
	exit 0
fi
for f in $files; do
	cp "$tmp/out/$f" "$top/$f"
	echo "ynl-gen: wrote $f"
done
