#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Fetch (or reuse) Debian 12's arm64 kernel, a module build tree that
# matches it, and an arm64 sysroot for the VM's userland, without touching
# the host's apt setup.
#
#   scripts/kernel/arm64.sh
#
# What it does, once per kernel version (cached in
# $DAMON_PERF_CACHE/arm64-stock-VERSION, default ~/.cache/damon-perf):
#   1. a private apt configuration (sources list, list directory, package
#      cache under $DAMON_PERF_CACHE/apt/arm64) for bookworm,
#      bookworm-updates and bookworm-security with the architectures arm64
#      and amd64 set there only, reusing the URIs of the host's Debian
#      sources entry; `apt-get update` at most once a day
#   2. resolves bookworm's linux-image-arm64 to its kernel release and
#      `apt-get download`s linux-image-RELEASE (the kernel to boot and its
#      modules), linux-headers-RELEASE and linux-headers-ABI-common (the
#      module tree: .config, Module.symvers, headers), linux-kbuild-SERIES
#      for amd64 (the kbuild helpers, which run on the build host), and the
#      arm64 userland: busybox-static, libc6(-dev), libstdc++6, libgcc-s1,
#      libnl-3(-dev), libnl-genl-3(-dev) and what else damonctl links
#      (zlib, libpng, fmt; nlohmann-json and CLI11 headers) of the same suite
#   3. unpacks the image into image/ (image/boot/Image: the gzip-packed
#      vmlinuz decompressed, which qemu -kernel boots), the headers into
#      build/ (the KDIR, its scripts/ and tools/ from the amd64 kbuild
#      package) and the userland into sysroot/
# Nothing is installed system-wide. Prints the cache directory on the last
# line of stdout. sysroot/ is a Debian arm64 root (multiarch paths) for
# aarch64-linux-gnu-gcc --sysroot, scripts/arm64-toolchain.cmake and the
# VM's initramfs (busybox, damonctl's shared libraries and loader).
#
# Why the amd64 linux-kbuild drives an arm64 build: its helpers (fixdep,
# modpost, genksyms, sign-file) are host programs that read any ELF target;
# the arm64 specifics (the module linker script, the arch Makefile, the
# generated headers) come from the arm64 headers packages.
set -euo pipefail
cache=${DAMON_PERF_CACHE:-$HOME/.cache/damon-perf}
# Bump when a change here changes what gets prepared: part of the cache key.
recipe=2
apt_dir=$cache/apt/arm64
. "$(dirname "$0")/../lib/apt.sh"
apt_opts=() # apt_private sets them

# --- 1. private apt configuration --------------------------------------
apt_private arm64 "$apt_dir" arm64,amd64 bookworm bookworm-updates "security bookworm-security"
exec 9>"$cache/arm64-stock.lock"
flock 9
apt_update arm64 "$apt_dir"

# --- 2. resolve the release -------------------------------------------
# cand PKG: its candidate version (apt-cache show lists every version).
cand() { apt-cache "${apt_opts[@]}" policy "$1" 2>/dev/null | awk '$1 == "Candidate:" { print $2; exit }'; }
# fieldc PKG FIELD: FIELD of the candidate version of PKG.
fieldc() { apt-cache "${apt_opts[@]}" show "$1=$(cand "$1")" 2>/dev/null |
	awk -v f="$2:" '$1 == f { sub(/^[^:]*: */, ""); print; exit }'; }
release=$(fieldc linux-image-arm64:arm64 Depends | grep -oE 'linux-image-[0-9][^ ,]*-arm64' | head -n 1)
release=${release#linux-image-}
[ -n "$release" ] || { echo "arm64: no linux-image-arm64 in bookworm" >&2; exit 1; }
series=$(echo "$release" | grep -oE '^[0-9]+\.[0-9]+')
abi=${release%-arm64}
pkgver=$(cand "linux-image-$release:arm64")
key=$(echo "$release $pkgver recipe=$recipe" | sha256sum | cut -c1-8)
dir=$cache/arm64-stock-$pkgver-$key
if [ -f "$dir/.damon-perf-built" ]; then
	echo "arm64: cached kernel $release ($pkgver) in $dir" >&2
	echo "$dir"
	exit 0
fi

start=$(date +%s)
echo "arm64: bookworm arm64 Linux $release ($pkgver); downloading image, headers, kbuild, userland" >&2
kpkgs=("linux-image-$release:arm64" "linux-headers-$release:arm64"
	"linux-headers-$abi-common:all" "linux-kbuild-$series:amd64=$pkgver")
upkgs=(busybox-static libc6 libc6-dev libstdc++6 libgcc-s1 libnl-3-200 libnl-3-dev
	libnl-genl-3-200 libnl-genl-3-dev linux-libc-dev libstdc++-12-dev libgcc-12-dev
	zlib1g zlib1g-dev libpng16-16 libpng-dev libfmt9 libfmt-dev
	nlohmann-json3-dev libcli11-dev)
(cd "$apt_dir/debs" && rm -f ./*.deb &&
	apt-get "${apt_opts[@]}" download "${kpkgs[@]}" "${upkgs[@]}" \
		>"$apt_dir/download.log" 2>&1) || {
	cat "$apt_dir/download.log" >&2
	echo "arm64: apt-get download failed" >&2
	exit 1
}

# --- 3. unpack --------------------------------------------------------
for d in "$cache"/arm64-stock-*; do
	[ -d "$d" ] && [ "$d" != "$dir" ] && { echo "arm64: pruning $d" >&2; rm -rf "$d"; }
done
rm -rf "$dir"
mkdir -p "$dir/image" "$dir/hdr" "$dir/sysroot"
deb() { find "$apt_dir/debs" -name "$1_*$2.deb" | head -n 1; }
dpkg-deb -x "$(deb "linux-image-$release" _arm64)" "$dir/image"
dpkg-deb -x "$(deb "linux-headers-$release" _arm64)" "$dir/hdr"
dpkg-deb -x "$(deb "linux-headers-$abi-common" _all)" "$dir/hdr"
dpkg-deb -x "$(deb "linux-kbuild-$series" _amd64)" "$dir/hdr"
for p in "${upkgs[@]}"; do
	f=$(deb "$p" _arm64)
	[ -n "$f" ] || f=$(deb "$p" _all)
	dpkg-deb -x "$f" "$dir/sysroot"
done

# The kernel: qemu -kernel wants an arm64 Image. Debian 12's vmlinuz is
# one (an EFI-stub Image, uncompressed); a gzip-packed one (Image.gz,
# as some other distributions ship) is decompressed.
vmlinuz=$dir/image/boot/vmlinuz-$release
[ -f "$vmlinuz" ] || { echo "arm64: no $vmlinuz in linux-image-$release" >&2; exit 1; }
if gzip -t "$vmlinuz" 2>/dev/null; then
	gzip -dc "$vmlinuz" > "$dir/image/boot/Image"
else
	ln -sf "vmlinuz-$release" "$dir/image/boot/Image"
fi
[ -d "$dir/image/lib/modules/$release" ] ||
	{ echo "arm64: no modules of $release in linux-image-$release" >&2; exit 1; }

# The module tree: the arm64 headers, whose scripts/ and tools/ link to
# /usr/lib/linux-kbuild-SERIES: point them at the unpacked amd64 kbuild.
kb=$dir/hdr/usr/lib/linux-kbuild-$series
hdr=$dir/hdr/usr/src/linux-headers-$release
[ -f "$hdr/.config" ] && [ -f "$hdr/Module.symvers" ] ||
	{ echo "arm64: linux-headers-$release has no .config or Module.symvers" >&2; exit 1; }
# Every absolute symlink into /usr/src or /usr/lib becomes one into hdr/.
find "$dir/hdr" -type l | while read -r l; do
	t=$(readlink "$l")
	case "$t" in /usr/*) ln -sfn "$dir/hdr$t" "$l" ;; esac
done
[ -x "$kb/scripts/mod/modpost" ] || { echo "arm64: no modpost in linux-kbuild-$series" >&2; exit 1; }
# Its Makefile includes the common headers' by absolute path (the host's
# own amd64 headers of the same ABI would answer there): make it ours.
sed -i "s|^include /usr/src/|include $dir/hdr/usr/src/|" "$hdr/Makefile"
grep -q "^include $dir/hdr/usr/src/linux-headers-$abi-common/Makefile" "$hdr/Makefile" ||
	{ echo "arm64: unexpected $hdr/Makefile" >&2; exit 1; }
ln -sfn "$hdr" "$dir/build"
got=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"/\1/p' "$hdr/include/generated/utsrelease.h")
[ "$got" = "$release" ] || { echo "arm64: module tree is '$got', image is $release" >&2; exit 1; }
echo "$release" > "$dir/release"

# The sysroot: absolute symlinks (libfoo.so -> /lib/...) made relative.
find "$dir/sysroot" -type l | while read -r l; do
	t=$(readlink "$l")
	case "$t" in /*) ln -sfn "$dir/sysroot$t" "$l" ;; esac
done
[ -x "$dir/sysroot/bin/busybox" ] || { echo "arm64: no busybox in busybox-static" >&2; exit 1; }
touch "$dir/.damon-perf-built"
echo "arm64: $release prepared in $(( $(date +%s) - start )) s" >&2
echo "$dir"
