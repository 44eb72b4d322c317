#!/bin/sh
# A stand-in for a benchmarked program: fake_program.sh OPS_PER_THREAD THREADS [STATUS]
# prints an RCL_RESULT line whose throughput is OPS_PER_THREAD x THREADS x $FAKE_FACTOR
# (default 1), p99 = 1000 ns x THREADS, then exits with STATUS (default 0).
factor=${FAKE_FACTOR:-1}
ops=$(($1 * $2 * factor))
echo "fake program: $ops ops/s"
echo "RCL_RESULT {\"throughput_ops_s\": $ops, \"p99_ns\": $(($2 * 1000)), \"cpu_s\": 0.5, \"wall_s\": 0.25}"
exit "${3:-0}"
