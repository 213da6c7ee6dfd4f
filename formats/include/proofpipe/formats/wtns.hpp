// Witnesses in the .wtns format (version 2, as circom's witness calculator and
// `snarkjs wtns calculate` write it; docs/design/formats.md §2.2), for
// BLS12-381's or BN254's scalar field (the template's C, default BLS12-381). Read fully into memory (not a view): the
// values are converted to Montgomery form on load.
#pragma once

#include <filesystem>
#include <span>
#include <vector>

#include "proofpipe/common/status.hpp"
#include "proofpipe/curves.hpp"
#include "proofpipe/formats/fwd.hpp"
#include "proofpipe/formats/mapped_file.hpp"

namespace proofpipe::formats {

template <class C>
struct WitnessT {
  std::filesystem::path path;  // the file it came from (for error messages)
  // w[0..nWitness): Montgomery-form Fr. The .wtns stores them in standard form;
  // to_canonical() gives those values back. w[0] is 1 in a valid witness
  // (checked by check_witness_matches, not by load_wtns).
  std::vector<typename C::Fr> values;
};

// Loads a wtns. Errors (prefix "wtns '<path>': "): missing file (kNotFound),
// truncated, bad magic, unsupported version (only 2), missing sections,
// "curve mismatch: ... is bn128's, expected bls12381", "prime mismatch",
// "section 1 is N bytes, expected 40", "section 2 is N bytes, expected M"
// (nWitness * 32), and "w[17] is not below r". kBadFormat for content errors.
template <class C>
[[nodiscard]] Result<WitnessT<C>> load_wtns(const std::filesystem::path& path);
// The same over bytes already mapped or viewed (the C library's witness
// buffer: MappedFile::view_of); `path` in the result and in messages is
// the file's path().
template <class C>
[[nodiscard]] Result<WitnessT<C>> load_wtns_from(const MappedFile& file);

// The curve a wtns is for, from its header's prime (r). kBadFormat naming
// the file when it is neither curve's.
[[nodiscard]] Result<curves::CurveId> wtns_curve(const std::filesystem::path& path);

// The same checks, but converts only the first out.size() values, into caller
// memory (a shared-memory slot, or just the public signals), and returns
// nWitness. kInvalidArgument when the file holds fewer than out.size() values.
template <class C>
[[nodiscard]] Result<uint32_t> read_wtns_prefix(const std::filesystem::path& path, std::span<typename C::Fr> out);

// Writes a version-2 .wtns of `values` (Montgomery in memory, standard form
// in the file), temp file then rename.
template <class C>
[[nodiscard]] Status write_wtns(const std::filesystem::path& path, std::span<const typename C::Fr> values);

// Checks that `witness` can drive `zkey`: exactly nVars values, and w[0] == 1.
// kInvalidArgument, one line naming both files, e.g.
// "witness 'w.wtns' has 350 values, zkey 'c.zkey' expects nVars = 351".
template <class C>
[[nodiscard]] Status check_witness_matches(const ZkeyT<C>& zkey, const WitnessT<C>& witness);

// load_wtns's checks and check_witness_matches's together, without holding
// the witness: every value is checked (< r) as the file is read, with its
// pages released as it goes, and only w[1 .. prefix.size()] are kept, into
// `prefix` (the public signals). For the coordinator, which checks every
// witness of a run before it starts: at 2^20 each is 32 MiB of file that a
// load_wtns would hold twice (mapped and converted).
// A prefix longer than nVars - 1 has only its first nVars - 1 entries set.
template <class C>
[[nodiscard]] Status check_wtns_for(const ZkeyT<C>& zkey, const std::filesystem::path& path,
                                    std::span<typename C::Fr> prefix);

}  // namespace proofpipe::formats
