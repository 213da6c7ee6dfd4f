// Prime recognition for file headers: BLS12-381 and BN254 (bn128), each
// file read as the curve its caller asked for.
#include "primes.hpp"

#include <cstring>
#include <string>

#include "proofpipe/formats/mapped_file.hpp"

namespace proofpipe::formats::detail {
namespace {

template <size_t N>
bool equals(std::span<const uint8_t> bytes, const ff::Limbs<N>& p) {
  return bytes.size() == 8 * N && std::memcmp(bytes.data(), p.data(), 8 * N) == 0;
}

// Big-endian hex of LE bytes (at most 96 digits: n8 <= 48 here).
std::string hex(std::span<const uint8_t> le) {
  std::string s = "0x";
  for (size_t i = le.size(); i-- > 0;) s += fmt::format("{:02x}", le[i]);
  return s;
}

template <class C>
bool is_prime_of(FieldKind kind, std::span<const uint8_t> prime) {
  return kind == FieldKind::kScalar ? equals(prime, C::Fr::C::kP) : equals(prime, C::Fq::C::kP);
}

}  // namespace

std::optional<curves::CurveId> curve_of_prime(FieldKind kind, std::span<const uint8_t> prime) {
  if (is_prime_of<curves::Bls12_381>(kind, prime)) return curves::CurveId::kBls12_381;
  if (is_prime_of<curves::Bn254>(kind, prime)) return curves::CurveId::kBn254;
  return std::nullopt;
}

Result<curves::CurveId> file_curve(const std::filesystem::path& path, const char* kind, uint32_t version,
                                   uint32_t section, FieldKind field) {
  auto mapped = MappedFile::open(path);
  if (!mapped.is_ok()) return Status(mapped.status().code(), std::string(kind) + " " + mapped.status().message());
  return bytes_curve(mapped.value().bytes(), path, kind, version, section, field);
}

Result<curves::CurveId> bytes_curve(std::span<const uint8_t> bytes, const std::filesystem::path& name, const char* kind,
                                    uint32_t version, uint32_t section, FieldKind field) {
  const std::string what = fmt::format("{} '{}'", kind, name.string());
  PP_ASSIGN_OR_RETURN(BinFile f, BinFile::parse(bytes, kind, version, what));
  PP_ASSIGN_OR_RETURN(Cursor c, f.cursor(section));
  PP_ASSIGN_OR_RETURN(uint32_t n8, c.u32("n8"));
  if (n8 > 1024) return f.error("unsupported curve: n8 = {}", n8);
  PP_ASSIGN_OR_RETURN(auto prime, c.bytes(n8, "prime"));
  if (auto id = curve_of_prime(field, prime)) return *id;
  return f.error("unsupported curve: its {} field prime is neither bls12381's nor bn128's",
                 field == FieldKind::kScalar ? "scalar" : "base");
}

template <class C>
Status check_prime(const BinFile& f, FieldKind kind, uint32_t n8, std::span<const uint8_t> prime, const char* label) {
  const bool scalar = kind == FieldKind::kScalar;
  const uint32_t want_n8 = scalar ? uint32_t(C::Fr::kBytes) : uint32_t(C::Fq::kBytes);
  const char* field = scalar ? "scalar field" : "base field";
  if (is_prime_of<C>(kind, prime)) return Status::ok();
  if (auto other = curve_of_prime(kind, prime)) {
    return f.error("curve mismatch: its {} {} is {}'s, expected {}", field, label, curves::curve_name(*other),
                   C::kName);
  }
  if (n8 != want_n8) {
    return f.error("unsupported curve: {} elements are {} bytes, expected {} ({})", field, n8, want_n8, C::kName);
  }
  return f.error("prime mismatch: {} {} is {}, not {}'s", field, label, hex(prime), C::kName);
}

template Status check_prime<curves::Bls12_381>(const BinFile&, FieldKind, uint32_t, std::span<const uint8_t>,
                                               const char*);
template Status check_prime<curves::Bn254>(const BinFile&, FieldKind, uint32_t, std::span<const uint8_t>, const char*);

}  // namespace proofpipe::formats::detail
