// The x86-64 instruction-set extensions proofpipe cares about: which ones
// this CPU (and its OS, for the vector registers' state) offers, which ones
// this build's compiler flags let the compiler use anywhere, and the one
// line that stops a binary built for a newer CPU before it would die of an
// illegal instruction. The fast paths themselves (BMI2/ADX field kernels,
// AVX-512 IFMA lanes) are chosen at run time from cpu_features().
#pragma once

#include <cstdint>
#include <string>

namespace proofpipe::cpu {

enum Feature : uint32_t {
  kSse42 = 1u << 0,
  kPopcnt = 1u << 1,
  kAvx = 1u << 2,  // with the OS saving the YMM state
  kFma = 1u << 3,
  kAvx2 = 1u << 4,
  kBmi1 = 1u << 5,
  kBmi2 = 1u << 6,
  kAdx = 1u << 7,
  kAvx512f = 1u << 8,  // with the OS saving the ZMM and opmask state
  kAvx512dq = 1u << 9,
  kAvx512bw = 1u << 10,
  kAvx512vl = 1u << 11,
  kAvx512ifma = 1u << 12,
};

// What this CPU and OS offer (cpuid, xgetbv); 0 off x86-64.
uint32_t cpu_features();

// What the compiler may have used anywhere in this build: the extensions its
// -march enabled (0 in the default, baseline x86-64 build).
constexpr uint32_t build_features() {
  uint32_t f = 0;
#if defined(__SSE4_2__)
  f |= kSse42;
#endif
#if defined(__POPCNT__)
  f |= kPopcnt;
#endif
#if defined(__AVX__)
  f |= kAvx;
#endif
#if defined(__FMA__)
  f |= kFma;
#endif
#if defined(__AVX2__)
  f |= kAvx2;
#endif
#if defined(__BMI__)
  f |= kBmi1;
#endif
#if defined(__BMI2__)
  f |= kBmi2;
#endif
#if defined(__ADX__)
  f |= kAdx;
#endif
#if defined(__AVX512F__)
  f |= kAvx512f;
#endif
#if defined(__AVX512DQ__)
  f |= kAvx512dq;
#endif
#if defined(__AVX512BW__)
  f |= kAvx512bw;
#endif
#if defined(__AVX512VL__)
  f |= kAvx512vl;
#endif
#if defined(__AVX512IFMA__)
  f |= kAvx512ifma;
#endif
  return f;
}

// build_features() as the library's own sources were compiled (a constant,
// no code: build_features.cpp); what the start-up check holds the CPU to.
extern const uint32_t kBuildFeatures;

// The names (as /proc/cpuinfo spells them, space-separated) of the features
// in `need` that `have` lacks; empty when none.
std::string missing_features(uint32_t need, uint32_t have);

// The line a binary prints, and exits 2 after, when the CPU lacks what it
// was built for; empty when nothing is missing. Checked before main() (and
// when the shared library is loaded) by a constructor in cpu_features.cpp.
std::string unsupported_cpu_message(uint32_t need, uint32_t have);

}  // namespace proofpipe::cpu
