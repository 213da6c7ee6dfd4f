// The optimal ate pairing e: G1 x G2 -> GT (a subgroup of Fq12*) on BLS12-381,
// and the multi-pairing a Groth16 verifier needs. Host code only.
//
// e(P, Q) = f_{x,Q}(P)^((p^12 - 1)/r * 3): a Miller loop over the curve
// parameter x = -0xd201000000010000 (Vercauteren, "Optimal pairings", 2010),
// then the final exponentiation with the hard part of Hayashida, Hayasaka,
// Teruya, "Efficient final exponentiation via cyclotomic structure for
// pairings over families of elliptic curves" (ePrint 2020/875), which
// computes the cube of the "plain" reduced pairing. Cubing is a bijection
// on GT (3 does not divide r), so e stays bilinear and non-degenerate, and this
// is the value zkcrypto/pairing, snarkjs (ffjavascript) and noble publish:
// e(g1, g2) and a zkey's vk_alphabeta_12 compare equal coefficient by coefficient.
//
// Inputs: affine points in Montgomery form, (0, 0) for the identity (the zkey
// encoding). They must be on their curves and in the order-r subgroups; this
// is not checked here (use bls12_381::in_subgroup on untrusted points). A pair with
// an identity point contributes 1. All functions are pure and thread-safe.
#pragma once

#include <span>
#include <utility>

#include "proofpipe/ec/bls12_381.hpp"

namespace proofpipe::bls12_381 {

using G1G2Pair = std::pair<G1Affine, G2Affine>;

// prod_i f_{x,Q_i}(P_i), the Miller loop shared by all pairs: one Fq12
// squaring per bit of |x| for the whole product, one line per pair and step.
// The value is meaningful only after final_exponentiation (it is defined up to
// factors that the exponentiation kills). Empty span or all identities -> 1.
Fq12 multi_miller_loop(std::span<const G1G2Pair> pairs);

// multi_miller_loop of the single pair (P, Q).
Fq12 miller_loop(const G1Affine& p, const G2Affine& q);

// f^(3 (p^12 - 1)/r): the easy part (p^6 - 1)(p^2 + 1), then the hard part
// 3 (p^4 - p^2 + 1)/r = (x - 1)^2 (x + p)(x^2 + p^2 - 1) + 3 with four
// exponentiations by x. f must be non-zero (every Miller-loop value is);
// the result is in GT, so a result r satisfies r^r = 1.
Fq12 final_exponentiation(const Fq12& f);

// e(P, Q) = final_exponentiation(miller_loop(P, Q)).
Fq12 pairing(const G1Affine& p, const G2Affine& q);

// prod_i e(P_i, Q_i) with one final exponentiation for all pairs.
Fq12 multi_pairing(std::span<const G1G2Pair> pairs);

// prod_i e(P_i, Q_i) == 1: the Groth16 check, e(-A, B) e(alpha, beta)
// e(L, gamma) e(C, delta) == 1, in one call.
bool pairing_product_is_one(std::span<const G1G2Pair> pairs);

}  // namespace proofpipe::bls12_381
