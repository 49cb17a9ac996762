#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make style: checkpatch.pl (STRICT=1: --strict) and kernel-doc over the kernel code
# (kmod/, tests/kunit/, tests/testpmu/, tests/nmi/,
# tests/conform/, tests/replay/). Exits non-zero on any
# error or warning.
#
#   scripts/checkpatch.sh [FILE...]      default: every .c/.h of those dirs
#
# checkpatch.pl runs once a file, two at a time (STYLE_JOBS), each file's
# result cached in $DAMON_PERF_STYLE_CACHE (scripts/lib/stylecache.sh).
# checkpatch.pl comes from $CHECKPATCH, the debug kernel tree when it is
# built, or is unpacked once from Debian's linux-source-6.1 tarball into
# build/checkpatch/.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1

find_checkpatch() {
	local d
	if [ -n "${CHECKPATCH:-}" ]; then echo "$CHECKPATCH"; return 0; fi
	for d in "${DAMON_PERF_CACHE:-$HOME/.cache/damon-perf}"/kernel-*/; do
		[ -f "$d/.damon-perf-built" ] && [ -f "$d/scripts/checkpatch.pl" ] &&
			{ echo "$d/scripts/checkpatch.pl"; return 0; }
	done
	d=$top/build/checkpatch
	if [ ! -f "$d/scripts/checkpatch.pl" ]; then
		local tarball=/usr/src/linux-source-6.1.tar.xz
		[ -f "$tarball" ] || { echo "style: no checkpatch.pl (run scripts/deps.sh)" >&2; return 1; }
		echo "style: unpacking checkpatch.pl from $tarball" >&2
		mkdir -p "$d"
		tar -C "$d" --strip-components=1 --wildcards -xJf "$tarball" \
			'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
			'*/scripts/const_structs.checkpatch' '*/scripts/kernel-doc' >&2 || return 1
	fi
	echo "$d/scripts/checkpatch.pl"
}

cp=$(find_checkpatch) || exit 1
kdoc=$(dirname "$cp")/kernel-doc
if [ $# -gt 0 ]; then
	files=("$@")
else
	files=()
	for f in kmod/*.[ch] kmod/compat/*.[ch] tests/kunit/*.[ch] \
		tests/testpmu/*.[ch] tests/nmi/*.[ch] tests/conform/*.[ch] \
		tests/replay/*.[ch]; do
		# kbuild's output of an in-tree build (*.mod.c) is not ours
		case "$f" in *.mod.c) continue ;; esac
		[ -f "$f" ] && files+=("$f")
	done
	# Generated from the netlink spec by the kernel's ynl-gen-c.py, in its
	# layout (lines over 80 columns); scripts/ynl-gen.sh --check keeps
	# them equal to what the spec generates.
	mapfile -t files < <(grep -L 'Do not edit directly, auto-generated from' \
		"${files[@]}")
fi
[ ${#files[@]} -gt 0 ] || { echo "style: no files" >&2; exit 1; }

# Findings checkpatch gets wrong here, as "FILE TYPE": each is dropped for
# that file only, and only for that type.
allow=(
	# TRACE_EVENT()'s layout, as in include/trace/events/
	"kmod/trace.h OPEN_ENDED_LINE"
	"kmod/trace.h PARENTHESIS_ALIGNMENT"
	# shared with the userspace builds (tests/user, damonctl, the bench),
	# which have no BIT(); the userspace branch defines the kernel types
	"kmod/spe_parse.h BIT_MACRO"
	"kmod/spe_parse.c BIT_MACRO"
	"kmod/drain.h BIT_MACRO"
	"kmod/portable_types.h PREFER_KERNEL_TYPES"
	"kmod/portable_types.h CAMELCASE"
	"kmod/density.c MACRO_ARG_REUSE"
	# DAMON_PERF_GENL_SPLIT_OPS(): ARRAY_SIZE() of the table it names
	"kmod/compat/compat.h MACRO_ARG_REUSE"
	# the upstream KUNIT_ARRAY_PARAM_DESC() fallback, as the kernel has it
	"kmod/compat/kunit.h MACRO_ARG_REUSE"
	"kmod/compat/kunit.h MACRO_ARG_PRECEDENCE"
	"kmod/compat/kunit.h SPACING"
	# EXPORT_SYMBOL_IF_KUNIT() right after DEFINE_MUTEX(), which checkpatch
	# does not see as the definition of the exported variable
	"kmod/ctx.c EXPORT_SYMBOL"
	"kmod/ring.c EXPORT_SYMBOL"
	# one-line key=value result records (case, fields:, access, drops)
	# that tests/vm/*.sh and scripts/bench.sh parse and people grep for;
	# a split format string would be a SPLIT_STRING warning instead
	"tests/nmi/nmitest.c LONG_LINE_STRING"
	"tests/conform/conform.c LONG_LINE_STRING"
	"tests/conform/spe.c LONG_LINE_STRING"
)
allowed() {
	local a f t
	for a in "${allow[@]}"; do
		f=${a% *} t=${a#* }
		case "$1" in "$f":*": "*":$t:"*) return 0 ;; esac
	done
	return 1
}

# checkpatch.pl once a file, two at a time, each result cached
# (scripts/lib/stylecache.sh) under a hash of the file, checkpatch.pl, the
# data files and configuration it reads, its options and perl's version;
# the outputs are put together in the order of the files.
. "$top/scripts/lib/stylecache.sh"
cp_opts="--no-tree --terse ${STRICT:+--strict} --show-types --max-line-length=80"
cp_opts+=" --ignore FILE_PATH_CHANGES,SPDX_LICENSE_TAG"
cpd=$(dirname "$cp")
cp_base=$(stylecache_key "checkpatch $(perl -e 'print $^V') $cp_opts" "$cp" \
	"$cpd/spelling.txt" "$cpd/const_structs.checkpatch" .checkpatch.conf \
	"$HOME/.checkpatch.conf" .scripts/.checkpatch.conf)
cp_tmp=$(mktemp -d)
trap 'rm -rf "$cp_tmp"' EXIT
# checkpatch_one INDEX FILE: FILE's result into $cp_tmp/INDEX
checkpatch_one() {
	local key log=$cp_tmp/$1 rc opts
	key=$(stylecache_key "$cp_base $2" "$2")
	stylecache_get checkpatch "$key" >"$log"
	[ $? -eq 255 ] || return 0
	read -ra opts <<<"$cp_opts"
	perl "$cp" "${opts[@]}" -f "$2" >"$log" 2>&1
	rc=$?
	# stored when checkpatch came to its end: clean, or its summary line
	if { [ $rc -eq 0 ] && [ ! -s "$log" ]; } ||
		{ [ $rc -eq 1 ] && tail -n 1 "$log" | grep -q '^total: .* lines checked$'; }; then
		stylecache_put checkpatch "$key" $rc "$log"
	fi
	return 0
}
export cp cp_opts cp_base cp_tmp
export -f checkpatch_one stylecache_key stylecache_get stylecache_put
for i in "${!files[@]}"; do printf '%s\0%s\0' "$i" "${files[$i]}"; done |
	xargs -0 -n 2 -P "${STYLE_JOBS:-2}" bash -c 'checkpatch_one "$1" "$2"' checkpatch_one
raw=$(for i in "${!files[@]}"; do cat "$cp_tmp/$i"; done)

bad=0
out=$(echo "$raw" | while IFS= read -r l; do allowed "$l" || echo "$l"; done)
echo "$out" | grep -E ': (ERROR|WARNING|CHECK):' || true
n=$(echo "$out" | grep -cE ': (ERROR|WARNING|CHECK):')
echo "style: checkpatch: $n problems in ${#files[@]} files"
[ "$n" -eq 0 ] || bad=1

cfiles=()
for f in "${files[@]}"; do case "$f" in *.c|*.h) cfiles+=("$f") ;; esac; done
if [ -x "$kdoc" ] || [ -f "$kdoc" ]; then
	kout=$(perl "$kdoc" -none "${cfiles[@]}" 2>&1)
	[ -z "$kout" ] || echo "$kout"
	k=$(echo -n "$kout" | grep -c 'warning\|error')
	echo "style: kernel-doc: $k problems"
	[ "$k" -eq 0 ] || bad=1
fi
exit $bad
