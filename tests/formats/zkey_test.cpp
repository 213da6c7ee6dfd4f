// formats/zkey.hpp and binfile.hpp on the snarkjs fixtures in tests/data
// (see tests/data/README.md): exact section views, the coefficient
// convention checked against the r1cs, every malformed case made by
// mutating a copy of a fixture in a temp dir, random byte flips, and the
// container parser's truncations.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "proofpipe/formats/binfile.hpp"
#include "proofpipe/formats/decimal.hpp"
#include "proofpipe/formats/r1cs.hpp"
#include "proofpipe/formats/wtns.hpp"
#include "proofpipe/formats/zkey.hpp"
#include "support/format_files.hpp"
#include "support/test_seed.hpp"

namespace proofpipe::test {
namespace {

namespace fs = std::filesystem;
using namespace proofpipe::formats;

// ----- zkey -----

TEST(Zkey, LoadsTheFixturesWithExactSectionViews) {
  for (const auto& cs : kCircuits) {
    SCOPED_TRACE(cs.name);
    auto path = fixture(cs.name, "circuit.zkey");
    REQUIRE_FIXTURE(path);
    auto z = load_zkey<curves::Bls12_381>(path, {.check_points = true});
    ASSERT_TRUE(z.is_ok()) << z.status().to_string();
    EXPECT_EQ(z->n_vars(), cs.n_vars);
    EXPECT_EQ(z->n_public(), cs.n_public);
    EXPECT_EQ(z->domain_size(), cs.domain);
    EXPECT_EQ(1u << z->header().log2_domain_size, cs.domain);
    EXPECT_EQ(z->ic().size(), cs.n_public + 1);
    EXPECT_EQ(z->a().size(), cs.n_vars);
    EXPECT_EQ(z->b1().size(), cs.n_vars);
    EXPECT_EQ(z->b2().size(), cs.n_vars);
    EXPECT_EQ(z->c().size(), cs.n_vars - cs.n_public - 1);
    EXPECT_EQ(z->h().size(), cs.domain);
    EXPECT_EQ(z->coefs().size(), cs.n_coef);
    // snarkjs's gamma is always the G2 generator (§6.3).
    EXPECT_TRUE(z->header().gamma2 == bls12_381::g2_generator());
    // A wire in no B term has B_s = 0: B1/B2 hold the all-zero infinity there.
    std::vector<bool> in_b(cs.n_vars, false);
    for (const ZkeyCoefT<curves::Bls12_381>& e : z->coefs()) {
      if (e.matrix == 1) in_b[e.signal] = true;
    }
    size_t unused = 0;
    for (uint32_t s = 0; s < cs.n_vars; ++s) {
      if (in_b[s]) continue;
      ++unused;
      EXPECT_TRUE(z->b1()[s].is_identity() && z->b2()[s].is_identity()) << "wire " << s;
    }
    EXPECT_GT(unused, 0u);
    // Misaligned point sections are copied, never more than the point data.
    EXPECT_LT(z->copied_bytes(), fs::file_size(path));
    // The key moves without invalidating its views.
    auto a0 = z->a().data();
    ZkeyT<curves::Bls12_381> moved = std::move(z).value();
    EXPECT_EQ(moved.a().data(), a0);
  }
}

// {.points = false} (coordinator, synthesis workers): the same header, IC and
// coefficients, no point views and no copies. (That the sizes are still
// checked is in RejectsEveryMutation... below.)
TEST(Zkey, LoadsWithoutPointSections) {
  for (const auto& cs : kCircuits) {
    SCOPED_TRACE(cs.name);
    auto path = fixture(cs.name, "circuit.zkey");
    REQUIRE_FIXTURE(path);
    auto full = load_zkey<curves::Bls12_381>(path);
    auto lean = load_zkey<curves::Bls12_381>(path, {.points = false});
    ASSERT_TRUE(full.is_ok() && lean.is_ok());
    EXPECT_EQ(lean->n_vars(), cs.n_vars);
    EXPECT_TRUE(lean->header().delta2 == full->header().delta2);
    ASSERT_EQ(lean->ic().size(), cs.n_public + 1);
    for (size_t i = 0; i < lean->ic().size(); ++i) EXPECT_TRUE(lean->ic()[i] == full->ic()[i]);
    EXPECT_EQ(lean->coefs().size(), cs.n_coef);
    EXPECT_TRUE(lean->a().empty() && lean->b1().empty() && lean->b2().empty());
    EXPECT_TRUE(lean->c().empty() && lean->h().empty());
    // Only IC (a few points) may have been copied, never a big section.
    EXPECT_LE(lean->copied_bytes(), (cs.n_public + 1) * sizeof(bls12_381::G1Affine));
  }
}

// drop (a one-shot prover giving sections back): the section's span is
// empty afterwards, copied or viewed, the others are untouched, and
// check_zkey_points reads the file anew instead of the dropped sections;
// release_range keeps the span readable with the same bytes. coefs_sorted
// agrees with a scan of the section.
TEST(Zkey, DroppedSectionsAreEmptyAndThePointCheckRereadsTheFile) {
  for (const auto& cs : kCircuits) {
    SCOPED_TRACE(cs.name);
    auto path = fixture(cs.name, "circuit.zkey");
    REQUIRE_FIXTURE(path);
    auto z = load_zkey<curves::Bls12_381>(path);
    ASSERT_TRUE(z.is_ok()) << z.status().to_string();
    using Coef = ZkeyCoefT<curves::Bls12_381>;
    const auto coefs = z->coefs();
    EXPECT_EQ(z->coefs_sorted(), std::is_sorted(coefs.begin(), coefs.end(), [](const Coef& x, const Coef& y) {
                return x.constraint < y.constraint;
              }));
    const std::vector<Coef> before(coefs.begin(), coefs.end());
    z->release_range(KeyPart::kCoefficients, 0, coefs.size());
    ASSERT_EQ(z->coefs().size(), before.size());
    EXPECT_EQ(std::memcmp(z->coefs().data(), before.data(), before.size() * sizeof(Coef)), 0);

    const auto b1 = std::vector<bls12_381::G1Affine>(z->b1().begin(), z->b1().end());
    EXPECT_FALSE(z->dropped_any());
    for (KeyPart part : {KeyPart::kA, KeyPart::kB2, KeyPart::kC, KeyPart::kH, KeyPart::kCoefficients}) z->drop(part);
    EXPECT_TRUE(z->dropped_any());
    EXPECT_TRUE(z->a().empty() && z->b2().empty() && z->c().empty() && z->h().empty() && z->coefs().empty());
    ASSERT_EQ(z->b1().size(), b1.size());
    for (size_t i = 0; i < b1.size(); ++i) EXPECT_TRUE(z->b1()[i] == b1[i]) << i;
    EXPECT_TRUE(check_zkey_points(*z)) << "the file is whole";
  }
}

// Section 4's convention, checked against the r1cs: value = coef*R^2 mod r.
TEST(Zkey, CoefficientsAreR1csAandBTimesRSquared) {
  for (const auto& cs : kCircuits) {
    SCOPED_TRACE(cs.name);
    REQUIRE_FIXTURE(fixture(cs.name, "circuit.zkey"));
    auto z = load_zkey<curves::Bls12_381>(fixture(cs.name, "circuit.zkey"));
    auto r1 = load_r1cs<curves::Bls12_381>(fixture(cs.name, "circuit.r1cs"));
    auto w = load_wtns<curves::Bls12_381>(fixture(cs.name, "w00.wtns"));
    ASSERT_TRUE(z.is_ok() && r1.is_ok() && w.is_ok());
    ASSERT_TRUE(check_r1cs_matches(*z, *r1).is_ok());

    using Key = std::tuple<uint32_t, uint32_t, uint32_t>;  // matrix, row, wire
    std::map<Key, bls12_381::Fr> from_zkey, from_r1cs;
    auto add = [](std::map<Key, bls12_381::Fr>& m, Key k, bls12_381::Fr v) {
      auto [it, fresh] = m.emplace(k, v);
      if (!fresh) it->second += v;
    };
    const bls12_381::Fr::Repr r2 = ff::MontConsts<bls12_381::FrParams>::kR2;  // R^2 mod r
    for (const ZkeyCoefT<curves::Bls12_381>& e : z->coefs()) {
      if (e.constraint < cs.n_constraints) {
        add(from_zkey, {e.matrix, e.constraint, e.signal}, e.coef());
      } else {
        // Extra public rows: matrix A, row nConstraints+s, wire s, coef 1.
        EXPECT_EQ(e.matrix, 0u);
        EXPECT_EQ(e.constraint, cs.n_constraints + e.signal);
        EXPECT_TRUE(e.coef().is_one());
        EXPECT_EQ(std::memcmp(e.value_bytes, r2.data(), 32), 0);
      }
      // snarkjs's shortcut: raw value times the STANDARD-form witness, both
      // read as Montgomery representations, is coef*w in Montgomery form.
      const bls12_381::Fr wi = w->values[e.signal];
      EXPECT_TRUE(e.value_mont() * bls12_381::Fr::from_mont(wi.to_canonical()) == e.coef() * wi);
    }
    for (uint32_t row = 0; row < cs.n_constraints; ++row) {
      for (auto [m, mat] : {std::pair{0u, &r1->a}, std::pair{1u, &r1->b}}) {
        auto wires = mat->row_wires(row);
        auto coefs = mat->row_coefs(row);
        for (size_t k = 0; k < wires.size(); ++k) add(from_r1cs, {m, row, wires[k]}, coefs[k]);
      }
    }
    ASSERT_EQ(from_zkey.size(), from_r1cs.size());
    for (const auto& [k, v] : from_r1cs) {
      auto it = from_zkey.find(k);
      ASSERT_NE(it, from_zkey.end());
      EXPECT_TRUE(it->second == v);
    }
  }
}

TEST(Zkey, RejectsEveryMutationWithAOneLineErrorNamingTheFile) {
  auto src = fixture("multi_io", "circuit.zkey");
  REQUIRE_FIXTURE(src);
  const Bytes orig = read_bytes(src);
  const Container base = Container::parse(orig);
  TempDir dir;
  const fs::path p = dir / "bad.zkey";
  auto check = [&](const Bytes& b, const std::string& needle, ZkeyLoadOptions opt = {}) {
    SCOPED_TRACE(needle);
    write_bytes(p, b);
    expect_error(load_zkey<curves::Bls12_381>(p, opt).status(), ErrorCode::kBadFormat, p, needle);
  };
  auto edit = [&](auto fn) {
    Container c = base;
    fn(c);
    return c.bytes();
  };
  const size_t s2 = base.data_offset(2);

  // Truncations: inside the magic, version, table, section-1 header/data,
  // the primes, the header points, and far into the point sections.
  for (size_t at : {size_t(0), size_t(3), size_t(4), size_t(9), size_t(12), size_t(20), size_t(26), s2 - 6, s2 + 10,
                    s2 + 200, s2 + 963, orig.size() / 2, orig.size() - 1}) {
    SCOPED_TRACE(at);
    check(Bytes(orig.begin(), orig.begin() + long(at)), "truncated");
  }
  Bytes b = orig;
  b[0] = 'Z';
  check(b, "bad magic 'Zkey', expected 'zkey'");
  b = orig;
  put_u32(b, 4, 2);
  check(b, "unsupported zkey version 2");
  check(edit([](Container& c) { put_u32(c.section(1), 0, 2); }), "unsupported protocol plonk (2)");
  check(edit([](Container& c) { c.section(2)[4] ^= 1; }), "prime mismatch: base field q");
  check(edit([](Container& c) { c.section(2)[4 + 48 + 4 + 5] ^= 1; }), "prime mismatch: scalar field r");
  check(edit([](Container& c) {
          // A bn128-shaped header: n8q = 32 and bn128's q.
          Bytes& h = c.section(2);
          auto q = ff::limbs_from_hex<4>("0x30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd47");
          Bytes nh(4 + 32 + (h.size() - 52));
          put_u32(nh, 0, 32);
          std::memcpy(nh.data() + 4, q.data(), 32);
          std::memcpy(nh.data() + 36, h.data() + 52, h.size() - 52);
          h = nh;
        }),
        "is bn128's, expected bls12381");
  check(edit([](Container& c) { put_u32(c.section(2), 96, 1000); }), "domainSize 1000 is not a power of two");
  check(edit([](Container& c) { put_u32(c.section(2), 96, 4); }), "domainSize 4 is smaller than nPublic + 1 = 6");
  // nVars + 1: section 5 no longer matches.
  check(edit([](Container& c) { put_u32(c.section(2), 88, 352); }), "section 5 is 33696 bytes, expected 33792");
  // A genuinely short section 7 (one G2 point removed, size field consistent).
  // Also when the points are not viewed ({.points = false}).
  const Bytes short7 = edit([](Container& c) { c.section(7).resize(c.section(7).size() - 192); });
  check(short7, "section 7 is 67200 bytes, expected 67392");
  check(short7, "section 7 is 67200 bytes, expected 67392", {.points = false});
  // A size field changed in place: the table walk no longer lines up.
  b = orig;
  put_u64(b, base.data_offset(7) - 8, 67392 + 192);
  write_bytes(p, b);
  EXPECT_EQ(load_zkey<curves::Bls12_381>(p).status().code(), ErrorCode::kBadFormat);
  check(edit([](Container& c) { c.section(4).resize(c.section(4).size() - 44); }), "section 4 is");
  check(edit([](Container& c) { put_u32(c.section(4), 4 + 44 * 7, 2); }), "coefficient 7: matrix 2");
  check(edit([](Container& c) { put_u32(c.section(4), 4 + 44 * 9 + 4, 512); }),
        "coefficient 9: constraint 512 is not below domainSize 512");
  check(edit([](Container& c) { put_u32(c.section(4), 4 + 44 * 3 + 8, 351); }),
        "coefficient 3: signal 351 is not below nVars 351");
  check(edit([](Container& c) { std::memset(c.section(4).data() + 4 + 44 * 5 + 12, 0xff, 32); }),
        "coefficient 5: value is not below r");
  check(edit([](Container& c) { c.sections.erase(c.sections.begin() + 8); }), "section 9 is missing");
  check(edit([](Container& c) { c.sections.push_back(c.sections[2]); }), "duplicate section 3");
  b = orig;
  b.push_back(0);
  check(b, "1 unexpected bytes after the last section");
  check(edit([](Container& c) { c.section(2)[100 + 7] ^= 0x10; }), "alpha_1 is not on the curve");
  check(edit([](Container& c) { std::memset(c.section(2).data() + 100 + 96 + 96, 0, 192); }),
        "beta_2 is the point at infinity");
  check(edit([](Container& c) { std::memset(c.section(2).data() + 100 + 40, 0xff, 8); }),
        "alpha_1: coordinate not reduced");
  // Points of the big sections are checked only on request.
  Bytes bad_point = edit([](Container& c) { c.section(5)[96 * 3 + 5] ^= 0x01; });
  write_bytes(p, bad_point);
  EXPECT_TRUE(load_zkey<curves::Bls12_381>(p).is_ok());
  check(bad_point, "section 5 (A) point 3 is not on the curve", {.check_points = true});

  auto missing = load_zkey<curves::Bls12_381>(dir / "nope.zkey");
  expect_error(missing.status(), ErrorCode::kNotFound, dir / "nope.zkey", "no such file");
}

// Random single-byte corruptions: each load succeeds or fails cleanly.
TEST(Zkey, RandomByteFlipsNeverCrash) {
  auto src = fixture("multi_io", "circuit.zkey");
  REQUIRE_FIXTURE(src);
  const Bytes orig = read_bytes(src);
  TempDir dir;
  const fs::path p = dir / "flip.zkey";
  PP_SEEDED_RNG(rng);
  for (int i = 0; i < 60; ++i) {
    Bytes b = orig;
    // Half the flips in the first 2 KB (tables, headers, coefficients).
    size_t at = (i % 2 == 0) ? rng() % 2048 : rng() % b.size();
    b[at] ^= uint8_t(1u << (rng() % 8));
    write_bytes(p, b);
    auto z = load_zkey<curves::Bls12_381>(p, {.check_points = true});
    if (!z.is_ok()) {
      EXPECT_EQ(z.status().code(), ErrorCode::kBadFormat) << at << ": " << z.status().to_string();
    }
  }
}

// ----- binfile -----

// Every prefix of every fixture's section table is rejected, in memory.
TEST(BinFile, EveryTruncationIsRejected) {
  for (const char* file : {"circuit.zkey", "circuit.r1cs", "w00.wtns"}) {
    auto path = fixture("multi_io", file);
    REQUIRE_FIXTURE(path);
    const Bytes b = read_bytes(path);
    const std::string magic(b.begin(), b.begin() + 4);
    const uint32_t version = get_u32(b, 4);
    ASSERT_TRUE(BinFile::parse(b, magic, version, file).is_ok());
    for (size_t n = 0; n < b.size(); ++n) {
      auto f = BinFile::parse(std::span<const uint8_t>(b.data(), n), magic, version, file);
      ASSERT_FALSE(f.is_ok()) << file << " cut at " << n;
      ASSERT_NE(f.status().message().find("truncated"), std::string::npos) << f.status().message();
    }
  }
}

TEST(BinFile, CursorStopsAtTheEnd) {
  const Bytes b = {1, 0, 0, 0, 2, 0, 0};
  Cursor c(b, "test");
  EXPECT_EQ(c.u32("a").value(), 1u);
  auto r = c.u32("b");
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.status().message(), "test: truncated: b needs 4 bytes at offset 4, only 3 left");
  EXPECT_FALSE(c.bytes(uint64_t(-1), "huge").is_ok());
  EXPECT_EQ(c.remaining(), 3u);
  EXPECT_FALSE(c.expect_end().is_ok());
}

}  // namespace
}  // namespace proofpipe::test
