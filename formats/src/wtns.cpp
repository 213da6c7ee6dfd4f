// The .wtns reader (load_wtns, read_wtns_prefix), writer side excepted, and
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
// The file's pages are released as they are read (at most ~8 MiB of it
// resident at once): the mapping is this call's alone.
template <class Dest>
Result<uint32_t> read_values(const std::filesystem::path& path, bool check_rest, Dest&& dest) {
  const std::string what = fmt::format("wtns '{}'", path.string());
  auto mapped = MappedFile::open(path);
  if (!mapped.is_ok()) return Status(mapped.status().code(), "wtns " + mapped.status().message());
  const MappedFile& file = mapped.value();
  PP_ASSIGN_OR_RETURN(BinFile f, BinFile::parse(file.bytes(), "wtns", 2, what));

  // Section 1: u32 n8, prime (n8 bytes), u32 nWitness.
  PP_ASSIGN_OR_RETURN(Cursor c1, f.cursor(1));
  PP_ASSIGN_OR_RETURN(uint32_t n8, c1.u32("n8"));
  if (n8 > 1024) return f.error("unsupported curve: n8 = {}", n8);
  PP_ASSIGN_OR_RETURN(auto prime, c1.bytes(n8, "prime"));
  PP_RETURN_IF_ERROR(detail::check_prime(f, detail::FieldKind::kScalar, n8, prime, "prime"));
  PP_RETURN_IF_ERROR(f.section(1, 4 + 32 + 4).status());
  PP_ASSIGN_OR_RETURN(uint32_t n_witness, c1.u32("nWitness"));

  // Section 2: nWitness values, 32 bytes each, standard form, < r.
  PP_ASSIGN_OR_RETURN(auto s2, f.section(2, uint64_t(n_witness) * 32));
  PP_ASSIGN_OR_RETURN(std::span<ff::Fr> out, dest(n_witness));
  const auto values = s2.first((check_rest ? n_witness : out.size()) * size_t{32});
  PP_RETURN_IF_ERROR(check_in_chunks(file, values, 32, true, [&](size_t first, size_t last) -> Status {
    for (size_t i = first; i < last; ++i) {
      const bool ok =
          i < out.size() ? ff::Fr::from_bytes(s2.data() + i * 32, &out[i]) : detail::below_r(s2.data() + i * 32);
      if (!ok) return f.error("w[{}] is not below r", i);
    }
    return Status::ok();
  }));
  return n_witness;
}

}  // namespace

Result<Witness> load_wtns(const std::filesystem::path& path) {
  Witness w;
  w.path = path;
  auto n = read_values(path, false, [&](uint32_t n_witness) -> Result<std::span<ff::Fr>> {
    w.values.resize(n_witness);  // bounded by the file size just checked
    return std::span<ff::Fr>(w.values);
  });
  if (!n) return n.status();
  return w;
}

Result<uint32_t> read_wtns_prefix(const std::filesystem::path& path, std::span<ff::Fr> out) {
  return read_values(path, false, [&](uint32_t n_witness) -> Result<std::span<ff::Fr>> {
    if (out.size() > n_witness) {
      return make_error(ErrorCode::kInvalidArgument, "wtns '{}' has {} values, {} needed", path.string(), n_witness,
                        out.size());
    }
    return out;
  });
}

namespace {

// check_witness_matches's rule on a witness of `count` values starting w0.
Status check_matches(const Zkey& zkey, const std::filesystem::path& path, size_t count, const ff::Fr* w0) {
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

Status check_witness_matches(const Zkey& zkey, const Witness& witness) {
  return check_matches(zkey, witness.path, witness.values.size(),
                       witness.values.empty() ? nullptr : &witness.values[0]);
}

Status check_wtns_for(const Zkey& zkey, const std::filesystem::path& path, std::span<ff::Fr> prefix) {
  std::vector<ff::Fr> head;
  auto n = read_values(path, true, [&](uint32_t n_witness) -> Result<std::span<ff::Fr>> {
    head.resize(std::min<size_t>(n_witness, prefix.size() + 1));  // w[0] and the prefix
    return std::span<ff::Fr>(head);
  });
  if (!n) return n.status();
  PP_RETURN_IF_ERROR(check_matches(zkey, path, *n, head.empty() ? nullptr : &head[0]));
  std::copy(head.begin() + 1, head.end(), prefix.begin());  // n = nVars > prefix.size() here
  return Status::ok();
}

}  // namespace proofpipe::formats
