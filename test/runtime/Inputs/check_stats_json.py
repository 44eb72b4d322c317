"""Print an RCL_STATS=json:FILE document (schema rcl-stats/1, docs/runtime.md) as checkable
lines: the header, each server's scheduler statistics (known or unknown), then each lock sorted
by name: name, identity, calls, first_site's function.
Fails (exit 1) on a document that is not JSON or misses a field the schema names."""
import json
import re
import sys

with open(sys.argv[1]) as f:
    doc = json.load(f)
SERVER_FIELDS = {"index", "cpu", "served", "parks", "servicing_threads", "condition_waits",
                 "detected_blocking", "pool_exhausted", "cancelled", "local_waits",
                 "run_by_caller", "timed", "timed_out", "ran_ns", "preempted_ns",
                 "involuntary_switches"}
LOCK_FIELDS = {"lock", "identity", "address", "first_site", "calls", "delegated_percent",
               "switches", "path", "last_reason", "local_ticks", "delegated_ticks"}
for s in doc["servers"]:
    missing = SERVER_FIELDS - set(s)
    if missing:
        sys.exit("server without %s" % sorted(missing))
print("schema %s, mode %s, %d server(s)" % (doc["schema"], doc["mode"], len(doc["servers"])))
for s in doc["servers"]:
    sched = [s["ran_ns"], s["preempted_ns"], s["involuntary_switches"]]
    if sched == [None, None, None]:
        print("server %d: time lost to preemption unknown" % s["index"])
    elif all(isinstance(x, int) and x >= 0 for x in sched):  # (0: its server had not run yet)
        print("server %d: ran and preempted times known" % s["index"])
    else:
        sys.exit("server %d: scheduler statistics %r" % (s["index"], sched))
for lock in sorted(doc["locks"], key=lambda l: l["lock"]):
    missing = LOCK_FIELDS - set(lock)
    if missing:
        sys.exit("lock %s without %s" % (lock.get("lock"), sorted(missing)))
    if not re.fullmatch(r"0x[0-9a-f]+", lock["address"]):
        sys.exit("lock %s: address %r" % (lock["lock"], lock["address"]))
    if lock["identity"] not in ("symbol", "site", "address"):
        sys.exit("lock %s: identity %r" % (lock["lock"], lock["identity"]))
    site = re.match(r"[^+]*\+0x", lock["first_site"])
    print("%s %s %d first_site %s" % (lock["lock"], lock["identity"], lock["calls"],
                                      site.group(0) if site else repr(lock["first_site"])))
