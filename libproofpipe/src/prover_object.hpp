// The C++ object behind libproofpipe's `void* prover_object`: one loaded
// zkey of either curve, proving witnesses given as .wtns bytes into
// snarkjs's proof.json and public.json text. The C entry points (api.cpp)
// only translate arguments, results and errors; everything that can fail
// here fails as a Status (no exceptions are thrown by design, but api.cpp
// still catches them, std::bad_alloc included).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "proofpipe/common/status.hpp"

namespace proofpipe::lib {

struct ProveOutput {
  std::string proof_json;   // snarkjs's proof.json, byte for byte
  std::string public_json;  // snarkjs's public.json
};

// A prove's failure: the Status, and whether it is the witness-length case
// that the C interface reports with its own code.
struct ProveFailure {
  Status status;
  bool wrong_witness_length = false;
};

// Whether a key given in memory is copied (the caller may free its buffer
// at once) or borrowed (read in place; the buffer must outlive the object).
enum class KeyBytes { kCopy, kBorrow };

// @concurrent: prove() and every const method may be called from any number
// of threads at once (each prove uses a backend and buffers of its own; the
// key is read-only).
class Prover {
 public:
  virtual ~Prover() = default;

  // kCopy: the caller's buffer may go once this returns. kBorrow: the
  // object reads `zkey` itself; it must stay unchanged until the object goes.
  static Result<std::unique_ptr<Prover>> from_buffer(std::span<const uint8_t> zkey, KeyBytes bytes);
  // The file is mapped read-only and must not change while the object lives.
  static Result<std::unique_ptr<Prover>> from_file(const std::string& path);

  // Proves the .wtns in `wtns` and verifies the proof before returning it.
  // `out` is filled only on success.
  virtual bool prove(std::span<const uint8_t> wtns, ProveOutput& out, ProveFailure& failure) const = 0;

  virtual uint32_t n_public() const = 0;
};

// Sizes that always suffice, NUL included: public.json for n_public
// signals, and proof.json of either curve.
size_t public_json_max_size(uint32_t n_public);
size_t proof_json_max_size();

// nPublic of a key, checking the key as create does but without copying
// its bytes (buffer) or viewing its points.
Result<uint32_t> zkey_n_public(std::span<const uint8_t> zkey);
Result<uint32_t> zkey_n_public(const std::string& path);

}  // namespace proofpipe::lib
