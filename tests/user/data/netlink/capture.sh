#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Refresh the replies of the module kept here for damonctl's codec tests
# (tests/user/test_codec.cpp): boot Debian 12's stock kernel with
# tests/vm/nl_capture.sh (tests/vm/nlcapture.c prints each reply's bytes
# as NLCAP lines) and write each capture as NAME.hex (hex, 32 bytes a
# line; the datagrams of one exchange back to back), and README (how, and
# the kernel release and module version they came from).
#
#   tests/user/data/netlink/capture.sh [--kernel stock|trixie|sid]
#   tests/user/data/netlink/capture.sh --log LOG   from a console log that
#                                   has nl_capture.sh's output (no boot)
#
# The values in them change with every capture (ids, pids, addresses,
# counts): the tests assert what the capture fixes (names, the probe,
# attributes set) and the relations between the rest.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../../.." && pwd)
kernel=stock log=
case "${1:-}" in
--kernel) kernel=$2 ;;
--log) log=$2 ;;
"") ;;
*) echo "usage: $0 [--kernel stock|trixie|sid | --log LOG]" >&2; exit 2 ;;
esac
if [ -z "$log" ]; then
	log=$top/build/logs/nl_capture-$kernel.log
	"$top/scripts/vm.sh" --quiet --kernel "$kernel" --log "$log" tests/vm/nl_capture.sh
fi
grep -q '^NLCAP done' "$log" || { echo "capture: no complete capture in $log" >&2; exit 1; }
names=$(sed -n 's/^NLCAP \([a-z_]*\) end .*/\1/p' "$log")
for n in $names; do
	want=$(sed -n "s/^NLCAP $n end \\([0-9]*\\) .*/\\1/p" "$log")
	grep "^NLCAP $n [0-9a-f]*\$" "$log" | cut -d' ' -f3 > "$here/$n.hex.new"
	got=$(tr -d '\n' < "$here/$n.hex.new" | wc -c)
	[ "$got" -eq $((want * 2)) ] ||
		{ rm -f "$here/$n.hex.new"; echo "capture: $n: $((got / 2)) of $want bytes" >&2; exit 1; }
	mv "$here/$n.hex.new" "$here/$n.hex"
	echo "capture: $n.hex, $want bytes"
done
src=$(sed -n 's/^NLCAP kernel \(.*\)/kernel \1/p' "$log" | head -n 1)
cat > "$here/README" <<README
Replies of the damon_perf module, byte for byte, for damonctl's codec
tests (tests/user/test_codec.cpp): one file per exchange, NAME.hex, the
datagrams received back to back in hex (32 bytes a line), up to and with
the ack or NLMSG_DONE. What each holds: tests/vm/nlcapture.c.

Captured by tests/user/data/netlink/capture.sh (tests/vm/nl_capture.sh
booted by scripts/vm.sh) from $src
on $(date -u +%Y-%m-%d).
README
echo "capture: $src"
