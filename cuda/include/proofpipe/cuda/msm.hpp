// Multi-scalar multiplication on the GPU for G1 and G2 of BLS12-381, from
// host memory: the device twin of msm::msm_g1 / msm::msm_g2 (core/), for the
// tests, benchmarks and callers without resident points. The backend uses
// the device-pointer entry points of cuda/src/msm_device.hpp instead.
// Host-only header: no CUDA types.
#pragma once

#include <span>
#include <vector>

#include "proofpipe/common/status.hpp"
#include "proofpipe/ec/bls12_381.hpp"
#include "proofpipe/ff/bls12_381.hpp"

namespace proofpipe::cuda {

// Overrides of the plan (0 = the default, chosen from n): window bits c in
// [2, 20], entries per accumulation task L >= 2, buckets per reduction
// segment S (a power of two), and the most pairs sorted at once (default
// 2^27: a 2^24 MSM sorts in two groups of windows; a small cap makes small
// MSMs take that path too). For tests that exercise the extremes.
struct MsmTuning {
  unsigned window_bits = 0;
  unsigned task_len = 0;
  unsigned segment = 0;
  size_t max_group_pairs = 0;
};

// Where one device MSM's time goes, in milliseconds of the device's
// timeline (cudaEvents at the phase boundaries, so the host's read-backs
// inside a phase count in it), summed over the sort groups; `combine` is
// the host's Horner step over the window sums. For the benchmark's
// breakdown: which phase to work on next.
struct MsmPhases {
  double split = 0;       // classify the terms; indices of the others and the +-1s
  double digits = 0;      // signed digits into (bucket key, point) pairs
  double sort = 0;        // CUB radix sort of the pairs by key
  double runs = 0;        // run-length encoding into buckets, their offsets
  double accumulate = 0;  // the bucket sums, all levels (incl. their read-backs)
  double reduce = 0;      // per-window running sums and trees, read back
  double combine = 0;     // host: Horner over the window sums
  unsigned groups = 0;    // sort groups (windows sorted together)
  unsigned levels = 0;    // accumulation levels, summed over the groups
  unsigned window_bits = 0;
  size_t others = 0;  // scalars with a digit in every window
  size_t ones = 0;    // +-1 scalars (one pair each); the rest were zero terms
                      // (scalar 0 or identity point)
};

// sum scalars[i] * points[i] computed on the device; same contract as
// msm::msm_g1/msm_g2 (core/include/proofpipe/msm/msm.hpp): scalars
// Montgomery Fr; points affine, the identity (0,0) allowed; sizes equal
// (else kInvalidArgument); n = 0 gives the identity. Allocates and frees its
// device buffers per call.
Result<bls12_381::G1> msm_g1(std::span<const bls12_381::G1Affine> points, std::span<const bls12_381::Fr> scalars);
Result<bls12_381::G2> msm_g2(std::span<const bls12_381::G2Affine> points, std::span<const bls12_381::Fr> scalars);
Result<bls12_381::G1> msm_g1(std::span<const bls12_381::G1Affine> points, std::span<const bls12_381::Fr> scalars,
                             const MsmTuning& tuning);
Result<bls12_381::G2> msm_g2(std::span<const bls12_381::G2Affine> points, std::span<const bls12_381::Fr> scalars,
                             const MsmTuning& tuning);

// The benchmark's scalars: zero_pct % zeros and one_pct % +-1 (either sign
// at even odds), the rest random; {} is all random. A witness is mostly
// bits and flags, so the split (msm_kernels.hpp) is timed on such a mix too.
struct ScalarMix {
  unsigned zero_pct = 0;
  unsigned one_pct = 0;
};

// Device time of one 2^log_n MSM with points and scalars resident (scalars
// as `mix` says; 2^min(log_n, 18) distinct random points, repeated and
// negated to fill n), median of `reps` after one warm-up call, in ms.
// Includes the few read-backs and the host's final window combination, as a
// proof sees it.
Result<double> time_msm_g1_ms(unsigned log_n, int reps, const ScalarMix& mix = {});
Result<double> time_msm_g2_ms(unsigned log_n, int reps, const ScalarMix& mix = {});

// The same G1 MSM (random scalars, one set of inputs) timed under each plan
// of `plans`: the sweep that sets the defaults of make_plan from a device's
// figures. A plan that fails (too much memory, say) gives its own error and
// the others still run.
Result<std::vector<Result<double>>> sweep_msm_g1_ms(unsigned log_n, int reps, std::span<const MsmTuning> plans);

// The phases of one such MSM, after the same warm-up call.
Result<MsmPhases> msm_phases_g1(unsigned log_n, const ScalarMix& mix = {});
Result<MsmPhases> msm_phases_g2(unsigned log_n, const ScalarMix& mix = {});

}  // namespace proofpipe::cuda
