#!/usr/bin/python3
"""The ResNet-50 conv set in int8 (or bf16): DLAS against DLAS f32 and oneDNN.

For each of ResNet-50's 23 distinct convolutions (batch 1, 224x224, with a
bias; weighted by how often the model runs it), back to back at each
thread count:

* DLAS f32: `dlas-run --target T` on the layer (`nn.conv2d`, constant
  weights);
* DLAS int8: `dlas-run --precision int8 --keep-f32 none` from a
  calibration of the layer on two seeded non-negative samples (post-ReLU
  activations): the layer quantizes its f32 input, runs the int8 kernel and
  dequantizes into f32, as every int8 layer of a model does; its output is
  checked against PyTorch's f32 (relative L2 at most 5e-2);
* oneDNN f32 and int8 (bench/peers: `conv` and `conv8`, u8 source, s8
  weights, per-channel output scales into f32).

With `--io int8` (int8 only): the DLAS int8 layer takes the i8 tensor the
previous int8 layer of a network hands it (dlas-hoist-quantize and
dlas-quantize-residuals make int8 layers exchange i8) and dequantizes into
f32, as oneDNN's `conv8` takes u8 and writes f32: the module is the
layer after `dlas-mixed-precision{policy=int8}` with the quantize of its
input removed, and the input is the f32 sample quantized in numpy with the
same scale and zero point (round half to even, saturated).

With `--precision bf16`: DLAS bf16 (`--precision bf16 --keep-f32 none`,
checked against PyTorch's f32 within 1.6e-2) against oneDNN's bf16
convolution (`convbf16`: bf16 source and weights, f32 destination).

With `--blocked-entry` (int8 or bf16 with `--io int8`/`--io bf16`): the
DLAS low-precision layer takes and returns its activations in the blocked
layout `[N, C/b, H, W, b]` (`dlas-run --blocked-entry`; inputs and expected
outputs converted in numpy), as oneDNN's `format_tag::any` whose reorders
are outside its timed loop, and as the layers inside a blocked int8/bf16
network exchange them (the int8 and bf16 blocked direct convolutions);
DLAS f32 stays NCHW.

Writes bench/results/<tag>.md.

    bench/int8_convset.py --target x86-64-v3 --threads 1 --tag 2026-11-26-int8-convset-x86-64-v3
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
from run_bench import RESNET50, host_description, run_peers  # noqa: E402
from sparse_pool_bench import fmt, ratio  # noqa: E402


def ttype(shape):
    return "tensor<" + "x".join(map(str, shape)) + "xf32>"


def blob(a):
    return "0x04000000" + np.ascontiguousarray(a, dtype="<f4").tobytes().hex()


def module(c, f, k, s, h, w, b):
    p = k // 2
    o = (h + 2 * p - k) // s + 1
    x, y = [1, c, h, h], [1, f, o, o]
    return "\n".join([
        f"func.func @main(%x: {ttype(x)}) -> {ttype(y)} {{",
        f"  %w = arith.constant dense_resource<weight> : {ttype(w.shape)}",
        f"  %b = arith.constant dense_resource<bias> : {ttype(b.shape)}",
        f"  %y = nn.conv2d %x, %w, %b {{strides = array<i64: {s}, {s}>, "
        f"padding = array<i64: {p}, {p}, {p}, {p}>}} : ({ttype(x)}, {ttype(w.shape)}, "
        f"{ttype(b.shape)}) -> {ttype(y)}",
        f"  return %y : {ttype(y)}", "}",
        "{-#", "  dialect_resources: {", "    builtin: {",
        f'      weight: "{blob(w)}",', f'      bias: "{blob(b)}"',
        "    }", "  }", "#-}", ""])


def bf16_bits(a):
    """`a` rounded to bf16 (PyTorch's rounding): the raw 2-byte records dlas-run
    reads as bf16 (numpy's '<V2'), and the rounded values as f32."""
    t = torch.from_numpy(np.ascontiguousarray(a)).to(torch.bfloat16)
    return t.view(torch.int16).numpy().view("<V2"), t.float().numpy()


def bf16_module(c, f, k, s, h, w, b):
    """The layer on bf16 tensors: bf16 input, weights, bias and output (f32
    accumulation), as a layer of a bf16 network runs."""
    text = module(c, f, k, s, h, w, b).replace("xf32>", "xbf16>")
    for name, values in (("weight", w), ("bias", b)):
        raw, _ = bf16_bits(values)
        text = text.replace(f'{name}: "{blob(values)}"',
                            f'{name}: "0x02000000{np.ascontiguousarray(raw).tobytes().hex()}"')
    return text


QUANTIZE_INPUT = re.compile(
    r"(%[0-9A-Za-z_]+) = nn\.quantize %arg0 \{scales = array<f32: ([^>]+)>, "
    r"zero_points = array<i64: (-?[0-9]+)>\} : tensor<([0-9x]+)xf32> to tensor<\4xi8>\n")


def int8_input_module(args, base, x):
    """`dlas-run` arguments for the layer on an i8 input (`--io int8`): the
    layer quantized by dlas-mixed-precision with the calibration, its input's
    quantize removed (the entry takes the i8 tensor), and `x` quantized as
    nn.quantize does."""
    # The target decides the weights' scale (7-bit on vpmaddubsw targets).
    name, _, features = args.target.partition(":")
    attach = f"target={name}" + (f" features={features.replace(':', ',')}" if features else "")
    proc = subprocess.run([args.dlas_opt, base + ".mlir", f"--dlas-attach-target={attach}",
                           "--dlas-mixed-precision=policy=int8 "
                           f"calibration={base}.calib.json keep-f32=none"],
                          capture_output=True, text=True, timeout=600)
    match = QUANTIZE_INPUT.search(proc.stdout)
    if proc.returncode != 0 or not match:
        print(proc.stdout[-2000:] + proc.stderr, file=sys.stderr)
        print(f"{base}: no per-tensor quantize of the input to remove", file=sys.stderr)
        return None
    value, scale, zero_point, shape = match.groups()
    text = proc.stdout.replace(match.group(0), "")
    text = text.replace(f"%arg0: tensor<{shape}xf32>", f"%arg0: tensor<{shape}xi8>")
    text = re.sub(re.escape(value) + r"\b", "%arg0", text)
    with open(base + ".i8.mlir", "w") as out:
        out.write(text)
    q = np.clip(np.round(x / np.float32(scale)) + int(zero_point), -128, 127)
    np.save(base + ".x.i8.npy", q.astype(np.int8))
    return [base + ".i8.mlir", "--input", base + ".x.i8.npy", "--sparsify", "never",
            "--expect", base + ".y.npy", "--max-rel-err", "5e-2"]


def to_blocked(a, block):
    """NCHW `a` as [N, C/block, H, W, block]."""
    n, c, h, w = a.shape
    return np.ascontiguousarray(a.reshape(n, c // block, block, h, w).transpose(0, 1, 3, 4, 2))


def blocked_entry(args, base, cmd, input_suffix):
    """`cmd` (the int8 or bf16 run on base + input_suffix) with its input and
    expected output in the blocked layout of the target's f32 vector width,
    and --blocked-entry."""
    name, _, features = args.target.partition(":")
    block = 16 if name == "x86-64-v4" or "avx512" in features else 8
    x = np.load(base + input_suffix)
    y = np.load(base + ".y.npy")
    if x.shape[1] % block or y.shape[1] % block:
        return cmd  # the layer stays NCHW (dlas-blocked-layout)
    blocked_x = base + input_suffix.replace(".npy", ".blocked.npy")
    np.save(blocked_x, to_blocked(x, block))
    np.save(base + ".y.blocked.npy", to_blocked(y, block))
    cmd = [blocked_x if a == base + input_suffix else
           base + ".y.blocked.npy" if a == base + ".y.npy" else a for a in cmd]
    return cmd + ["--blocked-entry"]


def dlas(args, cmd, threads):
    name, _, features = args.target.partition(":")
    cmd = [args.dlas_run] + cmd + ["--target", name] + (
        ["--target-features", features] if features else []) + ["--num-threads", str(threads),
                                   "--warmup", "2", "--repeat", str(args.repeat)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
    t = re.search(rf"{args.stat} ([0-9.]+) ms", proc.stdout)
    if proc.returncode != 0 or not t:
        print(proc.stdout + proc.stderr, file=sys.stderr)
        return None, proc.stdout
    return float(t.group(1)), proc.stdout


def peer_line(kind, c, f, k, s, h):
    p = k // 2
    return f"{kind} 1 {c} {h} {h} {f} {k} {k} {s} {s} {p} {p} {p} {p} 1 1 1"


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--target", default="host",
                        help="cpu or cpu:+features (sapphirerapids:-amx-tile)")
    parser.add_argument("--threads", default="1")
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=2,
                        help="DLAS runs per layer and precision, interleaved; the best median is kept")
    parser.add_argument("--stat", default="median", choices=["median", "min"],
                        help="each run's figure, for DLAS and oneDNN alike: the median of its "
                             "timed runs, or their minimum (steadier on a VM whose neighbours "
                             "come and go: noise only ever adds time)")
    parser.add_argument("--layers", default="", help="comma-separated names (default all)")
    parser.add_argument("--precision", default="int8", choices=["int8", "bf16"])
    parser.add_argument("--io", default="f32", choices=["f32", "bf16", "int8"],
                        help="bf16: the DLAS bf16 layer reads and writes bf16 tensors "
                             "(as inside a bf16 network) instead of converting f32 ones; "
                             "int8: the DLAS int8 layer reads an i8 tensor (writes f32)")
    parser.add_argument("--blocked-entry", action="store_true",
                        help="int8 with --io int8: the DLAS int8 layer takes and returns "
                             "activations in the blocked layout [N, C/b, H, W, b] "
                             "(dlas-run --blocked-entry), as oneDNN's format_tag::any "
                             "(whose reorders are outside its timed loop) and as the "
                             "layers inside a blocked int8 network exchange them")
    parser.add_argument("--dlas-opt", default="build/bin/dlas-opt")
    parser.add_argument("--dlas-run", default="build/bin/dlas-run")
    parser.add_argument("--peers", default="build/bench/peers")
    parser.add_argument("--workdir", default="build/bench/int8-convset")
    parser.add_argument("--tag", default=datetime.date.today().isoformat() + "-int8-convset")
    parser.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "results"))
    args = parser.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    wanted = set(filter(None, args.layers.split(",")))
    layers = [l for l in RESNET50 if not wanted or l[0] in wanted]
    rng = np.random.default_rng(5)
    rows, failed = [], 0
    for name, c, f, k, s, h, count in layers:
        base = os.path.join(args.workdir, name)
        w = (rng.standard_normal((f, c, k, k)) * np.sqrt(2.0 / (c * k * k))).astype(np.float32)
        b = (rng.standard_normal(f) * 0.1).astype(np.float32)
        with open(base + ".mlir", "w") as out:
            out.write(module(c, f, k, s, h, w, b))
        os.makedirs(base + ".samples", exist_ok=True)
        for i in range(2):
            np.save(f"{base}.samples/{i}.npy",
                    np.abs(rng.standard_normal((1, c, h, h))).astype(np.float32))
        x = np.abs(rng.standard_normal((1, c, h, h))).astype(np.float32)
        np.save(base + ".x.npy", x)
        y = F.conv2d(torch.from_numpy(x), torch.from_numpy(w), torch.from_numpy(b),
                     stride=s, padding=k // 2).numpy()
        np.save(base + ".y.npy", y)
        calib = subprocess.run(['true'], capture_output=True) if args.precision == "bf16" else subprocess.run([args.dlas_run, base + ".mlir", "--calibrate", base + ".samples",
                                "--calibration", base + ".calib.json", "--sparsify", "never"],
                               capture_output=True, text=True, timeout=1800)
        if calib.returncode != 0:
            print(calib.stdout + calib.stderr, file=sys.stderr)
            failed += 1
            continue
        common = [base + ".mlir", "--input", base + ".x.npy", "--sparsify", "never"]
        if args.precision == "int8" and args.io == "int8":
            int8 = int8_input_module(args, base, x)
            if int8 is None:
                failed += 1
                continue
            if args.blocked_entry:
                int8 = blocked_entry(args, base, int8, ".x.i8.npy")
        elif args.precision == "int8":
            int8 = common + ["--precision", "int8", "--calibration", base + ".calib.json",
                             "--keep-f32", "none", "--expect", base + ".y.npy",
                             "--max-rel-err", "5e-2"]
        elif args.io == "bf16":
            with open(base + ".bf16.mlir", "w") as out:
                out.write(bf16_module(c, f, k, s, h, w, b))
            np.save(base + ".x.bf16.npy", bf16_bits(x)[0])
            int8 = [base + ".bf16.mlir", "--input", base + ".x.bf16.npy", "--sparsify",
                    "never", "--expect", base + ".y.npy", "--max-rel-err", "1.6e-2"]
            if args.blocked_entry:
                int8 = blocked_entry(args, base, int8, ".x.bf16.npy")
        else:
            int8 = common + ["--precision", "bf16", "--keep-f32", "none", "--expect",
                             base + ".y.npy", "--max-rel-err", "1.6e-2"]
        for t in (int(v) for v in args.threads.split(",")):
            best = {}
            # oneDNN runs in every round too, between DLAS's runs: on a
            # shared VM whose speed drifts over minutes, both sides keep
            # the best of the same rounds.
            peers = {}
            for _ in range(args.rounds):
                for label, cmd in (("f32", common), ("int8", int8)):
                    ms, out = dlas(args, cmd, t)
                    if ms is None or (label == "int8" and "PASS" not in out):
                        failed += 1
                        continue
                    best[label] = min(ms, best.get(label, ms))
                for line in run_peers(args.peers, [peer_line("conv", c, f, k, s, h),
                                                   peer_line("conv8" if args.precision == "int8"
                                                             else "convbf16", c, f, k, s, h)], t):
                    parts = line.split()
                    if len(parts) >= 2:
                        ms = float(parts[1 if args.stat == "median" else 2])
                        peers[parts[0]] = min(ms, peers.get(parts[0], ms))
            row = (name, count, t, best.get("f32"), best.get("int8"), peers.get("onednn"),
                   peers.get("onednn_int8" if args.precision == "int8" else "onednn_bf16"))
            print(" ".join(str(v) for v in row), flush=True)
            rows.append(row)
    write(args, rows)
    print(f"{args.precision}-convset: {len(rows)} rows, {failed} failed runs")
    return 1 if failed else 0


def write(args, rows):
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, args.tag + ".md")
    with open(path, "w") as out:
        lp = args.precision
        out.write(f"# ResNet-50 conv set in {lp} ({args.tag})\n\n")
        out.write(f"Host: {host_description()}. DLAS target: {args.target}.\n")
        out.write(f"Command: `bench/int8_convset.py --target {args.target} --threads "
                  f"{args.threads} --precision {lp}"
                  + (f" --io {args.io}" if args.io != "f32" else "")
                  + (" --blocked-entry" if args.blocked_entry else "")
                  + f" --rounds {args.rounds}"
                  + (f" --stat {args.stat}" if args.stat != "median" else "")
                  + f"`. DLAS: best of {args.rounds} {args.stat}s of {args.repeat} runs "
                  f"(2 warm-up runs); oneDNN: best of {args.rounds} {args.stat}s of 30, its "
                  "runs interleaved with DLAS's round by round. ms, batch 1. " + (
                      ("DLAS int8 includes quantizing the f32 input and dequantizing into f32 "
                       "(as each int8 layer of a model does)" if args.io != "int8" else
                       "DLAS int8 (`--io int8`): the layer reads the i8 tensor (as inside an "
                       "int8 network, whose layers exchange i8) and dequantizes into f32, as "
                       "oneDNN's u8 source and f32 destination"
                       + ("; with `--blocked-entry`, both in the blocked layout [N, C/b, "
                          "H, W, b] (as oneDNN's format_tag::any, reordered outside its "
                          "timed loop; DLAS f32 stays NCHW)" if args.blocked_entry else ""))
                      + "; every DLAS int8 output was "
                      "checked against PyTorch's f32 (relative L2 <= 5e-2).\n\n"
                      if lp == "int8" else
                      ("DLAS bf16 includes rounding the f32 input to bf16 (the layer's "
                       "output stays f32, as oneDNN's)" if args.io == "f32" else
                       "DLAS bf16 (`--io bf16`): the layer written on bf16 tensors, bf16 input, "
                       "weights, bias and output (f32 accumulation), as inside a bf16 network")
                      + "; every DLAS bf16 output was checked "
                      "against PyTorch's f32 (relative L2 <= 1.6e-2). oneDNN bf16: bf16 "
                      "source and weights, f32 destination.\n\n"))
        for t in sorted({r[2] for r in rows}):
            sub = [r for r in rows if r[2] == t]
            out.write(f"## {t} thread(s)\n\n")
            out.write(f"| layer | count | DLAS f32 | DLAS {lp} | {lp} speedup | oneDNN f32 | "
                      f"oneDNN {lp} | DLAS {lp} / oneDNN {lp} |\n")
            out.write("|---|---:|---:|---:|---:|---:|---:|---:|\n")
            for name, count, _, f32, i8, of32, oi8 in sub:
                out.write(f"| {name} | {count} | {fmt(f32)} | {fmt(i8)} | {ratio(f32, i8)} | "
                          f"{fmt(of32)} | {fmt(oi8)} | {ratio(i8, oi8)} |\n")
            sums = [sum(r[1] * r[i] for r in sub) if all(r[i] is not None for r in sub) else None
                    for i in (3, 4, 5, 6)]
            out.write(f"| **weighted sum** | | {fmt(sums[0])} | {fmt(sums[1])} | "
                      f"{ratio(sums[0], sums[1])} | {fmt(sums[2])} | {fmt(sums[3])} | "
                      f"{ratio(sums[1], sums[3])} |\n\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    sys.exit(main())
