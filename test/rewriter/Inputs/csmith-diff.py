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
scripts/fuzz-rewriter.sh runs long campaigns with it. The harness (compile, rewrite, run,
compare, reduce, summary) is difftest.py, shared with legacy-gen.py; this file generates.
"""
import collections
import os
import random
import re
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import difftest  # noqa: E402  (the shared harness: compile, run, compare, reduce, summary)

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
        self.cflags = ["-std=gnu11", "-I" + CSMITH_INCLUDE]
        self.rewrite_args = []

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


class CsmithGenerator:
    name = "csmith-diff"

    def program(self, seed, base, args):
        """The instrumented csmith program of a seed, or why there is none."""
        try:
            generate(seed, base + ".gen.c")
        except (subprocess.SubprocessError, OSError) as e:
            return "csmith failed: %s" % e
        with open(base + ".gen.c") as f:
            return Program(f.read(), random.Random(seed), args.sections)


def main():
    return difftest.main(CsmithGenerator(), __doc__.split("\n")[0])


if __name__ == "__main__":
    sys.exit(main())
