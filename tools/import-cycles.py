#!/usr/bin/env python3
"""Checks that the files of each source folder import each other without cycles.

For every folder of Rust modules in the workspace's crates, a file `a.rs` (or folder `a/`) depends on its sibling
`b` when its code names `super::b` (from a file that is not the folder's `mod.rs`) or `crate::<folder path>::b`.
Test modules (`#[cfg(test)] mod tests { ... }` at the end of a file) are left out: tests may look anywhere. Prints
each folder's cycle, if any. For libibverbs' crate root it also checks the layers (`LAYERS`): no module names a
module of a higher layer. Exits 1 on any problem; otherwise prints a one-line summary and exits 0.

    python3 tools/import-cycles.py          # the whole workspace
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CRATES = {"src": "src", "rdmacm": "rdmacm/src", "common": "common/src"}

# Back edges accepted, with the reason: (folder, from, to) -> why. The edge is left out of the graph, so any other
# cycle in that folder is still found. Empty: every folder reads top-down.
KNOWN = {}

# The layers of libibverbs' crate root, top (entry points) first: a module may name modules of its own layer or
# below, never above (docs/architecture.md: C call -> verbs | private -> plugin | object -> provider -> kernel).
LAYERS = {
    "src": [
        {"compat", "fuzzing"},
        {"verbs", "private"},
        {"plugin"},
        {"object"},
        {"provider"},
        {"kernel"},
    ],
}


def code_of(path):
    """The file's text without its trailing test module and without comments."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"^#\[cfg\(test\)\]\s*\n\s*mod tests\b", text, re.M)
    if m:
        text = text[: m.start()]
    text = re.sub(r"//[^\n]*", "", text)
    return text


def modules_in(folder):
    """Sibling module names of a folder: `x.rs` files (not mod.rs/lib.rs) and sub-folders with a mod.rs."""
    names = set()
    for entry in os.listdir(folder):
        full = os.path.join(folder, entry)
        if entry.endswith(".rs") and entry not in ("mod.rs", "lib.rs", "main.rs"):
            names.add(entry[:-3])
        elif os.path.isdir(full) and os.path.exists(os.path.join(full, "mod.rs")):
            names.add(entry)
    return names


def files_of(folder, name):
    """The source files making up sibling module `name` (a file, or every file of its folder)."""
    f = os.path.join(folder, name + ".rs")
    if os.path.exists(f):
        return [f]
    out = []
    for dirpath, _, files in os.walk(os.path.join(folder, name)):
        out += [os.path.join(dirpath, x) for x in files if x.endswith(".rs")]
    return out


def graph(folder, crate_prefix):
    names = modules_in(folder)
    edges = {n: set() for n in names}
    for n in names:
        for path in files_of(folder, n):
            code = code_of(path)
            # `super::x` only means a sibling from the module's own top file (x.rs or x/mod.rs).
            top = path == os.path.join(folder, n + ".rs") or path == os.path.join(folder, n, "mod.rs")
            refs = set(re.findall(r"\bsuper::(\w+)", code)) if top else set()
            if crate_prefix is not None:
                refs |= set(re.findall(r"\bcrate::" + re.escape(crate_prefix) + r"(\w+)", code))
            for r in refs:
                if r in names and r != n:
                    edges[n].add(r)
    return edges


def find_cycle(edges):
    """One cycle as a list of names, or None."""
    color = {n: 0 for n in edges}
    stack = []

    def visit(n):
        color[n] = 1
        stack.append(n)
        for m in sorted(edges[n]):
            if color[m] == 1:
                return stack[stack.index(m):] + [m]
            if color[m] == 0:
                c = visit(m)
                if c:
                    return c
        stack.pop()
        color[n] = 2
        return None

    for n in sorted(edges):
        if color[n] == 0:
            c = visit(n)
            if c:
                return c
    return None


def layer_problems(layers, edges):
    """What breaks the layer order `layers` (top first) in a folder's import graph: an edge to a higher layer, or
    a module no layer names. Nothing for a folder without layers."""
    if not layers:
        return []
    rank = {m: r for r, ms in enumerate(layers) for m in ms}
    out = [f"{a} -> {b} goes up a layer" for a in sorted(edges) for b in sorted(edges[a])
           if a in rank and b in rank and rank[b] < rank[a]]
    unranked = sorted(set(edges) - set(rank))
    if unranked:
        out.append("no layer for " + ", ".join(unranked) + " (tools/import-cycles.py LAYERS)")
    return out


def main():
    folders = 0
    bad = 0
    for crate, src in CRATES.items():
        base = os.path.join(ROOT, src)
        for dirpath, _, files in os.walk(base):
            rel = os.path.relpath(dirpath, base)
            if rel == ".":
                prefix = ""
            else:
                prefix = rel.replace(os.sep, "::") + "::"
            # Only folders that are modules (the crate root, or a folder with a mod.rs).
            if rel != "." and "mod.rs" not in files:
                continue
            edges = graph(dirpath, prefix)
            if len(edges) < 2:
                continue
            folders += 1
            folder = os.path.relpath(dirpath, ROOT)
            for (kf, a, b), why in KNOWN.items():
                if kf == folder and b in edges.get(a, ()):
                    edges[a].discard(b)
                    print(f"import-cycles: {folder}: {a} -> {b} left out (known: {why})")
            for problem in layer_problems(LAYERS.get(folder, []), edges):
                bad += 1
                print(f"import-cycles: {folder}: {problem}")
            c = find_cycle(edges)
            if c:
                bad += 1
                print(f"import-cycles: {folder}: " + " -> ".join(c))
    if bad:
        print(f"import-cycles: {bad} problem(s) in {folders} folders")
        return 1
    print(f"import-cycles: {folders} folders, no cycle")
    return 0


if __name__ == "__main__":
    sys.exit(main())
