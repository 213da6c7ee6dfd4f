/* libproofpipe: Groth16 verification of snarkjs JSON, behind the C
 * interface of rapidsnark's verifier (same name, arguments and codes).
 * The verification key's "curve" picks BLS12-381 or BN254. Safe to call
 * from any number of threads at once; no C++ exception leaves it.
 */
#ifndef PROOFPIPE_VERIFIER_H
#define PROOFPIPE_VERIFIER_H

#include "proofpipe/export.h"

#ifdef __cplusplus
extern "C" {
#endif

#define VERIFIER_VALID_PROOF 0x0
#define VERIFIER_INVALID_PROOF 0x1
#define VERIFIER_ERROR 0x2

/* proof, inputs (public.json) and verification_key: NUL-terminated JSON
 * text as snarkjs writes it. VERIFIER_INVALID_PROOF says why in error_msg;
 * VERIFIER_ERROR is malformed input (unparsable JSON, a point off its
 * curve, a proof for the other curve). */
PROOFPIPE_API int groth16_verify(const char* proof, const char* inputs, const char* verification_key, char* error_msg,
                                 unsigned long error_msg_maxsize);

#ifdef __cplusplus
}
#endif

#endif /* PROOFPIPE_VERIFIER_H */
