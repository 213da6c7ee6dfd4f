// The readers of formats/ are templates over the curve: a fuzz target runs
// each input through both instantiations (the other curve's field, prime and
// "curve" name take different paths through the same code).
#pragma once

#include "proofpipe/curves.hpp"

namespace proofpipe::fuzz {

template <class F>
void for_each_curve(F&& f) {
  f(curves::Bls12_381{});
  f(curves::Bn254{});
}

}  // namespace proofpipe::fuzz
