pragma circom 2.1.0;

// proofpipe test fixture "sparse_dense" (BLS12-381, compiled with --prime bls12381).
//
// 1 public input (k), 1 public output (out), M + 1 private inputs (x[M], v).
// Constraint shapes:
//   * 64 boolean constraints  b * (b - 1) = 0   (bits of v, v < 2^64)
//   * 1 linear constraint      sum_i 2^i * b_i = v   (A and B empty)
//   * NS sparse constraints    p[i-1] * x[j] = p[i]  (one term in each of A, B, C)
//   * ND dense constraints     (sum of W weighted p's) * (sum of W x's + W bits) = d + (sum of W p's)
//   * 1 dense output constraint (sum of all d) * (k + 1) = out
// Compiled at circom's default --O1, so the linear constraint is kept.

template SparseDense(M, NS, ND, W) {
    signal input k;        // public
    signal input x[M];     // private
    signal input v;        // private, < 2^64
    signal output out;     // public

    // bit decomposition of v
    signal bits[64];
    var lsum = 0;
    var pow2 = 1;
    for (var i = 0; i < 64; i++) {
        bits[i] <-- (v >> i) & 1;
        bits[i] * (bits[i] - 1) === 0;
        lsum += bits[i] * pow2;
        pow2 = pow2 * 2;
    }
    lsum === v;

    // sparse part: running products
    signal p[NS];
    p[0] <== x[0] * k;
    for (var i = 1; i < NS; i++) {
        p[i] <== p[i - 1] * x[i % M];
    }

    // dense part
    signal d[ND];
    for (var j = 0; j < ND; j++) {
        var la = 0;
        var lb = 0;
        var lc = 0;
        for (var t = 0; t < W; t++) {
            la += (j + t + 1) * p[(j * 97 + t * 31) % NS];
            lb += (t + 1) * x[(j + t) % M] + bits[(j + 3 * t) % 64];
            lc += p[(j * 53 + t * 7 + 11) % NS];
        }
        d[j] <== la * lb + lc;
    }

    var acc = 0;
    for (var j = 0; j < ND; j++) {
        acc += d[j];
    }
    out <== acc * (k + 1);
}

component main {public [k]} = SparseDense(48, 3000, 64, 32);
