#!/usr/bin/env python3
"""sampled_check.py PROFILE_JSON EVERY: checks sampled_counts.c's profile (see there). EVERY 1:
exact counts, and the profile says nothing of sampling. Prints what is wrong and exits 1."""
import json
import sys

WORKERS, ITERS = 4, 200000


def main():
    p = json.load(open(sys.argv[1]))
    every = int(sys.argv[2])
    locks = {l["name"]: l for l in p["locks"]}
    bad = []
    if p.get("count_every", 1) != every:
        bad.append("count_every %r, expected %d" % (p.get("count_every"), every))
    hot = locks["hot"]
    truth = {"site_a": WORKERS * ITERS // 4, "site_b": WORKERS * ITERS * 3 // 4}
    sites = {s.get("function"): s["count"] for s in hot["sites"]}
    tolerance = 0.05 if every > 1 else 0.0
    for fn, n in truth.items():
        got = sites.get(fn)
        if got is None or abs(got - n) > tolerance * n:
            bad.append("hot at %s: %r, expected %d (within %g %%)" % (fn, got, n, 100 * tolerance))
    total = WORKERS * ITERS
    if abs(hot["acquisitions"] - total) > tolerance * total:
        bad.append("hot acquisitions %d, expected %d (within %g %%)" % (
            hot["acquisitions"], total, 100 * tolerance))
    # A recorded call stands for the calls passed on before it, of any lock: each thread's sum
    # over all locks is exact up to its last recorded call.
    everything = total + 2 * ((ITERS + 63) // 64) + ((ITERS + 999) // 1000 + 50)
    got = sum(l["acquisitions"] for l in p["locks"])
    if got > everything or got < everything - (WORKERS + 1) * 2 * every:
        bad.append("all acquisitions %d, expected %d (at most, less by the calls after each "
                   "thread's last recorded one)" % (got, everything))
    if not hot["hold_ns"]["total"] > 0 or not hot["hold_ns"]["avg"] > 0:
        bad.append("hot hold time %r: the recorded sections are timed" % hot["hold_ns"])
    rec = locks["rec"]
    if rec["contended"] != 0:
        bad.append("rec contended %d: its holder locking it again is not contention" %
                   rec["contended"])
    if rec["hold_ns"]["avg"] < 4000:
        bad.append("rec hold avg %r ns: the hold ends at the outer release, 5 us after the inner "
                   "one" % rec["hold_ns"]["avg"])
    rec_truth = 2 * ((ITERS + 63) // 64)
    if abs(rec["acquisitions"] - rec_truth) > max(0.25 * rec_truth, every) if every > 1 \
            else rec["acquisitions"] != rec_truth:
        bad.append("rec acquisitions %d, expected about %d" % (rec["acquisitions"], rec_truth))
    for b in bad:
        print("sampled_check: " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
