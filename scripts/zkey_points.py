#!/usr/bin/env python3
"""Per point section of a snarkjs .zkey: points, identity points, and the
device memory the CUDA backend holds for it whole and without its identity
points (cuda/include/proofpipe/cuda/key_compaction.hpp: a section is stored
without them when they save at least twice the 4-byte index of the rest).

Usage: scripts/zkey_points.py circuit.zkey
Pure Python (about 1 s per million points): for docs/gpu.md's table.
"""
import mmap
import struct
import sys

# zkey sections holding points (docs/design/formats.md §2.3): id -> (name, G2?)
SECTIONS = {5: ("A", False), 6: ("B1", False), 7: ("B2", True), 8: ("C", False), 9: ("H", False)}


def worth_compacting(n, present, point_bytes):
    # The same rule as key_compaction.hpp's worth_compacting.
    return present < n and (n - present) * point_bytes >= 2 * 4 * present


def main(path):
    with open(path, "rb") as f:
        m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    if m[:4] != b"zkey":
        sys.exit(f"{path}: not a zkey file")
    (nsec,) = struct.unpack_from("<I", m, 8)
    off, secs = 12, {}
    for _ in range(nsec):
        sid, size = struct.unpack_from("<IQ", m, off)
        secs[sid] = (off + 12, size)
        off += 12 + size
    # Groth16 header (section 2): n8q then q, n8r then r.
    (n8q,) = struct.unpack_from("<I", m, secs[2][0])
    mib = 1 << 20
    total_whole = total_device = 0
    print(f"{'section':8} {'points':>12} {'identity':>12} {'share':>7} {'whole MiB':>10} {'device MiB':>11}")
    for sid, (name, g2) in SECTIONS.items():
        start, size = secs[sid]
        p = 4 * n8q if g2 else 2 * n8q
        n = size // p
        zero = bytes(p)
        identity = sum(1 for i in range(n) if m[start + i * p:start + (i + 1) * p] == zero)
        present = n - identity
        whole = n * p
        device = present * (p + 4) if worth_compacting(n, present, p) else whole
        total_whole += whole
        total_device += device
        share = 100.0 * identity / n if n else 0.0
        print(f"{name:8} {n:12d} {identity:12d} {share:6.1f}% {whole / mib:10.1f} {device / mib:11.1f}")
    print(f"{'all':8} {'':12} {'':12} {'':7} {total_whole / mib:10.1f} {total_device / mib:11.1f}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
