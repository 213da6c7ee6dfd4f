// Writes the zkey seeds of fuzz/corpus/zkey/: tiny but valid Groth16 keys
// (2-4 wires) whose points are taken from a real key, so the fuzzer starts
// past the header checks. The committed fixtures' zkeys are all over 64 KiB.
// Usage: make_zkey_seeds SOURCE.zkey OUT_DIR
#include <cstdio>
#include <string>
#include <type_traits>
#include <vector>

#include "proofpipe/formats/zkey.hpp"
#include "proofpipe/formats/zkey_writer.hpp"

using namespace proofpipe;

namespace {

// n_vars wires, n_public of them public, a domain of domain_size, one
// coefficient per (matrix, wire) that fits: sizes differ so that sections
// land at different alignments.
template <class C>
Status write_seed(const formats::ZkeyT<C>& src, uint32_t n_vars, uint32_t n_public, uint32_t domain_size,
                  const std::filesystem::path& out) {
  formats::ZkeyPartsT<C> p;
  p.header = src.header();
  p.header.n_vars = n_vars;
  p.header.n_public = n_public;
  p.header.domain_size = domain_size;
  std::vector<formats::ZkeyCoefT<C>> coefs;
  for (uint32_t m = 0; m < 2; ++m)
    for (uint32_t w = 0; w < n_vars; ++w)
      coefs.push_back(formats::make_zkey_coef<C>(m, w % domain_size, w, C::Fr::one()));
  p.ic = src.ic().first(n_public + 1);
  p.coefs = coefs;
  p.a = src.a().first(n_vars);
  p.b1 = src.b1().first(n_vars);
  p.b2 = src.b2().first(n_vars);
  p.c = src.c().first(n_vars - n_public - 1);
  p.h = src.h().first(domain_size);
  return formats::write_zkey(out, p);
}

// Three shapes from one source key; bn128 seeds are named seed-bn128-*.
template <class C>
int write_seeds(const std::filesystem::path& source, const std::filesystem::path& dir) {
  auto src = formats::load_zkey<C>(source);
  if (!src) {
    std::fprintf(stderr, "%s\n", src.status().message().c_str());
    return 1;
  }
  const std::string prefix = std::is_same_v<C, curves::Bn254> ? "seed-bn128-" : "seed-";
  struct Shape {
    uint32_t n_vars, n_public, domain_size;
  };
  for (const Shape s : {Shape{2, 1, 2}, Shape{3, 1, 4}, Shape{4, 2, 4}}) {
    const auto out = dir / (prefix + std::to_string(s.n_vars) + "-" + std::to_string(s.n_public) + ".zkey");
    if (Status st = write_seed(*src, s.n_vars, s.n_public, s.domain_size, out); !st) {
      std::fprintf(stderr, "%s\n", st.message().c_str());
      return 1;
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: make_zkey_seeds SOURCE.zkey OUT_DIR\n");
    return 2;
  }
  auto curve = formats::zkey_curve(argv[1]);
  if (!curve) {
    std::fprintf(stderr, "%s\n", curve.status().message().c_str());
    return 1;
  }
  return curves::with_curve(*curve, [&]<class C>(C) { return write_seeds<C>(argv[1], argv[2]); });
}
