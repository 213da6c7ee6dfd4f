// Valid inputs for the circuits of scripts/bench_circuits.sh, the same on
// every run (fixed keys and messages), so the witness and its cache key do
// not change between runs.
//
//   node inputs.js <npm-dir> <circuit> <out.json>
//
// <npm-dir> holds the pinned packages of bench/circuits/package.json
// (circomlibjs for the Poseidon hashes and the EdDSA-Poseidon signature).
"use strict";
const fs = require("fs");
const path = require("path");
const { createRequire } = require("module");

const [npmDir, circuit, out] = process.argv.slice(2);
if (!npmDir || !circuit || !out) {
    console.error("usage: node inputs.js <npm-dir> <circuit> <out.json>");
    process.exit(2);
}
const req = createRequire(path.resolve(npmDir) + "/");

// A deterministic stream of bytes (SHA-256 in counter mode over a label).
function bytes(label, n) {
    const crypto = require("crypto");
    const outb = Buffer.alloc(n);
    for (let off = 0, ctr = 0; off < n; ctr++) {
        const h = crypto.createHash("sha256").update(`${label}/${ctr}`).digest();
        off += h.copy(outb, off);
    }
    return outb;
}

async function sha256_64() {
    // 64 bytes, most significant bit of each byte first (circomlib's Sha256 order).
    const msg = bytes("sha256-preimage", 64);
    const bits = [];
    for (const b of msg) for (let i = 7; i >= 0; i--) bits.push(String((b >> i) & 1));
    return { in: bits };
}

async function merkle_eddsa() {
    const { buildEddsa, buildPoseidon } = req("circomlibjs");
    const eddsa = await buildEddsa();
    const poseidon = await buildPoseidon();
    const F = poseidon.F;
    const DEPTH = 20;
    const prv = bytes("eddsa-private-key", 32);
    const A = eddsa.prv2pub(prv);
    const M = F.e(BigInt("0x" + bytes("message", 31).toString("hex")));
    const sig = eddsa.signPoseidon(prv, M);
    if (!eddsa.verifyPoseidon(M, sig, A)) throw new Error("circomlibjs: the signature does not verify");
    // The leaf at index 0x5a5a5 of a tree whose other nodes are pseudo-random.
    const index = 0x5a5a5;
    const pathIndices = [], siblings = [];
    let node = poseidon([A[0], A[1]]);
    for (let i = 0; i < DEPTH; i++) {
        const bit = (index >> i) & 1;
        const sib = F.e(BigInt("0x" + bytes(`sibling-${i}`, 31).toString("hex")));
        pathIndices.push(String(bit));
        siblings.push(F.toObject(sib).toString());
        node = bit ? poseidon([sib, node]) : poseidon([node, sib]);
    }
    const s = (x) => F.toObject(x).toString();
    return {
        root: s(node), M: s(M),
        Ax: s(A[0]), Ay: s(A[1]),
        R8x: s(sig.R8[0]), R8y: s(sig.R8[1]), S: sig.S.toString(),
        pathIndices, siblings,
    };
}

async function semaphore20() {
    // Semaphore v4: the secret scalar must be below the Baby Jubjub subgroup
    // order; the root and the nullifier are the circuit's outputs.
    const l = 2736030358979909402780800718157159386076813972158567259200215660948447373041n;
    const r = 21888242871839275222246405745257275088548364400416034343698204186575808495617n;
    const fe = (label) => (BigInt("0x" + bytes(label, 32).toString("hex")) % r).toString();
    const secret = (BigInt("0x" + bytes("semaphore-secret", 32).toString("hex")) % l).toString();
    const siblings = [];
    for (let i = 0; i < 20; i++) siblings.push(fe(`semaphore-sibling-${i}`));
    return {
        secret,
        merkleProofLength: "20",
        merkleProofIndex: String(0x3c3c3),
        merkleProofSiblings: siblings,
        message: fe("semaphore-message"),
        scope: fe("semaphore-scope"),
    };
}

const makers = { sha256_64, merkle_eddsa, semaphore20 };
(async () => {
    const make = makers[circuit];
    if (!make) throw new Error(`no inputs for circuit '${circuit}' (known: ${Object.keys(makers).join(", ")})`);
    fs.writeFileSync(out, JSON.stringify(await make()) + "\n");
    process.exit(0);   // circomlibjs leaves worker threads behind
})().catch((e) => { console.error(`inputs.js: ${e.message}`); process.exit(1); });
