"""Models quantized by PyTorch, exported to ONNX, run by DLAS.

For each model (torchvision's quantizable ones): seeded random weights,
PyTorch's eager static quantization (fbgemm qconfig: per-channel int8
weights, u8 activations; calibrated on a few seeded batches), the int8
model's output on a seeded batch, and torch.onnx.export at opset 13 (the
QDQ form: QuantizeLinear / DequantizeLinear around float Conv and Gemm).
DLAS runs the ONNX file (`dlas-run`, whose pipeline's dlas-fold-qdq puts
the layers on the int8 kernels) and is compared with PyTorch's int8 model.

Criteria: the relative L2 error of DLAS's logits against PyTorch's int8
ones at most --max-rel-l2, and every input's top-1 class (PyTorch int8)
in DLAS's top 5. Exact agreement is not expected: PyTorch requantizes
each layer's i32 accumulator with its own rounding (and fbgemm's 7-bit
activation range), DLAS dequantizes and quantizes by ONNX's definitions.
Prints how many layers ran in int8 (--print-precision is the pass's own
report through dlas-opt).
"""
import argparse
import os
import subprocess
import sys
import time

import numpy as np
import torch
import torchvision
from torch.ao.quantization import convert, get_default_qconfig, prepare

MODELS = {
    "resnet18": torchvision.models.quantization.resnet18,
    "resnet50": torchvision.models.quantization.resnet50,
    "mobilenet_v2": torchvision.models.quantization.mobilenet_v2,
    "googlenet": torchvision.models.quantization.googlenet,
}


def quantized_model(name, calibration_batches, batch):
    torch.manual_seed(0)
    kwargs = {"weights": None, "quantize": False}
    if name == "googlenet":
        kwargs.update(aux_logits=False, init_weights=True)
    model = MODELS[name](**kwargs).eval()
    model.fuse_model()
    model.qconfig = get_default_qconfig("fbgemm")
    prepare(model, inplace=True)
    generator = torch.Generator().manual_seed(1)
    with torch.no_grad():
        for _ in range(calibration_batches):
            model(torch.randn(batch, 3, 224, 224, generator=generator))
    convert(model, inplace=True)
    return model


def check(name, args):
    directory = os.path.join(args.workdir, name)
    os.makedirs(directory, exist_ok=True)
    model = quantized_model(name, args.calibration_batches, args.batch)
    x = torch.randn(args.batch, 3, 224, 224, generator=torch.Generator().manual_seed(2))
    with torch.no_grad():
        expected = model(x).numpy()
    onnx_path = os.path.join(directory, "model.onnx")
    torch.onnx.export(model, x, onnx_path, opset_version=13)
    np.save(os.path.join(directory, "input.npy"), x.numpy())
    start = time.time()
    run = subprocess.run([args.dlas_run, onnx_path, "--input",
                          os.path.join(directory, "input.npy"),
                          "--output-dir", directory, "--threads", str(args.threads)],
                         capture_output=True, text=True, timeout=1200)
    if run.returncode != 0:
        print(f"{name}: FAIL (dlas-run exit {run.returncode})\n{run.stderr[-3000:]}")
        return False
    actual = np.load(os.path.join(directory, "main_output0.npy"))
    layers = int8_layers(args, onnx_path)
    rel_l2 = float(np.linalg.norm(actual - expected) / np.linalg.norm(expected))
    top1 = expected.argmax(axis=1)
    top5 = np.argsort(-actual, axis=1)[:, :5]
    agree = float(np.mean([t in row for t, row in zip(top1, top5)]))
    ok = rel_l2 <= args.max_rel_l2 and agree >= args.min_top5
    print(f"{name}: {'ok' if ok else 'FAIL'}: {layers} layers in int8, relative L2 error "
          f"{rel_l2:.2e} against PyTorch int8, top-5 agreement {agree:.0%} of "
          f"{args.batch} inputs ({time.time() - start:.0f} s)", flush=True)
    return ok


def int8_layers(args, onnx_path):
    """Layers dlas-fold-qdq puts on the int8 kernels."""
    imported = subprocess.run([args.dlas_import, onnx_path], capture_output=True,
                              text=True, timeout=600)
    report = subprocess.run([args.dlas_opt, "--pass-pipeline=builtin.module("
                             "func.func(dlas-fold-qdq{print}))", "-o", os.devnull],
                            input=imported.stdout, capture_output=True, text=True,
                            timeout=600)
    return sum(": int8 (" in line for line in report.stdout.splitlines())


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", default="resnet18")
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--dlas-run", default="dlas-run")
    parser.add_argument("--dlas-import", default="dlas-import")
    parser.add_argument("--dlas-opt", default="dlas-opt")
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--calibration-batches", type=int, default=4)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--max-rel-l2", type=float, default=5e-2)
    parser.add_argument("--min-top5", type=float, default=1.0)
    args = parser.parse_args()
    failed = [m for m in args.models.split(",") if not check(m, args)]
    print(f"torch_quantized: {len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
