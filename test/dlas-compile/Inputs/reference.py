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


def check(expected, actual):
    e = np.fromfile(expected, dtype=np.float32)
    a = np.fromfile(actual, dtype=np.float32)
    if e.shape != a.shape:
        print(f"FAIL: {a.size} elements, expected {e.size}")
        return 1
    err = float(np.max(np.abs(a - e)))
    tol = 1e-4 * float(np.max(np.abs(e))) + 1e-5
    print(f"max abs err {err:.3e} (tolerance {tol:.3e}): {'PASS' if err <= tol else 'FAIL'}")
    return 0 if err <= tol else 1


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2])
    else:
        sys.exit(check(sys.argv[2], sys.argv[3]))
