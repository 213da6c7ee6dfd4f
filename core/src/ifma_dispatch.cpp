// Run-time detection of AVX-512 IFMA for the eight-lane field code; the
// PROOFPIPE_SIMD=off override (docs/performance.md).
#include "proofpipe/ff/ifma/dispatch.hpp"

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace proofpipe::ff::ifma {

bool cpu_has_ifma() {
#if defined(__x86_64__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return false;
  if (!(c & (1u << 27))) return false;  // OSXSAVE: xgetbv is usable
  // XCR0: SSE (1), AVX (2), opmask (5), ZMM0-15 upper halves (6), ZMM16-31 (7).
  uint32_t lo = 0, hi = 0;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  if ((lo & 0xe6u) != 0xe6u) return false;
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return false;
  const bool f = b & (1u << 16), ifma = b & (1u << 21), vl = b & (1u << 31);
  return f && ifma && vl;
#else
  return false;
#endif
}

SimdPath choose_simd_path(bool has_ifma, const char* env_value) {
  if (env_value && std::strcmp(env_value, "off") == 0) return SimdPath::kScalar;
  return has_ifma ? SimdPath::kIfma : SimdPath::kScalar;
}

SimdPath detect_simd_path() { return choose_simd_path(cpu_has_ifma(), std::getenv("PROOFPIPE_SIMD")); }

namespace {
// -1: no override; else a SimdPath value. Relaxed: set while nothing reads.
std::atomic<int> g_override{-1};
}  // namespace

SimdPath simd_path() {
  static const SimdPath path = detect_simd_path();
  const int o = g_override.load(std::memory_order_relaxed);
  return o < 0 ? path : SimdPath(o);
}

ScopedSimdPath::ScopedSimdPath(SimdPath p) : previous_(g_override.load(std::memory_order_relaxed)) {
  const SimdPath allowed = p == SimdPath::kIfma && !cpu_has_ifma() ? SimdPath::kScalar : p;
  g_override.store(int(allowed), std::memory_order_relaxed);
}
ScopedSimdPath::~ScopedSimdPath() { g_override.store(previous_, std::memory_order_relaxed); }

const char* simd_path_name(SimdPath p) { return p == SimdPath::kIfma ? "avx512-ifma" : "scalar"; }

}  // namespace proofpipe::ff::ifma
