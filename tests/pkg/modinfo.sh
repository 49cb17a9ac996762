#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# modinfo of built modules: damon_perf.ko has a description, the GPL
# license and the version `make version` prints (git describe of this
# checkout); every .ko given (test modules too) describes every parameter.
# The parameter check is first shown to fail on an object whose .modinfo
# has a parameter without MODULE_PARM_DESC. TAP on stdout.
#
#   tests/pkg/modinfo.sh KO_DIR...
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -ge 1 ] || { echo "usage: $0 KO_DIR..." >&2; exit 2; }
n=0
fails=0
t() {
	n=$((n + 1))
	if [ "$1" = ok ]; then echo "ok $n - modinfo: $2"; else echo "not ok $n - modinfo: $2"; fails=$((fails + 1)); fi
}
# undescribed KO: the parameters (parmtype) without a parm description
undescribed() {
	local p
	for p in $(modinfo -F parmtype "$1" | cut -d: -f1); do
		modinfo -F parm "$1" | grep -qE "^$p:[^ ]" || echo "$p"
	done
}
ver=$(make -s -C "$top" version)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# the check itself: an object with one described and one bare parameter
printf 'parmtype=good:int\0parm=good:described\0parmtype=bare:int\0license=GPL\0' > "$tmp/modinfo"
echo 'int x;' | gcc -x c -c -o "$tmp/fake.o" - &&
	objcopy --add-section .modinfo="$tmp/modinfo" "$tmp/fake.o" "$tmp/fake.ko"
if [ "$(undescribed "$tmp/fake.ko" 2>/dev/null)" = bare ]; then
	t ok "parameter check finds a parameter without MODULE_PARM_DESC"
else
	t fail "parameter check finds a parameter without MODULE_PARM_DESC"
fi
for d in "$@"; do
	k=$(basename "$(dirname "$d")")
	k=${k#kbuild-}
	ko=$d/damon_perf.ko
	if [ ! -f "$ko" ]; then
		t fail "$k: $ko exists"
		continue
	fi
	desc=$(modinfo -F description "$ko")
	[ -n "$desc" ] && t ok "$k: damon_perf description '$desc'" ||
		t fail "$k: damon_perf has a description"
	[ "$(modinfo -F license "$ko")" = GPL ] && t ok "$k: damon_perf license GPL" ||
		t fail "$k: damon_perf license GPL (is '$(modinfo -F license "$ko")')"
	got=$(modinfo -F version "$ko")
	[ "$got" = "$ver" ] && t ok "$k: damon_perf version $ver" ||
		t fail "$k: damon_perf version $ver (is '$got')"
	for m in "$d"/*.ko; do
		u=$(undescribed "$m")
		np=$(modinfo -F parmtype "$m" | wc -l)
		[ -z "$u" ] && t ok "$k: $(basename "$m"): all $np parameters described" ||
			t fail "$k: $(basename "$m"): parameters without description: $u"
	done
done
echo "1..$n"
[ $fails -eq 0 ]
