#!/usr/bin/python3
"""Convolution + ReLU + max pool layers with sparse weights: the pool fused
into the sparse kernel against the pool run on its own, and dense DLAS.

For each layer (ResNet-50's stem and the last convolution of each VGG-16
block, with the max pool after it) and density, the weight is pruned at
random (each element kept with probability d) and the layer
`nn.conv2d -> nn.relu -> nn.max_pool2d` is timed through dlas-run, back to
back, as:

* dense DLAS: `dlas-cpu-pipeline{sparsify=never}` (blocked kernels, the
  pool fused into the dense kernel);
* sparse, pool apart: `sparsify=always fuse-pools=false`;
* sparse, default: `sparsify=always` (the pool fused on maps of at least
  dlas-sparsify's min-pool-positions, apart below);
* sparse, pool fused: the module sparsified beforehand by `dlas-opt
  --dlas-sparsify="policy=always min-pool-positions=0"` (every pool fused),
  then run with `sparsify=never`.

Every run is checked against PyTorch (|d - t| <= 1e-3 + 1e-3 |t|).

    bench/sparse_pool_bench.py --target x86-64-v3 --threads 1 --tag 2026-11-26-sparse-pool
"""
import argparse
import datetime
import os
import re
import subprocess
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(__file__))
from run_bench import host_description  # noqa: E402

# (name, C, F, K, stride, padding, H, pool kernel, pool stride, pool padding)
LAYERS = [
    ("r50_conv1_pool", 3, 64, 7, 2, 3, 224, 3, 2, 1),
    ("vgg16_conv1_2_pool", 64, 64, 3, 1, 1, 224, 2, 2, 0),
    ("vgg16_conv2_2_pool", 128, 128, 3, 1, 1, 112, 2, 2, 0),
    ("vgg16_conv3_3_pool", 256, 256, 3, 1, 1, 56, 2, 2, 0),
    ("vgg16_conv4_3_pool", 512, 512, 3, 1, 1, 28, 2, 2, 0),
    ("vgg16_conv5_3_pool", 512, 512, 3, 1, 1, 14, 2, 2, 0),
]
VARIANTS = [("dense", "sparsify=never"),
            ("sparse_apart", "sparsify=always fuse-pools=false"),
            ("sparse_default", "sparsify=always"),
            ("sparse_fused", "sparsify=never")]


def ttype(shape):
    return "tensor<" + "x".join(map(str, shape)) + "xf32>"


def module(layer, weight, bias):
    name, c, f, k, s, p, h, pk, ps, pp = layer
    oh = (h + 2 * p - k) // s + 1
    ph = (oh + 2 * pp - pk) // ps + 1
    x, y, z = [1, c, h, h], [1, f, oh, oh], [1, f, ph, ph]
    blob = lambda a: "0x04000000" + np.ascontiguousarray(a, dtype="<f4").tobytes().hex()
    return "\n".join([
        f"func.func @main(%x: {ttype(x)}) -> {ttype(z)} {{",
        f"  %w = arith.constant dense_resource<weight> : {ttype(weight.shape)}",
        f"  %b = arith.constant dense_resource<bias> : {ttype(bias.shape)}",
        f"  %c = nn.conv2d %x, %w, %b {{strides = array<i64: {s}, {s}>, "
        f"padding = array<i64: {p}, {p}, {p}, {p}>}} : ({ttype(x)}, {ttype(weight.shape)}, "
        f"{ttype(bias.shape)}) -> {ttype(y)}",
        f"  %r = nn.relu %c : {ttype(y)}",
        f"  %y = nn.max_pool2d %r {{kernel = array<i64: {pk}, {pk}>, strides = array<i64: {ps}, {ps}>, "
        f"padding = array<i64: {pp}, {pp}, {pp}, {pp}>}} : ({ttype(y)}) -> {ttype(z)}",
        f"  return %y : {ttype(z)}",
        "}",
        "{-#", "  dialect_resources: {", "    builtin: {",
        f'      weight: "{blob(weight)}",', f'      bias: "{blob(bias)}"',
        "    }", "  }", "#-}", ""])


def reference(layer, x, weight, bias):
    name, c, f, k, s, p, h, pk, ps, pp = layer
    y = F.relu(F.conv2d(x, weight, bias, stride=s, padding=p))
    return F.max_pool2d(y, pk, ps, pp)


def presparsify(args, base):
    """base.fused.mlir: the layer with every pool folded into its sparse
    convolution."""
    cmd = [args.dlas_opt, base + ".mlir", f"--dlas-attach-target=target={args.target}",
           "--dlas-sparsify=policy=always min-pool-positions=0", "-o", base + ".fused.mlir"]
    subprocess.run(cmd, check=True, timeout=600)
    with open(base + ".fused.mlir") as f:
        if "pool_kernel" not in f.read():
            sys.exit(f"{base}.fused.mlir: dlas-sparsify did not fuse the pool")


def run(args, base, options, threads, variant):
    module = base + (".fused.mlir" if variant == "sparse_fused" else ".mlir")
    cmd = [args.dlas_run, module, "--input", base + ".x.npy",
           "--expect", base + ".y.npy", "--rtol", "1e-3", "--atol", "1e-3",
           "--num-threads", str(threads), "--warmup", "2", "--repeat", str(args.repeat),
           "--pipeline", f"builtin.module(dlas-cpu-pipeline{{target={args.target} {options}}})"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
    t = re.search(r"median ([0-9.]+) ms", proc.stdout)
    if proc.returncode != 0 or "PASS" not in proc.stdout or not t:
        print(proc.stdout + proc.stderr, file=sys.stderr)
        return None
    return float(t.group(1))


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--target", default="host")
    parser.add_argument("--threads", default="1")
    parser.add_argument("--densities", default="0.05,0.1,0.2")
    parser.add_argument("--layers", default="", help="comma-separated names (default all)")
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=2,
                        help="times every variant runs, interleaved; the lowest median is kept")
    parser.add_argument("--dlas-run", default="build/bin/dlas-run")
    parser.add_argument("--dlas-opt", default="build/bin/dlas-opt")
    parser.add_argument("--workdir", default="build/bench/sparse-pool")
    parser.add_argument("--tag", default=datetime.date.today().isoformat() + "-sparse-pool")
    parser.add_argument("--out", default="bench/results")
    args = parser.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    wanted = set(filter(None, args.layers.split(",")))
    layers = [l for l in LAYERS if not wanted or l[0] in wanted]
    densities = [float(d) for d in args.densities.split(",")]
    threads = [int(t) for t in args.threads.split(",")]
    rng = np.random.default_rng(11)
    rows, failed = [], 0
    for layer in layers:
        name, c, f, k = layer[:4]
        x = rng.standard_normal((1, c, layer[6], layer[6]), dtype=np.float32)
        bias = rng.standard_normal(f, dtype=np.float32)
        for density in densities:
            w = rng.standard_normal((f, c, k, k), dtype=np.float32)
            w *= rng.random(w.shape) < density
            base = os.path.join(args.workdir, f"{name}_{density}")
            with open(base + ".mlir", "w") as out:
                out.write(module(layer, w, bias))
            np.save(base + ".x.npy", x)
            y = reference(layer, torch.from_numpy(x), torch.from_numpy(w), torch.from_numpy(bias))
            np.save(base + ".y.npy", y.numpy())
            presparsify(args, base)
            for t in threads:
                best = {}
                for _ in range(args.rounds):
                    for variant, options in VARIANTS:
                        ms = run(args, base, options, t, variant)
                        if ms is None:
                            failed += 1
                        elif variant not in best or ms < best[variant]:
                            best[variant] = ms
                row = (name, density, t, best.get("dense"), best.get("sparse_apart"),
                       best.get("sparse_fused"), best.get("sparse_default"))
                print(" ".join(str(v) for v in row), flush=True)
                rows.append(row)
    write(args, rows)
    print(f"sparse-pool: {len(rows)} rows, {failed} failed runs")
    return 1 if failed else 0


def fmt(v):
    """A time in ms for the tables, "-" when it was not measured."""
    return "-" if v is None else f"{v:.3f}"


def ratio(a, b):
    """a / b as "1.23x", "-" when either was not measured."""
    return "-" if a is None or b is None else f"{a / b:.2f}x"


def write(args, rows):
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, args.tag + ".md")
    with open(path, "w") as out:
        out.write(f"# Sparse convolution + ReLU + max pool ({args.tag})\n\n")
        out.write(f"Host: {host_description()}. Target: {args.target}.\n")
        out.write(f"Command: `bench/sparse_pool_bench.py --target {args.target} "
                  f"--threads {args.threads} --densities {args.densities}`. Best of "
                  f"{args.rounds} medians of {args.repeat} runs (2 warm-up runs), ms, batch 1; "
                  "every run checked against PyTorch.\n\n")
        out.write("| layer | density | threads | dense DLAS | sparse, pool apart | "
                  "sparse, pool fused | fused vs apart | sparse, default | "
                  "default vs dense |\n")
        out.write("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
        for name, density, t, dense, apart, fused, default in rows:
            out.write(f"| {name} | {density} | {t} | {fmt(dense)} | {fmt(apart)} | "
                      f"{fmt(fused)} | {ratio(apart, fused)} | {fmt(default)} | "
                      f"{ratio(dense, default)} |\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    sys.exit(main())
