"""The facts directory of a build made with rcl-cc (RCL_CC_FACTS_DIR), and what `rcl build`
reads from it.

rcl-rewrite writes there, for each translation unit it reads, what the unit's exported functions
do (`<unit>.facts`, rewriter/lib/CalleeFacts.h); a section that calls into a file whose facts
are not known yet is refused as "waiting for facts" (the safe default). rcl-cc adds a log,
compiled.jsonl, one JSON object a line for every translation unit it compiled (source, product,
converted, refused, waiting: sections refused because other files' facts were not known),
appended with one write each (lines well under PIPE_BUF, so a parallel build's compiles never
interleave inside a line).

`rcl build` runs the build command once with the directory set, removes the products of the
units with waiting sections, and runs it again (docs/rewriter.md, "Functions of other files").
"""
import json
import os

COMPILED = "compiled.jsonl"


def append(facts_dir, log, entry):
    """Appends one JSON line to a log of facts_dir, atomically with respect to other writers."""
    os.makedirs(facts_dir, exist_ok=True)
    line = (json.dumps(entry, sort_keys=True) + "\n").encode()
    fd = os.open(os.path.join(facts_dir, log), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        os.write(fd, line)
    finally:
        os.close(fd)


def read(facts_dir, log):
    """The entries of a log, oldest first ([] when there is none); a torn line is skipped."""
    out = []
    try:
        with open(os.path.join(facts_dir, log)) as f:
            for line in f:
                try:
                    entry = json.loads(line)
                except ValueError:
                    continue
                if isinstance(entry, dict):
                    out.append(entry)
    except OSError:
        pass
    return out


def clear(facts_dir, log):
    try:
        os.unlink(os.path.join(facts_dir, log))
    except OSError:
        pass


def record_compile(facts_dir, source, product, report):
    """What rcl-cc logs for one compiled translation unit, from its settled report."""
    entry = {"source": os.path.abspath(source), "product": os.path.abspath(product),
             "converted": report.get("converted", 0), "refused": report.get("refused", 0),
             "waiting": report.get("waiting_for_facts", 0),
             "wrappers": {w["name"]: [w.get("role"), w.get("seen")]
                          for w in report.get("wrappers", []) if "name" in w}}
    append(facts_dir, COMPILED, entry)


def stale_outputs(product):
    """The files to remove so that a build compiles a unit again: its product and, for
    libtool's `.libs/x.o`, the `x.lo` and `x.o` beside `.libs` that make tests."""
    out = [product]
    directory, name = os.path.split(product)
    stem = os.path.splitext(name)[0]
    if os.path.basename(directory) == ".libs":
        parent = os.path.dirname(directory)
        out += [os.path.join(parent, stem + ".lo"), os.path.join(parent, stem + ".o")]
    else:
        out.append(os.path.join(directory, stem + ".lo"))
    return out


def wrapper_warnings(entries):
    """Declared wrapper names that no compiled unit has as a function: (name, role, what it
    is: "macro" when some unit defines such a macro, else "unseen")."""
    rank = {"unseen": 0, "macro": 1, "function": 2}
    seen = {}
    for e in entries:
        for name, (role, what) in e.get("wrappers", {}).items():
            old = seen.get(name)
            if old is None or rank.get(what, 0) > rank.get(old[1], 0):
                seen[name] = (role, what)
    return sorted((n, r, w) for n, (r, w) in seen.items() if w != "function")


def latest_by_source(entries):
    """The last entry of each source: what the build ended with."""
    last = {}
    for e in entries:
        last[e.get("source")] = e
    return list(last.values())
