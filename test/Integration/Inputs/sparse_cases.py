#!/usr/bin/python3
"""Execution tests for the sparse dialect against PyTorch's dense result.

Every case holds a constant weight pruned to a density (0%, 1%, 10%, 50%,
100%; some output channels forced empty), in CSR or block-CSR, and runs
through dlas-cpu-pipeline with dlas-run --expect; PyTorch computes the
expected output with the same pruned weights, densely. Cases:

* `sparse.conv2d` (sparse.pack of the constant) over nn_cases.py's
  convolution matrix (1x1 to 7x7, strides, dilation, asymmetric padding,
  groups, depthwise, odd sizes), the density and format rotating over it,
  plus a density sweep on one 3x3 layer in both formats;
* `sparse.linear` over batches below, at and above the vector width;
* `sparse.conv2d` with a `residual` operand (a second argument) added
  before the ReLU: 1x1 read in place, 3x3 padded (rows wider than the
  output), strided (phase planes), several input-channel slabs, and a
  7x7 map whose only tile is masked;
* a dynamic batch (`?` in the module): convolutions on every kernel path
  and linear layers, and nn graphs that dlas-sparsify turns sparse;
* nn graphs (conv, ReLU, conv, linear; a residual block whose shortcut
  add and ReLU dlas-sparsify folds into the sparse convolution) whose
  pruned constant weights `dlas-sparsify{policy=always}` turns sparse in
  the pipeline, and the same through `--prune` (dlas-prune inside
  dlas-run), compared with PyTorch on weights pruned the same way here.

Half the cases run on 2 OpenMP threads. Tolerances as nn_cases.py's:
|dlas - torch| <= 1e-4 + 1e-4 |torch| (fp32 sums in another order).
"""
import argparse
import os
import subprocess
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(__file__))
from nn_cases import CONV_MATRIX, arr, pair, tag, ttype  # noqa: E402

RTOL = 1e-4
ATOL = 1e-4
DENSITIES = [0.0, 0.01, 0.1, 0.5, 1.0]
CSR = "#sparse_tensor.encoding<{map = (d0, d1) -> (d0 : dense, d1 : compressed)}>"


def bsr(rows):
    return ("#sparse_tensor.encoding<{map = (d0, d1) -> (d0 floordiv %d : dense, "
            "d1 : compressed, d0 mod %d : dense)}>" % (rows, rows))


def dense_attr(t):
    values = ", ".join("%.9e" % v for v in t.flatten().tolist())
    return f"dense<[{values}]> : {ttype([t.numel()])}"


def prune_mask(rows, cols, density, block_rows, gen, empty_rows):
    """A 0/1 mask: blocks of `block_rows` x 1 kept with probability
    `density`; the rows in `empty_rows` all zero."""
    keep = torch.rand(rows // block_rows, cols, generator=gen) < density
    mask = keep.repeat_interleave(block_rows, 0).float()
    for r in empty_rows:
        mask[r] = 0
    return mask


class Case:
    def __init__(self, name, module, inputs, expected, threads, run_args=()):
        self.name, self.module, self.inputs = name, module, inputs
        self.expected, self.threads = expected, threads
        self.run_args = list(run_args)


def sparse_weight(f, cols, density, block_rows, gen, empty_rows=()):
    w = torch.randn(f, cols, generator=gen)
    return w * prune_mask(f, cols, density, block_rows, gen, empty_rows)


def sparse_layer_lines(op, wt, block_rows, b, x_type, y_type, attrs):
    """The lines of a module computing `op` (sparse.conv2d or sparse.linear)
    of %x with the weight matrix `wt` packed at compile time in CSR or
    `block_rows` x 1 blocks, and the bias `b` if any."""
    rows, cols = wt.shape
    enc = CSR if block_rows == 1 else bsr(block_rows)
    wtype = f"tensor<{rows}x{cols}xf32, {enc}>"
    lines = [f"  %d = arith.constant {dense_attr(wt)}",
             f"  %d2 = tensor.expand_shape %d [[0, 1]] output_shape [{rows}, {cols}] "
             f": {ttype([rows * cols])} into {ttype([rows, cols])}",
             f"  %w = sparse.pack %d2 : {ttype([rows, cols])} -> {wtype}"]
    operands, types = ["%x", "%w"], [x_type, wtype]
    if b is not None:
        lines.append(f"  %b = arith.constant {dense_attr(b)}")
        operands.append("%b")
        types.append(ttype([rows]))
    lines.append(f"  %y = {op} {', '.join(operands)}{attrs} : "
                 f"({', '.join(types)}) -> {y_type}")
    return lines


def max_pool(y, kernel, stride, padding):
    """Max pool with `padding` [top, left, bottom, right] that never wins
    (PyTorch pads symmetrically only: pad with -inf here)."""
    yp = F.pad(y, (padding[1], padding[3], padding[0], padding[2]), value=-float("inf"))
    return F.max_pool2d(yp, kernel, stride)


def batch_type(shape, dynamic):
    """The tensor type of `shape`, its batch `?` if `dynamic`."""
    return ttype([None] + list(shape[1:]) if dynamic else shape)


def conv_case(index, cfg, density, block_rows, relu, gen, residual=False, pool=None,
              dynamic=False):
    """sparse.conv2d of %x; with `residual`, the shortcut %r (a second
    argument of the result's shape) added before the ReLU; with `pool`
    ((kh, kw), (sh, sw), [top, left, bottom, right]), a fused max pool;
    with `dynamic`, a module whose batch is `?` (run at the config's)."""
    n, c, h, w, f, k, s, pad, d, g, bias = cfg
    cols = c // g * k * k
    # Every other case has its first output channel empty.
    wt = sparse_weight(f, cols, density, block_rows, gen,
                       empty_rows=range(block_rows) if index % 2 else ())
    x = torch.randn(n, c, h, w, generator=gen)
    b = torch.randn(f, generator=gen) if bias else None
    xp = F.pad(x, (pad[1], pad[3], pad[0], pad[2]))
    y = F.conv2d(xp, wt.reshape(f, c // g, k, k), b, stride=s, dilation=d, groups=g)
    inputs = [x]
    if residual:
        inputs.append(torch.randn(y.shape, generator=gen))
        y = y + inputs[1]
    if relu:
        y = F.relu(y)
    pool_attrs = ""
    if pool:
        y = max_pool(y, *pool)
        pool_attrs = (f", pool_kernel = {arr(pool[0])}, pool_strides = {arr(pool[1])}, "
                      f"pool_padding = {arr(pool[2])}")
    xtype, ytype = batch_type(x.shape, dynamic), batch_type(y.shape, dynamic)
    attrs = ((" residual %r" if residual else "") +
             f" {{kernel_size = {arr([k, k])}, strides = {arr(pair(s))}, "
             f"padding = {arr(pad)}, dilations = {arr(pair(d))}, groups = {g} : i64"
             + (", relu" if relu else "") + pool_attrs + "}")
    lines = sparse_layer_lines("sparse.conv2d", wt, block_rows, b, xtype, ytype, attrs)
    args = f"%x: {xtype}"
    if residual:
        # The residual's type comes last in the functional type.
        lines[-1] = lines[-1].replace(f") -> {ytype}", f", {ytype}) -> {ytype}")
        args += f", %r: {ytype}"
    module = (f"func.func @main({args}) -> {ytype} {{\n" + "\n".join(lines) +
              f"\n  return %y : {ytype}\n}}\n")
    fmt = "csr" if block_rows == 1 else f"bsr{block_rows}x1"
    pool_name = ""
    if pool:
        pool_name = "_pool" + "-".join(str(v) for part in pool for v in part)
    name = (f"sparse_{'dynbatch_' if dynamic else ''}{'residual_' if residual else ''}conv_n{n}c{c}h{h}w{w}f{f}k{k}s{tag(s)}"
            f"p{'-'.join(map(str, pad))}d{tag(d)}g{g}_{fmt}_density{density}"
            f"{'_relu' if relu else ''}{pool_name}")
    return Case(name, module, inputs, y, threads=1 + index % 2)


def block_rows_for(f, g, wanted):
    for r in (wanted, 2, 1):
        if (f // g) % r == 0:
            return r
    return 1


# (n, c, h, w, f, k, stride, padding, dilation, groups, bias)
RESIDUAL_CONVS = [
    (1, 32, 12, 12, 48, 1, 1, (0, 0, 0, 0), 1, 1, True),    # in place
    (2, 16, 9, 11, 16, 3, 1, (1, 1, 1, 1), 1, 1, True),     # padded rows
    (1, 16, 13, 13, 24, 3, 2, (1, 1, 1, 1), 1, 1, False),   # phase planes
    (1, 24, 14, 14, 32, 1, 2, (0, 0, 0, 0), 1, 1, True),    # downsample
    (1, 256, 14, 14, 32, 3, 1, (1, 1, 1, 1), 1, 1, True),   # several slabs
    (1, 64, 7, 7, 32, 1, 1, (0, 0, 0, 0), 1, 1, True),      # one masked tile
    (1, 16, 10, 10, 16, 3, 1, (1, 1, 1, 1), 1, 2, True),    # groups
    (2, 48, 5, 9, 16, 1, 1, (0, 0, 0, 0), 1, 1, False),     # one row of 45
]


# (convolution as RESIDUAL_CONVS, pool: (kh, kw), (sh, sw), padding)
POOLED_CONVS = [
    # ResNet's stem: 7x7 s2 p3, then 3x3 s2 p1.
    ((1, 3, 40, 40, 16, 7, 2, (3, 3, 3, 3), 1, 1, True), ((3, 3), (2, 2), (1, 1, 1, 1))),
    # VGG: 3x3 p1, then 2x2 s2.
    ((2, 8, 16, 16, 16, 3, 1, (1, 1, 1, 1), 1, 1, True), ((2, 2), (2, 2), (0, 0, 0, 0))),
    # Odd map, a ceil-mode pool (bottom and right padding grown).
    ((1, 8, 15, 13, 8, 3, 1, (1, 1, 1, 1), 1, 1, False), ((2, 2), (2, 2), (0, 0, 1, 1))),
    # 1x1 convolution (no padding columns of its own), 3x3 s1 p1 pool.
    ((1, 16, 9, 9, 24, 1, 1, (0, 0, 0, 0), 1, 1, True), ((3, 3), (1, 1), (1, 1, 1, 1))),
    # Column stride 3 (no shuffle: element loads), rectangular window.
    ((1, 8, 14, 20, 8, 3, 1, (1, 1, 1, 1), 1, 1, True), ((2, 3), (2, 3), (0, 1, 0, 1))),
    # Several input-channel slabs, dilation, groups.
    ((1, 256, 12, 12, 32, 3, 1, (2, 2, 2, 2), 2, 1, True), ((3, 3), (2, 2), (1, 1, 1, 1))),
    ((1, 16, 11, 11, 16, 3, 2, (1, 1, 1, 1), 1, 2, False), ((2, 2), (1, 1), (0, 0, 0, 0))),
    # A wide map: several bands and tiles per band.
    ((1, 4, 60, 90, 8, 3, 1, (1, 1, 1, 1), 1, 1, True), ((3, 3), (2, 2), (1, 1, 1, 1))),
]


# The padded phase planes the kernels read (PhasePlaneCopier), beyond the
# convolution matrix's small maps: rows of more than 8 vectors (copied in a
# loop) at 8 and 16 lanes, stride 2 with asymmetric padding (the last
# vector of a row shifted to end at the input's), stride 3 with vector
# copies (W >= 3 x 16), padding wider than the window reaches (whole
# padding rows and columns in some phases), and a map narrower than a
# vector of strided loads (element copies).
PLANE_CONVS = [
    (1, 2, 9, 150, 4, 3, 1, (1, 1, 1, 1), 1, 1, True),
    (1, 2, 10, 301, 4, 3, 2, (1, 2, 0, 1), 1, 1, False),
    (1, 3, 11, 53, 4, 5, 3, (2, 2, 2, 2), 1, 1, True),
    (1, 2, 8, 35, 4, 3, 2, (3, 4, 3, 2), 1, 1, True),
    (1, 4, 9, 9, 8, 3, 2, (1, 1, 1, 1), 2, 1, True),
]


# Row tiles (outputs a whole number of vectors wide, planes wider): OW 32,
# 48, 112 (ResNet's stem: 14 vectors of 8 as tiles of 5, 5 and 4; 7 of 16)
# and 144 (several tiles per row at 16 lanes too); in CSR and 4x1 blocks
# (fewer vectors per tile), with several input-channel slabs, a shortcut
# (read compact) and a batch of two. (conv, block rows, residual)
ROW_TILE_CONVS = [
    ((1, 4, 6, 32, 8, 3, 1, (1, 1, 1, 1), 1, 1, True), 1, False),
    ((2, 4, 5, 48, 8, 3, 1, (1, 1, 1, 1), 1, 1, False), 4, True),
    ((1, 3, 20, 224, 8, 7, 2, (3, 3, 3, 3), 1, 1, True), 1, False),
    ((1, 4, 4, 144, 4, 3, 1, (1, 1, 1, 1), 1, 1, True), 1, True),
    ((1, 256, 6, 16, 8, 3, 1, (1, 1, 1, 1), 1, 1, True), 4, True),
]


def plane_cases(gen):
    cases = [conv_case(i, cfg, [0.1, 0.5, 1.0][i % 3], 1, relu=i % 2 == 0, gen=gen)
             for i, cfg in enumerate(PLANE_CONVS)]
    for i, (cfg, rows, residual) in enumerate(ROW_TILE_CONVS):
        cases.append(conv_case(i, cfg, [0.1, 0.5, 0.01][i % 3], rows, relu=i % 2 == 1,
                               gen=gen, residual=residual))
    return cases


def pool_cases(gen):
    cases = []
    for i, (cfg, pool) in enumerate(POOLED_CONVS):
        density = [0.1, 0.5, 0.01, 1.0, 0.0][i % 5]
        rows = block_rows_for(cfg[4], cfg[9], 4) if i % 2 else 1
        cases.append(conv_case(i, cfg, density, rows, relu=i % 3 != 2, gen=gen,
                               pool=pool))
    return cases


def residual_cases(gen):
    cases = []
    for i, cfg in enumerate(RESIDUAL_CONVS):
        density = [0.1, 0.5, 0.01, 1.0][i % 4]
        rows = block_rows_for(cfg[4], cfg[9], 4) if i % 2 else 1
        cases.append(conv_case(i, cfg, density, rows, relu=i != 3, gen=gen,
                               residual=True))
    return cases


def full_conv_cases(gen):
    """The whole cross product (make test-sparse-full): every shape of the
    convolution matrix at every density, in CSR and in the largest block
    height up to 4 its groups allow, each with and without a residual, on
    1 and 2 threads (the index picks the threads and the empty channel)."""
    cases = []
    for i, cfg in enumerate(CONV_MATRIX):
        for j, density in enumerate(DENSITIES):
            for rows in sorted({1, block_rows_for(cfg[4], cfg[9], 4)}):
                for residual in (False, True):
                    index = i + j + rows + residual
                    cases.append(conv_case(index, cfg, density, rows,
                                           relu=index % 2 == 0, gen=gen,
                                           residual=residual))
    return cases


def conv_cases(gen):
    cases = []
    for i, cfg in enumerate(CONV_MATRIX):
        density = DENSITIES[i % len(DENSITIES)]
        rows = block_rows_for(cfg[4], cfg[9], 4) if i % 3 == 1 else 1
        cases.append(conv_case(i, cfg, density, rows, relu=i % 2 == 0, gen=gen))
    # A density sweep on one 3x3 layer, both formats.
    sweep = (1, 16, 12, 12, 16, 3, 1, (1, 1, 1, 1), 1, 1, True)
    for j, density in enumerate(DENSITIES):
        for rows in (1, 4):
            cases.append(conv_case(j, sweep, density, rows, relu=True, gen=gen))
    # A 1x1 convolution on a 1x1 map (a squeeze-excitation block's): one
    # position, so in CSR each row's inputs are gathered; 37 channels at
    # 50% leave rows of 8-27 non-zeros (full groups and masked tails).
    cases.append(conv_case(1, (2, 37, 1, 1, 12, 1, 1, (0, 0, 0, 0), 1, 1, True), 0.5, 1,
                           relu=False, gen=gen))
    return cases


def linear_case(index, batch, features, outputs, density, block_rows, bias, relu, gen,
                dynamic=False):
    wt = sparse_weight(outputs, features, density, block_rows, gen,
                       empty_rows=range(block_rows) if index % 2 else ())
    x = torch.randn(batch, features, generator=gen)
    b = torch.randn(outputs, generator=gen) if bias else None
    y = F.linear(x, wt, b)
    if relu:
        y = F.relu(y)
    xtype, ytype = batch_type(x.shape, dynamic), batch_type(y.shape, dynamic)
    lines = sparse_layer_lines("sparse.linear", wt, block_rows, b, xtype, ytype,
                               " {relu}" if relu else "")
    module = (f"func.func @main(%x: {xtype}) -> {ytype} {{\n" + "\n".join(lines) +
              f"\n  return %y : {ytype}\n}}\n")
    fmt = "csr" if block_rows == 1 else f"bsr{block_rows}x1"
    name = (f"sparse_{'dynbatch_' if dynamic else ''}linear_b{batch}k{features}o{outputs}_{fmt}_density{density}"
            f"{'_bias' if bias else ''}{'_relu' if relu else ''}")
    return Case(name, module, [x], y, threads=1 + index % 2)


def linear_cases(gen):
    # (16, 4200, 8): offsets (feature * batch) past 65535, so 32-bit
    # arrays; the others' fit 16 bits, (1, 40000, 4)'s past 32767 (read
    # zero-extended).
    shapes = [(1, 64, 24), (3, 50, 16), (8, 33, 8), (16, 40, 12), (37, 64, 20),
              (5, 7, 4), (64, 96, 32), (16, 4200, 8), (1, 40000, 4)]
    cases = []
    for i, (batch, features, outputs) in enumerate(shapes):
        density = DENSITIES[(i + 2) % len(DENSITIES)] if i < 7 else 0.1
        rows = 4 if i % 2 and outputs % 4 == 0 else 1
        cases.append(linear_case(i, batch, features, outputs, density, rows,
                                 bias=i % 3 != 2, relu=i % 2 == 0, gen=gen))
    return cases


def const(name, t):
    """An f32 arith.constant line for %name holding tensor `t` (hex)."""
    raw = np.ascontiguousarray(t.numpy(), dtype="<f4").tobytes().hex().upper()
    return f'  %{name} = arith.constant dense<"0x{raw}"> : {ttype(t.shape)}'


def magnitude_prune(w, sparsity):
    """dlas-prune's unstructured rule: the round(sparsity * size) smallest
    |w| become zero (ties by position)."""
    flat = w.flatten()
    count = int(round(sparsity * flat.numel()))
    order = sorted(range(flat.numel()), key=lambda i: (abs(flat[i].item()), i))
    pruned = flat.clone()
    pruned[order[:count]] = 0
    return pruned.reshape(w.shape)


def network_case(name, prune, gen, threads, dynamic=False):
    """conv 3x3 (ReLU) -> conv 3x3 s2 (ReLU) -> flatten -> linear, f32
    constants; pruned here (a pre-pruned model) or by dlas-run --prune;
    with `dynamic`, the batch (2) is `?` in the module."""
    x = torch.randn(2, 8, 10, 10, generator=gen)
    w1 = torch.randn(16, 8, 3, 3, generator=gen)
    b1 = torch.randn(16, generator=gen)
    w2 = torch.randn(16, 16, 3, 3, generator=gen)
    fc = torch.randn(10, 16 * 5 * 5, generator=gen)
    if prune:
        ref = [magnitude_prune(t, 0.8) for t in (w1, w2, fc)]
    else:
        w1, w2, fc = [t * (torch.rand(t.shape, generator=gen) < 0.2)
                      for t in (w1, w2, fc)]
        ref = [w1, w2, fc]
    h = F.relu(F.conv2d(x, ref[0], b1, padding=1))
    h = F.relu(F.conv2d(h, ref[1], None, stride=2, padding=1))
    y = F.linear(h.flatten(1), ref[2])

    module = "\n".join([
        "func.func @main(%x: tensor<2x8x10x10xf32>) -> tensor<2x10xf32> {",
        const("w1", w1), const("b1", b1), const("w2", w2), const("fc", fc),
        f"  %c1 = nn.conv2d %x, %w1, %b1 {{padding = {arr([1, 1, 1, 1])}}} : "
        "(tensor<2x8x10x10xf32>, tensor<16x8x3x3xf32>, tensor<16xf32>) -> tensor<2x16x10x10xf32>",
        "  %r1 = nn.relu %c1 : tensor<2x16x10x10xf32>",
        f"  %c2 = nn.conv2d %r1, %w2 {{strides = {arr([2, 2])}, padding = {arr([1, 1, 1, 1])}}} : "
        "(tensor<2x16x10x10xf32>, tensor<16x16x3x3xf32>) -> tensor<2x16x5x5xf32>",
        "  %r2 = nn.relu %c2 : tensor<2x16x5x5xf32>",
        "  %fl = nn.flatten %r2 {axis = 1 : i64} : (tensor<2x16x5x5xf32>) -> tensor<2x400xf32>",
        "  %y = nn.linear %fl, %fc : (tensor<2x400xf32>, tensor<10x400xf32>) -> tensor<2x10xf32>",
        "  return %y : tensor<2x10xf32>",
        "}", ""])
    if dynamic:
        module = module.replace("tensor<2x", "tensor<?x")
    pipeline = "builtin.module(dlas-cpu-pipeline{sparsify=always print-sparsify})"
    run_args = ["--pipeline", pipeline]
    if prune:
        run_args += ["--prune", "0.8"]
    return Case(name, module, [x], y, threads, run_args)


def residual_block_case(name, gen, threads, batch=1, dynamic=False):
    """A bottleneck-like block on pre-pruned weights: 1x1 conv, ReLU, 3x3
    conv, ReLU, 1x1 conv, add of the block's input, ReLU; and a second
    block whose shortcut is a strided 1x1 conv computed after the main
    path (the add then comes after both). dlas-sparsify folds each add and
    its ReLU into the last convolution. With `dynamic`, the batch is `?`
    in the module."""
    x = torch.randn(batch, 32, 10, 10, generator=gen)
    ws = {
        "w1": torch.randn(16, 32, 1, 1, generator=gen),
        "w2": torch.randn(16, 16, 3, 3, generator=gen),
        "w3": torch.randn(32, 16, 1, 1, generator=gen),
        "w4": torch.randn(48, 32, 3, 3, generator=gen),
        "wd": torch.randn(48, 32, 1, 1, generator=gen),
    }
    ws = {k: v * (torch.rand(v.shape, generator=gen) < 0.3) for k, v in ws.items()}
    bs = {k: torch.randn(v.shape[0], generator=gen) for k, v in ws.items()}
    h = F.relu(F.conv2d(x, ws["w1"], bs["w1"]))
    h = F.relu(F.conv2d(h, ws["w2"], bs["w2"], padding=1))
    b1 = F.relu(F.conv2d(h, ws["w3"], bs["w3"]) + x)
    main = F.conv2d(b1, ws["w4"], bs["w4"], stride=2, padding=1)
    y = F.relu(F.conv2d(b1, ws["wd"], bs["wd"], stride=2) + main)

    def conv(out, inp, w, in_shape, out_shape, attrs=""):
        wshape = list(ws[w].shape)
        return (f"  %{out} = nn.conv2d %{inp}, %{w}, %b{w} {attrs}: ({ttype(in_shape)}, "
                f"{ttype(wshape)}, {ttype([wshape[0]])}) -> {ttype(out_shape)}")
    n = None if dynamic else batch
    t32, t16, t48 = [n, 32, 10, 10], [n, 16, 10, 10], [n, 48, 5, 5]
    pad1 = f"padding = {arr([1, 1, 1, 1])}"
    lines = [f"func.func @main(%x: {ttype(t32)}) -> {ttype(t48)} {{"]
    for k, v in ws.items():
        lines += [const(k, v), const("b" + k, bs[k])]
    lines += [
        conv("c1", "x", "w1", t32, t16),
        f"  %r1 = nn.relu %c1 : {ttype(t16)}",
        conv("c2", "r1", "w2", t16, t16, f"{{{pad1}}} "),
        f"  %r2 = nn.relu %c2 : {ttype(t16)}",
        conv("c3", "r2", "w3", t16, t32),
        f"  %a1 = nn.add %c3, %x : ({ttype(t32)}, {ttype(t32)}) -> {ttype(t32)}",
        f"  %o1 = nn.relu %a1 : {ttype(t32)}",
        conv("c4", "o1", "w4", t32, t48, f"{{strides = {arr([2, 2])}, {pad1}}} "),
        conv("cd", "o1", "wd", t32, t48, f"{{strides = {arr([2, 2])}}} "),
        f"  %a2 = nn.add %cd, %c4 : ({ttype(t48)}, {ttype(t48)}) -> {ttype(t48)}",
        f"  %y = nn.relu %a2 : {ttype(t48)}",
        f"  return %y : {ttype(t48)}",
        "}", ""]
    pipeline = "builtin.module(dlas-cpu-pipeline{sparsify=always print-sparsify})"
    return Case(name, "\n".join(lines), [x], y, threads, ["--pipeline", pipeline])


def pooled_network_case(name, gen, threads):
    """ResNet's stem (7x7 s2 conv, ReLU, 3x3 s2 ceil-mode max pool) on a
    224x224 image, then a 3x3 conv and 3x3 s3 ceil-mode max pool without a
    ReLU between, on pre-pruned weights: dlas-sparsify folds the first pool
    into its convolution (a 112x112 map) and keeps the second apart (57x57,
    below min-pool-positions)."""
    x = torch.randn(1, 3, 224, 224, generator=gen)
    w1 = torch.randn(16, 3, 7, 7, generator=gen) * (torch.rand(16, 3, 7, 7, generator=gen) < 0.2)
    b1 = torch.randn(16, generator=gen)
    w2 = torch.randn(8, 16, 3, 3, generator=gen) * (torch.rand(8, 16, 3, 3, generator=gen) < 0.2)
    h = F.relu(F.conv2d(x, w1, b1, stride=2, padding=3))            # 112x112
    h = F.max_pool2d(h, 3, 2, 1, ceil_mode=True)                     # 57x57
    h = F.conv2d(h, w2, None, padding=1)                             # 57x57
    y = F.max_pool2d(h, 3, 3, 0, ceil_mode=True)                     # 19x19
    t1, t2, t3, t4 = [1, 16, 112, 112], [1, 16, 57, 57], [1, 8, 57, 57], list(y.shape)
    module = "\n".join([
        "func.func @main(%x: tensor<1x3x224x224xf32>) -> " + ttype(t4) + " {",
        const("w1", w1), const("b1", b1), const("w2", w2),
        f"  %c1 = nn.conv2d %x, %w1, %b1 {{strides = {arr([2, 2])}, padding = {arr([3, 3, 3, 3])}}} : "
        f"(tensor<1x3x224x224xf32>, tensor<16x3x7x7xf32>, tensor<16xf32>) -> {ttype(t1)}",
        f"  %r1 = nn.relu %c1 : {ttype(t1)}",
        f"  %p1 = nn.max_pool2d %r1 {{kernel = {arr([3, 3])}, strides = {arr([2, 2])}, "
        f"padding = {arr([1, 1, 1, 1])}, ceil_mode = true}} : ({ttype(t1)}) -> {ttype(t2)}",
        f"  %c2 = nn.conv2d %p1, %w2 {{padding = {arr([1, 1, 1, 1])}}} : "
        f"({ttype(t2)}, tensor<8x16x3x3xf32>) -> {ttype(t3)}",
        f"  %y = nn.max_pool2d %c2 {{kernel = {arr([3, 3])}, strides = {arr([3, 3])}, "
        f"ceil_mode = true}} : ({ttype(t3)}) -> {ttype(t4)}",
        f"  return %y : {ttype(t4)}",
        "}", ""])
    pipeline = "builtin.module(dlas-cpu-pipeline{sparsify=always print-sparsify})"
    return Case(name, module, [x], y, threads, ["--pipeline", pipeline])


def network_cases(gen):
    return [network_case("sparsify_prepruned_network", False, gen, 1),
            network_case("sparsify_prune_option_network", True, gen, 2),
            residual_block_case("sparsify_residual_blocks", gen, 2),
            pooled_network_case("sparsify_pooled_network", gen, 2)]


# Dynamic batch (`?` in the module, the size read from the input .npy):
# the kernels' image loop runs to the run-time batch; convolutions on the
# flat, row-tile, phase-plane, in-place, residual and fused-pool paths,
# linear layers as one sparse matrix-vector product per row.
DYNAMIC_CONVS = [
    # (conv, block rows, residual, pool)
    ((3, 4, 9, 11, 8, 3, 1, (1, 1, 1, 1), 1, 1, True), 1, False, None),
    ((2, 4, 6, 32, 8, 3, 1, (1, 1, 1, 1), 1, 1, False), 4, True, None),
    ((3, 6, 13, 17, 8, 3, 2, (1, 0, 1, 1), 1, 2, True), 1, True, None),
    ((2, 16, 14, 14, 32, 1, 1, (0, 0, 0, 0), 1, 1, True), 4, False, None),
    ((3, 3, 40, 40, 8, 3, 2, (1, 1, 1, 1), 1, 1, True), 1, False,
     ((3, 3), (2, 2), [1, 1, 1, 1])),
    ((1, 4, 8, 8, 8, 3, 1, (1, 1, 1, 1), 1, 1, True), 1, True, None),
    ((2, 16, 7, 7, 24, 1, 1, (0, 0, 0, 0), 1, 1, True), 1, True, None),
]


def dynamic_cases(gen):
    cases = []
    for i, (cfg, rows, residual, pool) in enumerate(DYNAMIC_CONVS):
        cases.append(conv_case(i, cfg, [0.1, 0.5, 0.01][i % 3], rows, relu=i % 2 == 0,
                               gen=gen, residual=residual, pool=pool, dynamic=True))
    for i, (batch, features, outputs) in enumerate([(5, 40, 12), (1, 33, 8), (9, 64, 16)]):
        cases.append(linear_case(i, batch, features, outputs, [0.1, 0.5, 0.0][i], 4 if i == 2 else 1,
                                 bias=i != 1, relu=i != 2, gen=gen, dynamic=True))
    cases.append(network_case("sparsify_dynamic_batch_network", False, gen, 2, dynamic=True))
    cases.append(residual_block_case("sparsify_dynamic_batch_residual_blocks", gen, 1,
                                     batch=3, dynamic=True))
    return cases


FAMILIES = {"conv": conv_cases, "linear": linear_cases, "network": network_cases,
            "residual": residual_cases, "pool": pool_cases, "planes": plane_cases,
            "dynamic": dynamic_cases}
# Not in the default set (lit): the cross product, minutes per target.
EXTRA_FAMILIES = {"full-conv": full_conv_cases}


def with_target(run_args, target, options=""):
    """The case's dlas-run arguments with `target` and more pipeline
    `options` in its --pipeline (one made for them where it has none)."""
    if options and "--pipeline" not in run_args:
        run_args = list(run_args) + ["--pipeline", "builtin.module(dlas-cpu-pipeline{})"]
    out = []
    for a in run_args:
        if a.startswith("builtin.module(dlas-cpu-pipeline{"):
            extra = (f"target={target} " if target else "") + (options + " " if options else "")
            a = a.replace("dlas-cpu-pipeline{", "dlas-cpu-pipeline{" + extra, 1)
        out.append(a)
    return out


def run_case(args, c, base, target):
    inputs = [a for i in range(len(c.inputs)) for a in ("--input", f"{base}.in{i}.npy")]
    run_args = with_target(c.run_args, target, args.pipeline_options)
    cmd = [args.dlas_run, base + ".mlir", "--rtol", str(RTOL), "--atol", str(ATOL),
           "--num-threads", str(c.threads)] + inputs + [
           "--expect", base + ".expected.npy"] + run_args
    if target and "--pipeline" not in run_args:
        cmd += ["--target", target]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--dlas-run", default="dlas-run")
    parser.add_argument("--targets", default="",
                        help="space-separated targets (lit's %%exec_targets)")
    parser.add_argument("--pipeline-options", default="",
                        help="more dlas-cpu-pipeline options for every case "
                             "(e.g. sparse-align-taps=always)")
    parser.add_argument("--rotate", action="store_true",
                        help="each case on one of --targets in turn instead of on "
                             "all of them (lit's %%rotate: the quick matrix)")
    parser.add_argument("--family", action="append",
                        choices=sorted({**FAMILIES, **EXTRA_FAMILIES}))
    args = parser.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    gen = torch.Generator().manual_seed(4321)
    families = args.family or sorted(FAMILIES)
    every = {**FAMILIES, **EXTRA_FAMILIES}
    cases = [c for fam in families for c in every[fam](gen)]
    targets = args.targets.split() or [None]
    failing, runs = [], 0
    for index, c in enumerate(cases):
        base = os.path.join(args.workdir, c.name)
        with open(base + ".mlir", "w") as f:
            f.write(c.module)
        for i, t in enumerate(c.inputs):
            np.save(f"{base}.in{i}.npy", np.ascontiguousarray(t.numpy(), dtype=np.float32))
        np.save(base + ".expected.npy",
                np.ascontiguousarray(c.expected.detach().numpy(), dtype=np.float32))
        for target in [targets[index % len(targets)]] if args.rotate else targets:
            runs += 1
            label = f"{c.name} [{target or 'host'}, {c.threads} thread(s)]"
            proc = run_case(args, c, base, target)
            ok = proc.returncode == 0 and "PASS" in proc.stdout
            print(f"{'ok  ' if ok else 'FAIL'} {label}")
            if "sparsify" in c.name:
                print(proc.stdout.strip())
            if not ok:
                failing.append(label)
                print(proc.stdout + proc.stderr)
    print(f"sparse: {len(cases)} cases run, {len(failing)} failing ({runs} runs)")
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
