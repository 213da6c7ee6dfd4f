// The CUDA Fr NTT and H step: thin kernels around the per-thread bodies of
// proofpipe/cuda/ntt_kernels.hpp, the launch sequences of ntt_device.hpp, and
// the host-span ntt and the timing entry points of proofpipe/cuda/ntt.hpp
// (the host-span compute_h is backend.cpp's CudaBackend).
//
// H chain for one vector (compute_h_device runs it for b, c, then a):
//   global inverse DIF passes (levels k-1 .. 10, two per launch)
//   one tile kernel per 2^10 block: inverse DIF levels 9..0, the odd-coset
//     scaling inv_n * w_2n^rev(p), forward DIT levels 0..9 (one load, one store)
//   global forward DIT passes (levels 10 .. k-1, two per launch)
// For a, the last launch of that list (a DIT pass, or the tile kernel when
// k <= 10) stores a*b - c instead of a: the product is fused into the pass
// that already holds a's final values in registers, which saves a separate
// element-wise kernel's read and write of a (1 GiB of traffic at 2^24, about
// 0.25 ms at H200 bandwidth) for two extra loads per element there.
#include <algorithm>
#include <string>
#include <vector>

#include "ntt_device.hpp"
#include "proofpipe/cuda/ntt_kernels.hpp"
#include "proofpipe/ntt/ntt.hpp"
#include "timing.hpp"

namespace proofpipe::cuda {
namespace {

using bls12_381::Fr;
constexpr unsigned kGT = nttk::kGlobalThreads;

// ----- kernels -----

__device__ __forceinline__ uint64_t thread_id() { return blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; }

template <bool Inv>
__global__ void __launch_bounds__(kGT) dif_r2_kernel(Fr* x, const Fr* tw, unsigned log_n, unsigned l) {
  const uint64_t t = thread_id();
  if (t < (uint64_t(1) << (log_n - 1))) nttk::dif_r2_body<Inv>(x, tw, log_n, l, t);
}

template <bool Inv>
__global__ void __launch_bounds__(kGT) dif_r4_kernel(Fr* x, const Fr* tw, unsigned log_n, unsigned l) {
  const uint64_t t = thread_id();
  if (t < (uint64_t(1) << (log_n - 2))) nttk::dif_r4_body<Inv>(x, tw, log_n, l, t);
}

__global__ void __launch_bounds__(kGT)
    dit_r2_kernel(Fr* x, const Fr* b, const Fr* c, const Fr* tw, unsigned log_n, unsigned l) {
  const uint64_t t = thread_id();
  if (t < (uint64_t(1) << (log_n - 1))) nttk::dit_r2_body(x, b, c, tw, log_n, l, t);
}

__global__ void __launch_bounds__(kGT)
    dit_r4_kernel(Fr* x, const Fr* b, const Fr* c, const Fr* tw, unsigned log_n, unsigned l) {
  const uint64_t t = thread_id();
  if (t < (uint64_t(1) << (log_n - 2))) nttk::dit_r4_body(x, b, c, tw, log_n, l, t);
}

__global__ void __launch_bounds__(kGT) bitrev_kernel(Fr* x, unsigned log_n, Fr scale, bool do_scale) {
  const uint64_t i = thread_id();
  if (i < (uint64_t(1) << log_n)) nttk::bitrev_body(x, log_n, scale, do_scale, i);
}

// One block per tile; every step is followed by a block barrier (the host
// emulation runs the same steps stage-outer, thread-inner).
__global__ void __launch_bounds__(nttk::kTileThreads) tile_kernel(nttk::TileArgs a) {
  extern __shared__ uint4 smem[];  // 16-byte aligned; Fr needs 8
  Fr* tile = reinterpret_cast<Fr*>(smem);
  const unsigned steps = nttk::tile_steps(a);
  for (unsigned s = 0; s < steps; ++s) {
    nttk::tile_step(a, tile, blockIdx.x, s, threadIdx.x);
    __syncthreads();
  }
}

// Random-looking field elements for the timings: splitmix64 of the index,
// top limb cut to 60 bits (< r's top limb 0x73ed...), so every value is < r.
__global__ void __launch_bounds__(kGT) fill_kernel(Fr* x, uint64_t n, uint64_t seed) {
  const uint64_t i = thread_id();
  if (i >= n) return;
  uint64_t z = seed + i * 4 * 0x9E3779B97F4A7C15ULL;
  Fr v;
  for (int k = 0; k < 4; ++k) {
    z += 0x9E3779B97F4A7C15ULL;
    uint64_t y = z;
    y = (y ^ (y >> 30)) * 0xBF58476D1CE4E5B9ULL;
    y = (y ^ (y >> 27)) * 0x94D049BB133111EBULL;
    v.l[k] = y ^ (y >> 31);
  }
  v.l[3] &= 0x0FFFFFFFFFFFFFFFULL;
  x[i] = v;
}

// ----- launch sequences -----

Status bad_size(const char* what, unsigned log_n) {
  return Status(ErrorCode::kInvalidArgument,
                std::string(what) + ": size 2^" + std::to_string(log_n) + " outside [2^0, 2^28]");
}

Status launch_tile(const nttk::TileArgs& a, unsigned log_n, cudaStream_t s) {
  const size_t smem = (size_t(1) << a.tile_bits) * sizeof(Fr);
  if (smem > 48 * 1024) {  // not at kTileBits = 10 (32 KiB); kept for a larger tile
    PP_CUDA_TRY(cudaFuncSetAttribute(tile_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
  }
  tile_kernel<<<unsigned(size_t(1) << (log_n - a.tile_bits)), a.threads, smem, s>>>(a);
  PP_CUDA_LAUNCHED("ntt tile_kernel");
  return Status::ok();
}

nttk::TileArgs tile_args(Fr* x, unsigned log_n, const NttTables& t) {
  nttk::TileArgs a{};
  a.x = x;
  a.tile_bits = nttk::tile_bits_for(log_n);
  a.threads = nttk::tile_threads_for(a.tile_bits);
  a.lvl_fwd = t.lvl_fwd;
  a.blk_scale = t.blk_scale;
  a.off_scale = t.off_scale;
  return a;
}

// One global DIF pass at level l: radix 4 (levels l, l-1) or radix 2.
template <bool Inv>
void launch_dif_pass(Fr* x, const Fr* tw, unsigned log_n, unsigned l, unsigned radix, cudaStream_t s) {
  if (radix == 4) {
    dif_r4_kernel<Inv><<<grid_for(size_t(1) << (log_n - 2), kGT), kGT, 0, s>>>(x, tw, log_n, l);
  } else {
    dif_r2_kernel<Inv><<<grid_for(size_t(1) << (log_n - 1), kGT), kGT, 0, s>>>(x, tw, log_n, l);
  }
}

// Global DIF passes (levels k-1 .. tile_bits), forward or inverse.
Status launch_dif_global(Fr* x, unsigned log_n, bool inv, const NttTables& t, cudaStream_t s) {
  const nttk::GlobalPlan p = nttk::dif_plan(log_n);
  for (unsigned i = 0; i < p.count; ++i) {
    const unsigned l = p.pass[i].l, radix = p.pass[i].radix;
    if (inv) {
      launch_dif_pass<true>(x, t.tw, log_n, l, radix, s);
    } else {
      launch_dif_pass<false>(x, t.tw, log_n, l, radix, s);
    }
    PP_CUDA_LAUNCHED(radix == 4 ? "ntt dif_r4_kernel" : "ntt dif_r2_kernel");
  }
  return Status::ok();
}

// Natural -> natural plain transform: DIF, then the bit reversal (with 1/n
// for the inverse).
Status plain_transform(Fr* x, unsigned log_n, bool inv, const NttTables& t, cudaStream_t s) {
  PP_RETURN_IF_ERROR(launch_dif_global(x, log_n, inv, t, s));
  nttk::TileArgs a = tile_args(x, log_n, t);
  a.mode = nttk::TileMode::kDif;
  a.inverse = inv;
  a.lvl_dif = inv ? t.lvl_inv : t.lvl_fwd;
  PP_RETURN_IF_ERROR(launch_tile(a, log_n, s));
  bitrev_kernel<<<grid_for(size_t(1) << log_n, kGT), kGT, 0, s>>>(x, log_n, t.inv_n, inv);
  PP_CUDA_LAUNCHED("ntt bitrev_kernel");
  return Status::ok();
}

// evals -> odd-coset evals of x; with b, c non-null the last pass stores x*b - c.
Status odd_coset_chain(Fr* x, const Fr* b, const Fr* c, unsigned log_n, const NttTables& t, cudaStream_t s) {
  PP_RETURN_IF_ERROR(launch_dif_global(x, log_n, /*inv=*/true, t, s));
  const nttk::GlobalPlan p = nttk::dit_plan(log_n);
  nttk::TileArgs a = tile_args(x, log_n, t);
  a.mode = nttk::TileMode::kOddCoset;
  a.inverse = true;
  a.lvl_dif = t.lvl_inv;
  if (p.count == 0) {
    a.b = b;
    a.c = c;
  }
  PP_RETURN_IF_ERROR(launch_tile(a, log_n, s));
  for (unsigned i = 0; i < p.count; ++i) {
    const bool last = i + 1 == p.count;
    const Fr* pb = last ? b : nullptr;
    const Fr* pc = last ? c : nullptr;
    if (p.pass[i].radix == 4) {
      dit_r4_kernel<<<grid_for(size_t(1) << (log_n - 2), kGT), kGT, 0, s>>>(x, pb, pc, t.tw, log_n, p.pass[i].l);
      PP_CUDA_LAUNCHED("ntt dit_r4_kernel");
    } else {
      dit_r2_kernel<<<grid_for(size_t(1) << (log_n - 1), kGT), kGT, 0, s>>>(x, pb, pc, t.tw, log_n, p.pass[i].l);
      PP_CUDA_LAUNCHED("ntt dit_r2_kernel");
    }
  }
  return Status::ok();
}

// log2 of a power-of-two size in [1, 2^28], or an error.
Result<unsigned> log2_size(size_t n, const char* what) {
  if (n == 0 || (n & (n - 1)) != 0 || n > (size_t(1) << ntt::kMaxLogSize))
    return Status(ErrorCode::kInvalidArgument,
                  std::string(what) + ": size " + std::to_string(n) + " is not a power of two in [1, 2^28]");
  unsigned k = 0;
  while ((size_t(1) << k) < n) ++k;
  return k;
}

Status fill_random(Fr* x, size_t n, uint64_t seed, cudaStream_t s) {
  fill_kernel<<<grid_for(n, kGT), kGT, 0, s>>>(x, n, seed);
  PP_CUDA_LAUNCHED("ntt fill_kernel");
  return Status::ok();
}

}  // namespace

Status ntt_device(Fr* x, unsigned log_n, NttOp op, cudaStream_t stream) {
  if (log_n > ntt::kMaxLogSize) return bad_size("ntt_device", log_n);
  PP_ASSIGN_OR_RETURN(const NttTables* t, ntt_tables(log_n));
  switch (op) {
    case NttOp::kForward: return plain_transform(x, log_n, false, *t, stream);
    case NttOp::kInverse: return plain_transform(x, log_n, true, *t, stream);
    case NttOp::kEvalsToOddCoset: return odd_coset_chain(x, nullptr, nullptr, log_n, *t, stream);
  }
  return Status(ErrorCode::kInvalidArgument, "ntt_device: unknown NttOp");
}

Status compute_h_device(Fr* a, Fr* b, Fr* c, unsigned log_n, cudaStream_t stream) {
  if (log_n > ntt::kMaxLogSize) return bad_size("compute_h_device", log_n);
  PP_ASSIGN_OR_RETURN(const NttTables* t, ntt_tables(log_n));
  PP_RETURN_IF_ERROR(odd_coset_chain(b, nullptr, nullptr, log_n, *t, stream));
  PP_RETURN_IF_ERROR(odd_coset_chain(c, nullptr, nullptr, log_n, *t, stream));
  return odd_coset_chain(a, b, c, log_n, *t, stream);
}

Status ntt(std::span<Fr> x, NttOp op) {
  PP_ASSIGN_OR_RETURN(const unsigned log_n, log2_size(x.size(), "cuda::ntt"));
  Stream st;
  PP_RETURN_IF_ERROR(st.create());
  DeviceBuffer<Fr> d;
  PP_RETURN_IF_ERROR(d.allocate(x.size()));
  PP_RETURN_IF_ERROR(d.upload(x.data(), x.size(), st.get()));
  PP_RETURN_IF_ERROR(ntt_device(d.data(), log_n, op, st.get()));
  PP_RETURN_IF_ERROR(d.download(x.data(), x.size(), st.get()));
  return st.sync();
}

Result<double> time_ntt_ms(unsigned log_n, NttOp op, int reps) {
  if (log_n > ntt::kMaxLogSize) return bad_size("time_ntt_ms", log_n);
  const size_t n = size_t(1) << log_n;
  Stream st;
  PP_RETURN_IF_ERROR(st.create());
  DeviceBuffer<Fr> d;
  PP_RETURN_IF_ERROR(d.allocate(n));
  PP_RETURN_IF_ERROR(fill_random(d.data(), n, 1, st.get()));
  EventPair ev;
  return median_ms(reps,
                   [&] { return ev.time_ms(st.get(), [&] { return ntt_device(d.data(), log_n, op, st.get()); }); });
}

Result<double> time_compute_h_ms(unsigned log_n, int reps) {
  if (log_n > ntt::kMaxLogSize) return bad_size("time_compute_h_ms", log_n);
  const size_t n = size_t(1) << log_n;
  Stream st;
  PP_RETURN_IF_ERROR(st.create());
  DeviceBuffer<Fr> da, db, dc;
  PP_RETURN_IF_ERROR(da.allocate(n));
  PP_RETURN_IF_ERROR(db.allocate(n));
  PP_RETURN_IF_ERROR(dc.allocate(n));
  PP_RETURN_IF_ERROR(fill_random(da.data(), n, 1, st.get()));
  PP_RETURN_IF_ERROR(fill_random(db.data(), n, 2, st.get()));
  PP_RETURN_IF_ERROR(fill_random(dc.data(), n, 3, st.get()));
  EventPair ev;
  return median_ms(reps, [&] {
    return ev.time_ms(st.get(), [&] { return compute_h_device(da.data(), db.data(), dc.data(), log_n, st.get()); });
  });
}

}  // namespace proofpipe::cuda
