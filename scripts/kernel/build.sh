#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build (or reuse) the debug test kernel from Debian's linux-source-6.1.
#
# The build lives outside the clone, in $DAMON_PERF_CACHE (default
# ~/.cache/damon-perf), keyed by a hash of the config fragment, the build
# recipe version below and the source package's version, so only the first
# build on a machine pays. Trees of other keys are pruned. Prints the tree's
# path on the last line of stdout.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${DAMON_PERF_CACHE:-$HOME/.cache/damon-perf}
tarball=/usr/src/linux-source-6.1.tar.xz
[ -f "$tarball" ] || { echo "build.sh: $tarball missing (run scripts/deps.sh)" >&2; exit 1; }

srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1)
# Bump when a change to this script changes what gets built (not for a
# change of messages): it is part of the cache key.
recipe=1
key=$( (cat "$here/debug.config"; echo "$srcver"; echo "recipe=$recipe") | sha256sum | cut -c1-16)
tree=$cache/kernel-$key
jobs=${JOBS:-$(($(nproc) + 1))}

# prune: remove the trees of other keys (1.5 GB each), and dangling links.
# Called with the lock held, so no build is in progress.
prune() {
	local d
	for d in "$cache"/kernel-*; do
		[ "$d" = "$tree" ] && continue
		if [ -L "$d" ]; then
			[ -e "$d" ] || rm -f "$d"
			continue
		fi
		[ -d "$d" ] || continue
		echo "kernel: pruning stale tree $d" >&2
		rm -rf "$d"
	done
}

mkdir -p "$cache"
if [ -f "$tree/.damon-perf-built" ]; then
	echo "kernel: cached debug kernel $tree" >&2
	# Prune only when no build holds the lock.
	( flock -n 9 && prune ) 9>"$cache/kernel.lock" || true
	echo "$tree"
	exit 0
fi

exec 9>"$cache/kernel.lock"
flock 9
if [ -f "$tree/.damon-perf-built" ]; then echo "$tree"; exit 0; fi

start=$(date +%s)
rm -rf "$tree"
mkdir -p "$tree"
echo "kernel: unpacking linux-source-6.1 $srcver" >&2
tar -C "$tree" --strip-components=1 -xf "$tarball"
cd "$tree"
echo "kernel: configuring (tinyconfig + scripts/kernel/debug.config)" >&2
make -s tinyconfig >/dev/null
./scripts/kconfig/merge_config.sh -m .config "$here/debug.config" >/dev/null
make -s olddefconfig >/dev/null
# Every option the fragment asks for must have stuck.
bad=0
while IFS= read -r line; do
	case "$line" in CONFIG_*=n) opt=${line%=n}
		grep -q "^$opt=" .config && { echo "kernel: $opt is set, wanted n" >&2; bad=1; } ;;
	CONFIG_*) grep -qx "$line" .config || { echo "kernel: $line did not stick" >&2; bad=1; } ;;
	esac
done < "$here/debug.config"
[ $bad -eq 0 ] || exit 1
echo "kernel: $(grep -c '=' .config) options; building bzImage with -j$jobs (tens of minutes on 2 cores)" >&2
# Progress: one line per 200 objects compiled, with the elapsed time;
# compiler errors and make's failure lines as they come.
make -j"$jobs" bzImage modules 2>&1 | awk -v start="$start" '
	/^  CC/ { n++; if (n % 200 == 0) { "date +%s" | getline now; close("date +%s")
		printf "kernel: %d objects compiled (%d s)\n", n, now - start > "/dev/stderr" } }
	/error:|\*\*\*/ { print > "/dev/stderr" }'
[ -f arch/x86/boot/bzImage ] || { echo "kernel: build failed" >&2; exit 1; }
touch .damon-perf-built
echo "kernel: built in $(( $(date +%s) - start )) s" >&2
prune
echo "$tree"
