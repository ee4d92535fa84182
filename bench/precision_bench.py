#!/usr/bin/python3
"""Whole models in f32, bf16 and fp16: DLAS against itself and PyTorch.

For each model (torchvision, seeded random weights, batch 1, 224x224) and
each DLAS target: `dlas-run --precision P` for P in f32, bf16, fp16
(median of --repeat runs after 3 warm-ups, rounds interleaved so that a
drift of the machine hits every precision alike), the logits' relative L2
error against PyTorch's f32 ones, and PyTorch's eager time in f32 and in
bf16 (torch.autocast("cpu", torch.bfloat16), its oneDNN bf16 kernels) at
the same thread count. Writes bench/results/<tag>-precision.md.
"""
import argparse
import datetime
import os
import platform
import re
import statistics
import subprocess
import sys
import time

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "test", "Models", "Inputs"))
from models import export  # noqa: E402  (the model zoo of the tests)
from run_bench import core_name, cpu_info  # noqa: E402

PRECISIONS = ["f32", "bf16", "fp16"]


def torch_ms(model, x, threads, repeat, bf16):
    torch.set_num_threads(threads)
    times = []
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
        for i in range(repeat + 3):
            start = time.perf_counter()
            model(x)
            if i >= 3:
                times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def dlas_run(args, base, target, precision):
    cmd = [args.dlas_run, base + ".onnx", "--input", base + ".input.npy",
           "--num-threads", str(args.threads), "--warmup", "3",
           "--repeat", str(args.repeat), "--precision", precision,
           "--output-dir", os.path.dirname(base)]
    name, _, features = target.partition(":")
    if name != "host":
        cmd += ["--target", name]
    if features:
        cmd += ["--target-features", features]
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads))
    out = subprocess.run(cmd, capture_output=True, text=True, check=True, env=env).stdout
    median = float(re.search(r"median ([0-9.]+) ms", out).group(1))
    got = np.load(os.path.join(os.path.dirname(base), "main_output0.npy")).astype(np.float64)
    ref = np.load(base + ".expected.npy").astype(np.float64)
    return median, float(np.linalg.norm(got - ref) / np.linalg.norm(ref))


def host_name():
    info = cpu_info()
    flags = set(info.get("flags", "").split())
    features = [f for f in ["avx2", "avx512f", "avx512_bf16", "avx512_fp16",
                            "avx512_vnni", "amx_bf16"] if f in flags]
    return (f"{info.get('model name') or platform.processor()}{core_name(info)}"
            f" ({', '.join(features)})")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--models", default="resnet18,resnet50,mobilenet_v2")
    parser.add_argument("--targets", default="host,x86-64-v4,x86-64-v3",
                        help="comma-separated cpu or cpu:+features (e.g. "
                             "sapphirerapids:-amx-tile)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--dlas-run", default="build/bin/dlas-run")
    parser.add_argument("--workdir", default="build/bench/precision")
    parser.add_argument("--out", default=os.path.join(HERE, "results"))
    parser.add_argument("--tag", default=datetime.date.today().isoformat())
    args = parser.parse_args()
    rows = []
    for name in args.models.split(","):
        model, x, base = export(name, args.workdir, 13, 1, False, 0.0, True)
        model.eval()
        t32 = torch_ms(model, x, args.threads, args.repeat, bf16=False)
        try:
            t16 = torch_ms(model, x, args.threads, args.repeat, bf16=True)
        except RuntimeError as e:  # PyTorch 1.13's native attention under autocast
            print(f"{name}: PyTorch bf16 autocast failed: {e}", file=sys.stderr)
            t16 = float("nan")
        for target in args.targets.split(","):
            times = {p: [] for p in PRECISIONS}
            errors = {}
            for _ in range(args.rounds):
                for p in PRECISIONS:
                    ms, err = dlas_run(args, base, target, p)
                    times[p].append(ms)
                    errors[p] = err
            best = {p: min(times[p]) for p in PRECISIONS}
            row = (f"| {name} | {target} | {args.threads} | "
                   + " | ".join(f"{best[p]:.2f}" for p in PRECISIONS)
                   + f" | {best['bf16'] / best['f32']:.2f}x | {best['fp16'] / best['f32']:.2f}x | "
                   + " | ".join(f"{errors[p]:.1e}" for p in PRECISIONS)
                   + f" | {t32:.2f} | {t16:.2f} |")
            print(row, flush=True)
            rows.append(row)
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, f"{args.tag}-precision.md")
    with open(path, "w") as f:
        f.write(f"# Whole models by precision, {args.tag}\n\nHost: {host_name()}. "
                f"Batch 1, median ms of {args.repeat} runs after 3 warm-ups, best of "
                f"{args.rounds} interleaved rounds. Relative L2 error of the logits "
                f"against PyTorch's f32. PyTorch eager, same threads; bf16 = "
                f"torch.autocast(cpu, bfloat16). Command: `{' '.join(sys.argv)}`.\n\n")
        f.write("| model | DLAS target | threads | f32 ms | bf16 ms | fp16 ms | bf16/f32 "
                "| fp16/f32 | f32 err | bf16 err | fp16 err | PyTorch f32 ms | "
                "PyTorch bf16 ms |\n|" + "---|" * 13 + "\n")
        f.write("\n".join(rows) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    sys.exit(main())
