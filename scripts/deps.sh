#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Install the Debian packages the build, the demo and the tests need.
# Idempotent: installs only what is missing, runs apt-get update at most
# once per machine per day.
#
#   scripts/deps.sh [all|demo|demo-tools|demo-vm|--list SET]
#
# all (default, make check): every package below.
# demo: what make demo needs, in two parts that scripts/demo.sh installs
#   one after the other, building damonctl while the second installs:
#   demo-tools  the compiler, CMake and damonctl's libraries
#   demo-vm     the stock kernel's headers (the module), qemu and busybox
#               (the VM). The kernel image the VM boots is not installed:
#               scripts/kernel/stock-image.sh fetches it into the cache
#               when /boot has none for the headers (installing it would
#               build the host's initramfs, minutes on 2 cores).
# --list SET: print the packages of SET, one a line, and exit.
set -euo pipefail

DEMO_TOOLS=(
	build-essential cmake pkg-config ccache
	libnl-3-dev libnl-genl-3-dev libcli11-dev nlohmann-json3-dev libfmt-dev
	zlib1g-dev libpng-dev
)
DEMO_VM=(
	linux-headers-amd64 kmod rsync xz-utils zstd python3 python3-yaml
	qemu-system-x86 busybox-static
)
PKGS=(
	"${DEMO_TOOLS[@]}" "${DEMO_VM[@]}"
	bc bison flex libelf-dev libssl-dev cpio
	dwarves sparse git ninja-build
	clang clang-format clang-tidy libclang-rt-14-dev shellcheck
	linux-image-amd64 linux-source-6.1
	libgtest-dev libgmock-dev libbenchmark-dev valgrind
	file librsvg2-bin
	gcc-aarch64-linux-gnu g++-aarch64-linux-gnu qemu-system-arm
	dkms man-db systemd
)

set_of() {
	case "$1" in
	all) echo "${PKGS[@]}" ;;
	demo) echo "${DEMO_TOOLS[@]}" "${DEMO_VM[@]}" ;;
	demo-tools) echo "${DEMO_TOOLS[@]}" ;;
	demo-vm) echo "${DEMO_VM[@]}" ;;
	*) echo "usage: $0 [all|demo|demo-tools|demo-vm|--list SET]" >&2; exit 2 ;;
	esac
}
if [ "${1:-}" = --list ]; then
	set_of "${2:-all}" | tr ' ' '\n'
	exit 0
fi
set=${1:-all}
read -r -a want <<< "$(set_of "$set")"

missing=()
for p in "${want[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
	echo "deps: all ${#want[@]} packages ($set) present"
	exit 0
fi

SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
echo "deps: installing ($set) ${missing[*]}"
stamp=/var/lib/apt/periodic/damon-perf-update-stamp
if [ ! -f "$stamp" ] || [ -n "$(find "$stamp" -mmin +1440 2>/dev/null)" ]; then
	$SUDO apt-get update -qq
	$SUDO mkdir -p "$(dirname "$stamp")" && $SUDO touch "$stamp"
fi
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
	-o DPkg::Lock::Timeout=900 \
	"${missing[@]}" >/dev/null
echo "deps: done"
