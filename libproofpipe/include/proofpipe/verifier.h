/* libproofpipe's verifier interface: rapidsnark's verifier.h, declaration
 * for declaration (name, arguments, codes, include guard). The verification
 * key's "curve" picks BLS12-381 or BN254. Safe from any number of threads
 * at once; no C++ exception leaves it. VERIFIER_INVALID_PROOF says why in
 * error_msg; VERIFIER_ERROR is malformed input (unparsable JSON, a point
 * off its curve, a proof for the other curve).
 */
#ifndef VERIFIER_HPP
#define VERIFIER_HPP

#ifdef __cplusplus
extern "C" {
#endif

//Error codes returned by the functions.
#define VERIFIER_VALID_PROOF        0x0
#define VERIFIER_INVALID_PROOF      0x1
#define VERIFIER_ERROR              0x2

/* proof, inputs (public.json) and verification_key: NUL-terminated JSON. */
int
groth16_verify(const char    *proof,
               const char    *inputs,
               const char    *verification_key,
               char          *error_msg,
               unsigned long  error_msg_maxsize);

#ifdef __cplusplus
}
#endif

#endif // VERIFIER_HPP
