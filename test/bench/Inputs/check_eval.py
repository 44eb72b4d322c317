#!/usr/bin/env python3
"""Checks the output folder of `bench/run.sh --quick` (test/bench/quick.test): files and
columns present, every lock ran in every set, the emulated-asymmetry columns filled exactly
where asymmetry was emulated, energy reported as RAPL joules only where RAPL is readable, no
failure. Never a timing assertion. Prints one line per check that passed; exits 1 on the first
that does not."""
import csv
import json
import os
import sys

out = sys.argv[1]
LOCKS = ["pthread", "tas", "ticket", "mcs", "clh", "mutexee", "ccsynch", "ffwd", "rcl",
         "rcl-local", "rcl-adaptive"]
ASYM = ["pthread", "tas", "mcs", "mutexee", "ccsynch", "ffwd", "rcl", "rcl-adaptive"]


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


# The plots need python3-matplotlib; without it the report must say so instead.
report = open(os.path.join(out, "report.md")).read()
plots = [] if "(matplotlib missing" in report else [
    "oversub_throughput.svg", "oversub_p99.svg", "oversub_cpu.svg", "contention.svg",
    "asymmetry.svg"]
for f in ["results.csv", "raw.csv", "probes.json", "machine.json", "stderr.log"] + plots:
    if not os.path.isfile(os.path.join(out, f)):
        fail("missing " + f)
print("files: present")

rows = list(csv.DictReader(open(os.path.join(out, "raw.csv"))))
need = ["set", "round", "lock", "threads", "delay_cycles", "cs_lines", "throughput_ops_s",
        "p50_ns", "p99_ns", "cpu_s", "wall_s", "cpu_s_per_mop", "joules_per_mop",
        "little_share", "big_p99_ns", "little_p99_ns"]
if not rows or list(rows[0].keys()) != need:
    fail("raw.csv columns: %s" % (list(rows[0].keys()) if rows else "no rows"))
print("columns: " + ",".join(need))

for s, locks in [("contention", LOCKS), ("oversub", LOCKS), ("asym-symmetric", ASYM),
                 ("asym-emulated", ASYM), ("asym-program-on-little", ASYM)]:
    mine = [r for r in rows if r["set"] == s]
    for t in sorted({r["threads"] for r in mine}, key=int):
        ran = {r["lock"] for r in mine if r["threads"] == t}
        if set(locks) - ran:
            fail("%s, %s threads: did not run %s" % (s, t, sorted(set(locks) - ran)))
    if not mine:
        fail("set %s did not run" % s)
    for r in mine:
        if float(r["throughput_ops_s"]) <= 0 or float(r["cpu_s_per_mop"]) <= 0:
            fail("%s %s: no operations" % (s, r["lock"]))
        emulated = r["little_share"] != ""
        if emulated != (s in ("asym-emulated", "asym-program-on-little")):
            fail("%s %s: little_share '%s'" % (s, r["lock"], r["little_share"]))
        if emulated and not 0 <= float(r["little_share"]) <= 1:
            fail("little_share out of range")
    print("%s: every lock ran (%s threads)"
          % (s, ",".join(sorted({r["threads"] for r in mine}, key=int))))
if max(int(r["threads"]) for r in rows if r["set"] == "oversub") < 16:
    fail("oversubscription did not reach 16 threads")

machine = json.load(open(os.path.join(out, "machine.json")))
for k in ["cpu_model", "cpus", "core_kinds", "numa_nodes", "kernel", "rapl"]:
    if k not in machine:
        fail("machine.json lacks " + k)
joules = any(r["joules_per_mop"] != "" for r in rows)
if joules != (machine["rapl"] == "readable"):
    fail("joules_per_mop present=%s but RAPL %s" % (joules, machine["rapl"]))
print("machine: recorded; energy columns consistent with RAPL")

probes = json.load(open(os.path.join(out, "probes.json")))
for k in ["server_cycles_per_request", "ffwd_server_cycles_per_request",
          "ccsynch_combiner_cycles_per_request", "pingpong_rtt_ns"]:
    if not isinstance(probes.get(k), (int, float)) or probes[k] <= 0:
        fail("probes.json: " + k)
print("probes: rcl, ffwd and ccsynch capacity measured")

log = open(os.path.join(out, "stderr.log")).read()
if "self-check failed" in log or any(l.startswith("rcl-bench-micro:") and l.endswith("failed")
                                    for l in log.splitlines()):
    fail("a configuration failed:\n" + log)
for phrase in ["## Machine", "EMULATED", "not energy", "## Reading of the research claims",
               "LibASL", "MUTEXEE", "CST", "Parallelism-aware", "FAILURES"]:
    if (phrase in report) != (phrase != "FAILURES"):
        fail("report.md: '%s' %s" % (phrase, "missing" if phrase != "FAILURES" else "present"))
for svg in plots:
    if "<svg" not in open(os.path.join(out, svg)).read(2000):
        fail(svg + " is not an SVG")
print("report: machine, emulated label, proxy label, readings, plots; no failure")
