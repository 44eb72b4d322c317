#!/usr/bin/env bash
# The main job on the bundled example, from a fresh Debian 12 machine: install the
# dependencies and build (scripts/setup.sh), then `rcl demo`: build the example kvstore,
# profile it, convert its hottest lock, build the converted program with librcl, run the
# original and the converted one in each RCL_MODE (adaptive, the default; delegate; local), and print the
# comparison. Results in out/demo/ (diff, plot, JSON, CSV).
# Usage: scripts/demo.sh [rcl demo options]   (e.g. --quick, --probes, --threads 2,4)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh -DRCL_BUILD_TOOLS=ON  # the demo needs rcl-prof and rcl-rewrite
BUILD=${RCL_BUILD_DIR:-build}
exec "$BUILD/cli/rcl" demo -o out/demo "$@"
