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
