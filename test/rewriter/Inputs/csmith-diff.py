#!/usr/bin/env python3
"""Differential testing of rcl-rewrite on random C programs.

For each seed: csmith generates a program; lock/unlock pairs of distinct mutexes are put
around random ranges of whole statements of its functions. A range may contain exits: every
`return`, every `goto` to a label outside the range, and every `break`/`continue` whose loop
encloses the range becomes `{ pthread_mutex_unlock(&lock); <jump> }`, so the original stays a
valid locked program and the rewriter's exit dispatch is exercised. A goto or label is inside
a range only when no goto from outside reaches a label of the range (half of the labels that
have gotos get a range of their own, ending right after a forward goto's label: the `goto out`
idiom). About a third of the sections start with a condition wait on their own mutex that
cannot block, so the program stays deterministic: `while (!rcl_test_ready)
pthread_cond_wait(...)` whose predicate is already true, a `pthread_cond_timedwait` with an
absolute time in the past (must return ETIMEDOUT, else the program aborts), or a
`pthread_cond_signal` nobody waits for. rcl-rewrite --all converts what it can; both versions
are compiled and run, and their outputs (csmith's checksum) and exit status must be equal. A
rewriter failure or a rewritten file that does not compile is a mismatch too.

    csmith-diff.py --rewrite build/rewriter/rcl-rewrite --libs "build/runtime/librcl.a -lhwloc -pthread" \\
                   --include runtime/include --count 200 --seed 1 --workdir /tmp/csd

Prints one line per program and a summary; exits 1 on any mismatch. With --results FILE, each
program's outcome is appended to FILE as one JSON line and seeds already there are skipped
(a campaign resumes where it stopped); --reduce drops sections one at a time from a
mismatching program while it still mismatches, keeps p<seed>.reduced.c in the workdir, and
runs the reduced rewritten program under AddressSanitizer to name the kind of fault.
scripts/fuzz-rewriter.sh runs long campaigns with it.
"""
import argparse
import collections
import concurrent.futures
import json
import os
import random
import re
import shlex
import subprocess
import sys

CSMITH_INCLUDE = "/usr/include/csmith"
EXIT = re.compile(r"\b(return\b[^;]*;|break\s*;|continue\s*;|goto\s+(lbl_\w+)\s*;)")
GOTO = re.compile(r"\bgoto\s+(lbl_\w+)\s*;")
LABEL = re.compile(r"^\s*(lbl_\w+):\s*$")
HEADER = re.compile(r"^\s*(for|while|if|else|do)\b")
LOOP = re.compile(r"^\s*(for|while|do)\b")
# The statement a section starts with, after its lock (None: none). None of them can block.
WAITS = [None, None, None, None,
         "while (!rcl_test_ready) pthread_cond_wait(&rcl_test_conds[{k}], &rcl_test_locks[{k}]);",
         "{{ struct timespec rcl_ts = {{0, 0}}; if (pthread_cond_timedwait(&rcl_test_conds[{k}], "
         "&rcl_test_locks[{k}], &rcl_ts) != ETIMEDOUT) abort(); }}",
         "pthread_cond_signal(&rcl_test_conds[{k}]);"]


def generate(seed, path):
    cmd = ["csmith", "--seed", str(seed), "--no-argc", "--max-funcs", "4",
           "--max-block-depth", "3", "--no-packed-struct", "--no-bitfields", "-o", path]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, timeout=60)


def cut_points(lines):
    """(line index, depth) before which a statement starts, inside function bodies."""
    cuts, depth, in_function = [], 0, False
    for i, line in enumerate(lines):
        stripped = line.strip()
        if depth == 0:
            in_function = bool(re.match(r"^(static |int main)", lines[i - 1] if i else "")) \
                and stripped.startswith("{")
        prev = lines[i - 1].strip() if i else ""
        # Before a statement, or before the `}` that closes a block (the end of a range).
        closing = stripped.startswith("}") and not stripped.startswith("} while")
        if in_function and depth >= 1 and stripped and not stripped.startswith(("{", "else")) \
                and (closing or not stripped.startswith("}")):
            prev_ends = prev.endswith(";") or prev.startswith("}") or prev.startswith("{") \
                or LABEL.match(prev)
            if prev_ends and not HEADER.match(prev) and not HEADER.match(lines[i - 2].strip() if i > 1 else "") \
                    or prev.startswith("{"):
                cuts.append((i, depth))
        depth += line.count("{") - line.count("}")
        if depth == 0:
            in_function = False
    return cuts


def block_id(lines, start, depth):
    """The line that opened the block containing `start` at `depth`."""
    d = depth
    for i in range(start - 1, -1, -1):
        d -= lines[i].count("{") - lines[i].count("}")
        if d < depth:
            return i
    return -1


def enclosing_loops(lines):
    """For each line, the header lines of the loops around it, innermost last."""
    loops, stack = [], []
    for i, line in enumerate(lines):
        loops.append([h for h in stack if h is not None])
        for ch in line:
            if ch == "{":
                text = line[:line.index("{")].strip()
                header = i if text else i - 1
                stack.append(header if LOOP.match(lines[header]) else None)
            elif ch == "}" and stack:
                stack.pop()
    return loops


def labels_stay_inside(lines, la, lb, gotos_to):
    """No goto from outside lines[la:lb] reaches a label there: the range is entered only at
    its top. (Gotos from the range to labels outside are exits: they unlock first.)"""
    for i in range(la, lb):
        m = LABEL.match(lines[i])
        if m and any(not la <= g < lb for g in gotos_to.get(m.group(1), [])):
            return False
    return True


def exits(lines, loops, labels, la, lb):
    """[(line, match)] of the jumps that leave lines[la:lb]."""
    out = []
    for i in range(la, lb):
        for m in EXIT.finditer(lines[i]):
            word = m.group(1).split()[0].rstrip(";")
            if word == "goto":
                leaves = not la <= labels.get(m.group(2), -1) < lb
            elif word in ("break", "continue"):
                leaves = not loops[i] or loops[i][-1] < la
            else:
                leaves = True
            if leaves:
                out.append((i, m))
    return out


class Program:
    """A csmith program and the sections chosen for it; render() writes the instrumented
    text for any subset of them (the reduction drops sections)."""

    def __init__(self, src, rng, max_sections):
        self.lines = lines = src.split("\n")
        self.loops = enclosing_loops(lines)
        self.labels = {LABEL.match(l).group(1): i for i, l in enumerate(lines) if LABEL.match(l)}
        cuts = cut_points(lines)
        gotos_to = {}
        for i, line in enumerate(lines):
            for target in GOTO.findall(line):
                gotos_to.setdefault(target, []).append(i)
        chosen = []

        def fits(a, b, longest=40):
            (la, da), (lb, db) = cuts[a], cuts[b]
            if da != db or block_id(lines, la, da) != block_id(lines, lb, db):
                return False
            if lb - la > longest:
                return False
            depth = 0
            for line in lines[la:lb]:
                depth += line.count("{") - line.count("}")
                if depth < 0:
                    return False
            if depth != 0 or not labels_stay_inside(lines, la, lb, gotos_to):
                return False
            # A statement controlled by a header must not be split from it.
            if HEADER.match(lines[lb - 1].strip()) and not lines[lb - 1].strip().endswith(";"):
                return False
            return not any(not (lb <= x or la >= y) for x, y in chosen)

        # Ranges around a label and its gotos first, when the program has them (half of the
        # labels): a forward goto gives the `goto out` idiom (the range ends right after the
        # label, the unlock goes behind it), a backward one a loop inside the section.
        starts = {line: k for k, (line, _) in enumerate(cuts)}
        for i, line in enumerate(lines):
            m = LABEL.match(line)
            gotos = gotos_to.get(m.group(1), []) if m else []
            if not gotos or rng.random() < 0.5:
                continue
            first, last = min(gotos + [i]), max(gotos)
            ends = [starts[i + 1]] if last < i and i + 1 in starts else \
                [k for k, (l, _) in enumerate(cuts) if l > last][:4]
            begins = sorted((k for k, (l, _) in enumerate(cuts) if l <= first), reverse=True)[:8]
            pair = next(((a, b) for b in ends for a in begins if fits(a, b, 100)), None)
            if pair and len(chosen) < max_sections:
                chosen.append((cuts[pair[0]][0], cuts[pair[1]][0]))
        # Ranges around a return, break, continue or goto (half of them), so that sections
        # have exits: the smallest ranges that hold the jump's statement, or a few more lines.
        for i, line in enumerate(lines):
            if not EXIT.search(line) or rng.random() < 0.5 or len(chosen) >= max_sections // 2:
                continue
            begins = sorted((k for k, (l, _) in enumerate(cuts) if l < i), reverse=True)[:6]
            ends = [k for k, (l, _) in enumerate(cuts) if l > i][:6]
            pairs = [(a, b) for a in begins for b in ends if fits(a, b)]
            if pairs:
                a, b = rng.choice(pairs)
                chosen.append((cuts[a][0], cuts[b][0]))
        for _ in range(max_sections * 20):
            if len(chosen) == max_sections or len(cuts) < 2:
                break
            a, b = sorted(rng.sample(range(len(cuts)), 2))
            if fits(a, b):
                chosen.append((cuts[a][0], cuts[b][0]))
        self.sections = [(la, lb, rng.choice(WAITS)) for la, lb in sorted(chosen)]

    def render(self, keep=None):
        """The instrumented program with the sections whose index is in `keep` (default all),
        and its statistics."""
        keep = range(len(self.sections)) if keep is None else keep
        inserts, edits = {}, {}
        stats = collections.Counter()
        for k in keep:
            la, lb, wait = self.sections[k]
            unlock = "pthread_mutex_unlock(&rcl_test_locks[%d]);" % k
            inserts.setdefault(la, []).append("pthread_mutex_lock(&rcl_test_locks[%d]);" % k)
            if wait:
                inserts[la].append(wait.format(k=k))
                stats["waits" if "cond_wait" in wait else "timedwaits" if "timed" in wait
                      else "signals"] += 1
            inserts.setdefault(lb, []).insert(0, unlock)
            for line, m in exits(self.lines, self.loops, self.labels, la, lb):
                edits.setdefault(line, []).append((m.start(), m.end(), unlock))
                stats[m.group(1).split()[0].rstrip(";")] += 1
        out = []
        for i, line in enumerate(self.lines):
            out += inserts.get(i, [])
            for start, end, unlock in sorted(edits.get(i, []), reverse=True):
                line = line[:start] + "{ " + unlock + " " + line[start:end] + " }" + line[end:]
            out.append(line)
        text = "\n".join(out)
        n = len(self.sections)
        prologue = ("#include <errno.h>\n#include <pthread.h>\n#include <stdlib.h>\n#include <time.h>\n"
                    "static pthread_mutex_t rcl_test_locks[%d] = "
                    "{[0 ... %d] = PTHREAD_MUTEX_INITIALIZER};\n"
                    "static pthread_cond_t rcl_test_conds[%d] = "
                    "{[0 ... %d] = PTHREAD_COND_INITIALIZER};\n"
                    "static int rcl_test_ready = 1;\n" % (n, n - 1, n, n - 1))
        text = text.replace('#include "csmith.h"', '#include "csmith.h"\n' + prologue, 1)
        return text, stats


def run(cmd, timeout):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout,
                           text=True, errors="replace")
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return None, "", "timeout"


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


class Checker:
    def __init__(self, args):
        self.args = args
        self.cflags = ["-std=gnu11", "-O1", "-w", "-pthread", "-I" + CSMITH_INCLUDE,
                       "-I" + args.include]
        self.libs = shlex.split(args.libs)

    def original(self, base, text):
        """Compiles and runs the instrumented original: (status, output) or a skip reason."""
        with open(base + ".c", "w") as f:
            f.write(text)
        rc, _, err = run([self.args.cc] + self.cflags + [base + ".c", "-o", base + ".orig"], 120)
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

    def converted(self, base, expected):
        """Rewrites base.c, compiles and runs it: (mismatch or None, converted, refused,
        reasons)."""
        rc, out_rw, err = run([self.args.rewrite, "--all", "--quiet", "--report-json",
                               base + ".json", base + ".c", "--"] + self.cflags, 120)
        c, r, reasons = report_counts(base + ".json")
        if rc != 0:
            return "rcl-rewrite failed: %s" % err.strip()[-500:], c, r, reasons
        with open(base + ".rcl.c", "w") as f:
            f.write(out_rw)
        rc, _, err = run([self.args.cc] + self.cflags + [base + ".rcl.c", "-o", base + ".rcl"]
                         + self.libs, 120)
        if rc != 0:
            return "rewritten program does not compile: %s" % err.strip()[:800], c, r, reasons
        rc_r, out_r, _ = run([base + ".rcl"], self.args.timeout * 3)
        if (rc_r, out_r) != expected:
            return ("exit %s vs %s, output %r vs %r" % (expected[0], rc_r, expected[1].strip()[-80:],
                                                        out_r.strip()[-80:]), c, r, reasons)
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
            expected = self.original(tmp, text)
            if isinstance(expected, str):
                continue
            if self.converted(tmp, expected)[0]:
                keep = trial
        text, _ = program.render(keep)
        with open(base + ".reduced.c", "w") as f:
            f.write(text)
        expected = self.original(tmp, text)
        if not isinstance(expected, str):
            self.converted(tmp, expected)  # leaves the rewritten text and the report
        for ext in (".rcl.c", ".json"):
            if os.path.exists(tmp + ext):
                os.replace(tmp + ext, base + ".reduced" + ext)
        self.clean(tmp, keep_sources=False)
        return keep

    def diagnose(self, base):
        """The reduced rewritten program under AddressSanitizer (stack use after return
        included): the kind of its first error, or None."""
        exe = base + ".asan"
        rc, _, _ = run([self.args.cc] + self.cflags + ["-fsanitize=address", base + ".reduced.rcl.c",
                                                       "-o", exe] + self.libs, 120)
        if rc != 0:
            return None
        env = dict(os.environ, ASAN_OPTIONS="detect_stack_use_after_return=1")
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
        try:
            generate(seed, base + ".gen.c")
        except (subprocess.SubprocessError, OSError) as e:
            result.update(status="skipped", why="csmith failed: %s" % e)
            return result
        with open(base + ".gen.c") as f:
            program = Program(f.read(), random.Random(seed), self.args.sections)
        if not program.sections:
            self.clean(base, keep_sources=False)
            result.update(status="skipped", why="no statement range to lock")
            return result
        text, stats = program.render()
        result.update(sections=len(program.sections), shapes=dict(stats))
        expected = self.original(base, text)
        if isinstance(expected, str):
            self.clean(base, keep_sources=False)
            result.update(status="skipped", why=expected)
            return result
        mismatch, c, r, reasons = self.converted(base, expected)
        result.update(converted=c, refused=r, reasons=reasons)
        if mismatch:
            result.update(status="mismatch", why=mismatch)
            if self.args.reduce:
                keep = self.reduce(seed, program, base)
                result.update(reduced=base + ".reduced.c", reduced_sections=len(keep),
                              diagnosis=self.diagnose(base))
            self.clean(base, keep_sources=True)
        else:
            result.update(status="ok")
            self.clean(base, keep_sources=self.args.keep)
        return result


def line_for(r):
    if r["status"] == "skipped":
        return "seed %d: skipped: %s" % (r["seed"], r["why"])
    if r["status"] == "mismatch":
        line = "seed %d: MISMATCH: %s" % (r["seed"], r["why"])
        if "reduced" in r:
            line += " (reduced to %d section%s: %s)" % (
                r["reduced_sections"], "" if r["reduced_sections"] == 1 else "s", r["reduced"])
        if r.get("diagnosis"):
            line += "; " + r["diagnosis"]
        return line
    shapes = ", ".join("%s %d" % kv for kv in sorted(r.get("shapes", {}).items()))
    return "seed %d: ok (%d lock pairs, %d converted, %d refused%s)" % (
        r["seed"], r["sections"], r["converted"], r["refused"], "; " + shapes if shapes else "")


def summary(results):
    """The campaign's numbers, as text lines (the first is the one-line summary)."""
    tried = [r for r in results if r["status"] != "skipped"]
    mism = [r for r in results if r["status"] == "mismatch"]
    conv = sum(r.get("converted", 0) for r in tried)
    ref = sum(r.get("refused", 0) for r in tried)
    lines = ["csmith-diff: %d programs tried, %d skipped, %d mismatches; %d sections converted, "
             "%d refused" % (len(tried), len(results) - len(tried), len(mism), conv, ref)]
    shapes, reasons, skips = collections.Counter(), collections.Counter(), collections.Counter()
    for r in tried:
        shapes.update(r.get("shapes", {}))
        for reason, n in r.get("reasons", {}).items():
            # By kind: names and line numbers differ from program to program.
            reasons[re.sub(r"line \d+", "line N", re.sub(r"'[^']*'", "'x'", reason))] += n
    for r in results:
        if r["status"] == "skipped":
            skips[re.sub(r"\d+|:.*", "N", r["why"])] += 1
    lines.append("  lock pairs: %d; exits and waits placed: %s" % (
        sum(r.get("sections", 0) for r in tried),
        ", ".join("%s %d" % kv for kv in sorted(shapes.items())) or "none"))
    for reason, n in reasons.most_common():
        lines.append("  refused %dx: %s" % (n, reason))
    for why, n in skips.most_common():
        lines.append("  skipped %dx: %s" % (n, why))
    for r in mism:
        lines.append("  " + line_for(r))
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rewrite")
    ap.add_argument("--cc", default="clang-19")
    ap.add_argument("--include", help="directory holding rcl/rcl.h")
    ap.add_argument("--libs", help="librcl link flags")
    ap.add_argument("--count", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--sections", type=int, default=6, help="lock pairs per program")
    ap.add_argument("--timeout", type=float, default=10.0)
    ap.add_argument("--workdir")
    ap.add_argument("--jobs", type=int, default=1, help="programs checked at once")
    ap.add_argument("--results", help="JSON-lines file: append each outcome, skip seeds in it")
    ap.add_argument("--reduce", action="store_true", help="reduce each mismatch (see above)")
    ap.add_argument("--keep", action="store_true", help="keep the files of passing programs")
    ap.add_argument("--summary", action="store_true",
                    help="only print the summary of --results, check nothing")
    args = ap.parse_args()
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
    if args.summary:
        print("\n".join(summary(done)))
        return 0
    os.makedirs(args.workdir, exist_ok=True)
    seen = {r["seed"] for r in done}
    seeds = [s for s in range(args.seed, args.seed + args.count) if s not in seen]
    checker = Checker(args)
    results = [r for r in done if args.seed <= r["seed"] < args.seed + args.count]
    out = open(args.results, "a") if args.results else None
    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        for r in pool.map(checker.check, seeds):
            results.append(r)
            print(line_for(r), flush=True)
            if out:
                out.write(json.dumps(r) + "\n")
                out.flush()
    print("\n".join(summary(results)))
    return 1 if any(r["status"] == "mismatch" for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
