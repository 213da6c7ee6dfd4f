// Fr and Fq arithmetic on the device, as batches: the differential twin of
// the host field (tests/cuda/cuda_field_test.cpp) and the device's
// multiplication-rate benchmark (docs/design/numbers.md §4: the GPU floors all scale
// with that one number).
//
// The per-thread bodies are PP_HD templates here, so the host tests can run
// them too (on the host the 32-bit kernels run their emulated encoding, see
// ff/detail/mont_ptx.hpp); field_ops.cu wraps each in a __global__ kernel.
// Host-only API below them: no CUDA types.
#pragma once

#include <cstddef>

#include "proofpipe/common/status.hpp"
#include "proofpipe/cuda/device.hpp"
#include "proofpipe/ff/bls12_381.hpp"
#include "proofpipe/ff/detail/mont_ptx.hpp"
#include "proofpipe/hd.hpp"

namespace proofpipe::cuda {

enum class FieldKind { kFr, kFq };

// kMul, kSqr, kAdd, kSub: the 32-bit PTX kernels, called directly (whatever
// field.hpp dispatches to). kMulPortable: the portable 64-bit C++
// (Field::mul_portable), for comparison on the device. kMulOperator ..
// kSubOperator: Field's *, sqr(), +, - as device code sees them (the
// dispatch in field.hpp).
enum class FieldOp { kMul, kSqr, kAdd, kSub, kMulPortable, kMulOperator, kSqrOperator, kAddOperator, kSubOperator };

// Which multiplication a rate measurement runs.
enum class MulPath { kPtx, kPortable };

inline const char* field_op_name(FieldOp op) {
  switch (op) {
    case FieldOp::kMul: return "mul";
    case FieldOp::kSqr: return "sqr";
    case FieldOp::kAdd: return "add";
    case FieldOp::kSub: return "sub";
    case FieldOp::kMulPortable: return "mul_portable";
    case FieldOp::kMulOperator: return "mul_operator";
    case FieldOp::kSqrOperator: return "sqr_operator";
    case FieldOp::kAddOperator: return "add_operator";
    case FieldOp::kSubOperator: return "sub_operator";
  }
  return "?";
}

// ----- per-thread bodies (host and device) -----

template <FieldOp Op, class F>
PP_HD_INLINE F field_op(const F& a, const F& b) {
  using K = typename F::C;
  F r;
  if constexpr (Op == FieldOp::kMul) {
    ff::detail::ptx_mul<K>(r.l, a.l, b.l);
  } else if constexpr (Op == FieldOp::kSqr) {
    ff::detail::ptx_sqr<K>(r.l, a.l);
  } else if constexpr (Op == FieldOp::kAdd) {
    ff::detail::ptx_add<K>(r.l, a.l, b.l);
  } else if constexpr (Op == FieldOp::kSub) {
    ff::detail::ptx_sub<K>(r.l, a.l, b.l);
  } else if constexpr (Op == FieldOp::kMulPortable) {
    r = a.mul_portable(b);
  } else if constexpr (Op == FieldOp::kMulOperator) {
    r = a * b;
  } else if constexpr (Op == FieldOp::kSqrOperator) {
    r = a.sqr();
  } else if constexpr (Op == FieldOp::kAddOperator) {
    r = a + b;
  } else {
    static_assert(Op == FieldOp::kSubOperator);
    r = a - b;
  }
  return r;
}

// out[i] = a[i] op b[i] (b unused by kSqr), for i < n.
template <FieldOp Op, class F>
PP_HD_INLINE void field_op_body(const F* a, const F* b, F* out, size_t n, size_t i) {
  if (i < n) out[i] = field_op<Op>(a[i], b[i]);
}

// x * y^len by a dependent chain: one multiplication cannot start before the
// previous one ends, so the rate measures latency hidden by parallelism
// across threads, as in the MSM's bucket additions.
template <MulPath Path, class F>
PP_HD_INLINE F mul_chain(F x, const F& y, unsigned len) {
  for (unsigned k = 0; k < len; ++k) {
    if constexpr (Path == MulPath::kPtx) {
      x = field_op<FieldOp::kMul>(x, y);
    } else {
      x = x.mul_portable(y);
    }
  }
  return x;
}

template <MulPath Path, class F>
PP_HD_INLINE void mul_chain_body(F* x, const F* y, unsigned len, size_t n, size_t i) {
  if (i < n) x[i] = mul_chain<Path>(x[i], y[i], len);
}

// Rate-benchmark inputs, made on the device (nothing to upload): distinct
// non-trivial elements per thread.
template <class F>
PP_HD_INLINE void chain_init_body(F* x, F* y, size_t n, size_t i) {
  if (i < n) {
    x[i] = F::from_u64(uint64_t(i) * 0x9e3779b97f4a7c15ULL + 2);
    y[i] = F::from_u64(uint64_t(i) * 0xc2b2ae3d27d4eb4fULL + 3);
  }
}

// ----- host API (device 0; host spans of n elements) -----

// out[i] = a[i] * b[i] in Fr with Field::operator* in device code.
Status fr_mul_batch(const bls12_381::Fr* a, const bls12_381::Fr* b, bls12_381::Fr* out, size_t n);

// out[i] = a[i] op b[i]; b may be null for kSqr and kSqrOperator.
Status fr_batch(FieldOp op, const bls12_381::Fr* a, const bls12_381::Fr* b, bls12_381::Fr* out, size_t n);
Status fq_batch(FieldOp op, const bls12_381::Fq* a, const bls12_381::Fq* b, bls12_381::Fq* out, size_t n);

// Device multiplications per second: `threads` threads (0: two waves of
// 2048 per SM) each run a dependent chain of `chain` products (0: 2048),
// timed with CUDA events after one short untimed warm-up launch.
Result<double> time_mul_rate(FieldKind kind, MulPath path, unsigned chain = 0, size_t threads = 0);

}  // namespace proofpipe::cuda
