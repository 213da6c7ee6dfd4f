/* A C client of the installed libproofpipe, built only against the
 * installed headers and `pkg-config rapidsnark` (c_client_test.sh): what a
 * rapidsnark caller does, checked call by call, with rapidsnark's own
 * include names and size types (unsigned long long).
 *
 *   c_client <circuit.zkey> <wdir> <wrong.wtns> <verification_key.json> <out_dir>
 *
 * <wdir> holds w00.wtns .. w03.wtns for the key; <wrong.wtns> is a witness
 * of another circuit of the same curve. Writes <out_dir>/proof.json and
 * public.json (one proof, for snarkjs to verify) and exits 0 when every
 * check held; otherwise names the first that did not, exit 1.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <prover.h> /* rapidsnark's include names, through pkg-config's Cflags */
#include <verifier.h>

#define kThreads 4
#define kProofsPerThread 2
#define kErrSize 512

static void die(const char* what, const char* detail) {
  fprintf(stderr, "c_client: FAILED: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
  exit(1);
}

static char* read_file(const char* path, unsigned long long* size) {
  FILE* f = fopen(path, "rb");
  if (!f) die("cannot open", path);
  if (fseek(f, 0, SEEK_END) != 0) die("cannot seek", path);
  long n = ftell(f);
  rewind(f);
  char* buf = malloc((size_t)n + 1);
  if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) die("cannot read", path);
  buf[n] = '\0'; /* JSON files are then C strings */
  fclose(f);
  *size = (unsigned long long)n;
  return buf;
}

static void write_file(const char* dir, const char* name, const char* text) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE* f = fopen(path, "wb");
  if (!f || fwrite(text, 1, strlen(text), f) != strlen(text) || fclose(f) != 0) die("cannot write", path);
}

struct Witness {
  char* bytes;
  unsigned long long size;
};

static struct Witness witnesses[kThreads];
static void* prover;
static const char* vkey_json;
static unsigned long long proof_cap, public_cap;

/* One thread's share: prove its witness kProofsPerThread times with the
 * shared prover object; each proof must pass groth16_verify. */
static void* prove_in_thread(void* arg) {
  const struct Witness* w = arg;
  char *proof = malloc(proof_cap), *pub = malloc(public_cap), err[kErrSize];
  for (int i = 0; i < kProofsPerThread; ++i) {
    unsigned long long proof_size = proof_cap, public_size = public_cap;
    int rc = groth16_prover_prove(prover, w->bytes, w->size, proof, &proof_size, pub, &public_size, err, sizeof err);
    if (rc != PROVER_OK) die("threaded groth16_prover_prove", err);
    if (groth16_verify(proof, pub, vkey_json, err, sizeof err) != VERIFIER_VALID_PROOF) die("threaded proof", err);
  }
  free(proof);
  free(pub);
  return NULL;
}

int main(int argc, char** argv) {
  if (argc != 6) die("usage", "c_client <zkey> <wdir> <wrong.wtns> <vkey.json> <out_dir>");
  const char *zkey_path = argv[1], *wdir = argv[2], *wrong_path = argv[3], *out_dir = argv[5];
  unsigned long long zkey_size, wrong_size, vkey_size;
  char* zkey = read_file(zkey_path, &zkey_size);
  char* wrong = read_file(wrong_path, &wrong_size);
  vkey_json = read_file(argv[4], &vkey_size);
  for (int t = 0; t < kThreads; ++t) {
    char path[4096];
    snprintf(path, sizeof path, "%s/w%02d.wtns", wdir, t);
    witnesses[t].bytes = read_file(path, &witnesses[t].size);
  }
  char err[kErrSize];

  /* The sizes that always suffice. */
  groth16_proof_size(&proof_cap);
  unsigned long long public_from_buf = 0;
  if (groth16_public_size_for_zkey_file(zkey_path, &public_cap, err, sizeof err) != PROVER_OK) die("public size", err);
  if (groth16_public_size_for_zkey_buf(zkey, zkey_size, &public_from_buf, err, sizeof err) != PROVER_OK ||
      public_from_buf != public_cap)
    die("public size from the buffer differs from the file's", err);

  /* Short buffers: code 2, nothing written, both sizes say what is needed. */
  char small_proof[16] = "untouched", small_pub[16] = "untouched";
  unsigned long long proof_size = sizeof small_proof, public_size = sizeof small_pub;
  int rc = groth16_prover(zkey, zkey_size, witnesses[0].bytes, witnesses[0].size, small_proof, &proof_size, small_pub,
                          &public_size, err, sizeof err);
  if (rc != PROVER_ERROR_SHORT_BUFFER) die("short buffers did not give PROVER_ERROR_SHORT_BUFFER", err);
  if (strcmp(small_proof, "untouched") != 0 || strcmp(small_pub, "untouched") != 0) die("short buffer written", NULL);
  if (proof_size <= sizeof small_proof || proof_size > proof_cap) die("needed proof size out of range", NULL);
  if (public_size <= sizeof small_pub || public_size > public_cap) die("needed public size out of range", NULL);
  printf("short buffers: code %d, needs proof %llu public %llu (limits %llu, %llu)\n", rc, proof_size, public_size,
         proof_cap, public_cap);

  /* The sizes that always suffice: code 0, lengths without the NUL. A
   * proof's length varies with its random r and s, so the size needed above
   * fitted that proof only; public.json is the same for the same witness. */
  const unsigned long long need_public = public_size;
  char *proof = malloc(proof_cap), *pub = malloc(public_cap);
  proof_size = proof_cap;
  public_size = public_cap;
  rc = groth16_prover(zkey, zkey_size, witnesses[0].bytes, witnesses[0].size, proof, &proof_size, pub, &public_size,
                      err, sizeof err);
  if (rc != PROVER_OK) die("groth16_prover with the sizes that always suffice", err);
  if (proof_size != strlen(proof) || public_size != strlen(pub)) die("returned sizes are not the text lengths", NULL);
  if (public_size + 1 != need_public) die("the public size needed was not exact", NULL);
  write_file(out_dir, "proof.json", proof);
  write_file(out_dir, "public.json", pub);
  if (groth16_verify(proof, pub, vkey_json, err, sizeof err) != VERIFIER_VALID_PROOF) die("groth16_verify", err);

  /* A tampered public signal (its last digit moved by one, so it stays
   * below r): VERIFIER_INVALID_PROOF, with a reason. */
  char *open_quote = strchr(pub, '"'), *close_quote = open_quote ? strchr(open_quote + 1, '"') : NULL;
  if (!close_quote) die("public.json has no signal", pub);
  close_quote[-1] = close_quote[-1] == '9' ? '8' : (char)(close_quote[-1] + 1);
  if (groth16_verify(proof, pub, vkey_json, err, sizeof err) != VERIFIER_INVALID_PROOF) die("tampered input", err);
  printf("tampered public input: invalid (%s)\n", err);

  /* A witness of the wrong length: code 3 and a message. */
  proof_size = proof_cap;
  public_size = public_cap;
  char *big_proof = malloc(proof_cap), *big_pub = malloc(public_cap);
  err[0] = '\0';
  rc = groth16_prover_zkey_file(zkey_path, wrong, wrong_size, big_proof, &proof_size, big_pub, &public_size, err,
                                sizeof err);
  if (rc != PROVER_INVALID_WITNESS_LENGTH || err[0] == '\0') die("wrong-length witness did not give code 3", err);
  printf("wrong-length witness: code %d (%s)\n", rc, err);

  /* A bad zkey (cut short): code 1 and its message; a message longer than
   * the buffer is cut and still NUL-terminated. */
  void* bad = NULL;
  rc = groth16_prover_create(&bad, zkey, zkey_size / 2, err, sizeof err);
  if (rc != PROVER_ERROR || bad != NULL || strstr(err, "zkey") == NULL) die("truncated zkey did not give code 1", err);
  printf("truncated zkey: code %d (%s)\n", rc, err);
  char tiny[8];
  memset(tiny, 'x', sizeof tiny);
  rc = groth16_prover_create(&bad, zkey, 100, tiny, sizeof tiny);
  if (rc != PROVER_ERROR || tiny[sizeof tiny - 1] != '\0') die("short error buffer not terminated", NULL);

  /* One prover object, four threads at once. The key's buffer is wiped
   * and freed first: the object holds a copy of its own. */
  if (groth16_prover_create(&prover, zkey, zkey_size, err, sizeof err) != PROVER_OK) die("groth16_prover_create", err);
  memset(zkey, 0, zkey_size);
  free(zkey);
  pthread_t threads[kThreads];
  for (int t = 0; t < kThreads; ++t)
    if (pthread_create(&threads[t], NULL, prove_in_thread, &witnesses[t]) != 0) die("pthread_create", NULL);
  for (int t = 0; t < kThreads; ++t) pthread_join(threads[t], NULL);
  groth16_prover_destroy(prover);
  printf("%d threads x %d proofs on one prover object: all verified\n", kThreads, kProofsPerThread);
  return 0;
}
