pragma circom 2.1.5;
// SHA-256 of a 64-byte (512-bit) preimage, circomlib's Sha256: proves
// knowledge of a preimage of a public digest (the 256 output bits).
// Compiled by scripts/bench_circuits.sh from its npm cache, where
// node_modules/ holds the pinned circomlib (bench/circuits/package.json).
include "node_modules/circomlib/circuits/sha256/sha256.circom";

component main = Sha256(512);
