// Decimal conversion through GMP's mpz (mpz_import/mpz_export on the limbs).
#include "proofpipe/formats/decimal.hpp"

#include <gmp.h>

#include <memory>

namespace proofpipe::formats {

namespace {

// Owns one mpz_t (the C API, so no exceptions from gmpxx).
struct Mpz {
  mpz_t z;
  Mpz() { mpz_init(z); }
  ~Mpz() { mpz_clear(z); }
  Mpz(const Mpz&) = delete;
  Mpz& operator=(const Mpz&) = delete;
};

// Quoted, shortened text for error messages (a 10 kB number stays one short line).
std::string quote(std::string_view raw) {
  constexpr size_t kMax = 24;
  std::string text(raw.substr(0, kMax + 1));
  for (char& ch : text) {
    if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f) ch = '?';  // keep the message one printable line
  }
  // fmt, not operator+: GCC 12 emits a false -Wrestrict on "'" + std::string.
  if (raw.size() <= kMax) return fmt::format("'{}'", text);
  return fmt::format("'{}...' ({} chars)", text.substr(0, kMax), raw.size());
}

template <class F>
std::string to_decimal_impl(const F& x) {
  auto limbs = x.to_canonical();
  Mpz v;
  mpz_import(v.z, F::N, -1, sizeof(uint64_t), 0, 0, limbs.data());
  std::unique_ptr<char[]> buf(new char[mpz_sizeinbase(v.z, 10) + 2]);
  mpz_get_str(buf.get(), 10, v.z);
  return std::string(buf.get());
}

template <class F>
Result<F> from_decimal_impl(std::string_view text, const char* field_name) {
  if (text.empty()) return make_error(ErrorCode::kBadFormat, "empty string is not a decimal number");
  for (char c : text) {
    if (c < '0' || c > '9') return make_error(ErrorCode::kBadFormat, "{} is not a decimal number", quote(text));
  }
  // A value below a 381-bit modulus has at most 115 significant digits;
  // anything longer (after leading zeros) is out of range without parsing.
  size_t first = text.find_first_not_of('0');
  if (first == std::string_view::npos) return F::zero();
  if (text.size() - first > 120) {
    return make_error(ErrorCode::kBadFormat, "{} is not below the {}", quote(text), field_name);
  }
  Mpz v;
  std::string digits(text.substr(first));
  if (mpz_set_str(v.z, digits.c_str(), 10) != 0) {
    return make_error(ErrorCode::kBadFormat, "{} is not a decimal number", quote(text));
  }
  Mpz p;
  mpz_import(p.z, F::N, -1, sizeof(uint64_t), 0, 0, F::C::kP.data());
  if (mpz_cmp(v.z, p.z) >= 0) {
    return make_error(ErrorCode::kBadFormat, "{} is not below the {}", quote(text), field_name);
  }
  typename F::Repr limbs{};
  size_t count = 0;
  mpz_export(limbs.data(), &count, -1, sizeof(uint64_t), 0, 0, v.z);  // count <= N since v < p
  return F::from_canonical(limbs);
}

}  // namespace

template <class P>
std::string to_decimal(const ff::Field<P>& x) {
  return to_decimal_impl(x);
}

template <class F>
Result<F> from_decimal(std::string_view text) {
  constexpr bool kScalar = std::is_same_v<F, bls12_381::Fr> || std::is_same_v<F, bn254::Fr>;
  return from_decimal_impl<F>(text, kScalar ? "scalar field modulus r" : "base field modulus q");
}

#define PP_DECIMAL_FIELD(F)                                                \
  template std::string to_decimal<F::Params>(const ff::Field<F::Params>&); \
  template Result<F> from_decimal<F>(std::string_view);
PP_DECIMAL_FIELD(bls12_381::Fr)
PP_DECIMAL_FIELD(bls12_381::Fq)
PP_DECIMAL_FIELD(bn254::Fr)
PP_DECIMAL_FIELD(bn254::Fq)
#undef PP_DECIMAL_FIELD

}  // namespace proofpipe::formats
