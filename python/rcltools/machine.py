"""The machine a result was measured on, in one JSON shape for every tool (rcl compare and
demo, rcl-prof's profile.json and thresholds, bench/run.sh, the memcached benchmark):

    {"cpu_model": str, "cpus": int, "cores": int or null, "memory_gib": float or null,
     "kernel": str, "os": str or null, "hostname": str}

cpus: os.cpu_count(); cores: distinct (core, package) pairs in sysfs."""
import os
import platform


def _first_value(path, prefix, sep=":"):
    try:
        with open(path) as f:
            for line in f:
                if line.startswith(prefix):
                    return line.split(sep, 1)[1].strip()
    except OSError:
        pass
    return None


def cpu_model():
    """The CPU's model name from /proc/cpuinfo (or what platform knows, or "unknown")."""
    return _first_value("/proc/cpuinfo", "model name") or platform.processor() or "unknown"


def describe():
    cpus = os.cpu_count() or 1
    cores = set()
    for cpu in range(cpus):
        base = "/sys/devices/system/cpu/cpu%d/topology/" % cpu
        try:
            with open(base + "core_id") as a, open(base + "physical_package_id") as b:
                cores.add((a.read().strip(), b.read().strip()))
        except OSError:
            pass
    mem = _first_value("/proc/meminfo", "MemTotal:")
    os_name = _first_value("/etc/os-release", "PRETTY_NAME=", "=")
    return {"cpu_model": cpu_model(), "cpus": cpus, "cores": len(cores) or None,
            "memory_gib": round(int(mem.split()[0]) / 1048576, 1) if mem else None,
            "kernel": platform.release(), "os": os_name.strip('"') if os_name else None,
            "hostname": platform.node()}


def load1():
    """The 1-minute load average as /proc/loadavg writes it ("11.99"): what else ran beside a
    measurement, for its report."""
    with open("/proc/loadavg") as f:
        return f.read().split()[0]


def line(m):
    """One line for a report: 'Intel Xeon ..., 2 CPUs (2 cores), 7.7 GiB, Linux 6.1, Debian'."""
    cores = "%d cores" % m["cores"] if m.get("cores") else "cores unknown"
    return "%s, %d CPUs (%s), %s GiB, Linux %s%s" % (
        m["cpu_model"], m["cpus"], cores, m.get("memory_gib") or "?", m["kernel"],
        ", " + m["os"] if m.get("os") else "")
