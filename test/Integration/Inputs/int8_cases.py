#!/usr/bin/python3
"""Execution tests for int8 post-training quantization (calibrate, quantize).

Each case is a module in the nn dialect with constant f32 weights. For each:

1. `dlas-run --calibrate` runs it on seeded sample inputs and writes the
   calibration file. This script recomputes every quantized layer's input
   on the same samples with PyTorch (f32) and checks the recorded min and
   max: within 1e-4 relative (f32 sums in another order), exactly for the
   entry's own input.
2. For every target the host runs, `dlas-run` compiles it with
   `dlas-mixed-precision{policy=int8 keep-f32=none}` from that file and runs
   it on the first sample (inside the calibrated range: no clipping). The expected output is a reference quantized
   computation written here in numpy from the documented arithmetic
   (docs/MixedPrecision.md, "int8"): per-tensor asymmetric input scales from
   the recorded ranges, per-channel symmetric weights, integer products
   summed exactly (float64), and the f32 epilogue
   `f32(acc - zp_c) * scale_c`. Every step is an IEEE f32 operation that
   DLAS's code performs alike, so the results agree to the last bit; the
   check allows 1e-6 of max |expected|.
3. On the first target, the int8 result is also compared with PyTorch's
   f32 result, within 5e-2 of max |expected|: the scheme, not just its
   reproduction, is sound.

Depthwise convolutions run in int8 too (keep-f32=none lifts the policy's
default depthwise guard): the stencil kernel on i8 with exact sums.

Families: conv (nn_cases.py's convolution matrix: strides, padding,
dilation, groups, depthwise, 1x1 to 7x7, NHWC; inputs alternately signed
and non-negative, so that zero points of about 0 and -128, the latter with
explicit zero-point padding, both occur), linear, matmul, network (conv,
relu, conv, relu, flatten, linear: ranges of intermediate layers).
"""
import argparse
import json
import os
import re
import subprocess
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(__file__))
from nn_cases import CONV_MATRIX, arr, pair, tag, ttype  # noqa: E402

SAMPLES = 3
EXACT = "1e-6"
VS_F32 = 5e-2


def const(t):
    """An f32 constant of `t`'s shape, bit-exact (hex, little-endian)."""
    data = t.numpy().astype("<f4").tobytes().hex().upper()
    return f'dense<"0x{data}"> : {ttype(t.shape)}'


class Layer:
    """One quantizable layer: `kind` conv2d, linear or matmul; `weight`
    (f32 torch tensor, as the op takes it), `bias` or None, conv attrs."""

    def __init__(self, kind, weight, bias=None, stride=1, pad=(0, 0, 0, 0),
                 dilation=1, groups=1, layout="nchw", relu=False):
        self.kind, self.weight, self.bias = kind, weight, bias
        self.stride, self.pad, self.dilation = stride, pad, dilation
        self.groups, self.layout, self.relu = groups, layout, relu

    # -- f32 forward (PyTorch) -----------------------------------------
    def forward(self, x):
        if self.kind == "conv2d":
            xn = x.permute(0, 3, 1, 2) if self.layout == "nhwc" else x
            xp = F.pad(xn, (self.pad[1], self.pad[3], self.pad[0], self.pad[2]))
            y = F.conv2d(xp, self.weight, self.bias, stride=self.stride,
                         dilation=self.dilation, groups=self.groups)
            if self.layout == "nhwc":
                y = y.permute(0, 2, 3, 1)
        elif self.kind == "linear":
            y = F.linear(x, self.weight, self.bias)
        else:
            y = x @ self.weight
        return torch.relu(y) if self.relu else y

    # -- the reference quantized computation ---------------------------
    def rows(self):
        w = self.weight.numpy().astype(np.float32)
        if self.kind == "matmul":
            return np.ascontiguousarray(w.T)  # one row per output column
        return w.reshape(w.shape[0], -1)

    def depthwise(self):
        return self.kind == "conv2d" and self.groups > 1 and self.weight.shape[1] == 1

    def seven_bit_weights(self):
        """Whether dlas-mixed-precision gives this layer 7-bit weights on a
        target whose int8 GEMM multiplies on vpmaddubsw: dense NCHW
        convolutions, whose GEMM broadcasts the weights."""
        return self.kind == "conv2d" and self.groups == 1 and self.layout == "nchw"

    def forward_int8(self, x, lo, hi, pair_target=False):
        x = x.numpy().astype(np.float32)
        s_x, zp_x = act_params(lo, hi)
        qx = np.clip(np.rint(x / s_x) + np.float32(zp_x), -128, 127)
        rows = self.rows()
        largest = np.abs(rows).max(axis=1)
        levels = np.float32(63 if pair_target and self.seven_bit_weights() else 127)
        s_w = np.where(largest > 0, largest / levels, np.float32(1)).astype(np.float32)
        qw_rows = np.clip(np.rint(rows / s_w[:, None]), -levels, levels)
        sums = qw_rows.sum(axis=1).astype(np.int64)
        s_acc = (np.float32(s_x) * s_w).astype(np.float32)
        bias = (self.bias.numpy().astype(np.float64) if self.bias is not None
                else np.zeros(len(s_w)))
        zp_c = zp_x * sums - np.rint(bias / s_acc.astype(np.float64)).astype(np.int64)
        q64 = torch.from_numpy(qx.astype(np.float64))
        if self.kind == "conv2d":
            qw = torch.from_numpy(qw_rows.reshape(self.weight.shape).astype(np.float64))
            qn = q64.permute(0, 3, 1, 2) if self.layout == "nhwc" else q64
            qp = F.pad(qn, (self.pad[1], self.pad[3], self.pad[0], self.pad[2]),
                       value=float(zp_x))
            acc = F.conv2d(qp, qw, stride=self.stride, dilation=self.dilation,
                           groups=self.groups)
            if self.layout == "nhwc":
                acc = acc.permute(0, 2, 3, 1)
            shape = (1, -1, 1, 1) if self.layout == "nchw" else (1, 1, 1, -1)
        else:
            qw = torch.from_numpy(qw_rows.astype(np.float64))
            acc = q64 @ qw.T
            shape = (1, -1)
        acc = np.rint(acc.numpy()).astype(np.int64)
        y = (acc - zp_c.reshape(shape)).astype(np.float32) * s_acc.reshape(shape)
        y = y.astype(np.float32)
        if self.relu:
            y = np.maximum(y, np.float32(0))
        return torch.from_numpy(y)

    # -- the module text ------------------------------------------------
    def lines(self, name, x, xtype, ytype):
        w = f"%w{name}"
        out = [f"  {w} = arith.constant {const(self.weight)}"]
        operands, types = [x, w], [xtype, ttype(self.weight.shape)]
        if self.bias is not None:
            out.append(f"  %b{name} = arith.constant {const(self.bias)}")
            operands.append(f"%b{name}")
            types.append(ttype(self.bias.shape))
        attrs = ""
        if self.kind == "conv2d":
            attrs = (f" {{strides = {arr(pair(self.stride))}, padding = {arr(self.pad)}, "
                     f"dilations = {arr(pair(self.dilation))}, groups = {self.groups} : i64"
                     + (", layout = #nn<layout nhwc>" if self.layout == "nhwc" else "")
                     + "}")
        result = f"%y{name}" if self.relu else f"%l{name}"
        out.append(f"  %l{name} = nn.{self.kind} {', '.join(operands)}{attrs} : "
                   f"({', '.join(types)}) -> {ytype}")
        if self.relu:
            out.append(f"  %y{name} = nn.relu %l{name} : {ytype}")
        return out, result


def act_params(lo, hi):
    """docs/MixedPrecision.md: the range widened to hold 0, 256 steps."""
    lo, hi = min(lo, 0.0), max(hi, 0.0)
    scale = np.float32((hi - lo) / 255.0)
    if not scale > 0 or not np.isfinite(scale):
        return np.float32(1), 0
    zp = int(np.clip(np.rint(-128.0 - lo / np.float64(scale)), -128, 127))
    return scale, zp


class Case:
    """A chain of layers (with flattens where a conv meets a linear)."""

    def __init__(self, name, layers, input_shape, gen, nonnegative=False,
                 flatten_before=None, pools=None, residuals=None):
        self.name, self.layers = name, layers
        self.flatten_before = flatten_before
        # {layer index i: j}: layer i's result (no ReLU of its own) plus
        # layer j's input, then a ReLU. In int8 the add reads that input as
        # layer j quantized it (dlas-quantize-residuals), dequantized.
        self.residuals = residuals or {}
        # {layer index: (kernel, stride, padding)}: a max pool before it.
        self.pools = pools or {}
        self.samples = [self.draw(input_shape, gen, nonnegative) for _ in range(SAMPLES)]
        # The input run is the first sample: it lies inside the calibrated
        # range, so that the comparison with f32 measures rounding, not
        # the clipping of values the calibration never saw.
        self.x = self.samples[0]

    @staticmethod
    def draw(shape, gen, nonnegative):
        x = torch.randn(*shape, generator=gen) * 1.5
        return torch.relu(x) if nonnegative else x

    def forward(self, x, ranges=None, pair_target=False):
        """f32 (ranges None) or int8 forward (with 7-bit weights where a
        vpmaddubsw target gives them); returns (output, layer inputs)."""
        inputs = []
        for i, layer in enumerate(self.layers):
            if i in self.pools:
                k, st, pd = self.pools[i]
                x = F.max_pool2d(x, k, st, pd)
            if i == self.flatten_before:
                x = x.reshape(x.shape[0], -1)
            inputs.append(x)
            x = (layer.forward(x) if ranges is None
                 else layer.forward_int8(x, *ranges[i], pair_target))
            if i in self.residuals:
                j = self.residuals[i]
                skip = inputs[j]
                if ranges is not None:
                    s_x, zp_x = act_params(*ranges[j])
                    q = np.clip(np.rint(skip.numpy().astype(np.float32) / s_x)
                                + np.float32(zp_x), -128, 127)
                    skip = torch.from_numpy(
                        (q - np.float32(zp_x)).astype(np.float32) * np.float32(s_x))
                x = torch.relu(x + skip)
        return x, inputs

    def module(self):
        x, xtype = "%x", ttype(self.x.shape)
        lines = []
        act = self.x
        names = []
        for i, layer in enumerate(self.layers):
            if i in self.pools:
                k, st, pd = self.pools[i]
                pooled = F.max_pool2d(act, k, st, pd)
                lines.append(f"  %p{i} = nn.max_pool2d {x} {{kernel = array<i64: {k}, {k}>, "
                             f"strides = array<i64: {st}, {st}>, "
                             f"padding = array<i64: {pd}, {pd}, {pd}, {pd}>}} : "
                             f"({xtype}) -> {ttype(pooled.shape)}")
                x, xtype, act = f"%p{i}", ttype(pooled.shape), pooled
            if i == self.flatten_before:
                flat = act.reshape(act.shape[0], -1)
                lines.append(f"  %f{i} = nn.flatten {x} {{axis = 1 : i64}} : "
                             f"({xtype}) -> {ttype(flat.shape)}")
                x, xtype, act = f"%f{i}", ttype(flat.shape), flat
            names.append(x)
            act = layer.forward(act)
            new, x = layer.lines(str(i), x, xtype, ttype(act.shape))
            lines += new
            xtype = ttype(act.shape)
            if i in self.residuals:
                lines.append(f"  %r{i} = nn.add {x}, {names[self.residuals[i]]} : "
                             f"({xtype}, {xtype}) -> {xtype}")
                lines.append(f"  %a{i} = nn.relu %r{i} : {xtype}")
                x = f"%a{i}"
        return (f"func.func @main(%x: {ttype(self.x.shape)}) -> {xtype} {{\n"
                + "\n".join(lines) + f"\n  return {x} : {xtype}\n}}\n")


def matrix_cases(prefix, matrix, gen, nonnegative_parity):
    """One single-convolution case per row of a conv matrix ((N, C, H, W,
    F, K, stride, pad, dilation, groups, bias) rows), the inputs of the rows
    whose index has `nonnegative_parity` non-negative (zero point -128)."""
    cases = []
    for i, (n, c, h, w, f, k, s, pad, d, g, bias) in enumerate(matrix):
        weight = torch.randn(f, c // g, k, k, generator=gen)
        b = torch.randn(f, generator=gen) if bias else None
        layer = Layer("conv2d", weight, b, s, pad, d, g)
        name = (f"{prefix}_n{n}c{c}h{h}w{w}f{f}k{k}s{tag(s)}"
                f"p{'-'.join(map(str, pad))}d{tag(d)}g{g}")
        cases.append(Case(name, [layer], (n, c, h, w), gen,
                          nonnegative=i % 2 == nonnegative_parity))
    return cases


def conv_cases(gen):
    cases = matrix_cases("conv", CONV_MATRIX, gen, 0)
    layer = Layer("conv2d", torch.randn(8, 4, 3, 3, generator=gen),
                  torch.randn(8, generator=gen), 2, (1, 1, 1, 1), 1, 2, layout="nhwc")
    cases.append(Case("conv_nhwc_g2s2", [layer], (1, 9, 9, 8), gen, nonnegative=True))
    return cases


def linear_cases(gen):
    cases = []
    for n, k, o, bias, nonneg in [(1, 24, 10, True, False), (5, 64, 17, False, True),
                                  (17, 33, 16, True, True)]:
        layer = Layer("linear", torch.randn(o, k, generator=gen),
                      torch.randn(o, generator=gen) if bias else None)
        cases.append(Case(f"linear_n{n}k{k}o{o}", [layer], (n, k), gen, nonneg))
    return cases


def matmul_cases(gen):
    return [Case(f"matmul_m{m}k{k}n{n}", [Layer("matmul", torch.randn(k, n, generator=gen))],
                 (m, k), gen, nonneg)
            for m, k, n, nonneg in [(3, 20, 7, False), (8, 48, 32, True)]]


def network_cases(gen):
    layers = [Layer("conv2d", torch.randn(8, 3, 3, 3, generator=gen) * 0.3,
                    torch.randn(8, generator=gen), 1, (1, 1, 1, 1), relu=True),
              Layer("conv2d", torch.randn(8, 8, 3, 3, generator=gen) * 0.2,
                    torch.randn(8, generator=gen), 2, (1, 1, 1, 1), relu=True),
              Layer("linear", torch.randn(10, 8 * 4 * 4, generator=gen) * 0.1,
                    torch.randn(10, generator=gen))]
    # Max pools between int8 layers: dlas-hoist-quantize runs them on i8
    # (exact: the quantize commutes with max), the layers before store i8.
    pooled = [Layer("conv2d", torch.randn(8, 3, 3, 3, generator=gen) * 0.3,
                    torch.randn(8, generator=gen), 1, (1, 1, 1, 1), relu=True),
              Layer("conv2d", torch.randn(16, 8, 3, 3, generator=gen) * 0.2,
                    torch.randn(16, generator=gen), 1, (1, 1, 1, 1), relu=True),
              Layer("linear", torch.randn(10, 16 * 3 * 3, generator=gen) * 0.1,
                    torch.randn(10, generator=gen))]
    # Residual blocks: the adds read their skip connection as the i8
    # tensor the next layer quantizes (dlas-quantize-residuals); the layers
    # store i8 only, and each add dequantizes bytes in its GEMM epilogue.
    def conv(cin, cout, k, relu):
        return Layer("conv2d", torch.randn(cout, cin, k, k, generator=gen) * 0.2,
                     torch.randn(cout, generator=gen), 1, (k // 2,) * 4, relu=relu)
    residual = [conv(3, 8, 3, True), conv(8, 8, 3, True), conv(8, 8, 3, False),
                conv(8, 8, 1, False),
                Layer("linear", torch.randn(10, 8 * 7 * 7, generator=gen) * 0.1,
                      torch.randn(10, generator=gen))]
    return [Case("network", layers, (2, 3, 8, 8), gen, flatten_before=2),
            Case("network_residual", residual, (2, 3, 7, 7), gen, flatten_before=4,
                 residuals={2: 1, 3: 3}),
            Case("network_pools", pooled, (2, 3, 13, 13), gen, flatten_before=2,
                 pools={1: (3, 2, 1), 2: (2, 2, 0)})]


# Batch-1 convolutions on small output planes, which run as the transposed
# GEMM Y^T = X^T W^T on targets with vpdpbusd (the activations packed in k
# quads with their row sums per call, the weights in quads at compile
# time): 1x1 and im2col, K a multiple of 4 or not, planes of 49, 25 and 4
# positions (the last fewer than one vectorized panel's load).
SMALL_PLANE_MATRIX = [
    # (N, C, H, W, F, K, stride, pad(t,l,b,r), dilation, groups, bias)
    (1, 32, 7, 7, 32, 1, 1, (0, 0, 0, 0), 1, 1, True),
    (1, 6, 7, 7, 16, 1, 1, (0, 0, 0, 0), 1, 1, False),
    (1, 8, 7, 7, 32, 3, 1, (1, 1, 1, 1), 1, 1, True),
    (1, 5, 13, 13, 16, 3, 2, (1, 1, 1, 1), 1, 1, True),
    (1, 16, 5, 5, 48, 1, 1, (0, 0, 0, 0), 1, 1, False),
    (1, 16, 2, 2, 16, 1, 1, (0, 0, 0, 0), 1, 1, True),
    # K = 1440: the transposed GEMM's A (49 x 1440 bytes) packed by the
    # threads together.
    (1, 160, 7, 7, 32, 3, 1, (1, 1, 1, 1), 1, 1, False),
]


def small_plane_cases(gen):
    return matrix_cases("plane", SMALL_PLANE_MATRIX, gen, 1)


# Convolutions whose channels are whole blocks of 8 and 16, for the int8
# blocked kernel (dlas-blocked-layout int8, vpdpbusd with the filter in k
# quads): padding with a zero point of -128 (non-negative inputs: the
# border is zero in the kernel's u8 copy and its taps are skipped) and of
# about 0 (signed inputs: every tap computed), strides, dilation, 1x1 and
# 5x5 windows, odd planes whose rows split into tiles with tails, 48
# channels (three blocks of 16: one vector per tile) and batch 2.
BLOCKED_MATRIX = [
    # (N, C, H, W, F, K, stride, pad(t,l,b,r), dilation, groups, bias)
    (1, 16, 9, 9, 32, 3, 1, (1, 1, 1, 1), 1, 1, True),
    (1, 16, 9, 9, 32, 3, 1, (1, 1, 1, 1), 1, 1, False),
    (2, 32, 13, 11, 16, 3, 2, (1, 1, 1, 1), 1, 1, True),
    (1, 32, 11, 12, 32, 3, 1, (2, 2, 2, 2), 2, 1, False),
    (1, 48, 7, 7, 48, 1, 1, (0, 0, 0, 0), 1, 1, True),
    (1, 16, 10, 17, 32, 5, 1, (2, 2, 2, 2), 1, 1, True),
    (1, 32, 14, 14, 64, 3, 1, (1, 1, 1, 1), 1, 1, False),
    (1, 64, 8, 8, 32, 3, 2, (0, 1, 1, 0), 1, 1, True),
]


def blocked_cases(gen):
    cases = matrix_cases("blocked", BLOCKED_MATRIX, gen, 0)

    # Consecutive blocked layers: the layout propagates through the
    # dequantize, ReLU and requantize between them, the residual add reads
    # its skip connection blocked.
    def conv(cin, cout, k, relu):
        return Layer("conv2d", torch.randn(cout, cin, k, k, generator=gen) * 0.2,
                     torch.randn(cout, generator=gen), 1, (k // 2,) * 4, relu=relu)
    chain = [conv(16, 32, 3, True), conv(32, 32, 3, True), conv(32, 32, 3, False),
             conv(32, 16, 1, False)]
    cases.append(Case("blocked_network_residual", chain, (1, 16, 10, 10), gen,
                      nonnegative=True, residuals={2: 1}))
    return cases


FAMILIES = {"conv": conv_cases, "linear": linear_cases, "matmul": matmul_cases,
            "network": network_cases, "small-plane": small_plane_cases,
            "blocked": blocked_cases}


def check_calibration(c, table, failures):
    """The recorded ranges against this script's f32 forward on the samples."""
    layers = {entry["key"]: entry for entry in table["layers"]}
    for i in range(len(c.layers)):
        seen = [c.forward(x)[1][i] for x in c.samples]
        lo = min(float(t.min()) for t in seen)
        hi = max(float(t.max()) for t in seen)
        entry = layers.get(f"main#{i}")
        if entry is None:
            failures.append(f"calibration has no main#{i}")
            continue
        tol = 0.0 if i == 0 else 1e-4 * max(abs(lo), abs(hi), 1e-6)
        if abs(entry["min"] - lo) > tol or abs(entry["max"] - hi) > tol:
            failures.append(f"main#{i}: recorded [{entry['min']}, {entry['max']}], "
                            f"PyTorch [{lo}, {hi}]")
    if table["samples"] != SAMPLES:
        failures.append(f"calibration counts {table['samples']} samples, not {SAMPLES}")


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--family", required=True,
                        help="comma list of " + ", ".join(FAMILIES))
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--dlas-run", default="dlas-run")
    parser.add_argument("--rotate", action="store_true",
                        help="each case on one of --targets in turn instead of on "
                             "all of them (lit's %%rotate: the quick matrix)")
    parser.add_argument("--targets", default="",
                        help="space-separated targets, cpu or cpu:+features "
                             "(lit's %%int8_targets)")
    parser.add_argument("--num-threads", type=int, default=0,
                        help="dlas-run's --num-threads for the int8 runs")
    parser.add_argument("--tuning-file", default="",
                        help="the CPU pipeline's tuning-file for the int8 runs")
    parser.add_argument("--pipeline-options", default="",
                        help="more dlas-cpu-pipeline options for the int8 runs")
    args = parser.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    gen = torch.Generator().manual_seed(20261126)
    families = args.family.split(",")
    unknown = [f for f in families if f not in FAMILIES]
    if unknown:
        parser.error(f"unknown family {', '.join(unknown)}")
    cases = [c for f in families for c in FAMILIES[f](gen)]
    targets = args.targets.split() or [None]
    failing, runs = [], 0
    worst = (0.0, "")
    for index, c in enumerate(cases):
        base = os.path.join(args.workdir, c.name)
        os.makedirs(base + ".samples", exist_ok=True)
        with open(base + ".mlir", "w") as f:
            f.write(c.module())
        for i, x in enumerate(c.samples):
            np.save(f"{base}.samples/{i}.npy", x.numpy())
        np.save(base + ".x.npy", c.x.numpy())
        calibration = base + ".calibration.json"
        proc = run([args.dlas_run, base + ".mlir", "--calibrate", base + ".samples",
                    "--calibration", calibration, "--sparsify", "never"])
        problems = []
        if proc.returncode != 0:
            problems.append("calibration failed:\n" + proc.stdout + proc.stderr)
        else:
            with open(calibration) as f:
                table = json.load(f)
            check_calibration(c, table, problems)
        if problems:
            print(f"FAIL {c.name} (calibration)\n" + "\n".join(problems))
            failing.append(c.name)
            continue
        ranges = {e["key"]: (e["min"], e["max"]) for e in table["layers"]}
        layer_ranges = [ranges[f"main#{i}"] for i in range(len(c.layers))]
        expected, _ = c.forward(c.x, layer_ranges)
        np.save(base + ".int8.npy", expected.numpy())
        expected, _ = c.forward(c.x, layer_ranges, pair_target=True)
        np.save(base + ".int8-pairs.npy", expected.numpy())
        np.save(base + ".f32.npy", c.forward(c.x)[0].detach().numpy())
        # Each target as the tests before it ran it (the policy before the
        # target is known: 8-bit weights) and, on targets whose int8 GEMM
        # multiplies on vpmaddubsw (no VNNI), with the target attached
        # first, as dlas-run --precision and the pipeline do: 7-bit
        # weights for dense convolutions, on the pair kernel.
        variants = [(t, False) for t in targets]
        variants += [(t, True) for t in targets if t and "vnni" not in t]
        if args.rotate:
            variants = [variants[index % len(variants)]]
        for target, attached in variants:
            runs += 1
            label = c.name + (f" [{target}{', target first' if attached else ''}]"
                              if target else "")
            cpu = "dlas-cpu-pipeline{sparsify=never"
            if args.tuning_file:
                cpu += f" tuning-file={args.tuning_file}"
            if args.pipeline_options:
                cpu += " " + args.pipeline_options
            attach = ""
            if target:
                name, _, features = target.partition(":")
                cpu += f" target={name}" + (f" target-features={features}" if features else "")
                if attached:
                    attach = (f"dlas-attach-target{{target={name}"
                              + (f" features={features}" if features else "") + "},")
            cpu += "}"
            pipeline = (f"builtin.module({attach}dlas-mixed-precision{{policy=int8 "
                        f"calibration={calibration} keep-f32=none}},"
                        f"func.func(dlas-quantize-residuals),{cpu})")
            common = [args.dlas_run, base + ".mlir", "--input", base + ".x.npy",
                      "--pipeline", pipeline]
            if args.num_threads:
                common += ["--num-threads", str(args.num_threads)]

            reference = base + (".int8-pairs.npy" if attached else ".int8.npy")
            exact = run(common + ["--expect", reference, "--max-rel-err",
                                  EXACT])
            checks = [exact]
            # The comparison with f32 judges the scheme, which the exact
            # check pins on every target: the first target suffices (and
            # each 7-bit run).
            if target == targets[0] or attached:
                close = run(common + ["--expect", base + ".f32.npy", "--max-rel-err",
                                      str(VS_F32)])
                checks.append(close)
            ok = all(p.returncode == 0 and "PASS" in p.stdout for p in checks)
            for err in re.findall(r"max rel err ([0-9.e+-]+)",
                                  checks[-1].stdout if len(checks) > 1 else ""):
                worst = max(worst, (float(err), label))
            print(f"{'ok  ' if ok else 'FAIL'} {label}")
            if not ok:
                failing.append(label)
                for what, p in zip(("int8 reference", "f32"), checks):
                    print(f"-- against the {what}:\n{p.stdout}{p.stderr}")
    print(f"largest error against f32: {worst[0]:.3e} of max |f32| ({worst[1]})")
    print(f"{args.family}: {len(cases)} cases run, {len(failing)} failing "
          f"({runs} runs, targets: {' '.join(t or 'host' for t in targets)})")
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
