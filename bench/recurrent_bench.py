#!/usr/bin/python3
"""Recurrent layers: DLAS against PyTorch (issue 14's benchmark).

For each network (default: LSTM and GRU, 4 layers x 1024 hidden, input
1024, sequence 100, batch 1; seeded weights) and each thread count:

* DLAS: torch.onnx.export of the torch.nn module compiled and run by
  `dlas-run` (median of --repeat runs after 2 warm-ups); its outputs are
  checked against PyTorch's (max |d - t| <= 1e-4 max |t|) in the same run;
* PyTorch 1.13 eager (no_grad, torch.set_num_threads, MKL/oneDNN's own
  RNN path), in a fresh process per dispatch: the default one and, when
  the target has AVX-512, ATEN_CPU_CAPABILITY=avx512; an AVX2 target on an
  AVX-512 host holds PyTorch to AVX2 as bench/run_bench.py does.

DLAS and PyTorch run back to back --rounds times and each keeps its best
median (the VM's speed drifts). Writes bench/results/<tag>-recurrent.md
and .csv with the host, target and thread counts.
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

HERE = os.path.dirname(os.path.abspath(__file__))


def build(kind, layers, hidden, seq, batch):
    import torch
    torch.manual_seed(0)
    cls = {"lstm": torch.nn.LSTM, "gru": torch.nn.GRU, "rnn": torch.nn.RNN}[kind]
    model = cls(hidden, hidden, num_layers=layers).eval()
    x = torch.randn(seq, batch, hidden, generator=torch.Generator().manual_seed(1))
    return model, x


def export(kind, layers, hidden, seq, batch, workdir):
    import numpy as np
    import torch
    model, x = build(kind, layers, hidden, seq, batch)
    with torch.no_grad():
        out = model(x)
    outputs = [out[0]] + (list(out[1]) if kind == "lstm" else [out[1]])
    base = os.path.join(workdir, f"{kind}_{layers}x{hidden}_s{seq}_b{batch}")
    torch.onnx.export(model, x, base + ".onnx", opset_version=14, input_names=["x"],
                      output_names=["y", "h", "c"][:len(outputs)])
    np.save(base + ".input.npy", x.numpy())
    for i, o in enumerate(outputs):
        np.save(f"{base}.expected{i}.npy", o.numpy())
    return base, len(outputs)


def torch_worker(spec, threads, repeat):
    import torch
    kind, layers, hidden, seq, batch = spec.split(":")
    model, x = build(kind, int(layers), int(hidden), int(seq), int(batch))
    torch.set_num_threads(threads)
    times = []
    with torch.no_grad():
        for _ in range(2):
            model(x)
        for _ in range(repeat):
            t0 = time.perf_counter()
            model(x)
            times.append((time.perf_counter() - t0) * 1e3)
    print(json.dumps({"ms": statistics.median(times)}))


def time_torch(spec, threads, repeat, capability, isa_env):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), **isa_env)
    if capability == "avx512":
        env["ATEN_CPU_CAPABILITY"] = "avx512"
    proc = subprocess.run([sys.executable, __file__, "--torch-worker", spec, "--threads",
                           str(threads), "--repeat", str(repeat)],
                          capture_output=True, text=True, env=env, timeout=3600)
    if proc.returncode != 0:
        sys.exit(f"PyTorch worker failed for {spec}: {proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])["ms"]


def time_dlas(dlas_run, base, outputs, threads, repeat, target):
    cmd = [dlas_run, base + ".onnx", "--target", target, "--input", base + ".input.npy",
           "--max-rel-err", "1e-4", "--num-threads", str(threads), "--warmup", "2",
           "--repeat", str(repeat)]
    for i in range(outputs):
        cmd += ["--expect", f"{base}.expected{i}.npy"]
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=3600)
    ok = proc.returncode == 0 and proc.stdout.rstrip().endswith("PASS")
    if not ok:
        print(proc.stdout + proc.stderr)
    median = re.search(r"median ([0-9.]+) ms", proc.stdout)
    compile_ms = re.search(r"compiled '\w+' in ([0-9.]+) ms", proc.stdout)
    return (float(median.group(1)) if median else None,
            float(compile_ms.group(1)) if compile_ms else None, ok)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nets", default="lstm:4:1024:100:1,gru:4:1024:100:1",
                        help="kind:layers:hidden:seq:batch, comma-separated")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--dlas-run", default="build/bin/dlas-run")
    parser.add_argument("--workdir", default="build/bench/recurrent")
    parser.add_argument("--out", default=os.path.join(HERE, "results"))
    parser.add_argument("--tag", default=datetime.date.today().isoformat())
    parser.add_argument("--target", default="host")
    parser.add_argument("--torch-worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.torch_worker:
        return torch_worker(args.torch_worker, int(args.threads), args.repeat)
    sys.path.insert(0, HERE)
    from run_bench import host_description, peer_isa_env, target_vector_bits
    vector_bits = target_vector_bits(
        args.target, os.path.join(os.path.dirname(args.dlas_run), "dlas-opt"))
    isa_env = peer_isa_env(vector_bits)
    capabilities = ["default"] + (["avx512"] if vector_bits >= 512 else [])
    os.makedirs(args.workdir, exist_ok=True)
    os.makedirs(args.out, exist_ok=True)
    rows = []
    for spec in args.nets.split(","):
        kind, layers, hidden, seq, batch = spec.split(":")
        base, outputs = export(kind, int(layers), int(hidden), int(seq), int(batch),
                               args.workdir)
        for threads in [int(t) for t in args.threads.split(",")]:
            dlas_ms, compile_ms, ok, torch_ms = None, None, True, {}
            for _ in range(args.rounds):
                d, c, round_ok = time_dlas(args.dlas_run, base, outputs, threads,
                                           args.repeat, args.target)
                ok = ok and round_ok
                if d is not None:
                    dlas_ms = d if dlas_ms is None else min(dlas_ms, d)
                compile_ms = c if compile_ms is None else min(compile_ms, c or compile_ms)
                for capability in capabilities:
                    ms = time_torch(spec, threads, args.repeat, capability, isa_env)
                    torch_ms[capability] = min(torch_ms.get(capability, ms), ms)
            best = min(torch_ms, key=torch_ms.get)
            row = {"net": spec, "threads": threads, "dlas_ms": dlas_ms,
                   "dlas_compile_ms": compile_ms, "dlas_check": "ok" if ok else "FAIL",
                   **{f"torch_{k}_ms": v for k, v in torch_ms.items()},
                   "torch_best_ms": torch_ms[best],
                   "dlas/torch_best": dlas_ms / torch_ms[best] if dlas_ms else None}
            rows.append(row)
            print(f"{spec:<22} t={threads} dlas {dlas_ms or 0:8.2f} ms ({row['dlas_check']}) "
                  f"torch best {torch_ms[best]:8.2f} ms ({best}) "
                  f"ratio {row['dlas/torch_best'] or 0:.2f}", flush=True)
    path = os.path.join(args.out, f"{args.tag}-recurrent")
    with open(path + ".csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        writer.writeheader()
        writer.writerows(rows)
    fmt = lambda v: "-" if v is None else f"{v:.2f}"
    with open(path + ".md", "w") as f:
        f.write(f"# Recurrent layers: DLAS vs PyTorch ({args.tag})\n\n"
                f"`bench/recurrent_bench.py --nets {args.nets} --threads {args.threads} "
                f"--repeat {args.repeat} --rounds {args.rounds} --target {args.target}`\n\n"
                f"- host: {host_description()}\n- target: {args.target} ({vector_bits}-bit vectors)\n"
                f"- nets: kind:layers:hidden:seq:batch (input size = hidden)\n"
                f"- PyTorch 1.13 eager, no_grad; dispatch {', '.join(capabilities)}"
                f"{'; held to AVX2: ' + ', '.join(f'{k}={v}' for k, v in isa_env.items()) if isa_env else ''}\n\n"
                "Medians in ms (best of the back-to-back rounds). DLAS's outputs checked "
                "against PyTorch's (max rel err <= 1e-4) in the same run.\n\n"
                "| net | threads | DLAS ms | DLAS compile ms | "
                + " | ".join(f"PyTorch {c} ms" for c in capabilities)
                + " | DLAS/best PyTorch | check |\n|" + "---|" * (len(capabilities) + 6) + "\n")
        for r in rows:
            f.write(f"| {r['net']} | {r['threads']} | {fmt(r['dlas_ms'])} | "
                    f"{fmt(r['dlas_compile_ms'])} | "
                    + " | ".join(fmt(r[f'torch_{c}_ms']) for c in capabilities)
                    + f" | {fmt(r['dlas/torch_best'])} | {r['dlas_check']} |\n")
    print(f"wrote {path}.md, .csv")
    return 1 if any(r["dlas_check"] != "ok" for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
