// Fuzz target: the zkey reader (formats/zkey.hpp), once header-only
// (points = false, as the coordinator and synthesis workers load it) and once
// with every point viewed and checked. Property: an error Status, or a ZkeyT
// whose spans have the sizes its header declares and whose every byte can be
// read (ASan catches a span past the mapping). Both curves' readers see
// every input, and zkey_curve must name the curve whose reader accepted it.
#include "for_each_curve.hpp"
#include "fuzz_input.hpp"
#include "proofpipe/formats/zkey.hpp"

using namespace proofpipe;

namespace {

template <class T>
uint8_t touch(std::span<const T> span) {
  uint8_t x = 0;
  const auto* p = reinterpret_cast<const uint8_t*>(span.data());
  for (size_t i = 0; i < span.size_bytes(); ++i) x ^= p[i];
  return x;
}

template <class C>
void check(const formats::ZkeyT<C>& z, bool points) {
  const auto& h = z.header();
  PP_FUZZ_CHECK(h.domain_size != 0 && (h.domain_size & (h.domain_size - 1)) == 0);
  PP_FUZZ_CHECK((uint64_t{1} << h.log2_domain_size) == h.domain_size);
  PP_FUZZ_CHECK(uint64_t{h.n_public} + 1 <= h.n_vars);
  PP_FUZZ_CHECK(z.ic().size() == uint64_t{h.n_public} + 1);
  for (const auto& c : z.coefs()) PP_FUZZ_CHECK(c.matrix < 2 && c.constraint < h.domain_size && c.signal < h.n_vars);
  if (points) {
    PP_FUZZ_CHECK(z.a().size() == h.n_vars && z.b1().size() == h.n_vars && z.b2().size() == h.n_vars);
    PP_FUZZ_CHECK(z.c().size() == uint64_t{h.n_vars} - h.n_public - 1);
    PP_FUZZ_CHECK(z.h().size() == h.domain_size);
  } else {
    PP_FUZZ_CHECK(z.a().empty() && z.b1().empty() && z.b2().empty() && z.c().empty() && z.h().empty());
  }
  volatile uint8_t sink =
      touch(z.ic()) ^ touch(z.coefs()) ^ touch(z.a()) ^ touch(z.b1()) ^ touch(z.b2()) ^ touch(z.c()) ^ touch(z.h());
  (void)sink;
}

// One curve's reader; the other curve's prime is refused in the header, so
// each input reaches the deep checks of at most one of the two.
template <class C>
bool load_both_ways(const std::filesystem::path& path) {
  formats::ZkeyLoadOptions header_only;
  header_only.points = false;
  header_only.release_coefficients = true;
  auto z = formats::load_zkey<C>(path, header_only);
  if (z) check(*z, false);

  formats::ZkeyLoadOptions full;
  full.check_points = true;
  auto zf = formats::load_zkey<C>(path, full);
  if (zf) check(*zf, true);
  // Both loads apply the same section checks; only the point checks differ.
  PP_FUZZ_CHECK(!zf || z);
  return z.is_ok();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto& path = fuzz::bytes_as_file(data, size);
  // The detector the commands dispatch on agrees with the readers.
  fuzz::check_one_curve_accepts(
      path, []<class C>(C, const std::filesystem::path& p) { return load_both_ways<C>(p); },
      [](const std::filesystem::path& p) { return formats::zkey_curve(p); });
  return 0;
}
