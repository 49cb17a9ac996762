#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make dkms through Debian's dkms, into a private tree: add, build, install,
# modinfo of the installed module, remove. Nothing may change in the host's
# /var/lib/dkms or /lib/modules: --dkmstree, --sourcetree and --installtree
# point into a temporary directory, --no-depmod, and the signing key dkms
# would create in /var/lib/dkms goes there too. TAP on stdout.
#
#   tests/pkg/dkms.sh KDIR
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
kdir=${1:?usage: $0 KDIR}
n=0
fails=0
t() { # t ok|fail NAME
	n=$((n + 1))
	if [ "$1" = ok ]; then echo "ok $n - dkms: $2"; else echo "not ok $n - dkms: $2"; fails=$((fails + 1)); fi
}
check() { local name=$1; shift; if "$@"; then t ok "$name"; else t fail "$name"; fi; }

if ! command -v dkms >/dev/null; then
	echo "1..1"
	t fail "dkms installed (scripts/deps.sh)"
	exit 1
fi
rel=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"/\1/p' "$kdir/include/generated/utsrelease.h")
ver=$(make -s -C "$top" version)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/src" "$tmp/dkms" "$tmp/lib/modules/$rel"
# dkms signs with these when the kernel wants signed modules (and would
# create them in /var/lib/dkms otherwise)
export mok_signing_key=$tmp/mok.key mok_certificate=$tmp/mok.pub
flags="--dkmstree $tmp/dkms --installtree $tmp/lib/modules --no-depmod"
host_state() {
	{
		find /var/lib/dkms "/lib/modules/$rel" -printf '%p %s %T@\n' 2>/dev/null
	} | sort
}
host_state > "$tmp/host.before"

echo "1..9"
echo "# dkms $(dkms --version), kernel $rel, package damon-perf/$ver"
if make -s -C "$top" dkms KDIR="$kdir" DKMS_SRCTREE="$tmp/src" \
	DKMS_FLAGS="$flags" > "$tmp/dkms.log" 2>&1; then
	t ok "make dkms: add, build, install"
else
	t fail "make dkms: add, build, install"
	tail -n 30 "$tmp/dkms.log" | sed 's/^/# /'
	find "$tmp/dkms" -name make.log -exec tail -n 20 {} \; 2>/dev/null | sed 's/^/# /'
fi
st=$(dkms status -m damon-perf $flags 2>&1)
echo "# dkms status: $st"
check "dkms status: installed for $rel" grep -q "damon-perf/$ver, $rel, .*: installed" <<< "$st"
check "dkms source tree has VERSION and dkms.conf with the version" \
	grep -qx "PACKAGE_VERSION=\"$ver\"" "$tmp/src/damon-perf-$ver/dkms.conf"
ko=$(find "$tmp/lib/modules/$rel" -name 'damon_perf.ko*' | head -n 1)
echo "# installed: ${ko#$tmp/}"
check "module installed under updates/dkms" test -n "$ko" -a "${ko#$tmp/lib/modules/$rel/updates/dkms/}" != "$ko"
# the DKMS tree is no git checkout: the version comes from its VERSION file
check "modinfo version $ver" test "$(modinfo -F version "$ko" 2>/dev/null)" = "$ver"
check "modinfo vermagic $rel" grep -q "^$rel " <<< "$(modinfo -F vermagic "$ko" 2>/dev/null)"
dkms remove -m "damon-perf/$ver" --all $flags > "$tmp/remove.log" 2>&1
check "dkms remove: module gone" test -z "$(find "$tmp/lib/modules" -name 'damon_perf.ko*')"
check "dkms remove: status empty" test -z "$(dkms status -m damon-perf $flags 2>&1)"
host_state > "$tmp/host.after"
if cmp -s "$tmp/host.before" "$tmp/host.after"; then
	t ok "host /var/lib/dkms and /lib/modules/$rel untouched"
else
	t fail "host /var/lib/dkms and /lib/modules/$rel untouched"
	diff "$tmp/host.before" "$tmp/host.after" | head -n 10 | sed 's/^/# /'
fi
[ $fails -eq 0 ]
