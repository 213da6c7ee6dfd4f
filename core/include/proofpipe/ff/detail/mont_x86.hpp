// x86-64 inline-asm kernels (BMI2 mulx, ADX adcx/adox) behind Field<P> on the
// host: Montgomery multiplication for 6 limbs (Fq) and 4 limbs (Fr), squaring
// for 6 limbs, and branch-free modular addition and subtraction.
//
// field.hpp calls these in x86-64 host code, never during constant
// evaluation, and only where x86_kernels_enabled() says the CPU has BMI2 and
// ADX: decided once per process by cpuid (below), or at compile time in a
// build for a named CPU (-march with BMI2 and ADX, CMake option PP_NATIVE),
// where the test costs nothing. Everything else (nvcc code, other hosts and
// CPUs, constexpr) takes the portable C++ there, which is also the reference
// the kernels are tested against (tests/core/field_test.cpp,
// HostKernelsMatchPortable). The assembler accepts mulx/adcx/adox whatever
// -march says, so a baseline x86-64 build carries both paths.
//
// Preconditions, as for the portable "no-carry" CIOS:
//  * top limb of p below 2^63 - 1, so 2p < 2^(64N) and the intermediates
//    below fit in N+1 words (squaring: p < 2^381, see mont_sqr_6);
//  * inputs fully reduced, in [0, p). Outputs are fully reduced too.
// K is MontConsts<P> (static kP, std::array of N limbs, and kInv = -p^-1 mod
// 2^64). The asm reads them through ModData<K>: plain arrays with hidden
// visibility, so they are addressed RIP-relative, costing no register, at any
// -O level and with -fPIC (a default-visibility symbol would be reached
// through the GOT there: one register per limb, which the kernels do not have).
//
// Multiplication is CIOS, one row per limb of b: t += a * b[i] on two
// independent carry chains (adox adds the low halves of the mulx products,
// adcx the high halves), then m = t0 * kInv and t = (t + m*p) / 2^64, again on
// two chains. t lives in N+1 registers whose roles rotate by one per row, so
// the division by 2^64 costs nothing. t + a*b[i] + m*p < 2p * 2^64 <=
// 2^(64(N+1)): the top word never carries out, and t < 2p after each row; one
// conditional subtraction (sub/sbb, cmovnc) reduces fully.
//
// Register budget: 12 general registers for the 6-limb product and square,
// plus rsp; rbp may be the frame pointer. All kernels compile at -O0..-O3,
// with -fPIC and -fno-omit-frame-pointer, under g++ and clang++.
#pragma once

// Not in nvcc translation units (__CUDACC__): their host code never needed
// the kernels, and nvcc's host pass need not meet this file's asm.
#if defined(__x86_64__) && !defined(__CUDACC__) && (defined(__GNUC__) || defined(__clang__))

#include <cpuid.h>

#include <cstddef>
#include <cstdint>
#include <tuple>
#include <utility>

#include <x86intrin.h>  // _addcarry_u64, _subborrow_u64 (mont_x86_wide.hpp)

#if defined(__SANITIZE_ADDRESS__)
#define PPX_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PPX_ASAN 1
#endif
#endif
#if defined(PPX_ASAN)
#include <sanitizer/asan_interface.h>  // PPX_ASM_READS
#endif

#define PP_FF_HAVE_MONT_X86 1

namespace proofpipe::ff::detail {

#define PPX_INLINE inline __attribute__((always_inline))

// Whether this CPU has BMI2 (mulx) and ADX (adcx, adox): cpuid leaf 7,
// EBX bits 8 and 19.
inline bool cpu_has_bmi2_adx() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return false;
  return (b & (1u << 8)) && (b & (1u << 19));
}

#if defined(__ADX__) && defined(__BMI2__)
// Built for a CPU that has them (-march): no run-time test.
PPX_INLINE constexpr bool x86_kernels_enabled() { return true; }
#else
// Read once per process at start-up. Hidden: each binary or shared library
// holds its own copy, reached RIP-relative (no GOT load per product). A
// static initializer that multiplies before this one ran reads false and
// takes the portable path: slower, never wrong. The test costs a load and a
// predicted branch per operation: prove at 2^16 and the field benchmarks
// were within noise of a build with the test compiled out
// (docs/performance.md, "Portable build").
__attribute__((visibility("hidden"))) inline const bool kCpuBmi2Adx = cpu_has_bmi2_adx();
PPX_INLINE bool x86_kernels_enabled() { return kCpuBmi2Adx; }
#endif

// AddressSanitizer instruments the loads the compiler emits, not those inside
// inline asm: in an ASan build (-DPP_SANITIZE=address) each kernel first
// checks the limbs its asm reads from memory, and a read of freed, out of
// bounds or otherwise poisoned bytes is reported as ASan reports any load.
// Stores all happen in C++ after the asm (store_4/store_6), so ASan sees
// them already. Nothing is emitted in other builds.
#if defined(PPX_ASAN)
// Out of line: inlined into the register-hungry 6-limb kernels it crashes
// clang 14's register allocator.
[[gnu::noinline]] inline void asm_reads(const uint64_t* p, size_t limbs) {
  if (void* bad = __asan_region_is_poisoned(const_cast<uint64_t*>(p), limbs * sizeof(uint64_t)))
    __asan_report_error(__builtin_return_address(0), __builtin_frame_address(0), __builtin_frame_address(0), bad, 0,
                        limbs * sizeof(uint64_t));
}
#define PPX_ASM_READS(p, limbs) asm_reads(p, limbs)
#else
#define PPX_ASM_READS(p, limbs) ((void)0)
#endif

// The modulus limbs and -p^-1 as plain static arrays with hidden visibility
// (see above). Read only from the asm, as memory operands.
template <class K, class Seq = std::make_index_sequence<std::tuple_size_v<decltype(K::kP)>>>
struct ModData;
template <class K, size_t... I>
struct ModData<K, std::index_sequence<I...>> {
  __attribute__((visibility("hidden"))) static constexpr uint64_t p[sizeof...(I)] = {K::kP[I]...};
  __attribute__((visibility("hidden"))) static constexpr uint64_t inv = K::kInv;
};

// Operand reference by name: PPX_R(t3) -> "%[t3]".
#define PPX_R(x) "%[" #x "]"

// ---------------------------------------------------------------------------
// Building blocks (as string literals). Register arguments are operand names;
// a and b are pointer operands, p0.., inv the modulus limbs and -p^-1.
// ---------------------------------------------------------------------------

// Row 0, t = a * b[0] (t was zero): one plain carry chain.
#define PPX_ROW0_4(T0, T1, T2, T3, T4) \
  "movq (%[b]), %%rdx\n\t"                       \
  "mulxq (%[a]), " PPX_R(T0) ", " PPX_R(T1) "\n\t" \
  "mulxq 8(%[a]), %[lo], " PPX_R(T2) "\n\t"      \
  "addq %[lo], " PPX_R(T1) "\n\t"                \
  "mulxq 16(%[a]), %[lo], " PPX_R(T3) "\n\t"     \
  "adcq %[lo], " PPX_R(T2) "\n\t"                \
  "mulxq 24(%[a]), %[lo], " PPX_R(T4) "\n\t"     \
  "adcq %[lo], " PPX_R(T3) "\n\t"                \
  "adcq $0, " PPX_R(T4) "\n\t"

#define PPX_ROW0_6(T0, T1, T2, T3, T4, T5, T6) \
  "movq (%[b]), %%rdx\n\t"                       \
  "mulxq (%[a]), " PPX_R(T0) ", " PPX_R(T1) "\n\t" \
  "mulxq 8(%[a]), %[lo], " PPX_R(T2) "\n\t"      \
  "addq %[lo], " PPX_R(T1) "\n\t"                \
  "mulxq 16(%[a]), %[lo], " PPX_R(T3) "\n\t"     \
  "adcq %[lo], " PPX_R(T2) "\n\t"                \
  "mulxq 24(%[a]), %[lo], " PPX_R(T4) "\n\t"     \
  "adcq %[lo], " PPX_R(T3) "\n\t"                \
  "mulxq 32(%[a]), %[lo], " PPX_R(T5) "\n\t"     \
  "adcq %[lo], " PPX_R(T4) "\n\t"                \
  "mulxq 40(%[a]), %[lo], " PPX_R(T6) "\n\t"     \
  "adcq %[lo], " PPX_R(T5) "\n\t"                \
  "adcq $0, " PPX_R(T6) "\n\t"

// One product term on the two chains: (hi:lo) = rdx * SRC; T_J += lo (OF);
// T_J1 += hi (CF).
#define PPX_MAC(SRC, TJ, TJ1) \
  "mulxq " SRC ", %[lo], %[hi]\n\t"           \
  "adoxq %[lo], " PPX_R(TJ) "\n\t"            \
  "adcxq %[hi], " PPX_R(TJ1) "\n\t"

// Row i >= 1: t(T0..T{N-1}) += a * b[i] into N+1 words (T_N starts at 0).
// The last OF goes in through rdx = 0 (mov leaves the flags alone).
#define PPX_ROW_4(OFF, T0, T1, T2, T3, T4) \
  "movq " OFF "(%[b]), %%rdx\n\t"                           \
  "xorl %k[" #T4 "], %k[" #T4 "]\n\t"                       \
  PPX_MAC("(%[a])", T0, T1) PPX_MAC("8(%[a])", T1, T2)      \
  PPX_MAC("16(%[a])", T2, T3) PPX_MAC("24(%[a])", T3, T4)   \
  "movl $0, %%edx\n\t"                                      \
  "adoxq %%rdx, " PPX_R(T4) "\n\t"

#define PPX_ROW_6(OFF, T0, T1, T2, T3, T4, T5, T6) \
  "movq " OFF "(%[b]), %%rdx\n\t"                           \
  "xorl %k[" #T6 "], %k[" #T6 "]\n\t"                       \
  PPX_MAC("(%[a])", T0, T1) PPX_MAC("8(%[a])", T1, T2)      \
  PPX_MAC("16(%[a])", T2, T3) PPX_MAC("24(%[a])", T3, T4)   \
  PPX_MAC("32(%[a])", T4, T5) PPX_MAC("40(%[a])", T5, T6)   \
  "movl $0, %%edx\n\t"                                      \
  "adoxq %%rdx, " PPX_R(T6) "\n\t"

// Reduction step: m = T0 * inv; (T0..T_N) += m * p. T0 becomes 0 (that is
// what m is for), so it also serves as the zero that takes in the last OF.
// The caller's view of t then starts at T1.
#define PPX_RED_4(T0, T1, T2, T3, T4) \
  "movq " PPX_R(T0) ", %%rdx\n\t"                                  \
  "imulq %[inv], %%rdx\n\t"                                        \
  "xorl %k[lo], %k[lo]\n\t"                                        \
  PPX_MAC("%[p0]", T0, T1) PPX_MAC("%[p1]", T1, T2)                \
  PPX_MAC("%[p2]", T2, T3) PPX_MAC("%[p3]", T3, T4)                \
  "adoxq " PPX_R(T0) ", " PPX_R(T4) "\n\t"

#define PPX_RED_6(T0, T1, T2, T3, T4, T5, T6) \
  "movq " PPX_R(T0) ", %%rdx\n\t"                                  \
  "imulq %[inv], %%rdx\n\t"                                        \
  "xorl %k[lo], %k[lo]\n\t"                                        \
  PPX_MAC("%[p0]", T0, T1) PPX_MAC("%[p1]", T1, T2)                \
  PPX_MAC("%[p2]", T2, T3) PPX_MAC("%[p3]", T3, T4)                \
  PPX_MAC("%[p4]", T4, T5) PPX_MAC("%[p5]", T5, T6)                \
  "adoxq " PPX_R(T0) ", " PPX_R(T6) "\n\t"

// Conditional subtraction of p from (X0..X{N-1}) < 2p, using the scratch
// registers S0..: S = X - p; if that did not borrow, X = S.
#define PPX_CSUB_4(X0, X1, X2, X3, S0, S1, S2, S3) \
  "movq " PPX_R(X0) ", " PPX_R(S0) "\n\t"                          \
  "subq %[p0], " PPX_R(S0) "\n\t"                                  \
  "movq " PPX_R(X1) ", " PPX_R(S1) "\n\t"                          \
  "sbbq %[p1], " PPX_R(S1) "\n\t"                                  \
  "movq " PPX_R(X2) ", " PPX_R(S2) "\n\t"                          \
  "sbbq %[p2], " PPX_R(S2) "\n\t"                                  \
  "movq " PPX_R(X3) ", " PPX_R(S3) "\n\t"                          \
  "sbbq %[p3], " PPX_R(S3) "\n\t"                                  \
  "cmovncq " PPX_R(S0) ", " PPX_R(X0) "\n\t"                       \
  "cmovncq " PPX_R(S1) ", " PPX_R(X1) "\n\t"                       \
  "cmovncq " PPX_R(S2) ", " PPX_R(X2) "\n\t"                       \
  "cmovncq " PPX_R(S3) ", " PPX_R(X3) "\n\t"

#define PPX_CSUB_6(X0, X1, X2, X3, X4, X5, S0, S1, S2, S3, S4, S5) \
  "movq " PPX_R(X0) ", " PPX_R(S0) "\n\t"                          \
  "subq %[p0], " PPX_R(S0) "\n\t"                                  \
  "movq " PPX_R(X1) ", " PPX_R(S1) "\n\t"                          \
  "sbbq %[p1], " PPX_R(S1) "\n\t"                                  \
  "movq " PPX_R(X2) ", " PPX_R(S2) "\n\t"                          \
  "sbbq %[p2], " PPX_R(S2) "\n\t"                                  \
  "movq " PPX_R(X3) ", " PPX_R(S3) "\n\t"                          \
  "sbbq %[p3], " PPX_R(S3) "\n\t"                                  \
  "movq " PPX_R(X4) ", " PPX_R(S4) "\n\t"                          \
  "sbbq %[p4], " PPX_R(S4) "\n\t"                                  \
  "movq " PPX_R(X5) ", " PPX_R(S5) "\n\t"                          \
  "sbbq %[p5], " PPX_R(S5) "\n\t"                                  \
  "cmovncq " PPX_R(S0) ", " PPX_R(X0) "\n\t"                       \
  "cmovncq " PPX_R(S1) ", " PPX_R(X1) "\n\t"                       \
  "cmovncq " PPX_R(S2) ", " PPX_R(X2) "\n\t"                       \
  "cmovncq " PPX_R(S3) ", " PPX_R(X3) "\n\t"                       \
  "cmovncq " PPX_R(S4) ", " PPX_R(X4) "\n\t"                       \
  "cmovncq " PPX_R(S5) ", " PPX_R(X5) "\n\t"

// Operand lists shared by the kernels (the modulus limbs, and -p^-1).
#define PPX_P_OPERANDS_4(K) \
  [p0] "m"(ModData<K>::p[0]), [p1] "m"(ModData<K>::p[1]), [p2] "m"(ModData<K>::p[2]), [p3] "m"(ModData<K>::p[3])
#define PPX_P_OPERANDS_6(K) PPX_P_OPERANDS_4(K), [p4] "m"(ModData<K>::p[4]), [p5] "m"(ModData<K>::p[5])
#define PPX_MOD_OPERANDS_4(K) PPX_P_OPERANDS_4(K), [inv] "m"(ModData<K>::inv)
#define PPX_MOD_OPERANDS_6(K) PPX_P_OPERANDS_6(K), [inv] "m"(ModData<K>::inv)

// The 6-limb kernels' register window t0..t6 and the product scratch lo, hi,
// rdx, as output operands.
#define PPX_WINDOW_OUTPUTS_6                                                                                      \
  [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4), [t5] "=&r"(t5), [t6] "=&r"(t6), \
      [lo] "=&r"(lo), [hi] "=&r"(hi), [dx] "=&d"(dx)

// r[0..6) = (x0, ..., x5): the kernels' results leave the asm in registers
// whose roles rotate, so the order differs per kernel.
PPX_INLINE void store_6(uint64_t* r, uint64_t x0, uint64_t x1, uint64_t x2, uint64_t x3, uint64_t x4, uint64_t x5) {
  r[0] = x0;
  r[1] = x1;
  r[2] = x2;
  r[3] = x3;
  r[4] = x4;
  r[5] = x5;
}

// ---------------------------------------------------------------------------
// Multiplication. r may alias a or b: all stores happen after the asm.
// ---------------------------------------------------------------------------

template <class K>
PPX_INLINE void mont_mul_4(uint64_t* r, const uint64_t* a, const uint64_t* b) {
  PPX_ASM_READS(a, 4), PPX_ASM_READS(b, 4);
  uint64_t t0, t1, t2, t3, t4, lo, hi, dx;
  __asm__(
      // clang-format off
      PPX_ROW0_4(t0, t1, t2, t3, t4)
      PPX_RED_4(t0, t1, t2, t3, t4)
      PPX_ROW_4("8", t1, t2, t3, t4, t0)
      PPX_RED_4(t1, t2, t3, t4, t0)
      PPX_ROW_4("16", t2, t3, t4, t0, t1)
      PPX_RED_4(t2, t3, t4, t0, t1)
      PPX_ROW_4("24", t3, t4, t0, t1, t2)
      PPX_RED_4(t3, t4, t0, t1, t2)
      // t = (t4, t0, t1, t2) < 2p; t3 is free.
      PPX_CSUB_4(t4, t0, t1, t2, lo, hi, dx, t3)
      // clang-format on
      : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4), [lo] "=&r"(lo), [hi] "=&r"(hi),
        [dx] "=&d"(dx)
      : [a] "r"(a), [b] "r"(b), "m"(*reinterpret_cast<const uint64_t(*)[4]>(a)),
        "m"(*reinterpret_cast<const uint64_t(*)[4]>(b)), PPX_MOD_OPERANDS_4(K)
      : "cc");
  r[0] = t4;
  r[1] = t0;
  r[2] = t1;
  r[3] = t2;
}

template <class K>
PPX_INLINE void mont_mul_6(uint64_t* r, const uint64_t* a, const uint64_t* b) {
  PPX_ASM_READS(a, 6), PPX_ASM_READS(b, 6);
  uint64_t t0, t1, t2, t3, t4, t5, t6, lo, hi, dx;
  const uint64_t* pa = a;
  const uint64_t* pb = b;
  __asm__(
      // clang-format off
      PPX_ROW0_6(t0, t1, t2, t3, t4, t5, t6)
      PPX_RED_6(t0, t1, t2, t3, t4, t5, t6)
      PPX_ROW_6("8", t1, t2, t3, t4, t5, t6, t0)
      PPX_RED_6(t1, t2, t3, t4, t5, t6, t0)
      PPX_ROW_6("16", t2, t3, t4, t5, t6, t0, t1)
      PPX_RED_6(t2, t3, t4, t5, t6, t0, t1)
      PPX_ROW_6("24", t3, t4, t5, t6, t0, t1, t2)
      PPX_RED_6(t3, t4, t5, t6, t0, t1, t2)
      PPX_ROW_6("32", t4, t5, t6, t0, t1, t2, t3)
      PPX_RED_6(t4, t5, t6, t0, t1, t2, t3)
      PPX_ROW_6("40", t5, t6, t0, t1, t2, t3, t4)
      PPX_RED_6(t5, t6, t0, t1, t2, t3, t4)
      // t = (t6, t0, t1, t2, t3, t4) < 2p; t5 and the pointers are free.
      PPX_CSUB_6(t6, t0, t1, t2, t3, t4, lo, hi, dx, t5, a, b)
      // clang-format on
      : PPX_WINDOW_OUTPUTS_6, [a] "+&r"(pa), [b] "+&r"(pb)
      : "m"(*reinterpret_cast<const uint64_t(*)[6]>(a)), "m"(*reinterpret_cast<const uint64_t(*)[6]>(b)),
        PPX_MOD_OPERANDS_6(K)
      : "cc");
  store_6(r, t6, t0, t1, t2, t3, t4);
}

// ---------------------------------------------------------------------------
// Squaring, 6 limbs, interleaved with the reduction like the product (CIOS
// order), needs p < 2^381 (top limb below 2^61). With V_j = a_j +
// 2 * sum_{k>j} a_k 2^(64(k-j)), a^2 = sum_j a_j V_j 2^(128j): row j is
// a_j * V_j, 6-j products, added at limb 2j. It goes in right after the
// reduction step j-1, where the window (limbs j..j+6) ends exactly at its top
// limb, so the rows have the same shape as in the product, only shorter: 21
// products instead of 36. V_j's limbs are a_j, e_{j+1}, d_{j+2}, ..., d_5 with
// e_k = 2 a_k mod 2^64 and d_k = e_k + (a_{k-1} >> 63) (the bits of 2a), which
// go to a stack scratch first. The window never overflows: after step i it
// holds (rows 0..i + M_i p) / 2^(64(i+1)), below 2^382.6 for every i even with
// worst-case limbs (a_5 < 2^61, the others 2^64 - 1, every m = 2^64 - 1), so
// below 2^384; the end value is < 2p as in the product.
// 21 + 36 products instead of 72: about 10% faster than mont_mul_6(a, a) here,
// in latency and throughput. (A 4-limb square was tried, product first then
// reduction: no latency gain and ~3% throughput, so Fr squares with the
// product.)
// ---------------------------------------------------------------------------
template <class K>
inline constexpr bool kSqr6Applies = K::kP.size() == 6 && K::kP[5] < (uint64_t(1) << 61);

template <class K>
PPX_INLINE void mont_sqr_6(uint64_t* r, const uint64_t* a) {
  PPX_ASM_READS(a, 6);
  static_assert(kSqr6Applies<K>, "interleaved squaring needs 6 limbs and p < 2^381");
  uint64_t t0, t1, t2, t3, t4, t5, t6, lo, hi, dx;
  uint64_t scratch[9];  // e1..e5 at 0..32, d2..d5 at 40..64
  const uint64_t* pa = a;
  uint64_t* ps = scratch;
  __asm__(
      // clang-format off
      "movq 8(%[a]), %[t1]\n\t"
      "leaq (%[t1], %[t1]), %[lo]\n\t"
      "movq %[lo], 0(%[s])\n\t"
      "movq 16(%[a]), %[t2]\n\t"
      "leaq (%[t2], %[t2]), %[lo]\n\t"
      "movq %[lo], 8(%[s])\n\t"
      "movq %[t1], %[hi]\n\t"
      "shrq $63, %[hi]\n\t"
      "leaq (%[hi], %[t2], 2), %[hi]\n\t"
      "movq %[hi], 40(%[s])\n\t"
      "movq 24(%[a]), %[t3]\n\t"
      "leaq (%[t3], %[t3]), %[lo]\n\t"
      "movq %[lo], 16(%[s])\n\t"
      "movq %[t2], %[hi]\n\t"
      "shrq $63, %[hi]\n\t"
      "leaq (%[hi], %[t3], 2), %[hi]\n\t"
      "movq %[hi], 48(%[s])\n\t"
      "movq 32(%[a]), %[t4]\n\t"
      "leaq (%[t4], %[t4]), %[lo]\n\t"
      "movq %[lo], 24(%[s])\n\t"
      "movq %[t3], %[hi]\n\t"
      "shrq $63, %[hi]\n\t"
      "leaq (%[hi], %[t4], 2), %[hi]\n\t"
      "movq %[hi], 56(%[s])\n\t"
      "movq 40(%[a]), %[t5]\n\t"
      "leaq (%[t5], %[t5]), %[lo]\n\t"
      "movq %[lo], 32(%[s])\n\t"
      "movq %[t4], %[hi]\n\t"
      "shrq $63, %[hi]\n\t"
      "leaq (%[hi], %[t5], 2), %[hi]\n\t"
      "movq %[hi], 64(%[s])\n\t"
      // Row 0: a0 * (a0, e1, d2, d3, d4, d5) into t0..t6.
      "movq (%[a]), %%rdx\n\t"
      "mulxq %%rdx, %[t0], %[t1]\n\t"
      "mulxq 0(%[s]), %[lo], %[t2]\n\t"
      "addq %[lo], %[t1]\n\t"
      "mulxq 40(%[s]), %[lo], %[t3]\n\t"
      "adcq %[lo], %[t2]\n\t"
      "mulxq 48(%[s]), %[lo], %[t4]\n\t"
      "adcq %[lo], %[t3]\n\t"
      "mulxq 56(%[s]), %[lo], %[t5]\n\t"
      "adcq %[lo], %[t4]\n\t"
      "mulxq 64(%[s]), %[lo], %[t6]\n\t"
      "adcq %[lo], %[t5]\n\t"
      "adcq $0, %[t6]\n\t"
      PPX_RED_6(t0, t1, t2, t3, t4, t5, t6)
      // Row 1: a1 * (a1, e2, d3, d4, d5) at window offset 1.
      "movq 8(%[a]), %%rdx\n\t"
      "xorl %k[t0], %k[t0]\n\t"
      PPX_MAC("%%rdx", t2, t3) PPX_MAC("8(%[s])", t3, t4) PPX_MAC("48(%[s])", t4, t5)
      PPX_MAC("56(%[s])", t5, t6) PPX_MAC("64(%[s])", t6, t0)
      "movl $0, %%edx\n\t"
      "adoxq %%rdx, %[t0]\n\t"
      PPX_RED_6(t1, t2, t3, t4, t5, t6, t0)
      // Row 2: a2 * (a2, e3, d4, d5) at offset 2.
      "movq 16(%[a]), %%rdx\n\t"
      "xorl %k[t1], %k[t1]\n\t"
      PPX_MAC("%%rdx", t4, t5) PPX_MAC("16(%[s])", t5, t6) PPX_MAC("56(%[s])", t6, t0)
      PPX_MAC("64(%[s])", t0, t1)
      "movl $0, %%edx\n\t"
      "adoxq %%rdx, %[t1]\n\t"
      PPX_RED_6(t2, t3, t4, t5, t6, t0, t1)
      // Row 3: a3 * (a3, e4, d5) at offset 3.
      "movq 24(%[a]), %%rdx\n\t"
      "xorl %k[t2], %k[t2]\n\t"
      PPX_MAC("%%rdx", t6, t0) PPX_MAC("24(%[s])", t0, t1) PPX_MAC("64(%[s])", t1, t2)
      "movl $0, %%edx\n\t"
      "adoxq %%rdx, %[t2]\n\t"
      PPX_RED_6(t3, t4, t5, t6, t0, t1, t2)
      // Row 4: a4 * (a4, e5) at offset 4.
      "movq 32(%[a]), %%rdx\n\t"
      "xorl %k[t3], %k[t3]\n\t"
      PPX_MAC("%%rdx", t1, t2) PPX_MAC("32(%[s])", t2, t3)
      "movl $0, %%edx\n\t"
      "adoxq %%rdx, %[t3]\n\t"
      PPX_RED_6(t4, t5, t6, t0, t1, t2, t3)
      // Row 5: a5 * a5 at offset 5.
      "movq 40(%[a]), %%rdx\n\t"
      "xorl %k[t4], %k[t4]\n\t"
      PPX_MAC("%%rdx", t3, t4)
      "movl $0, %%edx\n\t"
      "adoxq %%rdx, %[t4]\n\t"
      PPX_RED_6(t5, t6, t0, t1, t2, t3, t4)
      // t = (t6, t0, t1, t2, t3, t4) < 2p.
      PPX_CSUB_6(t6, t0, t1, t2, t3, t4, lo, hi, dx, t5, a, s)
      // clang-format on
      : PPX_WINDOW_OUTPUTS_6, [a] "+&r"(pa), [s] "+&r"(ps), "=m"(scratch)
      : "m"(*reinterpret_cast<const uint64_t(*)[6]>(a)), PPX_MOD_OPERANDS_6(K)
      : "cc");
  store_6(r, t6, t0, t1, t2, t3, t4);
}

// ---------------------------------------------------------------------------
// Addition and subtraction, branch-free (the portable versions branch on the
// comparison with p, which mispredicts about half the time on random data).
// a arrives in the registers x0.. (in/out), b as memory operands.
// ---------------------------------------------------------------------------

// r = a + b mod p: a + b < 2p < 2^(64N), then the conditional subtraction.
template <class K>
PPX_INLINE void mod_add_4(uint64_t* r, const uint64_t* a, const uint64_t* b) {
  PPX_ASM_READS(b, 4);
  uint64_t x0 = a[0], x1 = a[1], x2 = a[2], x3 = a[3], s0, s1, s2, s3;
  __asm__(
      "addq (%[b]), %[x0]\n\t"
      "adcq 8(%[b]), %[x1]\n\t"
      "adcq 16(%[b]), %[x2]\n\t"
      "adcq 24(%[b]), %[x3]\n\t"  //
      PPX_CSUB_4(x0, x1, x2, x3, s0, s1, s2, s3)
      : [x0] "+&r"(x0), [x1] "+&r"(x1), [x2] "+&r"(x2), [x3] "+&r"(x3), [s0] "=&r"(s0), [s1] "=&r"(s1), [s2] "=&r"(s2),
        [s3] "=&r"(s3)
      : [b] "r"(b), "m"(*reinterpret_cast<const uint64_t(*)[4]>(b)), PPX_P_OPERANDS_4(K)
      : "cc");
  r[0] = x0;
  r[1] = x1;
  r[2] = x2;
  r[3] = x3;
}

template <class K>
PPX_INLINE void mod_add_6(uint64_t* r, const uint64_t* a, const uint64_t* b) {
  PPX_ASM_READS(b, 6);
  uint64_t x0 = a[0], x1 = a[1], x2 = a[2], x3 = a[3], x4 = a[4], x5 = a[5], s0, s1, s2, s3, s4, s5;
  __asm__(
      "addq (%[b]), %[x0]\n\t"
      "adcq 8(%[b]), %[x1]\n\t"
      "adcq 16(%[b]), %[x2]\n\t"
      "adcq 24(%[b]), %[x3]\n\t"
      "adcq 32(%[b]), %[x4]\n\t"
      "adcq 40(%[b]), %[x5]\n\t"  //
      PPX_CSUB_6(x0, x1, x2, x3, x4, x5, s0, s1, s2, s3, s4, s5)
      : [x0] "+&r"(x0), [x1] "+&r"(x1), [x2] "+&r"(x2), [x3] "+&r"(x3), [x4] "+&r"(x4), [x5] "+&r"(x5), [s0] "=&r"(s0),
        [s1] "=&r"(s1), [s2] "=&r"(s2), [s3] "=&r"(s3), [s4] "=&r"(s4), [s5] "=&r"(s5)
      : [b] "r"(b), "m"(*reinterpret_cast<const uint64_t(*)[6]>(b)), PPX_P_OPERANDS_6(K)
      : "cc");
  store_6(r, x0, x1, x2, x3, x4, x5);
}

// r = a - b mod p: a - b, then p added back if that borrowed. The borrow is
// kept in ZF (test of 0 - borrow) while the add-back runs on adcx, which
// writes CF only; each limb of p is zeroed by cmovz when there was no borrow.
// Few registers (N + 3), so this also compiles at -O0 and with a frame pointer.
#define PPX_SUB_ADDBACK(P, X) \
  "movq %[" #P                \
  "], %[s]\n\t"               \
  "cmovzq %[m], %[s]\n\t"     \
  "adcxq %[s], %[" #X "]\n\t"

template <class K>
PPX_INLINE void mod_sub_4(uint64_t* r, const uint64_t* a, const uint64_t* b) {
  PPX_ASM_READS(b, 4);
  uint64_t x0 = a[0], x1 = a[1], x2 = a[2], x3 = a[3], s, mask;
  __asm__(
      "subq (%[b]), %[x0]\n\t"
      "sbbq 8(%[b]), %[x1]\n\t"
      "sbbq 16(%[b]), %[x2]\n\t"
      "sbbq 24(%[b]), %[x3]\n\t"
      "sbbq %[m], %[m]\n\t"
      "testq %[m], %[m]\n\t"  // ZF = no borrow; CF = 0
      PPX_SUB_ADDBACK(p0, x0) PPX_SUB_ADDBACK(p1, x1) PPX_SUB_ADDBACK(p2, x2) PPX_SUB_ADDBACK(p3, x3)
      : [x0] "+&r"(x0), [x1] "+&r"(x1), [x2] "+&r"(x2), [x3] "+&r"(x3), [s] "=&r"(s), [m] "=&r"(mask)
      : [b] "r"(b), "m"(*reinterpret_cast<const uint64_t(*)[4]>(b)), PPX_P_OPERANDS_4(K)
      : "cc");
  r[0] = x0;
  r[1] = x1;
  r[2] = x2;
  r[3] = x3;
}

template <class K>
PPX_INLINE void mod_sub_6(uint64_t* r, const uint64_t* a, const uint64_t* b) {
  PPX_ASM_READS(b, 6);
  uint64_t x0 = a[0], x1 = a[1], x2 = a[2], x3 = a[3], x4 = a[4], x5 = a[5], s, mask;
  __asm__(
      "subq (%[b]), %[x0]\n\t"
      "sbbq 8(%[b]), %[x1]\n\t"
      "sbbq 16(%[b]), %[x2]\n\t"
      "sbbq 24(%[b]), %[x3]\n\t"
      "sbbq 32(%[b]), %[x4]\n\t"
      "sbbq 40(%[b]), %[x5]\n\t"
      "sbbq %[m], %[m]\n\t"
      "testq %[m], %[m]\n\t" PPX_SUB_ADDBACK(p0, x0) PPX_SUB_ADDBACK(p1, x1) PPX_SUB_ADDBACK(p2, x2)
          PPX_SUB_ADDBACK(p3, x3) PPX_SUB_ADDBACK(p4, x4) PPX_SUB_ADDBACK(p5, x5)
      : [x0] "+&r"(x0), [x1] "+&r"(x1), [x2] "+&r"(x2), [x3] "+&r"(x3), [x4] "+&r"(x4), [x5] "+&r"(x5), [s] "=&r"(s),
        [m] "=&r"(mask)
      : [b] "r"(b), "m"(*reinterpret_cast<const uint64_t(*)[6]>(b)), PPX_P_OPERANDS_6(K)
      : "cc");
  store_6(r, x0, x1, x2, x3, x4, x5);
}

// The 6x6 -> 12-limb product and the separate reduction (lazy Fq2 products),
// built from the macros above.
#include "proofpipe/ff/detail/mont_x86_wide.hpp"

}  // namespace proofpipe::ff::detail

#undef PPX_INLINE
#undef PPX_ASM_READS
#undef PPX_ASAN
#undef PPX_R
#undef PPX_ROW0_4
#undef PPX_ROW0_6
#undef PPX_MAC
#undef PPX_ROW_4
#undef PPX_ROW_6
#undef PPX_RED_4
#undef PPX_RED_6
#undef PPX_CSUB_4
#undef PPX_CSUB_6
#undef PPX_P_OPERANDS_4
#undef PPX_P_OPERANDS_6
#undef PPX_MOD_OPERANDS_4
#undef PPX_MOD_OPERANDS_6
#undef PPX_WINDOW_OUTPUTS_6
#undef PPX_SUB_ADDBACK

#endif  // x86-64 host, GCC or Clang
