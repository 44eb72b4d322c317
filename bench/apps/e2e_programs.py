#!/usr/bin/env python3
"""The end-to-end programs' benchmarks (issue 24): each benchmark of a real program converted
with rcl-cc, run as the original build and as the converted build in RCL_MODE=delegate,
adaptive and local, interleaved (every round runs every variant of every benchmark, the
variants' order rotating from round to round), medians of the rounds.

    bench/apps/e2e_programs.py [--runs N] [--out DIR] [--only NAME[,NAME]]
        [--libuv ORIG_BUILD:RCL_BUILD] [--xz ORIG_TREE:RCL_TREE] [--librcl DIR] [--variants V,V] [--list]

The builds are those the e2e scripts and the corpus leave (defaults):
  libuv: /tmp/rcl-libuv/orig/build:/tmp/rcl-libuv/rcl/build (test/e2e/libuv.sh; benchmark
         runner uv_run_benchmarks_a): queue_work (jobs/s, libuv's thread pool through
         uv_queue_work) and fs_stat (wall time of its 1..32-concurrent uv_fs_stat rounds);
  xz:    /tmp/rcl-corpus/pkgs/xz-utils/orig:/tmp/rcl-corpus/pkgs/xz-utils/rcl (the corpus's
         trees; src/xz/xz): a -T4 compression and decompression round trip of a 24 MiB
         generated file (wall time; the output is checked against the input).
memcached under memaslap has its own script (bench/apps/memcached.sh), whose summary the
results page cites next to this one's.

A converted binary loads librcl from the build tree it was linked against (rcl-cc links the
shared runtime with a runpath), so a runtime rebuilt there is what it measures; --librcl DIR
(LD_LIBRARY_PATH, which a runpath gives way to) runs the converted variants with the librcl.so
of DIR instead, e.g. build/runtime.

Writes DIR/e2e.json (every run, the medians, the ratios) and DIR/e2e.md (the table: per
benchmark the median of each variant, each variant against the original, and adaptive against
the better of the original and delegate). Standard library only.
"""
import argparse
import hashlib
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from rcltools import machine  # noqa: E402

VARIANTS = ("original", "delegate", "adaptive", "local")


def log(msg):
    print("e2e-bench: " + msg, file=sys.stderr, flush=True)


def run_timed(cmd, env, cwd=None, timeout=600, stdin=None, stdout=subprocess.PIPE):
    t0 = time.monotonic()
    p = subprocess.run(cmd, env=env, cwd=cwd, stdin=stdin, stdout=stdout,
                       stderr=subprocess.STDOUT, timeout=timeout, text=stdout is not None and
                       stdout == subprocess.PIPE, errors="replace")
    return p, time.monotonic() - t0


class Bench:
    """One benchmark: name, unit, whether higher is better, and run(build) -> value."""

    def __init__(self, name, unit, higher, runner):
        self.name, self.unit, self.higher, self.runner = name, unit, higher, runner


def libuv_benches(orig, rcl):
    def runner(bench_name, metric):
        def run(variant, env):
            build = orig if variant == "original" else rcl
            exe = os.path.join(build, "uv_run_benchmarks_a")
            # The runner stops a benchmark after 60 s ("# timeout", exit 255): delegated,
            # fs_stat takes longer on 2 CPUs. Debian's rules raise it the same way.
            env = dict(env, UV_TEST_TIMEOUT_MULTIPLIER=env.get("UV_TEST_TIMEOUT_MULTIPLIER", "5"))
            p, wall = run_timed([exe, bench_name], env, cwd=build)
            if p.returncode != 0 or not re.search(r"^ok 1 ", p.stdout, re.M):
                raise RuntimeError("%s %s failed (exit %d): %s" % (
                    variant, bench_name, p.returncode, p.stdout[-400:]))
            return metric(p.stdout, wall)
        return run

    def jobs_per_s(out, wall):
        m = re.search(r"([\d,]+) async jobs in ([\d.]+) seconds", out)
        if not m:
            raise RuntimeError("no job count in: " + out[-300:])
        return int(m.group(1).replace(",", "")) / float(m.group(2))

    return [Bench("libuv queue_work", "jobs/s", True, runner("queue_work", jobs_per_s)),
            Bench("libuv fs_stat", "s", False, runner("fs_stat", lambda out, wall: wall))]


def xz_benches(orig, rcl, workdir):
    data = os.path.join(workdir, "xz-input.bin")
    if not os.path.exists(data):
        # Compressible but not trivial: 24 MiB of words drawn from a fixed seed.
        words = [("w%05d " % i).encode() for i in range(4096)]
        state = 12345
        with open(data + ".tmp", "wb") as f:
            size = 0
            while size < 24 << 20:
                chunk = []
                for _ in range(4096):
                    state = (state * 1103515245 + 12345) & 0x7FFFFFFF
                    chunk.append(words[state % len(words)])
                b = b"".join(chunk)
                f.write(b)
                size += len(b)
        os.rename(data + ".tmp", data)
    with open(data, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()

    def run(variant, env):
        tree = orig if variant == "original" else rcl
        xz = os.path.join(tree, "src", "xz", "xz")
        packed = os.path.join(workdir, "xz-%s.xz" % variant)
        t0 = time.monotonic()
        with open(data, "rb") as src, open(packed, "wb") as dst:
            c = subprocess.run([xz, "-T4", "-6", "-c"], env=env, stdin=src, stdout=dst)
        with open(packed, "rb") as src:
            d = subprocess.run([xz, "-T4", "-d", "-c"], env=env, stdin=src,
                               stdout=subprocess.PIPE)
        wall = time.monotonic() - t0
        if c.returncode or d.returncode or hashlib.sha256(d.stdout).hexdigest() != digest:
            raise RuntimeError("%s: xz round trip failed or differs" % variant)
        return wall

    return [Bench("xz -T4 round trip (24 MiB)", "s", False, run)]


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--out", default="out/e2e-programs")
    ap.add_argument("--only", default="")
    ap.add_argument("--libuv", default="/tmp/rcl-libuv/orig/build:/tmp/rcl-libuv/rcl/build")
    ap.add_argument("--xz", default="/tmp/rcl-corpus/pkgs/xz-utils/orig:"
                                    "/tmp/rcl-corpus/pkgs/xz-utils/rcl")
    ap.add_argument("--librcl", metavar="DIR", help="the converted variants load librcl.so "
                    "from DIR (LD_LIBRARY_PATH)")
    ap.add_argument("--variants", default=",".join(VARIANTS),
                    help="the variants to run, comma-separated (default: all four)")
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    # The xz input and outputs (24 MiB and more) go to a scratch folder, not next to the results.
    scratch = os.path.join(tempfile.gettempdir(), "rcl-e2e-bench")
    os.makedirs(scratch, exist_ok=True)
    benches = libuv_benches(*args.libuv.split(":", 1)) + \
        xz_benches(*args.xz.split(":", 1), scratch)
    if args.list:
        for b in benches:
            print("%s (%s, %s is better)" % (b.name, b.unit, "higher" if b.higher else "lower"))
        return 0
    if args.only:
        wanted = [w.strip() for w in args.only.split(",")]
        benches = [b for b in benches if any(w in b.name for w in wanted)]
    chosen = tuple(v for v in VARIANTS if v in args.variants.split(","))
    runs = []
    for r in range(args.runs):
        for b in benches:
            order = chosen[r % len(chosen):] + chosen[:r % len(chosen)]
            for v in order:
                env = dict(os.environ)
                env.pop("RCL_MODE", None)
                if v != "original":
                    env["RCL_MODE"] = v
                    if args.librcl:
                        env["LD_LIBRARY_PATH"] = os.path.abspath(args.librcl)
                try:
                    value = b.runner(v, env)
                except (RuntimeError, OSError, subprocess.TimeoutExpired) as e:
                    log("round %d, %s, %s: %s" % (r + 1, b.name, v, e))
                    runs.append({"round": r + 1, "bench": b.name, "variant": v, "error": str(e)})
                    continue
                log("round %d/%d, %s, %s: %.6g %s" % (r + 1, args.runs, b.name, v, value, b.unit))
                runs.append({"round": r + 1, "bench": b.name, "variant": v, "value": value})
    results = []
    for b in benches:
        med, spread = {}, {}
        for v in VARIANTS:
            vals = [x["value"] for x in runs if x["bench"] == b.name and x["variant"] == v
                    and "value" in x]
            if vals:
                med[v] = statistics.median(vals)
                spread[v] = [min(vals), max(vals), len(vals)]

        def speed(v):  # higher is better, relative to the original
            if v not in med or "original" not in med:
                return None
            return med[v] / med["original"] if b.higher else med["original"] / med[v]
        rel = {v: speed(v) for v in VARIANTS}
        best = max((x for x in (1.0, rel.get("delegate")) if x is not None), default=None)
        vs_best = rel["adaptive"] / best if rel.get("adaptive") and best else None
        results.append({"bench": b.name, "unit": b.unit, "higher_is_better": b.higher,
                        "median": med, "min_max_n": spread, "speed_vs_original": rel,
                        "adaptive_vs_best_of_original_and_delegate": vs_best})
    doc = {"schema": "rcl-e2e-bench/1", "machine": machine.describe(), "runs": args.runs,
           "command": "bench/apps/e2e_programs.py " + " ".join(argv), "results": results,
           "every_run": runs}
    with open(os.path.join(args.out, "e2e.json"), "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")
    md = ["| benchmark | original | delegate | adaptive | local | adaptive vs best of "
          "original and delegate |", "|---|--:|--:|--:|--:|--:|"]
    for res in results:
        cells = []
        for v in VARIANTS:
            if v not in res["median"]:
                cells.append("failed")
                continue
            value = res["median"][v]
            cell = ("%.0f %s" if value >= 100 else "%.3g %s") % (value, res["unit"])
            if v != "original" and res["speed_vs_original"].get(v):
                cell += " (%.2fx)" % res["speed_vs_original"][v]
            cells.append(cell)
        vb = res["adaptive_vs_best_of_original_and_delegate"]
        md.append("| %s | %s | %s |" % (res["bench"], " | ".join(cells),
                                        "%.2fx" % vb if vb else "-"))
    text = "\n".join(md) + "\n"
    with open(os.path.join(args.out, "e2e.md"), "w") as f:
        f.write(text)
    print(text, end="")
    return 1 if any("error" in x for x in runs) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
