// write_r1cs and write_wtns round trips on the committed fixtures: what the
// writers produce loads back to the same header, matrices and values.
#include <gtest/gtest.h>

#include "proofpipe/formats/r1cs.hpp"
#include "proofpipe/formats/wtns.hpp"
#include "support/subprocess.hpp"

namespace proofpipe::formats {
namespace {

using proofpipe::test::data_dir;
using proofpipe::test::TempDir;

void expect_same(const SparseMatrixT<curves::Bls12_381>& x, const SparseMatrixT<curves::Bls12_381>& y) {
  EXPECT_EQ(x.row_start, y.row_start);
  EXPECT_EQ(x.wires, y.wires);
  EXPECT_TRUE(x.coefs == y.coefs);
}

TEST(Writers, R1csRoundTrip) {
  for (const char* fixture : {"multi_io", "sparse_dense"}) {
    SCOPED_TRACE(fixture);
    auto r = load_r1cs<curves::Bls12_381>(data_dir() / fixture / "circuit.r1cs");
    ASSERT_TRUE(r.is_ok()) << r.status().message();
    TempDir tmp;
    ASSERT_TRUE(write_r1cs(tmp / "c.r1cs", *r).is_ok());
    auto back = load_r1cs<curves::Bls12_381>(tmp / "c.r1cs");
    ASSERT_TRUE(back.is_ok()) << back.status().message();
    EXPECT_EQ(back->header.n_wires, r->header.n_wires);
    EXPECT_EQ(back->header.n_pub_out, r->header.n_pub_out);
    EXPECT_EQ(back->header.n_pub_in, r->header.n_pub_in);
    EXPECT_EQ(back->header.n_prv_in, r->header.n_prv_in);
    EXPECT_EQ(back->header.n_constraints, r->header.n_constraints);
    expect_same(back->a, r->a);
    expect_same(back->b, r->b);
    expect_same(back->c, r->c);
  }
}

TEST(Writers, WtnsRoundTripIsByteIdentical) {
  auto w = load_wtns<curves::Bls12_381>(data_dir() / "multi_io" / "w03.wtns");
  ASSERT_TRUE(w.is_ok()) << w.status().message();
  TempDir tmp;
  ASSERT_TRUE(write_wtns<curves::Bls12_381>(tmp / "w.wtns", w->values).is_ok());
  auto cmp = proofpipe::test::run_command("cmp " + proofpipe::test::quote(data_dir() / "multi_io" / "w03.wtns") + " " +
                                          proofpipe::test::quote(tmp / "w.wtns"));
  EXPECT_EQ(cmp.exit_code, 0) << cmp.output;
}

TEST(Writers, UnwritablePathIsOneIoError) {
  const std::vector<bls12_381::Fr> values = {bls12_381::Fr::one()};
  Status st = write_wtns<curves::Bls12_381>("/nonexistent-dir/w.wtns", values);
  ASSERT_FALSE(st.is_ok());
  EXPECT_EQ(st.code(), ErrorCode::kIo);
  EXPECT_NE(st.message().find("/nonexistent-dir/w.wtns"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace proofpipe::formats
