// The Fr NTT and the Groth16 H step on the GPU: host-span entry points (copy
// to the device, transform, copy back) and device-time measurements. Same
// results, bit for bit, as the CPU's ntt::DomainT and ntt::compute_h_odd_coset
// (core/include/proofpipe/ntt/ntt.hpp). Host-only API: no CUDA headers; the
// device-pointer API the backend uses is cuda/src/ntt_device.hpp.
//
// Sizes: powers of two 2^k, 0 <= k <= ntt::kMaxLogSize (28); any other size
// is kInvalidArgument. The first call for a size builds and uploads its
// twiddle tables (16 * 2^k bytes + small scale tables), kept until exit.
#pragma once

#include <cstdint>
#include <span>

#include "proofpipe/common/status.hpp"
#include "proofpipe/ff/bls12_381.hpp"

namespace proofpipe::cuda {

// Natural order in and out for all three.
enum class NttOp : uint8_t {
  kForward,          // ntt::DomainT<bls12_381::Fr>::ntt: coefficients -> evaluations
  kInverse,          // ntt::DomainT<bls12_381::Fr>::intt: evaluations -> coefficients (incl. 1/n)
  kEvalsToOddCoset,  // ntt::DomainT<bls12_381::Fr>::evals_to_odd_coset
};

// x transformed in place (uploaded, transformed on device 0, downloaded).
Status ntt(std::span<bls12_381::Fr> x, NttOp op);

// Same contract as ntt::compute_h_odd_coset: on return a[i] = A*B - C on the
// odd coset; b and c are left unchanged here (the device copies are clobbered,
// the host spans only read), which the contract allows.
Status compute_h(std::span<bls12_381::Fr> a, std::span<bls12_381::Fr> b, std::span<bls12_381::Fr> c);

// Device time in ms (cudaEvents around the kernels only; data resident,
// random field elements made on the device), median of `reps` runs after one
// untimed warm-up that also builds the tables. reps >= 1.
Result<double> time_ntt_ms(unsigned log_n, NttOp op, int reps);
Result<double> time_compute_h_ms(unsigned log_n, int reps);

}  // namespace proofpipe::cuda
