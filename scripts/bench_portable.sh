#!/usr/bin/env bash
# Two builds of `proofpipe` proving the same 2^16 circuits in turn: the
# portable default build against a -march=native one (docs/performance.md,
# "Portable build").
#   scripts/bench_portable.sh <proofpipe A> <proofpipe B> [rounds=7]
# For each curve (a `proofpipe gen --constraints 65000` circuit, made by A)
# and each SIMD path (the CPU's, and PROOFPIPE_SIMD=off: the scalar
# mulx/adcx path), A and B alternate `prove`; the prove's own seconds (its
# "proved ... s=" info line) are collected and the medians printed with B/A.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 <proofpipe A> <proofpipe B> [rounds]" >&2; exit 2; }
a=$1 b=$2 rounds=${3:-7}
tmp=$(mktemp -d /tmp/pp-bench-portable.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
median() { sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
prove_s() {  # binary, dir, simd
  PROOFPIPE_LOG=info PROOFPIPE_SIMD=$3 "$1" prove "$2/circuit.zkey" "$2/w00.wtns" "$tmp/p.json" "$tmp/pub.json" 2>&1 |
    sed -n 's/.*proved .* s=\([0-9.]*\).*/\1/p'
}
echo "CPU: $(lscpu | sed -n 's/^Model name: *//p' | head -1); $rounds rounds, A and B in turn"
printf '%-10s %-6s %10s %10s %7s\n' curve simd "A median" "B median" "B/A"
for curve in bls12381 bn128; do
  dir=$tmp/$curve
  "$a" gen --constraints 65000 --partitions 1 --curve "$curve" --out "$dir" >/dev/null 2>&1
  for simd in on off; do
    : >"$tmp/a.txt"; : >"$tmp/b.txt"
    for _ in $(seq "$rounds"); do
      prove_s "$a" "$dir" "$simd" >>"$tmp/a.txt"
      prove_s "$b" "$dir" "$simd" >>"$tmp/b.txt"
    done
    ma=$(median <"$tmp/a.txt"); mb=$(median <"$tmp/b.txt")
    printf '%-10s %-6s %9.3fs %9.3fs %7.3f\n' "$curve" "$simd" "$ma" "$mb" "$(echo "$mb / $ma" | bc -l)"
  done
done
