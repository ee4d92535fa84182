#!/usr/bin/env python3
"""Compile time from ONNX to runnable code, per stage, with and without the
compile-time measures (dlas-dedupe-layers, parallel LLVM).

For each model and configuration, `dlas-run MODEL --time-stages --repeat 0`
is run --runs times, the configurations interleaved (this VM's speed drifts
over minutes), and the run with the smallest total is kept. Writes a
markdown table naming the host, the target and the thread counts.

    bench/compile_time.py --models-dir build/bench/models \\
        --models resnet50,googlenet,densenet121 --target x86-64-v3 \\
        --out bench/results/DATE-compile-time.md
"""
import argparse
import os
import platform
import re
import subprocess
import sys

STAGES = re.compile(r"stages: import ([0-9.]+) ms, passes ([0-9.]+) ms, "
                    r"LLVM ([0-9.]+) ms, total ([0-9.]+) ms")


def configurations(target):
    base = f"target={target} external-weights=1"
    return [
        ("no dedupe, 1 LLVM thread",
         ["--pipeline",
          f"builtin.module(dlas-cpu-pipeline{{{base} dedupe-layers=0}})",
          "--compile-threads", "1"]),
        ("dedupe, 1 LLVM thread", ["--target", target, "--compile-threads", "1"]),
        ("dedupe, all LLVM threads", ["--target", target, "--compile-threads", "0"]),
    ]


def run_once(dlas_run, model, args):
    out = subprocess.run([dlas_run, model, "--time-stages", "--repeat", "0",
                          "--random-inputs"] + args,
                         capture_output=True, text=True, timeout=600)
    match = STAGES.search(out.stdout)
    if out.returncode != 0 or not match:
        sys.exit(f"dlas-run failed on {model}: {out.stderr or out.stdout}")
    return tuple(float(x) for x in match.groups())


def host_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dlas-run", default="build/bin/dlas-run")
    parser.add_argument("--models-dir", default="build/bench/models")
    parser.add_argument("--models", default="resnet50,googlenet,densenet121")
    parser.add_argument("--target", default="x86-64-v3")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()

    configs = configurations(args.target)
    best = {}
    for model in args.models.split(","):
        path = os.path.join(args.models_dir, model + ".onnx")
        if not os.path.exists(path):
            sys.exit(f"no {path}: `make bench MODELS={model}` exports it")
        for _ in range(args.runs):
            for name, extra in configs:
                stages = run_once(args.dlas_run, path, extra)
                key = (model, name)
                if key not in best or stages[3] < best[key][3]:
                    best[key] = stages
                print(model, name, stages, flush=True)

    with open(args.out, "w") as f:
        f.write(f"# Compile time, ONNX to runnable code ({args.target})\n\n")
        f.write(f"Host: {host_name()}, {os.cpu_count()} cores. "
                f"`dlas-run MODEL --target {args.target} --time-stages "
                f"--repeat 0`, best total of {args.runs} interleaved runs "
                f"(`bench/compile_time.py`). Import: ONNX to nn; passes: the "
                f"MLIR pipeline; LLVM: translation, optimization (O3), code "
                f"generation and linking.\n\n")
        f.write("| model | configuration | import ms | passes ms | LLVM ms | total ms |\n")
        f.write("|---|---|---|---|---|---|\n")
        for model in args.models.split(","):
            for name, _ in configs:
                i, p, l, t = best[(model, name)]
                f.write(f"| {model} | {name} | {i:.0f} | {p:.0f} | {l:.0f} | "
                        f"**{t:.0f}** |\n")
    print("wrote", args.out)


if __name__ == "__main__":
    main()
