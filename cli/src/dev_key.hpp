// The dev set-up shared by `setup-dev` and `gen`: prints the TESTING ONLY
// banner, draws toxic waste, computes and writes the key, wipes the secrets.
#pragma once

#include <string>

#include "proofpipe/common/status.hpp"
#include "proofpipe/formats/r1cs.hpp"

namespace proofpipe::cli {

// Returns log2 of the key's domain size. For either curve (the r1cs's).
template <class C>
Result<unsigned> write_dev_key(const formats::R1csT<C>& r1cs, const std::string& zkey);

}  // namespace proofpipe::cli
