// load_zkey: section table -> protocol -> Groth16 header -> sized point views
// -> coefficient index checks. Layout: docs/design/formats.md §2.3.
#include "proofpipe/formats/zkey.hpp"

#include <sys/mman.h>

#include <bit>
#include <string>

#include "primes.hpp"
#include "proofpipe/formats/binfile.hpp"
#include "zkey_sizes.hpp"

namespace proofpipe::formats {

namespace {

const char* protocol_name(uint32_t p) {
  switch (p) {
    case 1: return "groth16";
    case 2: return "plonk";
    case 10: return "fflonk";
    default: return "unknown";
  }
}

const char* section_name(uint32_t s) {
  switch (s) {
    case kZkeyIC: return "IC";
    case kZkeyA: return "A";
    case kZkeyB1: return "B1";
    case kZkeyB2: return "B2";
    case kZkeyC: return "C";
    case kZkeyH: return "H";
    default: return "?";
  }
}

template <class Cfg>
bool coords_reduced(const ec::Affine<Cfg>& p) {
  if constexpr (!Cfg::kG2) {
    constexpr auto kQ = Cfg::Field::C::kP;
    return !ff::limbs_geq(p.x.mont(), kQ) && !ff::limbs_geq(p.y.mont(), kQ);
  } else {
    constexpr auto kQ = Cfg::Field::Fq::C::kP;
    return !ff::limbs_geq(p.x.c0.mont(), kQ) && !ff::limbs_geq(p.x.c1.mont(), kQ) &&
           !ff::limbs_geq(p.y.c0.mont(), kQ) && !ff::limbs_geq(p.y.c1.mont(), kQ);
  }
}

// Reads one header point and applies the always-on checks.
template <class C, class Cfg>
Result<ec::Affine<Cfg>> header_point(const BinFile& f, Cursor& c, const char* name) {
  PP_ASSIGN_OR_RETURN(auto p, c.pod<ec::Affine<Cfg>>(name));
  if (!coords_reduced(p)) return f.error("{}: coordinate not reduced modulo q", name);
  if (p.is_identity()) return f.error("{} is the point at infinity", name);
  if (!p.on_curve()) return f.error("{} is not on the curve", name);
  if (!C::in_subgroup(p)) return f.error("{} is not in the r-order subgroup", name);
  return p;
}

// Faults in the pages of [p, p + n) with one call instead of one fault per
// 4 KiB page (madvise MADV_POPULATE_READ / _WRITE, Linux 5.14; an older
// kernel's EINVAL leaves the faults to the copy). The contents do not change.
// Loading the 2^15 Merkle + EdDSA key (9 MB of misaligned sections copied):
// 4.9 -> 4.0 ms (the best 3 of 10 runs of each build, two rounds in turn).
void populate(const void* p, size_t n, int advice) {
  constexpr uintptr_t kPage = 4096;
  const uintptr_t lo = reinterpret_cast<uintptr_t>(p) & ~(kPage - 1), hi = reinterpret_cast<uintptr_t>(p) + n;
  if (n != 0) (void)::madvise(reinterpret_cast<void*>(lo), hi - lo, advice);
}

// Views `count` objects of T over `bytes` (size already checked), copying into
// an owned 8-byte-aligned buffer when the mapped address is misaligned. The
// copy goes in 8 MiB chunks whose mapped pages are released once copied: the
// section is then resident once (the copy), not twice (about 280 MB saved
// per proving process at 2^20, where half of the 560 MB of points are copied).
template <class T>
std::span<const T> view_or_copy(const MappedFile& file, std::span<const uint8_t> bytes, uint64_t count,
                                std::unique_ptr<uint64_t[]>& owned, uint64_t& copied) {
  static_assert(alignof(T) <= alignof(uint64_t));
  if (auto v = aligned_view<T>(bytes, count)) return *v;
  const size_t words = (bytes.size() + 7) / 8;
  owned = std::make_unique_for_overwrite<uint64_t[]>(words);
  auto* dst = reinterpret_cast<uint8_t*>(owned.get());
  populate(dst, bytes.size(), MADV_POPULATE_WRITE);
  (void)check_in_chunks(file, bytes, 1, true, [&](size_t first, size_t last) {
    populate(bytes.data() + first, last - first, MADV_POPULATE_READ);
    std::memcpy(dst + first, bytes.data() + first, last - first);
    return Status::ok();
  });
  copied += bytes.size();
  return {reinterpret_cast<const T*>(owned.get()), count};
}

}  // namespace

template <class C>
Result<ZkeyT<C>> load_zkey(const std::filesystem::path& path, const ZkeyLoadOptions& options) {
  auto mapped = MappedFile::open(path);
  if (!mapped.is_ok()) return Status(mapped.status().code(), "zkey " + mapped.status().message());
  return load_zkey_from<C>(std::move(mapped).value(), options);
}

template <class C>
Result<ZkeyT<C>> load_zkey_from(MappedFile file, const ZkeyLoadOptions& options) {
  using G1Cfg = typename C::G1Cfg;
  using G2Cfg = typename C::G2Cfg;
  using G1Affine = typename C::G1Affine;
  using G2Affine = typename C::G2Affine;
  using Coef = ZkeyCoefT<C>;
  constexpr uint64_t g1_bytes = kG1Bytes<C>, g2_bytes = kG2Bytes<C>;
  const std::string what = fmt::format("zkey '{}'", file.path().string());
  ZkeyT<C> z;
  z.file_ = std::move(file);
  PP_ASSIGN_OR_RETURN(BinFile f, BinFile::parse(z.file_.bytes(), "zkey", 1, what));

  // Section 1: the protocol.
  PP_ASSIGN_OR_RETURN(auto s1, f.section(kZkeyHeader, 4));
  Cursor c1(s1, what);
  PP_ASSIGN_OR_RETURN(uint32_t protocol, c1.u32("protocol"));
  if (protocol != 1) {
    return f.error("unsupported protocol {} ({}); only groth16 (1) is supported", protocol_name(protocol), protocol);
  }

  // Section 2: primes first (so a bn128 key is named as such), then sizes.
  PP_ASSIGN_OR_RETURN(Cursor c2, f.cursor(kZkeyGroth16Header));
  PP_ASSIGN_OR_RETURN(uint32_t n8q, c2.u32("n8q"));
  if (n8q > 1024) return f.error("unsupported curve: n8q = {}", n8q);
  PP_ASSIGN_OR_RETURN(auto q, c2.bytes(n8q, "q"));
  PP_RETURN_IF_ERROR(detail::check_prime<C>(f, detail::FieldKind::kBase, n8q, q, "q"));
  PP_ASSIGN_OR_RETURN(uint32_t n8r, c2.u32("n8r"));
  if (n8r > 1024) return f.error("unsupported curve: n8r = {}", n8r);
  PP_ASSIGN_OR_RETURN(auto r, c2.bytes(n8r, "r"));
  PP_RETURN_IF_ERROR(detail::check_prime<C>(f, detail::FieldKind::kScalar, n8r, r, "r"));
  PP_ASSIGN_OR_RETURN(auto s2, f.section(kZkeyGroth16Header, kGroth16HeaderBytes<C>));
  (void)s2;
  ZkeyHeaderT<C>& h = z.header_;
  PP_ASSIGN_OR_RETURN(h.n_vars, c2.u32("nVars"));
  PP_ASSIGN_OR_RETURN(h.n_public, c2.u32("nPublic"));
  PP_ASSIGN_OR_RETURN(h.domain_size, c2.u32("domainSize"));
  if (h.domain_size == 0 || !std::has_single_bit(h.domain_size)) {
    return f.error("domainSize {} is not a power of two", h.domain_size);
  }
  h.log2_domain_size = static_cast<uint32_t>(std::countr_zero(h.domain_size));
  if (uint64_t(h.n_public) + 1 > h.n_vars) {
    return f.error("nPublic {} leaves no room for wire 0 among nVars {}", h.n_public, h.n_vars);
  }
  if (uint64_t(h.n_public) + 1 > h.domain_size) {
    return f.error("domainSize {} is smaller than nPublic + 1 = {}", h.domain_size, uint64_t(h.n_public) + 1);
  }
  // Write order (§6.3; the zkey_utils.js comment is wrong): alpha1, beta1,
  // beta2, gamma2, delta1, delta2.
  PP_ASSIGN_OR_RETURN(h.alpha1, (header_point<C, G1Cfg>(f, c2, "alpha_1")));
  PP_ASSIGN_OR_RETURN(h.beta1, (header_point<C, G1Cfg>(f, c2, "beta_1")));
  PP_ASSIGN_OR_RETURN(h.beta2, (header_point<C, G2Cfg>(f, c2, "beta_2")));
  PP_ASSIGN_OR_RETURN(h.gamma2, (header_point<C, G2Cfg>(f, c2, "gamma_2")));
  PP_ASSIGN_OR_RETURN(h.delta1, (header_point<C, G1Cfg>(f, c2, "delta_1")));
  PP_ASSIGN_OR_RETURN(h.delta2, (header_point<C, G2Cfg>(f, c2, "delta_2")));
  PP_RETURN_IF_ERROR(c2.expect_end());

  // Point sections: exact sizes, then views.
  const uint64_t n_vars = h.n_vars, n_pub = h.n_public, n = h.domain_size;
  PP_ASSIGN_OR_RETURN(auto s3, f.section(kZkeyIC, (n_pub + 1) * g1_bytes));
  PP_ASSIGN_OR_RETURN(auto s5, f.section(kZkeyA, n_vars * g1_bytes));
  PP_ASSIGN_OR_RETURN(auto s6, f.section(kZkeyB1, n_vars * g1_bytes));
  PP_ASSIGN_OR_RETURN(auto s7, f.section(kZkeyB2, n_vars * g2_bytes));
  PP_ASSIGN_OR_RETURN(auto s8, f.section(kZkeyC, (n_vars - n_pub - 1) * g1_bytes));
  PP_ASSIGN_OR_RETURN(auto s9, f.section(kZkeyH, n * g1_bytes));
  z.ic_ = view_or_copy<G1Affine>(z.file_, s3, n_pub + 1, z.owned_[ZkeyT<C>::kIcCopy], z.copied_bytes_);
  if (options.points) {
    z.a_ = view_or_copy<G1Affine>(z.file_, s5, n_vars, z.owned_[size_t(KeyPart::kA)], z.copied_bytes_);
    z.b1_ = view_or_copy<G1Affine>(z.file_, s6, n_vars, z.owned_[size_t(KeyPart::kB1)], z.copied_bytes_);
    z.b2_ = view_or_copy<G2Affine>(z.file_, s7, n_vars, z.owned_[size_t(KeyPart::kB2)], z.copied_bytes_);
    z.c_ = view_or_copy<G1Affine>(z.file_, s8, n_vars - n_pub - 1, z.owned_[size_t(KeyPart::kC)], z.copied_bytes_);
    z.h_ = view_or_copy<G1Affine>(z.file_, s9, n, z.owned_[size_t(KeyPart::kH)], z.copied_bytes_);
  }

  // Section 4: u32 nCoef, then nCoef 44-byte entries, nothing else.
  PP_ASSIGN_OR_RETURN(auto s4, f.section(kZkeyCoefs));
  Cursor c4(s4, what + " section 4");
  PP_ASSIGN_OR_RETURN(uint32_t n_coef, c4.u32("nCoef"));
  if (c4.remaining() != uint64_t(n_coef) * sizeof(Coef)) {
    return f.error("section 4 is {} bytes, expected {} for nCoef = {}", s4.size(), 4 + uint64_t(n_coef) * sizeof(Coef),
                   n_coef);
  }
  PP_ASSIGN_OR_RETURN(auto entries, c4.bytes(c4.remaining(), "coefficients"));
  z.coefs_ = view_or_copy<Coef>(z.file_, entries, n_coef, z.owned_[size_t(KeyPart::kCoefficients)], z.copied_bytes_);
  const bool in_place = static_cast<const void*>(z.coefs_.data()) == static_cast<const void*>(entries.data());
  PP_RETURN_IF_ERROR(check_in_chunks(
      z.file_, entries, sizeof(Coef), options.release_coefficients && in_place,
      [&](size_t first, size_t last) -> Status {
        for (size_t i = first; i < last; ++i) {
          const Coef& e = z.coefs_[i];
          if (i > 0 && e.constraint < z.coefs_[i - 1].constraint) z.coefs_sorted_ = false;
          if (e.matrix > 1) return f.error("coefficient {}: matrix {} is not 0 (A) or 1 (B)", i, e.matrix);
          if (e.constraint >= n) {
            return f.error("coefficient {}: constraint {} is not below domainSize {}", i, e.constraint, n);
          }
          if (e.signal >= n_vars)
            return f.error("coefficient {}: signal {} is not below nVars {}", i, e.signal, n_vars);
          if (!detail::below_r<C>(e.value_bytes)) return f.error("coefficient {}: value is not below r", i);
        }
        return Status::ok();
      }));

  if (options.check_points) PP_RETURN_IF_ERROR(check_zkey_points(z));
  return z;
}

namespace {
template <class T>
std::span<const uint8_t> bytes_of(std::span<const T> s, size_t first, size_t count) {
  first = std::min(first, s.size());
  count = std::min(count, s.size() - first);
  return {reinterpret_cast<const uint8_t*>(s.data() + first), count * sizeof(T)};
}
}  // namespace

// The byte range of elements [first, first + count) of section s.
template <class C>
std::span<const uint8_t> ZkeyT<C>::part_bytes(KeyPart s, size_t first, size_t count) const {
  switch (s) {
    case KeyPart::kCoefficients: return bytes_of(coefs_, first, count);
    case KeyPart::kA: return bytes_of(a_, first, count);
    case KeyPart::kB1: return bytes_of(b1_, first, count);
    case KeyPart::kB2: return bytes_of(b2_, first, count);
    case KeyPart::kC: return bytes_of(c_, first, count);
    case KeyPart::kH: return bytes_of(h_, first, count);
  }
  return {};
}

template <class C>
void ZkeyT<C>::release_range(KeyPart s, size_t first, size_t count) const {
  if (!owned_[size_t(s)]) file_.release(part_bytes(s, first, count));  // no-op on a copy_of/view_of buffer
}

template <class C>
void ZkeyT<C>::drop(KeyPart s) {
  release_range(s, 0, SIZE_MAX);
  owned_[size_t(s)].reset();
  switch (s) {
    case KeyPart::kCoefficients: coefs_ = {}; break;
    case KeyPart::kA: a_ = {}; break;
    case KeyPart::kB1: b1_ = {}; break;
    case KeyPart::kB2: b2_ = {}; break;
    case KeyPart::kC: c_ = {}; break;
    case KeyPart::kH: h_ = {}; break;
  }
  dropped_ |= uint8_t(1u << unsigned(s));
}

template <class C>
Status check_zkey_points(const ZkeyT<C>& z) {
  // Sections given back (ZkeyT::drop) are checked from the file anew.
  if (z.dropped_any()) return load_zkey<C>(z.path(), {.check_points = true}).status();
  const std::string what = fmt::format("zkey '{}'", z.path().string());
  auto check = [&](auto pts, uint32_t sec) -> Status {
    for (size_t i = 0; i < pts.size(); ++i) {
      if (!coords_reduced(pts[i])) {
        return make_error(ErrorCode::kBadFormat, "{}: section {} ({}) point {}: coordinate not reduced modulo q", what,
                          sec, section_name(sec), i);
      }
      if (!pts[i].on_curve()) {
        return make_error(ErrorCode::kBadFormat, "{}: section {} ({}) point {} is not on the curve", what, sec,
                          section_name(sec), i);
      }
    }
    return Status::ok();
  };
  PP_RETURN_IF_ERROR(check(z.ic(), kZkeyIC));
  PP_RETURN_IF_ERROR(check(z.a(), kZkeyA));
  PP_RETURN_IF_ERROR(check(z.b1(), kZkeyB1));
  PP_RETURN_IF_ERROR(check(z.b2(), kZkeyB2));
  PP_RETURN_IF_ERROR(check(z.c(), kZkeyC));
  PP_RETURN_IF_ERROR(check(z.h(), kZkeyH));
  return Status::ok();
}

#define PP_ZKEY(C)                                                                              \
  template Result<ZkeyT<C>> load_zkey<C>(const std::filesystem::path&, const ZkeyLoadOptions&); \
  template Result<ZkeyT<C>> load_zkey_from<C>(MappedFile, const ZkeyLoadOptions&);              \
  template Status check_zkey_points(const ZkeyT<C>&);                                           \
  template void ZkeyT<C>::drop(KeyPart);                                                        \
  template void ZkeyT<C>::release_range(KeyPart, size_t, size_t) const;
PP_ZKEY(curves::Bls12_381)
PP_ZKEY(curves::Bn254)
#undef PP_ZKEY

Result<curves::CurveId> zkey_curve(const std::filesystem::path& path) {
  return detail::file_curve(path, "zkey", 1, kZkeyGroth16Header, detail::FieldKind::kBase);
}

Result<curves::CurveId> zkey_curve(const MappedFile& file) {
  return detail::bytes_curve(file.bytes(), file.path(), "zkey", 1, kZkeyGroth16Header, detail::FieldKind::kBase);
}

}  // namespace proofpipe::formats
