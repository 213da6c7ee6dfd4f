// Writes the zkey seeds of fuzz/corpus/zkey/: tiny but valid Groth16 keys
// (2-4 wires) whose points are taken from a real key, so the fuzzer starts
// past the header checks. The committed fixtures' zkeys are all over 64 KiB.
// Usage: make_zkey_seeds SOURCE.zkey OUT_DIR
#include <cstdio>
#include <vector>

#include "proofpipe/formats/zkey.hpp"
#include "proofpipe/formats/zkey_writer.hpp"

using namespace proofpipe;

namespace {

// n_vars wires, n_public of them public, a domain of domain_size, one
// coefficient per (matrix, wire) that fits: sizes differ so that sections
// land at different alignments.
Status write_seed(const formats::Zkey& src, uint32_t n_vars, uint32_t n_public, uint32_t domain_size,
                  const std::filesystem::path& out) {
  formats::ZkeyParts p;
  p.header = src.header();
  p.header.n_vars = n_vars;
  p.header.n_public = n_public;
  p.header.domain_size = domain_size;
  std::vector<formats::ZkeyCoef> coefs;
  for (uint32_t m = 0; m < 2; ++m)
    for (uint32_t w = 0; w < n_vars; ++w) coefs.push_back(formats::make_zkey_coef(m, w % domain_size, w, ff::Fr::one()));
  p.ic = src.ic().first(n_public + 1);
  p.coefs = coefs;
  p.a = src.a().first(n_vars);
  p.b1 = src.b1().first(n_vars);
  p.b2 = src.b2().first(n_vars);
  p.c = src.c().first(n_vars - n_public - 1);
  p.h = src.h().first(domain_size);
  return formats::write_zkey(out, p);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: make_zkey_seeds SOURCE.zkey OUT_DIR\n");
    return 2;
  }
  auto src = formats::load_zkey(argv[1]);
  if (!src) {
    std::fprintf(stderr, "%s\n", src.status().message().c_str());
    return 1;
  }
  const std::filesystem::path dir = argv[2];
  struct Shape {
    uint32_t n_vars, n_public, domain_size;
  };
  for (const Shape s : {Shape{2, 1, 2}, Shape{3, 1, 4}, Shape{4, 2, 4}}) {
    const auto out = dir / ("seed-" + std::to_string(s.n_vars) + "-" + std::to_string(s.n_public) + ".zkey");
    if (Status st = write_seed(*src, s.n_vars, s.n_public, s.domain_size, out); !st) {
      std::fprintf(stderr, "%s\n", st.message().c_str());
      return 1;
    }
  }
  return 0;
}
