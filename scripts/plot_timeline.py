#!/usr/bin/python3
"""Turn a `proofpipe run --metrics FILE.jsonl` file into a PNG timeline.

Three panels over run time (seconds): memory per process and in total (the
per-sample peak, which includes spikes between samples, and the resident
set), ring occupancy by slot state, and proofs completed; restarts and
deaths are marked with vertical lines. Schema: docs/metrics.md.

Usage: scripts/plot_timeline.py metrics.jsonl timeline.png [--title TEXT]
Needs Debian's python3-matplotlib (scripts/setup.sh installs it); run it
with /usr/bin/python3.
"""
import argparse
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

STATES = ["writing", "ready", "consuming", "quarantined", "free"]
COLOURS = {"writing": "#e69f00", "ready": "#56b4e9", "consuming": "#009e73", "quarantined": "#d55e00",
           "free": "#dddddd"}
MIB = 1 << 20


def load(path):
    recs = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                recs.append(json.loads(line))
            except json.JSONDecodeError as e:
                sys.exit(f"plot_timeline: {path}:{n}: not JSON: {e}")
    if not recs:
        sys.exit(f"plot_timeline: {path}: no records")
    return recs


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("metrics")
    ap.add_argument("png")
    ap.add_argument("--title", default="")
    args = ap.parse_args()
    recs = load(args.metrics)
    t = [r["t"] for r in recs]

    names = []
    for r in recs:
        for p in r["processes"]:
            if p["worker"] not in names:
                names.append(p["worker"])

    fig, (ax_mem, ax_ring, ax_done) = plt.subplots(3, 1, figsize=(11, 9), sharex=True,
                                                  gridspec_kw={"height_ratios": [3, 2, 1.4]})
    for name in names:
        xs, peaks = [], []
        for r in recs:
            for p in r["processes"]:
                if p["worker"] == name:
                    xs.append(r["t"])
                    peaks.append(max(p["peak"], p.get("cgroup_peak", 0)) / MIB)
        ax_mem.step(xs, peaks, where="post", linewidth=1, label=f"{name} peak")
    ax_mem.step(t, [r["total_peak"] / MIB for r in recs], where="post", color="black", linewidth=2,
                label="total (sum of peaks)")
    ax_mem.step(t, [r["total_rss"] / MIB for r in recs], where="post", color="grey", linestyle="--", linewidth=1,
                label="total resident")
    ax_mem.axhline(recs[0]["ring_bytes"] / MIB, color="purple", linestyle=":", linewidth=1, label="ring size")
    ax_mem.set_ylabel("MiB")
    ax_mem.legend(fontsize=7, ncol=3, loc="upper left")
    ax_mem.set_title(args.title or f"proofpipe run: {recs[-1]['done']}/{recs[-1]['partitions']} proofs, "
                     f"{recs[0]['slot_count']} slots")

    bottom = [0] * len(recs)
    for state in STATES:
        vals = [r["slots"][state] for r in recs]
        ax_ring.fill_between(t, bottom, [b + v for b, v in zip(bottom, vals)], step="post", color=COLOURS[state],
                             label=state, linewidth=0)
        bottom = [b + v for b, v in zip(bottom, vals)]
    ax_ring.set_ylabel("slots")
    ax_ring.set_ylim(0, recs[0]["slot_count"])
    ax_ring.legend(fontsize=7, ncol=5, loc="upper left")

    ax_done.step(t, [r["done"] for r in recs], where="post", color="#0072b2", label="proofs committed")
    ax_done.step(t, [r["failed"] for r in recs], where="post", color="#d55e00", label="failed")
    ax_done.set_ylabel("partitions")
    ax_done.set_xlabel("seconds since start")
    ax_done.legend(fontsize=7, loc="upper left")

    for r in recs:
        if r["event"] in ("death", "restart"):
            for ax in (ax_mem, ax_ring, ax_done):
                ax.axvline(r["t"], color="red" if r["event"] == "death" else "orange", linewidth=0.8, alpha=0.7)
    fig.tight_layout()
    fig.savefig(args.png, dpi=100)
    print(f"plot_timeline: wrote {args.png} ({len(recs)} records)")


if __name__ == "__main__":
    main()
