pragma circom 2.1.0;

// proofpipe test fixture "multi_io" (BLS12-381, compiled with --prime bls12381).
//
// 3 public inputs (a, b, c), 2 public outputs (out1, out2), 5 private inputs.
// Mixes several constraint shapes:
//   * wire * wire + linear term           (x chain)
//   * (LC + const) * (LC + const)         (y chain)
//   * boolean bit constraints + one linear "sum of bits" constraint (circomlib Num2Bits inside LessThan)
//   * IsZero (field inverse in the witness)
// Inputs must satisfy: a, b, c, s[3], small < 2^32 (LessThan(32) range assumption).
//
// The include below resolves against a copy of node_modules/circomlib/circuits placed next to this
// file by scripts/make_fixtures.sh (circom2 resolves includes relative to the cwd only).
include "circomlib/comparators.circom";

template MultiIO(N) {
    signal input a;        // public
    signal input b;        // public
    signal input c;        // public
    signal input s[4];     // private
    signal input small;    // private, < 2^32
    signal output out1;    // public
    signal output out2;    // public

    signal x[N+1];
    signal y[N+1];
    x[0] <== a * s[0];
    y[0] <== b * s[1] + c;
    for (var i = 0; i < N; i++) {
        x[i+1] <== x[i] * y[i] + s[i % 4];
        y[i+1] <== (y[i] + a) * (s[(i + 1) % 4] + i);
    }

    // small < c ?  (33 bit wires + 1 linear constraint)
    component lt = LessThan(32);
    lt.in[0] <== small;
    lt.in[1] <== c;

    // small == s[3] ?
    component iz = IsZero();
    iz.in <== small - s[3];

    out1 <== x[N] * y[N] + lt.out;
    out2 <== (x[N \ 2] + iz.out) * (c + s[3]);
}

component main {public [a, b, c]} = MultiIO(150);
