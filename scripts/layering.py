#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Check that dependencies in kmod/ run one way (Documentation/design.rst).

  scripts/layering.py [-v]

A module is kmod/X.c with the header kmod/X.h (regions.h also declares
vaddr.c and split.c, netlink_internal.h netlink_msg.c; a header without
a .c, such as ctx_types.h, belongs to no module). Two graphs must have no
cycle:

  includes  X -> Y when X.c includes Y's header, directly or through
            other headers (drain.h, ...): the APIs X can see; not through
            ctx_types.h, the context's types, which sit below every module
  calls     X -> Y when X.c calls a function that Y.c defines (a call
            written NAME(...); tables that only name a function, such as
            the generated operations table of netlink_gen.c, and data such
            as damon_perf_lock do not count)

Each cycle is printed with the edges that close it; the exit status is 1
when there is one. -v also prints both graphs. Standard library only.
"""
import os
import re
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KMOD = os.path.join(TOP, 'kmod')

# The types of a context: the structures every layer shares, and the type
# headers they embed (budget.h, density.h, ring.h), below every module.
# Includes are not followed through it.
TYPE_HEADERS = {'ctx_types.h'}

# Headers that declare the functions of more than their own .c.
HEADER_OWNERS = {
    'regions.h': ['regions', 'vaddr', 'split'],
    'netlink_internal.h': ['netlink_msg', 'netlink', 'netlink_notify'],
}


def read(name):
    with open(os.path.join(KMOD, name), encoding='utf-8') as f:
        return f.read()


def strip_comments(text):
    text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
    return re.sub(r'//[^\n]*', ' ', text)


def local_includes(name):
    return [i for i in re.findall(r'^#include "([^"/]+)"', read(name), re.M)
            if os.path.exists(os.path.join(KMOD, i))]


def header_modules(header, modules):
    if header in HEADER_OWNERS:
        return HEADER_OWNERS[header]
    mod = header[:-2]
    return [mod] if mod in modules else []


def include_graph(modules):
    graph = {}
    for mod in modules:
        seen, todo = set(), list(local_includes(mod + '.c'))
        while todo:
            h = todo.pop()
            if h in seen or not h.endswith('.h'):
                continue
            seen.add(h)
            if h not in TYPE_HEADERS:
                todo.extend(local_includes(h))
        targets = set()
        for h in seen:
            targets.update(m for m in header_modules(h, modules) if m != mod)
        # a module's own header may name its neighbours (regions.h)
        own = {m for h in seen if h in HEADER_OWNERS and mod in
               HEADER_OWNERS[h] for m in HEADER_OWNERS[h]}
        graph[mod] = {t: [] for t in targets - own}
    return graph


def call_graph(modules):
    defs = {}
    for mod in modules:
        text = strip_comments(read(mod + '.c'))
        for m in re.finditer(r'^(?!static\b)[a-z][^;{}()\n]*?\b(\w+)\('
                             r'[^;{}]*\)\s*\{', text, re.M):
            defs.setdefault(m.group(1), mod)
    graph = {}
    for mod in modules:
        text = strip_comments(read(mod + '.c'))
        edges = {}
        for name in set(re.findall(r'\b(\w+)\s*\(', text)):
            owner = defs.get(name)
            if owner and owner != mod:
                edges.setdefault(owner, []).append(name)
        graph[mod] = edges
    return graph


def cycles(graph):
    """Strongly connected components of more than one node (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def main():
    verbose = '-v' in sys.argv[1:]
    modules = sorted(f[:-2] for f in os.listdir(KMOD) if f.endswith('.c'))
    bad = 0
    for what, graph in (('includes', include_graph(modules)),
                        ('calls', call_graph(modules))):
        if verbose:
            for mod in sorted(graph):
                print('%s %s -> %s' % (what, mod, ' '.join(sorted(graph[mod]))))
        for comp in cycles(graph):
            bad += 1
            print('layering: %s cycle: %s' % (what, ' '.join(comp)))
            for a in comp:
                for b in sorted(graph[a]):
                    if b in comp:
                        names = ' '.join(sorted(graph[a][b]))
                        print('  %s -> %s%s' % (a, b,
                                                 ': ' + names if names else ''))
    if not bad:
        print('layering: %d modules, includes and calls run one way'
              % len(modules))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
