#!/usr/bin/env python3
"""Differential testing of rcl-rewrite on random C programs.

For each seed: csmith generates a program; lock/unlock pairs of distinct mutexes are put
around random ranges of whole statements of its functions (never around a return, break or
continue, and around a goto or label only when every goto to a label of the range and every
goto in the range stay inside it, so the original stays a valid locked program; a range may
end right after a label, which gives the `goto out` idiom); rcl-rewrite --all
converts what it can; both versions are compiled and run, and their outputs (csmith's
checksum) must be equal. A rewritten file that does not compile is a failure too.

    csmith-diff.py --rewrite build/rewriter/rcl-rewrite --libs "build/runtime/librcl.a -lhwloc -pthread" \
                   --include runtime/include --count 200 --seed 1 --workdir /tmp/csd

Prints one line per program and a summary; exits 1 on any mismatch or compile failure.
"""
import argparse
import os
import random
import re
import shlex
import subprocess
import sys

CSMITH_INCLUDE = "/usr/include/csmith"
JUMP = re.compile(r"\b(return|break|continue)\b")
GOTO = re.compile(r"\bgoto\s+(lbl_\w+)\s*;")
LABEL = re.compile(r"^\s*(lbl_\w+):\s*$")
HEADER = re.compile(r"^\s*(for|while|if|else|do)\b")


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


def jumps_stay_inside(lines, la, lb, gotos_to):
    """Every goto in lines[la:lb] targets a label there, and every goto to a label there is
    there too: the range is entered only at its top and left only at its bottom."""
    for i in range(la, lb):
        for target in GOTO.findall(lines[i]):
            label = next((k for k in range(la, lb) if LABEL.match(lines[k])
                          and LABEL.match(lines[k]).group(1) == target), None)
            if label is None:
                return False
        m = LABEL.match(lines[i])
        if m and any(not la <= g < lb for g in gotos_to.get(m.group(1), [])):
            return False
    return True


def instrument(src, rng, max_sections):
    lines = src.split("\n")
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
            if depth < 0 or JUMP.search(line):
                return False
        if depth != 0 or not jumps_stay_inside(lines, la, lb, gotos_to):
            return False
        # A statement controlled by a header must not be split from it.
        if HEADER.match(lines[lb - 1].strip()) and not lines[lb - 1].strip().endswith(";"):
            return False
        return not any(not (lb <= x or la >= y) for x, y in chosen)

    # Ranges around a label and its gotos first, when the program has them (half of the
    # labels): a forward goto gives the `goto out` idiom (the range ends right after the label,
    # the unlock goes behind it), a backward one a loop inside the section.
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
    for _ in range(max_sections * 20):
        if len(chosen) == max_sections or len(cuts) < 2:
            break
        a, b = sorted(rng.sample(range(len(cuts)), 2))
        if fits(a, b):
            chosen.append((cuts[a][0], cuts[b][0]))
    if not chosen:
        return None, 0
    inserts = {}
    for k, (la, lb) in enumerate(sorted(chosen)):
        inserts.setdefault(la, []).append("pthread_mutex_lock(&rcl_test_locks[%d]);" % k)
        inserts.setdefault(lb, []).insert(0, "pthread_mutex_unlock(&rcl_test_locks[%d]);" % k)
    out = []
    for i, line in enumerate(lines):
        for ins in inserts.get(i, []):
            out.append(ins)
        out.append(line)
    text = "\n".join(out)
    prologue = ("#include <pthread.h>\nstatic pthread_mutex_t rcl_test_locks[%d] = "
                "{[0 ... %d] = PTHREAD_MUTEX_INITIALIZER};\n" % (len(chosen), len(chosen) - 1))
    text = text.replace('#include "csmith.h"', '#include "csmith.h"\n' + prologue, 1)
    return text, len(chosen)


def run(cmd, timeout):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout,
                           text=True, errors="replace")
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return None, "", "timeout"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rewrite", required=True)
    ap.add_argument("--cc", default="clang-19")
    ap.add_argument("--include", required=True, help="directory holding rcl/rcl.h")
    ap.add_argument("--libs", required=True, help="librcl link flags")
    ap.add_argument("--count", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--sections", type=int, default=6, help="lock pairs per program")
    ap.add_argument("--timeout", type=float, default=10.0)
    ap.add_argument("--workdir", required=True)
    args = ap.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    cflags = ["-std=gnu11", "-O1", "-w", "-pthread", "-I" + CSMITH_INCLUDE, "-I" + args.include]
    libs = shlex.split(args.libs)
    tried = skipped = mismatches = converted = refused = 0
    for n in range(args.count):
        seed = args.seed + n
        base = os.path.join(args.workdir, "p%d" % seed)
        rng = random.Random(seed)
        try:
            generate(seed, base + ".gen.c")
        except (subprocess.SubprocessError, OSError) as e:
            print("seed %d: csmith failed: %s" % (seed, e))
            skipped += 1
            continue
        with open(base + ".gen.c") as f:
            text, sections = instrument(f.read(), rng, args.sections)
        if not text:
            skipped += 1
            print("seed %d: no statement range to lock" % seed)
            continue
        with open(base + ".c", "w") as f:
            f.write(text)
        rc, _, err = run([args.cc] + cflags + [base + ".c", "-o", base + ".orig"], 120)
        if rc != 0:
            skipped += 1
            print("seed %d: instrumented original does not compile (harness limit): %s"
                  % (seed, err.strip().splitlines()[:1]))
            continue
        rc_o, out_o, _ = run([base + ".orig"], args.timeout)
        if rc_o is None:
            skipped += 1
            print("seed %d: original runs too long; skipped" % seed)
            continue
        if rc_o < 0:
            # Killed by a signal: undefined behaviour the compiler exploited (e.g. an endless
            # loop without side effects compiled into a fall-through), nothing to compare.
            skipped += 1
            print("seed %d: original dies from signal %d; skipped" % (seed, -rc_o))
            continue
        tried += 1
        rc, out_rw, err = run([args.rewrite, "--all", "--report-json", base + ".json",
                               base + ".c", "--"] + cflags, 120)
        summary = re.search(r"summary: (\d+) converted, (\d+) refused", err)
        c, r = (int(summary.group(1)), int(summary.group(2))) if summary else (0, 0)
        converted += c
        refused += r
        if rc != 0:
            mismatches += 1
            print("seed %d: MISMATCH: rcl-rewrite failed: %s" % (seed, err.strip()[-500:]))
            continue
        with open(base + ".rcl.c", "w") as f:
            f.write(out_rw)
        rc, _, err = run([args.cc] + cflags + [base + ".rcl.c", "-o", base + ".rcl"] + libs, 120)
        if rc != 0:
            mismatches += 1
            print("seed %d: MISMATCH: rewritten program does not compile: %s"
                  % (seed, err.strip()[:800]))
            continue
        rc_r, out_r, _ = run([base + ".rcl"], args.timeout * 3)
        if (rc_r, out_r) != (rc_o, out_o):
            mismatches += 1
            print("seed %d: MISMATCH: exit %s vs %s, output %r vs %r"
                  % (seed, rc_o, rc_r, out_o.strip()[-80:], out_r.strip()[-80:]))
            continue
        print("seed %d: ok (%d lock pairs, %d converted, %d refused)" % (seed, sections, c, r))
    print("csmith-diff: %d programs tried, %d skipped, %d mismatches; %d sections converted, "
          "%d refused" % (tried, skipped, mismatches, converted, refused))
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
