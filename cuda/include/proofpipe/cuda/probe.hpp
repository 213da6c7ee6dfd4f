// The smallest CUDA entry points: how many devices there are, and a batch of
// Fr multiplications computed on the device with the same Field template the
// host uses. They prove the toolchain (nvcc compiles core/ headers for the
// device and the host links the result) and give the gpu tests a first twin.
#pragma once

#include <cstddef>

#include "proofpipe/common/status.hpp"
#include "proofpipe/cuda/device.hpp"
#include "proofpipe/ff/bls12_381.hpp"

namespace proofpipe::cuda {

// out[i] = a[i] * b[i] in Fr, computed on device 0. Host spans of n elements.
Status fr_mul_batch(const ff::Fr* a, const ff::Fr* b, ff::Fr* out, size_t n);

}  // namespace proofpipe::cuda
