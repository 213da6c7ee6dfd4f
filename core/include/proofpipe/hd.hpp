// Host/device annotations. Field and curve headers are written once for the
// host compiler and nvcc: under nvcc PP_HD is __host__ __device__, under the
// host compiler it is empty.
#pragma once

#if defined(__CUDACC__)
#define PP_HD __host__ __device__
#define PP_HD_INLINE __host__ __device__ __forceinline__
#else
#define PP_HD
#define PP_HD_INLINE inline __attribute__((always_inline))
#endif
