"""The facts directory of a build made with rcl-cc (RCL_CC_FACTS_DIR), and what `rcl build`
reads from it.

rcl-rewrite writes there, for each translation unit it reads, what the unit's exported functions
do (`<unit>.facts`, rewriter/lib/CalleeFacts.h); a section that calls into a file whose facts
are not known yet is refused as "waiting for facts" (the safe default). rcl-cc adds a log,
compiled.jsonl, one JSON object a line for every translation unit it compiled (source, product,
converted, refused, waiting: sections refused because other files' facts were not known, and
the functions without facts they reach), appended with one O_APPEND write each (on Linux a
write to a regular file is not interleaved with another's, so a parallel build's compiles never
mix inside a line). A unit with no mutex call is not parsed (rcl-cc's lexical check); its entry
carries the rcl-rewrite command that records its facts, which `rcl build` runs only when a
waiting section needs them (scan_needed).

`rcl build` runs the build command once with the directory set, removes the products of the
units with waiting sections, and runs it again (docs/rewriter.md, "Functions of other files").
"""
import os  # the rest where used: rcl-cc imports this module for every compile

COMPILED = "compiled.jsonl"


def append(facts_dir, log, entry):
    """Appends one JSON line to a log of facts_dir, atomically with respect to other writers."""
    os.makedirs(facts_dir, exist_ok=True)
    import json
    line = (json.dumps(entry, sort_keys=True) + "\n").encode()
    fd = os.open(os.path.join(facts_dir, log), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        os.write(fd, line)
    finally:
        os.close(fd)


def read(facts_dir, log):
    """The entries of a log, oldest first ([] when there is none); a torn line is skipped."""
    import json
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


def record_compile(facts_dir, source, product, report, scan=None):
    """What rcl-cc logs for one compiled translation unit, from its settled report. scan: for
    a unit whose parse was skipped (no mutex call), the rcl-rewrite command, and its working
    directory, that would record its facts."""
    entry = {"source": os.path.abspath(source), "product": os.path.abspath(product),
             "converted": report.get("converted", 0), "refused": report.get("refused", 0),
             "waiting": report.get("waiting_for_facts", 0),
             "unknown": report.get("unknown_callees", []),
             "wrappers": {w["name"]: [w.get("role"), w.get("seen")]
                          for w in report.get("wrappers", []) if "name" in w}}
    if report.get("other_locks"):
        entry["other_locks"] = report["other_locks"]
    if report.get("coverage"):
        entry["coverage"] = report["coverage"]
    if scan:
        entry["scan"] = scan
    append(facts_dir, COMPILED, entry)


def other_locks_text(others):
    """The locks rcl-cc left alone, {kind: acquisitions}, as "3 rwlock, 2 spinlock" (its
    summary line and rcl build's)."""
    return ", ".join("%d %s" % (n, kind) for kind, n in sorted(others.items()))


def allocator_units(facts_dir):
    """The units whose facts define one of the C library's allocation functions, the program's
    memory allocator, whose sections must never start librcl (rcl-rewrite marks those entries
    `"allocator": true`: rewriter/lib/CalleeFacts.cpp, allocatorUnit): {unit key: name}."""
    import json
    out = {}
    try:
        names = os.listdir(facts_dir)
    except OSError:
        return out
    for name in names:
        if not name.endswith(".facts"):
            continue
        try:
            with open(os.path.join(facts_dir, name)) as f:
                for line in f:
                    if '"allocator"' not in line:
                        continue
                    try:
                        entry = json.loads(line)
                    except ValueError:
                        continue
                    if isinstance(entry, dict) and entry.get("allocator") and entry.get("unit"):
                        out.setdefault(entry["unit"], entry.get("name", ""))
        except OSError:
            continue
    return out


def stale_outputs(product):
    """The files to remove so that a build compiles a unit again: its product and, for
    libtool's `.libs/x.o`, the `x.lo` and `x.o` beside `.libs` that make tests; for a product
    `x.so.o`, also `x.so`, the name a build that renames its object after compiling it gives
    it (MIT Kerberos's makefiles: `-o x.so.o && mv -f x.so.o x.so`, whose target is `x.so`:
    without it the second pass compiled nothing again)."""
    out = [product]
    directory, name = os.path.split(product)
    stem = os.path.splitext(name)[0]
    if name.endswith(".o") and os.path.splitext(stem)[1]:
        out.append(os.path.join(directory, stem))
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


def _functions(facts_dir):
    """The functions of the facts files, one dict each (a facts file holds one JSON object a
    line, rewriter/lib/ProjectFacts.h: a function, "fn", or an address-taken one, "taken")."""
    import glob
    import json
    for path in glob.glob(os.path.join(facts_dir, "*.facts")):
        try:
            with open(path, errors="replace") as f:
                lines = f.readlines()
        except OSError:
            continue
        for line in lines:
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if isinstance(entry, dict) and entry.get("fn"):
                yield entry


def read_facts(facts_dir):
    """The functions the facts files define: ({key: the functions of other units it calls},
    {key: what makes it unfit for a server, for those it has one})."""
    calls, hazards = {}, {}
    for entry in _functions(facts_dir):
        calls.setdefault(entry["fn"], set()).update(c for c in entry.get("calls", []) if c)
        if entry.get("hazard"):
            hazards[entry["fn"]] = entry["hazard"]
    return calls, hazards


# The name a waiting section gives for the targets of a call through a function pointer: they
# are the program's address-taken functions of its type, known only once every file of the
# build has its facts.
POINTER_TARGETS = "*"
# The file of the facts directory that says every file of the build has its facts (the
# rewriter then judges calls through pointers by their targets).
COMPLETE = "complete"


# The file of the facts directory that says which units the build links together
# (write_programs).
PROGRAMS = "programs.json"


def mark_complete(facts_dir, complete, root=None):
    """Says (or no longer says) that every file of the build has its facts in facts_dir; with
    root, the build tree, also which units may run in one program (write_programs)."""
    path = os.path.join(facts_dir, COMPLETE)
    if complete:
        if root:
            write_programs(facts_dir, root)
        with open(path, "w") as f:
            f.write("every file of the build has its facts here\n")
    else:
        for name in (COMPLETE, PROGRAMS):
            try:
                os.unlink(os.path.join(facts_dir, name))
            except OSError:
                pass


def write_programs(facts_dir, root):
    """Writes facts_dir/programs.json, {"units": {unit: [the units that may share a program with
    it]}}: a build often links several programs and libraries (a daemon, its client library,
    test programs), and a call through a pointer in one of them reaches only the functions whose
    address is taken in the same one. The executables and shared libraries under root are found
    by their ELF headers; the units in each are those that define a function it defines, by its
    symbol table (a global name, or a static one among the address-taken statics the facts
    list), counting only names that one unit alone defines (`main` tells nothing); a program and
    a library of the build that it needs (DT_NEEDED) count as one. A unit found in no artifact
    may be in any: it joins every group (and the rewriter keeps every unit for a unit that has
    no group)."""
    import json
    from . import elf
    units_of = {}  # (name, global) -> units: a static function's key is name@unit
    every = set()
    for entry in _functions(facts_dir):
        if entry.get("unit") and not entry.get("library"):
            name = entry.get("name") or entry["fn"]
            units_of.setdefault((name, "@" not in entry["fn"]), set()).add(entry["unit"])
            every.add(entry["unit"])
    artifacts = []  # (units, soname, needed)
    skip = os.path.realpath(facts_dir)
    for directory, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != ".git" and
                   os.path.realpath(os.path.join(directory, d)) != skip]
        for name in files:
            path = os.path.join(directory, name)
            if os.path.islink(path) or not os.path.isfile(path):
                continue
            found = elf.linked_artifact(path)
            if found is None:
                continue
            functions, soname, needed = found
            units = set()
            for f in functions:
                owners = units_of.get(f, ())
                if len(owners) == 1:
                    units |= owners
            if units:
                artifacts.append((units, soname, set(needed)))
    groups = {}
    for units, soname, needed in artifacts:
        group = set(units)
        for other, other_soname, other_needed in artifacts:
            if (other_soname and other_soname in needed) or (soname and soname in other_needed):
                group |= other
        for u in units:
            groups.setdefault(u, set()).update(group)
    unfound = every - set(groups)
    with open(os.path.join(facts_dir, PROGRAMS), "w") as f:
        json.dump({"units": {u: sorted(g | unfound) for u, g in sorted(groups.items())}}, f)


def still_unknown(facts_dir, roots):
    """The functions without facts that a root reaches through the recorded facts (a root
    without facts included), for the roots not decided yet: a root that reaches a function with
    a hazard is decided, for a section that calls it is refused whatever else it reaches (the
    rewriter gives a definite reason precedence over waiting), so what lies further from it
    need not be read."""
    calls, hazards = read_facts(facts_dir)
    need = set()
    for root in roots:
        seen, work, frontier, decided = {root}, [root], set(), False
        while work:
            name = work.pop()
            if name not in calls:
                frontier.add(name)
                continue
            if name in hazards:
                decided = True
                break
            for callee in calls[name]:
                if callee not in seen:
                    seen.add(callee)
                    work.append(callee)
        if not decided:
            need |= frontier
    return need


def _mentions(path, pattern):
    try:
        with open(path, errors="replace") as f:
            return pattern.search(f.read()) is not None
    except OSError:
        return False


def scan_needed(facts_dir, entries, jobs, root=None):
    """Records the facts of the units whose parse rcl-cc skipped (no mutex call) and whose text
    names a function that a waiting section reaches without facts; then of those that the newly
    recorded functions reach, until no other skipped unit names one, in its text or in its
    object's symbols (a definition whose name a macro makes). A definition neither spells (the
    object gone) is not found: its callers stay refused as waiting for facts, the safe side. When a waiting section calls through a function pointer (POINTER_TARGETS),
    every skipped unit is read: any of them may take the address of a possible target; the
    facts directory is then marked complete (mark_complete), with the programs of the build tree
    root (default: the working directory). Returns (units scanned, scans that failed)."""
    import concurrent.futures  # here: rcl-cc imports this module for every compile
    import re
    import subprocess
    # A unit compiled more than once with other flags (jemalloc compiles each source again with
    # -DJEMALLOC_NO_PRIVATE_NAMESPACE, its functions then named without their je_ prefix) is
    # read with each of its compiles: each may name what the other does not.
    skipped, products = {}, {}
    for e in entries:
        if e.get("scan"):
            scans = skipped.setdefault(e["source"], [])
            if e["scan"] not in scans:
                scans.append(e["scan"])
            products.setdefault(e["source"], []).append(e.get("product"))
        else:
            skipped.pop(e.get("source"), None)
            products.pop(e.get("source"), None)
    roots = {n for e in entries if e.get("waiting") for n in e.get("unknown", [])}
    everything = POINTER_TARGETS in roots
    roots.discard(POINTER_TARGETS)
    scanned, failed = set(), 0

    def scan(todo):
        nonlocal failed
        runs = [one for src in todo for one in skipped[src]]
        with concurrent.futures.ThreadPoolExecutor(max(1, jobs)) as pool:
            results = list(pool.map(
                lambda one: subprocess.run(one["command"], cwd=one["cwd"],
                                           stdout=subprocess.DEVNULL,
                                           stderr=subprocess.DEVNULL).returncode, runs))
        failed += sum(1 for r in results if r != 0)
        scanned.update(todo)

    # (A unit's objects tell what its text may not spell: a definition whose name a macro
    # pastes together, libzstd's XXH_NAMESPACE making XXH64 ZSTD_XXH64.)
    def names(src, pattern, need):
        if _mentions(src, pattern):
            return True
        from . import elf
        return any(product and elf.symbols_among(product, sorted(need))
                   for product in products.get(src, []))

    need = still_unknown(facts_dir, roots) if not everything else set()
    while need:
        pattern = re.compile(r"\b(?:%s)\b" % "|".join(re.escape(n) for n in sorted(need)))
        todo = [src for src in skipped if src not in scanned and names(src, pattern, need)]
        if not todo:
            break
        scan(todo)
        # Only what the waiting sections reach: a function a newly read file defines leads on
        # to its callees; the calls of functions no waiting section reaches do not count, nor
        # those beyond a function that decides its callers' refusal (still_unknown).
        need = still_unknown(facts_dir, roots)
    # A call through a pointer may also lie in a function whose facts were only just read (a
    # waiting section calls fuse_log, which calls log_func): its targets need every file too.
    if everything or reaches_pointer_call(facts_dir, roots):
        scan(sorted(src for src in skipped if src not in scanned))
        if not failed:
            mark_complete(facts_dir, True, root or os.getcwd())
    return scanned, failed


def reaches_pointer_call(facts_dir, roots):
    """Whether a function that the roots reach through the recorded facts calls through a
    pointer (an "icall" effect)."""
    calls, pointers = {}, set()
    for entry in _functions(facts_dir):
        calls.setdefault(entry["fn"], set()).update(entry.get("calls", []))
        if any(x.get("k") == "icall" for x in entry.get("effects", [])):
            pointers.add(entry["fn"])
    seen, work = set(roots), list(roots)
    while work:
        name = work.pop()
        if name in pointers:
            return True
        for callee in calls.get(name, ()):
            if callee not in seen:
                seen.add(callee)
                work.append(callee)
    return False
