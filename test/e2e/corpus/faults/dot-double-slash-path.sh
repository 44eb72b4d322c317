#!/bin/sh
# dot-double-slash-path.c's fault: rcl-rewrite fails on a source named ".//dir/file.c".
#   test/e2e/corpus/faults/dot-double-slash-path.sh [BUILD_DIR]   (default: build)
# Exit status 1 while the fault is there (the .// spelling fails or falls back), 0 once fixed.
BUILD=$(cd "${1:-build}" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/common" && cp "$HERE/dot-double-slash-path.c" "$T/common/a.c" && cd "$T" || exit 2
"$BUILD/rewriter/rcl-rewrite" --all --dry-run ./common/a.c -- >/dev/null 2>&1 || { echo "./common/a.c fails too: another fault"; exit 2; }
if "$BUILD/rewriter/rcl-rewrite" --all --dry-run .//common/a.c -- >/dev/null 2>"$T/err"; then
    echo "fixed: rcl-rewrite reads .//common/a.c"
else
    echo "FAULT: rcl-rewrite .//common/a.c: $(head -1 "$T/err")"
    status=1
fi
"$BUILD/rewriter/rcl-cc" -c .//common/a.c -o a.o 2>"$T/cc"
if grep -q 'compiled it unchanged' "$T/cc"; then
    echo "FAULT: rcl-cc -c .//common/a.c: $(grep -m1 'rcl-cc: warning' "$T/cc")"
    status=1
fi
exit ${status:-0}
