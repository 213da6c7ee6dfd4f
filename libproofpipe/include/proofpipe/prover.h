/* libproofpipe's prover interface: rapidsnark's prover.h (iden3/rapidsnark
 * src/prover.h, its current form), declaration for declaration: the same
 * function names, argument types (sizes are unsigned long long), return
 * codes and include guard, so a caller written for rapidsnark compiles
 * against it unchanged. proofpipe's additions are in proofpipe/prover_ext.h;
 * rapidsnark's older unsigned-long form is proofpipe/rapidsnark-ulong/prover.h.
 *
 * How proofpipe fills the interface (docs/bindings.md has the rest):
 *   - both curves: the zkey's base-field prime picks BLS12-381 or BN254;
 *   - every proof is checked with the built-in Groth16 verifier before it is
 *     returned; one that does not verify is PROVER_ERROR with the reason;
 *   - the JSON is byte-identical to snarkjs's proof.json and public.json.
 *
 * Buffer-size protocol (groth16_prover, groth16_prover_zkey_file,
 * groth16_prover_prove): *proof_size and *public_size hold the buffers'
 * sizes on entry. On PROVER_OK they hold the lengths written, not counting
 * the NUL that is always written. On PROVER_ERROR_SHORT_BUFFER nothing is
 * written and they hold the sizes needed, NUL included. A proof's length
 * varies with its random blinding; groth16_proof_size and
 * groth16_public_size_for_zkey_* give sizes that always suffice.
 *
 * Keys: groth16_prover reads zkey_buffer in place for the call (no copy);
 * groth16_prover_create copies it (the caller may free it on return;
 * proofpipe_prover_create_borrowed in prover_ext.h does not copy); the
 * _zkey_file functions map the file read-only.
 *
 * error_msg is cut to error_msg_maxsize - 1 bytes and NUL-terminated.
 * No C++ exception leaves any function. A prover object may be used by
 * any number of threads at once; destroy must not race a prove on it.
 */
#ifndef PROVER_HPP
#define PROVER_HPP

#ifdef __cplusplus
extern "C" {
#endif

// Error codes returned by the functions.
#define PROVER_OK                     0x0
#define PROVER_ERROR                  0x1
#define PROVER_ERROR_SHORT_BUFFER     0x2
#define PROVER_INVALID_WITNESS_LENGTH 0x3

/* The public.json size that always suffices for the key, NUL included. */
int
groth16_public_size_for_zkey_buf(
    const void          *zkey_buffer,
    unsigned long long   zkey_size,
    unsigned long long  *public_size,
    char                *error_msg,
    unsigned long long   error_msg_maxsize);

int
groth16_public_size_for_zkey_file(
    const char          *zkey_fname,
    unsigned long long  *public_size,
    char                *error_msg,
    unsigned long long   error_msg_maxsize);

/* The proof.json size that always suffices for either curve, NUL included. */
void
groth16_proof_size(
    unsigned long long *proof_size);

/* Loads and checks a zkey into a new prover object (*prover_object). */
int
groth16_prover_create(
    void                **prover_object,
    const void          *zkey_buffer,
    unsigned long long   zkey_size,
    char                *error_msg,
    unsigned long long   error_msg_maxsize);

int
groth16_prover_create_zkey_file(
    void                **prover_object,
    const char          *zkey_file_path,
    char                *error_msg,
    unsigned long long   error_msg_maxsize);

/* Proves one .wtns (the file's bytes) with the object's key.
 * PROVER_INVALID_WITNESS_LENGTH: not the key's number of wires;
 * PROVER_ERROR_SHORT_BUFFER: as above; PROVER_ERROR: anything else. */
int
groth16_prover_prove(
    void                *prover_object,
    const void          *wtns_buffer,
    unsigned long long   wtns_size,
    char                *proof_buffer,
    unsigned long long  *proof_size,
    char                *public_buffer,
    unsigned long long  *public_size,
    char                *error_msg,
    unsigned long long   error_msg_maxsize);

/* Frees a prover object; NULL is ignored. */
void
groth16_prover_destroy(void *prover_object);

/* create + prove + destroy in one call. */
int
groth16_prover(
    const void          *zkey_buffer,
    unsigned long long   zkey_size,
    const void          *wtns_buffer,
    unsigned long long   wtns_size,
    char                *proof_buffer,
    unsigned long long  *proof_size,
    char                *public_buffer,
    unsigned long long  *public_size,
    char                *error_msg,
    unsigned long long   error_msg_maxsize);

int
groth16_prover_zkey_file(
    const char          *zkey_file_path,
    const void          *wtns_buffer,
    unsigned long long   wtns_size,
    char                *proof_buffer,
    unsigned long long  *proof_size,
    char                *public_buffer,
    unsigned long long  *public_size,
    char                *error_msg,
    unsigned long long   error_msg_maxsize);

#ifdef __cplusplus
}
#endif

#endif // PROVER_HPP
