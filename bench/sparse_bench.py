#!/usr/bin/python3
"""Sparse suite: DLAS's sparse kernels against dense DLAS, oneDNN and
torch.sparse, over weight density; and the calibration of dlas-sparsify.

For each layer (ResNet-50's and VGG-16's convolutions, linear layers
1024x1024 and 4096x9216) this times, at every thread count, back to back:

* DLAS dense: `nn.conv2d`/`nn.linear` with a constant weight through the
  CPU pipeline with `sparsify=never`;
* oneDNN dense (bench/peers, as `make bench` builds it) for convolutions;
* DLAS sparse: the weight magnitude-free random-pruned to each density
  (CSR: each element kept with probability d; block-CSR 4x1: each 4 x 1
  block kept with probability d), `sparse.pack` + `sparse.conv2d` /
  `sparse.linear`;
* torch.sparse (a CSR weight times the dense input) for linear layers.

The break-even density of a layer and format is where the sparse time
crosses the dense DLAS time (linear interpolation between the measured
densities; "<" or ">" when it does not cross in the range); a second
column gives the crossing of oneDNN's dense time, the baseline of
TIRAMISU's 43.5% (MKL-DNN's direct convolution; DLAS's dense 3x3 stride-1
layers of 64+ channels run Winograd, which does 4x fewer multiplies). Every DLAS
sparse run is checked against PyTorch (dlas-run --expect).

--calibrate FILE writes the break-even per layer kind (`conv` for 3x3 and
larger kernels, `conv1x1`, `linear`) and block height (1: CSR, 4) as the
median over the kind's layers at 1 thread, under the target's key
(`avx2`/`avx512`) of dlas-sparsify's calibration table; other keys of the
file are kept. Depthwise layers are not measured: their kind has no entry,
so dlas-sparsify keeps them dense.

    bench/sparse_bench.py --target x86-64-v4 --threads 1,2 --tag 2026-11-25-sparse \\
        --calibrate lib/Dialect/Sparse/Transforms/Calibration.json
"""
import argparse
import csv
import datetime
import json
import os
import re
import statistics
import subprocess
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(__file__))
from run_bench import (host_description, peer_isa_env, run_peers,  # noqa: E402
                       set_blas_threads, target_vector_bits)

CSR = "#sparse_tensor.encoding<{map = (d0, d1) -> (d0 : dense, d1 : compressed)}>"
BSR4 = ("#sparse_tensor.encoding<{map = (d0, d1) -> (d0 floordiv 4 : dense, "
        "d1 : compressed, d0 mod 4 : dense)}>")
FORMATS = {"csr": (1, CSR), "bsr4": (4, BSR4)}

# (name, C, F, K, stride, H): ResNet-50's 3x3 layers and some 1x1 and the
# stem; VGG-16's distinct 3x3 layers.
CONVS = [
    ("r50_conv1", 3, 64, 7, 2, 224),
    ("r50_l1_3x3_64", 64, 64, 3, 1, 56),
    ("r50_l2_3x3_128_s2", 128, 128, 3, 2, 56),
    ("r50_l2_3x3_128", 128, 128, 3, 1, 28),
    ("r50_l3_3x3_256", 256, 256, 3, 1, 14),
    ("r50_l4_3x3_512", 512, 512, 3, 1, 7),
    ("r50_l1_1x1_64_256", 64, 256, 1, 1, 56),
    ("r50_l2_1x1_512_128", 512, 128, 1, 1, 28),
    ("r50_l3_1x1_1024_256", 1024, 256, 1, 1, 14),
    ("r50_l4_1x1_512_2048", 512, 2048, 1, 1, 7),
    ("vgg16_conv1_2", 64, 64, 3, 1, 224),
    ("vgg16_conv2_2", 128, 128, 3, 1, 112),
    ("vgg16_conv3_2", 256, 256, 3, 1, 56),
    ("vgg16_conv4_2", 512, 512, 3, 1, 28),
    ("vgg16_conv5_2", 512, 512, 3, 1, 14),
]
# (name, batch, in, out)
LINEARS = [("linear_1024", 1, 1024, 1024), ("linear_1024_b16", 16, 1024, 1024),
           ("linear_9216_4096", 1, 9216, 4096)]
DENSITIES = [0.01, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.7, 0.9]


class Layer:
    def __init__(self, name, kind, weight_shape, x_shape):
        self.name, self.kind = name, kind
        self.weight_shape, self.x_shape = weight_shape, x_shape

    @property
    def rows(self):
        return self.weight_shape[0]

    @property
    def cols(self):
        return int(np.prod(self.weight_shape[1:]))


class ConvLayer(Layer):
    def __init__(self, name, c, f, k, s, h):
        super().__init__(name, "conv1x1" if k == 1 else "conv", (f, c, k, k), (1, c, h, h))
        self.c, self.f, self.k, self.s, self.h, self.p = c, f, k, s, h, k // 2
        self.oh = (h + 2 * self.p - k) // s + 1

    def flops(self):
        return 2 * self.f * self.c * self.k * self.k * self.oh * self.oh

    def peer_line(self):
        p = self.p
        return (f"conv 1 {self.c} {self.h} {self.h} {self.f} {self.k} {self.k} "
                f"{self.s} {self.s} {p} {p} {p} {p} 1 1 1")

    def reference(self, x, w):
        return F.conv2d(x, w, stride=self.s, padding=self.p)

    def op(self, weight, weight_type, sparse):
        p, s = self.p, self.s
        y = f"tensor<1x{self.f}x{self.oh}x{self.oh}xf32>"
        x = f"tensor<1x{self.c}x{self.h}x{self.h}xf32>"
        attrs = (f"strides = array<i64: {s}, {s}>, padding = array<i64: {p}, {p}, {p}, {p}>")
        if sparse:
            attrs = f"kernel_size = array<i64: {self.k}, {self.k}>, " + attrs
        name = "sparse.conv2d" if sparse else "nn.conv2d"
        return (f"  %y = {name} %x, {weight} {{{attrs}}} : ({x}, {weight_type}) -> {y}", x, y)


class LinearLayer(Layer):
    def __init__(self, name, batch, features, outputs):
        super().__init__(name, "linear", (outputs, features), (batch, features))
        self.batch, self.features, self.outputs = batch, features, outputs

    def flops(self):
        return 2 * self.batch * self.features * self.outputs

    def peer_line(self):
        return None

    def reference(self, x, w):
        return F.linear(x, w)

    def op(self, weight, weight_type, sparse):
        x = f"tensor<{self.batch}x{self.features}xf32>"
        y = f"tensor<{self.batch}x{self.outputs}xf32>"
        name = "sparse.linear" if sparse else "nn.linear"
        return (f"  %y = {name} %x, {weight} : ({x}, {weight_type}) -> {y}", x, y)


def module(layer, weight, fmt):
    """The layer as a module with `weight` a dense_resource constant; with
    `fmt` it is packed into that sparse format and the sparse op used."""
    wshape = "x".join(map(str, layer.weight_shape))
    lines = [f"  %w = arith.constant dense_resource<weight> : tensor<{wshape}xf32>"]
    if fmt:
        rows, enc = FORMATS[fmt]
        wtype = f"tensor<{layer.rows}x{layer.cols}xf32, {enc}>"
        lines.append(f"  %s = sparse.pack %w : tensor<{wshape}xf32> -> {wtype}")
        op, x, y = layer.op("%s", wtype, True)
    else:
        op, x, y = layer.op("%w", f"tensor<{wshape}xf32>", False)
    blob = "0x04000000" + np.ascontiguousarray(weight, dtype="<f4").tobytes().hex()
    return (f"func.func @main(%x: {x}) -> {y} {{\n" + "\n".join(lines) + "\n" + op +
            f"\n  return %y : {y}\n}}\n{{-#\n  dialect_resources: {{\n    builtin: {{\n"
            f"      weight: \"{blob}\"\n    }}\n  }}\n#-}}\n")


def pruned(layer, density, fmt, rng):
    w = rng.standard_normal(layer.weight_shape, dtype=np.float32)
    block = FORMATS[fmt][0] if fmt else 1
    keep = rng.random((layer.rows // block, layer.cols)) < density
    mask = np.repeat(keep, block, axis=0).reshape(layer.weight_shape)
    return w * mask


def run_dlas(args, layer, weight, fmt, threads, workdir, check):
    """DLAS's time for the layer: the best over --rounds processes of each
    one's median. One process's time is not enough on these VMs: a process
    keeps its physical pages, and with them its L2 set conflicts (the
    28x28 3x3 layer at 30% density took 1.06-1.09 ms in some processes and
    1.35-1.42 in others, 1 thread, ASLR off or on). The first calls of a
    2-thread process ran 10-30x slower (see run_bench.run_dlas), so each
    process warms up for about 0.3 s of calls first."""
    base = os.path.join(workdir, f"{layer.name}_{fmt or 'dense'}")
    with open(base + ".mlir", "w") as f:
        f.write(module(layer, weight, fmt))
    x = np.random.default_rng(7).standard_normal(layer.x_shape, dtype=np.float32)
    np.save(base + ".x.npy", x)
    cmd = [args.dlas_run, base + ".mlir", "--input", base + ".x.npy",
           "--num-threads", str(threads),
           "--pipeline", f"builtin.module(dlas-cpu-pipeline{{target={args.target} "
                         f"sparsify=never {args.pipeline_options}}})"]
    if check:
        y = layer.reference(torch.from_numpy(x), torch.from_numpy(weight)).numpy()
        np.save(base + ".y.npy", y)
        cmd += ["--expect", base + ".y.npy", "--rtol", "1e-3", "--atol", "1e-3"]

    def timed(warmup, repeat):
        proc = subprocess.run(cmd + ["--warmup", str(warmup), "--repeat", str(repeat)],
                              capture_output=True, text=True, timeout=1800)
        t = re.search(r"median ([0-9.]+) ms", proc.stdout)
        ok = proc.returncode == 0 and (not check or "PASS" in proc.stdout)
        if not ok:
            print(proc.stdout + proc.stderr, file=sys.stderr)
        return (float(t.group(1)) if t else None), ok

    probe, ok = timed(1, 1)
    if probe is None or not ok:
        return probe, ok
    warmup = int(min(2000, max(2, 300 / max(probe, 1e-3))))
    times = []
    for _ in range(args.rounds):
        t, round_ok = timed(warmup, args.repeat)
        ok = ok and round_ok
        if t is not None:
            times.append(t)
    return (min(times) if times else None), ok


def time_torch_sparse(layer, weight, threads, repeat):
    torch.set_num_threads(threads)
    set_blas_threads(threads)
    w = torch.from_numpy(weight).to_sparse_csr()
    xt = torch.randn(layer.features, layer.batch)
    with torch.no_grad():
        for _ in range(2):
            torch.matmul(w, xt)
        times = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            torch.matmul(w, xt)
            times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def break_even(points, dense_ms):
    """The density where the sparse time crosses `dense_ms`."""
    points = sorted((d, t) for d, t in points if t is not None)
    if not points or dense_ms is None:
        return None
    if points[0][1] >= dense_ms:
        return f"<{points[0][0]:g}"
    for (d1, t1), (d2, t2) in zip(points, points[1:]):
        if t1 < dense_ms <= t2:
            return d1 + (dense_ms - t1) * (d2 - d1) / (t2 - t1)
    return f">{points[-1][0]:g}"


def chart(rows, densities, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 2, figsize=(13, 5), sharey=True)
    for ax, fmt in zip(axes, FORMATS):
        for i, r in enumerate(r for r in rows if r["threads"] == 1 and r["format"] == fmt):
            if not r["dense_ms"]:
                continue
            ratio = [(d, r[f"d{d:g}"] / r["dense_ms"]) for d in densities
                     if r.get(f"d{d:g}")]
            ax.plot([d for d, _ in ratio], [v for _, v in ratio], marker=".",
                    linestyle=["-", "--", ":"][i // 10 % 3], label=r["layer"])
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_xlabel("weight density")
        ax.set_title(f"{fmt}: DLAS sparse / DLAS dense (1 thread)")
        ax.set_yscale("log")
    axes[0].set_ylabel("time ratio (< 1: sparse faster)")
    axes[1].legend(fontsize=6, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--target", default="host")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--densities", default=",".join(map(str, DENSITIES)))
    parser.add_argument("--layers", default="", help="comma-separated names (default all)")
    parser.add_argument("--formats", default="csr,bsr4")
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3,
                        help="processes per DLAS timing and oneDNN runs per layer; "
                             "the best of their medians is reported")
    parser.add_argument("--dlas-run", default="build/bin/dlas-run")
    parser.add_argument("--dlas-opt", default="build/bin/dlas-opt")
    parser.add_argument("--peers", default="build/bench/peers")
    parser.add_argument("--workdir", default="build/bench/sparse")
    parser.add_argument("--tag", default=datetime.date.today().isoformat() + "-sparse")
    parser.add_argument("--pipeline-options", default="",
                        help="more dlas-cpu-pipeline options for every DLAS run "
                             "(an A/B of a kernel option)")
    parser.add_argument("--calibrate", default=None)
    parser.add_argument("--merge", nargs="+", default=None,
                        help="no measuring: the rows (JSON lines) that earlier runs "
                             "printed to these logs, into one table")
    args = parser.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    densities = [float(d) for d in args.densities.split(",")]
    formats = args.formats.split(",")
    threads_list = [int(t) for t in args.threads.split(",")]
    bits = target_vector_bits(args.target, args.dlas_opt)
    isa_env = peer_isa_env(bits)
    os.environ.update(isa_env)
    layers = [ConvLayer(*c) for c in CONVS] + [LinearLayer(*l) for l in LINEARS]
    if args.layers:
        wanted = set(args.layers.split(","))
        layers = [l for l in layers if l.name in wanted]
    host = host_description()
    print(f"host: {host}; target: {args.target} ({bits}-bit vectors)", flush=True)
    rng = np.random.default_rng(2026)
    rows = []
    if args.merge:
        for log in args.merge:
            with open(log) as f:
                rows += [json.loads(line) for line in f if line.startswith("{")]
        seen = set()
        for r in rows:
            densities = sorted(set(densities) | {float(k[1:]) for k in r
                                                 if re.fullmatch(r"d[0-9.]+", k)})
        rows = [r for r in rows if not (key := (r["threads"], r["layer"], r["format"])) in seen
                and not seen.add(key)]
        threads_list = []
    for threads in threads_list:
        for layer in layers:
            dense_w = rng.standard_normal(layer.weight_shape, dtype=np.float32)
            dense_ms, ok = run_dlas(args, layer, dense_w, None, threads, args.workdir, False)
            onednn = None
            if layer.peer_line() and os.path.exists(args.peers):
                for _ in range(args.rounds):
                    for line in run_peers(args.peers, [layer.peer_line()], threads):
                        m = re.match(r"onednn\s+([0-9.]+)", line)
                        if m:
                            t = float(m.group(1))
                            onednn = t if onednn is None else min(onednn, t)
            for fmt in formats:
                if layer.rows % FORMATS[fmt][0]:
                    continue
                row = {"threads": threads, "layer": layer.name, "kind": layer.kind,
                       "format": fmt, "dense_ms": dense_ms, "onednn_ms": onednn}
                points = []
                for d in densities:
                    w = pruned(layer, d, fmt, rng)
                    t, ok = run_dlas(args, layer, w, fmt, threads, args.workdir, check=True)
                    row[f"d{d:g}"] = t if ok else None
                    points.append((d, t if ok else None))
                    if layer.kind == "linear" and fmt == "csr":
                        row[f"torch_sparse_d{d:g}"] = time_torch_sparse(layer, w, threads, args.repeat)
                row["break_even"] = break_even(points, dense_ms)
                row["break_even_onednn"] = break_even(points, onednn)
                rows.append(row)
                print(json.dumps(row), flush=True)
    write_results(args, rows, densities, host, bits, isa_env)
    if args.calibrate:
        write_calibration(args, rows, host, bits)


def fmt_ms(v):
    return f"{v:.3f}" if isinstance(v, float) else "-"


def fmt_be(v):
    return f"{v:.2f}" if isinstance(v, float) else (v or "-")


def write_results(args, rows, densities, host, bits, isa_env):
    out = os.path.join(os.path.dirname(__file__), "results", args.tag)
    with open(out + ".csv", "w", newline="") as f:
        keys = sorted({k for r in rows for k in r}, key=lambda k: (k[0] != "t", k))
        w = csv.DictWriter(f, fieldnames=keys)
        w.writeheader()
        w.writerows(rows)
    lines = [f"# Sparse suite ({args.tag})", "",
             f"Host: {host}. Target: {args.target} ({bits}-bit vectors)"
             + (f"; peers held to AVX2 ({', '.join(f'{k}={v}' for k, v in isa_env.items())})"
                if isa_env else "") + ".",
             f"Command: `bench/sparse_bench.py --target {args.target} --threads {args.threads}"
             f"{' --pipeline-options ' + repr(args.pipeline_options) if args.pipeline_options else ''}"
             f"{' --calibrate ' + args.calibrate if args.calibrate else ''}`. "
             f"DLAS: the best over {args.rounds} processes of each one's median of "
             f"{args.repeat} runs after about 0.3 s of warm-up calls; oneDNN: the best of "
             f"{args.rounds} runs of the peers; ms, batch 1 unless named.",
             "Every sparse result was checked against PyTorch (|d - t| <= 1e-3 + 1e-3 |t|).", ""]
    for threads in sorted({r["threads"] for r in rows}):
        lines += [f"## {threads} thread(s)", "",
                  "| layer | format | DLAS dense | oneDNN dense | " +
                  " | ".join(f"{d:g}" for d in densities) + " | break-even | vs oneDNN |",
                  "|---|---|---:|---:|" + "---:|" * len(densities) + "---:|---:|"]
        for r in rows:
            if r["threads"] != threads:
                continue
            lines.append(f"| {r['layer']} | {r['format']} | {fmt_ms(r['dense_ms'])} | "
                         f"{fmt_ms(r['onednn_ms'])} | " +
                         " | ".join(fmt_ms(r.get(f"d{d:g}")) for d in densities) +
                         f" | {fmt_be(r['break_even'])} | {fmt_be(r.get('break_even_onednn'))} |")
        ts = [r for r in rows if r["threads"] == threads and "torch_sparse_d0.1" in r]
        if ts:
            lines += ["", "torch.sparse (CSR weight x dense input), same densities:", "",
                      "| layer | " + " | ".join(f"{d:g}" for d in densities) + " |",
                      "|---|" + "---:|" * len(densities)]
            for r in ts:
                lines.append(f"| {r['layer']} | " + " | ".join(
                    fmt_ms(r.get(f"torch_sparse_d{d:g}")) for d in densities) + " |")
        lines.append("")
    with open(out + ".md", "w") as f:
        f.write("\n".join(lines) + "\n")
    chart(rows, densities, out + ".png")
    print("wrote", out + ".md")


def write_calibration(args, rows, host, bits):
    key = "avx512" if bits >= 512 else "avx2"
    table = {}
    for kind in ("conv", "conv1x1", "linear"):
        for fmt, (block, _) in FORMATS.items():
            values = []
            for r in rows:
                if r["threads"] != 1 or r["kind"] != kind or r["format"] != fmt:
                    continue
                be = r["break_even"]
                if isinstance(be, str):  # below or above the measured range
                    be = float(be[1:]) * (0.5 if be[0] == "<" else 1.0)
                if be is not None:
                    values.append(be)
            if values:
                table.setdefault(kind, {})[str(block)] = round(statistics.median(values), 3)
    try:
        with open(args.calibrate) as f:
            calibration = json.load(f)
    except (OSError, ValueError):
        calibration = {}
    calibration.setdefault("targets", {})[key] = table
    calibration.setdefault("measured", {})[key] = (
        f"{host}, target {args.target}, 1 thread, {datetime.date.today().isoformat()}")
    calibration["about"] = (
        "Break-even weight density (stored fraction) per layer kind and block "
        "height, below which dlas-sparsify{policy=auto} picks the sparse kernel: "
        "the median over the kind's layers of bench/sparse_bench.py's crossing "
        "of DLAS sparse and DLAS dense time.")
    calibration["command"] = ("bench/sparse_bench.py --target <x86-64-v3|x86-64-v4> "
                              "--threads 1 --calibrate " + args.calibrate)
    with open(args.calibrate, "w") as f:
        json.dump(calibration, f, indent=2, sort_keys=True)
        f.write("\n")
    print("wrote", args.calibrate)


if __name__ == "__main__":
    sys.exit(main())
