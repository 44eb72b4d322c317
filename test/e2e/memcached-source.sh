# Sourced (POSIX sh) by test/e2e/memcached.sh and bench/apps/memcached.sh: the Debian source
# package of memcached 1.6.18 and what building and testing it needs.
#
#   rcl_memcached_fetch DIR    leaves DIR/memcached-1.6.18 (pristine; fetched once, reused)
#
# The fetch itself is rcl_debian_source (debian-source.sh, found in RCL_E2E_DIR, which the
# sourcing script sets to test/e2e as an absolute path). Installs libevent-dev and perl when
# missing. Needs root the first time.
RCL_MEMCACHED_VERSION=1.6.18
. "$RCL_E2E_DIR/debian-source.sh"

rcl_memcached_fetch() {
    command -v perl >/dev/null && [ -f /usr/include/event.h ] ||
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q libevent-dev perl >/dev/null
    rcl_debian_source "$1" memcached "$RCL_MEMCACHED_VERSION-1" "memcached-$RCL_MEMCACHED_VERSION"
}

# rcl_memcached_threads BINARY PORT: start a converted memcached (delegate mode), store one
# item, and list its threads with their allowed CPUs. Fails when a program thread is pinned to
# exactly the CPUs of the runtime's server threads: a thread created inside a delegated
# critical section (memcached's start_lru_maintainer_thread, items.c:1723) is created by the
# server and inherits its affinity, then shares the server's core for good.
rcl_memcached_threads() {
    python3 - "$1" "$2" <<'PY'
import os, socket, subprocess, sys, time
p = subprocess.Popen([sys.argv[1], "-u", "root", "-p", sys.argv[2], "-U", "0", "-l", "127.0.0.1"],
                     env=dict(os.environ, RCL_MODE="delegate"))
try:
    for _ in range(100):
        try:
            s = socket.create_connection(("127.0.0.1", int(sys.argv[2])))
            break
        except OSError:
            time.sleep(0.1)
    s.sendall(b"set k 0 0 1\r\nx\r\n")
    s.recv(64)
    time.sleep(0.5)
    threads = []
    for tid in sorted(os.listdir("/proc/%d/task" % p.pid), key=int):
        comm = open("/proc/%d/task/%s/comm" % (p.pid, tid)).read().strip()
        cpus = [l.split(":")[1].strip() for l in open("/proc/%d/task/%s/status" % (p.pid, tid))
                if l.startswith("Cpus_allowed_list")][0]
        threads.append((comm, cpus))
finally:
    p.terminate()
    p.wait()
server = {c for n, c in threads if n.startswith("rcl-server")}
bad = [n for n, c in threads if not n.startswith("rcl-server") and c in server and
       c != "0-%d" % (os.cpu_count() - 1)]
print("memcached threads (allowed CPUs): " + ", ".join("%s %s" % t for t in threads))
for n in bad:
    print("memcached: thread %s is pinned to the server's CPUs (%s): it was created inside a "
          "delegated critical section and inherited the server's affinity" % (n, ", ".join(sorted(server))))
sys.exit(1 if bad else 0)
PY
}
