// The formats/ tests' fixture files: where the committed snarkjs fixtures
// are and what they hold (tests/data/README.md), raw bytes in and out, a
// container file split into sections to mutate, and the rule every
// reader's error keeps (one line, naming the file).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "proofpipe/common/assert.hpp"
#include "proofpipe/common/status.hpp"
#include "proofpipe/formats/binfile.hpp"
#include "support/subprocess.hpp"

namespace proofpipe::test {

using Bytes = std::vector<uint8_t>;

inline std::filesystem::path fixture(const char* circuit, const char* file) { return data_dir() / circuit / file; }

#define REQUIRE_FIXTURE(p) \
  if (!std::filesystem::exists(p)) GTEST_SKIP() << "fixture " << (p) << " missing: run scripts/make_fixtures.sh"

inline Bytes read_bytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(in), {});
}
inline std::string read_text(const std::filesystem::path& p) {
  const Bytes b = read_bytes(p);
  return std::string(b.begin(), b.end());
}
inline void write_bytes(const std::filesystem::path& p, const Bytes& b) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

struct CircuitStats {
  const char* name;
  uint32_t n_vars, n_public, domain, n_coef, n_constraints, pub_out, pub_in, prv_in;
  size_t nnz_a, nnz_b, nnz_c;
};
// From tests/data/README.md (snarkjs r1cs info and the zkey header).
inline constexpr CircuitStats kCircuits[] = {
    {"multi_io", 351, 5, 512, 1018, 343, 2, 3, 5, 523, 489, 502},
    {"sparse_dense", 3180, 2, 4096, 12405, 3130, 1, 1, 49, 5240, 7162, 5178},
};

inline uint32_t get_u32(const Bytes& b, size_t off) {
  uint32_t v;
  std::memcpy(&v, b.data() + off, 4);
  return v;
}
inline void put_u32(Bytes& b, size_t off, uint32_t v) { std::memcpy(b.data() + off, &v, 4); }
inline void put_u64(Bytes& b, size_t off, uint64_t v) { std::memcpy(b.data() + off, &v, 8); }

// A container split into its sections, edited, and written back.
struct Container {
  std::string magic;
  uint32_t version = 0;
  std::vector<std::pair<uint32_t, Bytes>> sections;

  static Container parse(const Bytes& b) {
    Container c;
    c.magic.assign(b.begin(), b.begin() + 4);
    c.version = get_u32(b, 4);
    auto f = formats::BinFile::parse(b, c.magic, c.version, "fixture");
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
inline void expect_error(const Status& s, ErrorCode code, const std::filesystem::path& file,
                         const std::string& needle) {
  ASSERT_FALSE(s.is_ok()) << "expected an error containing '" << needle << "'";
  EXPECT_EQ(s.code(), code) << s.to_string();
  EXPECT_EQ(s.message().find('\n'), std::string::npos) << s.message();
  EXPECT_NE(s.message().find(file.string()), std::string::npos) << s.message();
  EXPECT_NE(s.message().find(needle), std::string::npos) << s.message();
}

}  // namespace proofpipe::test
