#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The man page and the bash completion agree with --help: for every
# subcommand --help lists (recursively), the same options and positionals
# in damonctl.1 and the same words offered by the completion, and no more.
# The comparison is shown to fail on a man page missing one option.
#
#   tests/user/manpage.sh DAMONCTL DAMONCTL.1 DAMONCTL.BASH
set -uo pipefail
ctl=${1:?usage: $0 DAMONCTL MANPAGE COMPLETION}
man=${2:?}
comp=$(realpath "${3:?}")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# help_walk PATH...: "PATH<TAB>KIND<TAB>NAME" lines from --help, recursive
help_walk() {
	local out sub
	out=$("$ctl" "${@:2}" --help 2>&1) || { fail "$* --help exits non-zero"; return; }
	echo "$out" | awk -v path="$*" '
		/^[A-Z][a-z]*:$/ { sect = $0; next }
		/^$/ { sect = ""; next }
		sect == "Options:" && /^  -/ {
			n = split($1, a, ",")
			for (i = 1; i <= n; i++) print path "\toption\t" a[i]
		}
		sect == "Positionals:" && /^  [^ ]/ { print path "\tpositional\t" $1 }
		sect == "Subcommands:" && /^  [^ ]/ { print path "\tcommand\t" $1 }'
	for sub in $(echo "$out" | awk '/^Subcommands:$/ { s = 1; next } /^$/ { s = 0 } s && /^  [^ ]/ { print $1 }'); do
		help_walk "$@" "$sub"
	done
}

# man_walk FILE: the same lines from the roff source
man_walk() {
	sed 's/\\-/-/g; s/\\e/\\/g; s/\\&//g' "$1" | awk '
		/^\.SH OPTIONS/ { path = "damonctl"; next }
		/^\.SH / { path = ""; next }
		/^\.SS / {
			s = $0; sub(/^\.SS "/, "", s); sub(/ \[OPTIONS\].*/, "", s)
			path = s
			n = split(s, w, " ")
			parent = w[1]; for (i = 2; i < n; i++) parent = parent " " w[i]
			print parent "\tcommand\t" w[n]
			next
		}
		/^\.TP/ { tp = 1; next }
		tp && path != "" {
			tp = 0
			if ($0 ~ /^\\fB-/) {
				line = $0
				while (match(line, /\\fB[^\\]*\\fR/)) {
					print path "\toption\t" substr(line, RSTART + 3, RLENGTH - 6)
					line = substr(line, RSTART + RLENGTH)
				}
			} else if ($0 ~ /^\\fI/) {
				s = $0; sub(/^\\fI/, "", s); sub(/\\fR.*/, "", s)
				print path "\tpositional\t" s
			}
			next
		}
		{ tp = 0 }'
}

# comp_walk: for every command path of --help, the words the completion
# offers after "PATH " (options and subcommands, sorted)
comp_walk() {
	local path
	cut -f1 "$tmp/help" | sort -u | while read -r path; do
		bash -c '. "$1"; read -ra COMP_WORDS <<< "$2"; COMP_WORDS+=(""); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _damonctl; printf "%s\n" "${COMPREPLY[@]}"' \
			_ "$comp" "$path" | sort | tr '\n' ' ' | sed "s/^/$path\t/; s/ \$//"
		echo
	done
}

help_walk damonctl | sort > "$tmp/help"
man_walk "$man" | sort > "$tmp/man"
nh=$(wc -l < "$tmp/help")
[ "$nh" -gt 50 ] || fail "only $nh entries from --help"
if ! diff "$tmp/help" "$tmp/man" > "$tmp/diff"; then
	fail "man page and --help differ (< --help only, > man page only):"
	sed 's/^/  /' "$tmp/diff"
fi
# the comparison fails when the man page lacks one option
awk '/^\.TP/ && !done { getline l; if (l ~ /^\\fB\\-/ && ++k == 5) { done = 1; next } print; print l; next } { print }' \
	"$man" > "$tmp/broken.1"
man_walk "$tmp/broken.1" | sort > "$tmp/broken"
cmp -s "$tmp/help" "$tmp/broken" && fail "comparison missed an option dropped from the man page"

# completion: the words offered at each level are its subcommands and options
awk -F'\t' '$2 != "positional" { print $1 "\t" $3 }' "$tmp/help" |
	sort -t$'\t' -k1,1 -k2,2 | awk -F'\t' '
		$1 != p { if (p != "") print p "\t" w; p = $1; w = $2; next }
		{ w = w " " $2 }
		END { print p "\t" w }' > "$tmp/help-words"
# commands without subcommands or options: none expected; sort each line's words
while IFS=$'\t' read -r p w; do
	printf '%s\t%s\n' "$p" "$(printf '%s\n' $w | sort | tr '\n' ' ' | sed 's/ $//')"
done < "$tmp/help-words" | sort > "$tmp/help-comp"
comp_walk | grep . | sort > "$tmp/comp"
if ! diff "$tmp/help-comp" "$tmp/comp" > "$tmp/cdiff"; then
	fail "bash completion and --help differ (< --help, > completion):"
	sed 's/^/  /' "$tmp/cdiff"
fi
# file names after --output (report) and --config (start)
touch "$tmp/rec.jsonl"
got=$(cd "$tmp" && bash -c '. "$1"; COMP_WORDS=(damonctl report -i re); COMP_CWORD=3; _damonctl; echo "${COMPREPLY[*]}"' _ "$comp")
[ "$got" = rec.jsonl ] || fail "completion of a file after report -i: '$got'"

echo "$nh entries of --help over $(cut -f1 "$tmp/help" | sort -u | wc -l) commands; $fails failures"
[ $fails -eq 0 ]
