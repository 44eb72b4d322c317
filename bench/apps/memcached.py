#!/usr/bin/env python3
"""Helpers of bench/apps/memcached.sh (Python 3, standard library only).

  memcached.py load    --port P [load options] [--out FILE] -- SERVER_CMD...
      start SERVER_CMD, wait until it answers, run memaslap against it, stop it with SIGTERM
      (used for the profiling run: SERVER_CMD is rcl-prof ... -- memcached ...)
  memcached.py select  --profile profile.json --src DIR --rewrite RCL_REWRITE --top N --out selected.txt
      choose the locks to convert (the profile's "convert" advice, else the N hottest locks
      by % time in CS that the rewriter can convert; rcl-rewrite --print-selection applies the
      policy and names each lock's group) and write their groups, comma-separated, for
      RCL_CC_PROFILE_LOCK
  memcached.py bench   --variant NAME=BINARY[,VAR=VALUE...] ... --threads 1,2,4 --runs R
                       [load options] --csv FILE --json FILE
      every (run, threads, variant) in interleaved order, a fresh server each time
  memcached.py summary --csv FILE [--md FILE]
      medians per (variant, threads) as a Markdown table
"""
import argparse
import csv
import json
import os
import re
import resource
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from rcltools import machine  # noqa: E402  (the shared modules: python/rcltools)

CLK_TCK = os.sysconf("SC_CLK_TCK")


def log(msg):
    print("memcached-bench: " + msg, flush=True)


# ---------------------------------------------------------------- load generator

def memaslap_cmd(args, port):
    return [args.memaslap, "-s", "127.0.0.1:%d" % port, "-t", "%ds" % args.seconds,
            "-T", str(args.load_threads), "-c", str(args.concurrency),
            "-S", "%ds" % args.seconds]


def parse_memaslap(text):
    """Throughput and the latency of every operation (µs) from memaslap's final report."""
    out = {}
    m = re.search(r"Run time: ([\d.]+)s Ops: (\d+) TPS: (\d+)", text)
    if not m:
        return None
    out["ops"] = int(m.group(2))
    out["throughput_ops_s"] = int(m.group(3))
    # The last "Total Statistics (N events)" block is the cumulative one.
    blocks = re.findall(r"Total Statistics \((\d+) events\)\n(.*?)(?:\n\n|\Z)", text, re.S)
    if blocks:
        body = blocks[-1][1]
        for key in ("Min", "Max", "Avg", "Geo", "Std"):
            mm = re.search(r"%s:\s+([\d.]+)" % key, body)
            if mm:
                out["lat_%s_us" % key.lower()] = float(mm.group(1))
        # Log2 Dist rows "k: n_k n_k+1 n_k+2 n_k+3"; bucket k holds latencies in
        # [2^(k-1), 2^k) µs (a 13 µs minimum lands in bucket 4), so a percentile is
        # reported as the bucket's upper bound.
        hist = {}
        for row in re.findall(r"^\s+(\d+):((?:\s+\d+)+)\s*$", body, re.M):
            base = int(row[0])
            for i, n in enumerate(row[1].split()):
                hist[base + i] = int(n)
        total = sum(hist.values())
        for name, q in (("p50", 0.50), ("p99", 0.99)):
            acc = 0
            for k in sorted(hist):
                acc += hist[k]
                if total and acc >= q * total:
                    out["lat_%s_us_le" % name] = 2 ** k
                    break
    return out


def wait_ready(port, proc, timeout=20.0):
    end = time.time() + timeout
    while time.time() < end:
        if proc.poll() is not None:
            return False
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
                s.sendall(b"version\r\n")
                if s.recv(64).startswith(b"VERSION"):
                    return True
        except OSError:
            pass
        time.sleep(0.1)
    return False


def proc_cpu(pid):
    """(process CPU seconds, CPU seconds of its rcl-server-* threads)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        total = (int(fields[11]) + int(fields[12])) / CLK_TCK
    except OSError:
        return None, None
    server = 0.0
    try:
        for tid in os.listdir("/proc/%d/task" % pid):
            try:
                with open("/proc/%d/task/%s/comm" % (pid, tid)) as f:
                    if not f.read().startswith("rcl-server"):
                        continue
                with open("/proc/%d/task/%s/stat" % (pid, tid)) as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                server += (int(fields[11]) + int(fields[12])) / CLK_TCK
            except OSError:
                pass
    except OSError:
        pass
    return total, server


def machine_cpu():
    with open("/proc/stat") as f:
        vals = [int(x) for x in f.readline().split()[1:]]
    idle = vals[3] + vals[4]
    return sum(vals), idle


def run_one(args, server_cmd, env, port, measure=True):
    """Start the server, load it for args.seconds, stop it. Returns a dict of results."""
    penv = dict(os.environ)
    penv.update(env)
    server_log = tempfile.TemporaryFile()
    proc = subprocess.Popen(server_cmd, env=penv, stdout=server_log, stderr=subprocess.STDOUT)
    res = {}
    try:
        if not wait_ready(port, proc):
            server_log.seek(0)
            res["error"] = "server did not start: " + server_log.read().decode(errors="replace")[-300:]
            return res
        cpu0, srv0 = proc_cpu(proc.pid) if measure else (None, None)
        m0 = machine_cpu()
        ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.monotonic()
        load = subprocess.run(memaslap_cmd(args, port), stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
        wall = time.monotonic() - t0
        ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        m1 = machine_cpu()
        cpu1, srv1 = proc_cpu(proc.pid) if measure else (None, None)
        parsed = parse_memaslap(load.stdout)
        if parsed is None:
            res["error"] = "memaslap: " + load.stdout[-300:].replace("\n", " ")
            return res
        res.update(parsed)
        res["wall_s"] = round(wall, 3)
        if cpu0 is not None and cpu1 is not None:
            res["server_cpu_s"] = round(cpu1 - cpu0, 2)
            res["rcl_server_thread_cpu_s"] = round(srv1 - srv0, 2)
            res["server_cpu_us_per_op"] = round((cpu1 - cpu0) * 1e6 / max(1, parsed["ops"]), 2)
        res["client_cpu_s"] = round((ru1.ru_utime + ru1.ru_stime) - (ru0.ru_utime + ru0.ru_stime), 2)
        total, idle = m1[0] - m0[0], m1[1] - m0[1]
        res["machine_busy_cpus"] = round((total - idle) / max(1, total) * os.cpu_count(), 2)
        res["memaslap_output"] = load.stdout
        return res
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
                res.setdefault("error", "server ignored SIGTERM for 30 s")
        res["server_exit"] = proc.returncode


def add_load_options(p):
    p.add_argument("--memaslap", default="memcaslap")
    p.add_argument("--seconds", type=int, default=10)
    p.add_argument("--load-threads", type=int, default=2)
    p.add_argument("--concurrency", type=int, default=64)
    p.add_argument("--port", type=int, default=21311)


def cmd_load(args):
    res = run_one(args, args.server, {}, args.port, measure=False)
    if args.out:
        with open(args.out, "w") as f:
            f.write(res.get("memaslap_output", ""))
    if "error" in res:
        log("load: " + res["error"])
        return 1
    log("load: %d ops/s, avg latency %.0f us" % (res["throughput_ops_s"], res.get("lat_avg_us", 0)))
    return 0


# ---------------------------------------------------------------- selection

def selection(args, *options):
    """What rcl-rewrite, the one home of the selection policy, selects from the profile with
    these rule options: its locks, each with its group (lru_locks+64 -> lru_locks) and share
    of thread time in critical sections (cs_share)."""
    res = subprocess.run([args.rewrite, "--print-selection", "--profile", args.profile] +
                         list(options), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if res.returncode != 0:
        raise SystemExit("memcached-bench: rcl-rewrite --print-selection failed: " + res.stderr.strip())
    return json.loads(res.stdout)["locks"]


def cmd_select(args):
    with open(args.profile) as f:
        prof = json.load(f)
    candidates = selection(args, "--profile-lock=*")
    sites_of = lambda lock: [(os.path.basename(s["file"]), s["line"]) for s in lock["sites"] if s.get("file")]

    # Which sections at the profiled sites the rewriter converts: one dry run over the sources
    # with every profiled lock selected.
    srcs = sorted(f for f in os.listdir(args.src)
                  if f.endswith(".c") and os.path.exists(os.path.join(args.src, "memcached-" + f[:-2] + ".o")))
    with tempfile.TemporaryDirectory() as tmp:
        rep = os.path.join(tmp, "report.json")
        dry = subprocess.run([args.rewrite, "--dry-run", "--quiet", "--profile", args.profile,
                              "--profile-lock=*", "--report-json", rep]
                             + srcs + ["--", "-DHAVE_CONFIG_H", "-I.", "-DNDEBUG", "-std=gnu11"],
                             cwd=args.src, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if dry.returncode != 0:
            log("select: rcl-rewrite --dry-run failed (exit status %d): %s" % (dry.returncode, dry.stderr.strip()))
            return 2
        status = {}
        with open(rep) as f:
            for lock in json.load(f).get("locks", []):
                for s in lock["sections"]:
                    status[(os.path.basename(s["file"]), s["line"])] = (s["status"], s.get("reason", ""))

    # The mutexes of one lock expression (elements of an array, per-thread copies) form a group
    # (rcl-rewrite names it). A group's convertible share: its share of thread time in CS times
    # the share of its acquisitions made at sites whose section converts (the profile has
    # counts per site, holds per lock).
    groups = {}
    for lock in candidates:
        g = groups.setdefault(lock["group"], {"cs_percent": 0.0, "acquisitions": 0, "locks": [],
                                              "sites": set(), "conv_cs_percent": 0.0})
        g["cs_percent"] += lock["cs_share"]
        g["acquisitions"] += lock.get("acquisitions", 0)
        g["locks"].append(lock)
        g["sites"].update(sites_of(lock))
        conv = sum(s["count"] for s in lock["sites"] if s.get("file") and
                   status.get((os.path.basename(s["file"]), s["line"]), ("",))[0] == "converted")
        g["conv_cs_percent"] += lock["cs_share"] * conv / max(1, lock.get("acquisitions", 0))
    ranked = sorted(groups.items(), key=lambda kv: -kv[1]["cs_percent"])

    recommended = {lock["group"] for lock in selection(args)}
    lines = []
    if recommended:
        how = "profile"
        chosen = [name for name, _ in ranked if name in recommended]
        lines.append("the profile recommends converting %d lock(s): %s" % (len(chosen), ", ".join(chosen)))
    else:
        how = "top-%d" % args.top
        lines.append("the profile recommends no lock (highest %%CS %.3f %%, convert threshold %.1f %%): "
                     "converting the %d locks with the most %% time in CS whose sections the rewriter converts"
                     % (ranked[0][1]["cs_percent"] if ranked else 0, prof["thresholds"]["convert_cs_percent"], args.top))
        # Ranked by the % time in CS the conversion moves to the server; hotter locks whose
        # hot sections are refused are named with the reasons.
        movable = sorted(groups.items(), key=lambda kv: -kv[1]["conv_cs_percent"])
        chosen = [name for name, g in movable if g["conv_cs_percent"] > 0][:args.top]
        cut = min((groups[n]["conv_cs_percent"] for n in chosen), default=0)
        for name, g in ranked:
            if name in chosen or g["cs_percent"] < cut:
                continue
            why = sorted({status[s][1] for s in g["sites"] if s in status and status[s][0] == "refused"}
                         or {"no section at its sites"})
            lines.append("  not chosen: %s (%.5f %%CS, %.5f convertible): %s"
                         % (name, g["cs_percent"], g["conv_cs_percent"], "; ".join(why)))
    table = []
    for name in chosen:
        g = groups[name]
        conv = sorted(s for s in g["sites"] if status.get(s, ("",))[0] == "converted")
        refused = sorted(s for s in g["sites"] if status.get(s, ("",))[0] == "refused")
        lines.append("  convert %s: %.5f %%CS (%.5f at converted sites), %d acquisitions, %d mutexes; "
                     "sections converted at %s%s"
                     % (name, g["cs_percent"], g["conv_cs_percent"], g["acquisitions"], len(g["locks"]),
                        ", ".join("%s:%d" % s for s in conv) or "-",
                        ("; refused at " + ", ".join("%s:%d" % s for s in refused)) if refused else ""))
        table.append({"lock": name, "cs_percent": round(g["cs_percent"], 5),
                      "converted_cs_percent": round(g["conv_cs_percent"], 5), "acquisitions": g["acquisitions"],
                      "mutexes": len(g["locks"]), "converted_sites": ["%s:%d" % s for s in conv],
                      "refused_sites": ["%s:%d" % s for s in refused]})

    # What rcl-cc is given: the groups, for RCL_CC_PROFILE_LOCK (rcl-rewrite --profile-lock).
    with open(args.out, "w") as f:
        f.write(",".join(chosen) + "\n")
    with open(os.path.splitext(args.out)[0] + "-summary.json", "w") as f:
        json.dump({"selected_by": how, "locks": table}, f, indent=1)
    for line in lines:
        log(line)
    return 0 if chosen else 1


# ---------------------------------------------------------------- benchmark

FIELDS = ["variant", "threads", "run", "throughput_ops_s", "ops", "lat_avg_us", "lat_geo_us",
          "lat_std_us", "lat_min_us", "lat_max_us", "lat_p50_us_le", "lat_p99_us_le",
          "server_cpu_s", "rcl_server_thread_cpu_s", "server_cpu_us_per_op", "client_cpu_s",
          "machine_busy_cpus", "loadavg_1min_before", "wall_s", "server_exit", "error"]


def cmd_bench(args):
    variants = []
    for v in args.variant:
        name, rest = v.split("=", 1)
        parts = rest.split(",")
        env = dict(p.split("=", 1) for p in parts[1:])
        variants.append((name, parts[0], env))
    threads = [int(t) for t in args.threads.replace(",", " ").split()]
    plan = [(r, t, v) for r in range(1, args.runs + 1) for t in threads for v in variants]
    rows = []
    logdir = os.path.join(os.path.dirname(os.path.abspath(args.csv)), "memaslap")
    os.makedirs(logdir, exist_ok=True)
    for i, (r, t, (name, binary, env)) in enumerate(plan, 1):
        cmd = [binary, "-u", "root", "-p", str(args.port), "-U", "0", "-l", "127.0.0.1",
               "-m", str(args.memory_mb), "-t", str(t)]
        with open("/proc/loadavg") as f:
            load1 = float(f.read().split()[0])
        res = run_one(args, cmd, env, args.port)
        res["loadavg_1min_before"] = load1
        out = res.pop("memaslap_output", "")
        with open(os.path.join(logdir, "%s-t%d-run%d.txt" % (name, t, r)), "w") as f:
            f.write(out)
        row = {"variant": name, "threads": t, "run": r}
        row.update(res)
        rows.append(row)
        if "error" in res and "throughput_ops_s" not in res:
            log("[%d/%d] %s -t %d run %d: FAILED: %s" % (i, len(plan), name, t, r, res["error"]))
        else:
            log("[%d/%d] %s -t %d run %d: %d ops/s, avg %.0f us, server CPU %.1f s (rcl server thread %.1f s)"
                % (i, len(plan), name, t, r, res["throughput_ops_s"], res.get("lat_avg_us", 0),
                   res.get("server_cpu_s", 0), res.get("rcl_server_thread_cpu_s", 0)))
        with open(args.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=FIELDS, extrasaction="ignore")
            w.writeheader()
            for x in rows:
                w.writerow(x)
    with open(args.json, "w") as f:
        json.dump({"machine": machine.describe(),
                   "load": {"generator": args.memaslap, "seconds": args.seconds,
                            "load_threads": args.load_threads, "concurrency": args.concurrency,
                            "mix": "memaslap default: 90% get / 10% set, 64-byte keys, 1024-byte values"},
                   "variants": [{"name": n, "binary": b, "env": e} for n, b, e in variants],
                   "runs": rows}, f, indent=1)
    return 0 if all("throughput_ops_s" in x for x in rows) else 1


def cmd_summary(args):
    with open(args.csv) as f:
        rows = [r for r in csv.DictReader(f) if r["throughput_ops_s"]]
    keys = []
    for r in rows:
        k = (r["variant"], int(r["threads"]))
        if k not in keys:
            keys.append(k)
    keys.sort(key=lambda k: (k[1], [r["variant"] for r in rows].index(k[0])))
    med = lambda xs: statistics.median(xs) if xs else float("nan")
    out = ["| memcached -t | variant | runs | ops/s median (min–max) | vs original | latency avg µs | "
           "geo mean µs | p50 ≤ µs | p99 ≤ µs | server CPU s | of which RCL server threads | "
           "server CPU µs/op | memaslap CPU s |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    base = {}
    for v, t in keys:
        sel = [r for r in rows if r["variant"] == v and int(r["threads"]) == t]
        if v == "original":
            base[t] = med([float(r["throughput_ops_s"]) for r in sel])
    for v, t in keys:
        sel = [r for r in rows if r["variant"] == v and int(r["threads"]) == t]
        g = lambda key: [float(r[key]) for r in sel if r.get(key) not in (None, "")]
        tp = g("throughput_ops_s")
        ratio = ("%.2f ×" % (med(tp) / base[t])) if base.get(t) else "-"
        pct = lambda key: "%d" % med(g(key)) if g(key) else "-"
        out.append("| %d | %s | %d | %d (%d–%d) | %s | %.0f | %.0f | %s | %s | %.1f | %.1f | %.1f | %.1f |" % (
            t, v, len(sel), med(tp), min(tp), max(tp), ratio, med(g("lat_avg_us")), med(g("lat_geo_us")),
            pct("lat_p50_us_le"), pct("lat_p99_us_le"), med(g("server_cpu_s")),
            med(g("rcl_server_thread_cpu_s")), med(g("server_cpu_us_per_op")), med(g("client_cpu_s"))))
    text = "\n".join(out) + "\n"
    sys.stdout.write(text)
    if args.md:
        with open(args.md, "w") as f:
            f.write(text)
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("load")
    add_load_options(p)
    p.add_argument("--out")
    p.add_argument("server", nargs=argparse.REMAINDER)
    p = sub.add_parser("select")
    p.add_argument("--profile", required=True)
    p.add_argument("--src", required=True)
    p.add_argument("--rewrite", required=True)
    p.add_argument("--top", type=int, default=3)
    p.add_argument("--out", required=True)
    p = sub.add_parser("bench")
    add_load_options(p)
    p.add_argument("--variant", action="append", required=True)
    p.add_argument("--threads", default="1,2,4")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--memory-mb", type=int, default=1024)
    p.add_argument("--csv", required=True)
    p.add_argument("--json", required=True)
    p = sub.add_parser("summary")
    p.add_argument("--csv", required=True)
    p.add_argument("--md")
    args = ap.parse_args()
    if getattr(args, "server", None) and args.server[0] == "--":
        args.server = args.server[1:]
    return {"load": cmd_load, "select": cmd_select, "bench": cmd_bench, "summary": cmd_summary}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
