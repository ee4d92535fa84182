#!/usr/bin/python3
"""Whole models in int8 against f32, and against PyTorch's int8 engine.

For each model (torchvision, seeded random weights, batch 1, 224x224):

* DLAS: `dlas-run --calibrate` on --samples seeded inputs, then for each
  target `dlas-run --precision f32` and `--precision int8 --calibration`
  (median of --repeat runs after 3 warm-ups, rounds interleaved, best
  round), with the logits' relative L2 error against PyTorch's f32 ones.
  Targets are `cpu` or `cpu:+features` (x86-64-v4:+avx512vnni: AVX-512 with
  VNNI; x86-64-v3: no int8 dot product, the widening kernel).
* PyTorch: eager f32, and its int8 engine (torch.ao eager-mode static
  quantization of torchvision's quantizable model with the same weights:
  fused conv+bn+relu, the `x86` qconfig and engine (fbgemm/oneDNN; oneDNN
  where PyTorch lacks x86, as Debian's 1.13 does),
  calibrated on the same samples), same thread count.

Writes bench/results/<tag>-int8.md.
"""
import argparse
import datetime
import os
import re
import statistics
import subprocess
import sys
import time

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "test", "Models", "Inputs"))
sys.path.insert(0, HERE)
from models import export  # noqa: E402  (the model zoo of the tests)
from precision_bench import host_name  # noqa: E402

QUANTIZABLE = {"resnet18", "resnet50", "mobilenet_v2", "googlenet"}
ENGINE = ["none"]  # the quantized engine PyTorch ran


def median_ms(fn, repeat):
    times = []
    for i in range(repeat + 3):
        start = time.perf_counter()
        fn()
        if i >= 3:
            times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def torch_int8(name, model, samples, x, threads, repeat):
    """PyTorch's int8 model of `model` (its weights), calibrated on
    `samples`: (median ms, logits)."""
    import torchvision.models.quantization as q
    from torch.ao.quantization import convert, get_default_qconfig, prepare
    if name not in QUANTIZABLE:
        return float("nan"), None
    # x86 (fbgemm + oneDNN) where this PyTorch has it, else oneDNN.
    engines = torch.backends.quantized.supported_engines
    engine = "x86" if "x86" in engines else "onednn" if "onednn" in engines else "fbgemm"
    torch.backends.quantized.engine = engine
    ENGINE[0] = engine
    kwargs = {"aux_logits": False, "init_weights": False} if name == "googlenet" else {}
    try:
        qmodel = getattr(q, name)(weights=None, quantize=False, **kwargs)
    except TypeError:  # torchvision before 0.13
        qmodel = getattr(q, name)(pretrained=False, quantize=False, **kwargs)
    missing = qmodel.load_state_dict(model.state_dict(), strict=False)
    qmodel.eval()
    with torch.no_grad():  # the same weights: the same f32 answer
        if not torch.allclose(qmodel(x), model(x), rtol=1e-4, atol=1e-4):
            print(f"{name}: quantizable copy differs ({missing})", file=sys.stderr)
            return float("nan"), None
    qmodel.fuse_model()
    qmodel.qconfig = get_default_qconfig(engine)
    prepare(qmodel, inplace=True)
    with torch.no_grad():
        for s in samples:
            qmodel(s)
    convert(qmodel, inplace=True)
    torch.set_num_threads(threads)
    with torch.no_grad():
        out = qmodel(x)
        ms = median_ms(lambda: qmodel(x), repeat)
    return ms, out.numpy()


def dlas_run(args, base, target, precision):
    cmd = [args.dlas_run, base + ".onnx", "--input", base + ".input.npy",
           "--num-threads", str(args.threads), "--warmup", "3",
           "--repeat", str(args.repeat), "--precision", precision,
           "--output-dir", os.path.dirname(base)]
    if precision == "int8":
        cmd += ["--calibration", base + ".calibration.json"]
        if args.keep_f32:
            cmd += ["--keep-f32", args.keep_f32]
    cpu, _, features = target.partition(":")
    if cpu != "host":
        cmd += ["--target", cpu]
    if features:
        cmd += ["--target-features", features]
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads))
    out = subprocess.run(cmd, capture_output=True, text=True, check=True, env=env).stdout
    median = float(re.search(r"median ([0-9.]+) ms", out).group(1))
    got = np.load(os.path.join(os.path.dirname(base), "main_output0.npy"))
    return median, got


def rel_l2(got, ref):
    got, ref = got.astype(np.float64), ref.astype(np.float64)
    return float(np.linalg.norm(got - ref) / np.linalg.norm(ref))


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--models", default="resnet18,resnet50,mobilenet_v2,googlenet")
    parser.add_argument("--targets", default="host,x86-64-v4:+avx512vnni,x86-64-v3")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--samples", type=int, default=8)
    parser.add_argument("--keep-f32", default="",
                        help="dlas-run --keep-f32 for the int8 runs (default: DLAS's "
                             "default guard); e.g. 'classifier,depthwise' quantizes the "
                             "stem as PyTorch's quantized models do")
    parser.add_argument("--dlas-run", default="build/bin/dlas-run")
    parser.add_argument("--workdir", default="build/bench/int8")
    parser.add_argument("--out", default=os.path.join(HERE, "results"))
    parser.add_argument("--tag", default=datetime.date.today().isoformat())
    args = parser.parse_args()
    rows = []
    for name in args.models.split(","):
        model, x, base = export(name, args.workdir, 13, 1, False, 0.0, True,
                                calibration_samples=args.samples)
        model.eval()
        ref = np.load(base + ".expected.npy")
        subprocess.run([args.dlas_run, base + ".onnx", "--calibrate", base + ".calibration",
                        "--calibration", base + ".calibration.json"],
                       check=True, capture_output=True)
        samples = [torch.from_numpy(np.load(os.path.join(base + ".calibration", f)))
                   for f in sorted(os.listdir(base + ".calibration"))]
        torch.set_num_threads(args.threads)
        with torch.no_grad():
            t32 = median_ms(lambda: model(x), args.repeat)
        t8, torch_out = torch_int8(name, model, samples, x, args.threads, args.repeat)
        torch_err = rel_l2(torch_out, ref) if torch_out is not None else float("nan")
        for target in args.targets.split(","):
            times = {"f32": [], "int8": []}
            err = float("nan")
            for _ in range(args.rounds):
                for p in times:
                    ms, got = dlas_run(args, base, target, p)
                    times[p].append(ms)
                    if p == "int8":
                        err = rel_l2(got, ref)
            f32, i8 = min(times["f32"]), min(times["int8"])
            row = (f"| {name} | {target} | {args.threads} | {f32:.2f} | {i8:.2f} | "
                   f"{f32 / i8:.2f}x | {err:.1e} | {t32:.2f} | {t8:.2f} | {torch_err:.1e} | "
                   f"{t8 / i8:.2f}x |")
            print(row, flush=True)
            rows.append(row)
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, f"{args.tag}-int8.md")
    with open(path, "w") as f:
        f.write(f"# Whole models in int8, {args.tag}\n\nHost: {host_name()}. Batch 1, "
                f"median ms of {args.repeat} runs after 3 warm-ups, best of {args.rounds} "
                f"interleaved rounds; calibration on {args.samples} seeded inputs (minmax), "
                + (f"`--keep-f32 {args.keep_f32}`" if args.keep_f32 else
                   "default guard (first convolution, classifier and depthwise "
                   "convolutions in f32)") +
                f". Errors: relative L2 of the logits against PyTorch's f32. "
                f"PyTorch {torch.__version__}: eager f32, and eager-mode static "
                f"quantization ({ENGINE[0]} engine) of "
                f"torchvision's quantizable model with the same weights and samples, same "
                f"threads. Command: `{' '.join(sys.argv)}`.\n\n")
        f.write("| model | DLAS target | threads | DLAS f32 ms | DLAS int8 ms | int8 speedup "
                "| DLAS int8 err | PyTorch f32 ms | PyTorch int8 ms | PyTorch int8 err "
                "| PyTorch int8 / DLAS int8 |\n|" + "---|" * 11 + "\n")
        f.write("\n".join(rows) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    sys.exit(main())
