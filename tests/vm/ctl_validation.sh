#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kernels: stock debug
# The generic netlink family rejects malformed requests, each with an
# extack message: unknown, unsupported, wrong-length, oversized, unterminated
# and out-of-range attributes (top level and nested), a non-zero reserved
# header, missing attributes, and the limits the handlers check themselves.
# Requests are crafted with the hidden `damonctl debug raw`
# (--cmd N, -a TYPE:KIND:VALUE, KIND u8|u16|u32|u64|str|strn|flag|hex|nest).
. /tests/lib.sh

# Numbers from include/uapi/linux/damon_perf.h.
CTX_NEW=1 CTX_DEL=2 CTX_GET=3 SET_ATTRS=4 TARGET_ADD=5 TARGET_DEL=6
PROBE_ADD=7 PROBE_DEL=8 SET_FILTERS=9 START=10 SNAPSHOT_GET=12
STATS_GET=13 AUX_ATTACH=17
A_CTX_ID=2 A_CTX_NAME=3 A_CTX_OPS=4 A_ATTRS=6 A_TARGET=7 A_TARGET_ID=8
A_PROBE=9 A_PROBE_IDX=10 A_FILTERS=11 A_AUX=18

le16() { printf '%02x%02x' $(($1 & 255)) $(($1 >> 8 & 255)); }
le32() { le16 $(($1 & 65535)); le16 $(($1 >> 16 & 65535)); }
le64() { le32 $(($1 & 0xffffffff)); le32 $(($1 >> 32 & 0xffffffff)); }
# nla TYPE HEX: one attribute (header, payload, padding) as hex; nest TYPE
# HEX: the same with NLA_F_NESTED, which strict validation requires.
nest() { nla $(($1 | 0x8000)) "$2"; }
nla() {
	_n=$((${#2} / 2))
	printf '%s%s%s' "$(le16 $((4 + _n)))" "$(le16 "$1")" "$2"
	_p=$(((4 - _n % 4) % 4))
	while [ $_p -gt 0 ]; do printf 00; _p=$((_p - 1)); done
}

# rejects "desc" PATTERN raw-args...: exit 1 with PATTERN in the message.
rejects() {
	_desc=$1
	_pat=$2
	shift 2
	_out=$(damonctl debug raw "$@" 2>&1)
	_rc=$?
	diag "$_out"
	if [ $_rc -eq 1 ] && echo "$_out" | grep -q -- "$_pat"; then
		ok "$_desc"
	else
		not_ok "$_desc (exit $_rc, want 1 and '$_pat')"
	fi
}

if [ ! -x /bin/damonctl ]; then
	todo "malformed requests" "damonctl not in the image"
	finish
fi
load_module damon_perf || finish

check "a well-formed raw CTX_NEW is accepted" \
	damonctl debug raw --cmd $CTX_NEW -a $A_CTX_NAME:str:v
ID=$(damonctl status --json | grep '"id"' | head -n 1 | tr -dc 0-9)
diag "context v has id $ID"

rejects "unknown top-level attribute" "Unknown attribute type" \
	--cmd $CTX_GET -a 99:u32:1
rejects "attribute outside the command's policy" "Unsupported attribute" \
	--cmd $CTX_NEW -a $A_CTX_NAME:str:w -a $A_TARGET_ID:u32:1
rejects "u32 sent as u16" "invalid attribute length" \
	--cmd $CTX_GET -a $A_CTX_ID:u16:1
rejects "u32 sent as u64" "invalid attribute length" \
	--cmd $CTX_GET -a $A_CTX_ID:u64:1
rejects "oversized context name" "policy validation" \
	--cmd $CTX_NEW -a $A_CTX_NAME:str:abcdefghijabcdefghijabcdefghijabcdefghij
rejects "unterminated context name" "policy validation" \
	--cmd $CTX_NEW -a $A_CTX_NAME:strn:abc
rejects "empty context name" "must not be empty" \
	--cmd $CTX_NEW -a $A_CTX_NAME:str:
rejects "ops out of range" "out of range" \
	--cmd $CTX_NEW -a $A_CTX_NAME:str:w -a $A_CTX_OPS:u32:2
rejects "context id 0" "out of range" --cmd $CTX_GET -a $A_CTX_ID:u32:0
rejects "non-zero reserved header" "reserved" \
	--cmd $CTX_GET --reserved 1 -a $A_CTX_ID:u32:$ID
rejects "unknown command" "EOPNOTSUPP" --cmd 200
rejects "missing context name" "context name required" --cmd $CTX_NEW
rejects "missing context selector" "context id or name required" \
	--cmd $START
rejects "no such context" "no such context" --cmd $START -a $A_CTX_ID:u32:9999
rejects "id and name disagree" "do not match" \
	--cmd $CTX_GET -a $A_CTX_ID:u32:$ID -a $A_CTX_NAME:str:nope
rejects "duplicate context name" "exists" --cmd $CTX_NEW -a $A_CTX_NAME:str:v
rejects "sample interval below its range (nested)" "out of range" \
	--cmd $SET_ATTRS -a $A_CTX_ID:u32:$ID \
	-a $A_ATTRS:nest:"$(nla 2 "$(le64 10)")"
rejects "unknown nested attribute" "Unknown attribute type" \
	--cmd $SET_ATTRS -a $A_CTX_ID:u32:$ID \
	-a $A_ATTRS:nest:"$(nla 60 "$(le32 1)")"
rejects "min_nr_regions above max_nr_regions" "above max_nr_regions" \
	--cmd $SET_ATTRS -a $A_CTX_ID:u32:$ID \
	-a $A_ATTRS:nest:"$(nla 5 "$(le32 500)")$(nla 6 "$(le32 100)")"
rejects "ring size not a power of two" "power of two" \
	--cmd $SET_ATTRS -a $A_CTX_ID:u32:$ID \
	-a $A_ATTRS:nest:"$(nla 8 "$(le32 1000)")"
rejects "nest without NLA_F_NESTED" "NLA_F_NESTED is missing" \
	--cmd $SET_ATTRS -a $A_CTX_ID:u32:$ID \
	-a $A_ATTRS:hex:"$(nla 3 "$(le64 100000)")"
rejects "attributes nest missing" "attributes (nest) required" \
	--cmd $SET_ATTRS -a $A_CTX_ID:u32:$ID
rejects "vaddr target with an address range" "needs a pid" \
	--cmd $TARGET_ADD -a $A_CTX_ID:u32:$ID \
	-a $A_TARGET:nest:"$(nla 4 "$(le64 4096)")$(nla 5 "$(le64 8192)")"
rejects "target pid above PID_MAX_LIMIT" "out of range" \
	--cmd $TARGET_ADD -a $A_CTX_ID:u32:$ID \
	-a $A_TARGET:nest:"$(nla 3 "$(le32 5000000)")"
rejects "target id 0" "out of range" \
	--cmd $TARGET_DEL -a $A_CTX_ID:u32:$ID -a $A_TARGET_ID:u32:0
rejects "probe without a type" "needs a type" \
	--cmd $PROBE_ADD -a $A_CTX_ID:u32:$ID \
	-a $A_PROBE:nest:"$(nla 7 "$(le64 1)")"
rejects "precise_ip 4" "out of range" \
	--cmd $PROBE_ADD -a $A_CTX_ID:u32:$ID \
	-a $A_PROBE:nest:"$(nla 3 "$(le32 1)")$(nla 7 "$(le64 1)")$(nla 11 04)"
rejects "sample period 0" "out of range" \
	--cmd $PROBE_ADD -a $A_CTX_ID:u32:$ID \
	-a $A_PROBE:nest:"$(nla 3 "$(le32 1)")$(nla 7 "$(le64 0)")"
rejects "flag with a payload" "policy validation" \
	--cmd $PROBE_ADD -a $A_CTX_ID:u32:$ID \
	-a $A_PROBE:nest:"$(nla 3 "$(le32 1)")$(nla 7 "$(le64 1)")$(nla 8 "$(le32 1)")"
rejects "probe index 4" "out of range" \
	--cmd $PROBE_DEL -a $A_CTX_ID:u32:$ID -a $A_PROBE_IDX:u32:4
WRITE=$(nest 1 "$(nla 1 "$(le32 2)")")
rejects "nine filters" "too many filters" \
	--cmd $SET_FILTERS -a $A_CTX_ID:u32:$ID \
	-a $A_FILTERS:nest:"$WRITE$WRITE$WRITE$WRITE$WRITE$WRITE$WRITE$WRITE$WRITE"
TIDS=
i=0
while [ $i -lt 17 ]; do TIDS=$TIDS$(nla 4 "$(le32 $((i + 1)))"); i=$((i + 1)); done
rejects "seventeen tids in a filter" "too many tids" \
	--cmd $SET_FILTERS -a $A_CTX_ID:u32:$ID \
	-a $A_FILTERS:nest:"$(nest 1 "$(nla 1 "$(le32 1)")$TIDS")"
rejects "cpu list with an impossible cpu" "cpu list" \
	--cmd $SET_FILTERS -a $A_CTX_ID:u32:$ID \
	-a $A_FILTERS:nest:"$(nest 1 "$(nla 1 "$(le32 0)")$(nla 3 "$(printf 0-99999 | od -An -tx1 | tr -d ' \n')00")")"
rejects "cpus on a write filter" "not a cpumask filter" \
	--cmd $SET_FILTERS -a $A_CTX_ID:u32:$ID \
	-a $A_FILTERS:nest:"$(nest 1 "$(nla 1 "$(le32 2)")$(nla 3 3000)")"
rejects "filter type out of range" "out of range" \
	--cmd $SET_FILTERS -a $A_CTX_ID:u32:$ID \
	-a $A_FILTERS:nest:"$(nest 1 "$(nla 1 "$(le32 7)")")"
rejects "aux attach with fields missing" "aux needs cpu, fd" \
	--cmd $AUX_ATTACH -a $A_CTX_ID:u32:$ID -a $A_AUX:nest:"$(nla 2 "$(le32 0)")"
rejects "aux attach with a negative fd" "out of range" \
	--cmd $AUX_ATTACH -a $A_CTX_ID:u32:$ID \
	-a $A_AUX:nest:"$(nla 3 "$(le32 0xffffffff)")"
AUX=$(nla 2 "$(le32 0)")$(nla 3 "$(le32 0)")$(nla 4 "$(le64 4096)")
AUX=$AUX$(nla 5 "$(le64 8192)")$(nla 6 "$(le64 8192)")$(nla 7 "$(le32 0)")
AUX=$AUX$(nla 8 01)
rejects "aux attach of an fd that is no perf event" "damonctl: " \
	--cmd $AUX_ATTACH -a $A_CTX_ID:u32:$ID -a $A_AUX:nest:"$AUX"
rejects "snapshot dump of a missing context" "no such context" \
	--dump --cmd $SNAPSHOT_GET -a $A_CTX_ID:u32:9999
rejects "stats dump with an attribute" "attribute" \
	--dump --cmd $STATS_GET -a $A_CTX_ID:u32:$ID
check "an empty filter list is accepted" \
	damonctl debug raw --cmd $SET_FILTERS -a $A_CTX_ID:u32:$ID -a $A_FILTERS:nest:
check "the context survived every bad request" damonctl status v
check "delete it" damonctl debug raw --cmd $CTX_DEL -a $A_CTX_ID:u32:$ID
unload_module damon_perf
finish
