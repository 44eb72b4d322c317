"""What `rcl compare` compares: a number per run (throughput from the RCL_RESULT line, wall
time, or a number matched in the program's output), summarised over the runs with its spread,
and each variant's ratio to the first one, oriented so that above 1 is better."""
import re
import statistics


def spread(values):
    """{"median", "min", "max", "mean", "stdev", "rel_stdev_percent", "n"} of the numbers in
    values (None skipped); every figure None when there is none. stdev needs two runs."""
    vals = [float(v) for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)]
    if not vals:
        return {"median": None, "min": None, "max": None, "mean": None, "stdev": None,
                "rel_stdev_percent": None, "n": 0}
    mean = statistics.mean(vals)
    stdev = statistics.stdev(vals) if len(vals) > 1 else None
    return {"median": statistics.median(vals), "min": min(vals), "max": max(vals), "mean": mean,
            "stdev": stdev, "rel_stdev_percent": 100.0 * stdev / mean if stdev is not None and
            mean else None, "n": len(vals)}


def ratio(value, base, higher_is_better=True):
    """value against base, > 1 when value is better: value / base for a rate, base / value for
    a time; None when either is missing or the divisor is 0."""
    if value is None or base is None:
        return None
    if higher_is_better:
        return value / base if base else None
    return base / value if value else None


def metric_value(text, pattern):
    """The number of the last match of pattern (a compiled regex) in text: its first group
    when it has groups, else the whole match; None when nothing matches or it is no number."""
    found = None
    for m in pattern.finditer(text):
        found = m
    if found is None:
        return None
    raw = found.group(1) if found.re.groups else found.group(0)
    try:
        return float(raw.replace(",", ""))
    except (TypeError, ValueError):
        return None


def compile_metric(regex):
    """The compiled --metric REGEX, or ValueError with a readable reason."""
    try:
        return re.compile(regex, re.M)
    except re.error as e:
        raise ValueError("--metric %s is not a regular expression: %s" % (regex, e))
