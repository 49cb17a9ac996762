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

# rejects_ctx "desc" PATTERN CMD raw-args...: rejects, a request of CMD
# against context v.
rejects_ctx() {
	_d=$1 _p=$2 _c=$3
	shift 3
	rejects "$_d" "$_p" --cmd "$_c" -a "$A_CTX_ID:u32:$ID" "$@"
}
# rejects_nest "desc" PATTERN CMD NEST HEX: rejects_ctx with the nested
# attribute NEST holding HEX.
rejects_nest() { rejects_ctx "$1" "$2" "$3" -a "$4:nest:$5"; }

if [ ! -x /bin/damonctl ]; then
	todo "malformed requests" "damonctl not in the image"
	finish
fi
load_module damon_perf || finish

check "a well-formed raw CTX_NEW is accepted" \
	damonctl debug raw --cmd $CMD_CTX_NEW -a $A_CTX_NAME:str:v
ID=$(damonctl status --json | grep '"id"' | head -n 1 | tr -dc 0-9)
diag "context v has id $ID"

rejects "unknown top-level attribute" "Unknown attribute type" \
	--cmd $CMD_CTX_GET -a 99:u32:1
# Each command's policy ends at the highest attribute it takes: above
# that, the type is unknown to the command; below it, one it does not take
# is unsupported.
rejects "attribute above the command's policy" "Unknown attribute type" \
	--cmd $CMD_CTX_NEW -a $A_CTX_NAME:str:w -a $A_TARGET_ID:u32:1
rejects "attribute inside the command's policy it does not take" "Unsupported attribute" \
	--cmd $CMD_CTX_NEW -a $A_CTX_NAME:str:w -a $A_CTX_ID:u32:1
rejects "u32 sent as u16" "invalid attribute length" \
	--cmd $CMD_CTX_GET -a $A_CTX_ID:u16:1
rejects "u32 sent as u64" "invalid attribute length" \
	--cmd $CMD_CTX_GET -a $A_CTX_ID:u64:1
rejects "oversized context name" "policy validation" \
	--cmd $CMD_CTX_NEW -a $A_CTX_NAME:str:abcdefghijabcdefghijabcdefghijabcdefghij
rejects "unterminated context name" "policy validation" \
	--cmd $CMD_CTX_NEW -a $A_CTX_NAME:strn:abc
rejects "empty context name" "must not be empty" \
	--cmd $CMD_CTX_NEW -a $A_CTX_NAME:str:
rejects "ops out of range" "out of range" \
	--cmd $CMD_CTX_NEW -a $A_CTX_NAME:str:w -a $A_CTX_OPS:u32:2
rejects "context id 0" "out of range" --cmd $CMD_CTX_GET -a $A_CTX_ID:u32:0
rejects "non-zero reserved header" "reserved" \
	--cmd $CMD_CTX_GET --reserved 1 -a $A_CTX_ID:u32:$ID
rejects "unknown command" "EOPNOTSUPP" --cmd 200
rejects "missing context name" "context name required" --cmd $CMD_CTX_NEW
rejects "missing context selector" "context id or name required" \
	--cmd $CMD_START
rejects "no such context" "no such context" --cmd $CMD_START -a $A_CTX_ID:u32:9999
rejects_ctx "id and name disagree" "do not match" \
	$CMD_CTX_GET -a $A_CTX_NAME:str:nope
rejects "duplicate context name" "exists" --cmd $CMD_CTX_NEW -a $A_CTX_NAME:str:v
rejects_nest "sample interval below its range (nested)" "out of range" \
	$CMD_SET_ATTRS $A_ATTRS "$(nla_u64 $ATTRS_A_SAMPLE_US 10)"
rejects_nest "unknown nested attribute" "Unknown attribute type" \
	$CMD_SET_ATTRS $A_ATTRS "$(nla_u32 $((ATTRS_A_MAX + 1)) 1)"
rejects_nest "min_nr_regions above max_nr_regions" "above max_nr_regions" \
	$CMD_SET_ATTRS $A_ATTRS \
	"$(nla_u32 $ATTRS_A_MIN_NR_REGIONS 500)$(nla_u32 $ATTRS_A_MAX_NR_REGIONS 100)"
rejects_nest "ring size not a power of two" "power of two" \
	$CMD_SET_ATTRS $A_ATTRS "$(nla_u32 $ATTRS_A_RING_SIZE 1000)"
rejects_ctx "nest without NLA_F_NESTED" "NLA_F_NESTED is missing" \
	$CMD_SET_ATTRS -a $A_ATTRS:hex:"$(nla_u64 $ATTRS_A_AGGR_US 100000)"
rejects_ctx "attributes nest missing" "attributes (nest) required" \
	$CMD_SET_ATTRS
rejects_nest "vaddr target with an address range" "needs a pid" \
	$CMD_TARGET_ADD $A_TARGET \
	"$(nla_u64 $TARGET_A_START 4096)$(nla_u64 $TARGET_A_END 8192)"
rejects_nest "target pid above PID_MAX_LIMIT" "out of range" \
	$CMD_TARGET_ADD $A_TARGET "$(nla_u32 $TARGET_A_PID 5000000)"
rejects_ctx "target id 0" "out of range" $CMD_TARGET_DEL -a $A_TARGET_ID:u32:0
rejects_nest "probe without a type" "needs a type" $CMD_PROBE_ADD $A_PROBE \
	"$(nla_u64 $PROBE_A_SAMPLE_PERIOD 1)"
rejects_nest "precise_ip 4" "out of range" $CMD_PROBE_ADD $A_PROBE \
	"$(nla_u32 $PROBE_A_TYPE 1)$(nla_u64 $PROBE_A_SAMPLE_PERIOD 1)$(nla_u8 $PROBE_A_PRECISE_IP 4)"
rejects_nest "sample period 0" "out of range" $CMD_PROBE_ADD $A_PROBE \
	"$(nla_u32 $PROBE_A_TYPE 1)$(nla_u64 $PROBE_A_SAMPLE_PERIOD 0)"
rejects_nest "flag with a payload" "policy validation" $CMD_PROBE_ADD $A_PROBE \
	"$(nla_u32 $PROBE_A_TYPE 1)$(nla_u64 $PROBE_A_SAMPLE_PERIOD 1)$(nla_u32 $PROBE_A_FREQ 1)"
rejects_ctx "probe index 4" "out of range" $CMD_PROBE_DEL -a $A_PROBE_IDX:u32:4
WRITE=$(nest $FILTERS_A_FILTER "$(nla_u32 $FILTER_A_TYPE $FILTER_WRITE)")
rejects_nest "nine filters" "too many filters" $CMD_SET_FILTERS $A_FILTERS \
	"$WRITE$WRITE$WRITE$WRITE$WRITE$WRITE$WRITE$WRITE$WRITE"
TIDS=
i=0
while [ $i -lt 17 ]; do TIDS=$TIDS$(nla_u32 $FILTER_A_TID $((i + 1))); i=$((i + 1)); done
rejects_nest "seventeen tids in a filter" "too many tids" \
	$CMD_SET_FILTERS $A_FILTERS \
	"$(nest $FILTERS_A_FILTER "$(nla_u32 $FILTER_A_TYPE $FILTER_TID)$TIDS")"
rejects_nest "cpu list with an impossible cpu" "cpu list" \
	$CMD_SET_FILTERS $A_FILTERS \
	"$(nest $FILTERS_A_FILTER "$(nla_u32 $FILTER_A_TYPE $FILTER_CPUMASK)$(nla_str $FILTER_A_CPUS 0-99999)")"
rejects_nest "cpus on a write filter" "not a cpumask filter" \
	$CMD_SET_FILTERS $A_FILTERS \
	"$(nest $FILTERS_A_FILTER "$(nla_u32 $FILTER_A_TYPE $FILTER_WRITE)$(nla_str $FILTER_A_CPUS 0)")"
rejects_nest "filter type out of range" "out of range" \
	$CMD_SET_FILTERS $A_FILTERS \
	"$(nest $FILTERS_A_FILTER "$(nla_u32 $FILTER_A_TYPE 7)")"
rejects_ctx "aux attach with fields missing" "aux needs cpu, fd" \
	$CMD_AUX_ATTACH -a $A_AUX:nest:"$(nla_u32 $AUX_A_CPU 0)"
rejects_nest "aux attach with a negative fd" "out of range" \
	$CMD_AUX_ATTACH $A_AUX "$(nla_u32 $AUX_A_FD 0xffffffff)"
AUX=$(nla_u32 $AUX_A_CPU 0)$(nla_u32 $AUX_A_FD 0)$(nla_u64 $AUX_A_USER_PAGE 4096)
AUX=$AUX$(nla_u64 $AUX_A_AUX_ADDR 8192)$(nla_u64 $AUX_A_AUX_SIZE 8192)
AUX=$AUX$(nla_u32 $AUX_A_PID 0)$(nla_u8 $AUX_A_PROBE_IDX 1)
rejects_ctx "aux attach of an fd that is no perf event" "damonctl: " \
	$CMD_AUX_ATTACH -a $A_AUX:nest:"$AUX"
rejects "snapshot dump of a missing context" "no such context" \
	--dump --cmd $CMD_SNAPSHOT_GET -a $A_CTX_ID:u32:9999
rejects "stats dump with an attribute" "attribute" \
	--dump --cmd $CMD_STATS_GET -a $A_CTX_ID:u32:$ID
check "an empty filter list is accepted" \
	damonctl debug raw --cmd $CMD_SET_FILTERS -a $A_CTX_ID:u32:$ID -a $A_FILTERS:nest:
check "the context survived every bad request" damonctl status v
check "delete it" damonctl debug raw --cmd $CMD_CTX_DEL -a $A_CTX_ID:u32:$ID
unload_module damon_perf
finish
