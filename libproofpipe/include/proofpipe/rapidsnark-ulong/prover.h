/* rapidsnark's older prover.h, whose sizes were unsigned long, for callers
 * written against it: go-rapidsnark's cgo casts its sizes to C.ulong, and
 * cgo checks those casts against the header it includes. `pkg-config
 * rapidsnark-ulong` puts this directory first on the include path, so
 * `#include <prover.h>` finds this file instead of proofpipe/prover.h.
 *
 * The same functions as proofpipe/prover.h with unsigned long in place of
 * unsigned long long: one 64-bit type on the LP64 targets the library is
 * built for (Linux x86-64, arm64; the library checks it), so the same
 * symbols serve both declarations. Same include guard as prover.h: a
 * translation unit gets one or the other.
 */
#ifndef PROVER_HPP
#define PROVER_HPP

#ifdef __cplusplus
extern "C" {
#endif

#define PROVER_OK                     0x0
#define PROVER_ERROR                  0x1
#define PROVER_ERROR_SHORT_BUFFER     0x2
#define PROVER_INVALID_WITNESS_LENGTH 0x3

int groth16_public_size_for_zkey_buf(const void *zkey_buffer, unsigned long zkey_size, unsigned long *public_size,
                                     char *error_msg, unsigned long error_msg_maxsize);
int groth16_public_size_for_zkey_file(const char *zkey_fname, unsigned long *public_size, char *error_msg,
                                      unsigned long error_msg_maxsize);
void groth16_proof_size(unsigned long *proof_size);
int groth16_prover_create(void **prover_object, const void *zkey_buffer, unsigned long zkey_size, char *error_msg,
                          unsigned long error_msg_maxsize);
int groth16_prover_create_zkey_file(void **prover_object, const char *zkey_file_path, char *error_msg,
                                    unsigned long error_msg_maxsize);
int groth16_prover_prove(void *prover_object, const void *wtns_buffer, unsigned long wtns_size, char *proof_buffer,
                         unsigned long *proof_size, char *public_buffer, unsigned long *public_size, char *error_msg,
                         unsigned long error_msg_maxsize);
void groth16_prover_destroy(void *prover_object);
int groth16_prover(const void *zkey_buffer, unsigned long zkey_size, const void *wtns_buffer, unsigned long wtns_size,
                   char *proof_buffer, unsigned long *proof_size, char *public_buffer, unsigned long *public_size,
                   char *error_msg, unsigned long error_msg_maxsize);
int groth16_prover_zkey_file(const char *zkey_file_path, const void *wtns_buffer, unsigned long wtns_size,
                             char *proof_buffer, unsigned long *proof_size, char *public_buffer,
                             unsigned long *public_size, char *error_msg, unsigned long error_msg_maxsize);

#ifdef __cplusplus
}
#endif

#endif /* PROVER_HPP */
