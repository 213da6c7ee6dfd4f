#!/usr/bin/env bash
# The key's bytes in memory: groth16_prover reads the caller's buffer in
# place, proofpipe_prover_create_borrowed (prover_ext.h) borrows it, and
# groth16_prover_create copies it. Seen from outside, as resident memory:
# rss_probe.c proves once per process in each mode and reports how far the
# peak rose above the inputs already loaded. The copy is the whole key and
# stays resident through the proof, so the copying create must peak at
# least 3/4 of the key's size above the other two (the measured gap is the
# key's size to within 6%; everything else in the three runs is the same
# work). Before the one-shot call borrowed, it peaked with create. The
# borrowed and one-shot proofs are verified by snarkjs.
#   borrow_test.sh <build dir> <source dir>
set -euo pipefail
. "$(dirname "$0")/install_prefix.sh" "$@"

cc -std=c11 -O2 -Wall -Wextra -Werror -o "$tmp/rss_probe" "$src/tests/libproofpipe/rss_probe.c" \
  $(pkg-config --cflags --libs rapidsnark)

# added <mode> <circuit>: the probe's added_kib for one fresh process.
added() {
  local out=$tmp/$2-$1
  mkdir -p "$out"
  "$tmp/rss_probe" "$1" "$data/$2/circuit.zkey" "$data/$2/w00.wtns" "$out" | tee -a "$tmp/probe.log" |
    sed -n 's/.* added_kib=\([0-9-]*\)$/\1/p'
}

for circuit in sparse_dense_bn128 sparse_dense; do
  key_kib=$(($(stat -c %s "$data/$circuit/circuit.zkey") / 1024))
  create=$(added create "$circuit")
  for mode in oneshot borrowed; do
    got=$(added "$mode" "$circuit")
    echo "== $circuit: $mode adds $got KiB, create $create KiB, key $key_kib KiB"
    if ((create - got < key_kib * 3 / 4)); then
      echo "$mode: peak only $((create - got)) KiB below the copying create's; the key is $key_kib KiB" >&2
      exit 1
    fi
    "${snarkjs[@]}" groth16 verify "$data/$circuit/verification_key.json" "$tmp/$circuit-$mode/public.json" \
      "$tmp/$circuit-$mode/proof.json" | tee "$tmp/snarkjs.txt"
    grep -q "OK!" "$tmp/snarkjs.txt"
  done
done
echo "borrow_test: all checks passed"
