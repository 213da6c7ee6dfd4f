// The readers of formats/ are templates over the curve: a fuzz target runs
// each input through both instantiations (the other curve's field, prime and
// "curve" name take different paths through the same code).
#pragma once

#include <filesystem>

#include "fuzz_input.hpp"
#include "proofpipe/curves.hpp"

namespace proofpipe::fuzz {

template <class F>
void for_each_curve(F&& f) {
  f(curves::Bls12_381{});
  f(curves::Bn254{});
}

// For a file that each curve's reader was given (`read<C>(path)` true when
// it accepted the file): at most one accepts it, and `detect(path)` (the
// detector the commands dispatch on) names that curve.
template <class Read, class Detect>
void check_one_curve_accepts(const std::filesystem::path& path, Read&& read, Detect&& detect) {
  const bool bls = read(curves::Bls12_381{}, path);
  const bool bn = read(curves::Bn254{}, path);
  PP_FUZZ_CHECK(!(bls && bn));
  if (bls || bn) {
    auto curve = detect(path);
    PP_FUZZ_CHECK(curve.is_ok() && *curve == (bn ? curves::CurveId::kBn254 : curves::CurveId::kBls12_381));
  }
}

}  // namespace proofpipe::fuzz
