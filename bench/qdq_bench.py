#!/usr/bin/python3
"""Models quantized by PyTorch, exported to ONNX (QDQ), run by DLAS.

For each model (torchvision's quantizable ones, seeded random weights,
batch 1, 224x224): PyTorch's eager static quantization (fbgemm qconfig,
calibrated on 4 seeded batches; test/Models/Inputs/torch_quantized.py),
its int8 time, and its ONNX export at opset 13. DLAS runs that file as it
is on the host target: with dlas-fold-qdq (the layers on the int8
kernels, the pipeline's default) and without it (fold-qdq=false: ONNX's
float definition). Medians of --repeat runs after 3 warm-ups, same thread
count; the logits' relative L2 error against PyTorch's int8 ones.

Writes bench/results/<tag>-qdq.md.
"""
import argparse
import datetime
import os
import re
import subprocess
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "test", "Models", "Inputs"))
sys.path.insert(0, HERE)
from int8_bench import median_ms, rel_l2  # noqa: E402
from precision_bench import host_name  # noqa: E402
from torch_quantized import quantized_model  # noqa: E402


def dlas(args, path, x_path, fold):
    cmd = [args.dlas_run, path, "--input", x_path, "--num-threads", str(args.threads),
           "--warmup", "3", "--repeat", str(args.repeat),
           "--output-dir", os.path.dirname(path)]
    if not fold:
        cmd += ["--pipeline", "builtin.module(dlas-cpu-pipeline{fold-qdq=false})"]
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads))
    out = subprocess.run(cmd, capture_output=True, text=True, check=True, env=env).stdout
    median = float(re.search(r"median ([0-9.]+) ms", out).group(1))
    return median, np.load(os.path.join(os.path.dirname(path), "main_output0.npy"))


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", default="resnet18,resnet50,mobilenet_v2,googlenet")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--dlas-run", default="build/bin/dlas-run")
    parser.add_argument("--workdir", default="build/bench/qdq")
    parser.add_argument("--out", default=os.path.join(HERE, "results"))
    parser.add_argument("--tag", default=datetime.date.today().isoformat())
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    rows = []
    for name in args.models.split(","):
        directory = os.path.join(args.workdir, name)
        os.makedirs(directory, exist_ok=True)
        model = quantized_model(name, 4, 1)
        x = torch.randn(1, 3, 224, 224, generator=torch.Generator().manual_seed(2))
        with torch.no_grad():
            reference = model(x).numpy()
            torch_ms = median_ms(lambda: model(x), args.repeat)
        path = os.path.join(directory, "model.onnx")
        torch.onnx.export(model, x, path, opset_version=13)
        x_path = os.path.join(directory, "input.npy")
        np.save(x_path, x.numpy())
        int8_ms, int8_out = dlas(args, path, x_path, fold=True)
        float_ms, float_out = dlas(args, path, x_path, fold=False)
        row = (name, int8_ms, float_ms, torch_ms, rel_l2(int8_out, reference),
               rel_l2(float_out, reference))
        rows.append(row)
        print(f"{name}: DLAS int8 {int8_ms:.1f} ms, DLAS float QDQ {float_ms:.1f} ms, "
              f"PyTorch int8 {torch_ms:.1f} ms", flush=True)
    os.makedirs(args.out, exist_ok=True)
    out = os.path.join(args.out, f"{args.tag}-qdq.md")
    with open(out, "w") as f:
        f.write(f"# PyTorch-quantized models as QDQ ONNX ({args.tag})\n\n")
        f.write(f"Host: {host_name()}; target: host; {args.threads} thread(s); batch 1; "
                f"median of {args.repeat} runs; PyTorch {torch.__version__}, quantized "
                f"engine {torch.backends.quantized.engine} (fbgemm qconfig). "
                f"`bench/qdq_bench.py`.\n\n")
        f.write("| model | DLAS int8 (dlas-fold-qdq) ms | DLAS float QDQ ms | PyTorch int8 "
                "ms | PyTorch / DLAS int8 | rel. L2 vs PyTorch int8 (int8, float) |\n")
        f.write("|---|---|---|---|---|---|\n")
        for name, i8, fl, pt, e8, ef in rows:
            f.write(f"| {name} | {i8:.1f} | {fl:.1f} | {pt:.1f} | {pt / i8:.2f}x | "
                    f"{e8:.2e}, {ef:.2e} |\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
