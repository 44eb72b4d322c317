"""How the tools print durations and rates: one place, so a table of rcl compare and the
report of rcl-prof read alike."""


def ns(value, digits=2, seconds=False):
    """A duration in ns as '812 ns', '3.40 us', '1.25 ms' ('-' for None); with seconds=True
    also '2.0 s' above a second. digits: decimals above the ns unit."""
    if value is None:
        return "-"
    value = float(value)
    units = (("s", 1e9),) if seconds else ()
    for unit, scale in units + (("ms", 1e6), ("us", 1e3)):
        if value >= scale:
            return "%.*f %s" % (digits, value / scale, unit)
    return "%d ns" % value


def rate(value):
    """A count or rate as '1.25 M', '812 k' ('-' for None)."""
    if value is None:
        return "-"
    for div, suffix in ((1e9, " G"), (1e6, " M"), (1e3, " k")):
        if abs(value) >= div:
            return "%.2f%s" % (value / div, suffix)
    return "%.0f" % value
