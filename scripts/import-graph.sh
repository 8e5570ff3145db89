#!/usr/bin/env bash
# The import graph of the whole workspace: the agent library (src/) and the
# referee (referee/src/). An edge A -> B means non-test code in file A names
# a `crate::` (or `super::`) path that lives in file B. Fails when any
# files, or any top-level folders of a crate, import each other in a loop
# (of any length). Each crate is checked on its own and gets a line of its
# counts (modules, import edges, circles), so a crate that was not scanned
# shows.
#
# Usage: scripts/import-graph.sh [-q]    (-q: print the circles and the
# counts, not the edges)
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 - "$@" <<'PY'
import os, re, sys
quiet = "-q" in sys.argv[1:]
TEST = re.compile(r'^#\[cfg\(test\)\]\s*\n(pub(\(crate\))? )?mod [a-z_]+\s*\{', re.M)
PATH = re.compile(r'\b(crate|super|self)((?:::[A-Za-z_][A-Za-z0-9_]*)+)')
SKIP = ("tests.rs", "testgames.rs", "fuzzing.rs")
# The agent library, its binary, then the referee: none may have a circle.
ROOTS = ("src", "src/cli", "referee/src")

def module_files(root):
    """module path (tuple) -> file, for every .rs file under root (not
    under another crate's root)."""
    mods = {}
    for d, subdirs, fs in os.walk(root):
        subdirs[:] = [s for s in subdirs if os.path.join(d, s) not in ROOTS]
        for f in fs:
            if not f.endswith(".rs"):
                continue
            rel = os.path.relpath(os.path.join(d, f), root)[:-3].split(os.sep)
            if rel[-1] == "mod":
                rel = rel[:-1]
            if rel in (["lib"], ["main"]):
                rel = []
            mods[tuple(rel)] = os.path.join(d, f)
    return mods

def edges_of(root):
    """(import edges, number of modules scanned) of the crate at root."""
    mods = module_files(root)
    edges = set()
    scanned = 0
    for mod, path in mods.items():
        if os.path.basename(path) in SKIP or "/tests/" in path or mod == ():
            continue
        scanned += 1
        text = open(path).read()
        m = TEST.search(text)
        if m:
            text = text[: m.start()]
        text = "\n".join(l for l in text.splitlines() if not l.lstrip().startswith("//"))
        # the module a `super::`/`self::` path starts from
        here = mod if os.path.basename(path) == "mod.rs" else mod
        for kind, rest in PATH.findall(text):
            parts = tuple(rest.strip(":").split("::"))
            if kind == "crate":
                full = parts
            elif kind == "self":
                full = here + parts
            else:
                full = here[:-1] + parts
            # the longest prefix that is a module file
            while full and full not in mods:
                full = full[:-1]
            target = mods.get(full)
            if target and target != path and full != ():
                edges.add((path, target))
    return edges, scanned

def circles(nodes, edges):
    """Strongly connected components of more than one node (Tarjan)."""
    graph = {n: [] for n in nodes}
    for a, b in edges:
        graph[a].append(b)
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]
    sys.setrecursionlimit(10000)
    def visit(v):
        index[v] = low[v] = counter[0]; counter[0] += 1
        stack.append(v); on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w); low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop(); on.discard(w); comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))
    for n in graph:
        if n not in index:
            visit(n)
    return out

def top(root, path):
    rel = os.path.relpath(path, root).split(os.sep)
    # a game is its own unit inside games/
    if rel[0] == "games" and len(rel) > 1:
        return root + "/games/" + rel[1].removesuffix(".rs")
    return root + "/" + rel[0].removesuffix(".rs")

found = 0
counts = []
for root in ROOTS:
    edges, scanned = edges_of(root)
    if scanned == 0:
        print(f"{root}: no modules found", file=sys.stderr)
        sys.exit(1)
    if not quiet:
        for a, b in sorted(edges):
            print(f"{a} -> {b}")
    nodes = {n for e in edges for n in e}
    here = 0
    for c in circles(nodes, edges):
        here += 1
        print("CIRCLE (files): " + " -> ".join(c))
    folded = {(top(root, a), top(root, b)) for a, b in edges if top(root, a) != top(root, b)}
    for c in circles({n for e in folded for n in e}, folded):
        here += 1
        print("CIRCLE (folders): " + " , ".join(c))
    found += here
    counts.append(f"{root}/: {scanned} modules, {len(edges)} import edges, {here} circle{'' if here == 1 else 's'}")
for line in counts:
    print(line)
if found:
    print(f"{found} import circle(s)", file=sys.stderr)
    sys.exit(1)
print("no import circles")
PY
