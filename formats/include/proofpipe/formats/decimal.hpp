// Decimal strings <-> field elements, the number format of every snarkjs JSON
// file (docs/design/formats.md §4). Backed by GMP; not a hot path.
#pragma once

#include <string>
#include <string_view>

#include "proofpipe/common/status.hpp"
#include "proofpipe/ff/bls12_381.hpp"
#include "proofpipe/ff/bn254.hpp"

namespace proofpipe::formats {

// The element's canonical (standard-form, non-Montgomery) value in base 10,
// no sign, no leading zeros ("0" for zero). Input: any Montgomery-form element.
// For the four fields: Fq and Fr of BLS12-381 and of BN254.
template <class P>
std::string to_decimal(const ff::Field<P>& x);

// Parses ASCII digits only (no sign, no whitespace, no "0x"; leading zeros are
// accepted) whose value is below the field modulus; returns the element in
// Montgomery form. kBadFormat errors, one line, quoting (a prefix of) the text:
// "'12a' is not a decimal number", "'5243...' is not below the scalar field
// modulus r". Never throws.
template <class F>
Result<F> from_decimal(std::string_view text);

}  // namespace proofpipe::formats
