#!/usr/bin/env bash
# Compare the request fast path of two commits in one run: build rcl-bench-probes at OLD and
# NEW (git archive into a temporary directory, runtime and bench only), then run them
# alternately ROUNDS times (rcl-bench-probes --reps 3 --json each) and print, per round, the
# ping-pong RTT, the delegated RTT (and ffwd's, where the build has that probe), the server
# capacity in TSC cycles per request, the ffwd baseline's capacity and the delegated condition
# hand-off -- so that every ratio is taken on one machine in one run (docs/results.md, "Fast path: split request/response lines").
# PROBES_ARGS adds arguments to every run (e.g. "--slots 1": a scan of two mailboxes).
#   usage: bench/protocol-ab.sh OLD NEW [ROUNDS] [OUTDIR]
# e.g.     bench/protocol-ab.sh 636f423 fast-path-split 5
set -euo pipefail
cd "$(dirname "$0")/.."
old=${1:?usage: bench/protocol-ab.sh OLD NEW [ROUNDS] [OUTDIR]}
new=${2:?usage: bench/protocol-ab.sh OLD NEW [ROUNDS] [OUTDIR]}
rounds=${3:-5}
out=${4:-$(mktemp -d /tmp/rcl-ab.XXXXXX)}
mkdir -p "$out"
for v in old new; do
    ref=$old
    [ $v = new ] && ref=$new
    src="$out/src-$v"
    rm -rf "$src"
    mkdir -p "$src"
    git archive "$ref" | tar -x -C "$src"
    cmake -G Ninja -S "$src" -B "$src/build" -DCMAKE_C_COMPILER=clang-19 \
        -DCMAKE_CXX_COMPILER=clang++-19 -DRCL_BUILD_TOOLS=OFF >/dev/null
    nice ninja -j2 -C "$src/build" rcl-bench-probes >/dev/null
    cp "$src/build/bench/rcl-bench-probes" "$out/probes-$v"
    git rev-parse --short "$ref" >"$out/ref-$v"
done
echo "old $(cat "$out/ref-old"), new $(cat "$out/ref-new"); probes ${PROBES_ARGS:-(defaults)}; $(nproc) CPUs; load: $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq 1 "$rounds"); do
    for v in old new; do
        # shellcheck disable=SC2086 # PROBES_ARGS: several words on purpose
        "$out/probes-$v" --reps 3 ${PROBES_ARGS:-} --json >"$out/$v.$r.json"
    done
done
python3 - "$out" "$rounds" <<'PYEOF'
import json, sys, statistics
out, rounds = sys.argv[1], int(sys.argv[2])
keys = [("pingpong_rtt_ns", "ping-pong ns"), ("delegate_rtt_ns", "delegated RTT ns"),
        ("delegate_over_pingpong", "delegated RTT / ping-pong"), ("ffwd_rtt_ns", "ffwd RTT ns"),
        ("ffwd_rtt_over_pingpong", "ffwd RTT / ping-pong"),
        ("delegate_ctx_pointer_ns", "RTT, context by pointer ns"),
        ("delegate_ctx_in_request_ns", "RTT, context in request ns"),
        ("server_cycles_per_request", "capacity cycles/req"),
        ("server_cycles_per_request_lock_each", "capacity, lock each, cycles/req"),
        ("ffwd_server_cycles_per_request", "ffwd capacity cycles/req"),
        ("cond_handoff_rcl_ns", "cond hand-off ns")]
def prec(k):
    return 2 if "_over_" in k else 1
rows = {v: [json.load(open(f"{out}/{v}.{r}.json")) for r in range(1, rounds + 1)] for v in ("old", "new")}
for r in range(rounds):
    for v in ("old", "new"):
        d = rows[v][r]
        print(f"round {r + 1} {v}: " + ", ".join(f"{name} {d[k]:.{prec(k)}f}" for k, name in keys if k in d))
print("medians (a probe only one of the two builds has: its median alone):")
for k, name in keys:
    have = [v for v in ("old", "new") if all(k in d for d in rows[v])]
    if len(have) == 1:
        m = statistics.median(d[k] for d in rows[have[0]])
        print(f"  {name:31s} {have[0]} {m:9.{prec(k)}f}  ({'old' if have[0] == 'new' else 'new'} has no such probe)")
    if len(have) != 2:
        continue
    o = statistics.median(d[k] for d in rows["old"])
    n = statistics.median(d[k] for d in rows["new"])
    print(f"  {name:31s} old {o:9.{prec(k)}f}  new {n:9.{prec(k)}f}  new/old {n / o:.2f}")
PYEOF
echo "raw JSON: $out"
