// CPU feature detection (cpuid, xgetbv) and the start-up check that a
// binary built for a newer CPU (-DPP_NATIVE=ON elsewhere) stops with one
// line instead of an illegal instruction. This file is compiled for
// baseline x86-64 whatever the build's -march (core/CMakeLists.txt), so the
// check itself runs on any x86-64 CPU; what the build needs comes from
// build_features.cpp, compiled with the build's flags.
#include "proofpipe/cpu/features.hpp"

#include <unistd.h>

#include <cstdlib>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace proofpipe::cpu {
namespace {

struct Named {
  Feature f;
  const char* name;
};
constexpr Named kNames[] = {
    {kSse42, "sse4_2"},
    {kPopcnt, "popcnt"},
    {kAvx, "avx"},
    {kFma, "fma"},
    {kAvx2, "avx2"},
    {kBmi1, "bmi1"},
    {kBmi2, "bmi2"},
    {kAdx, "adx"},
    {kAvx512f, "avx512f"},
    {kAvx512dq, "avx512dq"},
    {kAvx512bw, "avx512bw"},
    {kAvx512vl, "avx512vl"},
    {kAvx512ifma, "avx512ifma"},
};

}  // namespace

uint32_t cpu_features() {
  uint32_t f = 0;
#if defined(__x86_64__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
  if (c & (1u << 20)) f |= kSse42;
  if (c & (1u << 23)) f |= kPopcnt;
  if (c & (1u << 12)) f |= kFma;
  // The vector extensions count only where the OS saves their registers
  // (XCR0, readable when OSXSAVE is set): SSE and AVX state (bits 1, 2) for
  // AVX, and opmask and both ZMM halves (5, 6, 7) for AVX-512.
  uint32_t xcr0 = 0;
  if (c & (1u << 27)) {
    uint32_t lo = 0, hi = 0;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    xcr0 = lo;
  }
  const bool ymm = (xcr0 & 0x6u) == 0x6u, zmm = (xcr0 & 0xe6u) == 0xe6u;
  if ((c & (1u << 28)) && ymm) f |= kAvx;
  if (!ymm) f &= ~kFma;
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return f;
  if ((b & (1u << 5)) && ymm) f |= kAvx2;
  if (b & (1u << 3)) f |= kBmi1;
  if (b & (1u << 8)) f |= kBmi2;
  if (b & (1u << 19)) f |= kAdx;
  if (zmm) {
    if (b & (1u << 16)) f |= kAvx512f;
    if (b & (1u << 17)) f |= kAvx512dq;
    if (b & (1u << 30)) f |= kAvx512bw;
    if (b & (1u << 31)) f |= kAvx512vl;
    if (b & (1u << 21)) f |= kAvx512ifma;
  }
#endif
  return f;
}

namespace {

// The check before main() uses only this TU's own code (internal linkage)
// and libc: an inline function shared with other TUs (std::string's, say)
// could be the copy the linker kept from a TU built with -march=native.
size_t append(char* buf, size_t at, size_t cap, const char* s) {
  while (*s && at + 1 < cap) buf[at++] = *s++;
  buf[at < cap ? at : cap - 1] = '\0';
  return at;
}

size_t format_missing(uint32_t need, uint32_t have, char* buf, size_t cap) {
  size_t at = 0;
  buf[0] = '\0';
  for (const auto& n : kNames) {
    if ((need & n.f) && !(have & n.f)) {
      if (at) at = append(buf, at, cap, " ");
      at = append(buf, at, cap, n.name);
    }
  }
  return at;
}

constexpr const char* kLineHead = "proofpipe: error: this build needs CPU features this CPU lacks (";
constexpr const char* kLineTail =
    "): it was built for another machine (-DPP_NATIVE=ON); use a default (portable) build\n";

size_t format_message(uint32_t need, uint32_t have, char* buf, size_t cap) {
  char missing[160];
  if (format_missing(need, have, missing, sizeof missing) == 0) {
    buf[0] = '\0';
    return 0;
  }
  size_t at = append(buf, 0, cap, kLineHead);
  at = append(buf, at, cap, missing);
  return append(buf, at, cap, kLineTail);
}

// Before main() and before the constructors of ordinary priority (101 is
// the first a program may use), so nothing built with the newer
// instructions has run yet. PROOFPIPE_SKIP_CPU_CHECK=1 skips it (to try a
// build anyway, at the risk of SIGILL).
__attribute__((constructor(101))) void check_cpu_before_main() {
  if (kBuildFeatures == 0) return;
  const char* skip = std::getenv("PROOFPIPE_SKIP_CPU_CHECK");
  if (skip && skip[0] == '1' && skip[1] == '\0') return;
  char line[512];
  const size_t n = format_message(kBuildFeatures, cpu_features(), line, sizeof line);
  if (n == 0) return;
  [[maybe_unused]] ssize_t w = ::write(2, line, n);
  ::_exit(2);
}

}  // namespace

std::string missing_features(uint32_t need, uint32_t have) {
  char buf[160];
  format_missing(need, have, buf, sizeof buf);
  return buf;
}

std::string unsupported_cpu_message(uint32_t need, uint32_t have) {
  char buf[512];
  format_message(need, have, buf, sizeof buf);
  return buf;
}

}  // namespace proofpipe::cpu
