// libproofpipe's C entry points (proofpipe/prover.h, verifier.h, prover_ext.h):
// argument checks, the buffer-size protocol and the return codes. Every
// entry point runs its body inside guarded(), which turns any C++ exception
// (std::bad_alloc included) into PROVER_ERROR / VERIFIER_ERROR and a
// message: an exception unwinding into a C or Go caller is undefined.
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <string_view>

#include "proofpipe/groth16/prove_checked.hpp"
// prover.h and verifier.h are rapidsnark's declarations, with no export
// attribute of their own; the library is built with hidden visibility, so
// they are declared visible here (the version script then lists exactly
// which symbols the shared library exports).
#pragma GCC visibility push(default)
#include "proofpipe/prover.h"
#include "proofpipe/verifier.h"
#pragma GCC visibility pop
#include "proofpipe/prover_ext.h"
#include "prover_object.hpp"

// proofpipe/rapidsnark-ulong/prover.h declares these functions with unsigned
// long for callers of rapidsnark's older header; one definition serves both
// only where the two types are one size (LP64).
static_assert(sizeof(unsigned long) == sizeof(unsigned long long), "rapidsnark-ulong/prover.h needs an LP64 target");

namespace proofpipe::lib {
namespace {

// Copies `message` into the caller's buffer, cut to fit, NUL-terminated.
void set_error(char* error_msg, unsigned long long maxsize, std::string_view message) noexcept {
  if (error_msg == nullptr || maxsize == 0) return;
  const size_t n = message.size() < maxsize - 1 ? message.size() : size_t(maxsize - 1);
  std::memcpy(error_msg, message.data(), n);
  error_msg[n] = '\0';
}

// Runs body() and returns its code; an exception becomes `error_code`
// with its what() in error_msg.
template <class Body>
int guarded(int error_code, char* error_msg, unsigned long long maxsize, Body&& body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    set_error(error_msg, maxsize, "out of memory");
  } catch (const std::exception& e) {
    // what() may itself allocate nothing; set_error copies without allocating.
    set_error(error_msg, maxsize, e.what());
  } catch (...) {
    set_error(error_msg, maxsize, "unknown error");
  }
  return error_code;
}

std::span<const uint8_t> bytes_of(const void* p, unsigned long long n) {
  return {static_cast<const uint8_t*>(p), static_cast<size_t>(n)};
}

int fail(const Status& st, char* error_msg, unsigned long long maxsize) {
  set_error(error_msg, maxsize, st.message());
  return PROVER_ERROR;
}

int create(void** prover_object, Result<std::unique_ptr<Prover>> prover, char* error_msg, unsigned long long maxsize) {
  if (!prover) return fail(prover.status(), error_msg, maxsize);
  *prover_object = prover->release();
  return PROVER_OK;
}

// groth16_prover_create and its borrowing form: the key's bytes copied, or
// read in place for the object's lifetime.
int create_from_buffer(void** prover_object, const void* zkey_buffer, unsigned long long zkey_size, KeyBytes bytes,
                       char* error_msg, unsigned long long maxsize) {
  return guarded(PROVER_ERROR, error_msg, maxsize, [&] {
    if (prover_object == nullptr || zkey_buffer == nullptr) {
      set_error(error_msg, maxsize, "prover_object or zkey_buffer is NULL");
      return PROVER_ERROR;
    }
    return create(prover_object, Prover::from_buffer(bytes_of(zkey_buffer, zkey_size), bytes), error_msg, maxsize);
  });
}

// The buffer-size protocol of prover.h: both fit, or neither is written
// and both sizes say what is needed (NUL included).
int deliver(const ProveOutput& out, char* proof_buffer, unsigned long long* proof_size, char* public_buffer,
            unsigned long long* public_size, char* error_msg, unsigned long long maxsize) {
  const unsigned long long need_proof = out.proof_json.size() + 1, need_public = out.public_json.size() + 1;
  if (*proof_size < need_proof || *public_size < need_public) {
    const std::string message = "buffer too small: proof needs " + std::to_string(need_proof) + " bytes (given " +
                                std::to_string(*proof_size) + "), public needs " + std::to_string(need_public) +
                                " bytes (given " + std::to_string(*public_size) + ")";
    *proof_size = need_proof;
    *public_size = need_public;
    set_error(error_msg, maxsize, message);
    return PROVER_ERROR_SHORT_BUFFER;
  }
  std::memcpy(proof_buffer, out.proof_json.c_str(), need_proof);
  std::memcpy(public_buffer, out.public_json.c_str(), need_public);
  *proof_size = out.proof_json.size();
  *public_size = out.public_json.size();
  return PROVER_OK;
}

// One name for each missing pointer, in argument order.
const char* missing_prove_argument(const void* prover, const void* wtns, const char* proof_buffer,
                                   const unsigned long long* proof_size, const char* public_buffer,
                                   const unsigned long long* public_size) {
  if (prover == nullptr) return "prover_object is NULL";
  if (wtns == nullptr) return "wtns_buffer is NULL";
  if (proof_buffer == nullptr) return "proof_buffer is NULL";
  if (proof_size == nullptr) return "proof_size is NULL";
  if (public_buffer == nullptr) return "public_buffer is NULL";
  if (public_size == nullptr) return "public_size is NULL";
  return nullptr;
}

}  // namespace
}  // namespace proofpipe::lib

using namespace proofpipe::lib;  // NOLINT: the C functions below are the whole file

extern "C" {

int groth16_public_size_for_zkey_buf(const void* zkey_buffer, unsigned long long zkey_size,
                                     unsigned long long* public_size, char* error_msg,
                                     unsigned long long error_msg_maxsize) {
  return guarded(PROVER_ERROR, error_msg, error_msg_maxsize, [&] {
    if (zkey_buffer == nullptr || public_size == nullptr) {
      set_error(error_msg, error_msg_maxsize, "zkey_buffer or public_size is NULL");
      return PROVER_ERROR;
    }
    auto n = zkey_n_public(bytes_of(zkey_buffer, zkey_size));
    if (!n) return fail(n.status(), error_msg, error_msg_maxsize);
    *public_size = public_json_max_size(*n);
    return PROVER_OK;
  });
}

int groth16_public_size_for_zkey_file(const char* zkey_fname, unsigned long long* public_size, char* error_msg,
                                      unsigned long long error_msg_maxsize) {
  return guarded(PROVER_ERROR, error_msg, error_msg_maxsize, [&] {
    if (zkey_fname == nullptr || public_size == nullptr) {
      set_error(error_msg, error_msg_maxsize, "zkey_fname or public_size is NULL");
      return PROVER_ERROR;
    }
    auto n = zkey_n_public(std::string(zkey_fname));
    if (!n) return fail(n.status(), error_msg, error_msg_maxsize);
    *public_size = public_json_max_size(*n);
    return PROVER_OK;
  });
}

void groth16_proof_size(unsigned long long* proof_size) {
  if (proof_size == nullptr) return;
  // Computed once (it formats two proofs); nothing to report if that fails.
  static const unsigned long long size = [] {
    try {
      return static_cast<unsigned long long>(proof_json_max_size());
    } catch (...) {
      return 0ULL;
    }
  }();
  *proof_size = size;
}

int groth16_prover_create(void** prover_object, const void* zkey_buffer, unsigned long long zkey_size, char* error_msg,
                          unsigned long long error_msg_maxsize) {
  return create_from_buffer(prover_object, zkey_buffer, zkey_size, KeyBytes::kCopy, error_msg, error_msg_maxsize);
}

int proofpipe_prover_create_borrowed(void** prover_object, const void* zkey_buffer, unsigned long long zkey_size,
                                     char* error_msg, unsigned long long error_msg_maxsize) {
  return create_from_buffer(prover_object, zkey_buffer, zkey_size, KeyBytes::kBorrow, error_msg, error_msg_maxsize);
}

int groth16_prover_create_zkey_file(void** prover_object, const char* zkey_file_path, char* error_msg,
                                    unsigned long long error_msg_maxsize) {
  return guarded(PROVER_ERROR, error_msg, error_msg_maxsize, [&] {
    if (prover_object == nullptr || zkey_file_path == nullptr) {
      set_error(error_msg, error_msg_maxsize, "prover_object or zkey_file_path is NULL");
      return PROVER_ERROR;
    }
    return create(prover_object, Prover::from_file(zkey_file_path), error_msg, error_msg_maxsize);
  });
}

int groth16_prover_prove(void* prover_object, const void* wtns_buffer, unsigned long long wtns_size, char* proof_buffer,
                         unsigned long long* proof_size, char* public_buffer, unsigned long long* public_size,
                         char* error_msg, unsigned long long error_msg_maxsize) {
  return guarded(PROVER_ERROR, error_msg, error_msg_maxsize, [&] {
    if (const char* missing =
            missing_prove_argument(prover_object, wtns_buffer, proof_buffer, proof_size, public_buffer, public_size)) {
      set_error(error_msg, error_msg_maxsize, missing);
      return PROVER_ERROR;
    }
    const auto* prover = static_cast<const Prover*>(prover_object);
    ProveOutput out;
    ProveFailure failure;
    if (!prover->prove(bytes_of(wtns_buffer, wtns_size), out, failure)) {
      set_error(error_msg, error_msg_maxsize, failure.status.message());
      return failure.wrong_witness_length ? PROVER_INVALID_WITNESS_LENGTH : PROVER_ERROR;
    }
    return deliver(out, proof_buffer, proof_size, public_buffer, public_size, error_msg, error_msg_maxsize);
  });
}

void groth16_prover_destroy(void* prover_object) {
  // Destructors here do not throw; the guard is for the interface's promise.
  try {
    delete static_cast<Prover*>(prover_object);
  } catch (...) {
  }
}

int groth16_prover(const void* zkey_buffer, unsigned long long zkey_size, const void* wtns_buffer,
                   unsigned long long wtns_size, char* proof_buffer, unsigned long long* proof_size,
                   char* public_buffer, unsigned long long* public_size, char* error_msg,
                   unsigned long long error_msg_maxsize) {
  // The caller's buffer outlives this call, so the key is read in place:
  // a copy would add the key's size to the peak memory for nothing.
  void* prover = nullptr;
  int code = proofpipe_prover_create_borrowed(&prover, zkey_buffer, zkey_size, error_msg, error_msg_maxsize);
  if (code != PROVER_OK) return code;
  code = groth16_prover_prove(prover, wtns_buffer, wtns_size, proof_buffer, proof_size, public_buffer, public_size,
                              error_msg, error_msg_maxsize);
  groth16_prover_destroy(prover);
  return code;
}

int groth16_prover_zkey_file(const char* zkey_file_path, const void* wtns_buffer, unsigned long long wtns_size,
                             char* proof_buffer, unsigned long long* proof_size, char* public_buffer,
                             unsigned long long* public_size, char* error_msg, unsigned long long error_msg_maxsize) {
  void* prover = nullptr;
  int code = groth16_prover_create_zkey_file(&prover, zkey_file_path, error_msg, error_msg_maxsize);
  if (code != PROVER_OK) return code;
  code = groth16_prover_prove(prover, wtns_buffer, wtns_size, proof_buffer, proof_size, public_buffer, public_size,
                              error_msg, error_msg_maxsize);
  groth16_prover_destroy(prover);
  return code;
}

int groth16_verify(const char* proof, const char* inputs, const char* verification_key, char* error_msg,
                   unsigned long error_msg_maxsize) {
  return guarded(VERIFIER_ERROR, error_msg, error_msg_maxsize, [&] {
    if (proof == nullptr || inputs == nullptr || verification_key == nullptr) {
      set_error(error_msg, error_msg_maxsize, "proof, inputs or verification_key is NULL");
      return VERIFIER_ERROR;
    }
    auto verdict = proofpipe::groth16::verify_json(verification_key, inputs, proof);
    if (!verdict) {
      set_error(error_msg, error_msg_maxsize, verdict.status().message());
      return VERIFIER_ERROR;
    }
    if (!verdict->valid) {
      set_error(error_msg, error_msg_maxsize, verdict->reason);
      return VERIFIER_INVALID_PROOF;
    }
    return VERIFIER_VALID_PROOF;
  });
}

}  // extern "C"
