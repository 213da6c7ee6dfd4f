// Fuzz target: the wtns reader (formats/wtns.hpp): load_wtns and
// read_wtns_prefix over the same bytes. Property: an error Status, or values
// that agree between the two readers and survive write_wtns -> load_wtns.
#include <algorithm>
#include <array>

#include "for_each_curve.hpp"
#include "fuzz_input.hpp"
#include "proofpipe/formats/wtns.hpp"

using namespace proofpipe;

namespace {

template <class C>
bool check(const std::filesystem::path& path) {
  auto w = formats::load_wtns<C>(path);

  // A prefix of up to 3 values: enough to cover "fewer values than asked".
  std::array<typename C::Fr, 3> prefix{};
  auto n = formats::read_wtns_prefix<C>(path, prefix);
  // The prefix reader checks only the values it converts, so it may accept
  // a file load_wtns refuses, never the other way round.
  if (!w) return false;
  const auto& values = w->values;
  PP_FUZZ_CHECK(n.is_ok() || values.size() < prefix.size());
  if (n) {
    PP_FUZZ_CHECK(*n == values.size());
    PP_FUZZ_CHECK(std::equal(prefix.begin(), prefix.end(), values.begin()));
  }

  const auto out = fuzz::scratch_dir() / "w.wtns";
  PP_FUZZ_CHECK(formats::write_wtns<C>(out, values).is_ok());
  auto back = formats::load_wtns<C>(out);
  PP_FUZZ_CHECK(back.is_ok() && back->values == values);
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto& path = fuzz::bytes_as_file(data, size);
  fuzz::check_one_curve_accepts(
      path, []<class C>(C, const std::filesystem::path& p) { return check<C>(p); }, formats::wtns_curve);
  return 0;
}
