#!/bin/sh
# A stand-in for a program that prints its own figure and no throughput:
# fake_metric.sh VALUE [P99_NS] prints "requests/s: VALUE" (after a warm-up line that must not
# count) and, with P99_NS, an RCL_RESULT line that has a p99 but no throughput.
echo "requests/s: 1"
echo "requests/s: $1"
[ -z "$2" ] || echo "RCL_RESULT {\"p99_ns\": $2}"
