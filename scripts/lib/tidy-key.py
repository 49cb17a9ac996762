#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# The cache key of clang-tidy's result for one file (scripts/clang-tidy.sh,
# scripts/lib/stylecache.sh): a hash of the file's compile commands in
# compile_commands.json, the name and content of the file and of every
# header it includes (system headers too: the compile command run with -M),
# the .clang-tidy files above it, and TAG (clang-tidy's version, its
# options). Paths inside the source tree count relative to its top, so
# clones of the tree at different places share their results. Exits
# non-zero (no key: no caching) when a dependency list cannot be made.
#
#   tidy-key.py COMPILE_COMMANDS_JSON FILE TAG
import hashlib
import json
import os
import shlex
import subprocess
import sys


def deps(entry):
    """The files the compile of ENTRY reads, from the compiler's -M."""
    if "arguments" in entry:
        args = list(entry["arguments"])
    else:
        args = shlex.split(entry["command"])
    out = []
    skip = False
    for a in args:
        if skip:
            skip = False
            continue
        if a in ("-o", "-MF", "-MT", "-MQ"):
            skip = True
            continue
        if a in ("-c", "-MD", "-MMD") or a.startswith("-o"):
            continue
        out.append(a)
    r = subprocess.run(out + ["-M", "-MF", "-"], cwd=entry["directory"],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                       check=True)
    text = r.stdout.decode().replace("\\\n", " ")
    files = text.split(":", 1)[1].split()
    return [os.path.realpath(os.path.join(entry["directory"], f))
            for f in files]


TOP = os.path.realpath(os.path.join(os.path.dirname(__file__), "..", ".."))


def rel(text):
    """TEXT with the tree's own location replaced by a placeholder."""
    return text.replace(TOP + "/", "@TOP@/").replace(TOP, "@TOP@")


def main():
    db, path, tag = sys.argv[1], os.path.realpath(sys.argv[2]), sys.argv[3]
    h = hashlib.sha256()
    h.update(("tidy-key 2\n%s\n%s\n" % (tag, rel(path))).encode())
    entries = [e for e in json.load(open(db))
               if os.path.realpath(os.path.join(e["directory"], e["file"]))
               == path]
    if not entries:
        sys.exit(1)
    files = {path}
    for e in entries:
        h.update(rel(json.dumps(e, sort_keys=True)).encode() + b"\n")
        files.update(deps(e))
    # The .clang-tidy files that exist: a missing one above the tree would
    # name the clone's location and make every clone miss.
    d = os.path.dirname(path)
    while True:
        if os.path.exists(os.path.join(d, ".clang-tidy")):
            files.add(os.path.join(d, ".clang-tidy"))
        if d == os.path.dirname(d):
            break
        d = os.path.dirname(d)
    for f in sorted(files, key=rel):
        try:
            with open(f, "rb") as fp:
                digest = hashlib.sha256(fp.read()).hexdigest()
        except FileNotFoundError:
            digest = "-"
        h.update(("%s %s\n" % (rel(f), digest)).encode())
    print(h.hexdigest())


if __name__ == "__main__":
    try:
        main()
    except (OSError, ValueError, IndexError, subprocess.CalledProcessError):
        sys.exit(1)
