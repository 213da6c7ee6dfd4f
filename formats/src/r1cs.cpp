// load_r1cs: header (section 1) first, wherever it sits, then the constraint
// records of section 2 walked with a bounds-checked Cursor.
#include "proofpipe/formats/r1cs.hpp"

#include <cstring>
#include <string>

#include "primes.hpp"
#include "proofpipe/formats/binfile.hpp"
#include "proofpipe/formats/mapped_file.hpp"
#include "proofpipe/formats/wtns.hpp"
#include "proofpipe/formats/zkey.hpp"

namespace proofpipe::formats {

namespace {

constexpr uint64_t kTermBytes = 4 + 32;  // u32 wire, 32-byte coefficient

// Appends one linear combination (u32 nTerms, then nTerms x {wire, coef}).
template <class C>
Status read_lc(const BinFile& f, Cursor& c, uint32_t n_wires, uint32_t row, char name, SparseMatrixT<C>& m) {
  PP_ASSIGN_OR_RETURN(uint32_t n_terms, c.u32("nTerms"));
  if (uint64_t(n_terms) * kTermBytes > c.remaining()) {
    return f.error("truncated: constraint {} {} has {} terms, only {} bytes left in section 2", row, name, n_terms,
                   c.remaining());
  }
  PP_ASSIGN_OR_RETURN(auto terms, c.bytes(uint64_t(n_terms) * kTermBytes, "terms"));
  for (uint32_t t = 0; t < n_terms; ++t) {
    const uint8_t* p = terms.data() + size_t(t) * kTermBytes;
    uint32_t wire;
    std::memcpy(&wire, p, 4);
    if (wire >= n_wires) {
      return f.error("constraint {} {}: wire {} is not below nWires {}", row, name, wire, n_wires);
    }
    typename C::Fr coef;
    if (!C::Fr::from_bytes(p + 4, &coef)) return f.error("constraint {} {}: coefficient is not below r", row, name);
    m.wires.push_back(wire);
    m.coefs.push_back(coef);
  }
  m.row_start.push_back(m.wires.size());
  return Status::ok();
}

}  // namespace

template <class C>
Result<R1csT<C>> load_r1cs(const std::filesystem::path& path) {
  const std::string what = fmt::format("r1cs '{}'", path.string());
  auto mapped = MappedFile::open(path);
  if (!mapped.is_ok()) return Status(mapped.status().code(), "r1cs " + mapped.status().message());
  const MappedFile& file = mapped.value();
  PP_ASSIGN_OR_RETURN(BinFile f, BinFile::parse(file.bytes(), "r1cs", 1, what));

  // Section 1 (64 bytes for n8 = 32).
  PP_ASSIGN_OR_RETURN(Cursor c1, f.cursor(1));
  PP_ASSIGN_OR_RETURN(uint32_t n8, c1.u32("n8"));
  if (n8 > 1024) return f.error("unsupported curve: n8 = {}", n8);
  PP_ASSIGN_OR_RETURN(auto prime, c1.bytes(n8, "prime"));
  PP_RETURN_IF_ERROR(detail::check_prime<C>(f, detail::FieldKind::kScalar, n8, prime, "prime"));
  PP_RETURN_IF_ERROR(f.section(1, 4 + 32 + 4 * 4 + 8 + 4).status());
  R1csT<C> out;
  out.path = path;
  R1csHeader& h = out.header;
  PP_ASSIGN_OR_RETURN(h.n_wires, c1.u32("nWires"));
  PP_ASSIGN_OR_RETURN(h.n_pub_out, c1.u32("nPubOut"));
  PP_ASSIGN_OR_RETURN(h.n_pub_in, c1.u32("nPubIn"));
  PP_ASSIGN_OR_RETURN(h.n_prv_in, c1.u32("nPrvIn"));
  PP_ASSIGN_OR_RETURN(h.n_labels, c1.u64("nLabels"));
  PP_ASSIGN_OR_RETURN(h.n_constraints, c1.u32("nConstraints"));
  const uint64_t inputs = 1 + uint64_t(h.n_pub_out) + h.n_pub_in + h.n_prv_in;
  if (inputs > h.n_wires) {
    return f.error("nWires {} is less than 1 + nPubOut + nPubIn + nPrvIn = {}", h.n_wires, inputs);
  }

  if (f.has(4) || f.has(5)) return f.error("custom gates (sections 4/5, PLONK only) are not supported");
  if (f.has(3)) PP_RETURN_IF_ERROR(f.section(3, uint64_t(h.n_wires) * 8).status());

  // Section 2: each constraint is at least three empty LCs (12 bytes), which
  // bounds nConstraints by the section size before anything is reserved.
  PP_ASSIGN_OR_RETURN(Cursor c2, f.cursor(2));
  if (uint64_t(h.n_constraints) * 12 > c2.remaining()) {
    return f.error("truncated: nConstraints {} needs at least {} bytes, section 2 has {}", h.n_constraints,
                   uint64_t(h.n_constraints) * 12, c2.remaining());
  }
  for (SparseMatrixT<C>* m : {&out.a, &out.b, &out.c}) {
    m->row_start.reserve(uint64_t(h.n_constraints) + 1);
    m->row_start.push_back(0);
  }
  for (uint32_t row = 0; row < h.n_constraints; ++row) {
    PP_RETURN_IF_ERROR(read_lc(f, c2, h.n_wires, row, 'A', out.a));
    PP_RETURN_IF_ERROR(read_lc(f, c2, h.n_wires, row, 'B', out.b));
    PP_RETURN_IF_ERROR(read_lc(f, c2, h.n_wires, row, 'C', out.c));
  }
  PP_RETURN_IF_ERROR(c2.expect_end());
  return out;
}

template <class C>
Status check_r1cs_matches(const ZkeyT<C>& zkey, const R1csT<C>& r1cs) {
  if (zkey.n_vars() != r1cs.header.n_wires || zkey.n_public() != r1cs.header.n_public()) {
    return make_error(ErrorCode::kInvalidArgument,
                      "r1cs '{}' (nWires {}, nPublic {}) does not match zkey '{}' (nVars {}, nPublic {})",
                      r1cs.path.string(), r1cs.header.n_wires, r1cs.header.n_public(), zkey.path().string(),
                      zkey.n_vars(), zkey.n_public());
  }
  return Status::ok();
}

template <class C>
Status check_r1cs_satisfied(const R1csT<C>& r1cs, const WitnessT<C>& witness) {
  if (witness.values.size() != r1cs.header.n_wires) {
    return make_error(ErrorCode::kInvalidArgument, "witness '{}' has {} values, r1cs '{}' has nWires = {}",
                      witness.path.string(), witness.values.size(), r1cs.path.string(), r1cs.header.n_wires);
  }
  std::span<const typename C::Fr> w = witness.values;
  for (size_t c = 0; c < r1cs.a.rows(); ++c) {
    if (r1cs.a.dot(c, w) * r1cs.b.dot(c, w) != r1cs.c.dot(c, w)) {
      return make_error(ErrorCode::kInvalidArgument, "witness '{}' does not satisfy constraint {} of r1cs '{}'",
                        witness.path.string(), c, r1cs.path.string());
    }
  }
  return Status::ok();
}

Result<curves::CurveId> r1cs_curve(const std::filesystem::path& path) {
  return detail::file_curve(path, "r1cs", 1, 1, detail::FieldKind::kScalar);
}

#define PP_R1CS(C)                                                      \
  template Result<R1csT<C>> load_r1cs<C>(const std::filesystem::path&); \
  template Status check_r1cs_matches(const ZkeyT<C>&, const R1csT<C>&); \
  template Status check_r1cs_satisfied(const R1csT<C>&, const WitnessT<C>&);
PP_R1CS(curves::Bls12_381)
PP_R1CS(curves::Bn254)
#undef PP_R1CS

}  // namespace proofpipe::formats
