#!/usr/bin/env python3
"""Print a profile.json as stable lines for FileCheck (one behaviour per test reads them).

  locks <n> untracked=<n> threads=<n> ended_by=<how> exit=<status> [total=<n> if omitted]
  lock <rank> <name> identity=<symbol|site> acq=<n> contended=<n> tryfail=<n> timeouts=<n>
       delegated=<n> advice=<...> misses=<n/a|number>      (one line)
  site <lock name> <file basename>:<line> <kind> <count>   (sorted by lock rank, then line)
  kinds <lock name> <kind>=<ns>>0 ...                      (only with core kinds)
  sum shared acq=<n> private acq=<n> private-locks=<n>     (stress_exact_counts.c: totals over
                                                            locks named shared*, and over those
                                                            named after its init site)
  task-clock <lock name> in-range|out-of-range <ns>        (RCL_PROF_COUNTER_EVENT=task-clock:
                                                            150-400 us per CS, for counter_path.c)

--self FILE: FILE has lines "cs <lock name> <percent>", the program's own measurement of its
% time in critical sections. Prints "cs-check <name> ok" when the profile's cs_percent is within
max(30 % of it, 3 points), else "cs-check <name> BAD profile=<x> self=<y>".
"""
import json
import os
import sys


def main():
    args = sys.argv[1:]
    self_file = None
    if "--self" in args:
        i = args.index("--self")
        self_file = args[i + 1]
        del args[i:i + 2]
    with open(args[0]) as f:
        p = json.load(f)
    total = p.get("locks_total", len(p["locks"]))
    print("locks %d untracked=%d threads=%d ended_by=%s exit=%s%s" % (
        len(p["locks"]), p.get("untracked_locks", 0), p.get("threads", 0), p.get("ended_by"),
        p.get("exit_status"), " total=%d" % total if total != len(p["locks"]) else ""))
    for rank, l in enumerate(p["locks"], 1):
        misses = "n/a" if l["cache_misses_per_cs"] is None else "%g" % l["cache_misses_per_cs"]
        print("lock %d %s identity=%s acq=%d contended=%d tryfail=%d timeouts=%d delegated=%d "
              "advice=%s misses=%s" % (rank, l["name"], l["identity"], l["acquisitions"],
                                       l["contended"], l["trylock_failures"], l["timeouts"],
                                       l["delegated"], l["recommendation"], misses))
    for l in p["locks"]:
        for s in sorted(l["sites"], key=lambda s: (s["line"], s["kind"])):
            where = "%s:%d" % (os.path.basename(s["file"]), s["line"]) if s["file"] else "?:0"
            print("site %s %s %s %d" % (l["name"], where, s["kind"], s["count"]))
        if l.get("task_clock_ns_per_cs") is not None:
            v = l["task_clock_ns_per_cs"]
            print("task-clock %s %s" % (l["name"], "in-range" if 150000 <= v <= 400000 else
                                        "out-of-range %g" % v))
        if "hold_ns_by_core_kind" in l:
            print("kinds %s %s" % (l["name"], " ".join(
                "%s=%s" % (k, ">0" if v > 0 else "0") for k, v in l["hold_ns_by_core_kind"].items())))
    shared = [l for l in p["locks"] if l["name"].startswith("shared")]
    private = [l for l in p["locks"] if "stress_exact_counts.c" in l["name"]]
    if shared or private:
        print("sum shared acq=%d private acq=%d private-locks=%d" % (
            sum(l["acquisitions"] for l in shared), sum(l["acquisitions"] for l in private),
            len(private)))
    if self_file:
        by_name = {l["name"]: l for l in p["locks"]}
        with open(self_file) as f:
            for line in f:
                parts = line.split()
                if len(parts) != 3 or parts[0] != "cs":
                    continue
                name, want = parts[1], float(parts[2])
                got = by_name[name]["cs_percent"] if name in by_name else -1.0
                ok = abs(got - want) <= max(0.3 * want, 3.0)
                print("cs-check %s %s" % (name, "ok" if ok else
                                          "BAD profile=%.2f self=%.2f" % (got, want)))


if __name__ == "__main__":
    main()
