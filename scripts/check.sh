#!/usr/bin/env bash
# Set everything up and run the whole test suite:
#   1. the lit suite (runtime, rewriter, profiler, end-to-end) on the normal build;
#   2. the runtime suite again under ThreadSanitizer, AddressSanitizer and
#      UndefinedBehaviorSanitizer (no recovery: a report fails its test);
#   3. the whole project built with GCC (the system's default compiler, which a user's plain
#      `cmake -S . -B build` picks) with warnings as errors, so a GCC-only warning fails here,
#      and its C code once more in Debug;
#   4. the Debian package (scripts/package-test.sh: built with CPack, installed with apt-get,
#      used as a user would, removed; it refuses to run where an rcl package is installed);
#   5. the corpus's quick slice (real packages through rcl build; skipped when the Debian
#      archive is unreachable);
#   6. the formatting check (clang-format-19 against .clang-format).
# Ends with one line "N passed, N failed" summing every lit run.
set -euo pipefail
cd "$(dirname "$0")/.."
LIT=/usr/lib/llvm-19/build/utils/lit/lit.py
PY=/usr/bin/python3  # Debian's python, which has python3-psutil for lit's per-test timeout

scripts/setup.sh

passed=0; failed=0; status=0
run_lit() { # run_lit NAME BUILD_DIR [lit args...]
    local name=$1 dir=$2; shift 2
    local json="$dir/lit-results.json"
    echo "== $name"
    if ! $PY "$LIT" -sv --timeout 300 -o "$json" "$dir/test" "$@"; then status=1; fi
    read -r p f < <($PY - "$json" <<'PYEOF'
import json, sys
tests = json.load(open(sys.argv[1]))["tests"]
ok = {"PASS", "XFAIL"}
bad = {"FAIL", "XPASS", "TIMEOUT", "UNRESOLVED"}
print(sum(t["code"] in ok for t in tests), sum(t["code"] in bad for t in tests))
PYEOF
)
    passed=$((passed + p)); failed=$((failed + f))
}

run_lit "lit: all suites" build

for san in thread address undefined; do
    dir=build-$san
    cmake -G Ninja -S . -B "$dir" -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
        -DRCL_SANITIZE=$san -DRCL_BUILD_TOOLS=OFF -DCMAKE_BUILD_TYPE=Debug -DRCL_WERROR=ON \
        >/dev/null
    ninja -C "$dir" rcl rcl_static rcl-info bank
    TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" ASAN_OPTIONS="detect_leaks=1" \
        UBSAN_OPTIONS="print_stacktrace=1" \
        run_lit "lit: runtime under ${san} sanitizer" "$dir" --filter 'runtime/'
done

# GCC: everything in the default build type, and the C code (runtime, bench, examples) in Debug
# as well, where GCC's format and bounds checks see what they cannot see once optimised.
gcc_build() { # gcc_build DIR [cmake options...]
    local dir=$1; shift
    echo "== GCC build in $dir"
    cmake -G Ninja -S . -B "$dir" -DCMAKE_C_COMPILER=gcc -DCMAKE_CXX_COMPILER=g++ -DRCL_WERROR=ON \
        "$@" >/dev/null
    if ninja -C "$dir"; then echo "gcc: built $dir"; else status=1; failed=$((failed + 1)); fi
}
gcc_build build-gcc
gcc_build build-gcc-debug -DCMAKE_BUILD_TYPE=Debug -DRCL_BUILD_TOOLS=OFF

echo "== Debian package (scripts/package-test.sh build)"
if scripts/package-test.sh build; then
    echo "package: built, installed, used and removed"
else
    echo "package: FAILED (scripts/package-test.sh build)"
    status=1; failed=$((failed + 1))
fi

# The rewriter on real code: the corpus's quick slice (three small Debian packages built with
# rcl build + rcl-cc, their suites in every mode; test/e2e/corpus.sh). It needs the package
# archive and root (apt-get source, build-dep): skipped, with a message, where either is missing.
echo "== corpus: quick slice"
if [ "$(id -u)" -ne 0 ]; then
    echo "corpus: not root (apt-get build-dep needs it): skipped"
elif test/e2e/corpus.sh --quick --build build --work build/corpus-quick; then
    echo "corpus: quick slice passed"
else
    echo "corpus: FAILED (test/e2e/corpus.sh --quick; results in build/corpus-quick)"
    status=1; failed=$((failed + 1))
fi

echo "== format"
if scripts/format.sh --check; then echo "format: clean"; else status=1; failed=$((failed + 1)); fi

echo "$passed passed, $failed failed"
exit $status
