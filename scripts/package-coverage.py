#!/usr/bin/env python3
"""Check that every program the tests run comes from a package scripts/setup.sh installs.

usage: package-coverage.py [--repo DIR] [--setup FILE] [--tool PATH]... [--list]

A fresh Debian machine has the packages that are Essential or of priority "required"; after
scripts/setup.sh it also has the packages that setup.sh names and everything they depend on
(Depends and Pre-Depends, followed through alternatives and virtual packages as installed
here). This script reads the commands of every lit RUN line under test/ (and the programs given
with --tool: the tools lit substitutes, such as the compiler and FileCheck), finds the file each
one runs on this machine and the package that owns it (dpkg -S), and reports each program:
  - that is neither built by the project nor installed here;
  - whose package a fresh machine would not have after setup.sh.
Exit status 1 when there is a finding. --list prints every program with its package.

It decides by package, not by what happens to be installed: a program that a developer
installed by hand is reported although it runs here (test/lit.cfg.py runs this in the suite,
so a missing install step fails the tests on the machine where the step was forgotten).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

SHELL_WORDS = {
    "env", "not", "cd", "echo", "true", "false", "test", "export", "set", "exit", "if", "then",
    "fi", "for", "do", "done", "while", "case", "esac", "read", "local", "return", "shift",
    "trap", "wait", "exec", "source", "unset", "printf", "else", "elif", "in", "until", "break",
    "continue", "declare", "eval", "let", "type", "command", "ulimit", "umask", "kill", "[",
    "[[", "]]", "{", "}", "(", ")", "!", "time", "pwd", "mkdir", "rm", "cp", "mv"}
# (mkdir, rm, cp, mv are lit's own built-in commands in its internal shell; coreutils anyway)
PREFIX_WORDS = {"env", "not", "!", "exec", "time", "nice", "{", "("}
LLVM_BIN = "/usr/lib/llvm-19/bin"  # where lit's FileCheck, not, count live (test/lit.cfg.py)


def run(*cmd):
    return subprocess.run(cmd, capture_output=True, text=True).stdout


def setup_packages(path):
    """The package names in setup.sh's PACKAGES=(...) and PACKAGES+=(...) arrays."""
    text = open(path).read()
    names = set()
    for m in re.finditer(r"PACKAGES\+?=\(([^)]*)\)", text):
        body = "\n".join(line.split("#", 1)[0] for line in m.group(1).splitlines())
        names.update(body.split())
    return names


def installed_packages():
    """name -> (essential, priority, depends, provides) of every installed package."""
    fmt = "${Package}\t${Status}\t${Essential}\t${Priority}\t${Pre-Depends}, ${Depends}\t${Provides}\n"
    pkgs = {}
    for line in run("dpkg-query", "-W", "-f", fmt).splitlines():
        parts = line.split("\t")
        if len(parts) != 6 or not parts[1].endswith("installed") or "not-installed" in parts[1]:
            continue
        name, _, essential, priority, depends, provides = parts
        pkgs[name] = (essential == "yes", priority, depends, provides)
    return pkgs


def alternatives(depends):
    """'a (>= 1) | b, c:any' -> [['a', 'b'], ['c']]"""
    out = []
    for clause in depends.split(","):
        names = [re.sub(r"[\s(].*$", "", alt.strip()).split(":")[0] for alt in clause.split("|")]
        names = [n for n in names if n]
        if names:
            out.append(names)
    return out


def fresh_closure(pkgs, wanted):
    """The packages a fresh machine has after setup.sh: essential and required ones, wanted,
    and their dependencies (the installed alternative of each, virtual names resolved)."""
    providers = {}
    for name, (_, _, _, provides) in pkgs.items():
        for p in alternatives(provides):
            providers.setdefault(p[0], set()).add(name)
    todo = [n for n, (ess, prio, _, _) in pkgs.items() if ess or prio == "required"]
    todo += [n for n in wanted if n in pkgs]
    have = set()
    while todo:
        name = todo.pop()
        if name in have:
            continue
        have.add(name)
        for alts in alternatives(pkgs[name][2]):
            real = [a for a in alts if a in pkgs] or [
                p for a in alts for p in sorted(providers.get(a, ())) if p in pkgs]
            todo.extend(real[:1])
    return have


def run_line_commands(test_dir):
    """command word -> the first test file whose RUN lines run it."""
    words = {}
    for d, dirs, files in os.walk(test_dir):
        dirs[:] = sorted(x for x in dirs if x != "Output")
        for f in sorted(files):
            path = os.path.join(d, f)
            try:
                text = open(path, errors="replace").read()
            except OSError:
                continue
            # A RUN line that ends in a backslash goes on in the next one, as lit reads them.
            runs = []
            for m in re.finditer(r"RUN:(.*)", text):
                if runs and runs[-1].endswith("\\"):
                    runs[-1] = runs[-1][:-1] + " " + m.group(1)
                else:
                    runs.append(m.group(1).rstrip())
                runs[-1] = runs[-1].rstrip()
            for run in runs:
                line = re.sub(r"'[^']*'|\"[^\"]*\"", "''", run)  # quoted text is data
                for seg in re.split(r"\|\||&&|\||;|\$\(|`", line):
                    toks = seg.split()
                    while toks and (toks[0] in PREFIX_WORDS or re.match(r"^\w+=", toks[0])):
                        toks.pop(0)
                    if toks and toks[0] == "timeout" and len(toks) > 1:
                        toks = toks[2:]
                    if not toks:
                        continue
                    w = toks[0]
                    if re.match(r"^[A-Za-z][\w.+-]*$", w) and w not in SHELL_WORDS:
                        words.setdefault(w, os.path.relpath(path, os.path.dirname(test_dir)))
    return words


def project_names(repo):
    """Names the project builds or ships (its tools, scripts, test inputs): not packages'."""
    names = set()
    for d, dirs, files in os.walk(repo):
        dirs[:] = [x for x in dirs if x != ".git" and not x.startswith("build")]
        for f in files:
            names.add(f)
            names.add(os.path.splitext(f)[0])
    return names


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repo", default=os.path.join(os.path.dirname(__file__), ".."))
    ap.add_argument("--setup", help="the setup script (default: REPO/scripts/setup.sh)")
    ap.add_argument("--tool", action="append", default=[],
                    help="a program lit substitutes (compiler, FileCheck, python); repeatable")
    ap.add_argument("--list", action="store_true", help="print every program and its package")
    args = ap.parse_args()
    repo = os.path.abspath(args.repo)
    if not shutil.which("dpkg-query"):
        sys.exit("package-coverage: dpkg-query not found: this check needs a Debian system")
    wanted = setup_packages(args.setup or os.path.join(repo, "scripts", "setup.sh"))
    pkgs = installed_packages()
    fresh = fresh_closure(pkgs, wanted)
    commands = run_line_commands(os.path.join(repo, "test"))
    for t in args.tool:
        commands.setdefault(t, "test/lit.cfg.py (a substitution)")
    own = project_names(repo)
    path_env = os.environ.get("PATH", "/usr/bin:/bin") + os.pathsep + LLVM_BIN
    findings, listing = [], []
    for word in sorted(commands):
        where = commands[word]
        if "/" not in word and (word in own or word.startswith("rcl")):
            continue
        exe = word if "/" in word else shutil.which(word, path=path_env)
        if not exe or not os.path.exists(exe):
            findings.append("%s (run by %s): not installed here and not built by the project"
                            % (word, where))
            continue
        owner = ""
        for cand in dict.fromkeys([os.path.realpath(exe), exe] + [
                re.sub(r"^/usr/(s?bin|lib)/", r"/\1/", p) for p in (os.path.realpath(exe), exe)]):
            owner = run("dpkg", "-S", cand)  # (merged /usr: dpkg may know /bin/sed only)
            if owner:
                break
        pkg = owner.split(":")[0].strip() if owner else None
        if pkg and "," in pkg:  # a path two packages share ("diversion by ...")
            pkg = pkg.split(",")[0].strip()
        listing.append("%-28s %-40s %s" % (word, exe, pkg or "(no package)"))
        if not pkg:
            findings.append("%s (run by %s): %s belongs to no Debian package (installed by "
                            "hand?)" % (word, where, exe))
        elif pkg not in fresh:
            findings.append("%s (run by %s): from package %s, which scripts/setup.sh does not "
                            "install (nor anything it installs depends on it)" % (word, where, pkg))
    if args.list:
        print("\n".join(listing))
    for f in findings:
        print("missing install step: " + f)
    print("%d programs checked against %d packages a fresh machine has after setup.sh; "
          "%d finding%s" % (len(listing), len(fresh), len(findings),
                            "" if len(findings) == 1 else "s"))
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
