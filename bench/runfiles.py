"""A benchmark run's files in its output folder, written and read back the same way by the
scripts that rerun their report from them (`--report-only`): raw.csv (one row per
measurement) and load.txt (the 1-minute load average before and after each round)."""
import csv
import os


def save(out, fields, rows, loads):
    with open(os.path.join(out, "raw.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fields)
        w.writeheader()
        w.writerows(rows)
    with open(os.path.join(out, "load.txt"), "w") as f:
        f.write(" ".join(loads) + "\n")


def read(out):
    """(rows, loads); loads is None where load.txt is missing (an older run)."""
    with open(os.path.join(out, "raw.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    loads = None
    if os.path.exists(os.path.join(out, "load.txt")):
        with open(os.path.join(out, "load.txt")) as f:
            loads = f.read().split()
    return rows, loads
