#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make demo: install what is missing, build the module for Debian's stock
# kernel and damonctl, boot a 2-node NUMA VM and run the demo payload
# (tests/vm/demo.sh): load the module, show damonctl's view and the
# observability counters.
#
#   scripts/demo.sh [--kernel stock|debug|trixie|sid] [--all]   (--all: whole console)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
kernel=stock
show=--payload
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) kernel=$2; shift 2 ;;
	--all) show=; shift ;;
	*) echo "usage: $0 [--kernel stock|debug|trixie|sid] [--all]" >&2; exit 2 ;;
	esac
done
t0=$(date +%s)
step() { echo "demo: [$(( $(date +%s) - t0 ))s] $*" >&2; }

step "dependencies"
scripts/deps.sh >&2
step "module for the $kernel kernel"
ko=$(scripts/kbuild.sh "$kernel" | tail -n 1)
step "damonctl"
# configured as make check's userland tier configures it (ccache, the
# same build type), so that a make check after the demo finds its build
# up to date instead of building tools/ again
ccache_cmake=()
. scripts/lib/kernels.sh
ccache_env
if [ -f tools/CMakeLists.txt ]; then
	cmake -S tools -B build/tools -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		"${ccache_cmake[@]}" >/dev/null &&
		cmake --build build/tools -j2 >/dev/null ||
		echo "demo: damonctl did not build; continuing without it" >&2
else
	echo "demo: no tools/ yet; continuing without damonctl" >&2
fi
step "booting the VM (2 CPUs, 2 NUMA nodes, TCG)"
rc=0
scripts/vm.sh --kernel "$kernel" --numa --ko "$ko" $show \
	--log build/logs/demo-$kernel.log tests/vm/demo.sh || rc=$?
step "done (exit $rc; console log build/logs/demo-$kernel.log)"
exit $rc
