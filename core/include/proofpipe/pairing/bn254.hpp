// The optimal ate pairing e: G1 x G2 -> GT on BN254, and the multi-pairing a
// Groth16 verifier needs. Host code only.
//
// e(P, Q) = f^(c (p^12 - 1)/r) with f the Miller loop over 6u + 2 (signed
// binary), closed by the two Frobenius lines of Vercauteren's optimal ate
// pairing ("Optimal pairings", 2010, §6): T += pi(Q), then the line to
// -pi^2(Q). The final exponentiation is the easy part (p^6 - 1)(p^2 + 1)
// and the hard part of Fuentes-Castaneda, Knapp, Rodriguez-Henriquez
// ("Faster hashing to G2", SAC 2011), which computes the reduced pairing
// raised to c = 2u(6u^2 + 3u + 1). c is coprime to r, so e stays bilinear
// and non-degenerate; it is the value ffjavascript (snarkjs) and libff
// publish, so a bn128 key's vk_alphabeta_12 compares equal. The tests check
// the chain against the plain exponent c (p^12 - 1)/r and against
// ffjavascript's e(g1, g2).
//
// Inputs as in pairing/bls12_381.hpp: affine Montgomery points, (0, 0) the identity,
// on their curves and in the order-r groups (not checked here). A pair with
// an identity contributes 1. All functions are pure and thread-safe.
#pragma once

#include <span>
#include <utility>

#include "proofpipe/ec/bn254.hpp"

namespace proofpipe::bn254 {

using G1G2Pair = std::pair<G1Affine, G2Affine>;

Fq12 multi_miller_loop(std::span<const G1G2Pair> pairs);
Fq12 miller_loop(const G1Affine& p, const G2Affine& q);
// f^(c (p^12 - 1)/r), c = 2u(6u^2 + 3u + 1), for f != 0.
Fq12 final_exponentiation(const Fq12& f);
Fq12 pairing(const G1Affine& p, const G2Affine& q);
Fq12 multi_pairing(std::span<const G1G2Pair> pairs);
bool pairing_product_is_one(std::span<const G1G2Pair> pairs);

// The twist's Frobenius endomorphism pi(x, y) = (conj(x) xi^((p-1)/3),
// conj(y) xi^((p-1)/2)), exposed for the tests (pi(Q) = [p]Q on G2).
G2Affine twist_frobenius(const G2Affine& q);

}  // namespace proofpipe::bn254
