// The device fast path of Field<P> for Fr (4 limbs) and Fq (6 limbs): the
// 32-bit Montgomery kernels of mont32.hpp run on PtxIsa, whose instructions
// are one inline-PTX statement each (mad.lo.cc.u32, madc.hi.cc.u32, addc.u32,
// sub.cc.u32, ...), the carry living in the hardware's CC.CF between them.
//
// The asm statements are volatile: the compiler keeps them in program order,
// so no carry consumer is moved away from its producer; ptxas then maps the
// CC chain onto predicate carries (IMAD.WIDE / IADD3 with .X) and schedules
// it. Between two asm statements of one chain the C++ does nothing that could
// write CC (32-bit multiplies, ands and moves only). The one assumption not
// checked here: that NVVM never places a .cc instruction of its own (it emits
// them for 128-bit integer adds, e.g. the portable + and -) between two of
// these statements. It keeps the volatile asm in order but could in
// principle move other arithmetic between them; the GPU tests' bit-for-bit
// comparisons are what would catch that.
//
// Entry points ptx_mul/ptx_sqr/ptx_add/ptx_sub<K>(r, a, b) take the Field's
// 64-bit limbs (K = MontConsts<P>); ptx_sqr is the dedicated square for Fq
// and the product a*a for Fr (see m32_sqr for why). In device code they run
// PtxIsa; in host code (tests/cuda's host tests, and host passes of .cu files)
// the same algorithm runs on EmuIsa, so every caller is PP_HD and testable on
// the CPU. field.hpp dispatches *, sqr(), + and - to them in device code only
// (__CUDA_ARCH__, unless PP_CUDA_NO_PTX is defined); constant evaluation
// keeps the portable C++.
#pragma once

#include <cstdint>

#include "proofpipe/ff/detail/mont32.hpp"
#include "proofpipe/hd.hpp"

namespace proofpipe::ff::detail {

#if defined(__CUDACC__)
// One PTX instruction per member; the semantics are EmuIsa's (mont32.hpp).
struct PtxIsa {
#define PP_PTX3(name, insn)                                                      \
  __device__ __forceinline__ uint32_t name(uint32_t a, uint32_t b, uint32_t c) { \
    uint32_t d;                                                                  \
    asm volatile(insn " %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));    \
    return d;                                                                    \
  }
#define PP_PTX2(name, insn)                                          \
  __device__ __forceinline__ uint32_t name(uint32_t a, uint32_t b) { \
    uint32_t d;                                                      \
    asm volatile(insn " %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));    \
    return d;                                                        \
  }
  PP_PTX3(mad_lo_cc, "mad.lo.cc.u32")
  PP_PTX3(madc_lo_cc, "madc.lo.cc.u32")
  PP_PTX3(mad_hi_cc, "mad.hi.cc.u32")
  PP_PTX3(madc_hi_cc, "madc.hi.cc.u32")
  PP_PTX3(madc_hi, "madc.hi.u32")
  PP_PTX2(add_cc, "add.cc.u32")
  PP_PTX2(addc_cc, "addc.cc.u32")
  PP_PTX2(addc, "addc.u32")
  PP_PTX2(sub_cc, "sub.cc.u32")
  PP_PTX2(subc_cc, "subc.cc.u32")
  PP_PTX2(subc, "subc.u32")
#undef PP_PTX3
#undef PP_PTX2
};
#endif

// Whether Field<P> has the 32-bit kernels: Fr and Fq shapes with headroom.
template <class K>
inline constexpr bool kPtxApplies = (K::N == 4 || K::N == 6) && kMont32Applies<K>;

// PtxIsa on the device, EmuIsa on the host: one algorithm, two encodings.
#if defined(__CUDA_ARCH__)
#define PP_M32_ISA PtxIsa
#else
#define PP_M32_ISA EmuIsa
#endif

template <class K>
PP_HD_INLINE void ptx_mul(uint64_t* r, const uint64_t* a, const uint64_t* b) {
  PP_M32_ISA isa;
  m32_mul_limbs<K>(isa, r, a, b);
}
template <class K>
PP_HD_INLINE void ptx_sqr(uint64_t* r, const uint64_t* a) {
  PP_M32_ISA isa;
  m32_sqr_limbs<K>(isa, r, a);
}
template <class K>
PP_HD_INLINE void ptx_add(uint64_t* r, const uint64_t* a, const uint64_t* b) {
  PP_M32_ISA isa;
  m32_add_limbs<K>(isa, r, a, b);
}
template <class K>
PP_HD_INLINE void ptx_sub(uint64_t* r, const uint64_t* a, const uint64_t* b) {
  PP_M32_ISA isa;
  m32_sub_limbs<K>(isa, r, a, b);
}

#undef PP_M32_ISA

}  // namespace proofpipe::ff::detail
