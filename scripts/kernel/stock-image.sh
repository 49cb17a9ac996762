#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The stock kernel's image for the VMs without installing it: make demo
# installs linux-headers-amd64 only (scripts/deps.sh demo-vm), and
# installing linux-image-amd64 would build the host's initramfs, which
# took minutes of a fresh 2-core machine's first make demo.
#
#   scripts/kernel/stock-image.sh
#
# For the newest /usr/src/linux-headers-RELEASE-amd64 without a
# /boot/vmlinuz-RELEASE, `apt-get download`s linux-image-RELEASE (the
# host's apt lists, no root needed) and unpacks its /boot (vmlinuz,
# config, System.map) into $DAMON_PERF_CACHE/boot (default
# ~/.cache/damon-perf), where scripts/lib/kernels.sh finds it. Its
# modules are not unpacked: the demo needs none (make check installs
# linux-image-amd64, and its stock VMs then boot /boot's image). Prints
# the image's path; nothing to do (an image in /boot or the cache) is not
# an error.
set -euo pipefail
cache=${DAMON_PERF_CACHE:-$HOME/.cache/damon-perf}
boot=$cache/boot
hdr=$(ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V | tail -n 1)
[ -n "$hdr" ] && [ -f "$hdr/Makefile" ] ||
	{ echo "stock-image: no /usr/src/linux-headers-*-amd64 (scripts/deps.sh demo-vm)" >&2; exit 1; }
release=${hdr#/usr/src/linux-headers-}
for f in "/boot/vmlinuz-$release" "$boot/vmlinuz-$release"; do
	[ -f "$f" ] && { echo "$f"; exit 0; }
done
mkdir -p "$boot"
exec 9>"$boot/.lock"
flock 9
[ -f "$boot/vmlinuz-$release" ] && { echo "$boot/vmlinuz-$release"; exit 0; }
tmp=$(mktemp -d "$boot/.fetch.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && apt-get download -q "linux-image-$release" >"$tmp/download.log" 2>&1) ||
	{ cat "$tmp/download.log" >&2; echo "stock-image: apt-get download linux-image-$release failed" >&2; exit 1; }
deb=$(ls "$tmp"/linux-image-*.deb)
dpkg-deb --fsys-tarfile "$deb" |
	tar -x -C "$tmp" --wildcards './boot/*'
for f in config System.map vmlinuz; do
	mv "$tmp/boot/$f-$release" "$boot/"
done
echo "stock-image: linux-image-$release unpacked into $boot ($(du -k "$deb" | cut -f1) KiB downloaded)" >&2
echo "$boot/vmlinuz-$release"
