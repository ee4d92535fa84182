#!/usr/bin/python3
"""The bundled example networks: a ResNet basic block and a MobileNetV2
inverted-residual block, written in the nn dialect with seeded weights as
dense_resource blobs (examples/blocks.mlir).

  blocks.py generate [--out examples/blocks.mlir]
      writes the module from seeded PyTorch modules (run once; the output is
      committed).
  blocks.py reference --mlir examples/blocks.mlir --out DIR [--threads N]
      reads the weights back from the module's blobs (not from the seed), so
      the reference is computed independently of how the file was made; runs
      the same blocks in PyTorch on a seeded input and writes
      DIR/<entry>.input.npy, DIR/<entry>.expected.npy and the PyTorch median
      latency.
"""
import argparse
import os
import re
import statistics
import struct
import sys
import time

import numpy as np
import torch
import torch.nn as nn


class BasicBlock(nn.Module):
    """torchvision's ResNet BasicBlock (stride 1, no downsample)."""

    def __init__(self, channels):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, x):
        y = torch.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return torch.relu(y + x)


class InvertedResidual(nn.Module):
    """torchvision's MobileNetV2 block with expansion, stride 1, residual."""

    def __init__(self, channels, expansion):
        super().__init__()
        hidden = channels * expansion
        self.expand = nn.Conv2d(channels, hidden, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(hidden)
        self.depthwise = nn.Conv2d(hidden, hidden, 3, padding=1, groups=hidden, bias=False)
        self.bn2 = nn.BatchNorm2d(hidden)
        self.project = nn.Conv2d(hidden, channels, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(channels)

    def forward(self, x):
        y = torch.clamp(self.bn1(self.expand(x)), 0, 6)
        y = torch.clamp(self.bn2(self.depthwise(y)), 0, 6)
        return x + self.bn3(self.project(y))


BLOCKS = {
    # entry: (module factory, input shape)
    "resnet_basic_block": (lambda: BasicBlock(64), (1, 64, 56, 56)),
    "mobilenetv2_inverted_residual": (lambda: InvertedResidual(24, 6), (1, 24, 56, 56)),
}


def seeded_module(entry):
    torch.manual_seed(sum(map(ord, entry)))
    module = BLOCKS[entry][0]()
    # Non-trivial running statistics, as in a trained network.
    for m in module.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.running_mean.uniform_(-0.5, 0.5)
            m.running_var.uniform_(0.5, 1.5)
            m.weight.data.uniform_(0.5, 1.5)
            m.bias.data.uniform_(-0.5, 0.5)
    return module.eval()


def ttype(shape):
    return "tensor<" + "x".join(map(str, shape)) + "xf32>"


def blob_hex(tensor):
    data = tensor.detach().numpy().astype("<f4").tobytes()
    return "0x" + struct.pack("<I", 4).hex().upper() + data.hex().upper()


def emit_entry(entry, module, blobs):
    shape = BLOCKS[entry][1]
    lines = []
    consts = {}

    def const(name, tensor):
        key = f"{entry}.{name}"
        blobs[key] = blob_hex(tensor)
        value = f"%{name.replace('.', '_')}"
        lines.append(f"    {value} = arith.constant dense_resource<{key}> : {ttype(tensor.shape)}")
        consts[name] = (value, ttype(tensor.shape))
        return consts[name]

    params = {n: p for n, p in module.named_parameters()}
    params.update({n: b for n, b in module.named_buffers() if "num_batches" not in n})
    for name in sorted(params):
        const(name, params[name])

    out = []
    counter = [0]

    def fresh():
        counter[0] += 1
        return f"%v{counter[0]}"

    def conv(x, xt, prefix, conv_mod):
        w, wt = consts[f"{prefix}.weight"]
        o = conv_mod.out_channels
        h, wd = int(xt.split("x")[2]), int(xt.split("x")[3])
        rt = ttype((1, o, h, wd))
        pad = conv_mod.padding[0]
        attrs = [f"padding = array<i64: {pad}, {pad}, {pad}, {pad}>"] if pad else []
        if conv_mod.groups > 1:
            attrs.append(f"groups = {conv_mod.groups} : i64")
        attr_text = " {" + ", ".join(attrs) + "}" if attrs else ""
        v = fresh()
        out.append(f"    {v} = nn.conv2d {x}, {w}{attr_text} : ({xt}, {wt}) -> {rt}")
        return v, rt

    def bn(x, xt, prefix):
        args = [consts[f"{prefix}.{p}"] for p in ("weight", "bias", "running_mean", "running_var")]
        v = fresh()
        out.append(f"    {v} = nn.batch_norm {x}, " + ", ".join(a[0] for a in args) +
                   f" {{epsilon = 1.0e-05 : f64}} : ({xt}, " + ", ".join(a[1] for a in args) +
                   f") -> {xt}")
        return v

    def unary(op, x, xt, attrs=""):
        v = fresh()
        out.append(f"    {v} = nn.{op} {x}{attrs} : {xt}")
        return v

    def add(a, b, t):
        v = fresh()
        out.append(f"    {v} = nn.add {a}, {b} : ({t}, {t}) -> {t}")
        return v

    xt = ttype(shape)
    if isinstance(module, BasicBlock):
        y, yt = conv("%x", xt, "conv1", module.conv1)
        y = unary("relu", bn(y, yt, "bn1"), yt)
        y, yt = conv(y, yt, "conv2", module.conv2)
        y = bn(y, yt, "bn2")
        result = unary("relu", add(y, "%x", yt), yt)
    else:
        y, yt = conv("%x", xt, "expand", module.expand)
        y = unary("relu6", bn(y, yt, "bn1"), yt)
        y, yt = conv(y, yt, "depthwise", module.depthwise)
        y = unary("relu6", bn(y, yt, "bn2"), yt)
        y, yt = conv(y, yt, "project", module.project)
        result = add("%x", bn(y, yt, "bn3"), yt)
    body = "\n".join(lines + out)
    return (f"  func.func @{entry}(%x: {xt}) -> {xt} {{\n{body}\n"
            f"    return {result} : {xt}\n  }}\n")


def generate(path):
    blobs = {}
    funcs = [emit_entry(e, seeded_module(e), blobs) for e in BLOCKS]
    with open(path, "w") as f:
        f.write("// Generated by examples/blocks.py generate: a ResNet basic block and a\n"
                "// MobileNetV2 inverted-residual block in the nn dialect, weights as\n"
                "// dense_resource blobs. Run: dlas-run examples/blocks.mlir -e <entry> ...\n")
        f.write("module {\n" + "\n".join(funcs) + "}\n\n{-#\n  dialect_resources: {\n    builtin: {\n")
        f.write(",\n".join(f"      \"{k}\": \"{v}\"" for k, v in blobs.items()))
        f.write("\n    }\n  }\n#-}\n")


def read_blobs(path):
    text = open(path).read()
    blobs = {}
    for key, hexdata in re.findall(r'"([\w.]+)": "0x([0-9A-Fa-f]+)"', text):
        raw = bytes.fromhex(hexdata)
        blobs[key] = np.frombuffer(raw[4:], dtype="<f4")  # 4-byte alignment header
    return blobs


def reference(mlir, out, threads, repeat):
    torch.set_num_threads(threads)
    blobs = read_blobs(mlir)
    os.makedirs(out, exist_ok=True)
    for entry, (factory, shape) in BLOCKS.items():
        module = factory().eval()
        state = {}
        for name, tensor in list(module.state_dict().items()):
            if "num_batches" in name:
                state[name] = tensor
                continue
            data = blobs.get(f"{entry}.{name}")
            if data is None:
                sys.exit(f"blocks.py: '{mlir}' has no blob '{entry}.{name}'")
            state[name] = torch.from_numpy(data.copy()).reshape(tensor.shape)
        module.load_state_dict(state)
        x = torch.randn(*shape, generator=torch.Generator().manual_seed(42))
        with torch.no_grad():
            y = module(x)
            for _ in range(5):
                module(x)
            times = []
            for _ in range(repeat):
                t0 = time.perf_counter()
                module(x)
                times.append((time.perf_counter() - t0) * 1e3)
        np.save(os.path.join(out, f"{entry}.input.npy"), x.numpy())
        np.save(os.path.join(out, f"{entry}.expected.npy"), y.numpy())
        print(f"{entry}: PyTorch {torch.__version__} eager, {threads} thread(s): "
              f"median {statistics.median(times):.3f} ms over {repeat} runs")


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("generate")
    g.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "blocks.mlir"))
    r = sub.add_parser("reference")
    r.add_argument("--mlir", required=True)
    r.add_argument("--out", required=True)
    r.add_argument("--threads", type=int, default=1)
    r.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()
    if args.cmd == "generate":
        generate(args.out)
    else:
        reference(args.mlir, args.out, args.threads, args.repeat)


if __name__ == "__main__":
    main()
