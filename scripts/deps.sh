#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Install every Debian package the build, the demo and the tests need.
# Idempotent: installs only what is missing, runs apt-get update at most
# once per machine per day.
set -euo pipefail

PKGS=(
	build-essential bc bison flex libelf-dev libssl-dev kmod cpio xz-utils
	python3 python3-yaml rsync dwarves sparse git pkg-config cmake ninja-build zstd
	clang clang-format clang-tidy libclang-rt-14-dev shellcheck
	linux-headers-amd64 linux-image-amd64 linux-source-6.1
	qemu-system-x86 busybox-static
	libnl-3-dev libnl-genl-3-dev libcli11-dev nlohmann-json3-dev libfmt-dev
	libgtest-dev libgmock-dev libbenchmark-dev valgrind
	zlib1g-dev file libpng-dev librsvg2-bin
	gcc-aarch64-linux-gnu g++-aarch64-linux-gnu qemu-system-arm
	dkms man-db ccache systemd
)

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
	echo "deps: all ${#PKGS[@]} packages present"
	exit 0
fi

SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
echo "deps: installing ${missing[*]}"
stamp=/var/lib/apt/periodic/damon-perf-update-stamp
if [ ! -f "$stamp" ] || [ -n "$(find "$stamp" -mmin +1440 2>/dev/null)" ]; then
	$SUDO apt-get update -qq
	$SUDO mkdir -p "$(dirname "$stamp")" && $SUDO touch "$stamp"
fi
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
	"${missing[@]}" >/dev/null
echo "deps: done"
