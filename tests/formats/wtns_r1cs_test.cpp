// formats/wtns.hpp and r1cs.hpp on the snarkjs fixtures in tests/data
// (see tests/data/README.md): the witnesses match the key and satisfy the
// constraints, and every malformed file made by mutating a copy of a
// fixture is refused with a one-line error naming it.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "proofpipe/formats/decimal.hpp"
#include "proofpipe/formats/proof_json.hpp"
#include "proofpipe/formats/r1cs.hpp"
#include "proofpipe/formats/wtns.hpp"
#include "proofpipe/formats/zkey.hpp"
#include "support/format_files.hpp"

namespace proofpipe::test {
namespace {

namespace fs = std::filesystem;
using namespace proofpipe::formats;

// ----- wtns -----

TEST(Wtns, LoadsAndMatchesTheKeyAndTheConstraints) {
  for (const auto& cs : kCircuits) {
    SCOPED_TRACE(cs.name);
    REQUIRE_FIXTURE(fixture(cs.name, "circuit.zkey"));
    auto z = load_zkey<curves::Bls12_381>(fixture(cs.name, "circuit.zkey"));
    auto r1 = load_r1cs<curves::Bls12_381>(fixture(cs.name, "circuit.r1cs"));
    ASSERT_TRUE(z.is_ok() && r1.is_ok());
    for (const auto& entry : fs::directory_iterator(data_dir() / cs.name)) {
      if (entry.path().extension() != ".wtns") continue;
      SCOPED_TRACE(entry.path().filename().string());
      auto w = load_wtns<curves::Bls12_381>(entry.path());
      ASSERT_TRUE(w.is_ok()) << w.status().to_string();
      EXPECT_EQ(w->values.size(), cs.n_vars);
      EXPECT_TRUE(w->values[0].is_one());
      EXPECT_TRUE(check_witness_matches(*z, *w).is_ok());
      EXPECT_TRUE(check_r1cs_satisfied(*r1, *w).is_ok());
    }
    // public.json = w[1..nPublic] of w00.
    auto w0 = load_wtns<curves::Bls12_381>(fixture(cs.name, "w00.wtns"));
    auto pub = read_public_json<curves::Bls12_381>(fixture(cs.name, "snarkjs_public.json"));
    ASSERT_TRUE(pub.is_ok()) << pub.status().to_string();
    ASSERT_EQ(pub->size(), cs.n_public);
    for (uint32_t i = 0; i < cs.n_public; ++i) EXPECT_TRUE((*pub)[i] == w0->values[i + 1]);
    // A changed value breaks a constraint.
    WitnessT<curves::Bls12_381> bad = *w0;
    bad.values.back() += bls12_381::Fr::one();
    expect_error(check_r1cs_satisfied(*r1, bad), ErrorCode::kInvalidArgument, bad.path, "does not satisfy constraint");
  }
}

TEST(Wtns, RejectsMalformedFilesAndWrongLengths) {
  auto src = fixture("multi_io", "w00.wtns");
  REQUIRE_FIXTURE(src);
  const Bytes orig = read_bytes(src);
  const Container base = Container::parse(orig);
  TempDir dir;
  const fs::path p = dir / "bad.wtns";
  auto zpath = fixture("multi_io", "circuit.zkey");
  auto z = load_zkey<curves::Bls12_381>(zpath);
  ASSERT_TRUE(z.is_ok());
  std::vector<bls12_381::Fr> pub(z->header().n_public);
  // Every malformed file gives the same error from the coordinator's
  // streaming check (check_wtns_for) as from load_wtns.
  auto check = [&](const Bytes& b, const std::string& needle) {
    SCOPED_TRACE(needle);
    write_bytes(p, b);
    expect_error(load_wtns<curves::Bls12_381>(p).status(), ErrorCode::kBadFormat, p, needle);
    expect_error(check_wtns_for(*z, p, pub), ErrorCode::kBadFormat, p, needle);
  };
  auto edit = [&](auto fn) {
    Container c = base;
    fn(c);
    return c.bytes();
  };
  // Truncations through the file API: every offset of the headers, then a
  // stride (BinFile.EveryTruncationIsRejected covers every offset in memory).
  for (size_t n = 0; n < orig.size(); n += (n < 100 ? 1 : 97)) {
    write_bytes(p, Bytes(orig.begin(), orig.begin() + long(n)));
    auto w = load_wtns<curves::Bls12_381>(p);
    ASSERT_FALSE(w.is_ok()) << n;
    ASSERT_EQ(w.status().code(), ErrorCode::kBadFormat) << w.status().to_string();
    ASSERT_NE(w.status().message().find("truncated"), std::string::npos) << w.status().to_string();
  }
  Bytes b = orig;
  b[3] = 'x';
  check(b, "bad magic 'wtnx', expected 'wtns'");
  b = orig;
  put_u32(b, 4, 1);
  check(b, "unsupported wtns version 1 (expected 2)");
  check(edit([](Container& c) { c.section(1)[4] ^= 2; }), "prime mismatch: scalar field prime");
  check(edit([](Container& c) { put_u32(c.section(1), 0, 48); }), "truncated");
  check(edit([](Container& c) { c.section(1).resize(44); }), "section 1 is 44 bytes, expected 40");
  check(edit([](Container& c) { c.section(2).resize(c.section(2).size() - 32); }),
        "section 2 is 11200 bytes, expected 11232");
  check(edit([](Container& c) { std::memset(c.section(2).data() + 3 * 32, 0xff, 32); }), "w[3] is not below r");
  // Past the public signals: check_wtns_for keeps only w[1..n_public] but
  // still checks every value.
  const size_t last = Container(base).section(2).size() / 32 - 1;
  check(edit([&](Container& c) { std::memset(c.section(2).data() + last * 32, 0xff, 32); }),
        "w[" + std::to_string(last) + "] is not below r");

  // The good file: the kept prefix is w[1..n_public].
  auto good = load_wtns<curves::Bls12_381>(src);
  ASSERT_TRUE(good.is_ok() && check_wtns_for(*z, src, pub).is_ok());
  for (size_t i = 0; i < pub.size(); ++i) EXPECT_TRUE(pub[i] == good->values[1 + i]) << i;

  // Internally consistent but one value short: loads, then mismatches the key.
  write_bytes(p, edit([](Container& c) {
                c.section(2).resize(c.section(2).size() - 32);
                put_u32(c.section(1), 36, 350);
              }));
  auto w = load_wtns<curves::Bls12_381>(p);
  ASSERT_TRUE(w.is_ok()) << w.status().to_string();
  for (const Status& s : {check_witness_matches(*z, *w), check_wtns_for(*z, p, pub)}) {
    expect_error(s, ErrorCode::kInvalidArgument, p, "has 350 values");
    EXPECT_NE(s.message().find(zpath.string()), std::string::npos);
  }
  // Another circuit's witness.
  auto other = load_wtns<curves::Bls12_381>(fixture("sparse_dense", "w00.wtns"));
  if (other.is_ok()) {
    EXPECT_EQ(check_witness_matches(*z, *other).code(), ErrorCode::kInvalidArgument);
  }
  // w[0] must be the constant one.
  write_bytes(p, edit([](Container& c) { c.section(2)[0] = 2; }));
  expect_error(check_witness_matches(*z, load_wtns<curves::Bls12_381>(p).value()), ErrorCode::kInvalidArgument, p,
               "w[0] is 2, expected 1");
  expect_error(check_wtns_for(*z, p, pub), ErrorCode::kInvalidArgument, p, "w[0] is 2, expected 1");
}

// ----- r1cs -----

TEST(R1cs, LoadsTheFixtures) {
  for (const auto& cs : kCircuits) {
    SCOPED_TRACE(cs.name);
    REQUIRE_FIXTURE(fixture(cs.name, "circuit.r1cs"));
    auto r = load_r1cs<curves::Bls12_381>(fixture(cs.name, "circuit.r1cs"));
    ASSERT_TRUE(r.is_ok()) << r.status().to_string();
    EXPECT_EQ(r->header.n_wires, cs.n_vars);
    EXPECT_EQ(r->header.n_pub_out, cs.pub_out);
    EXPECT_EQ(r->header.n_pub_in, cs.pub_in);
    EXPECT_EQ(r->header.n_prv_in, cs.prv_in);
    EXPECT_EQ(r->header.n_constraints, cs.n_constraints);
    EXPECT_EQ(r->a.rows(), cs.n_constraints);
    EXPECT_EQ(r->a.nnz(), cs.nnz_a);
    EXPECT_EQ(r->b.nnz(), cs.nnz_b);
    EXPECT_EQ(r->c.nnz(), cs.nnz_c);
  }
}

TEST(R1cs, RejectsMalformedFiles) {
  auto src = fixture("multi_io", "circuit.r1cs");
  REQUIRE_FIXTURE(src);
  const Bytes orig = read_bytes(src);
  const Container base = Container::parse(orig);  // physical order 2, 1, 3
  TempDir dir;
  const fs::path p = dir / "bad.r1cs";
  auto check = [&](const Bytes& b, const std::string& needle) {
    SCOPED_TRACE(needle);
    write_bytes(p, b);
    expect_error(load_r1cs<curves::Bls12_381>(p).status(), ErrorCode::kBadFormat, p, needle);
  };
  auto edit = [&](auto fn) {
    Container c = base;
    fn(c);
    return c.bytes();
  };
  // Truncations: densely around the table and section headers, sparsely elsewhere.
  std::vector<size_t> cuts;
  for (size_t n = 0; n < 64; ++n) cuts.push_back(n);
  for (uint32_t t : {1u, 2u, 3u}) {
    for (int d = -14; d < 70; ++d) cuts.push_back(size_t(long(base.data_offset(t)) + d));
  }
  for (size_t n = 64; n < orig.size(); n += 251) cuts.push_back(n);
  for (size_t n : cuts) {
    if (n >= orig.size()) continue;
    write_bytes(p, Bytes(orig.begin(), orig.begin() + long(n)));
    auto r = load_r1cs<curves::Bls12_381>(p);
    ASSERT_FALSE(r.is_ok()) << n;
    ASSERT_NE(r.status().message().find("truncated"), std::string::npos) << r.status().to_string();
  }
  Bytes b = orig;
  b[0] = 'R';
  check(b, "bad magic 'R1cs'");
  check(edit([](Container& c) { c.section(1)[4] ^= 1; }), "prime mismatch");
  check(edit([](Container& c) { put_u32(c.section(1), 36, 10); }), "nWires 10 is less than");
  // The first term of constraint 0's A: u32 nTerms, then u32 wire.
  check(edit([](Container& c) { put_u32(c.section(2), 4, 351); }), "constraint 0 A: wire 351 is not below nWires 351");
  check(edit([](Container& c) { std::memset(c.section(2).data() + 8, 0xff, 32); }),
        "constraint 0 A: coefficient is not below r");
  check(edit([](Container& c) { c.section(2).resize(c.section(2).size() + 4); }), "4 unexpected trailing bytes");
  check(edit([](Container& c) { put_u32(c.section(1), 60, 100000); }), "truncated: nConstraints 100000");
  check(edit([](Container& c) { c.section(3).resize(8); }), "section 3 is 8 bytes, expected 2808");
  check(edit([](Container& c) { c.sections.push_back({4, Bytes(4)}); }), "custom gates");
}

}  // namespace
}  // namespace proofpipe::test
