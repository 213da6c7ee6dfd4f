// common/blake2b.hpp against RFC 7693's vectors and against Python's
// hashlib.blake2b on random inputs fed through random update() splits
// (seeded: PP_TEST_SEED=<n> replays a run).
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "proofpipe/common/blake2b.hpp"
#include "support/subprocess.hpp"
#include "support/test_seed.hpp"

namespace proofpipe::test {
namespace {

TEST(Blake2b, Rfc7693Vectors) {
  // RFC 7693 Appendix A: BLAKE2b-512("abc").
  EXPECT_EQ(blake2b_hex("abc", 64),
            "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1"
            "7d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923");
  // The empty input, at both lengths the service uses (the reference
  // implementation's published digests).
  EXPECT_EQ(blake2b_hex("", 64),
            "786a02f742015903c6c6fd852552d272912f4740e15847618a86e217f71f5419"
            "d25e1031afee585313896444934eb04b903a685b1448b755d56f701afe9be2ce");
  EXPECT_EQ(blake2b_hex(""), "0e5751c026e543b2e8ab2eb06099daa1d1e5df47778f7787faab45cdf12fe3a8");
  // The streaming form gives the same digest as the one-shot one.
  Blake2b h(64);
  h.update("a");
  h.update("");
  h.update("bc");
  EXPECT_EQ(h.final_hex(), blake2b_hex("abc", 64));
}

TEST(Blake2b, BlockBoundaries) {
  // 127, 128, 129, 255, 256, 257 bytes: the last block is compressed with the
  // final flag whether or not the input fills it, one byte at a time or not.
  for (size_t n : {127u, 128u, 129u, 255u, 256u, 257u}) {
    const std::string in(n, 'x');
    Blake2b bytewise;
    for (char c : in) bytewise.update(std::string_view(&c, 1));
    EXPECT_EQ(bytewise.final_hex(), blake2b_hex(in)) << n;
  }
  EXPECT_NE(blake2b_hex(std::string(128, 'x')), blake2b_hex(std::string(129, 'x')));
}

TEST(Blake2b, MatchesPythonHashlibOnRandomSplits) {
  PP_SEEDED_RNG(rng);
  struct Case {
    std::string input;
    size_t out_len;
    std::string ours;
  };
  std::vector<Case> cases;
  for (int i = 0; i < 200; ++i) {
    Case c;
    c.input.resize(std::uniform_int_distribution<size_t>(0, 3000)(rng));
    for (char& b : c.input) b = char(rng());
    c.out_len = std::uniform_int_distribution<size_t>(1, 64)(rng);
    Blake2b h(c.out_len);
    for (size_t at = 0; at < c.input.size();) {  // random chunks, empty ones included
      const size_t n = std::min(c.input.size() - at, std::uniform_int_distribution<size_t>(0, 300)(rng));
      h.update(std::string_view(c.input).substr(at, n));
      at += n;
    }
    c.ours = h.final_hex();
    cases.push_back(std::move(c));
  }
  // One python3 run for all of them: "<out_len> <hex input>" per line in, one
  // hex digest per line out.
  TempDir dir;
  const auto in_file = dir / "cases.txt";
  {
    std::ofstream out(in_file);
    for (const Case& c : cases) {
      out << c.out_len << ' '
          << to_hex(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(c.input.data()), c.input.size())) << '\n';
    }
  }
  const std::string script =
      "import hashlib,sys\n"
      "for line in open(sys.argv[1]):\n"
      "    n, h = line.rstrip('\\n').split(' ')\n"
      "    print(hashlib.blake2b(bytes.fromhex(h), digest_size=int(n)).hexdigest())\n";
  const auto script_file = dir / "check.py";
  std::ofstream(script_file) << script;
  const CommandResult r = run_command("python3 " + quote(script_file) + " " + quote(in_file));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::istringstream lines(r.output);
  std::string want;
  size_t i = 0;
  for (; std::getline(lines, want); ++i) {
    ASSERT_LT(i, cases.size()) << r.output;
    EXPECT_EQ(cases[i].ours, want) << "case " << i << ": " << cases[i].input.size() << " bytes, out_len "
                                   << cases[i].out_len;
  }
  EXPECT_EQ(i, cases.size());
}

}  // namespace
}  // namespace proofpipe::test
