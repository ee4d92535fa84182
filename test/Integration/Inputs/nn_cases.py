#!/usr/bin/python3
"""Execution tests for the nn dialect: every op over a shape/attribute matrix.

For each case this script writes a one-op (or few-op) module in the nn
dialect, seeded inputs as .npy and the expected output computed by PyTorch
(an implementation independent of DLAS), runs `dlas-run --expect` on it and
counts the cases that fail. Nothing is committed: all files go to --workdir.

Tolerances (fp32): |dlas - torch| <= ATOL + RTOL * |torch| elementwise with
RTOL = ATOL = 1e-4 — fp32 sums over up to a few thousand products in a
different order than PyTorch's kernels differ by a few ulps of the partial
sums, far below 1e-4 on values of magnitude ~10.
"""
import argparse
import os
import re
import shlex
import subprocess
import sys

import numpy as np
import torch
import torch.nn.functional as F

RTOL = 1e-4
ATOL = 1e-4

CASES = {}


def case(family):
    def register(fn):
        CASES.setdefault(family, []).append(fn)
        return fn
    return register


def ttype(shape, dtype="f32"):
    dims = "x".join("?" if d is None else str(d) for d in shape)
    return f"tensor<{dims}x{dtype}>" if dims else f"tensor<{dtype}>"


def arr(attr):
    return "array<i64: " + ", ".join(str(v) for v in attr) + ">"


class Case:
    """A module computing `body` over `inputs`, and PyTorch's answer."""

    def __init__(self, name, inputs, expected, body, arg_shapes=None,
                 result_shape=None, run_args=()):
        self.name = name
        self.inputs = [np.ascontiguousarray(x, dtype=np.float32) for x in inputs]
        self.expected = np.ascontiguousarray(expected.detach().numpy()
                                             if torch.is_tensor(expected)
                                             else expected, dtype=np.float32)
        self.body = body
        self.arg_shapes = arg_shapes or [x.shape for x in self.inputs]
        self.result_shape = result_shape or self.expected.shape
        self.run_args = list(run_args)

    def module(self):
        args = ", ".join(f"%a{i}: {ttype(s)}" for i, s in enumerate(self.arg_shapes))
        rtype = ttype(self.result_shape)
        body = self.body(["%a" + str(i) for i in range(len(self.inputs))],
                         [ttype(s) for s in self.arg_shapes], rtype)
        return (f"func.func @main({args}) -> {rtype} {{\n{body}\n"
                f"  return %r : {rtype}\n}}\n")


def op_line(op, operands, types, rtype, attrs=""):
    attr_text = f" {{{attrs}}}" if attrs else ""
    return (f"  %r = {op} {', '.join(operands)}{attr_text} : "
            f"({', '.join(types)}) -> {rtype}")


def unary_line(op, attrs=""):
    attr_text = f" {{{attrs}}}" if attrs else ""
    return lambda v, t, r: f"  %r = {op} {v[0]}{attr_text} : {t[0]}"


def rand(*shape, gen):
    return torch.randn(*shape, generator=gen)


# ---------------------------------------------------------------- conv2d
CONV_MATRIX = [
    # (N, C, H, W, F, K, stride, pad(t,l,b,r), dilation, groups, bias)
    (1, 3, 9, 9, 4, 3, 1, (1, 1, 1, 1), 1, 1, True),
    (2, 4, 8, 7, 6, 3, 2, (1, 0, 2, 1), 1, 1, False),
    (1, 4, 11, 11, 8, 3, 1, (2, 2, 2, 2), 2, 1, True),
    (1, 8, 10, 10, 8, 3, 2, (1, 1, 1, 1), 2, 2, True),
    (1, 8, 9, 9, 12, 3, 1, (0, 1, 1, 0), 1, 4, False),
    (1, 16, 10, 10, 16, 3, 1, (1, 1, 1, 1), 1, 16, True),   # depthwise
    (1, 16, 13, 13, 16, 5, 2, (2, 2, 2, 2), 1, 16, False),  # depthwise s2
    (1, 8, 9, 9, 16, 3, 1, (1, 1, 1, 1), 2, 8, True),       # depth multiplier 2
    (1, 6, 7, 7, 5, 1, 1, (0, 0, 0, 0), 1, 1, True),        # 1x1
    (1, 8, 9, 9, 8, 1, 2, (0, 0, 0, 0), 1, 2, False),       # 1x1 grouped s2
    (1, 3, 15, 15, 4, 5, 1, (2, 1, 0, 3), 1, 1, True),      # 5x5 asymmetric
    (1, 3, 17, 17, 8, 7, 2, (3, 3, 3, 3), 1, 1, True),      # 7x7 s2 stem
    (1, 4, 12, 13, 4, 7, 1, (3, 3, 3, 3), 2, 4, False),     # 7x7 depthwise dil 2
    (1, 12, 6, 6, 12, 3, 1, (1, 1, 1, 1), 1, 3, True),      # groups 3
    (1, 5, 13, 11, 6, 5, 3, (2, 1, 1, 2), 1, 1, True),      # 5x5 s3 asymmetric
    (1, 4, 10, 12, 6, 2, 2, (0, 0, 1, 1), 1, 1, False),     # 2x2 s2 (even kernel)
    # Rows of at least 16 outputs: compact flat (B rows jump per output row).
    (1, 4, 20, 22, 6, 3, 1, (1, 1, 1, 1), 1, 1, True),      # 3x3, OW = 22
    (1, 3, 40, 38, 5, 3, 2, (1, 1, 1, 1), 1, 1, False),     # 3x3 s2, OW = 19
    (1, 8, 18, 19, 8, 3, 1, (0, 1, 2, 1), 1, 2, True),      # grouped, OW = 19
    # Unequal strides and dilations (im2col's patches read in place: rows
    # of the input 2 apart, columns 1 apart), and a batch of two.
    (1, 4, 12, 20, 6, 3, (2, 1), (1, 1, 1, 1), (2, 1), 1, True),
    (2, 8, 9, 18, 8, 3, 1, (1, 1, 1, 1), 1, 1, True),
    # Strided grouped convolutions whose groups fill no vector: the phase
    # split per group (flat implicit GEMM, the group a batch dim).
    (1, 32, 15, 15, 32, 3, 2, (1, 1, 1, 1), 1, 8, True),    # 4 a group, s2
    (2, 12, 11, 14, 18, 3, 3, (1, 0, 2, 1), 1, 3, False),   # s3, batch 2
    (1, 16, 16, 17, 16, 3, (2, 1), (1, 1, 1, 1), 1, 4, True),  # s2x1
]


def pair(v):
    """A stride or dilation of CONV_MATRIX (one number for both dims or an
    (h, w) pair) as [h, w]."""
    return list(v) if isinstance(v, tuple) else [v, v]


def tag(v):
    """A stride or dilation as a case name writes it: 2, or 2x1."""
    return "x".join(map(str, v)) if isinstance(v, tuple) else str(v)


def conv_case(n, c, h, w, f, k, s, pad, d, g, bias, gen, layout="nchw"):
    x = rand(n, c, h, w, gen=gen)
    wt = rand(f, c // g, k, k, gen=gen)
    b = rand(f, gen=gen) if bias else None
    xp = F.pad(x, (pad[1], pad[3], pad[0], pad[2]))
    y = F.conv2d(xp, wt, b, stride=s, dilation=d, groups=g)
    attrs = (f"strides = {arr(pair(s))}, padding = {arr(pad)}, "
             f"dilations = {arr(pair(d))}, groups = {g} : i64")
    inputs = [x, wt] + ([b] if bias else [])
    if layout == "nhwc":
        inputs[0] = x.permute(0, 2, 3, 1)
        y = y.permute(0, 2, 3, 1)
        attrs += ", layout = #nn<layout nhwc>"
    name = (f"conv2d_{layout}_n{n}c{c}h{h}w{w}f{f}k{k}s{tag(s)}p{'-'.join(map(str, pad))}"
            f"d{tag(d)}g{g}{'b' if bias else ''}")
    return Case(name, [t.numpy() for t in inputs], y,
                lambda v, t, r: op_line("nn.conv2d", v, t, r, attrs))


# Rows of whole 8-lane vectors: compact flat on AVX2 too, B loaded as plain
# vectors (each lies in one output row). Their data comes from a generator
# of their own, so that the families after conv in one run keep theirs.
WHOLE_VECTOR_ROWS_MATRIX = [
    (1, 4, 8, 8, 6, 3, 1, (1, 1, 1, 1), 1, 1, True),        # 3x3, OW = 8
    (1, 8, 16, 16, 8, 3, 1, (1, 1, 1, 1), 1, 4, False),     # 2-channel groups, OW = 16
    (1, 3, 16, 16, 4, 3, 2, (1, 1, 1, 1), 1, 1, True),      # 3x3 s2, OW = 8
]

# Groups of 8 and 6 output channels: on 16-lane targets the flat GEMM's
# threads split the row panels of all groups in one parallel region (a
# tail panel of 2 rows in the second). Drawn from a generator of their own,
# so that the cases after them keep their data.
GROUP_ROW_PANELS_MATRIX = [
    (1, 64, 16, 16, 64, 3, 1, (1, 1, 1, 1), 1, 8, True),   # WRN-40-2 G(8)
    (1, 48, 12, 16, 48, 3, 1, (1, 1, 1, 1), 1, 8, False),  # 6-channel groups
]


@case("conv")
def conv_cases(gen):
    cases = [conv_case(*cfg, gen=gen) for cfg in CONV_MATRIX]
    cases.append(conv_case(1, 8, 9, 9, 8, 3, 2, (1, 1, 1, 1), 1, 2, True,
                           gen=gen, layout="nhwc"))
    own = torch.Generator().manual_seed(4321)
    cases += [conv_case(*cfg, gen=own) for cfg in WHOLE_VECTOR_ROWS_MATRIX]
    panels = torch.Generator().manual_seed(8642)
    cases += [conv_case(*cfg, gen=panels) for cfg in GROUP_ROW_PANELS_MATRIX]
    return cases


def triple(v):
    """A 3-D kernel, stride or dilation: one number for all dims or a
    (d, h, w) triple."""
    return list(v) if isinstance(v, tuple) else [v, v, v]


def conv3d_case(n, c, d, h, w, f, k, s, pad, dil, g, bias, const, gen,
                dynamic_batch=False):
    """nn.conv3d against F.conv3d; `pad` is (front, top, left, back,
    bottom, right); `const`: the filter is a module constant (as imported
    weights are), else an argument."""
    k, s, dil = triple(k), triple(s), triple(dil)
    x = rand(n, c, d, h, w, gen=gen)
    wt = rand(f, c // g, *k, gen=gen)
    b = rand(f, gen=gen) if bias else None
    xp = F.pad(x, (pad[2], pad[5], pad[1], pad[4], pad[0], pad[3]))
    y = F.conv3d(xp, wt, b, stride=s, dilation=dil, groups=g)
    attrs = (f"strides = {arr(s)}, padding = {arr(pad)}, "
             f"dilations = {arr(dil)}, groups = {g} : i64")
    inputs = [x] + ([] if const else [wt]) + ([b] if bias else [])
    shapes = [t.shape for t in inputs]
    if dynamic_batch:
        shapes[0] = (None,) + tuple(x.shape[1:])
    rshape = ((None,) if dynamic_batch else (y.shape[0],)) + tuple(y.shape[1:])

    def body(v, t, r):
        lines, operands, types = [], list(v), list(t)
        if const:
            lines.append(f'  %w = arith.constant dense<"{hexdata(wt)}"> : '
                         f'{ttype(wt.shape)}')
            operands.insert(1, "%w")
            types.insert(1, ttype(wt.shape))
        lines.append(op_line("nn.conv3d", operands, types, r, attrs))
        return "\n".join(lines)
    name = (f"conv3d_n{n}c{c}d{d}h{h}w{w}f{f}k{'x'.join(map(str, k))}"
            f"s{'x'.join(map(str, s))}p{'-'.join(map(str, pad))}"
            f"d{'x'.join(map(str, dil))}g{g}{'b' if bias else ''}"
            f"{'c' if const else ''}{'_dyn' if dynamic_batch else ''}")
    return Case(name, [t.numpy() for t in inputs], y, body, arg_shapes=shapes,
                result_shape=rshape)


# (N, C_in, D, H, W, C_out, K, stride, pad(f,t,l,bk,b,r), dilation, groups,
# bias, constant filter)
CONV3D_MATRIX = [
    (1, 3, 4, 8, 8, 4, 3, 1, (1, 1, 1, 1, 1, 1), 1, 1, True, True),
    (2, 4, 5, 7, 9, 6, 3, 2, (1, 1, 1, 1, 1, 1), 1, 2, False, False),  # batch 2, odd sizes, groups
    (1, 4, 6, 6, 6, 4, 3, 1, (2, 2, 2, 2, 2, 2), 2, 4, True, True),    # dilated depthwise
    (1, 3, 4, 16, 16, 8, (3, 7, 7), (1, 2, 2), (1, 3, 3, 1, 3, 3), 1, 1, False, True),  # R3D stem
    (1, 8, 4, 6, 6, 8, (1, 3, 3), 1, (0, 1, 1, 0, 1, 1), 1, 1, True, True),  # (2+1)D spatial
    (1, 8, 5, 6, 6, 8, (3, 1, 1), 1, (1, 0, 0, 1, 0, 0), 1, 1, True, True),  # (2+1)D temporal
    (1, 5, 7, 6, 5, 3, (2, 3, 2), (2, 1, 1), (0, 1, 2, 1, 0, 1), (1, 2, 1), 1, True, False),  # asymmetric
    (1, 8, 4, 6, 6, 16, 1, 2, (0, 0, 0, 0, 0, 0), 1, 1, False, True),  # 1x1x1 downsample
    (1, 16, 3, 10, 10, 16, 3, 1, (1, 1, 1, 1, 1, 1), 1, 1, True, True),  # vector-wide channels
]


@case("conv3d")
def conv3d_cases(gen):
    own = torch.Generator().manual_seed(3303)
    cases = [conv3d_case(*cfg, gen=own) for cfg in CONV3D_MATRIX]
    cases.append(conv3d_case(3, 4, 4, 6, 6, 8, 3, (1, 2, 2), (1, 1, 1, 1, 1, 1),
                             1, 1, True, True, gen=own, dynamic_batch=True))
    return cases


# (N, C_in, H, W, C_out, K, stride, pad(t,l,b,r), output_padding, dilation, groups, bias)
CONVT_MATRIX = [
    (1, 4, 5, 5, 3, 3, 1, (0, 0, 0, 0), (0, 0), 1, 1, True),
    (1, 4, 5, 6, 6, 3, 2, (1, 1, 1, 1), (1, 1), 1, 1, False),
    (2, 8, 4, 4, 4, 4, 2, (1, 1, 1, 1), (0, 0), 1, 2, True),
    (1, 4, 6, 6, 4, 3, 3, (2, 0, 1, 2), (2, 1), 1, 1, True),
    (1, 6, 5, 5, 6, 3, 1, (1, 1, 1, 1), (0, 0), 2, 3, False),
    (1, 4, 7, 7, 2, 5, 2, (4, 4, 4, 4), (1, 0), 1, 1, True),   # pad > d*(k-1): crop
    (1, 3, 3, 3, 2, 1, 2, (0, 0, 0, 0), (1, 1), 1, 1, True),   # 1x1
]


@case("conv")
def conv_transpose_cases(gen):
    cases = []
    for (n, c, h, w, f, k, s, pad, op, d, g, bias) in CONVT_MATRIX:
        x = rand(n, c, h, w, gen=gen)
        wt = rand(c, f // g, k, k, gen=gen)
        b = rand(f, gen=gen) if bias else None
        # PyTorch takes symmetric padding: emulate asymmetric by cropping the
        # result of a zero-padding transposed conv.
        full = F.conv_transpose2d(x, wt, b, stride=s, padding=0,
                                  output_padding=0, dilation=d, groups=g)
        extra_h = op[0]
        extra_w = op[1]
        if extra_h or extra_w:
            full = F.pad(full, (0, extra_w, 0, extra_h))
            if b is not None:  # the padded border still receives the bias
                full[:, :, full.shape[2] - extra_h:, :] = b.view(1, -1, 1, 1)
                full[:, :, :, full.shape[3] - extra_w:] = b.view(1, -1, 1, 1)
        y = full[:, :, pad[0]:full.shape[2] - pad[2], pad[1]:full.shape[3] - pad[3]]
        attrs = (f"strides = {arr([s, s])}, padding = {arr(pad)}, "
                 f"output_padding = {arr(op)}, dilations = {arr([d, d])}, "
                 f"groups = {g} : i64")
        inputs = [x, wt] + ([b] if bias else [])
        name = (f"conv_transpose2d_c{c}h{h}w{w}f{f}k{k}s{s}p{'-'.join(map(str, pad))}"
                f"op{op[0]}{op[1]}d{d}g{g}{'b' if bias else ''}")
        cases.append(Case(name, [t.numpy() for t in inputs], y,
                          lambda v, t, r, a=attrs: op_line("nn.conv_transpose2d", v, t, r, a)))
    # Cross-check the emulation on a symmetric case against PyTorch directly.
    x = rand(1, 4, 5, 5, gen=gen)
    wt = rand(4, 3, 3, 3, gen=gen)
    y = F.conv_transpose2d(x, wt, None, stride=2, padding=1, output_padding=1)
    attrs = (f"strides = {arr([2, 2])}, padding = {arr([1, 1, 1, 1])}, "
             f"output_padding = {arr([1, 1])}")
    cases.append(Case("conv_transpose2d_torch_symmetric", [x.numpy(), wt.numpy()], y,
                      lambda v, t, r: op_line("nn.conv_transpose2d", v, t, r, attrs)))
    return cases


# ---------------------------------------------------------------- matmul
@case("matmul")
def matmul_cases(gen):
    cases = []
    for m, k, n in [(1, 1, 1), (5, 7, 3), (16, 33, 17), (64, 64, 64)]:
        a, b = rand(m, k, gen=gen), rand(k, n, gen=gen)
        cases.append(Case(f"matmul_{m}x{k}x{n}", [a.numpy(), b.numpy()], a @ b,
                          lambda v, t, r: op_line("nn.matmul", v, t, r)))
    for bt, m, k, n in [(1, 3, 4, 5), (3, 8, 9, 7)]:
        a, b = rand(bt, m, k, gen=gen), rand(bt, k, n, gen=gen)
        cases.append(Case(f"batch_matmul_{bt}x{m}x{k}x{n}", [a.numpy(), b.numpy()],
                          torch.bmm(a, b),
                          lambda v, t, r: op_line("nn.batch_matmul", v, t, r)))
    for n, k, o, bias in [(1, 16, 10, True), (4, 33, 7, False), (2, 512, 10, True)]:
        x, w = rand(n, k, gen=gen), rand(o, k, gen=gen)
        b = rand(o, gen=gen) if bias else None
        inputs = [x, w] + ([b] if bias else [])
        cases.append(Case(f"linear_{n}x{k}x{o}{'b' if bias else ''}",
                          [t.numpy() for t in inputs], F.linear(x, w, b),
                          lambda v, t, r: op_line("nn.linear", v, t, r)))
    # Constant weights, as in a model: dlas-gemm-microkernel packs B's
    # column tiles at compile time (a partial last tile, K over several k
    # blocks, M at and below one row panel). Their own generator: the
    # families after this one keep their inputs.
    gen = torch.Generator().manual_seed(216)
    for m, k, n in [(37, 70, 50), (197, 300, 96), (3, 20, 40), (64, 9, 5)]:
        a, w = rand(m, k, gen=gen), rand(k, n, gen=gen)
        cases.append(chain_case(f"matmul_const_{m}x{k}x{n}", [a], a @ w, [
            f'  %w = arith.constant dense<"{hexdata(w)}"> : {ttype(w.shape)}',
            f"  %r = nn.matmul {{v[0]}}, %w : ({{t[0]}}, {ttype(w.shape)}) -> "
            + ttype((m, n))]))
    # ... and transposed (nn.linear's [out, in] weight), with a bias.
    for m, k, n in [(20, 45, 33), (128, 64, 72)]:
        x, w, b = rand(m, k, gen=gen), rand(n, k, gen=gen), rand(n, gen=gen)
        cases.append(chain_case(f"linear_const_{m}x{k}x{n}", [x, b], F.linear(x, w, b), [
            f'  %w = arith.constant dense<"{hexdata(w)}"> : {ttype(w.shape)}',
            f"  %r = nn.linear {{v[0]}}, %w, {{v[1]}} : ({{t[0]}}, {ttype(w.shape)}, "
            f"{{t[1]}}) -> " + ttype((m, n))]))
    return cases


def hexdata(t):
    """`t`'s elements as an MLIR hex literal (raw little-endian f32)."""
    return "0x" + t.numpy().astype("<f4").tobytes().hex().upper()


# ------------------------------------------------ conv on small planes
def small_plane_case(c, h, f, k, s, bias, epilogue, gen):
    """A batch-1 convolution with a constant filter (as imported weights
    are) on a small output plane, followed by `epilogue` (relu, or
    add_relu: a residual add, then relu): dlas-select-conv-algorithm runs
    such 1x1 and im2col convolutions as the transposed GEMM Y^T = X^T W^T
    where the plane fills the target's vectors poorly."""
    pad = k // 2
    x = rand(1, c, h, h, gen=gen)
    wt = rand(f, c, k, k, gen=gen)
    b = rand(f, gen=gen) if bias else None
    y = F.conv2d(x, wt, b, stride=s, padding=pad)
    inputs = [x] + ([b] if bias else [])
    if epilogue == "add_relu":
        other = rand(*y.shape, gen=gen)
        inputs.append(other)
        y = y + other
    y = torch.relu(y)
    attrs = (f"strides = {arr([s, s])}, padding = {arr([pad] * 4)}")

    def body(v, t, r):
        conv_type = ttype(tuple(y.shape))
        operands = [v[0], "%w"] + ([v[1]] if bias else [])
        types = [t[0], ttype(wt.shape)] + ([t[1]] if bias else [])
        lines = [f'  %w = arith.constant dense<"{hexdata(wt)}"> : {ttype(wt.shape)}',
                 f"  %y = nn.conv2d {', '.join(operands)} {{{attrs}}} : "
                 f"({', '.join(types)}) -> {conv_type}"]
        value = "%y"
        if epilogue == "add_relu":
            lines.append(f"  %s = nn.add %y, {v[-1]} : ({conv_type}, {t[-1]}) -> {conv_type}")
            value = "%s"
        lines.append(f"  %r = nn.relu {value} : {conv_type}")
        return "\n".join(lines)
    name = f"conv2d_small_plane_c{c}h{h}f{f}k{k}s{s}{'b' if bias else ''}_{epilogue}"
    return Case(name, [t.numpy() for t in inputs], y, body)


# (C, H, F, K, stride, bias, epilogue): 7x7, 5x5 and 3x3 outputs (49, 25
# and 9 positions), channels a multiple of 16 and of 8 only, 1x1 (gemm),
# strided 1x1, 3x3 (im2col in bf16) and an epilogue that cannot move.
SMALL_PLANE_MATRIX = [
    (32, 7, 32, 1, 1, True, "relu"),
    (24, 3, 16, 1, 1, True, "relu"),
    (16, 14, 32, 1, 2, False, "relu"),
    (16, 7, 32, 3, 1, True, "relu"),
    (20, 5, 48, 3, 1, False, "relu"),
    (8, 7, 24, 1, 1, True, "relu"),
    (32, 7, 16, 1, 1, True, "add_relu"),
    (17, 9, 32, 3, 2, True, "relu"),
    # K = 864: A (49 x 864) packed by the threads together in bf16.
    (96, 7, 32, 3, 1, False, "relu"),
]


@case("small-plane")
def small_plane_cases(gen):
    own = torch.Generator().manual_seed(4949)
    return [small_plane_case(*cfg, gen=own) for cfg in SMALL_PLANE_MATRIX]


# ---------------------------------------------------------------- norm
@case("norm")
def batch_norm_cases(gen):
    cases = []
    for mode, pshape in [("spatial", (6,)), ("per_activation", (6, 4, 5))]:
        x = rand(2, 6, 4, 5, gen=gen)
        scale, bias, mean = (rand(*pshape, gen=gen) for _ in range(3))
        var = torch.rand(*pshape, generator=gen) + 0.5
        eps = 1e-3
        if mode == "spatial":
            y = F.batch_norm(x, mean, var, scale, bias, training=False, eps=eps)
        else:
            y = (x - mean) / torch.sqrt(var + eps) * scale + bias
        attrs = f"epsilon = {eps} : f64, mode = #nn<batch_norm_mode {mode}>"
        cases.append(Case(f"batch_norm_{mode}",
                          [t.numpy() for t in (x, scale, bias, mean, var)], y,
                          lambda v, t, r, a=attrs: op_line("nn.batch_norm", v, t, r, a)))
    return cases


@case("norm")
def layer_norm_cases(gen):
    """nn.layer_norm over the last dim (rows of 768, 33 and 5: vector
    accumulators with and without tails, and shorter than a vector), over
    several trailing dims, as an instance norm (axis 2), with and without
    scale and bias; and LayerNorm spelled out as PyTorch exports it, which
    canonicalization folds into the op."""
    # Its own generator: the families after this one keep their inputs.
    gen = torch.Generator().manual_seed(260)
    cases = []
    for shape, axis, affine in [((2, 197, 768), -1, True), ((3, 33), 1, False),
                                ((4, 6, 5), 2, True), ((2, 3, 4, 6), 1, True),
                                ((2, 3, 7, 9), 2, False)]:
        x = rand(*shape, gen=gen) * 2 + 0.5
        norm_shape = shape[axis:]
        g, b = rand(*norm_shape, gen=gen), rand(*norm_shape, gen=gen)
        eps = 1e-5
        y = F.layer_norm(x.double(), norm_shape, g.double() if affine else None,
                         b.double() if affine else None, eps).float()
        attrs = f"axis = {axis} : i64, epsilon = 1.0e-5 : f64"
        name = f"layer_norm_{'x'.join(map(str, shape))}_axis{axis}{'_affine' if affine else ''}"
        if affine:
            body = (lambda v, t, r, a=attrs:
                    f"  %r = nn.layer_norm {v[0]} scale {v[1]} bias {v[2]} {{{a}}} : "
                    f"({t[0]}, {t[1]}, {t[2]}) -> {r}")
            cases.append(Case(name, [x.numpy(), g.numpy(), b.numpy()], y, body))
        else:
            body = (lambda v, t, r, a=attrs:
                    f"  %r = nn.layer_norm {v[0]} {{{a}}} : ({t[0]}) -> {r}")
            cases.append(Case(name, [x.numpy()], y, body))
    # The exported form: mean, sub, pow, mean, add, sqrt, div, mul, add.
    x, g, b = rand(1, 49, 96, gen=gen), rand(96, gen=gen), rand(96, gen=gen)
    y = F.layer_norm(x.double(), (96,), g.double(), b.double(), 1e-6).float()
    xt, rt, gt = ttype(x.shape), ttype((1, 49, 1)), ttype(g.shape)
    cases.append(chain_case("layer_norm_exported", [x, g, b], y, [
        "  %two = arith.constant dense<2.0> : tensor<f32>",
        "  %eps = arith.constant dense<1.0e-6> : tensor<f32>",
        f"  %m = nn.reduce {{v[0]}} {{{{axes = array<i64: -1>, kind = #nn<reduce_kind mean>}}}} : ({xt}) -> {rt}",
        f"  %d = nn.sub {{v[0]}}, %m : ({xt}, {rt}) -> {xt}",
        f"  %p = nn.pow %d, %two : ({xt}, tensor<f32>) -> {xt}",
        f"  %v = nn.reduce %p {{{{axes = array<i64: -1>, kind = #nn<reduce_kind mean>}}}} : ({xt}) -> {rt}",
        f"  %e = nn.add %v, %eps : ({rt}, tensor<f32>) -> {rt}",
        f"  %s = nn.sqrt %e : {rt}",
        f"  %n = nn.div %d, %s : ({xt}, {rt}) -> {xt}",
        f"  %w = nn.mul %n, {{v[1]}} : ({xt}, {gt}) -> {xt}",
        f"  %r = nn.add %w, {{v[2]}} : ({xt}, {gt}) -> {xt}"]))
    return cases


# ---------------------------------------------------------------- pooling
# (C, H, W, K, stride, pad(t,l,b,r), dilation, ceil_mode)
MAXPOOL_MATRIX = [
    (3, 8, 8, 2, 2, (0, 0, 0, 0), 1, False),
    (3, 9, 9, 3, 2, (1, 1, 1, 1), 1, False),
    (4, 10, 11, 3, 2, (1, 1, 1, 1), 1, True),
    (2, 7, 7, 3, 2, (0, 0, 0, 0), 1, True),
    (2, 9, 9, 3, 1, (1, 1, 1, 1), 2, False),
    (2, 12, 12, 2, 3, (1, 0, 1, 0), 1, True),
]

# (C, H, W, K, stride, pad, ceil_mode, count_include_pad)
AVGPOOL_MATRIX = [
    (3, 8, 8, 2, 2, (0, 0, 0, 0), False, True),
    (3, 9, 9, 3, 2, (1, 1, 1, 1), False, True),
    (3, 9, 9, 3, 2, (1, 1, 1, 1), False, False),
    (4, 10, 11, 3, 2, (1, 1, 1, 1), True, True),
    (4, 10, 11, 3, 2, (1, 1, 1, 1), True, False),
    (2, 7, 7, 3, 2, (0, 0, 0, 0), True, True),
    (2, 6, 6, 3, 3, (1, 1, 1, 1), True, False),
]


@case("pool")
def pool_cases(gen):
    cases = []
    for (c, h, w, k, s, pad, d, ceil) in MAXPOOL_MATRIX:
        x = rand(1, c, h, w, gen=gen)
        xp = F.pad(x, (pad[1], pad[3], pad[0], pad[2]), value=-float("inf"))
        # Symmetric pads go to PyTorch directly; asymmetric ones pre-padded.
        if pad[0] == pad[2] and pad[1] == pad[3]:
            y = F.max_pool2d(x, k, s, (pad[0], pad[1]), dilation=d, ceil_mode=ceil)
        else:
            y = F.max_pool2d(xp, k, s, 0, dilation=d, ceil_mode=ceil)
        attrs = (f"kernel = {arr([k, k])}, strides = {arr([s, s])}, padding = {arr(pad)}, "
                 f"dilations = {arr([d, d])}, ceil_mode = {str(ceil).lower()}")
        cases.append(Case(f"max_pool2d_c{c}h{h}w{w}k{k}s{s}p{'-'.join(map(str, pad))}d{d}{'ceil' if ceil else ''}",
                          [x.numpy()], y,
                          lambda v, t, r, a=attrs: op_line("nn.max_pool2d", v, t, r, a)))
    for (c, h, w, k, s, pad, ceil, cip) in AVGPOOL_MATRIX:
        x = rand(1, c, h, w, gen=gen)
        y = F.avg_pool2d(x, k, s, (pad[0], pad[1]), ceil_mode=ceil, count_include_pad=cip)
        attrs = (f"kernel = {arr([k, k])}, strides = {arr([s, s])}, padding = {arr(pad)}, "
                 f"ceil_mode = {str(ceil).lower()}, count_include_pad = {str(cip).lower()}")
        cases.append(Case(f"avg_pool2d_c{c}h{h}w{w}k{k}s{s}p{pad[0]}{'ceil' if ceil else ''}{'cip' if cip else ''}",
                          [x.numpy()], y,
                          lambda v, t, r, a=attrs: op_line("nn.avg_pool2d", v, t, r, a)))
    x = rand(2, 5, 7, 6, gen=gen)
    cases.append(Case("global_avg_pool2d", [x.numpy()], F.adaptive_avg_pool2d(x, 1),
                      lambda v, t, r: op_line("nn.global_avg_pool2d", v, t, r)))
    xh = rand(1, 9, 9, 3, gen=gen)  # NHWC
    y = F.max_pool2d(xh.permute(0, 3, 1, 2), 3, 2, 1).permute(0, 2, 3, 1)
    attrs = (f"kernel = {arr([3, 3])}, strides = {arr([2, 2])}, padding = {arr([1, 1, 1, 1])}, "
             "layout = #nn<layout nhwc>")
    cases.append(Case("max_pool2d_nhwc", [xh.numpy()], y,
                      lambda v, t, r: op_line("nn.max_pool2d", v, t, r, attrs)))
    y = F.avg_pool2d(xh.permute(0, 3, 1, 2), 2, 2).permute(0, 2, 3, 1)
    attrs2 = f"kernel = {arr([2, 2])}, strides = {arr([2, 2])}, layout = #nn<layout nhwc>"
    cases.append(Case("avg_pool2d_nhwc", [xh.numpy()], y,
                      lambda v, t, r: op_line("nn.avg_pool2d", v, t, r, attrs2)))
    y = F.adaptive_avg_pool2d(xh.permute(0, 3, 1, 2), 1).permute(0, 2, 3, 1)
    cases.append(Case("global_avg_pool2d_nhwc", [xh.numpy()], y,
                      lambda v, t, r: op_line("nn.global_avg_pool2d", v, t, r,
                                              "layout = #nn<layout nhwc>")))
    return cases


# ---------------------------------------------------------------- reduction
# Reductions along the last, contiguous axis (dlas-vectorize-reductions:
# vector accumulators, a horizontal reduction and a scalar tail) at row
# lengths around the vector widths (8 and 16 lanes), and along other axes
# (the scalar loops), against float64 PyTorch.
REDUCE_KINDS = {
    "sum": lambda x, d: x.sum(d, keepdim=True),
    "mean": lambda x, d: x.mean(d, keepdim=True),
    "max": lambda x, d: x.amax(d, keepdim=True),
    "min": lambda x, d: x.amin(d, keepdim=True),
    "prod": lambda x, d: x.prod(d, keepdim=True),
    "l1": lambda x, d: x.abs().sum(d, keepdim=True),
    "l2": lambda x, d: x.square().sum(d, keepdim=True).sqrt(),
    "sum_square": lambda x, d: x.square().sum(d, keepdim=True),
    "log_sum_exp": lambda x, d: x.logsumexp(d, keepdim=True),
}


@case("reduction")
def reduction_cases(gen):
    cases = []
    for kind, fn in REDUCE_KINDS.items():
        for shape, axis in [((3, 8), 1), ((2, 5, 37), 2), ((4, 197), 1), ((6, 100), 0)]:
            x = rand(*shape, gen=gen)
            if kind == "prod":
                x = 1 + x * 0.05  # products of 197 values stay in range
            y = fn(x.double(), axis).float()
            attrs = f"axes = array<i64: {axis}>, kind = #nn<reduce_kind {kind}>"
            cases.append(Case(f"reduce_{kind}_{'x'.join(map(str, shape))}_axis{axis}",
                              [x.numpy()], y,
                              lambda v, t, r, a=attrs: f"  %r = nn.reduce {v[0]} {{{a}}} : ({t[0]}) -> {r}"))
    for shape in [(3, 16), (2, 12, 197), (5, 33)]:
        x = rand(*shape, gen=gen) * 3
        for op, fn in [("softmax", F.softmax), ("log_softmax", F.log_softmax)]:
            cases.append(Case(f"{op}_{'x'.join(map(str, shape))}", [x.numpy()],
                              fn(x.double(), dim=-1).float(),
                              unary_line(f"nn.{op}", "axis = -1 : i64")))
    return cases


# ---------------------------------------------------------------- activations
@case("activation")
def activation_cases(gen):
    x = rand(2, 3, 5, 7, gen=gen) * 4
    specs = [
        ("relu", "", F.relu(x)),
        ("relu6", "", F.relu6(x)),
        ("clip", "min = -1.5 : f64, max = 2.5 : f64", torch.clamp(x, -1.5, 2.5)),
        ("leaky_relu", "alpha = 0.2 : f64", F.leaky_relu(x, 0.2)),
        ("sigmoid", "", torch.sigmoid(x)),
        ("tanh", "", torch.tanh(x)),
        ("gelu", "", F.gelu(x)),
        ("gelu", "approximate = #nn<gelu_approximation tanh>", F.gelu(x, approximate="tanh")),
        ("silu", "", F.silu(x)),
        ("softmax", "axis = 1 : i64", F.softmax(x, dim=1)),
        ("softmax", "axis = -1 : i64", F.softmax(x, dim=-1)),
        ("log_softmax", "axis = 3 : i64", F.log_softmax(x, dim=3)),
        ("log_softmax", "axis = 0 : i64", F.log_softmax(x, dim=0)),
    ]
    cases = []
    for i, (op, attrs, y) in enumerate(specs):
        cases.append(Case(f"{op}_{i}", [x.numpy()], y, unary_line(f"nn.{op}", attrs)))
    # Functions with a restricted domain take inputs inside it, and those
    # that magnify their input's error (tan near its poles, acosh near 1,
    # atanh near +-1, sinh and cosh of large values) inputs where
    # bf16's rounding of the input stays within the mixed-precision tests'
    # tolerance; references in f64.
    u = torch.rand(2, 3, 5, 7, generator=gen) * 1.9 - 0.95   # (-0.95, 0.95)
    x64, u64 = x.double(), u.double()
    domain_specs = [
        ("tan", u, torch.tan(u64)), ("asin", u, torch.asin(u64)),
        ("acos", u, torch.acos(u64)), ("atan", x, torch.atan(x64)),
        ("sinh", x / 4, torch.sinh(x64 / 4)), ("cosh", x / 4, torch.cosh(x64 / 4)),
        ("asinh", x, torch.asinh(x64)), ("acosh", 1.5 + x.abs(), torch.acosh(1.5 + x64.abs())),
        ("atanh", u * 0.9, torch.atanh(u64 * 0.9)), ("sign", torch.round(x), torch.sign(torch.round(x64))),
    ]
    for op, inp, y in domain_specs:
        cases.append(Case(op, [inp.numpy()], y.float(), unary_line(f"nn.{op}")))
    # Cumulative sums: along a middle axis, and the last one exclusive and
    # reversed.
    rev = torch.flip(torch.cumsum(torch.flip(x64, [3]), 3), [3]) - x64
    for name, attrs, y in [("cumsum_axis1", "axis = 1 : i64", torch.cumsum(x64, 1)),
                           ("cumsum_last_exclusive_reverse",
                            "axis = -1 : i64, exclusive = true, reverse = true", rev)]:
        cases.append(Case(name, [x.numpy()], y.float(), unary_line("nn.cumsum", attrs)))
    return cases


# ---------------------------------------------------------------- math_range
# The CPU pipeline computes exp, tanh, erf, log (and what is built of them:
# sigmoid, silu, gelu, softplus, softmax) with polynomial approximations
# (dlas-cpu-approximate-math) and constant powers with multiplies. These
# cases sweep each over its whole f32 range, with the values at which
# approximations go wrong (overflow and underflow edges, +-0, +-inf, NaN,
# arguments near 1 for log), against float64 PyTorch. Tolerance: rtol
# MATH_RTOL (the exp approximation's worst case, just below exp's
# overflow, is about 2^-16 relative), atol MATH_ATOL (denormal results are
# flushed to zero).
MATH_RTOL = "2e-5"
MATH_ATOL = "1e-6"
SPECIALS = [0.0, -0.0, float("inf"), float("-inf"), float("nan"), 1e-30, -1e-30,
            1e-7, -1e-7]


def sweep(lo, hi, extra=(), n=4093):
    # An odd count: the vector loops' tails run too.
    values = np.concatenate([np.linspace(lo, hi, n), np.array(list(extra) + SPECIALS)])
    return torch.from_numpy(values.astype(np.float32))


@case("math_range")
def math_range_cases(gen):
    exact = ["--rtol", MATH_RTOL, "--atol", MATH_ATOL]
    specs = [
        ("exp", sweep(-104, 89, [88.72, 88.73, -87.33, -87.34, -103.9]), torch.exp),
        ("tanh", sweep(-20, 20, [7.99, 8.01, -9.0, 4e-4, -3.9e-4]), torch.tanh),
        ("erf", sweep(-8, 8, [0.84, 2.0, 3.9, 4.1, -6.0]), torch.erf),
        ("sigmoid", sweep(-110, 110), torch.sigmoid),
        ("silu", sweep(-110, 110), F.silu),
        ("gelu", sweep(-30, 30), F.gelu),
        ("softplus", sweep(-100, 100, [20.0, 30.0]), F.softplus),
    ]
    cases = []
    for op, x, fn in specs:
        cases.append(Case(f"range_{op}", [x.numpy()], fn(x.double()).float(),
                          unary_line(f"nn.{op}"), run_args=exact))
    positive = torch.from_numpy(np.concatenate([
        np.logspace(-37, 38, 4093), [1.0, 1.0000001, 0.9999999, 2.0, 0.5],
        SPECIALS, [-1.0, -1e30]]).astype(np.float32))
    cases.append(Case("range_log", [positive.numpy()], torch.log(positive.double()).float(),
                      unary_line("nn.log"), run_args=exact))
    # Softmax of large and spread logits: exp of the shifted values down to
    # the underflow edge.
    logits = torch.randn(7, 301, generator=gen) * 30
    cases.append(Case("range_softmax", [logits.numpy()],
                      F.softmax(logits.double(), dim=1).float(),
                      unary_line("nn.softmax", "axis = 1 : i64"), run_args=exact))
    # Constant exponents that become multiplies, divisions or square roots,
    # and one that stays a pow call.
    x = sweep(-50, 50, [3.0, -2.0])
    # Square roots of a non-negative base: C's pow and PyTorch's disagree on
    # -0 and -inf (pow(-inf, 0.5) is +inf in C, NaN in PyTorch).
    xp = sweep(0, 1e4, [1e-20, 4.0])
    xp = xp[~torch.signbit(xp)]
    for i, (e, base) in enumerate([(2.0, x), (3.0, x), (1.0, x), (-1.0, x), (-2.0, x),
                                   (0.5, xp), (-0.5, xp), (1.7, xp)]):
        cases.append(Case(
            f"range_pow_{i}", [base.numpy()],
            torch.pow(base.double(), e).float(),
            lambda v, t, r, e=e: (f"  %e = arith.constant dense<{e!r}> : tensor<f32>\n"
                                  f"  %r = nn.pow {v[0]}, %e : ({t[0]}, tensor<f32>) -> {r}"),
            run_args=exact))
    return cases


# ---------------------------------------------------------------- binary
@case("binary")
def binary_cases(gen):
    shapes = [((2, 3, 4), (2, 3, 4)), ((1, 8, 4, 4), (8, 1, 1)),
              ((4, 1), (1, 5)), ((3, 1, 5), (4, 1)), ((6,), (2, 3, 6))]
    ops = {"add": torch.add, "sub": torch.sub, "mul": torch.mul,
           "div": torch.div, "max": torch.maximum, "min": torch.minimum}
    cases = []
    for i, (sa, sb) in enumerate(shapes):
        for name, fn in ops.items():
            a, b = rand(*sa, gen=gen), rand(*sb, gen=gen)
            if name == "div":
                b = b.sign() * (b.abs() + 0.5)  # keep away from 0
            cases.append(Case(f"{name}_{i}", [a.numpy(), b.numpy()], fn(a, b),
                              lambda v, t, r, n=name: op_line(f"nn.{n}", v, t, r)))
    return cases


# ---------------------------------------------------------------- shape ops
@case("shape")
def shape_cases(gen):
    cases = []
    a, b, c = rand(1, 2, 3, 3, gen=gen), rand(1, 5, 3, 3, gen=gen), rand(1, 1, 3, 3, gen=gen)
    cases.append(Case("concat_axis1", [a.numpy(), b.numpy(), c.numpy()],
                      torch.cat([a, b, c], 1),
                      lambda v, t, r: op_line("nn.concat", v, t, r, "axis = 1 : i64")))
    a, b = rand(2, 3, 4, gen=gen), rand(2, 3, 2, gen=gen)
    cases.append(Case("concat_axis_neg1", [a.numpy(), b.numpy()], torch.cat([a, b], -1),
                      lambda v, t, r: op_line("nn.concat", v, t, r, "axis = -1 : i64")))
    x = rand(2, 3, 4, 5, gen=gen)
    cases.append(Case("reshape", [x.numpy()], x.reshape(6, -1, 2),
                      lambda v, t, r: op_line("nn.reshape", v, t, r,
                                              f"shape = {arr([6, -1, 2])}")))
    cases.append(Case("flatten1", [x.numpy()], torch.flatten(x, 1),
                      lambda v, t, r: op_line("nn.flatten", v, t, r, "axis = 1 : i64")))
    cases.append(Case("flatten2", [x.numpy()], torch.flatten(x, 2),
                      lambda v, t, r: op_line("nn.flatten", v, t, r, "axis = 2 : i64")))
    cases.append(Case("transpose", [x.numpy()], x.permute(0, 2, 3, 1),
                      lambda v, t, r: op_line("nn.transpose", v, t, r,
                                              f"perm = {arr([0, 2, 3, 1])}")))
    cases.append(Case("transpose_rev", [x.numpy()], x.permute(3, 2, 1, 0),
                      lambda v, t, r: op_line("nn.transpose", v, t, r,
                                              f"perm = {arr([3, 2, 1, 0])}")))
    y = F.pad(x, (2, 0, 1, 3, 0, 1), value=0.5)  # W:(2,0) H:(1,3) C:(0,1)
    cases.append(Case("pad", [x.numpy()], y,
                      lambda v, t, r: op_line("nn.pad", v, t, r,
                                              f"pads = {arr([0, 0, 1, 2, 0, 1, 3, 0])}, value = 0.5 : f64")))
    # Large enough for threads (dlas-vectorize-row-copies writes border and
    # interior in one parallel nest), rows of more than 8 vectors, a
    # padded batch dim.
    x = rand(2, 40, 30, 70, gen=gen)
    y = F.pad(x, (3, 5, 2, 1, 1, 0, 0, 1), value=-1.25)
    cases.append(Case("pad_wide", [x.numpy()], y,
                      lambda v, t, r: op_line("nn.pad", v, t, r,
                                              f"pads = {arr([0, 1, 2, 3, 1, 0, 1, 5])}, value = -1.25 : f64")))
    img = rand(1, 3, 5, 6, gen=gen)
    resize_specs = [
        ("nearest_scale2", "mode = #nn<resize_mode nearest>, scales = array<f64: 2.0, 2.0>",
         F.interpolate(img, scale_factor=2.0, mode="nearest")),
        ("nearest_scale_frac", "mode = #nn<resize_mode nearest>, scales = array<f64: 1.5, 0.5>",
         F.interpolate(img, scale_factor=(1.5, 0.5), mode="nearest")),
        ("nearest_sizes", "mode = #nn<resize_mode nearest>, sizes = array<i64: 7, 4>",
         F.interpolate(img, size=(7, 4), mode="nearest")),
        ("bilinear_scale2", "mode = #nn<resize_mode bilinear>, scales = array<f64: 2.0, 2.0>",
         F.interpolate(img, scale_factor=2.0, mode="bilinear", align_corners=False)),
        ("bilinear_sizes", "mode = #nn<resize_mode bilinear>, sizes = array<i64: 8, 9>",
         F.interpolate(img, size=(8, 9), mode="bilinear", align_corners=False)),
        ("bilinear_down", "mode = #nn<resize_mode bilinear>, sizes = array<i64: 3, 4>",
         F.interpolate(img, size=(3, 4), mode="bilinear", align_corners=False)),
        ("bilinear_align", "mode = #nn<resize_mode bilinear>, sizes = array<i64: 9, 11>, coordinates = #nn<resize_coordinates align_corners>",
         F.interpolate(img, size=(9, 11), mode="bilinear", align_corners=True)),
        ("bicubic_scale2", "mode = #nn<resize_mode bicubic>, scales = array<f64: 2.0, 2.0>",
         F.interpolate(img, scale_factor=2.0, mode="bicubic", align_corners=False)),
        ("bicubic_sizes_down", "mode = #nn<resize_mode bicubic>, sizes = array<i64: 3, 4>",
         F.interpolate(img, size=(3, 4), mode="bicubic", align_corners=False)),
        ("bicubic_align", "mode = #nn<resize_mode bicubic>, sizes = array<i64: 9, 11>, coordinates = #nn<resize_coordinates align_corners>",
         F.interpolate(img, size=(9, 11), mode="bicubic", align_corners=True)),
        # PyTorch's nearest-exact: half-pixel centres, halves rounded up.
        ("nearest_exact", "mode = #nn<resize_mode nearest>, sizes = array<i64: 8, 4>, coordinates = #nn<resize_coordinates half_pixel>, nearest_mode = #nn<nearest_rounding round_prefer_ceil>",
         F.interpolate(img, size=(8, 4), mode="nearest-exact")),
    ]
    for name, attrs, y in resize_specs:
        cases.append(Case(f"resize_{name}", [img.numpy()], y,
                          lambda v, t, r, a=attrs: op_line("nn.resize", v, t, r, a)))
    return cases


# ---------------------------------------------------------------- depthwise
# Depthwise convolutions with the neighbours dlas-depthwise-microkernel folds
# into its kernel. Planes wide and tall enough for the mask-free interior
# loops, and small or odd ones where every tile and row block is a border.
DEPTHWISE_MATRIX = [
    # (N, C, H, W, K, stride, pad(t,l,b,r), dilation, bias, epilogue)
    (1, 5, 70, 70, 3, 1, (1, 1, 1, 1), 1, True, "relu6"),
    (2, 3, 70, 69, 3, 2, (1, 1, 1, 1), 1, False, "relu"),
    (1, 4, 21, 37, 5, 1, (2, 2, 2, 2), 1, True, None),
    (1, 3, 30, 45, 7, 1, (3, 3, 3, 3), 1, False, None),
    (1, 4, 33, 50, 3, 3, (1, 1, 1, 1), 1, True, None),
    (1, 4, 25, 41, 3, 1, (2, 2, 2, 2), 2, False, "relu"),
    (1, 6, 7, 7, 3, 1, (1, 1, 1, 1), 1, True, "relu6"),
    (1, 4, 14, 14, 3, 2, (0, 0, 1, 1), 1, True, None),       # TF "same" s2
    (1, 4, 12, 19, 3, 1, (0, 0, 0, 0), 1, False, None),      # no padding
    (1, 8, 20, 20, 1, 1, (0, 0, 0, 0), 1, True, None),       # 1x1
    (1, 4, 18, 35, 3, 1, (1, 1, 1, 1), 1, True, "residual"),
    (1, 4, 9, 40, 3, 1, (1, 2, 0, 1), 1, False, "pad2"),     # nn.pad 2.0 first
]


def depthwise_case(n, c, h, w, k, s, pad, d, bias, epilogue, gen):
    x = rand(n, c, h, w, gen=gen)
    wt = rand(c, 1, k, k, gen=gen)
    b = rand(c, gen=gen) if bias else None
    xt, lines, pads = x, [], pad
    if epilogue == "pad2":
        # The padding comes from an explicit nn.pad with a non-zero value.
        xt = F.pad(x, (pad[1], pad[3], pad[0], pad[2]), value=2.0)
        hp, wp = h + pad[0] + pad[2], w + pad[1] + pad[3]
        lines.append(f"  %x = nn.pad %a0 {{pads = {arr([0, 0, pad[0], pad[1], 0, 0, pad[2], pad[3]])}, "
                     f"value = 2.0 : f64}} : ({ttype((n, c, h, w))}) -> {ttype((n, c, hp, wp))}")
        pads = (0, 0, 0, 0)
    else:
        xt = F.pad(x, (pad[1], pad[3], pad[0], pad[2]))
    y = F.conv2d(xt, wt, b, stride=s, dilation=d, groups=c)
    ytype = ttype(y.shape)
    if epilogue == "relu6":
        y = torch.clamp(y, 0, 6)
    elif epilogue == "relu":
        y = torch.relu(y)
    elif epilogue == "residual":
        y = y + x
    inputs = [x, wt] + ([b] if bias else [])
    attrs = (f"strides = {arr([s, s])}, padding = {arr(pads)}, "
             f"dilations = {arr([d, d])}, groups = {c} : i64")
    name = (f"dw_n{n}c{c}h{h}w{w}k{k}s{s}p{'-'.join(map(str, pad))}d{d}"
            f"{'b' if bias else ''}{'_' + epilogue if epilogue else ''}")

    def body(v, t, r):
        xin, xtype = v[0], t[0]
        out = list(lines)
        if out:
            xin, xtype = "%x", ttype(xt.shape)
        conv = "%r" if epilogue in (None, "pad2") else "%y"
        out.append(f"  {conv} = nn.conv2d {', '.join([xin] + v[1:])} {{{attrs}}} : "
                   f"({', '.join([xtype] + t[1:])}) -> {ytype}")
        if epilogue in ("relu", "relu6"):
            out.append(f"  %r = nn.{epilogue} %y : {ytype}")
        elif epilogue == "residual":
            out.append(f"  %r = nn.add %y, {v[0]} : ({ytype}, {t[0]}) -> {ytype}")
        return "\n".join(out)
    return Case(name, [t.numpy() for t in inputs], y, body)


@case("depthwise")
def depthwise_cases(gen):
    return [depthwise_case(*cfg, gen=gen) for cfg in DEPTHWISE_MATRIX]



# ---------------------------------------------------------------- GEMM epilogues
def chain_case(name, inputs, expected, lines):
    """A case whose body is `lines` (format strings over v, t)."""
    return Case(name, [t.numpy() for t in inputs], expected,
                lambda v, t, r: "\n".join(line.format(v=v, t=t) for line in lines))


@case("gemm_epilogue")
def gemm_epilogue_cases(gen):
    """Contractions with the init and elementwise chains dlas-gemm-microkernel
    folds (bias broadcasts, activations, residual adds, per-channel scales),
    and chains it must not fold (a pre-activation read again later)."""
    cases = []
    conv_t = "({t[0]}, {t[1]}, {t[2]}) -> "
    # 1x1 expansion + bias + relu6 (MobileNetV2), N = 196: column tails.
    x, w, b = rand(1, 24, 14, 14, gen=gen), rand(40, 24, 1, 1, gen=gen), rand(40, gen=gen)
    y = torch.clamp(F.conv2d(x, w, b), 0, 6)
    yt = ttype(y.shape)
    cases.append(chain_case("pw_bias_relu6", [x, w, b], y, [
        "  %y = nn.conv2d {v[0]}, {v[1]}, {v[2]} : " + conv_t + yt,
        f"  %r = nn.relu6 %y : {yt}"]))
    # Bottleneck end: 1x1 + bias + residual add + relu (ResNet), batch 2.
    x, w, b = rand(2, 32, 7, 9, gen=gen), rand(16, 32, 1, 1, gen=gen), rand(16, gen=gen)
    res = rand(2, 16, 7, 9, gen=gen)
    y = torch.relu(F.conv2d(x, w, b) + res)
    yt = ttype(y.shape)
    cases.append(chain_case("pw_bias_add_relu_batch2", [x, w, b, res], y, [
        "  %y = nn.conv2d {v[0]}, {v[1]}, {v[2]} : " + conv_t + yt,
        f"  %s = nn.add %y, {{v[3]}} : ({yt}, {{t[3]}}) -> {yt}",
        f"  %r = nn.relu %s : {yt}"]))
    # 3x3 padded convolution + bias + silu.
    x, w, b = rand(1, 8, 12, 11, gen=gen), rand(20, 8, 3, 3, gen=gen), rand(20, gen=gen)
    y = F.silu(F.conv2d(x, w, b, padding=1))
    yt = ttype(y.shape)
    cases.append(chain_case("conv3x3_bias_silu", [x, w, b], y, [
        "  %y = nn.conv2d {v[0]}, {v[1]}, {v[2]} {{padding = " + arr([1, 1, 1, 1])
        + "}} : " + conv_t + yt,
        f"  %r = nn.silu %y : {yt}"]))
    # Linear: the bias runs along n.
    x, w, b = rand(5, 300, gen=gen), rand(50, 300, gen=gen), rand(50, gen=gen)
    y = torch.tanh(F.linear(x, w, b))
    yt = ttype(y.shape)
    cases.append(chain_case("linear_bias_tanh", [x, w, b], y, [
        "  %y = nn.linear {v[0]}, {v[1]}, {v[2]} : " + conv_t + yt,
        f"  %r = nn.tanh %y : {yt}"]))
    # Matmul from a zero fill + sigmoid + leaky relu.
    a, bm = rand(17, 40, gen=gen), rand(40, 33, gen=gen)
    y = F.leaky_relu(torch.sigmoid(a @ bm) - 0.5, 0.1)
    yt = ttype(y.shape)
    half = torch.full((1,), 0.5)
    cases.append(chain_case("matmul_sigmoid_sub_leaky", [a, bm, half], y, [
        f"  %y = nn.matmul {{v[0]}}, {{v[1]}} : ({{t[0]}}, {{t[1]}}) -> {yt}",
        f"  %s = nn.sigmoid %y : {yt}",
        f"  %d = nn.sub %s, {{v[2]}} : ({yt}, {{t[2]}}) -> {yt}",
        f"  %r = nn.leaky_relu %d {{{{alpha = 0.1 : f64}}}} : {yt}"]))
    # Per-channel scale (C x 1 x 1) after a 1x1 without bias.
    x, w, sc = rand(1, 16, 9, 9, gen=gen), rand(24, 16, 1, 1, gen=gen), rand(24, 1, 1, gen=gen)
    y = F.conv2d(x, w) * sc
    yt = ttype(y.shape)
    cases.append(chain_case("pw_scale", [x, w, sc], y, [
        f"  %y = nn.conv2d {{v[0]}}, {{v[1]}} : ({{t[0]}}, {{t[1]}}) -> {yt}",
        f"  %r = nn.mul %y, {{v[2]}} : ({yt}, {{t[2]}}) -> {yt}"]))
    # Grouped 3x3 (4 groups) with a constant filter: A is packed per group at
    # compile time; bias + relu fold in.
    x, w, b = rand(1, 8, 10, 9, gen=gen), rand(12, 2, 3, 3, gen=gen), rand(12, gen=gen)
    y = torch.relu(F.conv2d(x, w, b, padding=1, groups=4))
    yt = ttype(y.shape)
    wt = ttype(w.shape)
    # The filter as a hex literal: raw little-endian f32 data.
    whex = "0x" + w.numpy().astype("<f4").tobytes().hex().upper()
    cases.append(chain_case("grouped_const_bias_relu", [x, b], y, [
        f'  %w = arith.constant dense<"{whex}"> : {wt}',
        "  %y = nn.conv2d {v[0]}, %w, {v[1]} {{padding = " + arr([1, 1, 1, 1])
        + ", groups = 4 : i64}} : ({t[0]}, " + wt + ", {t[1]}) -> " + yt,
        f"  %r = nn.relu %y : {yt}"]))
    # The pre-activation is read again: relu must not take its buffer.
    x, w, b = rand(1, 12, 8, 8, gen=gen), rand(12, 12, 1, 1, gen=gen), rand(12, gen=gen)
    pre = F.conv2d(x, w, b)
    y = torch.relu(pre) * pre
    yt = ttype(y.shape)
    cases.append(chain_case("pw_preactivation_reused", [x, w, b], y, [
        "  %y = nn.conv2d {v[0]}, {v[1]}, {v[2]} : " + conv_t + yt,
        f"  %a = nn.relu %y : {yt}",
        f"  %r = nn.mul %a, %y : ({yt}, {yt}) -> {yt}"]))
    return cases


# ---------------------------------------------------------------- gspc
GSPC_MATRIX = [
    # (N, C, H, W, F, K, stride, pad(t,l,b,r), dilation, groups, bias, const)
    (1, 32, 8, 8, 32, 3, 1, (1, 1, 1, 1), 1, 2, True, True),    # WRN-40-2-like
    (1, 64, 8, 8, 64, 3, 1, (1, 1, 1, 1), 1, 4, True, True),    # KPG 16
    (1, 48, 7, 9, 48, 3, 1, (1, 1, 1, 1), 1, 3, False, True),   # groups 3
    (1, 64, 6, 6, 64, 3, 1, (1, 1, 1, 1), 1, 8, True, True),    # KPG 8
    (1, 64, 6, 7, 64, 3, 1, (1, 1, 1, 1), 1, 16, True, True),   # KPG 4
    (1, 32, 9, 9, 32, 3, 2, (1, 1, 1, 1), 1, 4, True, True),    # stride 2
    (1, 40, 11, 10, 40, 3, 1, (2, 2, 2, 2), 2, 2, True, True),  # dilated, KPG 20
    (1, 36, 7, 7, 60, 3, 1, (0, 1, 2, 1), 1, 6, False, True),   # CPG 6, KPG 10
    (2, 30, 6, 6, 42, 5, 1, (2, 2, 2, 2), 1, 3, True, True),    # odd CPG/KPG, N 2
    (1, 32, 5, 23, 24, 1, 1, (0, 0, 0, 0), 1, 2, True, True),   # 1x1, wide rows
    (1, 16, 9, 9, 16, 3, 1, (1, 1, 1, 1), 1, 2, True, False),   # runtime filter
    (1, 22, 8, 8, 14, 3, 2, (1, 0, 1, 0), 1, 2, False, False),  # runtime, tails
]


def gspc_case(n, c, h, w, f, k, s, pad, d, g, bias, const, gen):
    x = rand(n, c, h, w, gen=gen)
    wt = rand(f, c // g, k, k, gen=gen)
    b = rand(f, gen=gen) if bias else None
    y = F.conv2d(F.pad(x, (pad[1], pad[3], pad[0], pad[2])), wt, b,
                 stride=s, dilation=d, groups=g)
    attrs = (f"strides = {arr([s, s])}, padding = {arr(pad)}, "
             f"dilations = {arr([d, d])}, groups = {g} : i64")
    name = (f"gspc_n{n}c{c}h{h}w{w}f{f}k{k}s{s}p{'-'.join(map(str, pad))}"
            f"d{d}g{g}{'b' if bias else ''}{'c' if const else ''}")
    yt, wtype = ttype(y.shape), ttype(wt.shape)
    if not const:
        inputs = [x, wt] + ([b] if bias else [])
        return Case(name, [t.numpy() for t in inputs], y,
                    lambda v, t, r: op_line("nn.conv2d", v, t, r, attrs))
    # The filter as a hex literal (raw little-endian f32): packed at
    # compile time.
    whex = "0x" + wt.numpy().astype("<f4").tobytes().hex().upper()
    inputs = [x] + ([b] if bias else [])
    operands = "{v[0]}, %w" + (", {v[1]}" if bias else "")
    types = "{t[0]}, " + wtype + (", {t[1]}" if bias else "")
    return chain_case(name, inputs, y, [
        f'  %w = arith.constant dense<"{whex}"> : {wtype}',
        f"  %r = nn.conv2d {operands} {{{{{attrs}}}}} : ({types}) -> {yt}"])


@case("gspc")
def gspc_cases(gen):
    """Grouped convolutions for dlas-grouped-conv-packing: groups 2-16,
    channels per group that are and are not multiples of the vector, odd
    ones, strides, padding, dilation, constant and run-time filters."""
    cases = [gspc_case(*cfg, gen=gen) for cfg in GSPC_MATRIX]
    # A grouped block: conv + bias + relu, then a second grouped conv.
    x = rand(1, 32, 8, 8, gen=gen)
    w1, b1 = rand(32, 8, 3, 3, gen=gen), rand(32, gen=gen)
    w2 = rand(32, 16, 3, 3, gen=gen)
    h = torch.relu(F.conv2d(x, w1, b1, padding=1, groups=4))
    y = F.conv2d(h, w2, padding=1, groups=2)
    yt = ttype(y.shape)
    cases.append(chain_case("gspc_block", [x, w1, b1, w2], y, [
        "  %h = nn.conv2d {v[0]}, {v[1]}, {v[2]} {{padding = "
        + arr([1, 1, 1, 1]) + ", groups = 4 : i64}} : ({t[0]}, {t[1]}, {t[2]}) -> "
        + yt,
        f"  %a = nn.relu %h : {yt}",
        "  %r = nn.conv2d %a, {v[3]} {{padding = " + arr([1, 1, 1, 1])
        + ", groups = 2 : i64}} : (" + yt + ", {t[3]}) -> " + yt]))
    return cases


# ---------------------------------------------------------------- winograd
# (N, C, H, W, F, pad(t,l,b,r), bias, epilogue): 3x3 stride-1 convolutions
# with constant filters, the shapes Winograd F(2x2,3x3) must get right:
# odd output sizes (a padded last tile), no/asymmetric padding, batch 2,
# C != F, a bias in the init and an activation after it.
WINOGRAD_MATRIX = [
    (1, 4, 8, 8, 6, (1, 1, 1, 1), False, None),
    (1, 3, 9, 7, 5, (1, 1, 1, 1), True, "relu"),      # odd output 9x7
    (2, 8, 6, 10, 4, (0, 0, 0, 0), True, None),        # no padding, batch 2
    (1, 5, 7, 6, 7, (2, 1, 0, 1), False, None),        # asymmetric padding
    (1, 16, 14, 14, 16, (1, 1, 1, 1), True, "relu"),
    (1, 2, 3, 3, 3, (0, 0, 0, 0), False, None),        # a single output
    # Rows of tiles wider than a vector (dlas-winograd-transforms: blocks
    # of 8 tiles in a loop, then 4, 2, 1): 20 tiles (8 + 8 + 4) with bias
    # and ReLU (both fused), 18 (8 + 8 + 2) without bias, sigmoid after (a
    # fused epilogue of several ops), batch 2; 23 (8 + 8 + 4 + 2 + 1) with
    # the bias alone; an odd 37-wide output (sliced: nothing fused).
    (1, 4, 20, 40, 6, (1, 1, 1, 1), True, "relu"),
    (2, 3, 10, 36, 5, (1, 1, 1, 1), False, "sigmoid"),
    (1, 6, 12, 46, 8, (1, 1, 1, 1), True, None),
    (1, 3, 8, 37, 5, (1, 1, 1, 1), True, "relu"),
]


def winograd_case(n, c, h, w, f, pad, bias, epilogue, gen):
    x, wt = rand(n, c, h, w, gen=gen), rand(f, c, 3, 3, gen=gen)
    b = rand(f, gen=gen) if bias else None
    y = F.conv2d(F.pad(x, (pad[1], pad[3], pad[0], pad[2])), wt, b)
    if epilogue == "relu":
        y = torch.relu(y)
    elif epilogue == "sigmoid":
        y = torch.sigmoid(y)
    yt, wtt = ttype(y.shape), ttype(wt.shape)
    # The filter as a hex literal: raw little-endian f32 data.
    whex = "0x" + wt.numpy().astype("<f4").tobytes().hex().upper()
    operands = "{v[0]}, %w" + (", {v[1]}" if bias else "")
    types = "{t[0]}, " + wtt + (", {t[1]}" if bias else "")
    conv = "%r" if epilogue is None else "%y"
    lines = [f'  %w = arith.constant dense<"{whex}"> : {wtt}',
             f"  {conv} = nn.conv2d {operands} {{{{padding = {arr(pad)}}}}} : "
             f"({types}) -> {yt}"]
    if epilogue:
        lines.append(f"  %r = nn.{epilogue} %y : {yt}")
    name = (f"winograd_n{n}c{c}h{h}w{w}f{f}p{'-'.join(map(str, pad))}"
            f"{'b' if bias else ''}{'_' + epilogue if epilogue else ''}")
    return chain_case(name, [x] + ([b] if bias else []), y, lines)


@case("winograd")
def winograd_cases(gen):
    return [winograd_case(*cfg, gen=gen) for cfg in WINOGRAD_MATRIX]


# ---------------------------------------------------------------- blocked
# Dense convolutions whose channels are multiples of 16 (the AVX-512 block):
# dlas-blocked-layout runs them in NCHW16c. Odd widths give the register
# tiles tails; an odd number of output blocks forces single-vector tiles.
BLOCKED_MATRIX = [
    # (N, C, H, W, F, K, stride, pad(t,l,b,r), dilation, groups, bias)
    (1, 16, 9, 11, 32, 3, 1, (1, 1, 1, 1), 1, 1, True),     # OW 11: 8 + 3
    (1, 32, 15, 13, 16, 3, 2, (1, 1, 1, 1), 1, 1, False),   # s2, one block
    (2, 32, 7, 7, 48, 1, 1, (0, 0, 0, 0), 1, 1, True),      # 1x1, batch 2, 3 blocks
    (1, 16, 14, 14, 32, 1, 2, (0, 0, 0, 0), 1, 1, False),   # 1x1 s2
    (1, 16, 12, 13, 16, 5, 1, (2, 3, 1, 2), 2, 1, True),    # 5x5 dil 2 asymmetric
    (1, 16, 20, 18, 32, 7, 2, (3, 3, 3, 3), 1, 1, True),    # 7x7 s2
    (1, 16, 4, 57, 32, 3, 1, (1, 1, 1, 1), 1, 1, True),     # OW 57: 7 x 8 + 1
    (1, 32, 8, 8, 32, 2, 2, (0, 0, 1, 1), 1, 1, False),     # 2x2 s2 even kernel
    # Depthwise (groups = channels), blocked the same way.
    (1, 32, 9, 11, 32, 3, 1, (1, 1, 1, 1), 1, 32, True),    # dw 3x3, OW 11
    (1, 16, 15, 17, 16, 3, 2, (1, 1, 1, 1), 1, 16, False),  # dw s2
    (1, 48, 12, 31, 48, 5, 1, (2, 3, 1, 2), 2, 48, True),   # dw 5x5 dil 2, OW 31: 14+14+3
]


def inverted_residual_case(gen):
    """MobileNetV2's block: 1x1 expand + relu6 -> depthwise 3x3 + relu6 ->
    1x1 project -> + x: blocked end to end, depthwise layer included."""
    x = rand(1, 16, 10, 10, gen=gen)
    we = rand(64, 16, 1, 1, gen=gen) * 0.2
    wd = rand(64, 1, 3, 3, gen=gen) * 0.3
    bd = rand(64, gen=gen)
    wp = rand(16, 64, 1, 1, gen=gen) * 0.2
    y = torch.clamp(F.conv2d(x, we), 0, 6)
    y = torch.clamp(F.conv2d(y, wd, bd, padding=1, groups=64), 0, 6)
    y = F.conv2d(y, wp) + x
    t, e = "tensor<1x16x10x10xf32>", "tensor<1x64x10x10xf32>"

    def body(v, ts, r):
        return "\n".join([
            f"  %e = nn.conv2d {v[0]}, {v[1]} : ({ts[0]}, {ts[1]}) -> {e}",
            f"  %e6 = nn.relu6 %e : {e}",
            f"  %d = nn.conv2d %e6, {v[2]}, {v[3]} {{padding = {arr([1, 1, 1, 1])}, groups = 64 : i64}} : "
            f"({e}, {ts[2]}, {ts[3]}) -> {e}",
            f"  %d6 = nn.relu6 %d : {e}",
            f"  %p = nn.conv2d %d6, {v[4]} : ({e}, {ts[4]}) -> {t}",
            f"  %r = nn.add %p, {v[0]} : ({t}, {t}) -> {t}",
        ])
    return Case("inverted_residual", [x.numpy(), we.numpy(), wd.numpy(), bd.numpy(), wp.numpy()],
                y, body)


def residual_block_case(gen):
    """conv3x3+bias -> relu -> conv3x3 -> + x -> relu -> conv1x1 s2: the
    layout propagates through the activations, pads, residual add and
    layer functions, and only the block's input and output convert."""
    x = rand(1, 32, 14, 14, gen=gen)
    w1 = rand(32, 32, 3, 3, gen=gen) * 0.1
    b1 = rand(32, gen=gen)
    w2 = rand(32, 32, 3, 3, gen=gen) * 0.1
    w3 = rand(64, 32, 1, 1, gen=gen) * 0.1
    y = F.relu(F.conv2d(x, w1, b1, padding=1))
    y = F.relu(F.conv2d(y, w2, padding=1) + x)
    y = F.conv2d(y, w3, stride=2)
    t = "tensor<1x32x14x14xf32>"

    def body(v, ts, r):
        return "\n".join([
            f"  %c1 = nn.conv2d {v[0]}, {v[1]}, {v[2]} {{padding = {arr([1, 1, 1, 1])}}} : "
            f"({ts[0]}, {ts[1]}, {ts[2]}) -> {t}",
            f"  %r1 = nn.relu %c1 : {t}",
            f"  %c2 = nn.conv2d %r1, {v[3]} {{padding = {arr([1, 1, 1, 1])}}} : ({t}, {ts[3]}) -> {t}",
            f"  %s = nn.add %c2, {v[0]} : ({t}, {t}) -> {t}",
            f"  %r2 = nn.relu %s : {t}",
            f"  %r = nn.conv2d %r2, {v[4]} {{strides = {arr([2, 2])}}} : ({t}, {ts[4]}) -> {r}",
        ])
    return Case("residual_block", [x.numpy(), w1.numpy(), b1.numpy(), w2.numpy(), w3.numpy()],
                y, body)


@case("blocked")
def blocked_cases(gen):
    cases = [conv_case(*cfg, gen=gen) for cfg in BLOCKED_MATRIX]
    cases.append(residual_block_case(gen))
    cases.append(inverted_residual_case(gen))
    return cases


@case("blocked-const")
def blocked_const_cases(gen):
    """The dense cases of BLOCKED_MATRIX with constant filters (packed at
    compile time: the int8 and bf16 blocked kernels need them), and 64
    output channels on 56-wide rows (four channel blocks: bf16's 4x4
    tiles, with tails) and on padded 14- and 7-wide rows (bf16's balanced
    5 + 5 + 4 and 4 + 3 column tiles, which read the source in place)."""
    cases = [gspc_case(n, c, h, w, f, k, s, pad, d, 1, bias, True, gen)
             for n, c, h, w, f, k, s, pad, d, g, bias in BLOCKED_MATRIX if g == 1]
    cases.append(gspc_case(1, 16, 6, 58, 64, 3, 1, (1, 1, 1, 1), 1, 1, True, True, gen))
    cases.append(gspc_case(1, 32, 14, 14, 64, 3, 1, (1, 1, 1, 1), 1, 1, True, True, gen))
    cases.append(gspc_case(1, 16, 13, 13, 64, 3, 2, (1, 1, 1, 1), 1, 1, False, True, gen))
    return cases


# ---------------------------------------------------------------- conv_pool
# A convolution, its activation and a max pool: in the blocked layout,
# dlas-blocked-conv-microkernel pools each band of rows in the kernel.
CONV_POOL_MATRIX = [
    # (name, N, C, H, W, F, conv K, conv s, conv pad, activation,
    #  pool K, pool s, pool pad(t,l,b,r), pool dilation)
    ("stem", 1, 16, 16, 16, 32, 3, 1, 1, "relu", 3, 2, (1, 1, 1, 1), 1),   # ResNet stem-like
    ("vgg", 1, 16, 12, 12, 32, 3, 1, 1, "relu", 2, 2, (0, 0, 0, 0), 1),   # VGG 2x2/2
    ("s1_batch2", 2, 32, 9, 11, 16, 3, 1, 1, "relu6", 3, 1, (1, 1, 1, 1), 1),   # s1: every row shared; 1 block
    ("conv_s2", 1, 16, 15, 13, 48, 3, 2, 1, "none", 3, 2, (1, 0, 2, 1), 1),   # conv s2, asymmetric pool pad
    ("skip_rows", 1, 16, 17, 19, 32, 1, 1, 0, "leaky", 2, 3, (0, 0, 0, 0), 1),  # s > K: rows no window reads
    ("dilated", 1, 16, 14, 14, 32, 3, 1, 1, "relu", 3, 2, (1, 1, 1, 1), 2),   # dilated pool
    ("tails", 1, 32, 11, 57, 32, 3, 1, 1, "relu", 3, 2, (0, 0, 0, 0), 1),   # OW 57: tiles with a tail
    ("global", 1, 16, 6, 6, 16, 3, 1, 1, "relu", 6, 6, (0, 0, 0, 0), 1),     # one window over all
    # No bias and no activation, the pool's output the size of the
    # convolution's (bufferization reuses the buffer: two fills of it).
    ("nobias_s1", 1, 16, 8, 9, 16, 3, 1, 1, "none", 3, 1, (1, 1, 1, 1), 1),
]

# In NCHW (the cost model's layout for it), conv -> relu -> max pool 3x3/1
# in one layer function, where bufferization could give the pool's output
# the buffer its padded input is copied from. Data of its own, so that the
# families after conv_pool in one run keep theirs.
NCHW_REUSE_CASE = ("nchw_reuse", 1, 8, 12, 12, 8, 3, 1, 1, "relu", 3, 1, (1, 1, 1, 1), 1)


def conv_pool_case(tag, n, c, h, w, f, k, s, pad, act, pk, ps, ppad, pd, gen):
    x = rand(n, c, h, w, gen=gen)
    wt = rand(f, c, k, k, gen=gen) * 0.2
    bias = not tag.startswith("nobias")
    b = rand(f, gen=gen) if bias else None
    y = F.conv2d(x, wt, b, stride=s, padding=pad)
    ho, wo = y.shape[2], y.shape[3]
    y = {"relu": F.relu, "relu6": lambda t: torch.clamp(t, 0, 6),
         "leaky": lambda t: F.leaky_relu(t, 0.1), "none": lambda t: t}[act](y)
    y = F.pad(y, (ppad[1], ppad[3], ppad[0], ppad[2]), value=float("-inf"))
    y = F.max_pool2d(y, pk, ps, dilation=pd)
    ct = ttype((n, f, ho, wo))
    act_line = {"relu": "  %a = nn.relu %c : {ct}",
                "relu6": "  %a = nn.relu6 %c : {ct}",
                "leaky": "  %a = nn.leaky_relu %c {{alpha = 0.1 : f64}} : {ct}",
                "none": None}[act]

    def body(v, ts, r):
        operands, types = ", ".join(v), ", ".join(ts)
        lines = [f"  %c = nn.conv2d {operands} {{strides = {arr([s, s])}, "
                 f"padding = {arr([pad] * 4)}}} : ({types}) -> {ct}"]
        if act_line:
            lines.append(act_line.format(ct=ct))
        src = "%a" if act_line else "%c"
        lines.append(f"  %r = nn.max_pool2d {src} {{kernel = {arr([pk, pk])}, strides = {arr([ps, ps])}, "
                     f"padding = {arr(ppad)}, dilations = {arr([pd, pd])}}} : ({ct}) -> {r}")
        return "\n".join(lines)
    inputs = [x.numpy(), wt.numpy()] + ([b.numpy()] if bias else [])
    return Case(f"conv_pool_{tag}", inputs, y, body)


def conv_pool_shared_case(gen):
    """The activation also feeds a second branch: the pool must not fuse
    (the pre-pool values are needed), and the result must still be right."""
    x = rand(1, 16, 10, 10, gen=gen)
    wt = rand(16, 16, 3, 3, gen=gen) * 0.2
    a = F.relu(F.conv2d(x, wt, padding=1))
    y = F.max_pool2d(a, 2) + F.avg_pool2d(a, 2)
    t, p = "tensor<1x16x10x10xf32>", "tensor<1x16x5x5xf32>"

    def body(v, ts, r):
        return "\n".join([
            f"  %c = nn.conv2d {v[0]}, {v[1]} {{padding = {arr([1, 1, 1, 1])}}} : ({ts[0]}, {ts[1]}) -> {t}",
            f"  %a = nn.relu %c : {t}",
            f"  %m = nn.max_pool2d %a {{kernel = {arr([2, 2])}, strides = {arr([2, 2])}}} : ({t}) -> {p}",
            f"  %v = nn.avg_pool2d %a {{kernel = {arr([2, 2])}, strides = {arr([2, 2])}}} : ({t}) -> {p}",
            f"  %r = nn.add %m, %v : ({p}, {p}) -> {p}",
        ])
    return Case("conv_pool_shared", [x.numpy(), wt.numpy()], y, body)


@case("conv_pool")
def conv_pool_cases(gen):
    cases = [conv_pool_case(*cfg, gen=gen) for cfg in CONV_POOL_MATRIX]
    cases.append(conv_pool_shared_case(gen))
    cases.append(conv_pool_case(*NCHW_REUSE_CASE, gen=torch.Generator().manual_seed(4322)))
    return cases


# ---------------------------------------------------------------- networks
@case("network")
def network_cases(gen):
    """Several ops chained, with a dynamic batch run at batch 3."""
    x = rand(3, 3, 8, 8, gen=gen)
    w = rand(4, 3, 3, 3, gen=gen)
    fc = rand(10, 4 * 4 * 4, gen=gen)
    y = F.linear(torch.flatten(F.max_pool2d(F.relu(F.conv2d(x, w, padding=1)), 2), 1), fc)
    y = F.softmax(y, dim=1)

    def body(v, t, r):
        return "\n".join([
            f"  %c = nn.conv2d {v[0]}, {v[1]} {{padding = {arr([1, 1, 1, 1])}}} : "
            f"({t[0]}, {t[1]}) -> tensor<?x4x8x8xf32>",
            "  %a = nn.relu %c : tensor<?x4x8x8xf32>",
            f"  %p = nn.max_pool2d %a {{kernel = {arr([2, 2])}, strides = {arr([2, 2])}}} : "
            "(tensor<?x4x8x8xf32>) -> tensor<?x4x4x4xf32>",
            "  %f = nn.flatten %p {axis = 1 : i64} : (tensor<?x4x4x4xf32>) -> tensor<?x64xf32>",
            f"  %l = nn.linear %f, {v[2]} : (tensor<?x64xf32>, {t[2]}) -> tensor<?x10xf32>",
            "  %r = nn.softmax %l {axis = 1 : i64} : tensor<?x10xf32>",
        ])
    return [Case("dynamic_batch_cnn", [x.numpy(), w.numpy(), fc.numpy()], y, body,
                 arg_shapes=[(None, 3, 8, 8), (4, 3, 3, 3), (10, 64)],
                 result_shape=(None, 10))]


def with_target(pipeline, target):
    """`pipeline` (a dlas-cpu-pipeline) compiling for `target`."""
    if not target:
        return pipeline
    name, _, features = target.partition(":")
    options = f"target={name}" + (f" target-features={features}" if features else "")
    if "dlas-cpu-pipeline{" in pipeline:
        return pipeline.replace("dlas-cpu-pipeline{",
                                f"dlas-cpu-pipeline{{{options} ", 1)
    return pipeline.replace("dlas-cpu-pipeline",
                            f"dlas-cpu-pipeline{{{options}}}", 1)


def run_case(args, c, base, target, pipeline):
    """dlas-run on case `c` (files at `base`.*) compiled for `target`
    through `pipeline` (None: dlas-run's default)."""
    tolerance = (["--max-rel-err", args.max_rel_err] if args.max_rel_err
                 else ["--rtol", str(RTOL), "--atol", str(ATOL)])
    cmd = [args.dlas_run, base + ".mlir", *tolerance, "--num-threads", args.num_threads]
    for i in range(len(c.inputs)):
        cmd += ["--input", f"{base}.in{i}.npy"]
    cmd += ["--expect", base + ".expected.npy"] + c.run_args
    if pipeline:
        cmd += ["--pipeline", with_target(pipeline, target)]
    elif target:
        name, _, features = target.partition(":")
        cmd += ["--target", name]
        if features:
            cmd += ["--target-features", features]
    if args.tuning_file:
        cmd += ["--tuning-file", args.tuning_file]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300)


def compile_case(args, base, pipeline):
    """dlas-opt on case `base`.mlir through `pipeline` (compile only)."""
    cmd = [args.dlas_opt, base + ".mlir", "--pass-pipeline",
           f"builtin.module({pipeline})", "-o", os.devnull]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300)


def computes(module, exact_ops):
    """True when `module` has an nn op outside the comma list `exact_ops`."""
    exact = {"nn." + op for op in exact_ops.split(",") if op}
    return any(op not in exact for op in re.findall(r"\bnn\.[a-z_0-9]+", module))


def rounded(stdout, expected):
    """True when dlas-run's report shows a rounding error, or when none can
    show: an output of integers (indices, comparisons, counts) is exact in
    bf16 and f16 as well."""
    errors = [float(e) for e in re.findall(r"max abs err ([0-9.e+-]+)", stdout)]
    if any(e > 0 for e in errors):
        return True
    return bool(np.all(np.round(expected) == expected))


def rotated(choices, index, rotate):
    """All of `choices` for case `index`, or with `rotate` the one whose turn
    it is (the quick matrix: every choice still meets every len(choices)-th
    case)."""
    return [choices[index % len(choices)]] if rotate else choices


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--family", required=True,
                        help="one of " + ", ".join(sorted(CASES)) + ", or a comma list")
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--dlas-run", default="dlas-run")
    parser.add_argument("--num-threads", default="1",
                        help="OpenMP threads for dlas-run")
    parser.add_argument("--pipeline", default=None,
                        help="dlas-run --pipeline (e.g. to force an algorithm); "
                             "several, separated by ';', run every case through "
                             "each (one in turn with --rotate)")
    parser.add_argument("--tuning-file", default=None,
                        help="dlas-run --tuning-file (microkernel parameters)")
    parser.add_argument("--targets", default="",
                        help="space-separated dlas-run targets (cpu or "
                             "cpu:+features) to run every "
                             "case for (lit's %%exec_targets: every target "
                             "the host can execute); empty: the host")
    parser.add_argument("--compile-only", default=None,
                        help="semicolon-separated pass pipelines: compile every "
                             "case with dlas-opt through each (no run); a case "
                             "fails when dlas-opt does")
    parser.add_argument("--rotate", action="store_true",
                        help="each case on one of --targets (or one --compile-only "
                             "pipeline) in turn instead of on all of them: every case "
                             "and every target still runs (lit's %%rotate, the quick "
                             "matrix; `make test-full` runs the whole product)")
    parser.add_argument("--dlas-opt", default="dlas-opt")
    parser.add_argument("--aot-target", default=None,
                        help="compile every case with dlas-compile --target=T into "
                             "<case>.so (+ .json manifest) beside its .npy files, to "
                             "be run elsewhere (a GPU machine without MLIR: "
                             "bench/gpu_bench.py); no run here")
    parser.add_argument("--dlas-compile", default="dlas-compile")
    parser.add_argument("--aot-flags", default="",
                        help="more dlas-compile flags for --aot-target, space-separated "
                             "(--precision bf16 --keep-f32=none, --gpu-options=...)")
    parser.add_argument("--max-rel-err", default=None,
                        help="judge by dlas-run --max-rel-err R (max |dlas - torch| "
                             "<= R * max |torch|) instead of RTOL/ATOL: for runs in "
                             "lower precision against PyTorch's f32")
    parser.add_argument("--require-rounding", action="store_true",
                        help="fail a case whose float output equals the f32 reference "
                             "exactly (with a --pipeline that lowers precision: proof "
                             "that it did), unless all its ops are --exact-ops")
    parser.add_argument("--exact-ops", default="",
                        help="comma list of nn ops that may stay in f32 under "
                             "--require-rounding (dlas-mixed-precision runs ops that "
                             "only move or select elements in their input's precision)")
    args = parser.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(1234)
    families = args.family.split(",")
    unknown = [f for f in families if f not in CASES]
    if unknown:
        parser.error(f"unknown family {', '.join(unknown)} (known: {', '.join(sorted(CASES))})")
    cases = [c for family in families for fn in CASES[family] for c in fn(gen)]
    targets = args.targets.split() or [None]
    failing = []
    runs = 0
    pipelines = (args.compile_only or args.pipeline or "").split(";")
    variants = [(t, None if p == "" else p) for p in pipelines for t in targets]
    for index, c in enumerate(cases):
        base = os.path.join(args.workdir, c.name)
        with open(base + ".mlir", "w") as f:
            f.write(c.module())
        for i, x in enumerate(c.inputs):
            np.save(f"{base}.in{i}.npy", x)
        np.save(base + ".expected.npy", c.expected)
        if args.aot_target:
            runs += 1
            proc = subprocess.run([args.dlas_compile, base + ".mlir", "--target",
                                   args.aot_target, *shlex.split(args.aot_flags),
                                   "-o", base + ".so"],
                                  capture_output=True, text=True, timeout=300)
            print(f"{'ok  ' if proc.returncode == 0 else 'FAIL'} {c.name} [{args.aot_target}]")
            if proc.returncode:
                failing.append(c.name)
                print(proc.stdout + proc.stderr)
            continue
        if args.compile_only:
            for pipeline in rotated(pipelines, index, args.rotate):
                runs += 1
                proc = compile_case(args, base, pipeline)
                ok = proc.returncode == 0
                print(f"{'ok  ' if ok else 'FAIL'} {c.name} [{pipeline}]")
                if not ok:
                    failing.append(c.name)
                    print(proc.stdout + proc.stderr)
            continue
        for target, pipeline in rotated(variants, index, args.rotate):
            runs += 1
            label = c.name + (f" [{target}]" if target else "")
            if len(pipelines) > 1:
                label += f" [{pipeline}]"
            proc = run_case(args, c, base, target, pipeline)
            ok = proc.returncode == 0 and "PASS" in proc.stdout
            if (ok and args.require_rounding and computes(c.module(), args.exact_ops)
                    and not rounded(proc.stdout, c.expected)):
                ok = False
                proc.stdout += ("no rounding error at all: the case ran in f32, "
                                "not in the precision asked for\n")
            print(f"{'ok  ' if ok else 'FAIL'} {label}")
            if not ok:
                failing.append(label)
                print(proc.stdout + proc.stderr)
    print(f"{args.family}: {len(cases)} cases run, {len(failing)} failing "
          f"({runs} runs, targets: {' '.join(t or 'host' for t in targets)})")
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
