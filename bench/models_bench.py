#!/usr/bin/python3
"""Whole models: DLAS against PyTorch's best CPU configuration.

For each model (torchvision, seeded random weights and trained-looking
batch-norm statistics, batch 1, 224x224) and each thread count:

* DLAS: the ONNX export compiled and run by `dlas-run` (median of --repeat
  runs after 50 warm-ups: the first tens of calls of a 2-thread process
  ran up to 2x slower on the Zen 4 VM), its output checked against PyTorch's
  (max |d - t| <= 1e-4 max |t|) in the same run;
* PyTorch 1.13 in every configuration that changes its speed, each in a
  fresh process (median of --repeat runs after 3 warm-ups, no_grad,
  torch.set_num_threads): eager NCHW, eager channels_last,
  jit.trace + jit.freeze + optimize_for_inference (NCHW and channels_last),
  each with the default dispatch and, where the host and the target have
  AVX-512, with ATEN_CPU_CAPABILITY=avx512. For an AVX2 target on an
  AVX-512 host PyTorch is held to AVX2 (ATEN_CPU_CAPABILITY=avx2,
  ONEDNN_MAX_CPU_ISA=AVX2, OPENBLAS_CORETYPE=Haswell).

--target (default host) is the CPU DLAS compiles for (dlas-run --target).

The best PyTorch time is the reference of the DLAS/PyTorch ratio. Writes
bench/results/<tag>-models.md and .csv.
"""
import argparse
import csv
import datetime
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "test", "Models", "Inputs"))
from models import export  # noqa: E402  (the model zoo of the tests)

TORCH_CONFIGS = ["eager", "eager_cl", "frozen", "frozen_cl"]


def torch_worker(name, threads, repeat):
    """Times `name` in every TORCH_CONFIGS configuration; prints JSON."""
    import torch
    from models import build, torch_latency
    model, shape = build(name)
    x = torch.randn(*shape, generator=torch.Generator().manual_seed(2))
    times = {}
    # Video models' 5-D tensors have their own channels-last format.
    last = torch.channels_last_3d if len(shape) == 5 else torch.channels_last
    for config in TORCH_CONFIGS:
        channels_last = config.endswith("_cl")
        m = model.to(memory_format=last if channels_last
                     else torch.contiguous_format)
        xin = x.to(memory_format=last) if channels_last else x
        if config.startswith("frozen"):
            with torch.no_grad():
                m = torch.jit.optimize_for_inference(
                    torch.jit.freeze(torch.jit.trace(m, xin)))
        times[config] = torch_latency(m, xin, threads, repeat)
    print(json.dumps(times))


def time_torch(name, threads, repeat, capabilities, isa_env):
    """{config: ms} over TORCH_CONFIGS x `capabilities` dispatch."""
    result = {}
    for capability in capabilities:
        env = dict(os.environ, OMP_NUM_THREADS=str(threads), **isa_env)
        if capability == "avx512":
            env["ATEN_CPU_CAPABILITY"] = "avx512"
        proc = subprocess.run([sys.executable, __file__, "--torch-worker", name,
                               "--threads", str(threads), "--repeat", str(repeat)],
                              capture_output=True, text=True, env=env, timeout=3600)
        if proc.returncode != 0:
            sys.exit(f"PyTorch worker failed for {name}: {proc.stderr}")
        for config, ms in json.loads(proc.stdout.strip().splitlines()[-1]).items():
            result[f"{config}/{capability}"] = ms
    return result


def time_dlas(dlas_run, base, threads, repeat, target, extra=()):
    cmd = [dlas_run, base + ".onnx", "--target", target, *extra, "--input", base + ".input.npy",
           "--expect", base + ".expected.npy", "--max-rel-err", "1e-4",
           "--num-threads", str(threads), "--warmup", "50", "--repeat", str(repeat)]
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=3600)
    out = proc.stdout
    ok = proc.returncode == 0 and out.rstrip().endswith("PASS")
    median = re.search(r"median ([0-9.]+) ms", out)
    compile_ms = re.search(r"compiled '\w+' in ([0-9.]+) ms", out)
    if not ok:
        print(out + proc.stderr)
    return (float(median.group(1)) if median else None,
            float(compile_ms.group(1)) if compile_ms else None, ok)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", default="resnet50,mobilenet_v2")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=2,
                        help="back-to-back DLAS/PyTorch rounds (best median of each)")
    parser.add_argument("--dlas-run", default="build/bin/dlas-run")
    parser.add_argument("--workdir", default="build/bench/models")
    parser.add_argument("--out", default=os.path.join(HERE, "results"))
    parser.add_argument("--tag", default=datetime.date.today().isoformat())
    parser.add_argument("--target", default="host",
                        help="CPU DLAS compiles for (host, x86-64-v3, x86-64-v4, ...)")
    parser.add_argument("--dlas-args", default="",
                        help="extra dlas-run arguments, e.g. '--gspc=never'")
    parser.add_argument("--torch-worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.torch_worker:
        return torch_worker(args.torch_worker, int(args.threads), args.repeat)
    from run_bench import host_description, peer_isa_env, target_vector_bits
    vector_bits = target_vector_bits(
        args.target, os.path.join(os.path.dirname(args.dlas_run), "dlas-opt"))
    isa_env = peer_isa_env(vector_bits)
    capabilities = ["default"] + (["avx512"] if vector_bits >= 512 else [])
    host = host_description()
    os.makedirs(args.workdir, exist_ok=True)
    os.makedirs(args.out, exist_ok=True)
    rows = []
    for name in args.models.split(","):
        _, _, base = export(name, args.workdir)
        for threads in [int(t) for t in args.threads.split(",")]:
            # DLAS and PyTorch back to back, --rounds times; each keeps its
            # best median (the VM's speed drifts over minutes).
            dlas_ms, compile_ms, ok, torch_ms = None, None, True, {}
            for _ in range(args.rounds):
                d, c, round_ok = time_dlas(args.dlas_run, base, threads, args.repeat,
                                           args.target, args.dlas_args.split())
                ok = ok and round_ok
                compile_ms = c if compile_ms is None else min(compile_ms, c or compile_ms)
                if d is not None:
                    dlas_ms = d if dlas_ms is None else min(dlas_ms, d)
                for config, ms in time_torch(name, threads, args.repeat, capabilities,
                                             isa_env).items():
                    torch_ms[config] = min(torch_ms.get(config, ms), ms)
            best = min(torch_ms, key=torch_ms.get)
            row = {"model": name, "threads": threads, "dlas_ms": dlas_ms,
                   "dlas_compile_ms": compile_ms, "dlas_check": "ok" if ok else "FAIL",
                   **{f"torch_{k}_ms": v for k, v in torch_ms.items()},
                   "torch_best": best, "torch_best_ms": torch_ms[best],
                   "dlas/torch_best": dlas_ms / torch_ms[best] if dlas_ms else None}
            rows.append(row)
            print(f"{name:<14} t={threads} dlas {dlas_ms or 0:8.2f} ms ({row['dlas_check']}) "
                  f"torch best {torch_ms[best]:8.2f} ms ({best}) "
                  f"ratio {row['dlas/torch_best'] or 0:.2f}", flush=True)

    path = os.path.join(args.out, f"{args.tag}-models")
    with open(path + ".csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        writer.writeheader()
        writer.writerows(rows)
    configs = [k for k in rows[0] if k.startswith("torch_") and k.endswith("/default_ms")
               or k.startswith("torch_") and k.endswith("/avx512_ms")]
    with open(path + ".md", "w") as f:
        f.write(f"# Whole models: DLAS vs PyTorch's best configuration ({args.tag})\n\n"
                f"`bench/models_bench.py --models {args.models} --threads {args.threads} "
                f"--repeat {args.repeat} --rounds {args.rounds} --target {args.target}`.\n\n"
                f"- host: {host}\n- target: {args.target} ({vector_bits}-bit vectors)\n"
                f"- PyTorch: {'held to AVX2: ' + ', '.join(f'{k}={v}' for k, v in isa_env.items()) if isa_env else 'the host ISA'}\n\n"
                "Medians in ms (best of the "
                "back-to-back rounds, DLAS and PyTorch alike), batch 1. PyTorch configurations: "
                "eager or jit.freeze + optimize_for_inference (`frozen`), NCHW or "
                "channels_last (`_cl`), default dispatch or (AVX-512 targets) ATEN_CPU_CAPABILITY=avx512. "
                "DLAS output checked against PyTorch (max rel err <= 1e-4) in the same run.\n\n")
        f.write("| model | threads | DLAS ms | DLAS compile ms | "
                + " | ".join(c[len("torch_"):-len("_ms")] for c in configs)
                + " | best PyTorch | DLAS/best | check |\n|"
                + "---|" * (len(configs) + 7) + "\n")
        for r in rows:
            fmt = lambda v: "-" if v is None else f"{v:.2f}"
            f.write(f"| {r['model']} | {r['threads']} | {fmt(r['dlas_ms'])} | "
                    f"{fmt(r['dlas_compile_ms'])} | "
                    + " | ".join(fmt(r[c]) for c in configs)
                    + f" | {r['torch_best']} | {fmt(r['dlas/torch_best'])} | {r['dlas_check']} |\n")
    print(f"wrote {path}.md, .csv")
    return 1 if any(r["dlas_check"] != "ok" for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
