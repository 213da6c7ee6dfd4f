// Multi-scalar multiplication sum_i k_i * P_i on the CPU for G1 and G2 of
// BLS12-381: Pippenger's bucket method with signed (Booth) window digits,
// batch-affine bucket accumulation (Montgomery's simultaneous inversion),
// tiled over (window x point range) on the process pool.
// Not constant-time (prover-side data only); no precomputed tables; no GPU.
// References: Pippenger 1976 / Bernstein et al. "Faster batch forgery
// identification" §4 (bucket method); Montgomery 1987 (simultaneous
// inversion); docs/design/numbers.md §3 and §4 for the cost model.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "proofpipe/ec/bls12_381.hpp"
#include "proofpipe/ec/bn254.hpp"

namespace proofpipe::msm {

// How buckets accumulate points. kAuto lets plan() choose, and then a tile
// whose batches cannot fill (under 21 entries for G1, 6 for G2: the
// inversion would cost more than batch adds save) uses XYZZ; in practice,
// on 2 threads, batch-affine from n ~ 2^8 (G1) / 2^6 (G2): at 2^10 it took
// G1 from 13.5 to 11.2 ms and G2 from 67 to 33 ms against XYZZ. kBatchAffine
// forces it on every tile (tests); kXyzz disables it.
enum class Accumulation : uint8_t { kAuto, kXyzz, kBatchAffine };

// Operation counts of one call, summed over all threads: the speed of the
// algorithm independent of the field multiplication's speed. A batch add
// costs 5M + 1S plus its share of one inversion; an XYZZ madd 8M + 2S; a
// full XYZZ add 12M + 2S; a doubling 6M + 3S (M = one Fq or Fq2 mul).
struct MsmStats {
  uint64_t batch_adds = 0;        // affine adds through batch inversion (buckets, reduction trees)
  uint64_t batch_inversions = 0;  // field inversions (one per batch)
  uint64_t madds = 0;             // XYZZ + affine (XYZZ buckets, overflow, +-1 scalars, running sums)
  uint64_t full_adds = 0;         // XYZZ + XYZZ (running sums, tile and window sums)
  uint64_t doublings = 0;         // window shifts
  uint64_t skipped = 0;           // scalars that were 0 or met an identity point
  uint64_t ones = 0;              // scalars +-1, added directly without buckets
  unsigned window_bits = 0;       // c
  unsigned windows = 0;           // W = ceil((B + 1) / c)
  unsigned scalar_bits = 0;       // B: 254, or 127 with GLV halves
  uint64_t terms = 0;             // scalars in the buckets (GLV: up to two per scalar)
  unsigned point_splits = 0;      // point ranges per window
  unsigned tiles = 0;             // tasks run (W * splits, plus tail pieces)
  Accumulation accumulation = Accumulation::kAuto;
};

struct MsmOptions {
  unsigned window_bits = 0;   // 0: chosen from n and the thread count (see plan()); else 1..18
  unsigned point_splits = 0;  // 0: chosen with the window
  Accumulation accumulation = Accumulation::kAuto;
  // Split each scalar in two 127-bit halves with the curve's endomorphism
  // (ec/glv.hpp) where it has one: BN254's G1 and G2. Half the windows over
  // twice the terms: the same bucket adds, half the bucket reductions and
  // doublings. Off by default: it is worth only 1-3% (BN254 on 2 threads:
  // G1 2^16 113 -> 111 ms, 3 x 2^16 287 -> 279 ms, G2 2^16 294 -> 290 ms,
  // a whole 2^16 proof 0.77 -> 0.76 s) because the batch-affine reduction it halves is ~10% of an MSM, and
  // it costs 2.8x the MSM's scratch (two 24-byte terms per scalar and a
  // copy of every point's phi(P): 112 B per G1 scalar against 40; a 2^16
  // proof's peak RSS 71 -> 89 MB, 2^18 227 -> 292 MB).
  bool glv = false;
  MsmStats* stats = nullptr;  // filled when non-null
};

// The window plan for n points on `threads` threads: the (c, splits, tail)
// choice minimising a makespan model (docs/design/numbers.md §4 units: 1 = one field
// mul of the group's field):
//   W = ceil((B + 1) / c) windows for scalars below 2^B (the extra bit
//   absorbs Booth's carry; B = 254, or 127 for GLV halves), each
//   cut into `point_splits` tiles over point ranges; a tile costs
//   (n / splits) * add + 2^(c-1) * reduce. When W * splits is not a multiple
//   of the thread count, the last `tail_tiles` tiles may be cut into
//   `tail_pieces` (= threads) pieces so every thread ends at the same time.
// Exposed for the benchmark and the tests; msm_* call it themselves with n =
// the number of scalars left after dropping zeros and +-1.
enum class Group : uint8_t { kG1, kG2 };
struct MsmPlan {
  unsigned window_bits;
  unsigned windows;
  unsigned scalar_bits;
  unsigned point_splits;
  unsigned tail_tiles;
  unsigned tail_pieces;
  Accumulation accumulation;
};
MsmPlan plan(size_t n, unsigned threads, const MsmOptions& options = {}, Group group = Group::kG1,
             unsigned scalar_bits = 254);

// sum_i scalars[i] * points[i].
//  - points: affine, reduced Montgomery coordinates, each on the curve and in
//    the r-order subgroup (not checked: validate keys when loading them);
//    the identity (0,0) is allowed and contributes nothing. Duplicate and
//    opposite points are fine.
//  - scalars: Fr in Montgomery form, as the prover computes them. The
//    conversion to canonical form (one Fr mul each, ~20 ns against ~8 us of
//    bucket work per G1 point at 2^18: 0.3%) happens inside, in parallel.
//  - sizes must match (PP_ASSERT). n = 0 gives the identity.
// Zero scalars and identity points are dropped while the scalars are
// prepared (~20 ns each); +-1 scalars cost one mixed add.
// Result in Jacobian coordinates. Spans are read only during the call.
// @concurrent: safe to call from several threads (calls share the process
// pool, which runs one job at a time, so they serialise); called from inside
// a pool task it runs single-threaded. Scratch, freed on return: 40 bytes
// per non-trivial scalar, plus per running tile 2^(c-1) bucket points
// (1.5 MB for G1 at c = 15) and a batch of up to 512 * 288 bytes (G1) or
// 256 * 576 bytes (G2); G1 on the AVX-512 IFMA path adds 72 KB (BN254) or
// 112 KB (BLS12-381) per tile (msm/buckets.hpp).
bls12_381::G1 msm_g1(std::span<const bls12_381::G1Affine> points, std::span<const bls12_381::Fr> scalars,
                     const MsmOptions& options = {});
bls12_381::G2 msm_g2(std::span<const bls12_381::G2Affine> points, std::span<const bls12_381::Fr> scalars,
                     const MsmOptions& options = {});

// Same with canonical little-endian scalars (e.g. witness values read
// straight from a .wtns file). Values need not be below r: they are reduced
// modulo r (inputs are < 2^256 < 3r, so at most two subtractions).
bls12_381::G1 msm_g1_canonical(std::span<const bls12_381::G1Affine> points, std::span<const ff::Limbs<4>> scalars,
                               const MsmOptions& options = {});
bls12_381::G2 msm_g2_canonical(std::span<const bls12_381::G2Affine> points, std::span<const ff::Limbs<4>> scalars,
                               const MsmOptions& options = {});

// One part of msm_g1_sum: sum_i scalars[i] * points[i] (sizes must match),
// or with `scale` set, sum_i (*scale * scalars[i]) * points[i]: the prover's
// r * B1. The product is formed inside, after the scalars[i] that are 0 or
// +-1 are sorted out, so a witness of bits keeps its cheap +-1 terms (their
// sum is multiplied by *scale once) instead of handing Pippenger thousands
// of copies of the same scalar r, which all land in one bucket per window
// (a serial XYZZ chain: ~6 % of a bn128 SHA-256 proof's CPU time), and no
// n-element vector of products is allocated (32 MiB at 2^20 wires).
template <class Cfg, class Scalar>
struct MsmPart {
  std::span<const ec::Affine<Cfg>> points;
  std::span<const Scalar> scalars;
  const Scalar* scale = nullptr;  // Montgomery-form Fr parts only
};

// The sum of up to 4 parts' MSMs computed as one MSM over all their terms:
// Pippenger's cost per point falls as n grows (wider windows, fewer of
// them): BN254 G1 on 2 threads, one MSM of 2^17 points took 199 ms against
// 2 x 113 for two of 2^16, and one of 3 x 2^16 287 ms against 3 x 113. The
// prover sums its C, H and r * B1 MSMs anyway (groth16/src/backend_cpu.cpp).
// Scratch: the terms of all parts at once (40 B per non-trivial scalar).
bls12_381::G1 msm_g1_sum(std::span<const MsmPart<bls12_381::G1Cfg, bls12_381::Fr>> parts,
                         const MsmOptions& options = {});
bn254::G1 msm_g1_sum(std::span<const MsmPart<bn254::G1Cfg, bn254::Fr>> parts, const MsmOptions& options = {});

// The same four for BN254 (the same Pippenger template, instantiated in
// core/src/msm_bn254_g1.cpp and msm_bn254_g2.cpp); overloads, so code
// written once for both curves calls msm_g1/msm_g2 by its types.
bn254::G1 msm_g1(std::span<const bn254::G1Affine> points, std::span<const bn254::Fr> scalars,
                 const MsmOptions& options = {});
bn254::G2 msm_g2(std::span<const bn254::G2Affine> points, std::span<const bn254::Fr> scalars,
                 const MsmOptions& options = {});
bn254::G1 msm_g1_canonical(std::span<const bn254::G1Affine> points, std::span<const ff::Limbs<4>> scalars,
                           const MsmOptions& options = {});
bn254::G2 msm_g2_canonical(std::span<const bn254::G2Affine> points, std::span<const ff::Limbs<4>> scalars,
                           const MsmOptions& options = {});

}  // namespace proofpipe::msm
