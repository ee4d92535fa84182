#!/usr/bin/python3
"""Random small CNNs against PyTorch: a differential test of the whole stack.

Each seed builds one network from a random sequence of layers (dense,
grouped, strided, dilated and depthwise convolutions, residual adds,
channel concatenations, batch norm, max and average pools with and without
padding, upsampling, transposed convolutions, activations, constant and
reflect pads, a global pool and a classifier), at random channel counts
and image sizes (odd, non-square, batch 1 or 2). Two kinds of module:

- onnx: the network exported by torch.onnx and run with `dlas-run
  model.onnx` (the importer, the nn ops, every pass the model triggers);
- nn: a chain of nn.conv2d (constant filters, as a deployed model has
  them, so that DLAS packs them at compile time and chooses the blocked
  layout, GSPC or Winograd by its cost model), ReLU, pools and residual
  adds written directly in the nn dialect.

PyTorch's output on the same input is the reference; a network passes when
max |dlas - torch| <= --max-rel-err * max |torch|. The seeds are the test:
a failing seed reproduces with `--seeds N --keep`, which leaves the
module, input and expected output in --workdir.

Weights are scaled by 1/sqrt(fan-in), so that values stay O(1) through
the layers and the tolerance measures the arithmetic, not cancellation.
"""
import argparse
import os
import random
import subprocess
import sys
import warnings

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

ACTIVATIONS = {
    "relu6": F.relu6, "sigmoid": torch.sigmoid, "hardswish": F.hardswish,
    "silu": F.silu, "gelu": F.gelu, "tanh": torch.tanh,
    "leaky": lambda t: F.leaky_relu(t, 0.2),
}


def scaled_(conv):
    """Weights of variance 1/fan-in (values stay O(1) through the layers)."""
    fan_in = conv.weight[0].numel()
    with torch.no_grad():
        conv.weight.normal_(0, fan_in ** -0.5)
    return conv


class RandomNet(nn.Module):
    """A random sequence of layers on a (C, H, W) input."""

    def __init__(self, rng, c, h, w, wide, any_size=False):
        super().__init__()
        self.steps, self.mods, self.shapes = [], nn.ModuleList(), [(c, h, w)]
        for _ in range(rng.randint(2, 7)):
            if self.add_layer(rng, wide):
                break
        c, h, w = self.shapes[-1]
        # A network for any image size has a classifier only after the
        # global pool (a flattened map has the image's size in it).
        fits = c * h * w <= 8192 and (not any_size or self.steps[-1][0] == "gap")
        self.fc = (nn.Linear(c * h * w, rng.choice([10, 17]))
                   if fits and rng.random() < 0.5 else None)

    def push(self, kind, arg, shape, module=None):
        if module is not None:
            self.mods.append(module)
            arg = len(self.mods) - 1
        self.steps.append((kind, arg))
        self.shapes.append(shape)

    def add_layer(self, rng, wide):
        """Appends one random layer; True when it was the global pool."""
        c, h, w = self.shapes[-1]
        kind = rng.choice(["conv", "conv", "conv", "dw", "bnrelu", "maxpool",
                           "avgpool", "res", "cat", "up", "convT", "act", "pad",
                           "gap"])
        if kind in ("conv", "res"):
            g = rng.choice([g for g in (1, 1, 2, 4, 8) if c % g == 0])
            widths = [c, c, 32, 64, 96, 128] if wide else [c, 8, 16, 24, 32, 48, 64]
            f = rng.choice(widths) if kind == "conv" else c
            f = max(g, f // g * g)
            k = rng.choice([1, 3, 3, 5])
            s = rng.choice([1, 1, 2]) if kind == "conv" else 1
            d = rng.choice([1, 1, 2]) if k == 3 else 1
            p = d * (k // 2)
            oh = (h + 2 * p - d * (k - 1) - 1) // s + 1
            ow = (w + 2 * p - d * (k - 1) - 1) // s + 1
            if oh >= 1 and ow >= 1:
                conv = nn.Conv2d(c, f, k, s, p, dilation=d, groups=g,
                                 bias=rng.random() < 0.6)
                self.push(kind, None, (f, oh, ow), scaled_(conv))
        elif kind == "dw":
            mult, k, s = rng.choice([1, 1, 2]), rng.choice([3, 5]), rng.choice([1, 2])
            conv = scaled_(nn.Conv2d(c, c * mult, k, s, k // 2, groups=c))
            self.push(kind, None, (c * mult, (h - 1) // s + 1, (w - 1) // s + 1), conv)
        elif kind == "bnrelu":
            bn = nn.BatchNorm2d(c).eval()
            with torch.no_grad():
                bn.running_mean.uniform_(-1, 1)
                bn.running_var.uniform_(0.5, 2)
                bn.weight.uniform_(0.5, 1.5)
                bn.bias.uniform_(-0.5, 0.5)
            self.push(kind, None, (c, h, w), bn)
        elif kind in ("maxpool", "avgpool") and min(h, w) >= 3:
            k, s = rng.choice([(2, 2), (3, 2), (3, 1)])
            p = 1 if k == 3 and rng.random() < 0.5 else 0
            self.push(kind, (k, s, p, rng.random() < 0.3),
                      (c, (h + 2 * p - k) // s + 1, (w + 2 * p - k) // s + 1))
        elif kind == "cat":
            conv = scaled_(nn.Conv2d(c, rng.choice([4, 8, 12]), 1))
            self.push(kind, None, (c + conv.out_channels, h, w), conv)
        elif kind == "up" and h * w <= (1600 if wide else 400):
            mode = rng.choice(["nearest", "bilinear"])
            self.push(kind, mode, (c, 2 * h, 2 * w))
        elif kind == "convT":
            conv = nn.ConvTranspose2d(c, rng.choice([4, 8, 16]), rng.choice([2, 3, 4]),
                                      2, rng.choice([0, 1]))
            k, p = conv.kernel_size[0], conv.padding[0]
            oh, ow = (h - 1) * 2 - 2 * p + k, (w - 1) * 2 - 2 * p + k
            if 1 <= oh * ow <= (6400 if wide else 1600):
                with torch.no_grad():
                    conv.weight.normal_(0, (c * k * k / 4) ** -0.5)
                self.push(kind, None, (conv.out_channels, oh, ow), conv)
        elif kind == "act":
            self.push(kind, rng.choice(sorted(ACTIVATIONS)), (c, h, w))
        elif kind == "pad":
            pads = [rng.randint(0, 2) for _ in range(4)]
            mode = rng.choice(["constant", "reflect"]) if min(h, w) > 2 else "constant"
            self.push(kind, (pads, mode), (c, h + pads[2] + pads[3], w + pads[0] + pads[1]))
        elif kind == "gap":
            self.push(kind, None, (c, 1, 1))
            return True
        return False

    def forward(self, x):
        for kind, a in self.steps:
            if kind in ("conv", "dw", "convT"):
                x = self.mods[a](x)
            elif kind == "res":
                x = F.relu(self.mods[a](x) + x)
            elif kind == "bnrelu":
                x = F.relu(self.mods[a](x))
            elif kind == "maxpool":
                x = F.max_pool2d(x, a[0], a[1], a[2])
            elif kind == "avgpool":
                x = F.avg_pool2d(x, a[0], a[1], a[2], count_include_pad=a[3])
            elif kind == "cat":
                x = torch.cat([x, self.mods[a](x)], 1)
            elif kind == "up":
                x = F.interpolate(x, scale_factor=2, mode=a,
                                  align_corners=False if a == "bilinear" else None)
            elif kind == "act":
                x = ACTIVATIONS[a](x)
            elif kind == "pad":
                x = F.pad(x, a[0], mode=a[1])
            elif kind == "gap":
                x = F.adaptive_avg_pool2d(x, 1)
        if self.fc is not None:
            x = self.fc(torch.flatten(x, 1))
        return x


def magnitude_prune(model, sparsity):
    """dlas-prune's unstructured rule (as test/Models/Inputs/models.py): per
    Conv2d and Linear weight, the round(sparsity * size) smallest |w| (ties:
    the lower flat index first) become zero."""
    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, (nn.Conv2d, nn.Linear)):
                w = module.weight.view(-1)
                count = int(round(sparsity * w.numel()))
                w[torch.sort(w.abs(), stable=True).indices[:count]] = 0


def export(net, x, base, dynamic, spatial=False, time=False):
    """Exports `net` to <base>.onnx (with a symbolic batch when `dynamic`,
    symbolic image sizes when `spatial`, a symbolic sequence length when
    `time`); returns (path, input, PyTorch's output)."""
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y = net(x)
        # Dynamic sizes are exported at other sizes than the ones run, so
        # that nothing of the export's sizes can stand in for them.
        shape = list(x.shape)
        if dynamic:
            shape[0] += 1
        if spatial:
            shape[2:] = [shape[2] + 3, shape[3] + 2]
        if time:
            shape[1] += 2
        symbolic = dynamic or spatial or time
        example = torch.randn(*shape) if symbolic else x
        axes = {0: "batch"} if dynamic else {}
        if spatial:
            axes.update({2: "height", 3: "width"})
        if time:
            axes[1] = "time"
        outputs = {0: "batch"} if dynamic else {}
        if spatial and y.dim() == 4 and y.shape[2:] != (1, 1):
            outputs.update({2: "out_height", 3: "out_width"})
        if time and y.dim() == 3:
            outputs[1] = "time"
        torch.onnx.export(net, example, base + ".onnx", opset_version=13,
                          input_names=["input"], output_names=["out"],
                          dynamic_axes=({"input": axes, "out": outputs}
                                        if symbolic else None))
    return base + ".onnx", x, y


def onnx_case(rng, seed, base, wide, dynamic=False, prune=0.0, spatial=False):
    """Exports a random network (with a symbolic batch when `dynamic`,
    symbolic image sizes when `spatial`); returns (module path, input,
    expected, layers)."""
    c = rng.choice([16, 32, 64, 3] if wide else [3, 4, 8, 16, 32])
    h = rng.randint(12, 60) if wide else rng.randint(6, 40)
    w = rng.choice([h, rng.randint(12, 60) if wide else rng.randint(6, 40)])
    torch.manual_seed(seed)
    net = RandomNet(rng, c, h, w, wide, any_size=spatial).eval()
    if prune:
        magnitude_prune(net, prune)
    x = torch.randn(rng.choice([1, 1, 2]), c, h, w)
    return export(net, x, base, dynamic, spatial) + (" ".join(k for k, _ in net.steps),)


class SelfAttention(nn.Module):
    """Multi-head self-attention written out (PyTorch's fused eval path has
    no ONNX export): projections, heads split by reshape and transpose,
    softmax(Q K^T / sqrt(d) + mask) V, the output projection."""

    def __init__(self, d, heads):
        super().__init__()
        self.heads, self.qkv, self.out = heads, nn.Linear(d, 3 * d), nn.Linear(d, d)

    def forward(self, x, mask=None):
        b, t, d = x.shape
        q, k, v = self.qkv(x).reshape(b, t, 3, self.heads, d // self.heads) \
                             .permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-2, -1) / (d // self.heads) ** 0.5
        if mask is not None:
            scores = scores + mask
        y = torch.softmax(scores, -1) @ v
        return self.out(y.transpose(1, 2).reshape(b, t, d))


class RandomSeqNet(nn.Module):
    """A random stack of sequence layers on a (T, D) input per sample:
    linear layers with activations, LayerNorm, multi-head self-attention
    (with or without a causal mask), LSTM and GRU (uni- or bidirectional),
    residual adds and a mean over time."""

    def __init__(self, rng, d, t):
        super().__init__()
        self.steps, self.mods, self.dims = [], nn.ModuleList(), [d]
        # A constant causal mask (opset 13 has no Trilu), sliced to the
        # sequence's length (a run-time Slice with a symbolic length).
        self.register_buffer("causal", torch.triu(torch.full((64, 64), float("-inf")), 1))
        for _ in range(rng.randint(1, 5)):
            d = self.dims[-1]
            kind = rng.choice(["linear", "linear", "norm", "attention", "lstm",
                               "gru", "mlp_res"])
            if kind == "linear":
                out = rng.choice([d, 8, 16, 24, 33, 64])
                self.push(kind, rng.choice(sorted(ACTIVATIONS) + ["none"]), out,
                          nn.Linear(d, out, bias=rng.random() < 0.7))
            elif kind == "norm":
                self.push(kind, None, d, nn.LayerNorm(d))
            elif kind == "attention":
                heads = rng.choice([h for h in (1, 2, 4) if d % h == 0])
                self.push(kind, rng.random() < 0.5, d, SelfAttention(d, heads))
            elif kind in ("lstm", "gru"):
                hidden = rng.choice([8, 16, 20])
                both = rng.random() < 0.4
                cls = nn.LSTM if kind == "lstm" else nn.GRU
                self.push(kind, None, hidden * (2 if both else 1),
                          cls(d, hidden, num_layers=rng.choice([1, 2]),
                              batch_first=True, bidirectional=both))
            else:
                block = nn.Sequential(nn.Linear(d, 2 * d), nn.GELU(), nn.Linear(2 * d, d))
                self.push(kind, None, d, block)
        self.pool = rng.random() < 0.5

    def push(self, kind, arg, dim, module):
        self.mods.append(module)
        self.steps.append((kind, arg, len(self.mods) - 1))
        self.dims.append(dim)

    def forward(self, x):
        for kind, arg, i in self.steps:
            m = self.mods[i]
            if kind == "linear":
                x = m(x)
                x = x if arg == "none" else ACTIVATIONS[arg](x)
            elif kind == "norm":
                x = m(x)
            elif kind == "attention":
                mask = self.causal[:x.shape[1], :x.shape[1]] if arg else None
                x = x + m(x, mask)
            elif kind in ("lstm", "gru"):
                x = m(x)[0]
            else:
                x = x + m(x)
        return x.mean(1) if self.pool else x


def seq_case(rng, seed, base, wide, dynamic=False, prune=0.0, time=False):
    """Exports a random sequence network; (module path, input, expected,
    layers)."""
    torch.manual_seed(seed)
    d = rng.choice([8, 12, 16, 32, 64] if not wide else [64, 96, 128])
    t = rng.randint(1, 24)
    net = RandomSeqNet(rng, d, t).eval()
    if prune:
        magnitude_prune(net, prune)
    x = torch.randn(rng.choice([1, 2, 3]), t, d)
    return export(net, x, base, dynamic, time=time) + (" ".join(k for k, _, _ in net.steps),)


def blob(a):
    """A dense_resource blob: its alignment (4, little-endian), then the data."""
    return "0x04000000" + np.ascontiguousarray(a, dtype="<f4").tobytes().hex()


def arr(v):
    return "array<i64: " + ", ".join(map(str, v)) + ">"


def ttype(shape):
    return "tensor<" + "x".join(map(str, shape)) + "xf32>"


def nn_case(rng, seed, base, wide, dynamic=False, prune=0.0):
    """A random conv chain in the nn dialect with constant filters."""
    torch.manual_seed(seed)
    c = rng.choice([1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64])
    h = rng.randint(4, 56 if wide else 40)
    w = rng.choice([h, rng.randint(4, 56 if wide else 40)])
    x = torch.randn(rng.choice([1, 1, 1, 2]), c, h, w)
    y, cur, ctype = x, "%x", ttype(x.shape)
    lines, blobs, kinds = [], {}, []
    previous = (x, "%x")
    for layer in range(rng.choice([1, 1, 2, 3])):
        c = y.shape[1]
        g = rng.choice([g for g in (1, 1, 2, 3, 4, 8, 16, c) if c % g == 0])
        f = g * rng.choice([1, 2, 3, 4, 5, 8, 12, 16]) if g > 1 else \
            rng.choice([3, 4, 8, 13, 16, 24, 32, 40, 64])
        k = rng.choice([1, 3, 3, 3, 5, 7, 2])
        s, d = rng.choice([1, 1, 1, 2, 3]), rng.choice([1, 1, 1, 2])
        pad = ([rng.randint(0, k // 2 + 1) for _ in range(4)]
               if rng.random() < 0.3 else [k // 2] * 4)
        oh = (y.shape[2] + pad[0] + pad[2] - d * (k - 1) - 1) // s + 1
        ow = (y.shape[3] + pad[1] + pad[3] - d * (k - 1) - 1) // s + 1
        if oh < 1 or ow < 1:
            break
        wt = torch.randn(f, c // g, k, k) / (c // g * k * k) ** 0.5
        if prune:
            flat = wt.view(-1)
            flat[torch.sort(flat.abs(), stable=True).indices[:int(round(prune * flat.numel()))]] = 0
        blobs[f"w{layer}"] = wt.numpy()
        lines.append(f"  %w{layer} = arith.constant dense_resource<w{layer}> : {ttype(wt.shape)}")
        operands, types = [cur, f"%w{layer}"], [ctype, ttype(wt.shape)]
        b = torch.randn(f) if rng.random() < 0.5 else None
        if b is not None:
            blobs[f"b{layer}"] = b.numpy()
            lines.append(f"  %b{layer} = arith.constant dense_resource<b{layer}> : {ttype(b.shape)}")
            operands.append(f"%b{layer}")
            types.append(ttype(b.shape))
        y = F.conv2d(F.pad(y, (pad[1], pad[3], pad[0], pad[2])), wt, b,
                     stride=s, dilation=d, groups=g)
        rtype = ttype(y.shape)
        lines.append(f"  %c{layer} = nn.conv2d {', '.join(operands)} {{strides = {arr([s, s])}, "
                     f"padding = {arr(pad)}, dilations = {arr([d, d])}, groups = {g} : i64}} : "
                     f"({', '.join(types)}) -> {rtype}")
        kinds.append(f"conv{k}x{k}/s{s}/d{d}/g{g}:{c}->{f}@{y.shape[2]}x{y.shape[3]}")
        cur, ctype = f"%c{layer}", rtype

        def op(name, value, line, out):
            nonlocal y, cur, ctype
            y = value
            lines.append(line.format(cur=cur, ct=ctype, nt=ttype(value.shape), out=out))
            cur, ctype = out, ttype(value.shape)
            kinds.append(name)
        if rng.random() < 0.4:
            op("relu", F.relu(y), "  {out} = nn.relu {cur} : {ct}", f"%r{layer}")
        if rng.random() < 0.2 and min(y.shape[2:]) >= 3:
            pk, ps = rng.choice([(2, 2), (3, 2), (3, 1)])
            pp = rng.choice([0, 1]) if pk == 3 else 0
            op("avgpool", F.avg_pool2d(y, pk, ps, pp, count_include_pad=False),
               f"  {{out}} = nn.avg_pool2d {{cur}} {{{{kernel = {arr([pk, pk])}, strides = {arr([ps, ps])}, "
               f"padding = {arr([pp] * 4)}, count_include_pad = false}}}} : ({{ct}}) -> {{nt}}", f"%v{layer}")
        if layer > 0 and rng.random() < 0.3 and y.shape == previous[0].shape:
            op("add", y + previous[0], f"  {{out}} = nn.add {{cur}}, {previous[1]} : ({{ct}}, {{ct}}) -> {{ct}}",
               f"%a{layer}")
        previous = (y, cur)
        if rng.random() < 0.25 and min(y.shape[2:]) >= 3:
            pk, ps = rng.choice([(2, 2), (3, 2), (3, 1)])
            pp = rng.choice([0, 1]) if pk == 3 else 0
            op("maxpool", F.max_pool2d(y, pk, ps, pp),
               f"  {{out}} = nn.max_pool2d {{cur}} {{{{kernel = {arr([pk, pk])}, strides = {arr([ps, ps])}, "
               f"padding = {arr([pp] * 4)}}}}} : ({{ct}}) -> {{nt}}", f"%m{layer}")
    if not lines:
        return None
    resources = ",\n".join(f'      {name}: "{blob(v)}"' for name, v in blobs.items())
    module = (f"func.func @main(%x: {ttype(x.shape)}) -> {ctype} {{\n" + "\n".join(lines)
              + f"\n  return {cur} : {ctype}\n}}\n"
              "{-#\n  dialect_resources: {\n    builtin: {\n" + resources + "\n    }\n  }\n#-}\n")
    with open(base + ".mlir", "w") as out:
        out.write(module)
    return base + ".mlir", x, y, " ".join(kinds)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kind", choices=["onnx", "nn", "seq"], required=True,
                        help="onnx: CNNs through ONNX; nn: conv chains in the nn "
                             "dialect; seq: sequence models through ONNX (linear, "
                             "LayerNorm, attention, LSTM, GRU)")
    parser.add_argument("--seeds", required=True,
                        help="a seed, a range A-B (B excluded) or a comma list")
    parser.add_argument("--wide", action="store_true",
                        help="wider channels and larger images (blocked layout, "
                             "Winograd, GSPC)")
    parser.add_argument("--dynamic-batch", action="store_true",
                        help="onnx: a symbolic batch, kept dynamic in the "
                             "compiled code (dlas-run --dynamic-shapes keep)")
    parser.add_argument("--dynamic-spatial", action="store_true",
                        help="onnx: symbolic image sizes (exported at other "
                             "sizes than the ones run), kept dynamic in the "
                             "compiled code")
    parser.add_argument("--dynamic-time", action="store_true",
                        help="seq: a symbolic sequence length (exported at "
                             "another length than the one run), kept dynamic")
    parser.add_argument("--prune", type=float, default=0.0,
                        help="prune every convolution and linear weight to this "
                             "sparsity (magnitude) before DLAS sees it, and run "
                             "with dlas-run --sparsify always: sparse kernels")
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--dlas-run", default="dlas-run")
    parser.add_argument("--targets", default="",
                        help="space-separated dlas-run targets; empty: the host")
    parser.add_argument("--rotate", action="store_true",
                        help="each seed on one of --targets in turn instead of on "
                             "all of them (lit's %%rotate: the quick matrix)")
    parser.add_argument("--num-threads", default="1")
    parser.add_argument("--max-rel-err", default="1e-4")
    parser.add_argument("--precision", default=None,
                        help="dlas-run --precision (bf16, fp16): judged against "
                             "PyTorch's f32 output with --max-rel-err")
    parser.add_argument("--keep", action="store_true",
                        help="keep every network's files (default: failing ones)")
    args = parser.parse_args()
    seeds = []
    for part in args.seeds.split(","):
        a, _, b = part.partition("-")
        seeds += list(range(int(a), int(b))) if b else [int(a)]
    os.makedirs(args.workdir, exist_ok=True)
    make = {"onnx": onnx_case, "nn": nn_case, "seq": seq_case}[args.kind]
    failing, runs = [], 0
    for index, seed in enumerate(seeds):
        rng = random.Random(seed * 7919 + args.wide)
        base = os.path.join(args.workdir, f"{args.kind}{'_wide' if args.wide else ''}"
                                          f"{'_dynamic' if args.dynamic_batch else ''}"
                                          f"{'_spatial' if args.dynamic_spatial else ''}"
                                          f"{'_time' if args.dynamic_time else ''}_{seed}")
        extra = {"spatial": True} if args.dynamic_spatial else {}
        if args.dynamic_time:
            extra["time"] = True
        case = make(rng, seed, base, args.wide, args.dynamic_batch, args.prune, **extra)
        if case is None:
            continue
        module, x, y, layers = case
        np.save(base + ".input.npy", x.numpy())
        np.save(base + ".expected.npy", y.numpy())
        targets = args.targets.split() or [None]
        if args.rotate:
            targets = [targets[index % len(targets)]]
        for target in targets:
            runs += 1
            cmd = [args.dlas_run, module, "--input", base + ".input.npy",
                   "--expect", base + ".expected.npy", "--max-rel-err", args.max_rel_err,
                   "--num-threads", args.num_threads]
            if target:
                cmd += ["--target", target]
            if args.dynamic_batch or args.dynamic_spatial or args.dynamic_time:
                cmd += ["--dynamic-shapes", "keep"]
            if args.precision:
                cmd += ["--precision", args.precision]
            if args.prune:
                cmd += ["--sparsify", "always"]
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
            # A warning (a decision the kernels could not honor) fails too:
            # the numbers may be right, the code is not what was decided.
            ok = (proc.returncode == 0 and "PASS" in proc.stdout
                  and "warning:" not in proc.stderr)
            label = f"seed {seed}" + (f" [{target}]" if target else "")
            print(f"{'ok  ' if ok else 'FAIL'} {label}: {layers}", flush=True)
            if not ok:
                failing.append(label)
                print(f"  {' '.join(cmd)}\n" + (proc.stdout + proc.stderr)[-1500:], flush=True)
        if not args.keep and not any(f.startswith(f"seed {seed}") for f in failing):
            for suffix in (".onnx", ".mlir", ".input.npy", ".expected.npy"):
                if os.path.exists(base + suffix):
                    os.remove(base + suffix)
    print(f"random {args.kind}{' wide' if args.wide else ''}"
          f"{' dynamic' if args.dynamic_batch else ''}"
          f"{' spatial' if args.dynamic_spatial else ''}"
          f"{' time' if args.dynamic_time else ''}"
          f"{f' pruned {args.prune:g}' if args.prune else ''}"
          f"{f' {args.precision}' if args.precision else ''}: {len(seeds)} seeds, "
          f"{runs} runs, {len(failing)} failing")
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
