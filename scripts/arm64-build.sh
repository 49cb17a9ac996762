#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Cross-build damon_perf.ko for arm64, where the real arm_spe_pmu exists.
#
#   scripts/arm64-build.sh
#
# The first run unpacks /usr/src/linux-source-6.1.tar.xz into
# ~/.cache/damon-perf/arm64-<hash>, configures it (defconfig plus
# ARM_SPE_PMU) and runs modules_prepare; later runs reuse it and only
# build the module (W=1) in build/arm64. There is no arm64 vmlinux, so
# modpost cannot check symbol versions: undefined-symbol errors become
# warnings (KBUILD_MODPOST_WARN=1), and this checks compilation only.
# Needs gcc-aarch64-linux-gnu. The last line of stdout is the .ko path.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
src=${LINUX_SOURCE:-/usr/src/linux-source-6.1.tar.xz}
cross=${CROSS_COMPILE:-aarch64-linux-gnu-}
jobs=${JOBS:-2}
command -v "${cross}gcc" >/dev/null ||
	{ echo "arm64: ${cross}gcc not found (apt-get install gcc-aarch64-linux-gnu)" >&2; exit 1; }
[ -r "$src" ] || { echo "arm64: $src not found (apt-get install linux-source-6.1)" >&2; exit 1; }

# The cache key covers the source tarball and this recipe.
recipe="defconfig +ARM_SPE_PMU +PERF_EVENTS v1"
hash=$( (stat -c '%s %Y' "$src"; echo "$recipe") | sha256sum | cut -c1-16)
kdir=${DAMON_PERF_CACHE:-$HOME/.cache/damon-perf}/arm64-$hash
kmake=(make -C "$kdir" ARCH=arm64 CROSS_COMPILE="$cross" -j"$jobs")

if [ ! -f "$kdir/.damon-perf-prepared" ]; then
	echo "arm64: preparing $kdir (once)" >&2
	rm -rf "$kdir"
	mkdir -p "$kdir"
	tar -xJf "$src" -C "$kdir" --strip-components=1
	"${kmake[@]}" defconfig >/dev/null
	"$kdir/scripts/config" --file "$kdir/.config" \
		-e PERF_EVENTS -e ARM_SPE_PMU -e DEBUG_FS
	"${kmake[@]}" olddefconfig >/dev/null
	"${kmake[@]}" modules_prepare >/dev/null
	touch "$kdir/.damon-perf-prepared"
fi

out=$top/build/arm64
mkdir -p "$out"
for s in Kbuild kmod include; do
	rsync -a --delete --exclude='*.o' --exclude='*.ko' --exclude='*.mod' \
		--exclude='*.mod.c' --exclude='.*.cmd' --exclude='modules.order' \
		--exclude='Module.symvers' "$top/$s" "$out/"
done
log=$out/build.log
rc=0
"${kmake[@]}" M="$out" W=1 KBUILD_MODPOST_WARN=1 modules >"$log" 2>&1 || rc=$?
grep -E 'warning:|error:' "$log" | grep -v 'modpost: .* undefined!' >&2 || true
[ $rc -eq 0 ] || { echo "arm64: build FAILED, see $log" >&2; tail -n 20 "$log" >&2; exit 1; }
readelf -h "$out/kmod/damon_perf.ko" | grep -q 'Machine:.*AArch64' ||
	{ echo "arm64: $out/kmod/damon_perf.ko is not an arm64 object" >&2; exit 1; }
echo "$out/kmod/damon_perf.ko"
