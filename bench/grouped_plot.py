#!/usr/bin/env python3
"""Time against group count for the grouped sweep (bench/run_bench.py
--suites grouped): per layer shape, DLAS, oneDNN and PyTorch, and the
MAC-proportional line time(S)/g from DLAS's standard (g = 1) layer, the
thesis's expected behaviour (GSPC's target: at most 1.2x that line up to
g = 16). Also prints, per case, DLAS's time over the line.

    /usr/bin/python3 bench/grouped_plot.py bench/results/<tag>-grouped.csv [--threads 1]
"""
import argparse
import csv
import os
import re
from collections import defaultdict


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("csv")
    parser.add_argument("--threads", default="1")
    parser.add_argument("--out", default=None, help="PNG (default: <csv>-vs-g.png)")
    args = parser.parse_args()
    layers = defaultdict(dict)
    with open(args.csv) as f:
        for row in csv.DictReader(f):
            if row["threads"] != args.threads or row["suite"] != "grouped":
                continue
            m = re.match(r"(.*)_g(\d+|C)$", row["case"])
            if not m or m.group(2) == "C":
                continue
            layers[m.group(1)][int(m.group(2))] = row
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    names = sorted(layers)
    cols = 3
    rows = (len(names) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.2 * rows), squeeze=False)
    print(f"{'layer':<18} {'g':>3} {'DLAS ms':>8} {'S/g ms':>8} {'ratio':>6}")
    for ax, name in zip(axes.flat, names):
        cases = layers[name]
        gs = sorted(cases)
        if 1 not in cases:
            continue
        standard = float(cases[1]["dlas_ms"])
        for key, label, style in [("dlas_ms", "DLAS", "o-"), ("onednn_ms", "oneDNN", "s--"),
                                  ("torch_ms", "PyTorch", "^:")]:
            ax.plot(gs, [float(cases[g][key]) for g in gs], style, label=label)
        ax.plot(gs, [standard / g for g in gs], "k-", alpha=0.4, label="time(S)/g")
        ax.plot(gs, [1.2 * standard / g for g in gs], "k:", alpha=0.4, label="1.2 time(S)/g")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title(name)
        ax.set_xlabel("groups")
        ax.set_ylabel("ms")
        for g in gs:
            d = float(cases[g]["dlas_ms"])
            print(f"{name:<18} {g:>3} {d:8.3f} {standard / g:8.3f} {d / (standard / g):6.2f}")
    for ax in axes.flat[len(names):]:
        ax.axis("off")
    axes.flat[0].legend(fontsize=7)
    fig.tight_layout()
    out = args.out or os.path.splitext(args.csv)[0] + "-vs-g.png"
    fig.savefig(out, dpi=110)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
