// Run-time detection of AVX-512 IFMA for the eight-lane field code; the
// PROOFPIPE_SIMD=off override (docs/performance.md).
#include "proofpipe/ff/ifma/dispatch.hpp"

#include "proofpipe/cpu/features.hpp"

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace proofpipe::ff::ifma {

bool cpu_has_ifma() {
  constexpr uint32_t kNeed = cpu::kAvx512f | cpu::kAvx512vl | cpu::kAvx512ifma;
  return (cpu::cpu_features() & kNeed) == kNeed;
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
