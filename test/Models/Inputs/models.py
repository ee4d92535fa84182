#!/usr/bin/python3
"""End-to-end agreement with PyTorch on real CNNs.

For each model: build it with seeded random weights (no download is possible
here), export it with torch.onnx.export (batch 1), import and run it with
`dlas-run model.onnx`, and compare with PyTorch's output on the same seeded
input. Criterion (fp32): max |dlas - torch| <= 1e-4 * max |torch|
(dlas-run --max-rel-err 1e-4). Prints compile time and latency next to
PyTorch's eager latency at the same thread count.

Models: the torchvision CNNs named by --models (image classification and
segmentation, and the 3-D convolutional video classifiers),
wrn40_2_g{2,4,8,16,C} and
resnet34_g{1,2,4,8,16,C} (grouped 3x3 + pointwise blocks):
a CIFAR WideResNet-40-2 whose 3x3 convolutions are each replaced by a
grouped 3x3 convolution with g groups followed by a pointwise 1x1 one.
"""
import argparse
import gc
import functools
import multiprocessing
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torchvision

WRN = ["wrn40_2_g2", "wrn40_2_g4", "wrn40_2_g8", "wrn40_2_g16", "wrn40_2_gC"]

# Every torchvision 0.14 classification and segmentation model, except
# those PyTorch 1.13 cannot export to ONNX (the reason is printed with
# --models all).
NOT_EXPORTABLE = {
    "swin_v2_t": "aten::zero has no ONNX symbolic in PyTorch 1.13",
    "swin_v2_s": "aten::zero has no ONNX symbolic in PyTorch 1.13",
    "swin_v2_b": "aten::zero has no ONNX symbolic in PyTorch 1.13",
}
# Largest first: the order they start in (make test-models: vit_h_14
# took about 700 s on 2 cores of Zen 3, regnet_y_128gf 240, vit_l_16 200,
# vit_l_32 90).
SOLO_ORDER = ["vit_h_14", "regnet_y_128gf", "vit_l_16", "vit_l_32"]
SOLO = set(SOLO_ORDER)
CLASSIFICATION = torchvision.models.list_models(module=torchvision.models)
SEGMENTATION = torchvision.models.list_models(module=torchvision.models.segmentation)
# The video classifiers made of 3-D convolutions, batch norms, 3-D pools
# and global pooling (nn.conv3d, pools as two 2-D ones), on 8 frames of
# 112x112 (s3d on 16 frames of 224x224, what its last pool needs).
# (MViT and Swin3D are not exported here: attention over 3-D patches.)
VIDEO = ["r3d_18", "mc3_18", "r2plus1d_18", "s3d"]
TORCHVISION = [m for m in CLASSIFICATION + SEGMENTATION if m not in NOT_EXPORTABLE] + VIDEO


class SegmentationOutput(nn.Module):
    """The 'out' map of a segmentation model (its forward returns a dict)."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        return self.model(x)["out"]


class GroupedPointwise(nn.Module):
    """A 3x3 conv replaced by grouped 3x3 (g groups) + pointwise 1x1."""

    def __init__(self, cin, cout, stride, groups):
        super().__init__()
        g = cin if groups == "C" else groups
        self.grouped = nn.Conv2d(cin, cin, 3, stride, 1, groups=g, bias=False)
        self.pointwise = nn.Conv2d(cin, cout, 1, bias=False)

    def forward(self, x):
        return self.pointwise(self.grouped(x))


class WRNBlock(nn.Module):
    def __init__(self, cin, cout, stride, groups):
        super().__init__()
        self.bn1 = nn.BatchNorm2d(cin)
        self.conv1 = GroupedPointwise(cin, cout, stride, groups)
        self.bn2 = nn.BatchNorm2d(cout)
        self.conv2 = GroupedPointwise(cout, cout, 1, groups)
        self.shortcut = None
        if cin != cout or stride != 1:
            self.shortcut = nn.Conv2d(cin, cout, 1, stride, bias=False)

    def forward(self, x):
        o = torch.relu(self.bn1(x))
        y = self.conv1(o)
        y = self.conv2(torch.relu(self.bn2(y)))
        return y + (self.shortcut(o) if self.shortcut is not None else x)


class WideResNet(nn.Module):
    """WRN-depth-k for CIFAR-10 (32x32), Zagoruyko & Komodakis."""

    def __init__(self, depth=40, widen=2, groups=2, classes=10):
        super().__init__()
        n = (depth - 4) // 6
        widths = [16, 16 * widen, 32 * widen, 64 * widen]
        self.conv = nn.Conv2d(3, widths[0], 3, 1, 1, bias=False)
        layers, cin = [], widths[0]
        for stage, stride in zip(widths[1:], [1, 2, 2]):
            for i in range(n):
                layers.append(WRNBlock(cin, stage, stride if i == 0 else 1, groups))
                cin = stage
        self.blocks = nn.Sequential(*layers)
        self.bn = nn.BatchNorm2d(cin)
        self.fc = nn.Linear(cin, classes)

    def forward(self, x):
        y = torch.relu(self.bn(self.blocks(self.conv(x))))
        y = nn.functional.adaptive_avg_pool2d(y, 1).flatten(1)
        return self.fc(y)


def grouped_resnet34(groups):
    """ResNet-34 (ImageNet) with each basic block's 3x3 convolution a
    grouped 3x3 (g groups) + pointwise 1x1, as the thesis's G(g) models."""
    model = torchvision.models.resnet34(weights=None)
    for layer in (model.layer1, model.layer2, model.layer3, model.layer4):
        for block in layer:
            for attr in ("conv1", "conv2"):
                conv = getattr(block, attr)
                setattr(block, attr, GroupedPointwise(conv.in_channels, conv.out_channels,
                                                      conv.stride[0], groups))
    return model


def build(name):
    torch.manual_seed(0)
    if name.startswith("resnet34_g"):
        g = name[len("resnet34_g"):]
        model = grouped_resnet34(g if g == "C" else int(g))
        shape = (1, 3, 224, 224)
    elif name.startswith("wrn40_2_g"):
        g = name[len("wrn40_2_g"):]
        model = WideResNet(groups=g if g == "C" else int(g))
        shape = (1, 3, 32, 32)
    elif name == "googlenet":
        model = torchvision.models.googlenet(weights=None, aux_logits=False,
                                             init_weights=True)
        shape = (1, 3, 224, 224)
    elif name == "inception_v3":
        model = torchvision.models.inception_v3(weights=None, aux_logits=False,
                                                init_weights=True)
        shape = (1, 3, 299, 299)
    elif name in VIDEO:
        model = getattr(torchvision.models.video, name)(weights=None)
        shape = (1, 3, 16, 224, 224) if name == "s3d" else (1, 3, 8, 112, 112)
    elif name in SEGMENTATION:
        model = SegmentationOutput(getattr(torchvision.models.segmentation, name)(
            weights=None, weights_backbone=None))
        shape = (1, 3, 224, 224)
    else:
        model = getattr(torchvision.models, name)(weights=None)
        shape = (1, 3, 224, 224)
    # Layers initialized to zero (ViT's head, ...) would make the output a
    # constant that any wrong kernel matches: give them random weights too.
    gen = torch.Generator().manual_seed(3)
    with torch.no_grad():
        for p in model.parameters():
            if p.dim() >= 2 and not p.any():
                p.copy_(torch.randn(p.shape, generator=gen) * 0.02)
    # Trained-looking batch-norm statistics, so that BN is not the identity.
    gen = torch.Generator().manual_seed(1)
    for m in model.modules():
        if isinstance(m, (nn.BatchNorm2d, nn.BatchNorm3d)):
            m.running_mean.copy_(torch.rand(m.running_mean.shape, generator=gen) - 0.5)
            m.running_var.copy_(torch.rand(m.running_var.shape, generator=gen) + 0.5)
    return model.eval(), shape


def torch_latency(model, x, threads, repeat):
    torch.set_num_threads(threads)
    with torch.no_grad():
        for _ in range(3):
            model(x)
        times = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            model(x)
            times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def magnitude_prune(model, sparsity):
    """dlas-prune's unstructured rule on every Conv2d and Linear weight of
    `model`, in place: per layer, the round(sparsity * size) smallest |w|
    (ties: the lower flat index first) become zero."""
    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, (torch.nn.Conv2d, torch.nn.Linear)):
                w = module.weight.view(-1)
                count = int(round(sparsity * w.numel()))
                order = torch.sort(w.abs(), stable=True).indices
                w[order[:count]] = 0


def quantize_weights(model, levels):
    """Every parameter of `model` rounded, in place, to `levels` evenly spaced
    values per tensor (zero among them). Still f32 values and still random,
    but a library holding them compresses about 5x: for carrying compiled
    models to a machine that takes few bytes (bench/gpu_bench.py)."""
    with torch.no_grad():
        for p in model.parameters():
            scale = p.abs().max() / (levels // 2)
            if scale > 0:
                p.copy_(torch.round(p / scale).clamp(-(levels // 2), levels // 2) * scale)


# The seed of the input export() saves (bench/gpu_bench.py draws it again
# on machines it does not carry the input to).
INPUT_SEED = 2


def export(name, workdir, opset=13, batch=1, dynamic_batch=False, prune=0.0,
           prune_exported=True, calibration_samples=0, weight_levels=0):
    """Builds `name`, exports it to <workdir>/<name>/<name>.onnx and saves the
    seeded input and PyTorch's output next to it; returns (model, input,
    base path). Each model has a folder of its own: models over 2 GB are
    exported with their weights as external files named after the
    parameters, which two models (vit_l_16, vit_l_32) share.

    With dynamic_batch the ONNX batch dimension is symbolic, as PyTorch
    writes it for dynamic_axes: every x.size(0), view and expand then
    becomes Shape arithmetic on the run-time batch. The model is exported
    at batch 2 and run at `batch`, so that nothing of the export's batch
    size can stand in for the run-time one."""
    model, shape = build(name)
    if weight_levels:
        quantize_weights(model, weight_levels)
    if prune and prune_exported:
        magnitude_prune(model, prune)
    shape = (batch,) + tuple(shape[1:])
    x = torch.randn(*shape, generator=torch.Generator().manual_seed(INPUT_SEED))
    folder = os.path.join(workdir, name)
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    base = os.path.join(folder, name)
    dynamic_axes = None
    example = x
    if dynamic_batch:
        dynamic_axes = {"input": {0: "batch"}, "logits": {0: "batch"}}
        example = torch.randn(2 if batch != 2 else 3, *shape[1:],
                              generator=torch.Generator().manual_seed(4))
    torch.onnx.export(model, example, base + ".onnx", opset_version=opset,
                      input_names=["input"], output_names=["logits"],
                      dynamic_axes=dynamic_axes)
    # With prune_exported false the model goes out dense and DLAS prunes
    # it (dlas-run --prune): PyTorch's answer is the pruned model's.
    if prune and not prune_exported:
        magnitude_prune(model, prune)
    with torch.no_grad():
        expected = model(x)
    if calibration_samples:
        # int8 calibration inputs: other seeds than the input judged.
        os.makedirs(base + ".calibration")
        for i in range(calibration_samples):
            sample = torch.randn(*shape, generator=torch.Generator().manual_seed(100 + i))
            np.save(f"{base}.calibration/{i:03d}.npy", sample.numpy())
    np.save(base + ".input.npy", x.numpy())
    np.save(base + ".expected.npy", expected.numpy())
    return model, x, base


def judge_precision(ref, output_path, log, args):
    """Logits run in --precision against PyTorch's f32 ones: the relative
    L2 error (at most --max-rel-l2) and, for classifiers, the share of
    inputs whose f32 top-1 class is among the low-precision top 5 (at least
    --min-top5). Returns (ok, one line of text)."""
    got = np.load(output_path).astype(np.float64)
    ref = ref.astype(np.float64)
    rel_l2 = float(np.linalg.norm(got - ref) / max(np.linalg.norm(ref), 1e-30))
    ok = bool(np.isfinite(rel_l2)) and rel_l2 <= args.max_rel_l2
    lowered = len(re.findall(r"dlas-mixed-precision: .*: (?:bf16|f16|int8) ", log))
    layers = log.count("dlas-mixed-precision:")
    text = (f"{args.precision}: {lowered} of {layers} layers, "
            f"relative L2 error {rel_l2:.2e} (max {args.max_rel_l2:g})")
    if ref.ndim == 2:
        top5 = np.argsort(-got, axis=1)[:, :5]
        agree = float(np.mean([r in t for r, t in zip(ref.argmax(axis=1), top5)]))
        top1 = float(np.mean(ref.argmax(axis=1) == got.argmax(axis=1)))
        ok = ok and agree >= args.min_top5
        text += (f", top-5 agreement {agree:.0%} of {ref.shape[0]} inputs "
                 f"(min {args.min_top5:.0%}), top-1 {top1:.0%}")
    return ok, text


def check_model(name, args):
    """Exports, runs and compares one model, then removes its files unless
    --keep (all of torchvision is about 20 GB of ONNX); returns (name,
    table line, markdown row, ok, details on failure)."""
    try:
        return check_exported_model(name, args)
    finally:
        if not args.keep:
            shutil.rmtree(os.path.join(args.workdir, name), ignore_errors=True)


def check_exported_model(name, args):
    started = time.perf_counter()
    try:
        model, x, base = export(name, args.workdir, args.opset, args.batch,
                                args.dynamic_batch, args.prune,
                                prune_exported=args.prune_in == "torch",
                                calibration_samples=(args.calibration_samples
                                                     if args.precision == "int8" else 0))
    except Exception as e:  # an export PyTorch cannot do fails the model
        return (name, f"{name:<18} export failed: {type(e).__name__}: {str(e)[:300]}  FAIL",
                None, False, "")
    # PyTorch's timing (only when timing is asked for: a check needs the
    # output alone) first, then its copy of the weights goes before
    # dlas-run loads its own (several GB for the largest models).
    torch_ms = (torch_latency(model, x, args.threads, args.repeat)
                if args.repeat > 1 else float("nan"))
    del model, x
    gc.collect()
    cmd = [args.dlas_run, base + ".onnx", "--input", base + ".input.npy",
           "--num-threads", str(args.threads)]
    if args.target:
        cmd += ["--target", args.target]
    if args.dynamic_shapes:
        cmd += ["--dynamic-shapes", args.dynamic_shapes]
    if args.precision == "f32":
        cmd += ["--expect", base + ".expected.npy", "--max-rel-err", args.max_rel_err]
    else:
        # Lower precision is judged on the logits against PyTorch's f32
        # ones below (relative L2 error, top-5 agreement), not elementwise.
        cmd += ["--precision", args.precision, "--print-precision",
                "--output-dir", os.path.dirname(base)]
        if args.keep_f32:
            cmd += ["--keep-f32", args.keep_f32]
    if args.precision == "int8":
        # Calibration first (f32, on the seeded samples), then the model
        # quantized from its file.
        calibration = base + ".calibration.json"
        calibrate = subprocess.run(
            [args.dlas_run, base + ".onnx", "--calibrate", base + ".calibration",
             "--calibration", calibration, "--num-threads", str(args.threads)],
            capture_output=True, text=True, timeout=1800)
        if calibrate.returncode != 0:
            return (name, f"{name:<18} calibration failed  FAIL", None, False,
                    calibrate.stdout + calibrate.stderr)
        cmd += ["--calibration", calibration]
    if args.repeat > 1:
        cmd += ["--warmup", "1", "--repeat", str(args.repeat)]
    if args.prune:
        # dlas-sparsify's decisions go into the log: how many layers ran
        # sparse is part of the result.
        cmd += ["--print-sparsify", "--sparsify", args.sparsify]
        if args.prune_in == "dlas":
            cmd += ["--prune", str(args.prune)]
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads))
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1800, env=env)
    out = proc.stdout
    # A warning (a lowering decision the kernels could not honor, ...)
    # fails the model too: the numbers may be right, the code is not
    # what was decided. A reference that hardly varies cannot tell right
    # from wrong.
    ref = np.load(base + ".expected.npy")
    spread = float(ref.max() - ref.min())
    degenerate = spread <= 1e-3 * max(float(np.abs(ref).max()), 1e-30)
    precision_ok, precision_text = True, ""
    if args.precision != "f32" and proc.returncode == 0:
        precision_ok, precision_text = judge_precision(
            ref, os.path.join(os.path.dirname(base), "main_output0.npy"), out, args)
        out += precision_text + "\n"
        print(f"{name}: {precision_text}", flush=True)
    passed = (out.rstrip().endswith("PASS") if args.precision == "f32"
              else precision_ok)
    ok = (proc.returncode == 0 and passed
          and "warning:" not in proc.stderr and not degenerate)
    if degenerate:
        out += f"reference output is degenerate (spread {spread:g})\n"
    if args.prune:
        sparse_layers = out.count("-> sparse")
        print(f"{name}: {sparse_layers} of {out.count('dlas-sparsify:')} layers sparse "
              f"at {args.prune:g} pruned ({args.prune_in})", flush=True)
    compile_ms = re.search(r"compiled '\w+' in ([0-9.]+) ms", out)
    median = re.search(r"median ([0-9.]+) ms", out)
    rel = re.search(r"(?:max rel err|relative L2 error) ([0-9.e+-]+)", out)
    torch_text = "-" if torch_ms != torch_ms else f"{torch_ms:.2f}"  # NaN: not timed
    line = (f"{name:<18} {compile_ms.group(1) if compile_ms else '-':>10} "
            f"{median.group(1) if median else '-':>9} {torch_text:>9} "
            f"{rel.group(1) if rel else '-':>11}  {'ok' if ok else 'FAIL'}"
            f"  ({time.perf_counter() - started:.0f} s)")
    row = (f"| {name} | {args.threads} | {compile_ms.group(1) if compile_ms else '-'} | "
           f"{median.group(1) if median else '-'} | {torch_text} | "
           f"{rel.group(1) if rel else '-'} | {'ok' if ok else 'FAIL'} |")
    # Only the first error lines: a failing large model can print pages.
    detail = "\n".join((out + proc.stderr).splitlines()[:40])
    return name, line, row, ok, detail


def scheduled(check, names, jobs):
    """Yields check(name) for every name, `jobs` models at once, as they
    finish. The largest models (SOLO: over 250 M parameters, 5-15 GB while
    they compile) run one at a time, first and largest first, each beside
    the smaller ones: two of them at once would not fit in memory, and
    running them alone after the others left a core idle for a third of
    `make test-models`."""
    solo = sorted((n for n in names if n in SOLO), key=SOLO_ORDER.index)
    shared = [n for n in names if n not in SOLO]
    pool = multiprocessing.get_context("fork").Pool(jobs, maxtasksperchild=1)
    running = {}
    while solo or shared or running:
        for name in [n for n, r in running.items() if r.ready()]:
            yield running.pop(name).get()
        while len(running) < jobs and (solo or shared):
            solo_running = any(n in SOLO for n in running)
            if solo and not solo_running:
                name = solo.pop(0)
            elif shared:
                name = shared.pop(0)
            else:
                break
            running[name] = pool.apply_async(check, (name,))
        time.sleep(0.2)
    pool.close()
    pool.join()


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", default="fast",
                        help="comma list, or 'fast', 'slow', 'all'")
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--dlas-run", default="dlas-run")
    parser.add_argument("--opset", type=int, default=13)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=1,
                        help="timed runs per model (DLAS and PyTorch)")
    parser.add_argument("--max-rel-err", default="1e-4")
    parser.add_argument("--target", default="",
                        help="dlas-run --target (a CPU target, or cuda, "
                             "rocm:gfxNNN for a GPU); empty: the host")
    parser.add_argument("--batch", type=int, default=1,
                        help="batch size of the input that is run")
    parser.add_argument("--dynamic-batch", action="store_true",
                        help="export with a symbolic batch dimension (at "
                             "another batch size than the one run)")
    parser.add_argument("--dynamic-shapes", choices=["specialize", "keep"], default="",
                        help="dlas-run --dynamic-shapes (with --dynamic-batch): compile "
                             "for the input's batch, or keep it dynamic; default: "
                             "dlas-run's (specialize)")
    parser.add_argument("--report", help="append a markdown table to this file")
    parser.add_argument("--prune", type=float, default=0.0,
                        help="magnitude-prune every conv/linear weight to this fraction "
                             "of zeros (dlas-prune's rule), and compare with PyTorch on "
                             "the pruned weights")
    parser.add_argument("--prune-in", choices=["torch", "dlas"], default="torch",
                        help="torch: the exported model is pre-pruned; dlas: dlas-run "
                             "--prune prunes the dense model")
    parser.add_argument("--sparsify", default="auto",
                        help="dlas-run --sparsify policy with --prune")
    parser.add_argument("--calibration-samples", type=int, default=4,
                        help="--precision int8: seeded batches that dlas-run "
                             "--calibrate records the activation ranges on")
    parser.add_argument("--precision", default="f32",
                        help="dlas-run --precision (bf16, fp16, int8, auto): judge the "
                             "logits by --max-rel-l2 and --min-top5 against f32")
    parser.add_argument("--keep-f32", default="",
                        help="dlas-run --keep-f32: the layer kinds the precision "
                             "guard keeps in f32 (default: dlas-run's)")
    parser.add_argument("--max-rel-l2", type=float, default=1e-2)
    parser.add_argument("--min-top5", type=float, default=0.95)
    parser.add_argument("--keep", action="store_true",
                        help="keep each model's ONNX file, input and expected output")
    parser.add_argument("--jobs", type=int, default=1,
                        help="models checked at once (timings are then not comparable)")
    args = parser.parse_args()
    groups = {
        "fast": ["resnet18", "mobilenet_v2", "squeezenet1_1", "mnasnet1_0",
                 "efficientnet_b0", "shufflenet_v2_x0_5", "mobilenet_v3_small",
                 "lraspp_mobilenet_v3_large"] + WRN,
        "slow": ["resnet50", "alexnet", "googlenet", "densenet121", "vgg16"],
    }
    # Everything else torchvision has: `make test-models`.
    groups["slow"] += [m for m in TORCHVISION
                       if m not in groups["fast"] + groups["slow"]]
    groups["all"] = groups["fast"] + groups["slow"]
    for name, why in NOT_EXPORTABLE.items():
        if args.models in ("slow", "all"):
            print(f"{name:<18} not exported: {why}")
    names = groups.get(args.models, args.models.split(","))
    os.makedirs(args.workdir, exist_ok=True)
    failing = []
    rows = []
    print(f"{'model':<18} {'compile ms':>10} {'dlas ms':>9} {'torch ms':>9} "
          f"{'max rel err':>11}  threads={args.threads}", flush=True)
    # Models are independent: --jobs of them at once (each worker process
    # handles one model, so that the memory of a large one is returned).
    check = functools.partial(check_model, args=args)
    if args.jobs > 1:
        results = scheduled(check, names, args.jobs)
    else:
        results = map(check, names)
    for name, line, row, ok, detail in results:
        print(line, flush=True)
        if row:
            rows.append(row)
        if not ok:
            failing.append(name)
            print(detail, flush=True)
    if args.report:
        with open(args.report, "a") as f:
            f.write(f"\n| model | threads | DLAS compile ms | DLAS median ms | PyTorch eager median ms "
                    f"| max rel err | check |\n|---|---|---|---|---|---|---|\n")
            f.write("\n".join(rows) + "\n")
    print(f"models: {len(names) - len(failing)} passed, {len(failing)} failed")
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
