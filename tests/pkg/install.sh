#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make install into a staging directory (DESTDIR), with the default PREFIX
# and another one: exactly the expected files (damon_perf.ko alone: no
# test module, against a kernel with KUnit too), a module for the kernel's
# release, a damonctl that runs, a man page man(1) renders, the bash
# completion, the damonctl-schemes@.service unit (naming the installed
# damonctl; systemd-analyze verify accepts it where the host has
# systemd-analyze); make uninstall leaves the staging directory as it was
# (a file that was there before install stays). TAP on stdout.
#
#   tests/pkg/install.sh KDIR MDIR    MDIR: where the module was built (M=),
#                                     a production build (scripts/kbuild.sh --prod)
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
kdir=${1:?usage: $0 KDIR MDIR}
mdir=${2:?usage: $0 KDIR MDIR}
n=0
fails=0
t() {
	n=$((n + 1))
	if [ "$1" = ok ]; then echo "ok $n - install: $2"; else echo "not ok $n - install: $2"; fails=$((fails + 1)); fi
}
check() { local name=$1; shift; if "$@"; then t ok "$name"; else t fail "$name"; fi; }
rel=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"/\1/p' "$kdir/include/generated/utsrelease.h")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
listing() { (cd "$1" && find . -mindepth 1 | sort); }

# one_prefix PREFIX-ARG PREFIX: install, check, uninstall, check
one_prefix() {
	local parg=$1 prefix=$2 st=$tmp/stage$n
	mkdir -p "$st/etc"
	echo keep > "$st/etc/keep"
	listing "$st" > "$tmp/before"
	if make -s -C "$top" install DESTDIR="$st" $parg KDIR="$kdir" MDIR="$mdir" \
		> "$tmp/install.log" 2>&1; then
		t ok "make install DESTDIR=stage $parg"
	else
		t fail "make install DESTDIR=stage $parg"
		tail -n 20 "$tmp/install.log" | sed 's/^/# /'
	fi
	(cd "$st" && find . -type f | sort) > "$tmp/files"
	sort > "$tmp/want" <<-EOW
	./etc/keep
	.$prefix/sbin/damonctl
	.$prefix/share/bash-completion/completions/damonctl
	.$prefix/share/man/man1/damonctl.1
	.$prefix/lib/systemd/system/damonctl-schemes@.service
	./lib/modules/$rel/updates/kmod/damon_perf.ko
	EOW
	if cmp -s "$tmp/want" "$tmp/files"; then
		t ok "installed files, $prefix: exactly the expected 5"
	else
		t fail "installed files, $prefix: exactly the expected 5"
		diff "$tmp/want" "$tmp/files" | sed 's/^/# /'
	fi
	check "no modules.dep in the staging tree (depmod only without DESTDIR)" \
		test ! -e "$st/lib/modules/$rel/modules.dep"
	check "installed module is for $rel" grep -q "^$rel " \
		<<< "$(modinfo -F vermagic "$st/lib/modules/$rel/updates/kmod/damon_perf.ko" 2>/dev/null)"
	check "installed damonctl runs (--version)" grep -q '^damonctl ' \
		<<< "$("$st$prefix/sbin/damonctl" --version 2>&1)"
	check "installed man page renders with a COMMANDS section" grep -q '^COMMANDS' \
		<<< "$(MANWIDTH=100 man -l "$st$prefix/share/man/man1/damonctl.1" 2>/dev/null | col -b)"
	check "installed bash completion defines _damonctl" \
		bash -c ". '$st$prefix/share/bash-completion/completions/damonctl' && declare -F _damonctl > /dev/null"
	local unit=$st$prefix/lib/systemd/system/damonctl-schemes@.service
	check "installed unit runs $prefix/sbin/damonctl schemes" grep -q \
		"^ExecStart=$prefix/sbin/damonctl schemes --config /etc/damon-perf/%i.json " "$unit"
	if command -v systemd-analyze > /dev/null; then
		# an instance of the template, its ExecStart pointed at the
		# staged damonctl (verify wants the program to exist)
		mkdir -p "$tmp/unit$n"
		sed "s|^ExecStart=$prefix|ExecStart=$st$prefix|" "$unit" \
			> "$tmp/unit$n/damonctl-schemes@test.service"
		if out=$(systemd-analyze verify --man=no \
			"$tmp/unit$n/damonctl-schemes@test.service" 2>&1) &&
			! grep -q damonctl-schemes <<< "$out"; then
			t ok "systemd-analyze verify: the unit is clean"
		else
			t fail "systemd-analyze verify: the unit is clean"
			sed 's/^/# /' <<< "$out"
		fi
	else
		echo "ok $((n += 1)) - install: systemd-analyze verify # SKIP no systemd-analyze"
	fi
	if make -s -C "$top" uninstall DESTDIR="$st" $parg KDIR="$kdir" \
		> "$tmp/uninstall.log" 2>&1; then
		t ok "make uninstall DESTDIR=stage $parg"
	else
		t fail "make uninstall DESTDIR=stage $parg"
		tail -n 20 "$tmp/uninstall.log" | sed 's/^/# /'
	fi
	listing "$st" > "$tmp/after"
	if cmp -s "$tmp/before" "$tmp/after"; then
		t ok "uninstall left the staging directory as before install"
	else
		t fail "uninstall left the staging directory as before install"
		diff "$tmp/before" "$tmp/after" | sed 's/^/# /'
	fi
}
one_prefix "" /usr/local
one_prefix "PREFIX=/opt/damon-perf" /opt/damon-perf
echo "1..$n"
[ $fails -eq 0 ]
