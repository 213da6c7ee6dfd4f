// Fuzz target: the r1cs reader (formats/r1cs.hpp). Property: an error
// Status, or a constraint system whose CSR rows and wire indices are in
// range and that survives write_r1cs -> load_r1cs unchanged.
#include "fuzz_input.hpp"
#include "proofpipe/formats/r1cs.hpp"

using namespace proofpipe;

namespace {

template <class M>
void check_matrix(const M& m, const formats::R1csHeader& h) {
  PP_FUZZ_CHECK(m.rows() == h.n_constraints);
  PP_FUZZ_CHECK(m.row_start.front() == 0 && m.row_start.back() == m.nnz() && m.coefs.size() == m.nnz());
  for (size_t c = 0; c < m.rows(); ++c) PP_FUZZ_CHECK(m.row_start[c] <= m.row_start[c + 1]);
  for (uint32_t w : m.wires) PP_FUZZ_CHECK(w < h.n_wires);
}

template <class M>
bool same_matrix(const M& x, const M& y) {
  return x.row_start == y.row_start && x.wires == y.wires && x.coefs == y.coefs;
}

template <class C>
void check(const std::filesystem::path& path) {
  auto r = formats::load_r1cs<C>(path);
  if (!r) return;
  for (const auto* m : {&r->a, &r->b, &r->c}) check_matrix(*m, r->header);

  const auto out = fuzz::scratch_dir() / "c.r1cs";
  PP_FUZZ_CHECK(formats::write_r1cs(out, *r).is_ok());
  auto back = formats::load_r1cs<C>(out);
  PP_FUZZ_CHECK(back.is_ok());
  const auto &h = r->header, &hb = back->header;
  PP_FUZZ_CHECK(h.n_wires == hb.n_wires && h.n_pub_out == hb.n_pub_out && h.n_pub_in == hb.n_pub_in &&
                h.n_prv_in == hb.n_prv_in && h.n_constraints == hb.n_constraints);
  PP_FUZZ_CHECK(same_matrix(r->a, back->a) && same_matrix(r->b, back->b) && same_matrix(r->c, back->c));
  auto curve = formats::r1cs_curve(path);
  PP_FUZZ_CHECK(curve.is_ok() && curves::curve_name(*curve) == C::kName);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto& path = fuzz::bytes_as_file(data, size);
  check<curves::Bls12_381>(path);
  check<curves::Bn254>(path);
  return 0;
}
