#!/usr/bin/env python3
"""How fast adaptive mode leaves a server whose CPU becomes contended (docs/benchmarks.md,
"bench/preempt_reaction.py").

A lock that delegates because delegation wins (emulated asymmetry: the program's threads
confined to CPU 0, declared little and --slowdown times slower; the server on CPU 1), then, a
second into the run, --hogs CPU-bound processes pinned to the server's CPU at the program's
niceness. The run's RCL_ADAPTIVE_LOG says when the lock went back to local, and why; the hogs
are killed when the run ends. Per run: whether the lock delegated when the hogs came, the time
from their start to the decision that took it home (and its reason), and the time from there
to the first trial of the server again.

  bench/preempt_reaction.py [--build DIR] [--runs N] [--hogs K] [--slowdown K] [--seconds S]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

LINE = re.compile(r"([\d.]+) ms lock \d+ (\S+) .* preempted (\d+) .* -> (\S+) \((.*)\)")


def one_run(a, log):
    cmd = [os.path.join(a.build, "bench", "rcl-bench-micro"), "--no-header", "--locks",
           "rcl-adaptive", "--little", "0", "--clients-on", "0", "--slowdown", str(a.slowdown),
           "--cs-cycles", "4000", "--lines", "5", "--delay", "100", "--threads", "4",
           "--seconds", str(a.seconds)]
    env = dict(os.environ, RCL_ADAPTIVE_LOG=log)
    bench = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
    hogs = []
    try:
        time.sleep(1.0)
        start = time.monotonic_ns()
        for _ in range(a.hogs):
            hogs.append(subprocess.Popen(["taskset", "-c", "1", "sh", "-c", "while :; do :; done"]))
        out, err = bench.communicate()
    finally:
        for h in hogs:
            h.kill()
        for h in hogs:
            h.wait()
    if bench.returncode != 0:
        sys.exit("bench/preempt_reaction.py: rcl-bench-micro failed: " + err.strip())
    with open(log) as f:
        lines = f.read().splitlines()
    t0 = int(re.match(r"# t0 (\d+) ns", lines[0]).group(1))
    hog_ms = (start - t0) / 1e6
    path_at_hogs, back, back_why, again = "local", None, "", None
    for line in lines[1:]:
        m = LINE.match(line)
        if not m:
            continue
        t, after, why = float(m.group(1)), m.group(4), m.group(5)
        if t < hog_ms:
            path_at_hogs = "delegate" if after.startswith("delegate") else "local"
        elif back is None and path_at_hogs == "delegate" and after == "local":
            back, back_why = t - hog_ms, why  # (an exploration of local is not a way back)
        elif back is not None and again is None and after.startswith("delegate"):
            again = t - hog_ms - back
    if a.show:
        print("\n".join(l for l in lines[1:] if LINE.match(l) and
                        -100 < float(LINE.match(l).group(1)) - hog_ms < 600))
    return path_at_hogs, back, back_why, again, out.split(",")[4] if out else "?"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--hogs", type=int, default=2)
    ap.add_argument("--slowdown", type=int, default=4)
    ap.add_argument("--seconds", type=float, default=2.5)
    ap.add_argument("--show", action="store_true", help="print the log around the hogs' start")
    a = ap.parse_args()
    print("| run | path when the hogs came | back to local after | reason | next trial of the "
          "server after | ops/s |")
    print("|---:|---|---:|---|---:|---:|")
    with tempfile.TemporaryDirectory() as d:
        for run in range(a.runs):
            r = one_run(a, os.path.join(d, "log%d" % run))
            print("| %d | %s | %s | %s | %s | %s |" % (
                run + 1, r[0], "%.0f ms" % r[1] if r[1] is not None else "-", r[2] or "-",
                "%.0f ms" % r[3] if r[3] is not None else "-", r[4]), flush=True)


if __name__ == "__main__":
    main()
