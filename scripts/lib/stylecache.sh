# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# Per-file result cache of the style checks (scripts/style.sh,
# scripts/checkpatch.sh, scripts/clang-tidy.sh). An entry is one tool's
# complete result for one file: its exit status and its output, replayed
# as they were. It is found under a key that is a hash of everything the
# result depends on (the file, the tool and its version, its options and
# configuration files, ...: the caller lists them), so a change to any of
# them is a miss and the tool runs again. Callers store a result only
# when the tool ran to its end (a finding, not a crash).
#
#   $DAMON_PERF_STYLE_CACHE   the cache (default $DAMON_PERF_CACHE/style,
#                             i.e. ~/.cache/damon-perf/style); "off": none
#
# Entries are written to a temporary file and renamed into place, so two
# runs at once each see a whole entry or none. Entries unused for 30 days
# are removed (stylecache_prune).

stylecache_dir=${DAMON_PERF_STYLE_CACHE:-${DAMON_PERF_CACHE:-$HOME/.cache/damon-perf}/style}
export stylecache_dir

# stylecache_key TAG [FILE...]: prints the key: a hash of TAG (the tool,
# its version and options, the file's name: whatever is text) followed by
# each FILE's name and content; a FILE that does not exist counts as such.
stylecache_key() {
	local f
	{
		printf 'stylecache 1\n%s\n' "$1"
		shift
		for f in "$@"; do
			if [ -f "$f" ]; then
				printf 'file %s %s\n' "$f" "$(sha256sum <"$f" | cut -d' ' -f1)"
			else
				printf 'nofile %s\n' "$f"
			fi
		done
	} | sha256sum | cut -d' ' -f1
}

# stylecache_get TOOL KEY: on a hit, prints the stored output and returns
# the stored exit status + 0 (so 0 is "hit, clean"); returns 255 on a miss.
stylecache_get() {
	local e=$stylecache_dir/$1/${2:0:2}/$2 rc
	[ "$stylecache_dir" != off ] && [ -f "$e" ] || return 255
	{ IFS= read -r rc && cat; } <"$e" || return 255
	case "$rc" in '' | *[!0-9]*) return 255 ;; esac
	touch "$e" 2>/dev/null
	return "$rc"
}

# stylecache_put TOOL KEY RC OUTPUT_FILE: stores exit status RC and the
# content of OUTPUT_FILE under KEY, atomically.
stylecache_put() {
	local d=$stylecache_dir/$1/${2:0:2} t
	[ "$stylecache_dir" != off ] || return 0
	mkdir -p "$d" 2>/dev/null || return 0
	t=$(mktemp "$d/.tmp.XXXXXX" 2>/dev/null) || return 0
	if { echo "$3" && cat "$4"; } >"$t"; then
		mv -f "$t" "$d/$2"
	else
		rm -f "$t"
	fi
}

# stylecache_prune: removes the entries (and stale temporary files) unused
# for 30 days.
stylecache_prune() {
	[ "$stylecache_dir" != off ] && [ -d "$stylecache_dir" ] || return 0
	find "$stylecache_dir" -type f -mtime +30 -delete 2>/dev/null
	return 0
}
