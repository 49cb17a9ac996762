#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The policies the netlink spec promises, as the kernel reports them.

    scripts/lib/ynl-policy.py [SPEC] > table

One line per attribute of every command's do and dump request, nests
expanded as dotted paths of attribute numbers, in the format of
"nlattack table" (tests/vm/nlattack/policy.c), which prints what
CTRL_CMD_GETPOLICY says of the loaded module:

    cmd C do|dump PATH TYPE [u MIN MAX] [s MIN MAX] [len MIN MAX] [maxtype N]

An integer is reported with its range (the type's own when the spec sets
no check), a string with its max-len, a nest with the last attribute of
its set. tests/vm/ynl_policy.sh compares the two.
"""
import os
import sys

import yaml

TYPES = {"flag": "flag", "u8": "u8", "u16": "u16", "u32": "u32",
         "u64": "u64", "s8": "s8", "s16": "s16", "s32": "s32", "s64": "s64",
         "binary": "binary", "string": "nul-string", "nest": "nested"}
BITS = {"8": 8, "16": 16, "32": 32, "64": 64}


def main():
    top = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        top, "Documentation/netlink/specs/damon_perf.yaml")
    with open(path, encoding="utf-8") as f:
        spec = yaml.safe_load(f)
    consts = {d["name"]: d for d in spec.get("definitions", [])}
    sets = {}
    for s in spec["attribute-sets"]:
        val, attrs = 0, {}
        for a in s["attributes"]:
            val = a.get("value", val)
            attrs[a["name"]] = dict(a, value=val)
            val += 1
        sets[s["name"]] = attrs

    def limit(v):
        return consts[v]["value"] if isinstance(v, str) else v

    def enum_max(name):
        e = consts[name]
        n, v = 0, e.get("value-start", 0)
        for ent in e["entries"]:
            if isinstance(ent, dict) and "value" in ent:
                v = ent["value"]
            n = v
            v += 1
        return n

    out = []

    def emit(cmd, mode, aset, names, prefix, depth):
        attrs = sets[aset]
        for a in sorted((attrs[n] for n in names), key=lambda a: a["value"]):
            if a["type"] in ("pad", "unused"):
                continue
            p = f"{prefix}{a['value']}"
            line = f"cmd {cmd} {mode} {p} {TYPES[a['type']]}"
            chk = a.get("checks", {})
            t = a["type"]
            if t[0] in "us" and t[1:] in BITS:
                bits = BITS[t[1:]]
                lo, hi = (0, 2 ** bits - 1) if t[0] == "u" else \
                    (-2 ** (bits - 1), 2 ** (bits - 1) - 1)
                if "enum" in a:
                    hi = enum_max(a["enum"])
                lo = limit(chk.get("min", lo))
                hi = limit(chk.get("max", hi))
                line += f" {t[0]} {lo} {hi}"
            elif t == "string" and "max-len" in chk:
                line += f" len 0 {limit(chk['max-len'])}"
            elif t == "nest":
                sub = sets[a["nested-attributes"]]
                line += f" maxtype {max(x['value'] for x in sub.values())}"
            out.append(line)
            if t == "nest" and depth < 4:
                sub = sets[a["nested-attributes"]]
                emit(cmd, mode, a["nested-attributes"], list(sub), p + ".",
                     depth + 1)

    val = 0
    for op in spec["operations"]["list"]:
        val = op.get("value", val)
        for mode in ("do", "dump"):
            req = op.get(mode, {}).get("request")
            if req is not None:
                emit(val, mode, op["attribute-set"], req["attributes"], "", 0)
        val += 1
    print("\n".join(out))


if __name__ == "__main__":
    main()
