// write_r1cs and write_wtns: the circom containers (docs/design/formats.md
// §2.1, §2.2) for synthetic workloads (`proofpipe gen`). Values go out in
// standard form, as circom writes them.
#include <array>

#include "bin_writer.hpp"
#include "proofpipe/formats/r1cs.hpp"
#include "proofpipe/formats/wtns.hpp"

namespace proofpipe::formats {
namespace {

constexpr uint32_t kN8 = 32;

template <class Fr>
void write_prime(detail::BinWriter& out) {
  const auto& p = Fr::C::kP;
  out.bytes(p.data(), kN8);
}

template <class Fr>
void write_fr(detail::BinWriter& out, const Fr& v) {
  std::array<uint8_t, kN8> b{};
  v.to_bytes(b.data());
  out.bytes(b.data(), kN8);
}

template <class M>
uint64_t lc_bytes(const M& m, size_t row) {
  return 4 + uint64_t(m.row_wires(row).size()) * (4 + kN8);
}

template <class M>
void write_lc(detail::BinWriter& out, const M& m, size_t row) {
  const auto wires = m.row_wires(row);
  const auto coefs = m.row_coefs(row);
  out.u32(uint32_t(wires.size()));
  for (size_t i = 0; i < wires.size(); ++i) {
    out.u32(wires[i]);
    write_fr(out, coefs[i]);
  }
}

}  // namespace

template <class C>
Status write_r1cs(const std::filesystem::path& path, const R1csT<C>& r) {
  const R1csHeader& h = r.header;
  if (r.a.rows() != h.n_constraints || r.b.rows() != h.n_constraints || r.c.rows() != h.n_constraints) {
    return make_error(ErrorCode::kInvalidArgument, "r1cs '{}': matrices have {}/{}/{} rows, header says {}",
                      path.string(), r.a.rows(), r.b.rows(), r.c.rows(), h.n_constraints);
  }
  uint64_t constraints_bytes = 0;
  for (size_t c = 0; c < h.n_constraints; ++c) {
    constraints_bytes += lc_bytes(r.a, c) + lc_bytes(r.b, c) + lc_bytes(r.c, c);
  }
  return detail::write_atomically(path, "r1cs", [&](detail::BinWriter& out) {
    out.file_header("r1cs", 1, 3);
    out.section(1, 4 + kN8 + 4 * 4 + 8 + 4);
    out.u32(kN8);
    write_prime<typename C::Fr>(out);
    out.u32(h.n_wires);
    out.u32(h.n_pub_out);
    out.u32(h.n_pub_in);
    out.u32(h.n_prv_in);
    out.u64(h.n_wires);  // one label per wire
    out.u32(h.n_constraints);
    out.section(2, constraints_bytes);
    for (size_t c = 0; c < h.n_constraints; ++c) {
      write_lc(out, r.a, c);
      write_lc(out, r.b, c);
      write_lc(out, r.c, c);
    }
    out.section(3, uint64_t(h.n_wires) * 8);
    for (uint64_t w = 0; w < h.n_wires; ++w) out.u64(w);
  });
}

template <class C>
Status write_wtns(const std::filesystem::path& path, std::span<const typename C::Fr> values) {
  return detail::write_atomically(path, "wtns", [&](detail::BinWriter& out) {
    out.file_header("wtns", 2, 2);
    out.section(1, 4 + kN8 + 4);
    out.u32(kN8);
    write_prime<typename C::Fr>(out);
    out.u32(uint32_t(values.size()));
    out.section(2, uint64_t(values.size()) * kN8);
    for (const auto& v : values) write_fr(out, v);
  });
}

#define PP_WRITERS(C)                                                        \
  template Status write_r1cs(const std::filesystem::path&, const R1csT<C>&); \
  template Status write_wtns<C>(const std::filesystem::path&, std::span<const C::Fr>);
PP_WRITERS(curves::Bls12_381)
PP_WRITERS(curves::Bn254)
#undef PP_WRITERS

}  // namespace proofpipe::formats
