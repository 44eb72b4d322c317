"""The differential harness of rcl-rewrite, shared by its program generators.

A generator (csmith-diff.py: csmith programs with lock pairs put around statement ranges;
legacy-gen.py: legacy C shapes that csmith never writes) makes, for each seed, a program
object with

- `sections`: the list of its lock/unlock pairs (the unit the reduction drops),
- `render(keep=None)`: the program's text with the sections whose index is in `keep`
  (default all), and a Counter of the shapes it placed,
- `cflags`: the flags both versions are compiled with (besides -O1 -w -pthread -I<rcl>),
- `rewrite_args`: extra rcl-rewrite options (declared lock wrappers).

This module does the rest, the same way for every generator: rcl-rewrite --all converts the
program, original and converted are compiled and run, and exit status and output must be
equal (the converted one in each RCL_MODE of --modes); a rewriter failure or a rewritten
file that does not compile is a mismatch too. Originals that do not compile, run too long
or die from a signal are skipped. --results FILE keeps each outcome as a JSON line and
resumes; --reduce drops sections one at a time while the mismatch persists, keeps
p<seed>.reduced.c and names an AddressSanitizer error of the reduced rewritten program.
"""
import argparse
import collections
import concurrent.futures
import json
import os
import re
import shlex
import subprocess


def run(cmd, timeout, env=None):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout,
                           text=True, errors="replace", env=env)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return None, "", "timeout"


def link_args(program):
    """What the converted program's link needs besides librcl (a program's link_args: rcl-cc's
    gettid wraps where its sections ask their thread's id)."""
    return list(getattr(program, "link_args", []))


def report_counts(path):
    """(converted, refused, {reason: count}) from an rcl-rewrite --report-json file."""
    try:
        with open(path) as f:
            report = json.load(f)
    except (OSError, ValueError):
        return 0, 0, {}
    reasons = collections.Counter()
    for lock in report.get("locks", []):
        for r in lock.get("refusals", []):
            reasons[r["reason"]] += r["count"]
    return report.get("converted", 0), report.get("refused", 0), dict(reasons)


def refused_sections(path):
    """[(function, reason)] of the sections an rcl-rewrite --report-json file refused."""
    try:
        with open(path) as f:
            report = json.load(f)
    except (OSError, ValueError):
        return []
    return [(s.get("function", "?"), s.get("reason", "?")) for lock in report.get("locks", [])
            for s in lock.get("sections", []) if s.get("status") == "refused"]


def mode_env(mode):
    """The environment a program runs in: RCL_MODE=mode, or the caller's when mode is None."""
    if mode is None:
        return None
    return dict(os.environ, RCL_MODE=mode)


class Checker:
    def __init__(self, args, generator):
        self.args = args
        self.generator = generator
        self.cflags = ["-O1", "-w", "-pthread", "-I" + args.include]
        self.libs = shlex.split(args.libs)
        # None: run once in the caller's environment (its RCL_MODE, if any).
        self.modes = [m for m in args.modes.split(",") if m] if args.modes else [None]

    def flags(self, program):
        return program.cflags + self.cflags

    def original(self, base, text, program):
        """Compiles and runs the instrumented original: (status, output) or a skip reason."""
        with open(base + ".c", "w") as f:
            f.write(text)
        rc, _, err = run([self.args.cc] + self.flags(program) + [base + ".c", "-o", base + ".orig"],
                         120)
        if rc != 0:
            return "instrumented original does not compile (harness limit): %s" \
                % err.strip().splitlines()[:1]
        rc_o, out_o, _ = run([base + ".orig"], self.args.timeout)
        if rc_o is None:
            return "original runs too long"
        if rc_o < 0:
            # Killed by a signal: undefined behaviour the compiler exploited (e.g. an endless
            # loop without side effects compiled into a fall-through), nothing to compare.
            return "original dies from signal %d" % -rc_o
        return rc_o, out_o

    def converted(self, base, expected, program):
        """Rewrites base.c, compiles and runs it in each mode: (mismatch or None, converted,
        refused, reasons)."""
        # Each program is one whole file: its address-taken functions are all the program's
        # (--facts-complete), so a call through a pointer is judged by its targets.
        rc, out_rw, err = run([self.args.rewrite, "--all", "--facts-complete", "--quiet",
                               "--report-json",
                               base + ".json"] + program.rewrite_args
                              + [base + ".c", "--"] + self.flags(program), 120)
        c, r, reasons = report_counts(base + ".json")
        if rc != 0:
            return "rcl-rewrite failed: %s" % err.strip()[-500:], c, r, reasons
        with open(base + ".rcl.c", "w") as f:
            f.write(out_rw)
        rc, _, err = run([self.args.cc] + self.flags(program) + [base + ".rcl.c", "-o", base + ".rcl"]
                         + self.libs + link_args(program), 120)
        if rc != 0:
            return "rewritten program does not compile: %s" % err.strip()[:2000], c, r, reasons
        for mode in self.modes:
            rc_r, out_r, _ = run([base + ".rcl"], self.args.timeout * 3, mode_env(mode))
            if (rc_r, out_r) != expected:
                return ("%sexit %s vs %s, output %r vs %r" % (
                    "RCL_MODE=%s: " % mode if mode else "", expected[0], rc_r,
                    expected[1].strip()[-80:], out_r.strip()[-80:]), c, r, reasons)
        return None, c, r, reasons

    def reduce(self, seed, program, base):
        """Drops sections one at a time while the program still mismatches; returns the
        sections kept (the reduced case is base.reduced.c)."""
        keep = list(range(len(program.sections)))
        tmp = base + ".try"
        for k in list(keep):
            trial = [x for x in keep if x != k]
            if not trial:
                break
            text, _ = program.render(trial)
            expected = self.original(tmp, text, program)
            if isinstance(expected, str):
                continue
            if self.converted(tmp, expected, program)[0]:
                keep = trial
        text, _ = program.render(keep)
        with open(base + ".reduced.c", "w") as f:
            f.write(text)
        expected = self.original(tmp, text, program)
        if not isinstance(expected, str):
            self.converted(tmp, expected, program)  # leaves the rewritten text and the report
        for ext in (".rcl.c", ".json"):
            if os.path.exists(tmp + ext):
                os.replace(tmp + ext, base + ".reduced" + ext)
        self.clean(tmp, keep_sources=False)
        return keep

    def diagnose(self, base, program):
        """The reduced rewritten program under AddressSanitizer (stack use after return
        included): the kind of its first error, or None."""
        exe = base + ".asan"
        rc, _, _ = run([self.args.cc] + self.flags(program)
                       + ["-fsanitize=address", base + ".reduced.rcl.c", "-o", exe] + self.libs
                             + link_args(program), 120)
        if rc != 0:
            return None
        env = dict(os.environ, ASAN_OPTIONS="detect_stack_use_after_return=1")
        if self.modes[0]:
            env["RCL_MODE"] = self.modes[0]
        try:
            p = subprocess.run([exe], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               timeout=self.args.timeout * 3, text=True, errors="replace", env=env)
            err = p.stderr
        except subprocess.TimeoutExpired:
            err = ""
        os.unlink(exe)
        m = re.search(r"ERROR: AddressSanitizer: ([\w-]+)", err)
        return "AddressSanitizer: " + m.group(1) if m else None

    def clean(self, base, keep_sources):
        for ext in (".gen.c", ".c", ".rcl.c", ".json", ".orig", ".rcl"):
            if keep_sources and ext in (".gen.c", ".c", ".rcl.c", ".json"):
                continue
            try:
                os.unlink(base + ext)
            except OSError:
                pass

    def check(self, seed):
        """One seed: a dict with its outcome (status ok / skipped / mismatch)."""
        base = os.path.join(self.args.workdir, "p%d" % seed)
        result = {"seed": seed}
        program = self.generator.program(seed, base, self.args)
        if isinstance(program, str):
            self.clean(base, keep_sources=False)
            result.update(status="skipped", why=program)
            return result
        if not program.sections:
            self.clean(base, keep_sources=False)
            result.update(status="skipped", why="no statement range to lock")
            return result
        text, stats = program.render()
        result.update(sections=len(program.sections), shapes=dict(stats))
        expected = self.original(base, text, program)
        if isinstance(expected, str):
            self.clean(base, keep_sources=False)
            result.update(status="skipped", why=expected)
            return result
        mismatch, c, r, reasons = self.converted(base, expected, program)
        result.update(converted=c, refused=r, reasons=reasons)
        if hasattr(program, "describe"):
            # Refusals by the shape the generator wrote: "<shape>: <reason>".
            by_shape = collections.Counter(
                "%s: %s" % (program.describe(fn), reason_kind(why))
                for fn, why in refused_sections(base + ".json"))
            if by_shape:
                result.update(refused_shapes=dict(by_shape))
        if mismatch:
            result.update(status="mismatch", why=mismatch)
            if self.args.reduce:
                keep = self.reduce(seed, program, base)
                result.update(reduced=base + ".reduced.c", reduced_sections=len(keep),
                              diagnosis=self.diagnose(base, program))
            self.clean(base, keep_sources=True)
        else:
            result.update(status="ok")
            self.clean(base, keep_sources=self.args.keep)
        return result


def line_for(r):
    if r["status"] == "skipped":
        return "seed %d: skipped: %s" % (r["seed"], r["why"])
    if r["status"] == "mismatch":
        first = r["why"].splitlines()[0] if r["why"] else ""
        line = "seed %d: MISMATCH: %s" % (r["seed"], first + (" ..." if first != r["why"] else ""))
        if "reduced" in r:
            line += " (reduced to %d section%s: %s)" % (
                r["reduced_sections"], "" if r["reduced_sections"] == 1 else "s", r["reduced"])
        if r.get("diagnosis"):
            line += "; " + r["diagnosis"]
        return line
    shapes = ", ".join("%s %d" % kv for kv in sorted(r.get("shapes", {}).items()))
    return "seed %d: ok (%d lock pairs, %d converted, %d refused%s)" % (
        r["seed"], r["sections"], r["converted"], r["refused"], "; " + shapes if shapes else "")


def reason_kind(reason):
    """A refusal reason by kind: names and line numbers differ from program to program."""
    return re.sub(r"line \d+", "line N", re.sub(r"'[^']*'", "'x'", reason))


def cause(why):
    """A mismatch by kind: the distinct compiler errors without places, or the kind of
    difference."""
    found = {re.sub(r"'[A-Za-z_]\w*'", "'x'", e) for e in re.findall(r"error: (.*)", why)}
    # The reason is cut at a length: a message cut short is a prefix of a whole one.
    errors = sorted(e for e in found if e and not any(f != e and f.startswith(e) for f in found))
    if why.startswith("rewritten program does not compile") and errors:
        return "rewritten program does not compile: " + " + ".join(errors)
    if why.startswith("rcl-rewrite failed"):
        return "rcl-rewrite failed"
    m = re.match(r"(RCL_MODE=\w+: )?exit (\S+) vs (\S+)", why)
    if m:
        return "%sdifferent %s" % (m.group(1) or "", "output" if m.group(2) == m.group(3)
                                   else "exit status")
    return why[:80]


def summary(results, name, shapes_label="exits and waits placed"):
    """The campaign's numbers, as text lines (the first is the one-line summary)."""
    tried = [r for r in results if r["status"] != "skipped"]
    mism = [r for r in results if r["status"] == "mismatch"]
    conv = sum(r.get("converted", 0) for r in tried)
    ref = sum(r.get("refused", 0) for r in tried)
    lines = ["%s: %d programs tried, %d skipped, %d mismatches; %d sections converted, "
             "%d refused" % (name, len(tried), len(results) - len(tried), len(mism), conv, ref)]
    shapes, reasons, skips = collections.Counter(), collections.Counter(), collections.Counter()
    for r in tried:
        shapes.update(r.get("shapes", {}))
        for reason, n in r.get("reasons", {}).items():
            reasons[reason_kind(reason)] += n
    for r in results:
        if r["status"] == "skipped":
            skips[re.sub(r"\d+|:.*", "N", r["why"])] += 1
    lines.append("  lock pairs: %d; %s: %s" % (
        sum(r.get("sections", 0) for r in tried), shapes_label,
        ", ".join("%s %d" % kv for kv in sorted(shapes.items())) or "none"))
    for reason, n in reasons.most_common():
        lines.append("  refused %dx: %s" % (n, reason))
    by_shape = collections.Counter()
    for r in tried:
        by_shape.update(r.get("refused_shapes", {}))
    for what, n in sorted(by_shape.items(), key=lambda kv: (-kv[1], kv[0])):
        lines.append("  refused by shape %dx: %s" % (n, what))
    for why, n in skips.most_common():
        lines.append("  skipped %dx: %s" % (n, why))
    for what, n in collections.Counter(cause(r["why"]) for r in mism).most_common():
        lines.append("  mismatch %dx: %s" % (n, what))
    for r in mism:
        lines.append("  " + line_for(r))
    return lines


def main(generator, description, default_modes="", shapes_label="exits and waits placed"):
    """The command line of a generator's script: checks --count seeds from --seed (or only
    summarises --results). `generator.program(seed, base, args)` returns a program object
    or a skip reason; `generator.add_arguments(ap)`, if present, adds its own options."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--rewrite")
    ap.add_argument("--cc", default="clang-19")
    ap.add_argument("--include", help="directory holding rcl/rcl.h")
    ap.add_argument("--libs", help="librcl link flags")
    ap.add_argument("--count", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--sections", type=int, default=6, help="lock pairs per program")
    ap.add_argument("--timeout", type=float, default=10.0)
    ap.add_argument("--modes", default=default_modes,
                    help="comma-separated RCL_MODEs the converted program runs in "
                         "(default: %s)" % (default_modes or "the caller's environment"))
    ap.add_argument("--workdir")
    ap.add_argument("--jobs", type=int, default=1, help="programs checked at once")
    ap.add_argument("--results", help="JSON-lines file: append each outcome, skip seeds in it")
    ap.add_argument("--reduce", action="store_true", help="reduce each mismatch (see above)")
    ap.add_argument("--keep", action="store_true", help="keep the files of passing programs")
    ap.add_argument("--summary", action="store_true",
                    help="only print the summary of --results, check nothing")
    if hasattr(generator, "add_arguments"):
        generator.add_arguments(ap)
    args = ap.parse_args()
    if hasattr(generator, "handle") and generator.handle(args):
        return 0
    if args.summary and not args.results:
        ap.error("--summary needs --results")
    missing = [o for o in ("rewrite", "include", "libs", "workdir") if not getattr(args, o)]
    if missing and not args.summary:
        ap.error("missing --" + ", --".join(missing))
    done = []
    if args.results and os.path.exists(args.results):
        with open(args.results) as f:
            for line in f:
                try:
                    done.append(json.loads(line))
                except ValueError:
                    pass  # a line cut short by a kill: that seed runs again
    name = generator.name
    if args.summary:
        print("\n".join(summary(done, name, shapes_label)))
        return 0
    os.makedirs(args.workdir, exist_ok=True)
    seen = {r["seed"] for r in done}
    seeds = [s for s in range(args.seed, args.seed + args.count) if s not in seen]
    checker = Checker(args, generator)
    results = [r for r in done if args.seed <= r["seed"] < args.seed + args.count]
    out = open(args.results, "a") if args.results else None
    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        for r in pool.map(checker.check, seeds):
            results.append(r)
            print(line_for(r), flush=True)
            if out:
                out.write(json.dumps(r) + "\n")
                out.flush()
    print("\n".join(summary(results, name, shapes_label)))
    return 1 if any(r["status"] == "mismatch" for r in results) else 0
