pragma circom 2.1.5;
// A signed message from a registered key: the signer's public key
// (Baby Jubjub, hashed with Poseidon) is a leaf of a depth-20 binary
// Poseidon Merkle tree with a public root, and (R8, S) is its EdDSA-Poseidon
// signature of the public message M. Templates from the pinned circomlib
// (bench/circuits/package.json); compiled by scripts/bench_circuits.sh.
include "node_modules/circomlib/circuits/poseidon.circom";
include "node_modules/circomlib/circuits/switcher.circom";
include "node_modules/circomlib/circuits/bitify.circom";
include "node_modules/circomlib/circuits/eddsaposeidon.circom";

template PoseidonMerkleProof(DEPTH) {
    signal input leaf;
    signal input pathIndices[DEPTH];   // 0: the node is the left child, 1: the right one
    signal input siblings[DEPTH];
    signal output root;

    component sw[DEPTH];
    component h[DEPTH];
    signal node[DEPTH + 1];
    node[0] <== leaf;
    for (var i = 0; i < DEPTH; i++) {
        pathIndices[i] * (1 - pathIndices[i]) === 0;
        sw[i] = Switcher();
        sw[i].sel <== pathIndices[i];
        sw[i].L <== node[i];
        sw[i].R <== siblings[i];
        h[i] = Poseidon(2);
        h[i].inputs[0] <== sw[i].outL;
        h[i].inputs[1] <== sw[i].outR;
        node[i + 1] <== h[i].out;
    }
    root <== node[DEPTH];
}

template SignedByMember(DEPTH) {
    signal input root;                 // public
    signal input M;                    // public
    signal input Ax;
    signal input Ay;
    signal input R8x;
    signal input R8y;
    signal input S;
    signal input pathIndices[DEPTH];
    signal input siblings[DEPTH];

    component leaf = Poseidon(2);
    leaf.inputs[0] <== Ax;
    leaf.inputs[1] <== Ay;

    component mp = PoseidonMerkleProof(DEPTH);
    mp.leaf <== leaf.out;
    for (var i = 0; i < DEPTH; i++) {
        mp.pathIndices[i] <== pathIndices[i];
        mp.siblings[i] <== siblings[i];
    }
    mp.root === root;

    component sig = EdDSAPoseidonVerifier();
    sig.enabled <== 1;
    sig.Ax <== Ax;
    sig.Ay <== Ay;
    sig.R8x <== R8x;
    sig.R8y <== R8y;
    sig.S <== S;
    sig.M <== M;
}

component main {public [root, M]} = SignedByMember(20);
