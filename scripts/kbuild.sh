#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build the module for one of the test kernels, in a private copy of the
# sources: M= builds write objects next to the sources, so two kernels (or
# two flavours) cannot share one tree. Two flavours, each in its own
# directory, each incremental (cached):
#
# test (default): DAMON_PERF_TEST_EXPORTS=y. The module exports what the
#         test modules call (in the EXPORTED_FOR_KUNIT_TESTING namespace,
#         kmod/compat/compat.h) and has the drain path's record hook, and
#         on a KUnit kernel the KUnit suites' hooks; the test modules are
#         built: the KUnit suites (a KUnit kernel), tests/nmi and the
#         PEBS/IBS conformance PMUs (x86), the SPE conformance PMU, the SPE
#         test PMU and the AUX harness (tests/testpmu) and the stream
#         replayer (tests/replay), the arm64 kernel's included.
#         build/kbuild-<kernel>.
# prod:   the module users load (what make, make install and DKMS build):
#         damon_perf.ko alone, no test hook, no test export, whatever the
#         kernel's config. build/kbuild-<kernel>-prod.
#
#   scripts/kbuild.sh [--prod|--flavour test|prod] [--module-only] stock|debug|trixie|sid|arm64
#   DAMON_PERF_FLAVOUR=prod scripts/kbuild.sh KERNEL   (the same as --prod)
#
# --module-only: damon_perf.ko alone (make demo), compiled as the full test
#         build compiles it, in the same tree: the full build after it
#         compiles only the test modules.
#
# stock:  Debian's installed kernel (the newest /boot/vmlinuz-*-amd64, or
#         one scripts/kernel/stock-image.sh unpacked into the cache, whose
#         headers are installed; override with KDIR_STOCK=).
# debug:  the cached debug test kernel (scripts/kernel/build.sh).
# trixie, sid: Debian 13's and unstable's stock kernels, with a module tree
#         prepared to match each image (scripts/kernel/stock.sh).
# arm64:  Debian 12's arm64 stock kernel, cross-built with
#         gcc-aarch64-linux-gnu against its headers (scripts/kernel/arm64.sh),
#         modpost checking against the image's Module.symvers.
#
# The log goes to build/logs/kbuild-<kernel>[-prod].log; the last line of
# stdout is the directory holding the .ko files.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
flavour=${DAMON_PERF_FLAVOUR:-test}
only=
usage() {
	echo "usage: $0 [--prod|--flavour test|prod] [--module-only] stock|debug|trixie|sid|arm64" >&2
	exit 2
}
while [ $# -gt 0 ]; do
	case "$1" in
	--prod) flavour=prod; shift ;;
	--module-only) only=DAMON_PERF_MODULE_ONLY=y; shift ;;
	--flavour) [ $# -ge 2 ] || usage; flavour=$2; shift 2 ;;
	-*) usage ;;
	*) break ;;
	esac
done
kernel=${1:-}
case "$kernel" in stock|debug|trixie|sid|arm64) ;; *) usage ;; esac
case "$flavour" in test|prod) ;; *)
	echo "kbuild: flavour test or prod, not '$flavour'" >&2; usage ;;
esac
. "$top/scripts/lib/kernels.sh"

kdir=$(kernel_kdir "$kernel")
suffix=
[ "$flavour" = test ] || suffix=-$flavour
out=$top/build/kbuild-$kernel$suffix
log=$top/build/logs/kbuild-$kernel$suffix.log
mkdir -p "$out" "$top/build/logs"
# One build of a tree at a time: two runs side by side (scripts/vm.sh
# twice, each building what it boots) would write the same objects at
# once (objtool: "invalid Elf handle", fixdep: missing .d). The second
# waits, then finds the build done and makes nothing.
exec 9>"$out.lock"
flock 9

# Mirror the sources. Build products are excluded, so they survive (and
# make stays incremental), and sources deleted upstream vanish here too.
# A production copy holds no test source at all.
srcs=(Kbuild kmod include)
if [ "$flavour" = test ]; then
	srcs+=(tests/kunit)
	for h in "$top"/tests/*.h; do [ -e "$h" ] && srcs+=("tests/${h##*/}"); done
	[ -d "$top/tests/testpmu" ] && srcs+=(tests/testpmu)
	[ -d "$top/tests/nmi" ] && srcs+=(tests/nmi)
	[ -d "$top/tests/conform" ] && srcs+=(tests/conform)
	[ -d "$top/tests/replay" ] && srcs+=(tests/replay)
	mkdir -p "$out/tests"
fi
for s in "${srcs[@]}"; do
	[ -e "$top/$s" ] || continue
	dst=$out/$s
	[ -d "$top/$s" ] && { src=$top/$s/; mkdir -p "$dst"; } || src=$top/$s
	rsync -a --delete \
		--exclude='*.o' --exclude='*.ko' --exclude='*.mod' \
		--exclude='*.mod.c' --exclude='.*.cmd' --exclude='*.a' \
		--exclude='modules.order' --exclude='Module.symvers' \
		--exclude='.*.d' --exclude='*.tmp' \
		"$src" "$dst"
done
# A top-level Kbuild that names a directory the copy lacks must not break.
[ "$flavour" = test ] && grep -q 'testpmu' "$out/Kbuild" && [ ! -d "$out/tests/testpmu" ] &&
	echo "kbuild: warning: Kbuild names tests/testpmu but it is absent" >&2

jobs=${JOBS:-2}
flags=()
[ "$flavour" = test ] && flags=(DAMON_PERF_TEST_EXPORTS=y)
echo "kbuild: $kernel kernel, $flavour build${only:+ (the module only)}, KDIR=$kdir, -j$jobs, log $log" >&2
rc=0
# (the production build's command line is the Makefile's own, make module
# with MDIR=: make install finds it built)
# shellcheck disable=SC2046
make -C "$kdir" $(kernel_make_args "$kernel") M="$out" W=1 -j"$jobs" "${flags[@]}" $only modules >"$log" 2>&1 || rc=$?
grep -E 'warning:|error:' "$log" >&2 || true
if [ $rc -ne 0 ]; then
	echo "kbuild: FAILED ($kernel), see $log" >&2
	tail -n 20 "$log" >&2
	exit 1
fi

ko=$out/ko
rm -rf "$ko"
mkdir -p "$ko"
# (with --module-only, test modules of an earlier full build are stale)
find "$out" -path "$ko" -prune -o -name '*.ko' -print | while read -r f; do
	[ -z "$only" ] || [ "${f##*/}" = damon_perf.ko ] || continue
	cp "$f" "$ko/"
done
[ -f "$ko/damon_perf.ko" ] || { echo "kbuild: damon_perf.ko missing" >&2; exit 1; }
if [ -z "$only" ] && [ "$flavour" = test ] && kernel_has "$kdir" CONFIG_KUNIT && [ ! -f "$ko/damon_perf_kunit.ko" ]; then
	echo "kbuild: kernel has KUnit but damon_perf_kunit.ko was not built" >&2
	exit 1
fi
if [ "$flavour" = prod ] && [ "$(cd "$ko" && echo *.ko)" != damon_perf.ko ]; then
	echo "kbuild: a production build must hold damon_perf.ko alone: $(cd "$ko" && echo *.ko)" >&2
	exit 1
fi
echo "kbuild: $(cd "$ko" && echo *.ko)" >&2
echo "$ko"
