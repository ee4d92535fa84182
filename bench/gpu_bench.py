#!/usr/bin/env python3
"""GPU measurements in two steps, for GPU machines that have no MLIR.

    # Here (MLIR, no GPU needed): export, compile to self-contained libraries.
    bench/gpu_bench.py prepare --workdir build/gpu-bench --target cuda:sm_90
    # There (driver, PyTorch, numpy; no MLIR, no DLAS build): run and compare.
    python3 gpu-bench/gpu_bench.py run --workdir gpu-bench

`prepare` exports each model (test/Models/Inputs/models.py) at each batch to
ONNX with its seeded input and PyTorch's output, compiles it with
`dlas-compile --target=... -o lib.so` (timing the compile), and copies this
script, the harness (examples/aot/run_gpu_model.py) and models.py into the
work directory, which is then all the GPU machine needs.

`run` loads every library, checks its output against PyTorch's CPU answer,
times it (median of --repeat, end to end: the entry copies its input to the
GPU and its result back), and times PyTorch on the same GPU: eager NCHW and
channels_last with cuDNN (f32, TF32 off, so that both compute in f32). It
writes results.md and results.csv into the work directory.
"""
import argparse
import csv
import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def prepare(args):
    sys.path.insert(0, os.path.join(HERE, "..", "test", "Models", "Inputs"))
    import models  # noqa: E402  (needs torch and torchvision here)
    os.makedirs(args.workdir, exist_ok=True)
    compile_times = {}
    for batch in [int(b) for b in args.batches.split(",")]:
        for name in args.models.split(","):
            folder = os.path.join(args.workdir, f"b{batch}")
            models.export(name, folder, batch=batch)
            base = os.path.join(folder, name, name)
            start = time.perf_counter()
            proc = subprocess.run(
                [args.dlas_compile, base + ".onnx", "--target", args.target,
                 "-o", base + ".so"], capture_output=True, text=True)
            seconds = time.perf_counter() - start
            status = "ok" if proc.returncode == 0 else "FAIL"
            print(f"{status} {name} batch {batch}: compiled in {seconds:.1f} s")
            if proc.returncode:
                print(proc.stdout + proc.stderr)
            compile_times[f"{name}_b{batch}"] = {"seconds": seconds, "status": status}
            os.remove(base + ".onnx")  # the library holds the weights
    with open(os.path.join(args.workdir, "compile_times.json"), "w") as f:
        json.dump({"target": args.target, "models": compile_times}, f, indent=2)
    shutil.copy(__file__, args.workdir)
    shutil.copy(os.path.join(HERE, "..", "examples", "aot", "run_gpu_model.py"),
                args.workdir)
    shutil.copy(os.path.join(HERE, "..", "test", "Models", "Inputs", "models.py"),
                args.workdir)
    return 0


def torch_times(name, batch, x, repeat):
    """PyTorch on the GPU: eager NCHW and channels_last + cuDNN, f32."""
    import torch
    sys.path.insert(0, HERE)
    import models  # the copy next to this script
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cudnn.benchmark = True
    model, _ = models.build(name)
    model = model.eval().cuda()
    result = {}
    for layout in ["nchw", "channels_last"]:
        m = model.to(memory_format=torch.channels_last) if layout == "channels_last" else model
        inp = torch.from_numpy(x).cuda()
        if layout == "channels_last":
            inp = inp.to(memory_format=torch.channels_last)
        with torch.no_grad():
            for _ in range(3):
                m(inp)
            torch.cuda.synchronize()
            times = []
            for _ in range(repeat):
                start = time.perf_counter()
                # The same end-to-end work as DLAS's entry: input over, result back.
                m(torch.from_numpy(x).cuda()).cpu()
                times.append((time.perf_counter() - start) * 1e3)
        times.sort()
        result[layout] = times[len(times) // 2]
    return result


def run(args):
    import numpy as np
    harness = os.path.join(args.workdir, "run_gpu_model.py")
    rows = []
    for batch_dir in sorted(d for d in os.listdir(args.workdir) if d.startswith("b")):
        batch = int(batch_dir[1:])
        for name in sorted(os.listdir(os.path.join(args.workdir, batch_dir))):
            base = os.path.join(args.workdir, batch_dir, name, name)
            if not os.path.exists(base + ".so"):
                continue
            proc = subprocess.run(
                [sys.executable, harness, base + ".so", "--input", base + ".input.npy",
                 "--expect", base + ".expected.npy", "--rtol", "1e-3", "--atol", "1e-3",
                 "--repeat", str(args.repeat)], capture_output=True, text=True)
            out = proc.stdout + proc.stderr
            ok = proc.returncode == 0 and "PASS" in out
            dlas_ms = None
            for line in out.splitlines():
                if line.startswith("time: median"):
                    dlas_ms = float(line.split()[2])
            peers = {}
            try:
                peers = torch_times(name, batch, np.load(base + ".input.npy"), args.repeat)
            except Exception as error:  # a missing torchvision, ...
                print(f"{name}: PyTorch not timed: {error}")
            row = {"model": name, "batch": batch, "check": "PASS" if ok else "FAIL",
                   "dlas_ms": dlas_ms, "torch_nchw_ms": peers.get("nchw"),
                   "torch_channels_last_ms": peers.get("channels_last")}
            rows.append(row)
            print(row if ok else out)
    with open(os.path.join(args.workdir, "results.csv"), "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]) if rows else ["model"])
        writer.writeheader()
        writer.writerows(rows)
    with open(os.path.join(args.workdir, "results.md"), "w") as f:
        f.write("| model | batch | check | DLAS ms | PyTorch NCHW ms | PyTorch channels_last ms |"
                " DLAS / best |\n|---|---|---|---|---|---|---|\n")
        for r in rows:
            best = min([t for t in (r["torch_nchw_ms"], r["torch_channels_last_ms"]) if t] or [0])
            ratio = f"{r['dlas_ms'] / best:.2f}x" if r["dlas_ms"] and best else "-"
            f.write(f"| {r['model']} | {r['batch']} | {r['check']} | {r['dlas_ms']} | "
                    f"{r['torch_nchw_ms']} | {r['torch_channels_last_ms']} | {ratio} |\n")
    return 0 if all(r["check"] == "PASS" for r in rows) else 1


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("prepare")
    p.add_argument("--workdir", required=True)
    p.add_argument("--target", default="cuda:sm_90")
    p.add_argument("--models", default="resnet18,resnet50,mobilenet_v2,wrn40_2_g2")
    p.add_argument("--batches", default="1,32")
    p.add_argument("--dlas-compile", default=os.path.join(HERE, "..", "build", "bin",
                                                           "dlas-compile"))
    r = sub.add_parser("run")
    r.add_argument("--workdir", default=HERE)
    r.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    return prepare(args) if args.command == "prepare" else run(args)


if __name__ == "__main__":
    sys.exit(main())
