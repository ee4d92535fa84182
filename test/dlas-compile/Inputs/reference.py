"""Inputs and PyTorch's result for test/dlas-run/Inputs/targets.mlir (conv
3x3 pad 1 -> relu -> depthwise 3x3 -> relu6 -> flatten -> linear), as raw
files for the AOT harness; `check` compares a result file with it."""
import sys

import numpy as np
import torch
import torch.nn.functional as F


def make(workdir):
    rng = np.random.default_rng(11)
    shapes = [(1, 16, 12, 12), (16, 16, 3, 3), (16, 1, 3, 3), (10, 1600)]
    arrays = [rng.standard_normal(s, dtype=np.float32) for s in shapes]
    for i, a in enumerate(arrays):
        a.tofile(f"{workdir}/in{i}.bin")
    x, w, dw, fc = (torch.from_numpy(a) for a in arrays)
    y = F.relu(F.conv2d(x, w, padding=1))
    y = torch.clamp(F.conv2d(y, dw, groups=16), 0, 6)
    y = F.linear(y.flatten(1), fc)
    y.numpy().tofile(f"{workdir}/expected.bin")


def blob(a):
    """A dense_resource blob: alignment 4, then the little-endian data."""
    return "0x04000000" + np.ascontiguousarray(a, dtype="<f4").tobytes().hex()


def make_const(workdir):
    """The same network with its weights as module constants (packed at
    compile time, then stored in the object's read-only data)."""
    rng = np.random.default_rng(12)
    x = rng.standard_normal((1, 16, 12, 12), dtype=np.float32)
    w = rng.standard_normal((16, 16, 3, 3), dtype=np.float32)
    dw = rng.standard_normal((16, 1, 3, 3), dtype=np.float32)
    fc = rng.standard_normal((10, 1600), dtype=np.float32)
    x.tofile(f"{workdir}/const-in0.bin")
    module = f"""func.func @main(%x: tensor<1x16x12x12xf32>) -> tensor<1x10xf32> {{
  %w = arith.constant dense_resource<w> : tensor<16x16x3x3xf32>
  %dw = arith.constant dense_resource<dw> : tensor<16x1x3x3xf32>
  %fc = arith.constant dense_resource<fc> : tensor<10x1600xf32>
  %0 = nn.conv2d %x, %w {{padding = array<i64: 1, 1, 1, 1>}} : (tensor<1x16x12x12xf32>, tensor<16x16x3x3xf32>) -> tensor<1x16x12x12xf32>
  %1 = nn.relu %0 : tensor<1x16x12x12xf32>
  %2 = nn.conv2d %1, %dw {{groups = 16 : i64}} : (tensor<1x16x12x12xf32>, tensor<16x1x3x3xf32>) -> tensor<1x16x10x10xf32>
  %3 = nn.relu6 %2 : tensor<1x16x10x10xf32>
  %4 = nn.flatten %3 {{axis = 1 : i64}} : (tensor<1x16x10x10xf32>) -> tensor<1x1600xf32>
  %5 = nn.linear %4, %fc : (tensor<1x1600xf32>, tensor<10x1600xf32>) -> tensor<1x10xf32>
  return %5 : tensor<1x10xf32>
}}
{{-#
  dialect_resources: {{
    builtin: {{
      w: "{blob(w)}",
      dw: "{blob(dw)}",
      fc: "{blob(fc)}"
    }}
  }}
#-}}
"""
    with open(f"{workdir}/const.mlir", "w") as f:
        f.write(module)
    t = [torch.from_numpy(a) for a in (x, w, dw, fc)]
    y = F.relu(F.conv2d(t[0], t[1], padding=1))
    y = torch.clamp(F.conv2d(y, t[2], groups=16), 0, 6)
    F.linear(y.flatten(1), t[3]).numpy().tofile(f"{workdir}/const-expected.bin")


def check(expected, actual, rel=1e-4):
    e = np.fromfile(expected, dtype=np.float32)
    a = np.fromfile(actual, dtype=np.float32)
    if e.shape != a.shape:
        print(f"FAIL: {a.size} elements, expected {e.size}")
        return 1
    err = float(np.max(np.abs(a - e)))
    tol = rel * float(np.max(np.abs(e))) + 1e-5
    print(f"max abs err {err:.3e} (tolerance {tol:.3e}): {'PASS' if err <= tol else 'FAIL'}")
    return 0 if err <= tol else 1


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2])
        make_const(sys.argv[2])
    else:
        # An optional third argument: the tolerance relative to max |expected|.
        sys.exit(check(sys.argv[2], sys.argv[3], *map(float, sys.argv[4:5])))
