// write_zkey: validate sizes, then stream the ten sections (1..10) through a
// buffered FILE into a temporary file that is renamed into place. Layout:
// docs/design/formats.md §1 (container) and §2.3 (sections).
#include "proofpipe/formats/zkey_writer.hpp"

#include "bin_writer.hpp"

#include <unistd.h>

#include <array>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

namespace proofpipe::formats {
namespace {

constexpr uint64_t kG1Bytes = sizeof(ec::G1Affine);  // 96
constexpr uint64_t kG2Bytes = sizeof(ec::G2Affine);  // 192
constexpr uint64_t kGroth16HeaderBytes = 4 + ZkeyHeader::kN8q + 4 + ZkeyHeader::kN8r + 12 + 3 * kG1Bytes + 3 * kG2Bytes;
static_assert(kGroth16HeaderBytes == 964);
constexpr uint64_t kEmptyContributionsBytes = 64 + 4;
constexpr uint32_t kNumSections = 10;

uint64_t contributions_size(const ZkeyParts& p) {
  return p.contributions ? p.contributions->size() : kEmptyContributionsBytes;
}

// Data size of every section, index = section id (0 unused).
std::array<uint64_t, kNumSections + 1> section_sizes(const ZkeyParts& p) {
  std::array<uint64_t, kNumSections + 1> s{};
  s[kZkeyHeader] = 4;
  s[kZkeyGroth16Header] = kGroth16HeaderBytes;
  s[kZkeyIC] = p.ic.size() * kG1Bytes;
  s[kZkeyCoefs] = 4 + p.coefs.size() * sizeof(ZkeyCoef);
  s[kZkeyA] = p.a.size() * kG1Bytes;
  s[kZkeyB1] = p.b1.size() * kG1Bytes;
  s[kZkeyB2] = p.b2.size() * kG2Bytes;
  s[kZkeyC] = p.c.size() * kG1Bytes;
  s[kZkeyH] = p.h.size() * kG1Bytes;
  s[kZkeyContributions] = contributions_size(p);
  return s;
}

Status check_count(uint32_t section, const char* name, size_t got, uint64_t want) {
  if (got == want) return Status::ok();
  return make_error(ErrorCode::kInvalidArgument, "zkey writer: section {} ({}) has {} entries, expected {}", section,
                    name, got, want);
}

Status validate(const ZkeyParts& p) {
  const ZkeyHeader& h = p.header;
  if (h.domain_size == 0 || !std::has_single_bit(h.domain_size)) {
    return make_error(ErrorCode::kInvalidArgument, "zkey writer: domainSize {} is not a power of two", h.domain_size);
  }
  if (uint64_t(h.n_public) + 1 > h.n_vars) {
    return make_error(ErrorCode::kInvalidArgument, "zkey writer: nPublic {} leaves no room for wire 0 among nVars {}",
                      h.n_public, h.n_vars);
  }
  if (uint64_t(h.n_public) + 1 > h.domain_size) {
    return make_error(ErrorCode::kInvalidArgument, "zkey writer: domainSize {} is smaller than nPublic + 1",
                      h.domain_size);
  }
  const uint64_t n_vars = h.n_vars, n_pub = h.n_public;
  PP_RETURN_IF_ERROR(check_count(kZkeyIC, "IC", p.ic.size(), n_pub + 1));
  PP_RETURN_IF_ERROR(check_count(kZkeyA, "A", p.a.size(), n_vars));
  PP_RETURN_IF_ERROR(check_count(kZkeyB1, "B1", p.b1.size(), n_vars));
  PP_RETURN_IF_ERROR(check_count(kZkeyB2, "B2", p.b2.size(), n_vars));
  PP_RETURN_IF_ERROR(check_count(kZkeyC, "C", p.c.size(), n_vars - n_pub - 1));
  PP_RETURN_IF_ERROR(check_count(kZkeyH, "H", p.h.size(), h.domain_size));
  if (p.coefs.size() > UINT32_MAX) {
    return make_error(ErrorCode::kInvalidArgument, "zkey writer: {} coefficients do not fit a u32", p.coefs.size());
  }
  for (size_t i = 0; i < p.coefs.size(); ++i) {
    const ZkeyCoef& e = p.coefs[i];
    if (e.matrix > 1 || e.constraint >= h.domain_size || e.signal >= h.n_vars) {
      return make_error(ErrorCode::kInvalidArgument,
                        "zkey writer: coefficient {} (matrix {}, constraint {}, signal {}) is out of range", i,
                        e.matrix, e.constraint, e.signal);
    }
  }
  return Status::ok();
}

using Out = detail::BinWriter;

template <size_t N>
void write_limbs(Out& out, const ff::Limbs<N>& v) {
  out.bytes(v.data(), 8 * N);
}

}  // namespace

ZkeyCoef make_zkey_coef(uint32_t matrix, uint32_t constraint, uint32_t signal, const ff::Fr& coef) {
  // from_mont(R^2) is the element R; coef * R has Montgomery limbs coef*R^2.
  const ff::Fr v = coef * ff::Fr::from_mont(ff::MontConsts<ff::FrParams>::kR2);
  ZkeyCoef e{};
  e.matrix = matrix;
  e.constraint = constraint;
  e.signal = signal;
  const auto limbs = v.mont();
  std::memcpy(e.value_bytes, limbs.data(), sizeof(e.value_bytes));
  return e;
}

uint64_t zkey_file_size(const ZkeyParts& parts) {
  uint64_t total = 12;
  for (uint32_t s = 1; s <= kNumSections; ++s) total += 12 + section_sizes(parts)[s];
  return total;
}

Status write_zkey(const std::filesystem::path& path, const ZkeyParts& p) {
  PP_RETURN_IF_ERROR(validate(p));
  const auto sizes = section_sizes(p);
  return detail::write_atomically(path, "zkey", [&](Out& out) {
    out.bytes("zkey", 4);
    out.u32(1);  // version
    out.u32(kNumSections);

    out.section(kZkeyHeader, sizes[kZkeyHeader]);
    out.u32(1);  // protocol: groth16

    const ZkeyHeader& h = p.header;
    out.section(kZkeyGroth16Header, sizes[kZkeyGroth16Header]);
    out.u32(ZkeyHeader::kN8q);
    write_limbs(out, ff::MontConsts<ff::FqParams>::kP);
    out.u32(ZkeyHeader::kN8r);
    write_limbs(out, ff::MontConsts<ff::FrParams>::kP);
    out.u32(h.n_vars);
    out.u32(h.n_public);
    out.u32(h.domain_size);
    // Write order (§6.3): alpha1, beta1, beta2, gamma2, delta1, delta2.
    out.bytes(&h.alpha1, kG1Bytes);
    out.bytes(&h.beta1, kG1Bytes);
    out.bytes(&h.beta2, kG2Bytes);
    out.bytes(&h.gamma2, kG2Bytes);
    out.bytes(&h.delta1, kG1Bytes);
    out.bytes(&h.delta2, kG2Bytes);

    out.section(kZkeyIC, sizes[kZkeyIC]);
    out.span(p.ic);

    out.section(kZkeyCoefs, sizes[kZkeyCoefs]);
    out.u32(static_cast<uint32_t>(p.coefs.size()));
    out.span(p.coefs);

    out.section(kZkeyA, sizes[kZkeyA]);
    out.span(p.a);
    out.section(kZkeyB1, sizes[kZkeyB1]);
    out.span(p.b1);
    out.section(kZkeyB2, sizes[kZkeyB2]);
    out.span(p.b2);
    out.section(kZkeyC, sizes[kZkeyC]);
    out.span(p.c);
    out.section(kZkeyH, sizes[kZkeyH]);
    out.span(p.h);

    out.section(kZkeyContributions, sizes[kZkeyContributions]);
    if (p.contributions) {
      out.span(*p.contributions);
    } else {
      const uint8_t zeros[kEmptyContributionsBytes] = {};  // csHash = 0, nContrib = 0
      out.bytes(zeros, sizeof(zeros));
    }
  });
}

}  // namespace proofpipe::formats
