// The run's keys as a worker holds them: one CurveKeys per curve, indexed
// by the key's place in the run (a GRANT or DISPATCH names a key by it),
// with the other curve's places empty; and the one rule for a message that
// names a key: which curve's worker takes it, and the error for an index
// that is no key of that curve (the engine sends only keys it gave the
// worker, so such an index is its bug: the worker answers it, never crashes).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "proofpipe/common/status.hpp"
#include "proofpipe/curves.hpp"

namespace proofpipe::workers {

template <class Key>
using CurveKeys = std::vector<std::optional<Key>>;

// The key at `index`, or kInternal: "<what> names key 7, not a bn128 key of the run's 2".
template <class C, class Key>
Result<Key*> key_at(CurveKeys<Key>& keys, uint32_t index, const char* what) {
  if (index >= keys.size() || !keys[index]) {
    return make_error(ErrorCode::kInternal, "{} names key {}, not a {} key of the run's {}", what, index, C::kName,
                      keys.size());
  }
  return &*keys[index];
}

// Whether a message naming key `index` goes to the BN254 side; an index out
// of range goes to the side that has a worker (`bls_present`: BLS12-381's),
// which refuses it with key_at's error.
inline bool goes_to_bn254(std::span<const curves::CurveId> curve, uint32_t index, bool bls_present) {
  return index < curve.size() ? curve[index] == curves::CurveId::kBn254 : !bls_present;
}

}  // namespace proofpipe::workers
