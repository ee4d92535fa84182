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

With --cases FAMILIES, `prepare` also compiles every case of those families
of test/Integration/Inputs/nn_cases.py (each op kind at several shapes, with
PyTorch's answer) to a library of its own, and `run` checks each on the GPU.
With --weight-levels N the models' weights are rounded to N values per tensor
(test/Models/Inputs/models.py quantize_weights) and --pack writes the work
directory as one .tar.xz, so that resnet50 at two batches fits the 64 MiB a
GPU call may carry; the computation and its check are unchanged (f32, the
reference computed from the same rounded weights).

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


def precision_flags(precision, keep_f32_none=False, gpu_options=""):
    """dlas-compile's flags for a bench precision: tf32 is f32 layers on
    tensor cores (--allow-tf32), fp16/bf16 are --precision policies;
    gpu_options are more dlas-gpu-pipeline options (tensor-cores=always)."""
    extra = [f"--gpu-options={gpu_options}"] if gpu_options else []
    if precision == "tf32":
        return ["--allow-tf32"] + extra
    if precision == "f32":
        return extra
    return (["--precision", precision] + (["--keep-f32=none"] if keep_f32_none else [])
            + extra)


# A case computing in a narrower type is judged against PyTorch's f32
# answer as in gpu-mixed-precision.test: max |error| <= R * max |answer|,
# R four units of the type's rounding (bf16 2^-8, fp16 and tf32 2^-11),
# four times that for the chained network case.
CASE_MAX_REL_ERR = {"bf16": 1.6e-2, "fp16": 2e-3, "tf32": 2e-3}


def describe_input(base, seed):
    """Replaces a model's seeded input by its shape and a checksum: random
    floats do not compress (resnet50's at batch 32 is 19 MB of the 64 MiB a
    GPU call carries) and `run` makes them again from `seed` (the one
    models.export drew it with)."""
    import numpy as np
    x = np.load(base + ".input.npy")
    with open(base + ".input.json", "w") as f:
        json.dump({"shape": list(x.shape), "seed": seed,
                   "sum": float(x.astype(np.float64).sum()),
                   "first": [float(v) for v in x.reshape(-1)[:8]]}, f)
    os.remove(base + ".input.npy")


def regenerate_input(base):
    """The input describe_input left out, made again with the same seed
    and checked against its checksum (another PyTorch must draw the same
    numbers)."""
    import numpy as np
    import torch
    if os.path.exists(base + ".input.npy") or not os.path.exists(base + ".input.json"):
        return
    with open(base + ".input.json") as f:
        spec = json.load(f)
    x = torch.randn(*spec["shape"], generator=torch.Generator().manual_seed(spec["seed"]))
    x = x.numpy()
    same = (np.allclose(x.reshape(-1)[:8], spec["first"], rtol=0, atol=1e-6)
            and abs(float(x.astype(np.float64).sum()) - spec["sum"]) <= 1e-6 * x.size)
    if not same:
        sys.exit(f"{base}: this PyTorch's torch.randn(seed {spec['seed']}) draws other "
                 "numbers than the one that prepared the run; prepare without --pack")
    np.save(base + ".input.npy", x)


def prepare(args):
    sys.path.insert(0, os.path.join(HERE, "..", "test", "Models", "Inputs"))
    import models  # noqa: E402  (needs torch and torchvision here)
    os.makedirs(args.workdir, exist_ok=True)
    compile_times = {}
    for batch in [int(b) for b in args.batches.split(",")]:
        for name in args.models.split(","):
            folder = os.path.join(args.workdir, f"b{batch}")
            models.export(name, folder, batch=batch, weight_levels=args.weight_levels)
            base = os.path.join(folder, name, name)
            start = time.perf_counter()
            proc = subprocess.run(
                [args.dlas_compile, base + ".onnx", "--target", args.target,
                 *precision_flags(args.precision, gpu_options=args.gpu_options),
                 "-o", base + ".so"],
                capture_output=True, text=True)
            seconds = time.perf_counter() - start
            status = "ok" if proc.returncode == 0 else "FAIL"
            print(f"{status} {name} batch {batch}: compiled in {seconds:.1f} s")
            if proc.returncode:
                print(proc.stdout + proc.stderr)
            compile_times[f"{name}_b{batch}"] = {"seconds": seconds, "status": status}
            os.remove(base + ".onnx")  # the library holds the weights
            describe_input(base, models.INPUT_SEED)
    with open(os.path.join(args.workdir, "compile_times.json"), "w") as f:
        json.dump({"target": args.target, "precision": args.precision,
                   "gpu_options": args.gpu_options, "models": compile_times}, f, indent=2)
    failing = 0
    for n in [int(n) for n in args.gemm.split(",") if n]:
        # f32 GEMM n x n x n, both operands arguments (copied in each call;
        # `run` compares kernel times, not end to end).
        folder = os.path.join(args.workdir, "gemm")
        os.makedirs(folder, exist_ok=True)
        base = os.path.join(folder, f"gemm{n}")
        t = f"tensor<{n}x{n}xf32>"
        with open(base + ".mlir", "w") as f:
            f.write(f"func.func @main(%a: {t}, %b: {t}) -> {t} {{\n"
                    f"  %c = nn.matmul %a, %b : ({t}, {t}) -> {t}\n"
                    f"  return %c : {t}\n}}\n")
        # The GEMM is its function's classifier: keep no layer in f32.
        low = precision_flags(args.precision, keep_f32_none=True,
                              gpu_options=args.gpu_options)
        proc = subprocess.run([args.dlas_compile, base + ".mlir", "--target", args.target,
                               *low, "-o", base + ".so"], capture_output=True, text=True)
        print(f"{'ok' if proc.returncode == 0 else 'FAIL'} gemm {n}")
        failing |= proc.returncode
    if args.cases:
        proc = subprocess.run(
            [sys.executable, os.path.join(HERE, "..", "test", "Integration", "Inputs",
                                          "nn_cases.py"),
             "--family", args.cases, "--workdir", os.path.join(args.workdir, "cases"),
             "--aot-target", args.target, "--dlas-compile", args.dlas_compile,
             # Every layer of a case in the precision asked for.
             "--aot-flags=" + " ".join(precision_flags(args.precision, keep_f32_none=True,
                                                       gpu_options=args.gpu_options))],
            capture_output=True, text=True)
        print(proc.stdout.splitlines()[-1] if proc.stdout else proc.stderr)
        failing = proc.returncode
    shutil.copy(__file__, args.workdir)
    shutil.copy(os.path.join(HERE, "..", "examples", "aot", "run_gpu_model.py"),
                args.workdir)
    shutil.copy(os.path.join(HERE, "..", "test", "Models", "Inputs", "models.py"),
                args.workdir)
    if args.pack:
        # One xz stream with a dictionary wider than all libraries, so that a
        # model's weights at its second batch cost nothing.
        workdir = os.path.abspath(args.workdir)
        subprocess.run(["tar", "-C", os.path.dirname(workdir), "-cf", args.pack,
                        "-I", "xz -6 --lzma2=preset=6,dict=512MiB",
                        os.path.basename(workdir)], check=True)
        print(f"{args.pack}: {os.path.getsize(args.pack) / 2**20:.1f} MiB")
    return 1 if failing else 0


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


def run_cases(args, harness):
    """Every op case's library, several at once; returns (runs, failures)."""
    from concurrent.futures import ThreadPoolExecutor
    folder = os.path.join(args.workdir, "cases")
    if not os.path.isdir(folder):
        return 0, []
    names = sorted(f[:-3] for f in os.listdir(folder) if f.endswith(".so"))
    max_rel_err = CASE_MAX_REL_ERR.get(prepared_precision(args))

    def check(name):
        base = os.path.join(folder, name)
        inputs = sorted(f for f in os.listdir(folder)
                        if f.startswith(name + ".in") and f.endswith(".npy"))
        cmd = [sys.executable, harness, base + ".so", "--expect", base + ".expected.npy"]
        if max_rel_err:
            chained = 4 if name.startswith("network") else 1
            cmd += ["--max-rel-err", str(max_rel_err * chained)]
        else:
            cmd += ["--rtol", "1e-4", "--atol", "1e-4"]
        for f in inputs:
            cmd += ["--input", os.path.join(folder, f)]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        except subprocess.TimeoutExpired:
            return name, False, "timed out after 60 s\n"
        return name, proc.returncode == 0 and "FAIL" not in proc.stdout, proc.stdout + proc.stderr

    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(check, names))
    failures = [(n, out) for n, ok, out in results if not ok]
    with open(os.path.join(args.workdir, "cases.log"), "w") as f:
        for n, ok, out in results:
            f.write(f"{'ok  ' if ok else 'FAIL'} {n}\n" + ("" if ok else out))
    for n, out in failures:
        print(f"FAIL {n}\n{out}")
    print(f"op cases on the GPU: {len(names)} run, {len(failures)} failing")
    return len(names), failures


def kernel_ms(output):
    """The sum of kernel medians that run_gpu_model.py --profile printed."""
    for line in output.splitlines():
        if line.startswith("profile:"):
            return float(line.split("sum of medians")[1].split()[0])
    return None


def prepared_precision(args):
    """The --precision `prepare` compiled the libraries with."""
    try:
        with open(os.path.join(args.workdir, "compile_times.json")) as f:
            return json.load(f).get("precision", "f32")
    except OSError:
        return "f32"


def run_gemms(args, harness):
    """Each GEMM library's kernel time (device events) against torch.mm
    (cuBLAS, CUDA events: f32 with TF32 off, or in the libraries' fp16/bf16
    on tensor cores), with a check against torch's f32 product (of the
    inputs rounded to that type: the libraries round them too)."""
    import numpy as np
    import torch
    folder = os.path.join(args.workdir, "gemm")
    rows = []
    if not os.path.isdir(folder):
        return rows
    precision = prepared_precision(args)
    # The peer computes as the libraries do: cuBLAS in TF32 for tf32.
    torch.backends.cuda.matmul.allow_tf32 = precision == "tf32"
    for n in sorted(int(f[4:-3]) for f in os.listdir(folder) if f.endswith(".so")):
        base = os.path.join(folder, f"gemm{n}")
        rng = np.random.default_rng(n)
        a, b = (rng.standard_normal((n, n), dtype=np.float32) for _ in range(2))
        np.save(base + ".a.npy", a)
        np.save(base + ".b.npy", b)
        ta, tb = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()
        low = {"fp16": torch.float16, "bf16": torch.bfloat16}.get(precision)
        if low:
            ta, tb = ta.to(low), tb.to(low)
        np.save(base + ".expected.npy", torch.mm(ta.float(), tb.float()).cpu().numpy())
        # f32: 1e-3; rounded outputs: a few units of the type's rounding of
        # sums of magnitude sqrt(n).
        tol = ((4e-3 if precision == "fp16" else 3e-2) * n ** 0.5 if low
               else 2e-3 * n ** 0.5 if precision == "tf32" else 1e-3)
        proc = subprocess.run(
            [sys.executable, harness, base + ".so", "--input", base + ".a.npy", "--input",
             base + ".b.npy", "--expect", base + ".expected.npy", "--rtol", str(tol),
             "--atol", str(tol), "--repeat", "3", "--profile", "3"],
            capture_output=True, text=True, timeout=300)
        dlas = kernel_ms(proc.stdout)
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        times = []
        for _ in range(10):
            start.record()
            torch.mm(ta, tb)
            end.record()
            torch.cuda.synchronize()
            times.append(start.elapsed_time(end))
        cublas = sorted(times)[len(times) // 2]
        ok = proc.returncode == 0 and "PASS" in proc.stdout
        row = {"n": n, "precision": precision, "check": "PASS" if ok else "FAIL",
               "dlas_kernel_ms": dlas,
               "cublas_ms": cublas,
               "dlas_tflops": 2 * n**3 / dlas / 1e9 if dlas else None,
               "cublas_tflops": 2 * n**3 / cublas / 1e9}
        print(row if ok else proc.stdout + proc.stderr)
        rows.append(row)
    return rows


def run(args):
    import numpy as np
    harness = os.path.join(args.workdir, "run_gpu_model.py")
    case_runs, case_failures = run_cases(args, harness)
    gemms = run_gemms(args, harness)
    # f32 logits elementwise; narrower types by their largest error against
    # the largest f32 logit (elementwise tolerances fail bf16 on logits in
    # the hundreds, as the rounded weights give, at 3e-3 of the largest).
    judge = (["--rtol", "1e-3", "--atol", "1e-3"] if prepared_precision(args) == "f32"
             else ["--max-rel-err", "1e-2"])
    profiles = {}
    rows = []
    for batch_dir in sorted(d for d in os.listdir(args.workdir) if d.startswith("b")):
        batch = int(batch_dir[1:])
        for name in sorted(os.listdir(os.path.join(args.workdir, batch_dir))):
            base = os.path.join(args.workdir, batch_dir, name, name)
            if not os.path.exists(base + ".so"):
                continue
            regenerate_input(base)
            try:
                proc = subprocess.run(
                    [sys.executable, harness, base + ".so", "--input", base + ".input.npy",
                     "--expect", base + ".expected.npy", *judge,
                     "--repeat", str(args.repeat), "--profile", "12"],
                    capture_output=True, text=True, timeout=180)
                out = proc.stdout + proc.stderr
                ok = proc.returncode == 0 and "PASS" in out
            except subprocess.TimeoutExpired:
                out, ok = "timed out after 180 s", False
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
            profiles[f"{name} batch {batch}"] = "\n".join(
                l for l in out.splitlines() if l.startswith(("profile:", "  ")))
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
            ms = lambda t: f"{t:.3f}" if t else "-"  # noqa: E731
            f.write(f"| {r['model']} | {r['batch']} | {r['check']} | {ms(r['dlas_ms'])} | "
                    f"{ms(r['torch_nchw_ms'])} | {ms(r['torch_channels_last_ms'])} | {ratio} |\n")
        if gemms:
            f.write(f"\n| {gemms[0]['precision']} GEMM n | check | DLAS kernel ms | cuBLAS ms | DLAS TFLOP/s |"
                    " cuBLAS TFLOP/s | DLAS / cuBLAS speed |\n|---|---|---|---|---|---|---|\n")
            for g in gemms:
                speed = (f"{g['cublas_ms'] / g['dlas_kernel_ms']:.2f}"
                         if g["dlas_kernel_ms"] else "-")
                f.write(f"| {g['n']} | {g['check']} | {g['dlas_kernel_ms']} | "
                        f"{g['cublas_ms']:.3f} | {g['dlas_tflops'] or 0:.2f} | "
                        f"{g['cublas_tflops']:.2f} | {speed} |\n")
        f.write(f"\nOp cases (nn_cases.py, one library each): {case_runs} run, "
                f"{len(case_failures)} failing"
                + "".join(f"\n- FAIL {n}" for n, _ in case_failures) + "\n")
        for model, profile in profiles.items():
            f.write(f"\nKernels of {model} (median of 5 profiled runs):\n```\n{profile}\n```\n")
    ok = (all(r["check"] == "PASS" for r in rows + gemms) and not case_failures)
    return 0 if ok else 1


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("prepare")
    p.add_argument("--workdir", required=True)
    p.add_argument("--target", default="cuda:sm_90")
    p.add_argument("--models", default="resnet18,resnet50,mobilenet_v2,wrn40_2_g2")
    p.add_argument("--batches", default="1,32")
    p.add_argument("--gemm", default="", help="comma list of n: f32 n x n x n GEMMs "
                   "timed against cuBLAS (kernel time)")
    p.add_argument("--cases", default="",
                   help="nn_cases.py families to compile one library per case of")
    p.add_argument("--precision", default="f32",
                   help="every library's precision: f32, tf32 (--allow-tf32: f32 "
                   "layers on tensor cores), fp16 or bf16 (--precision, tensor cores)")
    p.add_argument("--gpu-options", default="",
                   help="more dlas-gpu-pipeline options for every library "
                        "(dlas-compile --gpu-options: tensor-cores=always, staged=always)")
    p.add_argument("--weight-levels", type=int, default=0,
                   help="round every weight to N values per tensor (0: exact)")
    p.add_argument("--pack", default="", help="also write the work directory as this .tar.xz")
    p.add_argument("--dlas-compile", default=os.path.join(HERE, "..", "build", "bin",
                                                           "dlas-compile"))
    r = sub.add_parser("run")
    r.add_argument("--workdir", default=HERE)
    r.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    return prepare(args) if args.command == "prepare" else run(args)


if __name__ == "__main__":
    sys.exit(main())
