# SPDX-License-Identifier: GPL-2.0
# Sourced by the harness scripts: where the two test kernels live.
#   stock  Debian's packaged kernel: /boot/vmlinuz-<ver> and the matching
#          /usr/src/linux-headers-<ver> (newest pair; KDIR_STOCK= and
#          KERNEL_STOCK= override)
#   debug  the debug test kernel tree from scripts/kernel/build.sh (built on
#          first use, cached after; KDIR_DEBUG= overrides)

kernels_top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

stock_version() {
	local f ver
	for f in $(ls /boot/vmlinuz-*-amd64 2>/dev/null | sort -rV); do
		ver=${f#/boot/vmlinuz-}
		[ -f "/usr/src/linux-headers-$ver/Makefile" ] && { echo "$ver"; return 0; }
	done
	echo "no /boot/vmlinuz-*-amd64 with matching linux-headers (run scripts/deps.sh)" >&2
	return 1
}

debug_tree() {
	if [ -n "${KDIR_DEBUG:-}" ]; then echo "$KDIR_DEBUG"; return 0; fi
	"$kernels_top/scripts/kernel/build.sh" | tail -n 1
}

# kernel_kdir stock|debug: the directory to build modules against.
kernel_kdir() {
	case "$1" in
	stock) if [ -n "${KDIR_STOCK:-}" ]; then echo "$KDIR_STOCK"; else
		echo "/usr/src/linux-headers-$(stock_version)"; fi ;;
	debug) debug_tree ;;
	*) echo "unknown kernel '$1'" >&2; return 1 ;;
	esac
}

# kernel_image stock|debug: the bzImage to boot.
kernel_image() {
	case "$1" in
	stock) if [ -n "${KERNEL_STOCK:-}" ]; then echo "$KERNEL_STOCK"; else
		echo "/boot/vmlinuz-$(stock_version)"; fi ;;
	debug) echo "$(debug_tree)/arch/x86/boot/bzImage" ;;
	*) echo "unknown kernel '$1'" >&2; return 1 ;;
	esac
}

# kernel_has KDIR CONFIG_FOO: true when the tree's config sets it (y or m).
kernel_has() {
	grep -qE "^$2=(y|m)" "$1/.config" 2>/dev/null ||
		grep -qE "^#define $2(_MODULE)? 1" "$1/include/generated/autoconf.h" 2>/dev/null
}

# kernel_boot_image stock|debug: what qemu -kernel gets. An uncompressed
# vmlinux with a PVH entry point boots directly, skipping the decompressor,
# which is slow under TCG (about 8 s of a 16 s stock boot); the bzImage
# otherwise.
kernel_boot_image() {
	local img cfg vmlinux cache
	img=$(kernel_image "$1") || return 1
	case "$1" in
	stock)
		cfg=/boot/config-${img#/boot/vmlinuz-}
		[ -n "${KERNEL_STOCK:-}" ] && cfg=
		if [ -n "$cfg" ] && grep -q '^CONFIG_PVH=y' "$cfg" 2>/dev/null; then
			cache=${DAMON_PERF_CACHE:-$HOME/.cache/damon-perf}
			vmlinux=$cache/vmlinux-$(basename "$img")-$(stat -c %s-%Y "$img")
			if [ ! -s "$vmlinux" ]; then
				mkdir -p "$cache"
				rm -f "$cache/vmlinux-$(basename "$img")"-*
				python3 "$kernels_top/scripts/lib/extract-vmlinux.py" \
					"$img" "$vmlinux" >&2 || rm -f "$vmlinux"
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
	esac
}
