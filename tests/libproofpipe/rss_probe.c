/* How much memory one proof through the buffer interface adds, for
 * borrow_test.sh and scripts/check_rapidsnark_callers.sh:
 *
 *   rss_probe <oneshot|create|borrowed> <circuit.zkey> <witness.wtns> [out_dir]
 *
 * Reads both files into malloc'd buffers (as a Go or Python caller holds
 * them), then proves once: `oneshot` with groth16_prover, `create` with
 * groth16_prover_create + groth16_prover_prove + destroy, `borrowed` with
 * proofpipe_prover_create_borrowed (proofpipe only). Prints the resident
 * memory with the inputs loaded and the process's peak after the proof
 * (VmRSS, VmHWM from /proc/self/status, KiB) and their difference; writes
 * proof.json and public.json into out_dir when given. Builds against
 * rapidsnark's own prover.h as well (no `borrowed` mode there).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <prover.h>
#if defined(__has_include)
#if __has_include(<proofpipe/prover_ext.h>)
#include <proofpipe/prover_ext.h>
#define HAVE_BORROWED 1
#endif
#endif

static void die(const char* what, const char* detail) {
  fprintf(stderr, "rss_probe: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
  exit(1);
}

static char* read_file(const char* path, unsigned long long* size) {
  FILE* f = fopen(path, "rb");
  if (!f || fseek(f, 0, SEEK_END) != 0) die("cannot open", path);
  long n = ftell(f);
  rewind(f);
  char* buf = malloc((size_t)n + 1);
  if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) die("cannot read", path);
  fclose(f);
  *size = (unsigned long long)n;
  return buf;
}

/* One field of /proc/self/status, in KiB. */
static long status_kib(const char* field) {
  FILE* f = fopen("/proc/self/status", "r");
  if (!f) die("cannot open", "/proc/self/status");
  char line[256];
  long kib = -1;
  const size_t n = strlen(field);
  while (fgets(line, sizeof line, f))
    if (strncmp(line, field, n) == 0 && line[n] == ':') kib = atol(line + n + 1);
  fclose(f);
  if (kib < 0) die("no field in /proc/self/status", field);
  return kib;
}

static void write_file(const char* dir, const char* name, const char* text, unsigned long long size) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE* f = fopen(path, "wb");
  if (!f || fwrite(text, 1, (size_t)size, f) != (size_t)size || fclose(f) != 0) die("cannot write", path);
}

int main(int argc, char** argv) {
  if (argc != 4 && argc != 5) die("usage", "rss_probe <oneshot|create|borrowed> <zkey> <wtns> [out_dir]");
  const char* mode = argv[1];
  unsigned long long zkey_size = 0, wtns_size = 0, proof_size = 0, public_size = 0;
  char* zkey = read_file(argv[2], &zkey_size);
  char* wtns = read_file(argv[3], &wtns_size);
  char error[1024];
  if (groth16_public_size_for_zkey_buf(zkey, zkey_size, &public_size, error, sizeof error) != PROVER_OK)
    die("groth16_public_size_for_zkey_buf", error);
  groth16_proof_size(&proof_size);
  char* proof = malloc(proof_size);
  char* pub = malloc(public_size);
  if (!proof || !pub) die("out of memory", NULL);

  const long loaded_kib = status_kib("VmRSS");
  int code = PROVER_ERROR;
  if (strcmp(mode, "oneshot") == 0) {
    code = groth16_prover(zkey, zkey_size, wtns, wtns_size, proof, &proof_size, pub, &public_size, error, sizeof error);
  } else if (strcmp(mode, "create") == 0 || strcmp(mode, "borrowed") == 0) {
    void* prover = NULL;
    if (strcmp(mode, "create") == 0) {
      code = groth16_prover_create(&prover, zkey, zkey_size, error, sizeof error);
    } else {
#ifdef HAVE_BORROWED
      code = proofpipe_prover_create_borrowed(&prover, zkey, zkey_size, error, sizeof error);
#else
      die("built without proofpipe/prover_ext.h", "no borrowed mode");
#endif
    }
    if (code == PROVER_OK) {
      code = groth16_prover_prove(prover, wtns, wtns_size, proof, &proof_size, pub, &public_size, error, sizeof error);
      groth16_prover_destroy(prover);
    }
  } else {
    die("unknown mode", mode);
  }
  if (code != PROVER_OK) die("prove failed", error);
  const long peak_kib = status_kib("VmHWM");
  if (argc == 5) {
    write_file(argv[4], "proof.json", proof, proof_size);
    write_file(argv[4], "public.json", pub, public_size);
  }
  printf("mode=%s zkey_kib=%llu loaded_kib=%ld peak_kib=%ld added_kib=%ld\n", mode, zkey_size / 1024, loaded_kib,
         peak_kib, peak_kib - loaded_kib);
  free(proof);
  free(pub);
  free(zkey);
  free(wtns);
  return 0;
}
