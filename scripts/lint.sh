#!/usr/bin/env bash
# The project's static checks, by hand or before a commit:
#   scripts/lint.sh           clang-format check (no changes) + clang-tidy
#   scripts/lint.sh --fix     clang-format in place (no clang-tidy)
#   scripts/lint.sh --format  clang-format check only (seconds)
# clang-tidy reads build/compile_commands.json (configure build/ first) and
# takes about 5 CPU-seconds a file: a few minutes on 2 cores. CUDA sources
# (.cu) are formatted but not tidied (clang-tidy does not take nvcc's flags).
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-check}
# tests/data holds circom's generated C++ (a fixture's witness generator): not ours to format.
mapfile -t cxx < <(git ls-files '*.cpp' '*.hpp' '*.cu' '*.cuh' ':!tests/data')
if [[ $mode == --fix ]]; then
  clang-format -i "${cxx[@]}"
else
  clang-format --dry-run -Werror "${cxx[@]}"
fi
echo "lint: clang-format clean (${#cxx[@]} files)"
[[ $mode == --format || $mode == --fix ]] && exit 0
if [[ ! -f build/compile_commands.json ]]; then
  echo "lint: build/compile_commands.json missing: configure build/ first (scripts/test.sh does)" >&2
  exit 2
fi
mapfile -t units < <(git ls-files '*.cpp')
# -Wno-unknown-warning-option: the build's GCC-only flags (-Wno-restrict).
printf '%s\n' "${units[@]}" |
  xargs -P "$(nproc)" -n 4 clang-tidy -p build --quiet --warnings-as-errors='*' \
    --extra-arg=-Wno-unknown-warning-option 2>/dev/null
echo "lint: clang-tidy clean (${#units[@]} files)"
