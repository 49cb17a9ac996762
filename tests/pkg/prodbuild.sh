#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The production build carries no test code: against a kernel with KUnit
# (the debug test kernel; Ubuntu's and Fedora's have it too), the module
# users load (scripts/kbuild.sh --prod: what make, make install and DKMS
# build) has no test hook (the ring producer's, in the NMI path, the
# kdamond's, notification delivery's, the drain's), no test helper and
# exports nothing, and its build directory holds no test module. The same
# checks are first run on the test build of that kernel, which must have
# every one of them, so that they can fail. nm and modinfo; TAP on stdout.
#
#   tests/pkg/prodbuild.sh [KERNEL]     default: debug (scripts/kbuild.sh)
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
kernel=${1:-debug}
n=0
fails=0
t() {
	n=$((n + 1))
	if [ "$1" = ok ]; then echo "ok $n - prodbuild: $2"; else echo "not ok $n - prodbuild: $2"; fails=$((fails + 1)); fi
}
check() { local name=$1; shift; if "$@"; then t ok "$name"; else t fail "$name"; fi; }
# shellcheck source=scripts/lib/kernels.sh
. "$top/scripts/lib/kernels.sh"
kdir=$(kernel_kdir "$kernel") || exit 1

# The test hooks and helpers by name: what kmod/ defines under
# DAMON_PERF_KUNIT_HOOKS or DAMON_PERF_TEST_EXPORTS (kmod/compat/compat.h).
hooks=(damon_perf_ring_busy_hook damon_perf_kdamond_resched_hook
	damon_perf_nl_deliver_hook damon_perf_drain_record_hook
	damon_perf_drain_outcome_hook
	damon_perf_spe_test_attach damon_perf_stats_pcpu_alloc
	damon_perf_stats_pcpu_free damon_perf_stats_swap)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# defined KO: the symbols KO defines, one a line
defined() { nm --defined-only "$1" | awk '{print $3}' | sort -u; }
# exports KO: the symbols KO exports (its __ksymtab_ entries)
exports() { defined "$1" | sed -n 's/^__ksymtab_//p'; }

check "the $kernel kernel has KUnit (CONFIG_KUNIT=y in $kdir/.config)" \
	kernel_has "$kdir" CONFIG_KUNIT
for flavour in test prod; do
	if d=$("$top/scripts/kbuild.sh" --flavour $flavour "$kernel" 2> "$tmp/kbuild-$flavour.err" | tail -n 1) &&
		[ -f "$d/damon_perf.ko" ]; then
		t ok "$flavour build against $kernel"
		eval "dir_$flavour=\$d"
	else
		t fail "$flavour build against $kernel"
		sed 's/^/# /' "$tmp/kbuild-$flavour.err" | tail -n 20
		eval "dir_$flavour="
	fi
done
# shellcheck disable=SC2154 # set by eval above
test_ko=${dir_test:+$dir_test/damon_perf.ko}
# shellcheck disable=SC2154
prod_ko=${dir_prod:+$dir_prod/damon_perf.ko}
rel=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"/\1/p' "$kdir/include/generated/utsrelease.h")

# The test build: what the checks below must find absent is there.
if [ -n "$test_ko" ]; then
	defined "$test_ko" > "$tmp/test.syms"
	missing=$(for h in "${hooks[@]}"; do grep -qx "$h" "$tmp/test.syms" || echo "$h"; done)
	check "test build has the ${#hooks[@]} test hooks and helpers (nm)${missing:+; missing: $missing}" \
		test -z "$missing"
	exports "$test_ko" > "$tmp/test.exports"
	nexp=$(wc -l < "$tmp/test.exports")
	check "test build exports the test interfaces ($nexp symbols, nm __ksymtab_)" \
		test "$nexp" -ge 50
	echo "# test build: $nexp exports, e.g. $(head -n 3 "$tmp/test.exports" | paste -sd' ')"
	check "test build's directory holds the test modules ($(cd "$dir_test" && echo *.ko))" \
		test -f "$dir_test/damon_perf_kunit.ko"
	check "test build is for $rel (modinfo vermagic)" grep -q "^$rel " \
		<<< "$(modinfo -F vermagic "$test_ko")"
fi

# The production build.
if [ -n "$prod_ko" ]; then
	defined "$prod_ko" > "$tmp/prod.syms"
	found=$(for h in "${hooks[@]}"; do grep -qx "$h" "$tmp/prod.syms" && echo "$h"; done)
	check "production build has no test hook or helper (nm)${found:+; found: $found}" \
		test -z "$found"
	exports "$prod_ko" > "$tmp/prod.exports"
	nexp=$(wc -l < "$tmp/prod.exports")
	check "production build exports nothing (nm: $nexp __ksymtab_ entries)" test "$nexp" -eq 0
	[ "$nexp" -eq 0 ] || head -n 10 "$tmp/prod.exports" | sed 's/^/# exported: /'
	check "production build names no kunit symbol (nm)" \
		test -z "$(grep -i kunit "$tmp/prod.syms")"
	check "production build imports no namespace (modinfo import_ns: '$(modinfo -F import_ns "$prod_ko" | paste -sd' ')')" \
		test -z "$(modinfo -F import_ns "$prod_ko")"
	check "production build is for $rel (modinfo vermagic)" grep -q "^$rel " \
		<<< "$(modinfo -F vermagic "$prod_ko")"
	check "production build's directory holds damon_perf.ko alone ($(cd "$dir_prod" && echo *.ko))" \
		test "$(cd "$dir_prod" && echo *.ko)" = damon_perf.ko
	# (the production build's module text is smaller: no hook calls)
	if [ -n "$test_ko" ]; then
		echo "# text: test build $(size -A "$test_ko" | awk '$1 == ".text" {print $2}') B, production build $(size -A "$prod_ko" | awk '$1 == ".text" {print $2}') B"
	fi
fi
echo "1..$n"
[ "$fails" -eq 0 ]
