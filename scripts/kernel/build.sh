#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build (or reuse) the debug test kernel from Debian's linux-source-6.1.
#
# The build lives outside the clone, in $DAMON_PERF_CACHE (default
# ~/.cache/damon-perf), keyed by a hash of the config fragment, this script
# and the source tarball's version, so only the first build on a machine
# pays. Prints the tree's path on the last line of stdout.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${DAMON_PERF_CACHE:-$HOME/.cache/damon-perf}
tarball=/usr/src/linux-source-6.1.tar.xz
[ -f "$tarball" ] || { echo "build.sh: $tarball missing (run scripts/deps.sh)" >&2; exit 1; }

srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1)
key=$( (cat "$here/debug.config" "$here/build.sh"; echo "$srcver") | sha256sum | cut -c1-16)
tree=$cache/kernel-$key
jobs=${JOBS:-$(($(nproc) + 1))}

if [ -f "$tree/.damon-perf-built" ]; then
	echo "kernel: cached debug kernel $tree" >&2
	echo "$tree"
	exit 0
fi

mkdir -p "$cache"
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
# Progress: one line per 500 objects compiled.
make -j"$jobs" bzImage modules 2>&1 | awk '/^  CC/ {n++; if (n % 500 == 0) printf "kernel: %d objects compiled\n", n > "/dev/stderr"} /error|Error/ {print > "/dev/stderr"}'
[ -f arch/x86/boot/bzImage ] || { echo "kernel: build failed" >&2; exit 1; }
touch .damon-perf-built
echo "kernel: built in $(( $(date +%s) - start )) s" >&2
echo "$tree"
