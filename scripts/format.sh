#!/usr/bin/env bash
# Format every C/C++ source of the project with clang-format-19 (.clang-format at the root).
#   scripts/format.sh          rewrite files in place
#   scripts/format.sh --check  list unformatted files and exit 1 if there are any
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files '*.c' '*.h' '*.cpp' '*.hpp' | grep -v -e '^test/' -e '/Inputs/' || true)
((${#files[@]})) || exit 0
if [ "${1:-}" = "--check" ]; then
    bad=0
    for f in "${files[@]}"; do
        if ! clang-format-19 --dry-run --Werror "$f" >/dev/null 2>&1; then echo "format: $f needs clang-format-19"; bad=1; fi
    done
    exit $bad
fi
clang-format-19 -i "${files[@]}"
