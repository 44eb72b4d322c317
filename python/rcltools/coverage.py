"""The rewriter's coverage weighted by the profile (docs/rewriter.md, "Coverage"): for each
chosen lock, the share of its profiled acquisitions whose call sites are converted sections.

rcl-rewrite computes it for the files it reads (its report's "coverage"); a build made with
rcl-cc reads one file per run, so each unit's report sees the sites of the other files as
"not-read". merge() makes the build's figure from the units' reports, and lines() prints
either.
"""
import os

# Of the statuses the units give one unconverted site, the one that says most about it.
_RANK = {"not-read": 0, "not-found": 1, "not-compiled": 2, "refused": 3, "trylock": 4,
         "timedlock": 4}


def merge(units):
    """One coverage (a report's "coverage" list) from those of several units of one build,
    each made from the same profile. A site is converted when some unit converted it (it is
    missing from that unit's unconverted sites); otherwise its most telling status stands
    (a refusal with its reason over "not-read")."""
    order, locks = [], {}
    for coverage in units:
        for c in coverage:
            name = c.get("lock")
            if name not in locks:
                order.append(name)
                locks[name] = {"acquisitions": c.get("acquisitions", 0), "units": 0,
                               "listed": {}, "best": {}}
            lock = locks[name]
            lock["units"] += 1
            for site in c.get("unconverted_sites", []):
                key = (site.get("file"), site.get("line"))
                lock["listed"][key] = lock["listed"].get(key, 0) + 1
                old = lock["best"].get(key)
                if old is None or _RANK.get(site.get("status"), 0) > _RANK.get(old.get("status"), 0):
                    lock["best"][key] = site
    out = []
    for name in order:
        lock = locks[name]
        total = lock["acquisitions"]
        sites = [s for key, s in lock["best"].items() if lock["listed"][key] == lock["units"]]
        sites.sort(key=lambda s: -s.get("count", 0))
        unconverted = sum(s.get("count", 0) for s in sites)
        share = 1.0 - unconverted / total if total else 0.0
        out.append({"lock": name, "acquisitions": total, "converted_share": share,
                    "flagged": bool(total) and 1.0 - share > 0.10,
                    "unconverted_sites": sites})
    return out


def lines(coverage):
    """One line per lock and one per site outside converted sections."""
    out = []
    for c in coverage:
        share = c.get("converted_share", 0)
        line = "coverage of %s: %.1f %% of %d profiled acquisitions in converted sections" % (
            c.get("lock"), 100 * share, c.get("acquisitions", 0))
        if c.get("flagged"):
            line += ("; FLAGGED: %.1f %% elsewhere, delegation would keep moving the lock's "
                     "cache lines" % (100 * (1 - share)))
        out.append(line)
        for site in c.get("unconverted_sites", []):
            out.append("  %5.1f %% %s:%s %s(): %s -- %s" % (
                100 * site.get("share", 0), os.path.basename(site.get("file", "?")),
                site.get("line"), site.get("function", ""), site.get("status"),
                site.get("advice")))
    return out
