#!/usr/bin/python3
"""Turn a `proofpipe run --metrics FILE.jsonl` file into a PNG timeline.

Four panels over run time (seconds): one row per partition (waiting,
synthesis, waiting for a prover, proving, from the grant/seal/claim/commit
events; each grant after the first is a new attempt, marked with its
number), memory per process and in total (the per-sample peak, which
includes spikes between samples, and the resident set), ring occupancy by
slot state with the proving workers' activity over it (a slot is released
right after the prover's intake, so the slots alone hide the proving), and
proofs completed; restarts and deaths are marked with vertical lines. The
title gives the wall time and s/proof. Schema: docs/metrics.md.

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
from matplotlib.ticker import MaxNLocator  # noqa: E402

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


PHASES = [("waiting", "#cccccc"), ("synthesis", "#e69f00"), ("prover wait", "#56b4e9"), ("proving", "#009e73")]


def partition_rows(recs):
    """Per partition: its phases as (start, length, phase) and its grant times."""
    parts = {}
    for r in recs:
        p = r.get("partition", -1)
        if p < 0 or r["event"] not in ("grant", "seal", "claim", "commit"):
            continue
        e = parts.setdefault(p, {"grants": [], "seal": None, "claim": None, "commit": None})
        if r["event"] == "grant":
            e["grants"].append(r["t"])
            e["seal"] = e["claim"] = None  # a new attempt
        else:
            e[r["event"]] = r["t"]
    end = recs[-1]["t"]
    rows = {}
    for p, e in parts.items():
        if not e["grants"]:
            continue
        grant = e["grants"][-1]
        seal, claim, commit = e["seal"], e["claim"], e["commit"]
        stops = [(0.0, grant, "waiting"), (grant, seal or commit or end, "synthesis")]
        if seal is not None:
            stops.append((seal, claim or commit or end, "prover wait"))
        if claim is not None:
            stops.append((claim, commit or end, "proving"))
        rows[p] = ([(a, max(0.0, b - a), name) for a, b, name in stops], e["grants"])
    return rows


def provers_busy(recs):
    """Proving workers at work (claim to commit) over time, from the events."""
    xs, ys, busy, holding = [], [], 0, set()
    for r in recs:
        p = r.get("partition", -1)
        if r["event"] == "claim" and p not in holding:
            holding.add(p)
            busy += 1
        elif r["event"] in ("commit", "grant") and p in holding:
            holding.discard(p)
            busy -= 1
        xs.append(r["t"])
        ys.append(busy)
    return xs, ys


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

    rows = partition_rows(recs)
    fig, (ax_part, ax_mem, ax_ring, ax_done) = plt.subplots(
        4, 1, figsize=(12, 12), sharex=True, gridspec_kw={"height_ratios": [max(2, 0.35 * len(rows)), 3, 2, 1.4]})
    seen = set()
    for p, (phases, grants) in sorted(rows.items()):
        for start, length, name in phases:
            colour = dict(PHASES)[name]
            ax_part.barh(p, length, left=start, height=0.7, color=colour,
                         label=None if name in seen else name)
            seen.add(name)
        for n, g in enumerate(grants[1:], 2):  # each later grant is attempt n
            ax_part.plot([g, g], [p - 0.4, p + 0.4], color="red", linewidth=1.5)
            ax_part.annotate(f"#{n}", (g, p + 0.35), fontsize=7, color="red")
    ax_part.set_ylabel("partition")
    ax_part.invert_yaxis()
    ax_part.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax_part.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), title="phase (red: attempt n)",
                   title_fontsize=7)
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
    ax_mem.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    wall, done = recs[-1]["t"], recs[-1]["done"]
    per = f"{wall / done:.2f} s/proof" if done else "no proof"
    ax_part.set_title(args.title or f"proofpipe run: {done}/{recs[-1]['partitions']} proofs in {wall:.1f} s "
                      f"({per}), {recs[0]['slot_count']} slots")

    bottom = [0] * len(recs)
    for state in STATES:
        vals = [r["slots"][state] for r in recs]
        ax_ring.fill_between(t, bottom, [b + v for b, v in zip(bottom, vals)], step="post", color=COLOURS[state],
                             label=state, linewidth=0)
        bottom = [b + v for b, v in zip(bottom, vals)]
    bx, by = provers_busy(recs)
    ax_ring.step(bx, by, where="post", color="black", linewidth=2, label="provers proving")
    ax_ring.set_ylabel("slots / provers")
    ax_ring.set_ylim(0, max(recs[0]["slot_count"], max(by, default=0)) + 0.2)
    ax_ring.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax_ring.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))

    ax_done.step(t, [r["done"] for r in recs], where="post", color="#0072b2", label="proofs committed")
    ax_done.step(t, [r["failed"] for r in recs], where="post", color="#d55e00", label="failed")
    ax_done.set_ylabel("partitions")
    ax_done.set_xlabel("seconds since start")
    ax_done.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax_done.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))

    for r in recs:
        if r["event"] in ("death", "restart"):
            for ax in (ax_part, ax_mem, ax_ring, ax_done):
                ax.axvline(r["t"], color="red" if r["event"] == "death" else "orange", linewidth=0.8, alpha=0.7)
    fig.tight_layout()
    fig.savefig(args.png, dpi=100)
    print(f"plot_timeline: wrote {args.png} ({len(recs)} records)")


if __name__ == "__main__":
    main()
