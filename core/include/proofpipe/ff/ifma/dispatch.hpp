// Whether the eight-lane AVX-512 IFMA field code (field8.hpp) may run in this
// process. The scalar ff::Field path is the fallback and the reference; the
// IFMA path is taken only when the CPU reports AVX-512F, VL and IFMA, the OS
// saves the ZMM and opmask state (XCR0), and PROOFPIPE_SIMD is not "off".
#pragma once

// The kernels (field8.hpp, batch_affine.hpp) exist in x86-64 builds by GCC
// or Clang; elsewhere only this header's functions do (they say kScalar).
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define PP_IFMA_COMPILED 1
#endif

namespace proofpipe::ff::ifma {

#if defined(PP_IFMA_COMPILED)
inline constexpr bool kIfmaCompiled = true;
#else
inline constexpr bool kIfmaCompiled = false;
#endif

enum class SimdPath { kScalar, kIfma };

// The CPU and OS side alone (cpuid + xgetbv); false off x86-64.
bool cpu_has_ifma();

// The decision for a given CPU answer and PROOFPIPE_SIMD value (nullptr when
// unset): "off" forces kScalar; anything else leaves the CPU to decide.
SimdPath choose_simd_path(bool cpu_has_ifma, const char* env_value);

// The decision for this process, from cpu_has_ifma() and the environment,
// taken on the first call and kept (the environment is read once); a
// ScopedSimdPath in force takes precedence.
SimdPath simd_path();

// Forces simd_path() for its lifetime, process-wide (tests and benchmarks
// that compare both paths in one process). kIfma is only honoured where
// cpu_has_ifma(), but over PROOFPIPE_SIMD=off too: it is for code that
// compares both paths on purpose. Not for concurrent use: one at a time, no
// MSM running.
class ScopedSimdPath {
 public:
  explicit ScopedSimdPath(SimdPath p);
  ~ScopedSimdPath();
  ScopedSimdPath(const ScopedSimdPath&) = delete;
  ScopedSimdPath& operator=(const ScopedSimdPath&) = delete;

 private:
  int previous_;
};

// Re-reads the environment: for tests that set PROOFPIPE_SIMD themselves.
SimdPath detect_simd_path();

const char* simd_path_name(SimdPath p);

}  // namespace proofpipe::ff::ifma
