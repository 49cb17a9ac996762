#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Fetch (or reuse) a stock Debian kernel of a newer suite and a module build
# tree that matches it, without touching the host's apt setup.
#
#   scripts/kernel/stock.sh SUITE        SUITE: trixie (Debian 13, 6.12)
#                                               sid (Debian unstable, newest)
#
# What it does, once per suite and kernel ABI (cached in
# $DAMON_PERF_CACHE/stock-SUITE-RELEASE, default ~/.cache/damon-perf):
#   1. a private apt configuration (sources list, list directory, package
#      cache under $DAMON_PERF_CACHE/apt/SUITE) that reuses the URIs of the
#      host's own Debian sources entry; `apt-get update` at most once a day
#   2. resolves the suite's linux-image-amd64 to its kernel release, and
#      `apt-get download`s linux-image-RELEASE (the kernel to boot and its
#      modules), linux-headers-RELEASE (its .config and Module.symvers) and
#      linux-source-SERIES (the sources the image was built from)
#   3. unpacks the image into image/ and the sources into build/, applies
#      the image's .config and Module.symvers, and runs `make
#      modules_prepare` with the host's compiler, so modules built M= against
#      build/ carry the image's vermagic and symbol CRCs
# Nothing is installed system-wide. Prints the cache directory on the last
# line of stdout; build/ is the KDIR, image/boot/vmlinuz-RELEASE the kernel.
#
# Why not the headers package alone: its kbuild helpers (modpost, objtool)
# are linked against the suite's newer glibc and do not run on Debian 12.
set -euo pipefail
suite=${1:-}
case "$suite" in trixie|sid) ;; *)
	echo "usage: $0 trixie|sid" >&2; exit 2 ;;
esac
cache=${DAMON_PERF_CACHE:-$HOME/.cache/damon-perf}
# Bump when a change here changes what gets prepared: part of the cache key.
recipe=2
apt_dir=$cache/apt/$suite
. "$(dirname "$0")/../lib/apt.sh"
apt_opts=() # apt_private sets them

# --- 1. private apt configuration --------------------------------------
apt_private stock "$apt_dir" "" "$suite"
exec 9>"$cache/stock-$suite.lock"
flock 9
apt_update "stock: $suite" "$apt_dir"

# --- 2. resolve the release -------------------------------------------
field() { apt-cache "${apt_opts[@]}" show "$1" 2>/dev/null | awk -v f="$2:" '$1 == f { sub(/^[^:]*: */, ""); print; exit }'; }
release=$(field linux-image-amd64 Depends | grep -oE 'linux-image-[0-9][^ ,]*-amd64' | head -n 1)
release=${release#linux-image-}
[ -n "$release" ] || { echo "stock: no linux-image-amd64 in $suite" >&2; exit 1; }
series=$(echo "$release" | grep -oE '^[0-9]+\.[0-9]+')
version=$(echo "$release" | grep -oE '^[0-9]+\.[0-9]+(\.[0-9]+)?')
key=$(echo "$release recipe=$recipe $(gcc -dumpfullversion)" | sha256sum | cut -c1-8)
dir=$cache/stock-$suite-$release-$key
if [ -f "$dir/.damon-perf-built" ]; then
	echo "stock: cached $suite kernel $release in $dir" >&2
	echo "$dir"
	exit 0
fi

start=$(date +%s)
echo "stock: $suite: Linux $release; downloading image, headers and linux-source-$series" >&2
image_pkg=linux-image-$release
# Debian 13 names the image package -unsigned beside the signed one; either
# boots under qemu (no Secure Boot), the unsigned one needs no shim.
[ -n "$(field "$image_pkg-unsigned" Version)" ] && image_pkg=$image_pkg-unsigned
# Newer suites split the image package: the kernel and its modules come in
# linux-binary-RELEASE and linux-modules-RELEASE, which it depends on.
parts=$(field "$image_pkg" Depends | tr ',' '\n' | awk '{ print $1 }' |
	grep -E '^linux-(binary|modules)-' | grep -F -- "-$release" | sort -u || true)
# shellcheck disable=SC2206
pkgs=("$image_pkg" $parts "linux-headers-$release" "linux-source-$series")
(cd "$apt_dir/debs" && rm -f ./*.deb &&
	apt-get "${apt_opts[@]}" download "${pkgs[@]}" >"$apt_dir/download.log" 2>&1) || {
	cat "$apt_dir/download.log" >&2
	echo "stock: apt-get download ${pkgs[*]} failed" >&2
	exit 1
}

# --- 3. unpack and prepare --------------------------------------------
for d in "$cache"/stock-"$suite"-*; do
	[ -d "$d" ] && [ "$d" != "$dir" ] && { echo "stock: pruning $d" >&2; rm -rf "$d"; }
done
rm -rf "$dir"
mkdir -p "$dir/image" "$dir/headers" "$dir/src"
for p in "$image_pkg" $parts; do
	dpkg-deb -x "$apt_dir"/debs/"$p"_*.deb "$dir/image"
done
# The kernel may sit in /boot or in /usr/lib/linux-image-RELEASE (newer
# packages): give it one place.
if [ ! -f "$dir/image/boot/vmlinuz-$release" ]; then
	k=$(find "$dir/image" -name "vmlinuz*" -type f | head -n 1)
	[ -n "$k" ] || { echo "stock: no vmlinuz in $image_pkg $parts" >&2; exit 1; }
	mkdir -p "$dir/image/boot"
	ln -sf "$k" "$dir/image/boot/vmlinuz-$release"
fi
[ -d "$dir/image/lib/modules/$release" ] || [ -d "$dir/image/usr/lib/modules/$release" ] ||
	{ echo "stock: no modules of $release in $image_pkg $parts" >&2; exit 1; }
dpkg-deb -x "$apt_dir"/debs/linux-headers-"$release"_*.deb "$dir/headers"
dpkg-deb -x "$apt_dir"/debs/linux-source-"$series"_*.deb "$dir/src"
hdr=$dir/headers/usr/src/linux-headers-$release
[ -f "$hdr/.config" ] && [ -f "$hdr/Module.symvers" ] ||
	{ echo "stock: linux-headers-$release has no .config or Module.symvers" >&2; exit 1; }
tarball=$(ls "$dir"/src/usr/src/linux-source-"$series".tar.* | head -n 1)
mkdir -p "$dir/build"
echo "stock: unpacking $(basename "$tarball")" >&2
tar -C "$dir/build" --strip-components=1 -xf "$tarball"
rm -rf "$dir/src"
cd "$dir/build"
cp "$hdr/.config" .config
cp "$hdr/Module.symvers" Module.symvers
# The release string: the sources' version plus the image's local version.
echo "${release#"$version"}" > localversion-damon-perf
# The image was built by the suite's compiler, these trees by the host's:
# olddefconfig recomputes the compiler-dependent options (CC_VERSION_TEXT,
# CC_HAS_*); none of them changes the module ABI (vermagic and the symbol
# CRCs come from the release string and the image's Module.symvers).
make -s olddefconfig >/dev/null 2>"$dir/olddefconfig.log"
make -s -j"${JOBS:-$(($(nproc) + 1))}" modules_prepare >"$dir/prepare.log" 2>&1 || {
	tail -n 20 "$dir/prepare.log" >&2
	echo "stock: modules_prepare failed for $release" >&2
	exit 1
}
got=$(make -s kernelrelease)
[ "$got" = "$release" ] || { echo "stock: prepared tree is $got, image is $release" >&2; exit 1; }
# What the host compiler changed, for the record (Documentation/kernels.rst).
diff <(grep '^CONFIG_' "$hdr/.config" | sort) <(grep '^CONFIG_' .config | sort) \
	> "$dir/config-changes.diff" || true
[ -f "$dir/image/boot/config-$release" ] || cp "$hdr/.config" "$dir/image/boot/config-$release"
rm -rf "$dir/headers"
touch "$dir/.damon-perf-built"
echo "stock: $suite $release prepared in $(( $(date +%s) - start )) s" >&2
echo "$dir"
