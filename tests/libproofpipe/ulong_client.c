/* A caller written against rapidsnark's older prover.h, whose sizes were
 * unsigned long (as go-rapidsnark's cgo code is): built with `pkg-config
 * rapidsnark-ulong`, whose include path gives proofpipe/rapidsnark-ulong/
 * prover.h for <prover.h>, and the same library proves. Built with -Werror
 * by c_client_test.sh, so a mismatched pointer type fails the build (as it
 * does against the current prover.h: the test checks that too).
 *
 *   ulong_client <circuit.zkey> <w.wtns> <verification_key.json>
 */
#include <stdio.h>
#include <stdlib.h>

#include <prover.h>
#include <verifier.h>

static char* slurp(const char* path, unsigned long* size) {
  FILE* f = fopen(path, "rb");
  if (!f || fseek(f, 0, SEEK_END) != 0) return NULL;
  long n = ftell(f);
  rewind(f);
  char* buf = malloc((size_t)n + 1);
  if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) return NULL;
  buf[n] = '\0';
  fclose(f);
  *size = (unsigned long)n;
  return buf;
}

int main(int argc, char** argv) {
  unsigned long wtns_size, vkey_size, proof_size = 0, public_size = 0;
  if (argc != 4) return 2;
  char *wtns = slurp(argv[2], &wtns_size), *vkey = slurp(argv[3], &vkey_size);
  if (!wtns || !vkey) return 2;
  groth16_proof_size(&proof_size);
  char err[256];
  if (groth16_public_size_for_zkey_file(argv[1], &public_size, err, sizeof err) != PROVER_OK) return 1;
  char *proof = malloc(proof_size), *pub = malloc(public_size);
  int rc = groth16_prover_zkey_file(argv[1], wtns, wtns_size, proof, &proof_size, pub, &public_size, err, sizeof err);
  if (rc != PROVER_OK) {
    fprintf(stderr, "ulong_client: FAILED: code %d: %s\n", rc, err);
    return 1;
  }
  rc = groth16_verify(proof, pub, vkey, err, sizeof err);
  printf("ulong_client: prove OK (%lu + %lu bytes), verify code %d\n", proof_size, public_size, rc);
  return rc == VERIFIER_VALID_PROOF ? 0 : 1;
}
