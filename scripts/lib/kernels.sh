# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Sourced by the harness scripts: where the two test kernels live.
#   stock  Debian's packaged kernel: /boot/vmlinuz-<ver> (or the cache's
#          boot/vmlinuz-<ver>, scripts/kernel/stock-image.sh) and the
#          matching /usr/src/linux-headers-<ver> (newest pair; KDIR_STOCK=
#          and KERNEL_STOCK= override)
#   debug  the debug test kernel tree from scripts/kernel/build.sh (built on
#          first use, cached after; KDIR_DEBUG= overrides)
#   trixie Debian 13's stock kernel (6.12), and
#   sid    Debian unstable's newest stock kernel (7.2 when written): the
#          image and a matching module tree from scripts/kernel/stock.sh
#          (fetched and prepared on first use, cached after)
#   arm64  Debian 12's arm64 stock kernel (6.1), a module tree of its
#          headers and an arm64 userland sysroot from scripts/kernel/arm64.sh
#          (fetched on first use, cached after); cross builds, qemu-system-aarch64

kernels_top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

# stock_boot_dirs: where a stock kernel image may be: /boot, and the
# cache's boot/ (scripts/kernel/stock-image.sh: make demo does not install
# the image).
stock_boot_dirs() {
	echo /boot "${DAMON_PERF_CACHE:-$HOME/.cache/damon-perf}/boot"
}

stock_version() {
	local d ver
	for ver in $(for d in $(stock_boot_dirs); do ls "$d"/vmlinuz-*-amd64 2>/dev/null; done |
		sed 's|.*/vmlinuz-||' | sort -rVu); do
		[ -f "/usr/src/linux-headers-$ver/Makefile" ] && { echo "$ver"; return 0; }
	done
	echo "no vmlinuz-*-amd64 in /boot or the cache with matching linux-headers (run scripts/deps.sh)" >&2
	return 1
}

# stock_image VERSION: its vmlinuz, /boot's before the cache's.
stock_image() {
	local d
	for d in $(stock_boot_dirs); do
		[ -f "$d/vmlinuz-$1" ] && { echo "$d/vmlinuz-$1"; return 0; }
	done
	echo "no vmlinuz-$1" >&2
	return 1
}

debug_tree() {
	if [ -n "${KDIR_DEBUG:-}" ]; then echo "$KDIR_DEBUG"; return 0; fi
	"$kernels_top/scripts/kernel/build.sh" | tail -n 1
}

# suite_dir trixie|sid: the cached image + module tree of that suite.
suite_dir() {
	"$kernels_top/scripts/kernel/stock.sh" "$1" | tail -n 1
}

# arm64_dir: the cached arm64 image, module tree and sysroot.
# DAMON_PERF_ARM64_DIR (set by scripts/vm.sh and check.sh once) saves
# asking scripts/kernel/arm64.sh again: its apt-cache lookups take seconds.
arm64_dir() {
	if [ -n "${DAMON_PERF_ARM64_DIR:-}" ] && [ -f "$DAMON_PERF_ARM64_DIR/.damon-perf-built" ]; then
		echo "$DAMON_PERF_ARM64_DIR"
		return 0
	fi
	"$kernels_top/scripts/kernel/arm64.sh" | tail -n 1
}

# ccache_env: when ccache is installed, exports its environment for the
# project's builds (~/.cache/damon-perf/ccache, keyed by content without
# the tree's location, so a clean clone compiles only what changed) and
# sets ccache_cmake to the CMake options that use it (else empty).
ccache_env() {
	ccache_cmake=()
	command -v ccache > /dev/null || return 0
	export CCACHE_DIR=${DAMON_PERF_CACHE:-$HOME/.cache/damon-perf}/ccache
	export CCACHE_BASEDIR=$kernels_top CCACHE_NOHASHDIR=true CCACHE_MAXSIZE=2G
	ccache_cmake=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
}

# arm64_damonctl SYSROOT: damonctl for arm64 in build/tools-arm64,
# cross-built against the sysroot's libraries
# (scripts/arm64-toolchain.cmake), incrementally.
arm64_damonctl() {
	local sysroot=$1 bt=$kernels_top/build/tools-arm64
	ccache_env
	mkdir -p "$kernels_top/build/logs"
	if [ ! -f "$bt/CMakeCache.txt" ] ||
		! grep -q "^DAMON_PERF_SYSROOT:[A-Z]*=$sysroot\$" "$bt/CMakeCache.txt"; then
		rm -rf "$bt"
		cmake -S "$kernels_top/tools" -B "$bt" -G Ninja -DCMAKE_BUILD_TYPE=Release \
			-DCMAKE_TOOLCHAIN_FILE="$kernels_top/scripts/arm64-toolchain.cmake" \
			-DDAMON_PERF_SYSROOT="$sysroot" "${ccache_cmake[@]}" >"$kernels_top/build/logs/cmake-arm64.log" 2>&1 ||
			{ tail -n 20 "$kernels_top/build/logs/cmake-arm64.log" >&2; return 1; }
	fi
	cmake --build "$bt" -j"${JOBS:-2}" --target damonctl \
		>"$kernels_top/build/logs/damonctl-arm64.log" 2>&1 ||
		{ tail -n 20 "$kernels_top/build/logs/damonctl-arm64.log" >&2; return 1; }
}

# kernel_arch KERNEL: the architecture it runs on (uname -m).
kernel_arch() {
	case "$1" in arm64) echo aarch64 ;; *) echo x86_64 ;; esac
}

# kernel_cross KERNEL: the cross-compiler prefix for it, empty for the host's.
kernel_cross() {
	case "$1" in arm64) echo aarch64-linux-gnu- ;; *) echo ;; esac
}

# kernel_make_args KERNEL: what make -C KDIR needs besides M= for it.
kernel_make_args() {
	case "$1" in arm64) echo "ARCH=arm64 CROSS_COMPILE=$(kernel_cross arm64)" ;; *) echo ;; esac
}

# suite_release DIR: the kernel release of a suite_dir.
suite_release() {
	local f
	f=$(ls "$1"/image/boot/vmlinuz-* 2>/dev/null | head -n 1)
	[ -n "$f" ] || { echo "no kernel image in $1" >&2; return 1; }
	echo "${f##*/vmlinuz-}"
}

# kernel_kdir KERNEL: the directory to build modules against.
kernel_kdir() {
	case "$1" in
	stock) if [ -n "${KDIR_STOCK:-}" ]; then echo "$KDIR_STOCK"; else
		echo "/usr/src/linux-headers-$(stock_version)"; fi ;;
	debug) debug_tree ;;
	trixie|sid) echo "$(suite_dir "$1")/build" ;;
	arm64) echo "$(arm64_dir)/build" ;;
	*) echo "unknown kernel '$1'" >&2; return 1 ;;
	esac
}

# kernel_image KERNEL: the bzImage to boot.
kernel_image() {
	local d
	case "$1" in
	stock) if [ -n "${KERNEL_STOCK:-}" ]; then echo "$KERNEL_STOCK"; else
		stock_image "$(stock_version)"; fi ;;
	debug) echo "$(debug_tree)/arch/x86/boot/bzImage" ;;
	trixie|sid) d=$(suite_dir "$1") && echo "$d/image/boot/vmlinuz-$(suite_release "$d")" ;;
	arm64) d=$(arm64_dir) && echo "$d/image/boot/vmlinuz-$(cat "$d/release")" ;;
	*) echo "unknown kernel '$1'" >&2; return 1 ;;
	esac
}

# kernel_modroot KERNEL: the root under which lib/modules/RELEASE of the
# kernel's own modules lies (for modinfo -b), "/" for the host's.
kernel_modroot() {
	local d
	case "$1" in
	trixie|sid) d=$(suite_dir "$1") || return 1
		if [ -d "$d/image/usr/lib/modules" ]; then echo "$d/image/usr"; else echo "$d/image"; fi ;;
	arm64) echo "$(arm64_dir)/image" ;;
	*) echo / ;;
	esac
}

# kernel_has KDIR CONFIG_FOO: true when the tree's config sets it (y or m).
kernel_has() {
	grep -qE "^$2=(y|m)" "$1/.config" 2>/dev/null ||
		grep -qE "^#define $2(_MODULE)? 1" "$1/include/generated/autoconf.h" 2>/dev/null
}

# kernel_boot_image KERNEL: what qemu -kernel gets. arm64: the Image
# (scripts/kernel/arm64.sh). x86: an uncompressed
# vmlinux with a PVH entry point boots directly, skipping the decompressor,
# which is slow under TCG (about 8 s of a 16 s stock boot); the bzImage
# otherwise.
kernel_boot_image() {
	local img cfg vmlinux cache
	img=$(kernel_image "$1") || return 1
	case "$1" in
	stock|trixie|sid)
		cfg=$(dirname "$img")/config-${img##*/vmlinuz-}
		[ "$1" = stock ] && [ -n "${KERNEL_STOCK:-}" ] && cfg=
		if [ -n "$cfg" ] && grep -q '^CONFIG_PVH=y' "$cfg" 2>/dev/null; then
			cache=${DAMON_PERF_CACHE:-$HOME/.cache/damon-perf}
			vmlinux=$cache/vmlinux-$(basename "$img")-$(stat -L -c %s-%Y "$img")
			# one extraction at a time, into a file renamed when
			# complete: VMs of two lanes that boot the same kernel
			# at once (a fresh cache) neither read a half-written
			# vmlinux nor remove the one being written
			if [ ! -s "$vmlinux" ]; then
				mkdir -p "$cache"
				(
					flock 9
					if [ ! -s "$vmlinux" ]; then
						rm -f "$cache/vmlinux-$(basename "$img")"-*
						python3 "$kernels_top/scripts/lib/extract-vmlinux.py" \
							"$img" "$vmlinux.part" >&2 &&
							mv "$vmlinux.part" "$vmlinux"
						rm -f "$vmlinux.part"
					fi
				) 9> "$cache/vmlinux.lock"
			fi
			[ -s "$vmlinux" ] && { echo "$vmlinux"; return 0; }
		fi
		echo "$img" ;;
	debug)
		local tree
		tree=$(debug_tree) || return 1
		if grep -q '^CONFIG_PVH=y' "$tree/.config" 2>/dev/null && [ -f "$tree/vmlinux" ]; then
			echo "$tree/vmlinux"
		else
			echo "$tree/arch/x86/boot/bzImage"
		fi ;;
	arm64) echo "$(arm64_dir)/image/boot/Image" ;;
	esac
}

# ynl_tree: the 6.12 kernel tree whose tools/net/ynl (the YNL generators
# and CLI) the project uses: $YNL_TREE, else the newest cached
# stock-trixie-*/build, else fetched by scripts/kernel/stock.sh trixie.
# Fails, with a message, when it has no tools/net/ynl/cli.py.
ynl_tree() {
	local cache=${DAMON_PERF_CACHE:-$HOME/.cache/damon-perf} d tree=${YNL_TREE:-}
	if [ -z "$tree" ]; then
		for d in $(ls -d "$cache"/stock-trixie-*/build 2>/dev/null | sort -rV); do
			[ -f "$d/tools/net/ynl/ynl-gen-c.py" ] && { tree=$d; break; }
		done
	fi
	if [ -z "$tree" ]; then
		echo "ynl: no cached 6.12 tree, fetching it (scripts/kernel/stock.sh trixie)" >&2
		tree=$("$kernels_top/scripts/kernel/stock.sh" trixie | tail -n 1)/build || tree=
	fi
	if [ -z "$tree" ] || [ ! -f "$tree/tools/net/ynl/cli.py" ]; then
		echo "ynl: the kernel's YNL tools are missing (${tree:-no tree});" \
			"run scripts/kernel/stock.sh trixie or set YNL_TREE=" >&2
		return 1
	fi
	echo "$tree"
}
