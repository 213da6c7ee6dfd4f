#!/usr/bin/env python3
"""Summarises Google Benchmark JSON files from scripts/bench_core.sh.

Prints one table: benchmark, real time, and derived figures:
  - G1/G2 MSM: microseconds per point per core (time * cores / n), n from the
    benchmark's last argument;
  - NTT: ratio to the Fr-multiplication floor (n/2 * log2 n multiplies at the
    measured fr_mul time, divided by the cores).
"""
import json
import math
import os
import sys


def load(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [b for b in json.load(f)["benchmarks"] if b.get("run_type", "iteration") == "iteration"]


def ns(b):
    scale = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[b["time_unit"]]
    return b["real_time"] * scale


def size_of(name):
    parts = [p for p in name.split("/") if p not in ("real_time", "process_time")]
    last = parts[-1]
    if last.isdigit():
        v = int(last)
        # Benchmarks take either n or log2 n as the argument.
        return v if v > 64 else 1 << v
    return None


def main():
    out, cores = sys.argv[1], int(sys.argv[2])
    rows = []
    fr_mul = None
    for b in load(os.path.join(out, "field.json")):
        per_item = ns(b) / (b.get("items_per_second", 0) and 1 or 1)
        if "items_per_second" in b:
            per_item = 1e9 / b["items_per_second"]
        if b["name"] == "fr_mul":
            fr_mul = per_item  # throughput (8 independent chains), as in an NTT butterfly stream
        rows.append((b["name"], f"{per_item:.1f} ns/op", ""))
    for b in load(os.path.join(out, "ntt.json")):
        if b["name"] == "fr_mul":
            continue  # the field benchmark's figure is the reference
        n = size_of(b["name"])
        extra = ""
        if n and fr_mul and b["name"].startswith(("ntt/", "intt/", "coset_ntt/")):
            floor = n / 2 * math.log2(n) * fr_mul / cores
            extra = f"{ns(b) / floor:.2f}x floor"
        rows.append((b["name"], f"{ns(b) / 1e6:.3f} ms", extra))
    for b in load(os.path.join(out, "msm.json")):
        n = size_of(b["name"])
        extra = ""
        if n and "_msm/" in b["name"]:
            extra = f"{ns(b) / 1e3 * cores / n:.2f} us/point/core"
        rows.append((b["name"], f"{ns(b) / 1e6:.3f} ms", extra))
    for b in load(os.path.join(out, "pairing.json")):
        rows.append((b["name"], f"{ns(b) / 1e6:.3f} ms", ""))
    w = max(len(r[0]) for r in rows) if rows else 10
    print(f"{'benchmark':<{w}}  {'time':>16}  derived")
    for name, t, extra in rows:
        print(f"{name:<{w}}  {t:>16}  {extra}")


if __name__ == "__main__":
    main()
