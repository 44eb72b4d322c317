#!/usr/bin/env bash
# Instructions (valgrind --tool=callgrind) the server thread executes per request, a figure
# that does not depend on the machine's load (docs/results.md). usage:
#   bench/callgrind/server-ir.sh SRCROOT [N]    e.g. . 30000, or a `git archive` of another commit
# The runtime of SRCROOT is compiled into capacity-driver.c with one change: an idle pass ends
# in sched_yield() instead of a pause, so that under valgrind's one-thread-at-a-time scheduler
# the server makes about one idle pass per batch of 32 requests instead of a time slice of them.
# Two runs: the idle mode gives Ir per idle pass (32 empty mailboxes); the busy run's server Ir
# minus its idle passes, per request served, is "Ir/request net".
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "${1:?usage: server-ir.sh SRCROOT [N]}" && pwd)
n=${2:-30000}
work=$(mktemp -d /tmp/rcl-ir.XXXXXX)
cp "$root"/runtime/src/*.c "$root"/runtime/src/*.h "$work/"
python3 - "$work/server.c" <<'PY'
import sys
p = sys.argv[1]; s = open(p).read()
old = """        else
            rcl_cpu_relax();
        rcl_stat_add(&s->idle_passes, 1);"""
assert old in s, "server.c: idle pass not found"
open(p, "w").write(s.replace(old, old.replace("rcl_cpu_relax();", "sched_yield();")))
PY
clang-19 -O2 -D_GNU_SOURCE -DNDEBUG -fvisibility=hidden -I"$work" -I"$root/runtime/include" \
    "$here/capacity-driver.c" "$work"/*.c -o "$work/driver" -lhwloc -pthread -ldl
cd "$work"
export RCL_SERVER_SPIN_NS=1000000000 RCL_BLOCK_DETECT_US=0
server_ir() { # the server thread's total: the largest file but the main thread's
    for f in "$1"-0[2-9]; do grep '^totals:' "$f" | awk '{print $2}'; done | sort -n | tail -1
}
idle=$(valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file=idle ./driver 32 0 idle 2>/dev/null)
busy=$(valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file=busy ./driver 32 "$n" 2>/dev/null)
python3 - "$(server_ir idle)" "$idle" "$(server_ir busy)" "$busy" <<'PY'
import sys
ir_i, out_i, ir_b, out_b = int(sys.argv[1]), sys.argv[2].split(), int(sys.argv[3]), sys.argv[4].split()
per_idle = ir_i / int(out_i[3])
served, idle = int(out_b[1]), int(out_b[3])
print(f"Ir per idle pass (32 mailboxes): {per_idle:.0f}; busy run: {served} served, {idle} idle passes,"
      f" server Ir {ir_b}: Ir/request net {(ir_b - idle * per_idle) / served:.1f}, gross {ir_b / served:.1f}")
PY
rm -rf "$work"
