pragma circom 2.1.5;
// Semaphore v4's circuit as published on npm (@semaphore-protocol/circuits,
// pinned in bench/circuits/package.json), at tree depth 20, with the public
// inputs of its own main. Its includes are bare names: compiled with
// -l node_modules/circomlib/circuits -l node_modules/@zk-kit/binary-merkle-root.circom/src.
include "node_modules/@semaphore-protocol/circuits/src/semaphore.circom";

component main {public [message, scope]} = Semaphore(20);
