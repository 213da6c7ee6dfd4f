// load_wtns and check_witness_matches.
#include "proofpipe/formats/wtns.hpp"

#include <string>

#include "primes.hpp"
#include "proofpipe/formats/binfile.hpp"
#include "proofpipe/formats/decimal.hpp"
#include "proofpipe/formats/mapped_file.hpp"
#include "proofpipe/formats/zkey.hpp"

namespace proofpipe::formats {

namespace {

// Checks the header and both sections, then converts values [0, count) into
// dest(n_witness) (which returns where to put them; count = its size).
template <class Dest>
Result<uint32_t> read_values(const std::filesystem::path& path, Dest&& dest) {
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
  for (size_t i = 0; i < out.size(); ++i) {
    if (!ff::Fr::from_bytes(s2.data() + i * 32, &out[i])) return f.error("w[{}] is not below r", i);
  }
  return n_witness;
}

}  // namespace

Result<Witness> load_wtns(const std::filesystem::path& path) {
  Witness w;
  w.path = path;
  auto n = read_values(path, [&](uint32_t n_witness) -> Result<std::span<ff::Fr>> {
    w.values.resize(n_witness);  // bounded by the file size just checked
    return std::span<ff::Fr>(w.values);
  });
  if (!n) return n.status();
  return w;
}

Result<uint32_t> read_wtns_prefix(const std::filesystem::path& path, std::span<ff::Fr> out) {
  return read_values(path, [&](uint32_t n_witness) -> Result<std::span<ff::Fr>> {
    if (out.size() > n_witness) {
      return make_error(ErrorCode::kInvalidArgument, "wtns '{}' has {} values, {} needed", path.string(), n_witness,
                        out.size());
    }
    return out;
  });
}

Status check_witness_matches(const Zkey& zkey, const Witness& witness) {
  if (witness.values.size() != zkey.n_vars()) {
    return make_error(ErrorCode::kInvalidArgument, "witness '{}' has {} values, zkey '{}' expects nVars = {}",
                      witness.path.string(), witness.values.size(), zkey.path().string(), zkey.n_vars());
  }
  if (!witness.values.empty() && !witness.values[0].is_one()) {
    return make_error(ErrorCode::kInvalidArgument, "witness '{}': w[0] is {}, expected 1", witness.path.string(),
                      to_decimal(witness.values[0]));
  }
  return Status::ok();
}

}  // namespace proofpipe::formats
