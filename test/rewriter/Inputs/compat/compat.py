#!/usr/bin/env python3
"""rcl-cc's compatibility suite, in the spirit of ccache's test suites (test/suites/*.bash):
each row is a compiler mode, a few commands on a small project whose counter.c has critical
sections that rcl-cc converts. The commands run twice at the same path, each time from a fresh
copy of the project: once with the plain compiler as CC, once with rcl-cc. A row holds when
both builds give
  - the same exit status for every command,
  - the same set of files in the same places (objects, dependency files, .gcno, .dwo, -save-temps
    files, precompiled headers, profile data: whatever the mode writes),
  - programs that print the same and exit the same,
and pass the row's own checks: the rcl-cc build really converted (its product calls
rcl_delegate), debug info names the same source files and directories (DW_AT_name,
DW_AT_comp_dir, DW_AT_dwo_name), dependency files list the same targets and prerequisites
(plus librcl's header), gcov reports the same lines with the same counts, two rcl-cc builds
give byte-identical objects where two plain builds do.

    compat.py --rcl-cc PATH --cc COMPILER --work DIR ROW...   (--list: the rows)

One line per row, `ROW: same[, converted (FILE)]` or `ROW: DIFFERENT: why`; exit status 1 when
a row differs. The plain compiler is COMPILER (clang-19, gcc); rcl-cc runs with
RCL_CC_REAL_CC=COMPILER, so a row checks rcl-cc over that compiler."""
import argparse
import os
import re
import shutil
import subprocess
import sys

PROJECT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "project")
LINK = "{cc} main.o counter.o square.o -o prog"
OBJECTS = ["{cc} -c main.c", "{cc} -c counter.c", "{cc} -c square.c"]


class Row:
    """build: shell commands, {cc} the compiler under test ({plain} always the plain one);
    run: commands whose output and status must match (the programs, gcov); converted: the file
    of the rcl-cc build that must call rcl_delegate; debug: objects whose debug info must name
    the same files; deps: dependency files to compare; reproducible: files two rcl-cc builds
    must give alike (where two plain builds do); gcov: (what gcov is given, the report it
    writes) whose reports must match, line by line with their counts;
    env: environment of the rcl-cc build's commands; needs: programs the row runs."""

    def __init__(self, build, run=(), converted=None, debug=(), deps=(), reproducible=(),
                 gcov=(), env=None, needs=(), compilers=("clang", "gcc")):
        self.build, self.run, self.converted = build, list(run), converted
        self.debug, self.deps, self.reproducible = debug, deps, reproducible
        self.gcov, self.env, self.needs, self.compilers = gcov, env or {}, needs, compilers


ROWS = {
    "compile": Row(OBJECTS + [LINK], ["./prog"], "counter.o"),
    "assembly": Row(["{cc} -S counter.c", "{cc} -c counter.s", "{cc} main.c square.c counter.o "
                     "-o prog"], ["./prog"], "counter.s"),
    "preprocess": Row(["{cc} -E counter.c -o counter.i", "{cc} -E main.c > main.i"]),
    "syntax-only": Row(["{cc} -fsyntax-only counter.c"]),
    "deps-M": Row(["{cc} -M counter.c > counter.deps", "{cc} -M -MT x.o -MQ 'y$.o' counter.c "
                   "-MF counter.mf"], deps=["counter.deps", "counter.mf"]),
    "deps-MM": Row(["{cc} -MM counter.c main.c > all.deps"], deps=["all.deps"]),
    "deps-MD": Row(["{cc} -MD -c counter.c", "{cc} -MD -c main.c square.c", LINK], ["./prog"],
                   "counter.o", deps=["counter.d", "main.d"]),
    "deps-MMD-MF-MT": Row(["mkdir obj deps", "{cc} -MMD -MF deps/counter.dep -MT custom -c "
                           "counter.c -o obj/counter.o"], converted="obj/counter.o",
                          deps=["deps/counter.dep"]),
    "deps-MD-MQ-MP": Row(["{cc} -MD -MP -MQ 'odd$name.o' -c counter.c"], converted="counter.o",
                         deps=["counter.d"]),
    "deps-MD-link": Row(["{cc} -MD main.c counter.c square.c -o prog"], ["./prog"], "prog"),
    "save-temps": Row(["{cc} -save-temps -c counter.c"], converted="counter.o"),
    "save-temps-obj": Row(["mkdir obj", "{cc} -save-temps=obj -c counter.c -o obj/counter.o"],
                          converted="obj/counter.o"),
    "save-temps-link": Row(["{cc} -save-temps main.c counter.c square.c -o prog"], ["./prog"],
                           "prog"),
    "response-file": Row(["printf '%s\\n' -c counter.c '-o counter.o' > compile.rsp",
                          "printf '%s\\n' main.c square.c counter.o -o prog > link.rsp",
                          "{cc} @compile.rsp", "{cc} @link.rsp"], ["./prog"], "counter.o"),
    "stdin-link": Row(["{cc} -x c - -o prog < alone.c"], ["./prog"]),
    "stdin-compile": Row(["{cc} -x c -c - -o alone.o < alone.c", "{cc} alone.o -o prog"],
                         ["./prog"]),
    "language-c": Row(["cp counter.c counter.inc", "{cc} -x c -c counter.inc -o counter.o",
                       "{cc} main.c square.c counter.o -o prog"], ["./prog"], "counter.o"),
    "precompiled-header": Row(["{cc} -x c-header counter.h -o counter.h.gch",
                               "{cc} -include counter.h -c counter.c",
                               "{cc} -include counter.h main.c square.c counter.o -o prog"],
                              ["./prog"], "counter.o"),
    "include": Row(["{cc} -include stdio.h -c counter.c", "{cc} main.c square.c counter.o "
                    "-o prog"], ["./prog"], "counter.o"),
    "several-sources": Row(["{cc} -c main.c counter.c square.c", LINK], ["./prog"],
                           "counter.o"),
    "compile-and-link": Row(["{cc} main.c counter.c square.c -o prog"], ["./prog"], "prog"),
    "default-output": Row(["{cc} main.c counter.c square.c"], ["./a.out"], "a.out"),
    "output-elsewhere": Row(["mkdir -p out/obj", "{cc} -c counter.c -o out/obj/counter.o",
                             "{cc} main.c square.c out/obj/counter.o -o out/prog"],
                            ["./out/prog"], "out/obj/counter.o"),
    "source-elsewhere": Row(["mkdir src", "mv counter.c src/", "cp counter.h src/",
                             "{cc} -g -c src/counter.c", "{cc} main.c square.c counter.o "
                             "-o prog"], ["./prog"], "counter.o", debug=["counter.o"]),
    "shared-library": Row(["{cc} -fPIC -shared counter.c -o libcounter.so",
                           "{cc} main.c square.c -L. -lcounter -Wl,-rpath,'$ORIGIN' -o prog"],
                          ["./prog"], "libcounter.so"),
    "static": Row(["{cc} -static main.c counter.c square.c -o prog"], ["./prog"], "prog"),
    "lto": Row(["{cc} -O2 -flto -c counter.c", "{cc} -O2 -flto main.c square.c counter.o "
                "-o prog"], ["./prog"], "prog"),
    "pipe": Row(["{cc} -pipe -O2 main.c counter.c square.c -o prog"], ["./prog"], "prog"),
    "debug": Row(["{cc} -g -c counter.c", "{cc} -g main.c square.c counter.o -o prog"],
                 ["./prog"], "counter.o", debug=["counter.o", "prog"],
                 reproducible=["counter.o"]),
    "debug-absolute": Row(["{cc} -g -c \"$PWD/counter.c\" -o counter.o"],
                          converted="counter.o", debug=["counter.o"]),
    "split-dwarf": Row(["{cc} -g -gsplit-dwarf -c counter.c", "{cc} -g main.c square.c "
                        "counter.o -o prog"], ["./prog"], "counter.o", debug=["counter.o"],
                       reproducible=["counter.o", "counter.dwo"]),
    "split-dwarf-link": Row(["{cc} -g -gsplit-dwarf main.c counter.c square.c -o prog"],
                            ["./prog"], "prog", debug=["prog"]),
    "debug-prefix-map": Row(["{cc} -g -fdebug-prefix-map=\"$PWD\"=/build -c \"$PWD/counter.c\" "
                             "-o counter.o"], converted="counter.o", debug=["counter.o"]),
    "file-prefix-map": Row(["{cc} -g -ffile-prefix-map=\"$PWD/\"=/src/ -c \"$PWD/counter.c\" "
                            "-o counter.o", "{cc} main.c square.c counter.o -o prog"],
                           ["./prog"], "counter.o", debug=["counter.o"]),
    "coverage": Row(["{cc} --coverage -fprofile-update=atomic -c counter.c",
                     "{cc} --coverage -fprofile-update=atomic -c main.c square.c",
                     "{cc} --coverage main.o counter.o square.o -o prog"],
                    ["./prog"], "counter.o", gcov=[("counter.c", "counter.c.gcov")]),
    "coverage-link": Row(["{cc} --coverage -fprofile-update=atomic main.c counter.c square.c "
                          "-o prog"], ["./prog"],
                         "prog", gcov=[("prog-counter.gcda", "counter.c.gcov")]),
    "profile-gcc": Row(["{cc} -O2 -fprofile-generate main.c counter.c square.c -o prog",
                        "./prog > /dev/null",
                        "{cc} -O2 -fprofile-use -Werror=missing-profile main.c counter.c "
                        "square.c -o prog"], ["./prog"], "prog", compilers=("gcc",)),
    "profile-clang": Row(["{cc} -O2 -fprofile-generate main.c counter.c square.c -o prog",
                          "LLVM_PROFILE_FILE=prog.profraw ./prog > /dev/null",
                          "llvm-profdata-19 merge -o prog.profdata prog.profraw",
                          "{cc} -O2 -fprofile-use=prog.profdata main.c counter.c square.c "
                          "-o prog"], ["./prog"], "prog", compilers=("clang",),
                         needs=["llvm-profdata-19"]),
    # A warning that only rcl's own code gives (the padding of the outlined section's context,
    # an int and a long): the rewritten copy does not compile under -Werror, rcl-cc compiles
    # the original instead, as the plain compiler does, with a warning that says why.
    "werror-rcl-only-warning": Row(["{cc} -Werror -Wpadded -c werror.c -o werror.o"]),
    "ccache-before-rcl-cc": Row(["ccache {cc} -c counter.c", "ccache {cc} -c counter.c -o c2.o",
                                 "ccache {cc} main.c square.c counter.o -o prog"],
                                ["./prog"], "c2.o", needs=["ccache"]),
    "ccache-as-real-compiler": Row(["{cc} -c counter.c", "{cc} main.c square.c counter.o "
                                    "-o prog"], ["./prog"], "counter.o", needs=["ccache"],
                                   env={"RCL_CC_REAL_CC": "ccache {plain}"}),
}


def kind(compiler):
    return "gcc" if "gcc" in os.path.basename(compiler) else "clang"


def sh(command, cwd, env):
    p = subprocess.run(command, shell=True, cwd=cwd, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, errors="replace")
    return p.returncode, p.stdout, p.stderr


def files(top):
    out = set()
    for d, dirs, names in os.walk(top):
        for n in names + [x for x in dirs if os.path.islink(os.path.join(d, x))]:
            out.add(os.path.relpath(os.path.join(d, n), top))
    return out


def gcov_tool(compiler):
    return "gcov" if kind(compiler) == "gcc" else "llvm-cov-19 gcov"


def build(row, args, cc, env, work):
    """One build of the row at `work` from a fresh copy; what it gave (statuses, the runs'
    outputs, stderr for the report)."""
    if os.path.exists(work):
        shutil.rmtree(work)
    shutil.copytree(PROJECT, work)
    result = {"status": [], "runs": [], "stderr": ""}
    for command in row.build:
        status, _, err = sh(command.format(cc=cc, plain=args.cc), work, env)
        result["status"].append((command, status))
        result["stderr"] += err
    for command in row.run:
        status, out, _ = sh(command, work, env)
        result["runs"].append((command, status, out))
    for data, _ in row.gcov:
        status, out, _ = sh("%s %s" % (gcov_tool(args.cc), data), work, env)
        result["runs"].append(("gcov " + data, status, out))
    result["files"] = files(work)
    return result


def unit_names(path):
    """(name, comp_dir, dwo_name) of each compile unit of an object or program."""
    text = subprocess.run(["llvm-dwarfdump-19", "--debug-info", path], stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, text=True).stdout
    units, current = [], None
    for line in text.splitlines():
        tag = re.search(r"DW_TAG_(\w+)", line)
        if tag:
            current = {} if tag.group(1) in ("compile_unit", "skeleton_unit") else None
            if current is not None:
                units.append(current)
            continue
        attr = re.search(r"DW_AT_(name|comp_dir|dwo_name|GNU_dwo_name)\s+\(\"(.*)\"\)", line)
        if attr and current is not None and attr.group(1) not in current:
            current[attr.group(1)] = attr.group(2)
    return [(u.get("name"), u.get("comp_dir"), u.get("dwo_name") or u.get("GNU_dwo_name"))
            for u in units]


def dependencies(path):
    """(targets, prerequisites) of a make rule file, phony rules (-MP) included."""
    with open(path) as f:
        text = f.read().replace("\\\n", " ")
    targets, prereqs = set(), set()
    for line in text.splitlines():
        if ":" not in line:
            continue
        left, _, right = (line + " ").partition(": ")
        targets.update(left.split())
        prereqs.update(right.split())
    return targets, prereqs


def converted(path):
    """Whether a product calls rcl_delegate (its symbols, or an assembly file's text)."""
    if path.endswith((".s", ".i")):
        with open(path, errors="replace") as f:
            return "rcl_delegate" in f.read()
    nm = shutil.which("llvm-nm-19") or "nm"
    out = subprocess.run([nm, path], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         text=True).stdout
    return "rcl_delegate" in out


def same_bytes(a, b):
    with open(a, "rb") as fa, open(b, "rb") as fb:
        return fa.read() == fb.read()


def check_row(name, row, args):
    """The row's line: (holds, text)."""
    top = os.path.abspath(args.work)
    work = os.path.join(top, "work")
    plain_env = dict(os.environ)
    rcl_env = dict(os.environ, RCL_CC_REAL_CC=args.cc, CCACHE_DIR=os.path.join(top, "ccache"))
    plain_env["CCACHE_DIR"] = rcl_env["CCACHE_DIR"]
    rcl_env.update({k: v.format(plain=args.cc) for k, v in row.env.items()})
    kept = {}
    results = {}
    for who, cc, env in (("plain", args.cc, plain_env), ("rcl", args.rcl_cc, rcl_env)):
        rounds = 2 if row.reproducible else 1
        for n in range(rounds):
            results[(who, n)] = build(row, args, cc, env, work)
            kept[(who, n)] = os.path.join(top, "%s-%s-%d" % (name, who, n))
            if os.path.exists(kept[(who, n)]):
                shutil.rmtree(kept[(who, n)])
            os.rename(work, kept[(who, n)])
    plain, rcl = results[("plain", 0)], results[("rcl", 0)]
    pdir, rdir = kept[("plain", 0)], kept[("rcl", 0)]
    problems = []
    for (command, ps), (_, rs) in zip(plain["status"], rcl["status"]):
        if ps != rs:
            problems.append("`%s` exits %d, with rcl-cc %d" % (command, ps, rs))
    if plain["files"] != rcl["files"]:
        only_plain = sorted(plain["files"] - rcl["files"])
        only_rcl = sorted(rcl["files"] - plain["files"])
        problems.append("files only the plain build has: %s; only rcl-cc's: %s" % (
            only_plain or "none", only_rcl or "none"))
    for (command, ps, pout), (_, rs, rout) in zip(plain["runs"], rcl["runs"]):
        if ps != rs or pout != rout:
            problems.append("`%s`: status %d, output %r; with rcl-cc: status %d, output %r" % (
                command, ps, pout[-300:], rs, rout[-300:]))
    for _, report in row.gcov:
        pr, rr = os.path.join(pdir, report), os.path.join(rdir, report)
        if not (os.path.exists(pr) and os.path.exists(rr)):
            problems.append("no gcov report %s" % report)
            continue
        with open(pr) as a, open(rr) as b:
            # The counts and the lines, not the header (it names the .gcda/.gcno files).
            pa = [l for l in a.read().splitlines() if not re.match(r"\s*-:\s*0:", l)]
            pb = [l for l in b.read().splitlines() if not re.match(r"\s*-:\s*0:", l)]
        if pa != pb:
            diff = next(((x, y) for x, y in zip(pa, pb) if x != y), (len(pa), len(pb)))
            problems.append("gcov reports differ: %r / %r" % diff)
    for obj in row.debug:
        pn, rn = unit_names(os.path.join(pdir, obj)), unit_names(os.path.join(rdir, obj))
        if pn != rn or not pn:
            problems.append("debug info of %s names %s, with rcl-cc %s" % (obj, pn, rn))
    for dep in row.deps:
        try:
            (pt, pp), (rt, rp) = dependencies(os.path.join(pdir, dep)), dependencies(
                os.path.join(rdir, dep))
        except OSError as e:
            problems.append("dependency file %s: %s" % (dep, e))
            continue
        # librcl's header is the converted object's dependency too (a target of its own with
        # -MP).
        extra = {p for p in (rp - pp) | (rt - pt) if not p.endswith("/rcl/rcl.h")}
        if not pt <= rt or not pp <= rp or extra:
            problems.append("%s: targets %s, prerequisites %s; with rcl-cc %s, %s" % (
                dep, sorted(pt), sorted(pp), sorted(rt), sorted(rp)))
    for f in row.reproducible:
        p0, p1 = [os.path.join(kept[("plain", n)], f) for n in (0, 1)]
        r0, r1 = [os.path.join(kept[("rcl", n)], f) for n in (0, 1)]
        if os.path.exists(p0) and same_bytes(p0, p1) and not (
                os.path.exists(r0) and os.path.exists(r1) and same_bytes(r0, r1)):
            problems.append("two plain builds give the same %s, two rcl-cc builds do not" % f)
    text = "same"
    if row.converted:
        if os.path.exists(os.path.join(rdir, row.converted)) and converted(
                os.path.join(rdir, row.converted)):
            text += ", converted (%s)" % row.converted
        else:
            problems.append("rcl-cc's %s calls no rcl_delegate (not converted)" % row.converted)
    if problems:
        return False, "DIFFERENT: " + "; ".join(problems) + "\n  rcl-cc's stderr: " + \
            rcl["stderr"].strip().replace("\n", "\n  ")[-2000:]
    return True, text


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rcl-cc", required=True)
    parser.add_argument("--cc", required=True, help="the plain compiler (rcl-cc's real one)")
    parser.add_argument("--work", default="compat-work")
    parser.add_argument("--list", action="store_true")
    parser.add_argument("rows", nargs="*")
    args = parser.parse_args()
    if args.list:
        for name, row in ROWS.items():
            print(name)
        return 0
    os.makedirs(args.work, exist_ok=True)
    ok = True
    for name in args.rows:
        row = ROWS[name]
        if kind(args.cc) not in row.compilers:
            print("%s: not a row for %s" % (name, args.cc))
            continue
        missing = [p for p in row.needs if not shutil.which(p)]
        if missing:
            print("%s: skipped (no %s)" % (name, ", ".join(missing)))
            continue
        holds, text = check_row(name, row, args)
        ok &= holds
        print("%s: %s" % (name, text))
        sys.stdout.flush()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
