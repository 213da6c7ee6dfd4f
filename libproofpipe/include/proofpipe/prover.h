/* libproofpipe: Groth16 proving over snarkjs/circom files, behind the C
 * interface of rapidsnark's prover (same function names, argument types,
 * return codes and buffer-size protocol), so a caller written for rapidsnark
 * links against -lproofpipe unchanged.
 *
 * What differs from rapidsnark:
 *   - both curves: the zkey's base-field prime picks BLS12-381 ("bls12381")
 *     or BN254 ("bn128"); the witness must be for the same curve;
 *   - every proof is checked with the built-in Groth16 verifier before it is
 *     returned; a proof that does not verify is never returned (PROVER_ERROR
 *     with the reason);
 *   - the JSON is byte-identical to snarkjs's proof.json and public.json
 *     (1-space indent), not rapidsnark's one-line form; both parse the same.
 *
 * Buffer-size protocol (groth16_prover, groth16_prover_zkey_file,
 * groth16_prover_prove): *proof_size and *public_size hold the buffers'
 * sizes on entry. On PROVER_OK they hold the lengths written, not counting
 * the terminating NUL that is always written. On PROVER_ERROR_SHORT_BUFFER
 * nothing is written to either buffer and they hold the sizes needed,
 * NUL included. A proof's length varies with its random blinding, so the
 * proof size needed fits that proof, not necessarily the next one (the
 * public size is the same for the same witness). groth16_proof_size and
 * groth16_public_size_for_zkey_* give sizes that are always enough: a call
 * with buffers of those sizes never returns PROVER_ERROR_SHORT_BUFFER.
 *
 * Error messages are written to error_msg, cut to error_msg_maxsize - 1
 * bytes and NUL-terminated (nothing when error_msg is NULL or the size 0).
 * No C++ exception leaves any function here.
 *
 * Threads: a prover object (groth16_prover_create*) may be used by any
 * number of threads at once: groth16_prover_prove only reads the object,
 * and each call proves with memory of its own. Concurrent calls share the
 * library's one pool of worker threads, so they take turns at each NTT and
 * MSM rather than running in parallel. groth16_prover_destroy must not
 * race a prove on the same object.
 */
#ifndef PROOFPIPE_PROVER_H
#define PROOFPIPE_PROVER_H

#include "proofpipe/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The size type: unsigned long long, as in rapidsnark's current header.
 * Code written against its older header, whose sizes were unsigned long
 * (go-rapidsnark's cgo casts), defines PROOFPIPE_PROVER_ULONG first. On
 * the LP64 targets this library is built for (Linux x86-64, arm64) both
 * are the same 64-bit type, so the library serves either declaration. */
#ifdef PROOFPIPE_PROVER_ULONG
#define PROOFPIPE_SIZE unsigned long
#else
#define PROOFPIPE_SIZE unsigned long long
#endif

/* Return codes. */
#define PROVER_OK 0x0
#define PROVER_ERROR 0x1
#define PROVER_ERROR_SHORT_BUFFER 0x2
#define PROVER_INVALID_WITNESS_LENGTH 0x3

/* The public.json size that always suffices for the zkey in memory (or in
 * the file), NUL included. PROVER_OK, or PROVER_ERROR for a bad zkey. */
PROOFPIPE_API int groth16_public_size_for_zkey_buf(const void* zkey_buffer, PROOFPIPE_SIZE zkey_size,
                                                   PROOFPIPE_SIZE* public_size, char* error_msg,
                                                   PROOFPIPE_SIZE error_msg_maxsize);
PROOFPIPE_API int groth16_public_size_for_zkey_file(const char* zkey_fname, PROOFPIPE_SIZE* public_size,
                                                    char* error_msg, PROOFPIPE_SIZE error_msg_maxsize);

/* The proof.json size that always suffices for either curve, NUL included. */
PROOFPIPE_API void groth16_proof_size(PROOFPIPE_SIZE* proof_size);

/* Loads and checks a zkey and returns a prover object in *prover_object.
 * The buffer is copied: the caller may free it when this returns. The file
 * is mapped read-only and must not change while the object lives. */
PROOFPIPE_API int groth16_prover_create(void** prover_object, const void* zkey_buffer, PROOFPIPE_SIZE zkey_size,
                                        char* error_msg, PROOFPIPE_SIZE error_msg_maxsize);
PROOFPIPE_API int groth16_prover_create_zkey_file(void** prover_object, const char* zkey_file_path, char* error_msg,
                                                  PROOFPIPE_SIZE error_msg_maxsize);

/* Proves one .wtns (the file's bytes) with the object's key.
 * PROVER_INVALID_WITNESS_LENGTH when the witness does not have the key's
 * number of wires; PROVER_ERROR_SHORT_BUFFER as described above;
 * PROVER_ERROR for anything else (a malformed witness, a witness for the
 * other curve, one that does not satisfy the circuit). */
PROOFPIPE_API int groth16_prover_prove(void* prover_object, const void* wtns_buffer, PROOFPIPE_SIZE wtns_size,
                                       char* proof_buffer, PROOFPIPE_SIZE* proof_size, char* public_buffer,
                                       PROOFPIPE_SIZE* public_size, char* error_msg, PROOFPIPE_SIZE error_msg_maxsize);

/* Frees a prover object; NULL is ignored. */
PROOFPIPE_API void groth16_prover_destroy(void* prover_object);

/* create + prove + destroy in one call. */
PROOFPIPE_API int groth16_prover(const void* zkey_buffer, PROOFPIPE_SIZE zkey_size, const void* wtns_buffer,
                                 PROOFPIPE_SIZE wtns_size, char* proof_buffer, PROOFPIPE_SIZE* proof_size,
                                 char* public_buffer, PROOFPIPE_SIZE* public_size, char* error_msg,
                                 PROOFPIPE_SIZE error_msg_maxsize);
PROOFPIPE_API int groth16_prover_zkey_file(const char* zkey_file_path, const void* wtns_buffer,
                                           PROOFPIPE_SIZE wtns_size, char* proof_buffer, PROOFPIPE_SIZE* proof_size,
                                           char* public_buffer, PROOFPIPE_SIZE* public_size, char* error_msg,
                                           PROOFPIPE_SIZE error_msg_maxsize);

#ifdef __cplusplus
}
#endif

#endif /* PROOFPIPE_PROVER_H */
