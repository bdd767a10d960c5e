#!/usr/bin/env bash
# The house: every part knows only what is below it.
#
# Reads src/**/*.rs, takes every `crate::…` path (in `use` lines and in code;
# `diffprofile::…` in src/main.rs) and every `super::…` path, and prints the
# module import graph, one edge `a -> b` a line, between the parts below
# (a part is a top-level file or directory under src/). It then checks:
#
#   - no cycle between parts, and no upward arrow: a part imports only parts
#     on lower layers (or on its own layer's "apart" side, see below);
#   - no cycle between the sibling files of one directory (src/render/html.rs
#     and src/render/flamegraph.rs, say; mod.rs is the directory itself and
#     its children may use it);
#   - no function in src/ longer than 100 lines (from the line of `fn` to its
#     closing brace) unless it is named in ALLOWED below, the table-driven
#     ones the docs/development.md names with the reason.
#
# (`super::` is resolved from the file's module, so in an inline `mod tests`
# it names one level higher than the compiler does; test modules only ever
# reach their own file or its parent that way.)
#
# It prints every cycle, upward arrow and long function and exits 1 if there
# is any. `scripts/imports.sh --graph` prints the graph only (exit 0);
# `scripts/imports.sh --long` lists every function over 100 lines, allowed
# or not, with its length.
#
# The layers, top to bottom (a part may import any part on a lower layer;
# parts on one layer may import each other, but not in a cycle):
#
#   face     main cli app config manpage   the command line: flags, validated
#                                          configuration, the run, man pages
#   batch    batch                         results trees and archives: a report
#                                          per benchmark, the index
#            history                       the same trees: steps along each
#                                          symbol's series of kernels
#   compare  compare                       one comparison, for both: load sides
#                                          (files or a counts table) -> check ->
#                                          aggregate -> diff -> report
#   table    table                         the counts table: export, reader
#   layout   layout                        where kernel and benchmark sit in a
#                                          results tree's paths
#   render   render                        a finished report, in each format
#   model    diff                          rows and verdicts of a comparison
#            flame noise_model             call trees; run-to-run noise
#            sanity                        valid but wrong inputs
#            aggregate scope               runs -> count matrix; common scope
#            identity                      what a symbol is called and where
#   load     load                          detection, parsing in parallel
#   format   format symmap                 the parsers; System.map, kallsyms
#   profile  profile                       one run's counts: what parsers fill
#   names    names                         one table of symbol and dso names
#   input    input text                    bytes: files, decompression, lines
#   apart    significance stats            the statistics, usable from anywhere
#            exit guard                    exit codes, defined once; decoder
#                                          panics caught as errors
set -euo pipefail
cd "$(dirname "$0")/.."
mode="${1:-check}"
exec python3 - "$mode" <<'PY'
import os, re, sys

mode = sys.argv[1]

# Top to bottom; parts on one line share a layer and must not import each
# other in a cycle (an arrow within a layer is allowed, a cycle is not).
LAYERS = [
    ["main", "cli", "app", "config", "manpage"],
    ["batch", "history"],
    ["compare"],
    ["table"],
    ["layout"],
    ["render"],
    ["diff"],
    ["flame", "noise_model"],
    ["sanity"],
    ["aggregate", "scope"],
    ["identity"],
    ["load"],
    ["format", "symmap"],
    ["profile"],
    ["names"],
    ["input", "text"],
    ["significance"],
    ["stats"],
    ["exit", "guard"],
]
# Functions allowed past 100 lines: table-driven (one arm or one line per
# format, flag or column), named in the docs/development.md.
ALLOWED = {
}
LIMIT = 100

layer_of = {}
for i, layer in enumerate(LAYERS):
    for part in layer:
        layer_of[part] = i


def clean(text):
    """Blank out comments, string and char literals (newlines kept)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "r" and re.match(r'r#*"', text[i:i + 70]) and not (
            i and (text[i - 1].isalnum() or text[i - 1] == "_")
        ):
            m = re.match(r'r(#*)"', text[i:])
            end = text.find('"' + m.group(1), i + len(m.group(0)))
            end = n if end < 0 else end + 1 + len(m.group(1))
            out.append('""' + re.sub(r"[^\n]", " ", text[i + 2:end]))
            i = end
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append('"' + re.sub(r"[^\n]", " ", text[i + 1:j]) + '"')
            i = j + 1
        elif c == "'":
            m = re.match(r"'(\\u\{[0-9a-fA-F]+\}|\\x..|\\.|[^\\'])'", text[i:])
            if m:
                out.append("' '" + " " * (len(m.group(0)) - 3))
                i += len(m.group(0))
            else:
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def module_path(path):
    rel = os.path.relpath(path, "src")[:-3].split(os.sep)
    if rel[-1] == "mod":
        rel = rel[:-1]
    return rel


def is_module(segs):
    base = os.path.join("src", *segs)
    return os.path.isfile(base + ".rs") or os.path.isfile(os.path.join(base, "mod.rs"))


PATH = r"(?:r#)?[A-Za-z_][A-Za-z0-9_]*"


def expand(text, pos):
    """Paths after `crate::` at pos: `a::b::c`, or `{a::b, c::{d, e}}`."""
    paths = []

    def walk(i, prefix):
        segs = []
        while True:
            m = re.match(r"\s*(" + PATH + r"|\{)", text[i:])
            if not m:
                return i, prefix + segs
            if m.group(1) == "{":
                i += m.end()
                while True:
                    i, p = walk(i, prefix + segs)
                    if p:
                        paths.append(p)
                    m2 = re.match(r"\s*(,|\})", text[i:])
                    if not m2:
                        return i, []
                    i += m2.end()
                    if m2.group(1) == "}":
                        return i, []
            segs.append(m.group(1))
            i += m.end()
            m = re.match(r"\s*::", text[i:])
            if not m:
                return i, prefix + segs
            i += m.end()

    _, p = walk(pos, [])
    if p:
        paths.append(p)
    return paths


def target(segs):
    """The deepest module a path names (at least its top part)."""
    mod = []
    for s in segs:
        if is_module(mod + [s]):
            mod.append(s)
        else:
            break
    return mod


files = []
for root, _, names in os.walk("src"):
    for name in names:
        if name.endswith(".rs"):
            files.append(os.path.join(root, name))
files.sort()

edges = {}  # (from module path tuple, to module path tuple) -> first place
texts = {}
for path in files:
    raw = open(path, encoding="utf-8").read()
    text = clean(raw)
    texts[path] = (raw, text)
    me = module_path(path)
    if me == ["lib"]:
        continue
    roots = [r"\bcrate\s*::"]
    if me == ["main"]:
        roots.append(r"\bdiffprofile\s*::")
    for root in roots:
        for m in re.finditer(root, text):
            if m.start() and text[m.start() - 1] == "$":
                continue
            for p in expand(text, m.end()):
                t = target(p)
                if t:
                    line = text.count("\n", 0, m.start()) + 1
                    edges.setdefault((tuple(me), tuple(t)), f"{path}:{line}")
    for m in re.finditer(r"\b((?:super\s*::\s*)+)", text):
        if m.start() and re.match(r"[A-Za-z0-9_:]", text[m.start() - 1]):
            continue
        ups = m.group(1).count("super")
        # A file's own module is `me`; `super` is its parent module.
        base = me[: len(me) - ups] if len(me) >= ups else []
        for p in expand(text, m.end()):
            cur = list(base)
            for s in p:
                if is_module(cur + [s]):
                    cur.append(s)
                else:
                    break
            if cur and cur != me:
                line = text.count("\n", 0, m.start()) + 1
                edges.setdefault((tuple(me), tuple(cur)), f"{path}:{line}")

# Part-level graph.
parts = {}
for (a, b), where in edges.items():
    if a[0] != b[0]:
        parts.setdefault((a[0], b[0]), where)


def cycles(nodes, adj):
    """Every elementary cycle's strongly connected components, as lists."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def strong(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(adj.get(v, ())):
            if w not in index:
                strong(w)
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

    sys.setrecursionlimit(10000)
    for v in sorted(nodes):
        if v not in index:
            strong(v)
    return out


def show_cycle(comp, adj, where):
    # One concrete cycle through the component, for the reader.
    comp = set(comp)
    start = min(comp)
    path, seen = [start], {start}
    prev = {start: None}
    queue = [start]
    found = None
    while queue and not found:
        v = queue.pop(0)
        for w in sorted(adj.get(v, ())):
            if w == start:
                found = v
                break
            if w in comp and w not in prev:
                prev[w] = v
                queue.append(w)
    chain = []
    v = found
    while v is not None:
        chain.append(v)
        v = prev[v]
    chain.reverse()
    chain.append(start)
    arrows = " -> ".join(chain)
    places = "; ".join(where[(chain[k], chain[k + 1])] for k in range(len(chain) - 1))
    return f"{arrows}   ({places})"


problems = 0
if mode in ("check", "--graph"):
    print("== module import graph (part -> part it imports)")
    for (a, b) in sorted(parts):
        print(f"{a} -> {b}")
if mode == "--graph":
    sys.exit(0)

if mode == "check":
    adj = {}
    for (a, b) in parts:
        adj.setdefault(a, set()).add(b)
    nodes = {p for e in parts for p in e}
    unknown = sorted(p for p in nodes | {module_path(f)[0] for f in files} - {"lib"} if p not in layer_of)
    for p in unknown:
        print(f"UNPLACED part {p}: add it to a layer in scripts/imports.sh")
        problems += 1
    for comp in cycles(nodes, adj):
        print("CYCLE " + show_cycle(comp, adj, parts))
        problems += 1
    for (a, b), where in sorted(parts.items()):
        if a in layer_of and b in layer_of and layer_of[b] < layer_of[a]:
            print(f"UPWARD {a} -> {b}   ({where})")
            problems += 1
    # Sibling files of one directory.
    sib = {}
    for (a, b), where in edges.items():
        if len(a) >= 1 and len(b) >= 1 and a != b:
            # Compare at the first level where the paths differ, under one parent.
            k = 0
            while k < min(len(a), len(b)) and a[k] == b[k]:
                k += 1
            if k < len(a) and k < len(b) and k >= 1:
                x, y = a[: k + 1], b[: k + 1]
                sib.setdefault(("::".join(x), "::".join(y)), where)
    sadj = {}
    for (a, b) in sib:
        sadj.setdefault(a, set()).add(b)
    for comp in cycles({p for e in sib for p in e}, sadj):
        print("CYCLE " + show_cycle(comp, sadj, sib))
        problems += 1

# Long functions.
long = []
for path in files:
    raw, text = texts[path]
    for m in re.finditer(r"\bfn\s+([A-Za-z_][A-Za-z0-9_]*)", text):
        i = m.end()
        depth = 0
        # The body starts at the first `{` outside parentheses/brackets/generics
        # (a `;` first means a declaration without body).
        while i < len(text):
            c = text[i]
            if c in "([":
                depth += 1
            elif c in ")]":
                depth -= 1
            elif c == ";" and depth == 0:
                i = -1
                break
            elif c == "{" and depth == 0:
                break
            i += 1
        if i < 0 or i >= len(text):
            continue
        d, j = 0, i
        while j < len(text):
            if text[j] == "{":
                d += 1
            elif text[j] == "}":
                d -= 1
                if d == 0:
                    break
            j += 1
        first = text.count("\n", 0, m.start()) + 1
        last = text.count("\n", 0, j) + 1
        n = last - first + 1
        if n > LIMIT:
            name = f"{path}::{m.group(1)}"
            long.append((n, name, f"{path}:{first}", name in ALLOWED))
long.sort(reverse=True)
if mode == "--long":
    for n, name, where, ok in long:
        print(f"{n:5} {where} {name.split('::')[-1]}{'  (allowed)' if ok else ''}")
    sys.exit(0)
for n, name, where, ok in long:
    if not ok:
        print(f"LONG {where} fn {name.split('::')[-1]}: {n} lines (limit {LIMIT})")
        problems += 1
for name in sorted(set(ALLOWED) - {x[1] for x in long}):
    print(f"note: {name} is allowed but no longer over {LIMIT} lines")

if problems:
    print(f"== {problems} problem(s)")
    sys.exit(1)
print("== no cycle, no upward arrow, no function over %d lines outside the allow-list" % LIMIT)
PY
