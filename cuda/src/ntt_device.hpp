// The device-pointer NTT API of cuda/ (internal): what the CUDA backend calls
// with data already resident, plus the per-size table cache shared by
// ntt.cu (kernels, launches) and ntt_tables.cpp (host build, upload).
#pragma once

#include <cuda_runtime.h>

#include "check.hpp"
#include "proofpipe/cuda/ntt.hpp"
#include "proofpipe/ff/bls12_381.hpp"

namespace proofpipe::cuda {

// Device arrays here must be 16-byte aligned (cudaMalloc'd, or an Fr offset
// into such an array): the kernels move Fr as two 16-byte vectors.
//
// a, b, c: device arrays of 2^log_n Fr (log_n <= ntt::kMaxLogSize). On
// completion a[i] = A*B - C on the odd coset (ntt::compute_h_odd_coset); b and
// c hold B and C on the odd coset. Enqueued on `stream`, asynchronous: 6
// transforms' worth of kernels, no allocation, no host sync (except the first
// use of a size, which builds and uploads its tables and syncs the device).
Status compute_h_device(bls12_381::Fr* a, bls12_381::Fr* b, bls12_381::Fr* c, unsigned log_n, cudaStream_t stream);

// x: device array of 2^log_n Fr, transformed in place as NttOp says, natural
// order in and out. Asynchronous on `stream`, like compute_h_device.
Status ntt_device(bls12_381::Fr* x, unsigned log_n, NttOp op, cudaStream_t stream);

// Device tables for one size, built on first use and never freed (the
// pointers stay valid for the process). tw is null when log_n <= the tile
// size (the level tables then cover every level).
struct NttTables {
  const bls12_381::Fr* tw = nullptr;         // w^j, j in [0, n/2]
  const bls12_381::Fr* blk_scale = nullptr;  // nttk::scale_tables
  const bls12_381::Fr* off_scale = nullptr;
  const bls12_381::Fr* lvl_fwd = nullptr;  // nttk::level_table(false), shared by all sizes
  const bls12_381::Fr* lvl_inv = nullptr;  // nttk::level_table(true)
  bls12_381::Fr inv_n;                     // 1/n (the plain inverse's scale)
  size_t bytes = 0;                        // device bytes of tw, blk_scale, off_scale
};

// The tables of 2^log_n, built and uploaded under a process-wide mutex on the
// first call for that size (then cudaDeviceSynchronize, so no stream can see
// a half-finished upload). Tables belong to the device current at that call.
// The build runs parallel_for under the mutex, so (as with ntt::DomainT::get)
// a size's first use must not come from inside a parallel_for body while
// another thread may be building: do the first call at set-up.
Result<const NttTables*> ntt_tables(unsigned log_n);

}  // namespace proofpipe::cuda
