#!/usr/bin/env python3
"""libproofpipe through ctypes, as a language binding loads it: the
library by path, the rapidsnark prototypes declared by hand, bytes in and
JSON text out. For each bundled curve: a proof that snarkjs verifies, the
short-buffer protocol (code 2 and the sizes needed), a witness of the wrong
length (code 3), a bad zkey (code 1 and its message), no proof returned
for a corrupt key or an unsatisfied witness (code 1), and one prover object
proving from 4 Python threads at once (ctypes drops the GIL for the call),
every proof verified.

    ctypes_test.py <libproofpipe.so> <tests/data> <snarkjs cli.cjs>
"""
import ctypes
import json
import os
import subprocess
import sys
import tempfile
import threading
from ctypes import POINTER, byref, c_char_p, c_int, c_ulong, c_ulonglong, c_void_p, create_string_buffer

PROVER_OK, PROVER_ERROR, PROVER_ERROR_SHORT_BUFFER, PROVER_INVALID_WITNESS_LENGTH = 0, 1, 2, 3
VERIFIER_VALID_PROOF, VERIFIER_INVALID_PROOF, VERIFIER_ERROR = 0, 1, 2
ERR = 1024


def load(path):
    lib = ctypes.CDLL(path)
    ull, pull = c_ulonglong, POINTER(c_ulonglong)
    lib.groth16_proof_size.argtypes = [pull]
    lib.groth16_proof_size.restype = None
    lib.groth16_public_size_for_zkey_buf.argtypes = [c_void_p, ull, pull, c_char_p, ull]
    lib.groth16_prover_create.argtypes = [POINTER(c_void_p), c_void_p, ull, c_char_p, ull]
    lib.groth16_prover_create_zkey_file.argtypes = [POINTER(c_void_p), c_char_p, c_char_p, ull]
    lib.groth16_prover_prove.argtypes = [c_void_p, c_void_p, ull, c_char_p, pull, c_char_p, pull, c_char_p, ull]
    lib.groth16_prover_destroy.argtypes = [c_void_p]
    lib.groth16_prover_destroy.restype = None
    lib.groth16_prover.argtypes = [c_void_p, ull, c_void_p, ull, c_char_p, pull, c_char_p, pull, c_char_p, ull]
    lib.groth16_verify.argtypes = [c_char_p, c_char_p, c_char_p, c_char_p, c_ulong]
    for name in ("groth16_public_size_for_zkey_buf", "groth16_prover_create", "groth16_prover_create_zkey_file",
                 "groth16_prover_prove", "groth16_prover", "groth16_verify"):
        getattr(lib, name).restype = c_int
    return lib


def section(data, wanted):
    """(offset, size) of section `wanted` of an iden3 binfile (zkey, wtns)."""
    off, count = 12, int.from_bytes(data[8:12], "little")
    for _ in range(count):
        kind, size = int.from_bytes(data[off:off + 4], "little"), int.from_bytes(data[off + 4:off + 12], "little")
        if kind == wanted:
            return off + 12, size
        off += 12 + size
    raise SystemExit(f"ctypes_test: no section {wanted}")


def check(cond, what):
    if not cond:
        raise SystemExit(f"ctypes_test: FAILED: {what}")


class Prover:
    """One prover object over a zkey held in Python memory."""

    def __init__(self, lib, zkey):
        self.lib = lib
        self.obj = c_void_p()
        err = create_string_buffer(ERR)
        rc = lib.groth16_prover_create(byref(self.obj), zkey, len(zkey), err, ERR)
        check(rc == PROVER_OK, f"groth16_prover_create: {err.value.decode()}")

    def prove(self, wtns, proof_cap, public_cap):
        """(code, proof, public, proof_size, public_size, message)"""
        proof, pub, err = create_string_buffer(max(proof_cap, 1)), create_string_buffer(max(public_cap, 1)), \
            create_string_buffer(ERR)
        psize, usize = c_ulonglong(proof_cap), c_ulonglong(public_cap)
        rc = self.lib.groth16_prover_prove(self.obj, wtns, len(wtns), proof, byref(psize), pub, byref(usize), err, ERR)
        return rc, proof.value.decode(), pub.value.decode(), psize.value, usize.value, err.value.decode()

    def close(self):
        self.lib.groth16_prover_destroy(self.obj)


def verify(lib, proof, public, vkey):
    err = create_string_buffer(ERR)
    rc = lib.groth16_verify(proof.encode(), public.encode(), vkey.encode(), err, ERR)
    return rc, err.value.decode()


def run_curve(lib, data, circuit, wrong_circuit, snarkjs, tmp):
    read = lambda p: open(os.path.join(data, p), "rb").read()
    zkey, vkey = read(f"{circuit}/circuit.zkey"), read(f"{circuit}/verification_key.json").decode()
    witnesses = [read(f"{circuit}/w{i:02d}.wtns") for i in range(4)]
    proof_cap, public_cap = c_ulonglong(), c_ulonglong()
    lib.groth16_proof_size(byref(proof_cap))
    err = create_string_buffer(ERR)
    rc = lib.groth16_public_size_for_zkey_buf(zkey, len(zkey), byref(public_cap), err, ERR)
    check(rc == PROVER_OK, f"public size: {err.value.decode()}")
    prover = Prover(lib, zkey)

    # A proof snarkjs verifies, with the public signals snarkjs gives for w00.
    rc, proof, public, psize, usize, msg = prover.prove(witnesses[0], proof_cap.value, public_cap.value)
    check(rc == PROVER_OK, f"prove: {msg}")
    check(psize == len(proof) and usize == len(public), "sizes on success are the text lengths")
    check(public == read(f"{circuit}/snarkjs_public.json").decode(), "public.json is not snarkjs's, byte for byte")
    check(json.loads(proof)["curve"] == json.loads(vkey)["curve"], "proof names the key's curve")
    for name, text in (("proof.json", proof), ("public.json", public)):
        with open(os.path.join(tmp, name), "w") as f:
            f.write(text)
    out = subprocess.run(["node", snarkjs, "groth16", "verify", os.path.join(data, circuit, "verification_key.json"),
                          os.path.join(tmp, "public.json"), os.path.join(tmp, "proof.json")],
                         capture_output=True, text=True)
    check(out.returncode == 0 and "OK!" in out.stdout, f"snarkjs verify: {out.stdout}{out.stderr}")

    # Untrusted JSON nested 100,000 deep (200 KB) in the proof, the public
    # signals or the key: the error code and one line, never a crash.
    deep = "[" * 100000 + "]" * 100000
    deep_obj = '{"protocol": "groth16", "curve": "%s", "pi_a": %s, "IC": %s}' % (json.loads(vkey)["curve"], deep, deep)
    for args in ((deep_obj, public, vkey), (proof, deep, vkey), (proof, public, deep_obj)):
        vrc, vmsg = verify(lib, *args)
        check(vrc == VERIFIER_ERROR and "nested deeper than 64" in vmsg and "\n" not in vmsg,
              f"deep JSON gave {vrc}: {vmsg}")

    # Short buffers: code 2 and the sizes needed (NUL included). A proof's
    # length varies with its random r and s, so only public.json's need is
    # exact for the next call; the limits always suffice.
    rc, _, _, need_p, need_u, msg = prover.prove(witnesses[1], 0, 3)
    check(rc == PROVER_ERROR_SHORT_BUFFER, f"short buffers gave {rc}: {msg}")
    check(0 < need_p <= proof_cap.value and 3 < need_u <= public_cap.value, "needed sizes in range")
    rc, _, public, _, usize, msg = prover.prove(witnesses[1], proof_cap.value, need_u)
    check(rc == PROVER_OK and usize + 1 == need_u, f"the public size asked for did not fit: {rc} {msg}")
    check(len(public) == usize, "public size is its text length")
    for _ in range(4):
        rc, proof, _, psize, _, msg = prover.prove(witnesses[1], proof_cap.value, public_cap.value)
        check(rc == PROVER_OK and psize == len(proof) < proof_cap.value, f"proof within groth16_proof_size: {msg}")

    # A witness of the wrong length: code 3.
    rc, _, _, _, _, msg = prover.prove(read(f"{wrong_circuit}/w00.wtns"), proof_cap.value, public_cap.value)
    check(rc == PROVER_INVALID_WITNESS_LENGTH and "nVars" in msg, f"wrong-length witness gave {rc}: {msg}")

    # A bad zkey: code 1 and its message; no object.
    bad, err = c_void_p(), create_string_buffer(ERR)
    broken = bytearray(zkey)
    broken[0:4] = b"zkez"
    rc = lib.groth16_prover_create(byref(bad), bytes(broken), len(broken), err, ERR)
    check(rc == PROVER_ERROR and bad.value is None and "zkey" in err.value.decode(), f"bad zkey gave {rc}")
    rc = lib.groth16_prover_create_zkey_file(byref(bad), os.path.join(tmp, "missing.zkey").encode(), err, ERR)
    check(rc == PROVER_ERROR and "no such file" in err.value.decode(), f"missing zkey: {err.value.decode()}")

    # A proof that does not verify is never returned: code 1 naming the
    # cause, a key point off its curve or else the witness.
    g1 = 96 if json.loads(vkey)["curve"] == "bls12381" else 64
    bad_key = bytearray(zkey)
    h_off, _ = section(bad_key, 9)
    bad_key[h_off + 3 * g1 + g1 // 2] ^= 1  # H point 3's y: off the curve, still below q
    bad_prover = Prover(lib, bytes(bad_key))
    rc, proof, _, _, _, msg = bad_prover.prove(witnesses[0], proof_cap.value, public_cap.value)
    check(rc == PROVER_ERROR and proof == "" and "section 9 (H) point 3 is not on the curve" in msg,
          f"corrupt key: {rc} {msg}")
    bad_prover.close()
    bad_w = bytearray(witnesses[0])
    w_off, _ = section(bad_w, 2)
    bad_w[w_off + 6 * 32] ^= 1  # the first private input: a constraint no longer holds
    rc, proof, _, _, _, msg = prover.prove(bytes(bad_w), proof_cap.value, public_cap.value)
    check(rc == PROVER_ERROR and proof == "" and "does not satisfy the circuit's constraints" in msg,
          f"unsatisfied witness: {rc} {msg}")

    # Four threads, one object, each proof verified.
    failures = []

    def work(w):
        for _ in range(2):
            rc, proof, public, _, _, msg = prover.prove(w, proof_cap.value, public_cap.value)
            vrc, vmsg = verify(lib, proof, public, vkey) if rc == PROVER_OK else (None, msg)
            if vrc != VERIFIER_VALID_PROOF:
                failures.append(f"{rc} {vrc} {vmsg}")

    threads = [threading.Thread(target=work, args=(w,)) for w in witnesses]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    check(not failures, f"threaded proofs: {failures}")
    prover.close()
    print(f"{circuit}: snarkjs OK, code 2 / 3 / 1 as expected, 4 threads x 2 proofs verified")


def main():
    lib_path, data, snarkjs = sys.argv[1:4]
    lib = load(lib_path)
    with tempfile.TemporaryDirectory() as tmp:
        run_curve(lib, data, "multi_io", "sparse_dense", snarkjs, tmp)
        run_curve(lib, data, "multi_io_bn128", "sparse_dense_bn128", snarkjs, tmp)
    print("ctypes_test: all checks passed")


if __name__ == "__main__":
    main()
