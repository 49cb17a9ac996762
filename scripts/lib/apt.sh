# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Sourced by scripts/kernel/stock.sh and arm64.sh: a private apt
# configuration that fetches packages of other suites or architectures
# without touching the host's apt setup (nothing is installed).
#
#   apt_private NAME DIR ARCHS LINE...   the configuration in DIR: a
#       sources list of the LINEs ("SUITE [SUITE...]" for the main URI,
#       "security SUITE" for the security one when the host has it), the
#       host's Debian URIs reused; apt_opts: the options every apt-get and
#       apt-cache call passes. ARCHS: "" (the host's) or "arm64,amd64" (the
#       first is APT::Architecture). NAME prefixes the messages.
#   apt_update NAME DIR   apt-get update, at most once a day; a failure is
#       fatal only when there are no lists from an earlier run.

# apt_host_uri security|main: the first URI of the host's Debian sources
# entry that is (is not) the security archive.
apt_host_uri() {
	local want=$1 sel='!~'
	[ "$want" = security ] && sel='~'
	if [ -f /etc/apt/sources.list.d/debian.sources ]; then
		awk '/^URIs:/ { for (i = 2; i <= NF; i++) if ($i '"$sel"' /security/) { print $i; exit } }' \
			/etc/apt/sources.list.d/debian.sources
	elif [ -f /etc/apt/sources.list ]; then
		awk '$1 == "deb" && $0 '"$sel"' /security/ { for (i = 2; i <= NF; i++) if ($i ~ /^(https?|file):/) { print $i; exit } }' \
			/etc/apt/sources.list
	fi
}

apt_private() {
	local name=$1 dir=$2 archs=$3 uri suri line keyring opt=''
	shift 3
	mkdir -p "$dir"/{lists/partial,archives/partial,debs}
	uri=$(apt_host_uri main)
	suri=$(apt_host_uri security)
	[ -n "$uri" ] || { echo "$name: no Debian URI in the host's apt sources" >&2; return 1; }
	keyring=/usr/share/keyrings/debian-archive-keyring.gpg
	[ -z "$archs" ] || opt="arch=$archs "
	for line in "$@"; do
		case "$line" in
		security\ *)
			[ -z "$suri" ] || echo "deb [${opt}signed-by=$keyring] $suri ${line#security } main" ;;
		*) echo "deb [${opt}signed-by=$keyring] $uri $line main" ;;
		esac
	done > "$dir/sources.list"
	apt_opts=(-o "Dir::Etc::SourceList=$dir/sources.list"
		-o Dir::Etc::SourceParts=/dev/null
		-o "Dir::State::Lists=$dir/lists"
		-o "Dir::Cache=$dir" -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache=
		-o "Dir::Cache::Archives=$dir/archives"
		-o Dir::State::Status=/dev/null)
	if [ -n "$archs" ]; then
		apt_opts+=(-o "APT::Architecture=${archs%%,*}")
		local a
		for a in ${archs//,/ }; do apt_opts+=(-o "APT::Architectures::=$a"); done
	fi
	apt_opts+=(-o APT::Sandbox::User=root -o Debug::NoLocking=1 -q)
}

apt_update() {
	local name=$1 dir=$2 stamp=$2/update-stamp
	if [ ! -f "$stamp" ] || [ -n "$(find "$stamp" -mmin +1440 2>/dev/null)" ]; then
		if apt-get "${apt_opts[@]}" update >"$dir/update.log" 2>&1; then
			touch "$stamp"
		elif ! ls "$dir"/lists/*_Packages >/dev/null 2>&1; then
			cat "$dir/update.log" >&2
			echo "$name: apt-get update failed" >&2
			return 1
		else
			echo "$name: apt-get update failed; using the lists of $(date -r "$stamp" +%F 2>/dev/null || echo 'an earlier run')" >&2
		fi
	fi
}
