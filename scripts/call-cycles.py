#!/usr/bin/env python3
"""Find circles of calls between the C files of one component.

usage: call-cycles.py OBJDIR SRCDIR [--nm NM] [--graph]

OBJDIR holds CMake's objects (X.c.o) of the sources in SRCDIR (X.c); objects whose source is
gone (a renamed file in a developer's build tree) are ignored. File A calls file B when A's
object has an undefined function symbol that B's object defines. Prints every circle found,
with the functions on each edge, and exits 1 if there is one (docs/CONTRIBUTING.md: one concept
per file, and the files of a component call each other in one direction). --graph prints the
whole call graph between the files.
"""
import argparse
import os
import subprocess
import sys


def symbols(nm, obj):
    """(defined functions, undefined symbols) of one object file."""
    out = subprocess.run([nm, obj], capture_output=True, text=True, check=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] == "T":
            defined.add(parts[2])
        elif len(parts) == 2 and parts[0] == "U":
            undefined.add(parts[1])
    return defined, undefined


def find_cycles(edges):
    """Every elementary circle, each once, as a list of files (Johnson-free: the graphs are a
    dozen files, so a depth-first search from each file over larger-named files suffices)."""
    cycles = []
    for start in sorted(edges):
        stack = [(start, [start])]
        while stack:
            node, path = stack.pop()
            for nxt in sorted(edges[node]):
                if nxt == start:
                    cycles.append(path)
                elif nxt > start and nxt not in path:
                    stack.append((nxt, path + [nxt]))
    return cycles


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("objdir")
    ap.add_argument("srcdir")
    ap.add_argument("--nm", default="llvm-nm")
    ap.add_argument("--graph", action="store_true", help="print the call graph between files")
    args = ap.parse_args()
    files = {}
    for name in sorted(os.listdir(args.objdir)):
        if name.endswith(".c.o") and os.path.exists(os.path.join(args.srcdir, name[:-2])):
            files[name[:-2]] = symbols(args.nm, os.path.join(args.objdir, name))
    if not files:
        sys.exit(f"call-cycles: no object of {args.srcdir}'s C files in {args.objdir}")
    calls = {a: {b: sorted(files[a][1] & files[b][0]) for b in files if b != a} for a in files}
    edges = {a: {b for b, fns in calls[a].items() if fns} for a in files}
    if args.graph:
        for a in sorted(edges):
            print(f"{a} -> {', '.join(sorted(edges[a])) or '(nothing)'}")
    cycles = find_cycles(edges)
    for cyc in cycles:
        ring = cyc + [cyc[0]]
        steps = "; ".join(f"{x} calls {y}: {', '.join(calls[x][y][:4])}"
                          for x, y in zip(ring, ring[1:]))
        print(f"circle: {' -> '.join(ring)} ({steps})")
    print(f"{len(files)} files, {sum(map(len, edges.values()))} calling pairs, "
          f"{len(cycles)} circle{'s' if len(cycles) != 1 else ''}")
    return 1 if cycles else 0


if __name__ == "__main__":
    sys.exit(main())
