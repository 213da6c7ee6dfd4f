// formats/: the .zkey/.wtns/.r1cs readers on the snarkjs fixtures in
// tests/data (see tests/data/README.md), every malformed case made by mutating
// a copy of a fixture in a temp dir, and the snarkjs JSON round trips.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "proofpipe/common/assert.hpp"
#include "proofpipe/formats/binfile.hpp"
#include "proofpipe/formats/decimal.hpp"
#include "proofpipe/formats/proof_json.hpp"
#include "proofpipe/formats/r1cs.hpp"
#include "proofpipe/formats/wtns.hpp"
#include "proofpipe/formats/zkey.hpp"
#include "support/test_seed.hpp"

namespace proofpipe::test {
namespace {

namespace fs = std::filesystem;
using namespace proofpipe::formats;
using Bytes = std::vector<uint8_t>;

// ----- fixtures and temp files -----

fs::path data_dir() {
  const char* env = std::getenv("PP_TEST_DATA_DIR");
  return env != nullptr ? fs::path(env) : fs::path(PP_TEST_DATA_DIR);
}
fs::path fixture(const char* circuit, const char* file) { return data_dir() / circuit / file; }

#define REQUIRE_FIXTURE(p) \
  if (!fs::exists(p)) GTEST_SKIP() << "fixture " << (p) << " missing: run scripts/make_fixtures.sh"

Bytes read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(in), {});
}
std::string read_text(const fs::path& p) {
  Bytes b = read_bytes(p);
  return std::string(b.begin(), b.end());
}
void write_bytes(const fs::path& p, const Bytes& b) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "pp_formats_XXXXXX").string();
    PP_ASSERT(::mkdtemp(tmpl.data()) != nullptr, "mkdtemp");
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  fs::path operator/(const char* name) const { return path_ / name; }

 private:
  fs::path path_;
};

uint32_t get_u32(const Bytes& b, size_t off) {
  uint32_t v;
  std::memcpy(&v, b.data() + off, 4);
  return v;
}
void put_u32(Bytes& b, size_t off, uint32_t v) { std::memcpy(b.data() + off, &v, 4); }
void put_u64(Bytes& b, size_t off, uint64_t v) { std::memcpy(b.data() + off, &v, 8); }

// A container split into its sections, edited, and written back.
struct Container {
  std::string magic;
  uint32_t version = 0;
  std::vector<std::pair<uint32_t, Bytes>> sections;

  static Container parse(const Bytes& b) {
    Container c;
    c.magic.assign(b.begin(), b.begin() + 4);
    c.version = get_u32(b, 4);
    auto f = BinFile::parse(b, c.magic, c.version, "fixture");
    PP_ASSERT(f.is_ok(), "fixture does not parse");
    for (const auto& s : f->sections()) {
      c.sections.emplace_back(s.type, Bytes(b.begin() + long(s.data_offset), b.begin() + long(s.data_offset + s.size)));
    }
    return c;
  }
  Bytes& section(uint32_t type) {
    for (auto& [t, d] : sections) {
      if (t == type) return d;
    }
    PP_ASSERT(false, "no such section");
    __builtin_unreachable();
  }
  // File offset of section `type`'s data.
  size_t data_offset(uint32_t type) const {
    size_t off = 12;
    for (const auto& [t, d] : sections) {
      if (t == type) return off + 12;
      off += 12 + d.size();
    }
    PP_ASSERT(false, "no such section");
    return 0;
  }
  Bytes bytes() const {
    Bytes out(magic.begin(), magic.end());
    out.resize(12);
    put_u32(out, 4, version);
    put_u32(out, 8, uint32_t(sections.size()));
    for (const auto& [t, d] : sections) {
      size_t at = out.size();
      out.resize(at + 12);
      put_u32(out, at, t);
      put_u64(out, at + 4, d.size());
      out.insert(out.end(), d.begin(), d.end());
    }
    return out;
  }
};

// Asserts a one-line error of `code` naming `file` and containing `needle`.
void expect_error(const Status& s, ErrorCode code, const fs::path& file, const std::string& needle) {
  ASSERT_FALSE(s.is_ok()) << "expected an error containing '" << needle << "'";
  EXPECT_EQ(s.code(), code) << s.to_string();
  EXPECT_EQ(s.message().find('\n'), std::string::npos) << s.message();
  EXPECT_NE(s.message().find(file.string()), std::string::npos) << s.message();
  EXPECT_NE(s.message().find(needle), std::string::npos) << s.message();
}

// ----- zkey -----

struct CircuitStats {
  const char* name;
  uint32_t n_vars, n_public, domain, n_coef, n_constraints, pub_out, pub_in, prv_in;
  size_t nnz_a, nnz_b, nnz_c;
};
// From tests/data/README.md (snarkjs r1cs info and the zkey header).
const CircuitStats kCircuits[] = {
    {"multi_io", 351, 5, 512, 1018, 343, 2, 3, 5, 523, 489, 502},
    {"sparse_dense", 3180, 2, 4096, 12405, 3130, 1, 1, 49, 5240, 7162, 5178},
};

TEST(Zkey, LoadsTheFixturesWithExactSectionViews) {
  for (const auto& cs : kCircuits) {
    SCOPED_TRACE(cs.name);
    auto path = fixture(cs.name, "circuit.zkey");
    REQUIRE_FIXTURE(path);
    auto z = load_zkey(path, {.check_points = true});
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
    EXPECT_TRUE(z->header().gamma2 == ec::g2_generator());
    // A wire in no B term has B_s = 0: B1/B2 hold the all-zero infinity there.
    std::vector<bool> in_b(cs.n_vars, false);
    for (const ZkeyCoef& e : z->coefs()) {
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
    Zkey moved = std::move(z).value();
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
    auto full = load_zkey(path);
    auto lean = load_zkey(path, {.points = false});
    ASSERT_TRUE(full.is_ok() && lean.is_ok());
    EXPECT_EQ(lean->n_vars(), cs.n_vars);
    EXPECT_TRUE(lean->header().delta2 == full->header().delta2);
    ASSERT_EQ(lean->ic().size(), cs.n_public + 1);
    for (size_t i = 0; i < lean->ic().size(); ++i) EXPECT_TRUE(lean->ic()[i] == full->ic()[i]);
    EXPECT_EQ(lean->coefs().size(), cs.n_coef);
    EXPECT_TRUE(lean->a().empty() && lean->b1().empty() && lean->b2().empty());
    EXPECT_TRUE(lean->c().empty() && lean->h().empty());
    // Only IC (a few points) may have been copied, never a big section.
    EXPECT_LE(lean->copied_bytes(), (cs.n_public + 1) * sizeof(ec::G1Affine));
  }
}

// Section 4's convention, checked against the r1cs: value = coef*R^2 mod r.
TEST(Zkey, CoefficientsAreR1csAandBTimesRSquared) {
  for (const auto& cs : kCircuits) {
    SCOPED_TRACE(cs.name);
    REQUIRE_FIXTURE(fixture(cs.name, "circuit.zkey"));
    auto z = load_zkey(fixture(cs.name, "circuit.zkey"));
    auto r1 = load_r1cs(fixture(cs.name, "circuit.r1cs"));
    auto w = load_wtns(fixture(cs.name, "w00.wtns"));
    ASSERT_TRUE(z.is_ok() && r1.is_ok() && w.is_ok());
    ASSERT_TRUE(check_r1cs_matches(*z, *r1).is_ok());

    using Key = std::tuple<uint32_t, uint32_t, uint32_t>;  // matrix, row, wire
    std::map<Key, ff::Fr> from_zkey, from_r1cs;
    auto add = [](std::map<Key, ff::Fr>& m, Key k, ff::Fr v) {
      auto [it, fresh] = m.emplace(k, v);
      if (!fresh) it->second += v;
    };
    const ff::Fr::Repr r2 = ff::MontConsts<ff::FrParams>::kR2;  // R^2 mod r
    for (const ZkeyCoef& e : z->coefs()) {
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
      const ff::Fr wi = w->values[e.signal];
      EXPECT_TRUE(e.value_mont() * ff::Fr::from_mont(wi.to_canonical()) == e.coef() * wi);
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
    expect_error(load_zkey(p, opt).status(), ErrorCode::kBadFormat, p, needle);
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
        "unsupported curve bn128");
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
  EXPECT_EQ(load_zkey(p).status().code(), ErrorCode::kBadFormat);
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
  EXPECT_TRUE(load_zkey(p).is_ok());
  check(bad_point, "section 5 (A) point 3 is not on the curve", {.check_points = true});

  auto missing = load_zkey(dir / "nope.zkey");
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
    auto z = load_zkey(p, {.check_points = true});
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

// ----- wtns -----

TEST(Wtns, LoadsAndMatchesTheKeyAndTheConstraints) {
  for (const auto& cs : kCircuits) {
    SCOPED_TRACE(cs.name);
    REQUIRE_FIXTURE(fixture(cs.name, "circuit.zkey"));
    auto z = load_zkey(fixture(cs.name, "circuit.zkey"));
    auto r1 = load_r1cs(fixture(cs.name, "circuit.r1cs"));
    ASSERT_TRUE(z.is_ok() && r1.is_ok());
    for (const auto& entry : fs::directory_iterator(data_dir() / cs.name)) {
      if (entry.path().extension() != ".wtns") continue;
      SCOPED_TRACE(entry.path().filename().string());
      auto w = load_wtns(entry.path());
      ASSERT_TRUE(w.is_ok()) << w.status().to_string();
      EXPECT_EQ(w->values.size(), cs.n_vars);
      EXPECT_TRUE(w->values[0].is_one());
      EXPECT_TRUE(check_witness_matches(*z, *w).is_ok());
      EXPECT_TRUE(check_r1cs_satisfied(*r1, *w).is_ok());
    }
    // public.json = w[1..nPublic] of w00.
    auto w0 = load_wtns(fixture(cs.name, "w00.wtns"));
    auto pub = read_public_json(fixture(cs.name, "snarkjs_public.json"));
    ASSERT_TRUE(pub.is_ok()) << pub.status().to_string();
    ASSERT_EQ(pub->size(), cs.n_public);
    for (uint32_t i = 0; i < cs.n_public; ++i) EXPECT_TRUE((*pub)[i] == w0->values[i + 1]);
    // A changed value breaks a constraint.
    Witness bad = *w0;
    bad.values.back() += ff::Fr::one();
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
  auto z = load_zkey(zpath);
  ASSERT_TRUE(z.is_ok());
  std::vector<ff::Fr> pub(z->header().n_public);
  // Every malformed file gives the same error from the coordinator's
  // streaming check (check_wtns_for) as from load_wtns.
  auto check = [&](const Bytes& b, const std::string& needle) {
    SCOPED_TRACE(needle);
    write_bytes(p, b);
    expect_error(load_wtns(p).status(), ErrorCode::kBadFormat, p, needle);
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
    auto w = load_wtns(p);
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
  auto good = load_wtns(src);
  ASSERT_TRUE(good.is_ok() && check_wtns_for(*z, src, pub).is_ok());
  for (size_t i = 0; i < pub.size(); ++i) EXPECT_TRUE(pub[i] == good->values[1 + i]) << i;

  // Internally consistent but one value short: loads, then mismatches the key.
  write_bytes(p, edit([](Container& c) {
                c.section(2).resize(c.section(2).size() - 32);
                put_u32(c.section(1), 36, 350);
              }));
  auto w = load_wtns(p);
  ASSERT_TRUE(w.is_ok()) << w.status().to_string();
  for (const Status& s : {check_witness_matches(*z, *w), check_wtns_for(*z, p, pub)}) {
    expect_error(s, ErrorCode::kInvalidArgument, p, "has 350 values");
    EXPECT_NE(s.message().find(zpath.string()), std::string::npos);
  }
  // Another circuit's witness.
  auto other = load_wtns(fixture("sparse_dense", "w00.wtns"));
  if (other.is_ok()) {
    EXPECT_EQ(check_witness_matches(*z, *other).code(), ErrorCode::kInvalidArgument);
  }
  // w[0] must be the constant one.
  write_bytes(p, edit([](Container& c) { c.section(2)[0] = 2; }));
  expect_error(check_witness_matches(*z, load_wtns(p).value()), ErrorCode::kInvalidArgument, p,
               "w[0] is 2, expected 1");
  expect_error(check_wtns_for(*z, p, pub), ErrorCode::kInvalidArgument, p, "w[0] is 2, expected 1");
}

// ----- r1cs -----

TEST(R1cs, LoadsTheFixtures) {
  for (const auto& cs : kCircuits) {
    SCOPED_TRACE(cs.name);
    REQUIRE_FIXTURE(fixture(cs.name, "circuit.r1cs"));
    auto r = load_r1cs(fixture(cs.name, "circuit.r1cs"));
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
    expect_error(load_r1cs(p).status(), ErrorCode::kBadFormat, p, needle);
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
    auto r = load_r1cs(p);
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

// ----- JSON -----

TEST(Json, SnarkjsFilesRoundTripByteForByte) {
  for (const auto& cs : kCircuits) {
    SCOPED_TRACE(cs.name);
    auto proof_path = fixture(cs.name, "snarkjs_proof.json");
    REQUIRE_FIXTURE(proof_path);
    auto proof = read_proof_json(proof_path);
    ASSERT_TRUE(proof.is_ok()) << proof.status().to_string();
    EXPECT_EQ(proof_to_json(*proof), read_text(proof_path));

    auto pub_path = fixture(cs.name, "snarkjs_public.json");
    auto pub = read_public_json(pub_path);
    ASSERT_TRUE(pub.is_ok()) << pub.status().to_string();
    EXPECT_EQ(public_to_json(*pub), read_text(pub_path));

    auto vk_path = fixture(cs.name, "verification_key.json");
    auto vk = read_verification_key_json(vk_path);
    ASSERT_TRUE(vk.is_ok()) << vk.status().to_string();
    ASSERT_TRUE(vk->alphabeta_12.has_value());
    EXPECT_EQ(verification_key_to_json(*vk), read_text(vk_path));

    // The key exported from the zkey, with e(alpha, beta) passed through the hook.
    auto z = load_zkey(fixture(cs.name, "circuit.zkey"));
    ASSERT_TRUE(z.is_ok());
    EXPECT_TRUE(verification_key_from_zkey(*z, vk->alphabeta_12) == *vk);
    VerificationKey no_ab = verification_key_from_zkey(*z);
    EXPECT_EQ(verification_key_to_json(no_ab).find("vk_alphabeta_12"), std::string::npos);
    auto back = verification_key_from_json(verification_key_to_json(no_ab));
    ASSERT_TRUE(back.is_ok());
    EXPECT_TRUE(*back == no_ab);
  }
}

TEST(Json, WritesAndReadsFilesIncludingInfinity) {
  TempDir dir;
  Proof proof{ec::g1_generator(), ec::g2_generator(), ec::G1Affine::identity()};
  ASSERT_TRUE(write_proof_json(dir / "proof.json", proof).is_ok());
  auto back = read_proof_json(dir / "proof.json");
  ASSERT_TRUE(back.is_ok()) << back.status().to_string();
  EXPECT_TRUE(*back == proof);
  EXPECT_NE(proof_to_json(proof).find("\"pi_c\": [\n  \"0\",\n  \"1\",\n  \"0\"\n ]"), std::string::npos);
  Proof inf_b{ec::g1_generator(), ec::G2Affine::identity(), ec::g1_generator()};
  EXPECT_TRUE(proof_from_json(proof_to_json(inf_b)).value() == inf_b);

  std::vector<ff::Fr> pub = {ff::Fr::from_u64(7), ff::Fr::zero(), -ff::Fr::one()};
  ASSERT_TRUE(write_public_json(dir / "public.json", pub).is_ok());
  auto pub_back = read_public_json(dir / "public.json");
  ASSERT_TRUE(pub_back.is_ok());
  EXPECT_EQ(*pub_back, pub);
  EXPECT_EQ(public_to_json({}), "[]");

  expect_error(write_proof_json(dir / "no_dir" / "p.json", proof), ErrorCode::kIo, dir / "no_dir" / "p.json",
               "cannot write proof");
  expect_error(read_proof_json(dir / "absent.json").status(), ErrorCode::kNotFound, dir / "absent.json",
               "no such file");
}

TEST(Json, ReadsJacobianZLikeSnarkjs) {
  // (x*z^2, y*z^3, z) with z = 2 is the generator.
  ec::G1Affine g = ec::g1_generator();
  ff::Fq z = ff::Fq::from_u64(2);
  std::string x = to_decimal(g.x * z.sqr()), y = to_decimal(g.y * z.sqr() * z);
  std::string gx = to_decimal(g.x), gy = to_decimal(g.y);
  Proof ref{g, ec::g2_generator(), g};
  std::string text = proof_to_json(ref);
  std::string jac = text;
  jac.replace(jac.find(gx), gx.size(), x);
  jac.replace(jac.find(gy), gy.size(), y);
  jac.replace(jac.find("\"1\""), 3, "\"2\"");
  auto p = proof_from_json(jac);
  ASSERT_TRUE(p.is_ok()) << p.status().to_string();
  EXPECT_TRUE(*p == ref);
}

TEST(Json, RejectsMalformedInputWithOneLineErrors) {
  const std::string good = proof_to_json({ec::g1_generator(), ec::g2_generator(), ec::g1_generator()});
  const std::string gx = to_decimal(ec::g1_generator().x);
  auto bad_proof = [&](const std::string& text, const std::string& needle) {
    SCOPED_TRACE(needle);
    auto r = proof_from_json(text, "proof 'p.json'");
    expect_error(r.status(), ErrorCode::kBadFormat, "proof 'p.json'", needle);
  };
  auto replaced = [&](std::string s, const std::string& from, const std::string& to) {
    s.replace(s.find(from), from.size(), to);
    return s;
  };
  bad_proof("{", "malformed JSON");
  bad_proof(good.substr(0, good.size() / 2), "malformed JSON");
  bad_proof("[]", "expected a JSON object");
  bad_proof(replaced(good, "pi_a", "pi_x"), "missing \"pi_a\"");
  bad_proof(replaced(good, "\"groth16\"", "\"plonk\""), "unsupported protocol \"plonk\"");
  bad_proof(replaced(good, "\"bls12381\"", "\"bn128\""), "unsupported curve \"bn128\"");
  bad_proof(replaced(good, gx, "12a"), "pi_a[0]: '12a' is not a decimal number");
  bad_proof(replaced(good, gx, "-1"), "'-1' is not a decimal number");
  bad_proof(replaced(good, "\"" + gx + "\"", "12"), "pi_a[0]: expected a decimal string");
  bad_proof(replaced(good, gx, gx + "0"), "is not below the base field modulus q");
  bad_proof(replaced(good, gx, "5"), "pi_a: point is not on the curve");
  bad_proof(replaced(good, "\"" + gx + "\",", ""), "pi_a: expected an array of 3");
  bad_proof(replaced(good, "[\n   \"1\",\n   \"0\"\n  ]", "[\"1\"]"), "pi_b[2]: expected an array of 2");
  bad_proof(replaced(good, gx, "0\",\"0"), "pi_a: expected an array of 3");

  auto bad_public = [&](const std::string& text, const std::string& needle) {
    SCOPED_TRACE(needle);
    expect_error(public_from_json(text, "public 'x.json'").status(), ErrorCode::kBadFormat, "public 'x.json'",
                 needle);
  };
  bad_public("{\"a\": 1}", "expected a JSON array");
  bad_public("[\"1\", 2]", "[1]: expected a decimal string");
  bad_public("[\"52435875175126190479447740508185965837690552500527637822603658699938581184513\"]",
             "[0]: '524358751751261904794477...' (77 chars) is not below the scalar field modulus r");
  bad_public("[\"1\"\n\"2\"]", "malformed JSON");

  auto vk_path = fixture("multi_io", "verification_key.json");
  if (fs::exists(vk_path)) {
    const std::string vk = read_text(vk_path);
    auto bad_vk = [&](const std::string& text, const std::string& needle) {
      SCOPED_TRACE(needle);
      expect_error(verification_key_from_json(text, "vk 'v.json'").status(), ErrorCode::kBadFormat, "vk 'v.json'",
                   needle);
    };
    bad_vk(replaced(vk, "\"nPublic\": 5", "\"nPublic\": 4"), "IC: expected an array of nPublic + 1 = 5 points");
    bad_vk(replaced(vk, "\"nPublic\": 5", "\"nPublic\": -5"), "nPublic: expected a non-negative integer");
    bad_vk(replaced(vk, "\"nPublic\": 5", "\"nPublic\": \"5\""), "nPublic: expected a non-negative integer");
    bad_vk(replaced(vk, "vk_gamma_2", "vk_gama_2"), "missing \"vk_gamma_2\"");
    bad_vk(replaced(vk, "\"vk_alphabeta_12\": [", "\"vk_alphabeta_12\": [[],"),
           "vk_alphabeta_12: expected an array of 2");
  }
}

TEST(Decimal, RoundTripsAndRejectsJunk) {
  EXPECT_EQ(to_decimal(ff::Fr::zero()), "0");
  EXPECT_EQ(to_decimal(-ff::Fr::one()),
            "52435875175126190479447740508185965837690552500527637822603658699938581184512");
  EXPECT_TRUE(fr_from_decimal("0007").value() == ff::Fr::from_u64(7));
  EXPECT_TRUE(fr_from_decimal("000").value().is_zero());
  for (const char* bad : {"", " 1", "1 ", "+1", "0x10", "1e3"}) EXPECT_FALSE(fr_from_decimal(bad).is_ok()) << bad;
  EXPECT_FALSE(fq_from_decimal(std::string(200, '9')).is_ok());
  std::string nl = fr_from_decimal("1\n2").status().message();
  EXPECT_EQ(nl.find('\n'), std::string::npos) << nl;
}

}  // namespace
}  // namespace proofpipe::test
