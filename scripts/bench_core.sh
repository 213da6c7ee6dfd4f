#!/usr/bin/env bash
# Runs the core microbenchmarks (field, NTT, MSM, pairing) with JSON output
# into bench-results/ and prints a summary table, including µs/point/core for
# G1 MSM and the NTT's ratio to its Fr-multiplication floor.
# Usage: scripts/bench_core.sh [build-dir]   (build with -DCMAKE_BUILD_TYPE=Release)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
out=bench-results
mkdir -p "$out"
cores=$(nproc)
for b in field ntt msm pairing; do
  exe="$build/bin/pp_${b}_bench"
  [ -x "$exe" ] || { echo "skip $b (no $exe)"; continue; }
  echo "== $b" >&2
  "$exe" --benchmark_format=json --benchmark_out="$out/$b.json" --benchmark_out_format=json \
         --benchmark_min_time=${PP_BENCH_MIN_TIME:-0.5} >/dev/null
done
python3 scripts/bench_summary.py "$out" "$cores"
