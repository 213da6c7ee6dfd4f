// The .wtns reader (load_wtns, load_wtns_from, read_wtns_prefix), writer side excepted, and
// the witness-against-key checks (check_witness_matches, check_wtns_for).
#include "proofpipe/formats/wtns.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "primes.hpp"
#include "proofpipe/formats/binfile.hpp"
#include "proofpipe/formats/decimal.hpp"
#include "proofpipe/formats/mapped_file.hpp"
#include "proofpipe/formats/zkey.hpp"

namespace proofpipe::formats {

namespace {

// Checks the header and both sections, then converts values [0, count) into
// dest(n_witness) (which returns where to put them; count = its size). With
// check_rest, the values past count are checked (< r) without being kept.
// A file's pages are released as they are read (at most ~8 MiB of it
// resident at once; MappedFile::release does nothing for a copy or view).
template <class C, class Dest>
Result<uint32_t> read_values_from(const MappedFile& file, bool check_rest, Dest&& dest) {
  const std::string what = fmt::format("wtns '{}'", file.path().string());
  PP_ASSIGN_OR_RETURN(BinFile f, BinFile::parse(file.bytes(), "wtns", 2, what));

  // Section 1: u32 n8, prime (n8 bytes), u32 nWitness.
  PP_ASSIGN_OR_RETURN(Cursor c1, f.cursor(1));
  PP_ASSIGN_OR_RETURN(uint32_t n8, c1.u32("n8"));
  if (n8 > 1024) return f.error("unsupported curve: n8 = {}", n8);
  PP_ASSIGN_OR_RETURN(auto prime, c1.bytes(n8, "prime"));
  PP_RETURN_IF_ERROR(detail::check_prime<C>(f, detail::FieldKind::kScalar, n8, prime, "prime"));
  PP_RETURN_IF_ERROR(f.section(1, 4 + 32 + 4).status());
  PP_ASSIGN_OR_RETURN(uint32_t n_witness, c1.u32("nWitness"));

  // Section 2: nWitness values, 32 bytes each, standard form, < r.
  PP_ASSIGN_OR_RETURN(auto s2, f.section(2, uint64_t(n_witness) * 32));
  PP_ASSIGN_OR_RETURN(std::span<typename C::Fr> out, dest(n_witness));
  const auto values = s2.first((check_rest ? n_witness : out.size()) * size_t{32});
  PP_RETURN_IF_ERROR(check_in_chunks(file, values, 32, true, [&](size_t first, size_t last) -> Status {
    for (size_t i = first; i < last; ++i) {
      const bool ok =
          i < out.size() ? C::Fr::from_bytes(s2.data() + i * 32, &out[i]) : detail::below_r<C>(s2.data() + i * 32);
      if (!ok) return f.error("w[{}] is not below r", i);
    }
    return Status::ok();
  }));
  return n_witness;
}

// read_values_from over the file at `path`, mapped for this call alone.
template <class C, class Dest>
Result<uint32_t> read_values(const std::filesystem::path& path, bool check_rest, Dest&& dest) {
  auto mapped = MappedFile::open(path);
  if (!mapped.is_ok()) return Status(mapped.status().code(), "wtns " + mapped.status().message());
  return read_values_from<C>(mapped.value(), check_rest, std::forward<Dest>(dest));
}

}  // namespace

template <class C>
Result<WitnessT<C>> load_wtns(const std::filesystem::path& path) {
  auto mapped = MappedFile::open(path);
  if (!mapped.is_ok()) return Status(mapped.status().code(), "wtns " + mapped.status().message());
  return load_wtns_from<C>(mapped.value());
}

template <class C>
Result<WitnessT<C>> load_wtns_from(const MappedFile& file) {
  WitnessT<C> w;
  w.path = file.path();
  auto n = read_values_from<C>(file, false, [&](uint32_t n_witness) -> Result<std::span<typename C::Fr>> {
    w.values.resize(n_witness);  // bounded by the file size just checked
    return std::span<typename C::Fr>(w.values);
  });
  if (!n) return n.status();
  return w;
}

template <class C>
Result<uint32_t> read_wtns_prefix(const std::filesystem::path& path, std::span<typename C::Fr> out) {
  return read_values<C>(path, false, [&](uint32_t n_witness) -> Result<std::span<typename C::Fr>> {
    if (out.size() > n_witness) {
      return make_error(ErrorCode::kInvalidArgument, "wtns '{}' has {} values, {} needed", path.string(), n_witness,
                        out.size());
    }
    return out;
  });
}

namespace {

// check_witness_matches's rule on a witness of `count` values starting w0.
template <class C>
Status check_matches(const ZkeyT<C>& zkey, const std::filesystem::path& path, size_t count, const typename C::Fr* w0) {
  if (count != zkey.n_vars()) {
    return make_error(ErrorCode::kInvalidArgument, "witness '{}' has {} values, zkey '{}' expects nVars = {}",
                      path.string(), count, zkey.path().string(), zkey.n_vars());
  }
  if (w0 != nullptr && !w0->is_one()) {
    return make_error(ErrorCode::kInvalidArgument, "witness '{}': w[0] is {}, expected 1", path.string(),
                      to_decimal(*w0));
  }
  return Status::ok();
}

}  // namespace

template <class C>
Status check_witness_matches(const ZkeyT<C>& zkey, const WitnessT<C>& witness) {
  return check_matches(zkey, witness.path, witness.values.size(),
                       witness.values.empty() ? nullptr : &witness.values[0]);
}

template <class C>
Status check_wtns_for(const ZkeyT<C>& zkey, const std::filesystem::path& path, std::span<typename C::Fr> prefix) {
  std::vector<typename C::Fr> head;
  auto n = read_values<C>(path, true, [&](uint32_t n_witness) -> Result<std::span<typename C::Fr>> {
    head.resize(std::min<size_t>(n_witness, prefix.size() + 1));  // w[0] and the prefix
    return std::span<typename C::Fr>(head);
  });
  if (!n) return n.status();
  PP_RETURN_IF_ERROR(check_matches(zkey, path, *n, head.empty() ? nullptr : &head[0]));
  std::copy(head.begin() + 1, head.end(), prefix.begin());  // n = nVars > prefix.size() here
  return Status::ok();
}

Result<curves::CurveId> wtns_curve(const std::filesystem::path& path) {
  return detail::file_curve(path, "wtns", 2, 1, detail::FieldKind::kScalar);
}

#define PP_WTNS(C)                                                                               \
  template Result<WitnessT<C>> load_wtns<C>(const std::filesystem::path&);                       \
  template Result<WitnessT<C>> load_wtns_from<C>(const MappedFile&);                             \
  template Result<uint32_t> read_wtns_prefix<C>(const std::filesystem::path&, std::span<C::Fr>); \
  template Status check_witness_matches(const ZkeyT<C>&, const WitnessT<C>&);                    \
  template Status check_wtns_for(const ZkeyT<C>&, const std::filesystem::path&, std::span<C::Fr>);
PP_WTNS(curves::Bls12_381)
PP_WTNS(curves::Bn254)
#undef PP_WTNS

}  // namespace proofpipe::formats
