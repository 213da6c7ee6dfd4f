// write_zkey: validate sizes, then stream the ten sections (1..10) through a
// buffered FILE into a temporary file that is renamed into place. Layout:
// docs/design/formats.md §1 (container) and §2.3 (sections).
#include "proofpipe/formats/zkey_writer.hpp"

#include "bin_writer.hpp"
#include "zkey_sizes.hpp"

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

constexpr uint64_t kEmptyContributionsBytes = 64 + 4;
constexpr uint32_t kNumSections = 10;

template <class C>
uint64_t contributions_size(const ZkeyPartsT<C>& p) {
  return p.contributions ? p.contributions->size() : kEmptyContributionsBytes;
}

// Data size of every section, index = section id (0 unused).
template <class C>
std::array<uint64_t, kNumSections + 1> section_sizes(const ZkeyPartsT<C>& p) {
  constexpr uint64_t g1 = kG1Bytes<C>, g2 = kG2Bytes<C>;
  std::array<uint64_t, kNumSections + 1> s{};
  s[kZkeyHeader] = 4;
  s[kZkeyGroth16Header] = kGroth16HeaderBytes<C>;
  s[kZkeyIC] = p.ic.size() * g1;
  s[kZkeyCoefs] = 4 + p.coefs.size() * sizeof(ZkeyCoefT<C>);
  s[kZkeyA] = p.a.size() * g1;
  s[kZkeyB1] = p.b1.size() * g1;
  s[kZkeyB2] = p.b2.size() * g2;
  s[kZkeyC] = p.c.size() * g1;
  s[kZkeyH] = p.h.size() * g1;
  s[kZkeyContributions] = contributions_size(p);
  return s;
}

Status check_count(uint32_t section, const char* name, size_t got, uint64_t want) {
  if (got == want) return Status::ok();
  return make_error(ErrorCode::kInvalidArgument, "zkey writer: section {} ({}) has {} entries, expected {}", section,
                    name, got, want);
}

template <class C>
Status validate(const ZkeyPartsT<C>& p) {
  const ZkeyHeaderT<C>& h = p.header;
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
    const ZkeyCoefT<C>& e = p.coefs[i];
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

template <class C>
ZkeyCoefT<C> make_zkey_coef(uint32_t matrix, uint32_t constraint, uint32_t signal,
                            const std::type_identity_t<typename C::Fr>& coef) {
  using Fr = typename C::Fr;
  // from_mont(R^2) is the element R; coef * R has Montgomery limbs coef*R^2.
  const Fr v = coef * Fr::from_mont(Fr::C::kR2);
  ZkeyCoefT<C> e{};
  e.matrix = matrix;
  e.constraint = constraint;
  e.signal = signal;
  const auto limbs = v.mont();
  std::memcpy(e.value_bytes, limbs.data(), sizeof(e.value_bytes));
  return e;
}

template <class C>
uint64_t zkey_file_size(const ZkeyPartsT<C>& parts) {
  uint64_t total = 12;
  for (uint32_t s = 1; s <= kNumSections; ++s) total += 12 + section_sizes(parts)[s];
  return total;
}

template <class C>
Status write_zkey(const std::filesystem::path& path, const ZkeyPartsT<C>& p) {
  constexpr uint64_t g1 = kG1Bytes<C>, g2 = kG2Bytes<C>;
  PP_RETURN_IF_ERROR(validate(p));
  const auto sizes = section_sizes(p);
  return detail::write_atomically(path, "zkey", [&](Out& out) {
    out.bytes("zkey", 4);
    out.u32(1);  // version
    out.u32(kNumSections);

    out.section(kZkeyHeader, sizes[kZkeyHeader]);
    out.u32(1);  // protocol: groth16

    const ZkeyHeaderT<C>& h = p.header;
    out.section(kZkeyGroth16Header, sizes[kZkeyGroth16Header]);
    out.u32(ZkeyHeaderT<C>::kN8q);
    write_limbs(out, C::Fq::C::kP);
    out.u32(ZkeyHeaderT<C>::kN8r);
    write_limbs(out, C::Fr::C::kP);
    out.u32(h.n_vars);
    out.u32(h.n_public);
    out.u32(h.domain_size);
    // Write order (§6.3): alpha1, beta1, beta2, gamma2, delta1, delta2.
    out.bytes(&h.alpha1, g1);
    out.bytes(&h.beta1, g1);
    out.bytes(&h.beta2, g2);
    out.bytes(&h.gamma2, g2);
    out.bytes(&h.delta1, g1);
    out.bytes(&h.delta2, g2);

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

#define PP_ZKEY_WRITER(C)                                                              \
  template ZkeyCoefT<C> make_zkey_coef<C>(uint32_t, uint32_t, uint32_t, const C::Fr&); \
  template uint64_t zkey_file_size(const ZkeyPartsT<C>&);                              \
  template Status write_zkey(const std::filesystem::path&, const ZkeyPartsT<C>&);
PP_ZKEY_WRITER(curves::Bls12_381)
PP_ZKEY_WRITER(curves::Bn254)
#undef PP_ZKEY_WRITER

}  // namespace proofpipe::formats
