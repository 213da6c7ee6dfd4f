/* libproofpipe's additions to rapidsnark's interface (prover.h stays
 * rapidsnark's own, declaration for declaration). Include this one for
 * them; it includes prover.h. Nothing here exists in rapidsnark: a caller
 * that uses it links proofpipe only.
 */
#ifndef PROOFPIPE_PROVER_EXT_H
#define PROOFPIPE_PROVER_EXT_H

#include "proofpipe/export.h"
#include "prover.h"

#ifdef __cplusplus
extern "C" {
#endif

/* groth16_prover_create without the copy: the object reads the key from
 * zkey_buffer itself for as long as it lives. The caller keeps the buffer
 * allocated and unchanged until groth16_prover_destroy(*prover_object) has
 * returned; changing or freeing it earlier is undefined (wrong proofs are
 * still caught by the verification of each proof, but a freed buffer can
 * crash). Saves the key's size in resident memory per object (37 MB for a
 * 2^16 BN254 key). Codes and messages as groth16_prover_create. */
PROOFPIPE_API int
proofpipe_prover_create_borrowed(
    void                **prover_object,
    const void          *zkey_buffer,
    unsigned long long   zkey_size,
    char                *error_msg,
    unsigned long long   error_msg_maxsize);

#ifdef __cplusplus
}
#endif

#endif /* PROOFPIPE_PROVER_EXT_H */
