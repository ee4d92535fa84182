#!/usr/bin/python3
"""DLAS benchmark harness: DLAS against oneDNN, PyTorch and OpenBLAS.

One invocation runs, at each thread count, every case of the selected suites
back to back for DLAS and its peers on this machine:
  sgemm      M = N = K in 256..2048: DLAS (nn.matmul), oneDNN matmul,
             OpenBLAS sgemm, PyTorch torch.mm
  resnet50   the 23 distinct convolutions of ResNet-50 at 224x224, batch 1,
             weighted by how often each occurs
  dwconv     MobileNetV2's depthwise 3x3 layers
  grouped    WRN-40-2 (CIFAR) and ResNet-34 3x3 layers for g = 1..16, C
  transformer  the dense layers of ViT-B/16 (197 tokens) and BERT-base (128
             tokens), weights constant: DLAS nn.matmul, oneDNN matmul,
             OpenBLAS sgemm, PyTorch torch.mm
  convpool   conv 3x3 + bias + ReLU + max pool blocks (oneDNN: ReLU post-op
             and its pooling primitive; DLAS fuses the pool into the kernel)
Every DLAS result is checked against PyTorch in the same run (dlas-run
--expect, |d - t| <= 1e-3 + 1e-3 |t|). Times are medians after warm-up
(30 runs, fewer for DLAS cases whose single run exceeds the time budget;
the run count is reported). Per case, DLAS and the peers run back to back,
--rounds times (default 2), and each reports the best of its round medians:
this VM's speed drifts by tens of percent over minutes. GFLOP/s = 2 * MACs /
time; "% peak" is of the fp32 FMA peak measured by the harness itself (before
and after the cases, the higher of the two) at the
same thread count. Convolution filters are module constants for DLAS
(--weights constant: packed at compile time, as oneDNN reorders them outside
its timed loop). Dense layers whose channels are whole 16-blocks, which run
in the blocked NCHW16c layout inside a model (dlas-blocked-layout), are timed
blocked in and out (dlas-run --blocked-entry), as oneDNN's format_tag::any
layers are: a model converts only at its edges, not around every layer.

--target (default host) names the CPU DLAS compiles for (dlas-run --target):
the blocked layout's channel block, the FMA peak's vector width and the
peers' ISA follow it. For a target without AVX-512 on an AVX-512 host the
peers are held to AVX2 (ONEDNN_MAX_CPU_ISA=AVX2 for oneDNN and PyTorch's
bundled oneDNN, OPENBLAS_CORETYPE=Haswell, ATEN_CPU_CAPABILITY=avx2) and
the peak is measured with 256-bit FMAs, so that AVX2 code is compared with
AVX2 code. The results name the host and the target.

Writes bench/results/<tag>.md and .csv and a PNG chart of DLAS/peer ratios.
"""
import argparse
import csv
import ctypes
import datetime
import os
import re
import statistics
import subprocess
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))

# (name, C_in, C_out, K, stride, H_in, occurrences)
RESNET50 = [
    ("conv1", 3, 64, 7, 2, 224, 1),
    ("l1_1x1_64_64", 64, 64, 1, 1, 56, 1),
    ("l1_3x3_64", 64, 64, 3, 1, 56, 3),
    ("l1_1x1_64_256", 64, 256, 1, 1, 56, 4),
    ("l1_1x1_256_64", 256, 64, 1, 1, 56, 2),
    ("l2_1x1_256_128", 256, 128, 1, 1, 56, 1),
    ("l2_3x3_128_s2", 128, 128, 3, 2, 56, 1),
    ("l2_1x1_128_512", 128, 512, 1, 1, 28, 4),
    ("l2_ds_256_512_s2", 256, 512, 1, 2, 56, 1),
    ("l2_1x1_512_128", 512, 128, 1, 1, 28, 3),
    ("l2_3x3_128", 128, 128, 3, 1, 28, 3),
    ("l3_1x1_512_256", 512, 256, 1, 1, 28, 1),
    ("l3_3x3_256_s2", 256, 256, 3, 2, 28, 1),
    ("l3_1x1_256_1024", 256, 1024, 1, 1, 14, 6),
    ("l3_ds_512_1024_s2", 512, 1024, 1, 2, 28, 1),
    ("l3_1x1_1024_256", 1024, 256, 1, 1, 14, 5),
    ("l3_3x3_256", 256, 256, 3, 1, 14, 5),
    ("l4_1x1_1024_512", 1024, 512, 1, 1, 14, 1),
    ("l4_3x3_512_s2", 512, 512, 3, 2, 14, 1),
    ("l4_1x1_512_2048", 512, 2048, 1, 1, 7, 3),
    ("l4_ds_1024_2048_s2", 1024, 2048, 1, 2, 14, 1),
    ("l4_1x1_2048_512", 2048, 512, 1, 1, 7, 2),
    ("l4_3x3_512", 512, 512, 3, 1, 7, 2),
]

# MobileNetV2 depthwise 3x3: (C, H_in, stride)
DWCONV = [(32, 112, 1), (96, 112, 2), (144, 56, 1), (144, 56, 2), (192, 28, 1),
          (192, 28, 2), (384, 14, 1), (576, 14, 1), (576, 14, 2), (960, 7, 1)]

# Grouped 3x3 layers: (net, C, H)
GROUPED_LAYERS = [("wrn40_2", 32, 32), ("wrn40_2", 64, 16), ("wrn40_2", 128, 8),
                  ("resnet34", 64, 56), ("resnet34", 128, 28), ("resnet34", 256, 14),
                  ("resnet34", 512, 7)]
GROUPS = [1, 2, 4, 8, 16, "C"]

# conv 3x3 (padding 1, bias) + ReLU + max pool: (name, C_in, C_out, H_in,
# pool K, pool stride, pool padding). The first is the issue's block; VGG's
# pooled layers end in 2x2/2 pools.
CONVPOOL = [("c64_56_pool3s2", 64, 64, 56, 3, 2, 1),
            ("c64_112_pool3s2", 64, 64, 112, 3, 2, 1),
            ("vgg_c128_112_pool2s2", 128, 128, 112, 2, 2, 0),
            ("vgg_c256_56_pool2s2", 256, 256, 56, 2, 2, 0),
            ("vgg_c512_28_pool2s2", 512, 512, 28, 2, 2, 0),
            ("c256_14_pool3s2", 256, 256, 14, 3, 2, 1)]


# Channels per block of DLAS's blocked layout: the target's f32 lanes (set
# in main from --target).
BLOCK = 16


def host_flags():
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("flags"):
                return set(line.split(":", 1)[1].split())
    return set()


def cpu_info():
    """The first CPU's /proc/cpuinfo fields."""
    with open("/proc/cpuinfo") as f:
        first = f.read().split("\n\n")[0]
    return {k.strip(): v.strip() for k, v in
            (line.split(":", 1) for line in first.splitlines() if ":" in line)}


def core_name(info):
    """ ", Zen N" for the AMD cores DLAS has run on: VMs name them all "AMD EPYC",
    and Zen 4 (256-bit datapath) and Zen 5 (512-bit) differ 2x on zmm code."""
    if info.get("vendor_id") != "AuthenticAMD":
        return ""
    family, model = int(info.get("cpu family", 0)), int(info.get("model", 0))
    if family == 26:
        return ", Zen 5"
    if family == 25:
        zen4 = 0x10 <= model <= 0x1F or 0x60 <= model <= 0x7F or model >= 0xA0
        return ", Zen 4" if zen4 else ", Zen 3"
    return f", family {family} model {model}"


def host_description():
    """The host's CPU model and its widest ISA, for the results' headings."""
    info = cpu_info()
    model = info.get("model name", "unknown CPU") + core_name(info)
    flags = host_flags()
    isa = ("AVX-512" + (" + AMX" if "amx_tile" in flags else "")
           + (" + VNNI" if "avx512_vnni" in flags else "")
           + (" + BF16" if "avx512_bf16" in flags else "")) if "avx512f" in flags \
        else "AVX2 + FMA" if "avx2" in flags else "SSE"
    return f"{model} ({isa})"


def target_vector_bits(target, dlas_opt):
    """The vector width DLAS uses for `target` (host: the host's widest)."""
    if target in ("host", "cpu"):
        return 512 if {"avx512f", "avx512bw", "avx512dq", "avx512vl"} <= host_flags() else 256
    proc = subprocess.run([dlas_opt, "--dlas-attach-target=target=" + target],
                          input="module {}\n", capture_output=True, text=True)
    m = re.search(r"vector_bits = ([0-9]+)", proc.stdout)
    if not m:
        sys.exit(f"cannot resolve --target {target}: {proc.stderr.strip()}")
    return int(m.group(1))


def peer_isa_env(vector_bits):
    """Environment that holds the peers to the target's ISA (AVX2 code
    against AVX2 peers on an AVX-512 host)."""
    if vector_bits >= 512 or "avx512f" not in host_flags():
        return {}
    return {"ONEDNN_MAX_CPU_ISA": "AVX2", "DNNL_MAX_CPU_ISA": "AVX2",
            "OPENBLAS_CORETYPE": "Haswell", "ATEN_CPU_CAPABILITY": "avx2"}


class Conv:
    def __init__(self, name, c, f, k, s, h, groups=1, weight=1, suite=""):
        self.name, self.c, self.f, self.k, self.s, self.h = name, c, f, k, s, h
        self.g, self.weight, self.suite, self.p = groups, weight, suite, k // 2
        self.oh = (h + 2 * self.p - k) // s + 1
        # Layers whose groups are whole channel blocks run blocked
        # (dlas-blocked-layout; grouped ones as GSPC on the blocks).
        # (dlas-blocked-layout leaves a group of one output block on a plane
        # over 56x56 (16-channel blocks) or 32x32 (8-channel ones) in NCHW,
        # for the flat GEMM: gspc::maxBlockedOneVectorPlane.)
        one_block_plane = 56 * 56 if BLOCK >= 16 else 32 * 32
        self.blocked = (groups < c and (c // groups) % BLOCK == 0
                        and (f // groups) % BLOCK == 0
                        and not (groups > 1 and f // groups == BLOCK
                                 and self.oh * self.oh > one_block_plane))

    @property
    def flops(self):
        return 2 * self.f * (self.c // self.g) * self.k * self.k * self.oh * self.oh

    def peer_line(self):
        p = self.p
        return (f"conv 1 {self.c} {self.h} {self.h} {self.f} {self.k} {self.k} {self.s} {self.s} "
                f"{p} {p} {p} {p} 1 1 {self.g}")

    def module(self, weights=None):
        """The layer as an nn module; with `weights` (an array) the filter is
        a constant of the module, as in a deployed model, so that DLAS packs
        it at compile time (oneDNN reorders it outside the timed loop)."""
        x, w = f"1x{self.c}x{self.h}x{self.h}", f"{self.f}x{self.c // self.g}x{self.k}x{self.k}"
        y = f"1x{self.f}x{self.oh}x{self.oh}"
        p = self.p
        conv = (f"  %y = nn.conv2d %x, %w {{strides = array<i64: {self.s}, {self.s}>, "
                f"padding = array<i64: {p}, {p}, {p}, {p}>, groups = {self.g} : i64}} : "
                f"(tensor<{x}xf32>, tensor<{w}xf32>) -> tensor<{y}xf32>\n"
                f"  return %y : tensor<{y}xf32>\n}}\n")
        if weights is None:
            return (f"func.func @main(%x: tensor<{x}xf32>, %w: tensor<{w}xf32>) "
                    f"-> tensor<{y}xf32> {{\n" + conv)
        # A dense_resource blob: its alignment (4, little-endian) then the data.
        blob = "0x04000000" + np.ascontiguousarray(weights, dtype="<f4").tobytes().hex()
        return (f"func.func @main(%x: tensor<{x}xf32>) -> tensor<{y}xf32> {{\n"
                f"  %w = arith.constant dense_resource<filter> : tensor<{w}xf32>\n" + conv
                + "{-#\n  dialect_resources: {\n    builtin: {\n"
                f"      filter: \"{blob}\"\n    }}\n  }}\n#-}}\n")

    def tensors(self, rng):
        x = rng.standard_normal((1, self.c, self.h, self.h), dtype=np.float32)
        w = rng.standard_normal((self.f, self.c // self.g, self.k, self.k), dtype=np.float32)
        return [x, w]

    def torch_fn(self, x, w):
        return lambda: F.conv2d(x, w, stride=self.s, padding=self.p, groups=self.g)


class ConvPool(Conv):
    """conv KxK (bias) + ReLU + max pool PKxPK/PS (padding PP): the block
    dlas-blocked-conv-microkernel fuses. oneDNN runs its convolution with a
    ReLU post-op and its pooling primitive on the convolution's blocked
    output (peers.cpp convpool); PyTorch runs the three ops."""

    def __init__(self, name, c, f, h, pk, ps, pp, k=3, s=1):
        super().__init__(name, c, f, k, s, h, suite="convpool")
        self.pk, self.ps, self.pp = pk, ps, pp
        self.ph = (self.oh + 2 * pp - pk) // ps + 1
        self.bias = None

    def peer_line(self):
        return (f"convpool 1 {self.c} {self.h} {self.h} {self.f} {self.k} {self.s} {self.p} "
                f"{self.pk} {self.ps} {self.pp}")

    def module(self, weights=None):
        assert weights is not None, "convpool cases take constant weights"
        x, w = f"1x{self.c}x{self.h}x{self.h}", f"{self.f}x{self.c}x{self.k}x{self.k}"
        y, r = f"1x{self.f}x{self.oh}x{self.oh}", f"1x{self.f}x{self.ph}x{self.ph}"
        p, pp = self.p, self.pp

        def blob(a):
            return "0x04000000" + np.ascontiguousarray(a, dtype="<f4").tobytes().hex()
        return (f"func.func @main(%x: tensor<{x}xf32>) -> tensor<{r}xf32> {{\n"
                f"  %w = arith.constant dense_resource<filter> : tensor<{w}xf32>\n"
                f"  %b = arith.constant dense_resource<bias> : tensor<{self.f}xf32>\n"
                f"  %c = nn.conv2d %x, %w, %b {{strides = array<i64: {self.s}, {self.s}>, "
                f"padding = array<i64: {p}, {p}, {p}, {p}>}} : (tensor<{x}xf32>, "
                f"tensor<{w}xf32>, tensor<{self.f}xf32>) -> tensor<{y}xf32>\n"
                f"  %a = nn.relu %c : tensor<{y}xf32>\n"
                f"  %r = nn.max_pool2d %a {{kernel = array<i64: {self.pk}, {self.pk}>, "
                f"strides = array<i64: {self.ps}, {self.ps}>, "
                f"padding = array<i64: {pp}, {pp}, {pp}, {pp}>}} : (tensor<{y}xf32>) -> tensor<{r}xf32>\n"
                f"  return %r : tensor<{r}xf32>\n}}\n"
                "{-#\n  dialect_resources: {\n    builtin: {\n"
                f"      filter: \"{blob(weights)}\",\n      bias: \"{blob(self.bias)}\"\n"
                "    }\n  }\n#-}\n")

    def tensors(self, rng):
        x, w = super().tensors(rng)
        self.bias = rng.standard_normal(self.f, dtype=np.float32)
        return [x, w]

    def torch_fn(self, x, w):
        b = torch.from_numpy(self.bias)
        return lambda: F.max_pool2d(F.relu(F.conv2d(x, w, b, stride=self.s, padding=self.p)),
                                    self.pk, self.ps, self.pp)


class Gemm:
    def __init__(self, n):
        self.name, self.n, self.weight, self.suite = f"sgemm_{n}", n, 1, "sgemm"

    @property
    def flops(self):
        return 2 * self.n ** 3

    def peer_line(self):
        return f"gemm {self.n} {self.n} {self.n}"

    def module(self, weights=None):
        t = f"tensor<{self.n}x{self.n}xf32>"
        return (f"func.func @main(%a: {t}, %b: {t}) -> {t} {{\n"
                f"  %c = nn.matmul %a, %b : ({t}, {t}) -> {t}\n  return %c : {t}\n}}\n")

    def tensors(self, rng):
        return [rng.standard_normal((self.n, self.n), dtype=np.float32) for _ in range(2)]

    def torch_fn(self, a, b):
        return lambda: torch.mm(a, b)


class Linear(Gemm):
    """A dense layer y = x W with W (K x N) a module constant, as in a
    deployed model (DLAS packs it at compile time; oneDNN's matmul with
    format_tag::any reorders it outside its timed loop)."""

    def __init__(self, name, m, n, k):
        self.name, self.m, self.n, self.k = name, m, n, k
        self.weight, self.suite = 1, "transformer"

    @property
    def flops(self):
        return 2 * self.m * self.n * self.k

    def peer_line(self):
        return f"gemm {self.m} {self.n} {self.k}"

    def module(self, weights=None):
        a, b, c = (f"tensor<{self.m}x{self.k}xf32>", f"tensor<{self.k}x{self.n}xf32>",
                   f"tensor<{self.m}x{self.n}xf32>")
        blob = "0x04000000" + np.ascontiguousarray(weights, dtype="<f4").tobytes().hex()
        return (f"func.func @main(%a: {a}) -> {c} {{\n"
                f"  %b = arith.constant dense_resource<weight> : {b}\n"
                f"  %c = nn.matmul %a, %b : ({a}, {b}) -> {c}\n  return %c : {c}\n}}\n"
                "{-#\n  dialect_resources: {\n    builtin: {\n"
                f"      weight: \"{blob}\"\n    }}\n  }}\n#-}}\n")

    def tensors(self, rng):
        return [rng.standard_normal((self.m, self.k), dtype=np.float32),
                rng.standard_normal((self.k, self.n), dtype=np.float32)]


# The dense layers of transformer encoders, batch 1: ViT-B/16 (197 tokens)
# and BERT-base at 128 tokens (QKV projection, attention output, MLP up and
# down).
TRANSFORMER = [(net, m, n, k) for net, m in (("vitb16", 197), ("bert128", 128))
               for n, k in ((2304, 768), (768, 768), (3072, 768), (768, 3072))]


def cases(suites):
    out = []
    if "sgemm" in suites:
        out += [Gemm(n) for n in (256, 512, 1024, 2048)]
    if "resnet50" in suites:
        out += [Conv(n, c, f, k, s, h, weight=cnt, suite="resnet50")
                for n, c, f, k, s, h, cnt in RESNET50]
    if "dwconv" in suites:
        out += [Conv(f"dw_{c}_{h}_s{s}", c, c, 3, s, h, groups=c, suite="dwconv")
                for c, h, s in DWCONV]
    if "grouped" in suites:
        for net, c, h in GROUPED_LAYERS:
            for g in GROUPS:
                groups = c if g == "C" else g
                out.append(Conv(f"{net}_{c}_{h}_g{g}", c, c, 3, 1, h, groups=groups,
                                suite="grouped"))
    if "transformer" in suites:
        out += [Linear(f"{net}_m{m}_n{n}_k{k}", m, n, k) for net, m, n, k in TRANSFORMER]
    if "convpool" in suites:
        out += [ConvPool(name, c, f, h, pk, ps, pp) for name, c, f, h, pk, ps, pp in CONVPOOL]
    return out


def set_blas_threads(threads):
    """Sizes the thread pool of PyTorch's BLAS. Debian's PyTorch calls
    OpenBLAS (pthreads), whose pool torch.set_num_threads does not touch:
    before this, "1 thread" torch.mm and BLAS-backed 1x1 convolutions ran
    on every core (runs up to 2026-11-24)."""
    try:
        ctypes.CDLL("libopenblas.so.0").openblas_set_num_threads(threads)
    except (OSError, AttributeError):
        pass


def time_torch(fn, threads, warmup=5, repeat=30):
    torch.set_num_threads(threads)
    set_blas_threads(threads)
    with torch.no_grad():
        for _ in range(warmup):
            fn()
        times = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            fn()
            times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def run_peers(peers, lines, threads):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    proc = subprocess.run([peers, "--threads", str(threads)], input="\n".join(lines) + "\n",
                          capture_output=True, text=True, env=env, timeout=3600)
    if proc.returncode != 0:
        sys.exit("peers failed: " + proc.stderr)
    return proc.stdout.split("\n")


def to_blocked(a, block=BLOCK):
    """NCHW -> [N, C/block, H, W, block] (nChw16c)."""
    n, c, h, w = a.shape
    return np.ascontiguousarray(a.reshape(n, c // block, block, h, w).transpose(0, 1, 3, 4, 2))


def run_dlas(dlas_run, case, workdir, threads, budget_s, target, extra=()):
    base = os.path.join(workdir, case.name)
    with open(base + ".mlir", "w") as f:
        f.write(case.module(case.constant_weights))
    # A layer that runs blocked in a whole model is timed blocked in and out,
    # as oneDNN's format_tag::any layer is: the model converts only at its
    # edges (dlas-blocked-layout), not around every layer.
    blocked = (getattr(case, "blocked", False) and case.constant_weights is not None
               and case.c % BLOCK == 0 and case.f % BLOCK == 0)
    suffix = ".blocked" if blocked else ""
    if blocked:
        np.save(base + ".blocked.in0.npy", to_blocked(np.load(base + ".in0.npy"), BLOCK))
        np.save(base + ".blocked.expected.npy",
                to_blocked(np.load(base + ".expected.npy"), BLOCK))
    args = [dlas_run, base + ".mlir", "--expect", base + suffix + ".expected.npy",
            "--rtol", "1e-3", "--atol", "1e-3", "--num-threads", str(threads),
            "--target", target] + list(extra)
    if blocked:
        args.append("--blocked-entry")
    for i in range(1 if case.constant_weights is not None else case.inputs):
        args += ["--input", f"{base}{suffix}.in{i}.npy"]
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    probe = subprocess.run(args + ["--repeat", "1"], capture_output=True, text=True,
                           env=env, timeout=3600)
    t = re.search(r"median ([0-9.]+) ms", probe.stdout)
    ok = probe.returncode == 0 and "PASS" in probe.stdout
    if not t:
        return None, 0, False, probe.stdout + probe.stderr
    one = float(t.group(1))
    repeat = int(min(30, max(1, budget_s * 1e3 / max(one, 1e-3))))
    if repeat <= 1:
        return one, 1, ok, probe.stdout
    # Warm-up by time, not count: at 2 threads the first ~30 calls of a
    # process ran 10-30x slower (0.6 ms instead of 0.05 ms for a small
    # grouped layer; 30 timed runs after 3 warm-ups measured that start-up,
    # 300 did not): about 0.3 s of calls first.
    warmup = int(min(2000, max(3, 300 / max(one, 1e-3))))
    proc = subprocess.run(args + ["--warmup", str(warmup), "--repeat", str(repeat)],
                          capture_output=True, text=True, env=env, timeout=3600)
    t = re.search(r"median ([0-9.]+) ms", proc.stdout)
    ok = ok and proc.returncode == 0 and "PASS" in proc.stdout
    return (float(t.group(1)) if t else None), repeat, ok, proc.stdout + proc.stderr


def chart(rows, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    threads = sorted({r["threads"] for r in rows})
    names = [r["case"] for r in rows if r["threads"] == threads[0]]
    fig, ax = plt.subplots(figsize=(max(8, len(names) * 0.28), 5))
    width = 0.8 / len(threads)
    for i, t in enumerate(threads):
        ratios = [r["dlas/onednn"] or 0 for r in rows if r["threads"] == t]
        ax.bar([x + i * width for x in range(len(names))], ratios, width,
               label=f"{t} thread(s)")
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_yscale("log")
    ax.set_ylabel("DLAS time / oneDNN time (log; < 1 is faster)")
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels(names, rotation=90, fontsize=6)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--suites", default="sgemm,resnet50,dwconv,grouped")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--dlas-run", default="build/bin/dlas-run")
    parser.add_argument("--peers", default="build/bench/peers")
    parser.add_argument("--workdir", default="build/bench/work")
    parser.add_argument("--out", default=os.path.join(HERE, "results"))
    parser.add_argument("--tag", default=datetime.date.today().isoformat())
    parser.add_argument("--weights", choices=["constant", "input"], default="constant",
                        help="convolution filters as module constants (packed at compile "
                             "time, like oneDNN's reorder outside the timed loop) or as "
                             "run-time inputs (packed on every call)")
    parser.add_argument("--rounds", type=int, default=2,
                        help="back-to-back rounds per case (best median of each)")
    parser.add_argument("--dlas-budget", type=float, default=4.0,
                        help="seconds of timed DLAS runs per case")
    parser.add_argument("--target", default="host",
                        help="CPU DLAS compiles for (host, x86-64-v3, x86-64-v4, an LLVM "
                             "CPU name); the host must run it")
    parser.add_argument("--dlas-args", default="",
                        help="extra dlas-run arguments, e.g. '--gspc=never' to time "
                             "grouped convolutions without GSPC")
    parser.add_argument("--dlas-opt", default=None,
                        help="dlas-opt, to resolve --target (default: beside dlas-run)")
    args = parser.parse_args()
    global BLOCK
    dlas_opt = args.dlas_opt or os.path.join(os.path.dirname(args.dlas_run), "dlas-opt")
    vector_bits = target_vector_bits(args.target, dlas_opt)
    BLOCK = vector_bits // 32
    isa_env = peer_isa_env(vector_bits)
    # The peers' ISA limits must be in the environment before PyTorch and
    # OpenBLAS load: run the harness again with them.
    if isa_env and os.environ.get("DLAS_BENCH_ISA_ENV") != "1":
        env = dict(os.environ, DLAS_BENCH_ISA_ENV="1", **isa_env)
        os.execve(sys.executable, [sys.executable] + sys.argv, env)
    host = host_description()
    print(f"== host {host}; target {args.target} ({vector_bits}-bit vectors)"
          + (f"; peers held to AVX2 ({', '.join(f'{k}={v}' for k, v in isa_env.items())})"
             if isa_env else ""), flush=True)
    os.makedirs(args.workdir, exist_ok=True)
    os.makedirs(args.out, exist_ok=True)
    selected = cases(args.suites.split(","))
    # Without the fusion the pool has no blocked form: the block stays NCHW.
    if "--fuse-pools=false" in args.dlas_args.split():
        for c in selected:
            if isinstance(c, ConvPool):
                c.blocked = False
    rng = np.random.default_rng(0)
    for c in selected:
        tensors = c.tensors(rng)
        c.inputs = len(tensors)
        c.constant_weights = (tensors[1] if (isinstance(c, Linear) or isinstance(c, Conv)
                                             and args.weights == "constant") else None)
        for i, x in enumerate(tensors):
            np.save(os.path.join(args.workdir, f"{c.name}.in{i}.npy"), x)
        with torch.no_grad():
            y = c.torch_fn(*[torch.from_numpy(x) for x in tensors])()
        np.save(os.path.join(args.workdir, f"{c.name}.expected.npy"), y.numpy())
        c.torch_inputs = [torch.from_numpy(x) for x in tensors]

    rows = []
    for threads in [int(t) for t in args.threads.split(",")]:
        peak_line = f"peak {min(vector_bits, 512)}"
        peak = float(run_peers(args.peers, [peak_line], threads)[0].split()[1])
        print(f"== {threads} thread(s): measured fp32 FMA peak {peak:.0f} GFLOP/s", flush=True)
        for c in selected:
            # The peers and DLAS back to back per case, `rounds` times; each
            # reports the best of its per-round medians (this VM's speed
            # drifts over minutes, which a single far-apart pair would turn
            # into a wrong ratio).
            peers, torch_ms, dlas_ms, runs, ok, log = {}, None, None, 0, True, ""
            for _ in range(args.rounds):
                for line in run_peers(args.peers, [c.peer_line()], threads):
                    if line.strip():
                        lib, med, *_ = line.split()
                        peers[lib] = min(peers.get(lib, float("inf")), float(med))
                t = time_torch(c.torch_fn(*c.torch_inputs), threads)
                torch_ms = t if torch_ms is None else min(torch_ms, t)
                d, runs, round_ok, round_log = run_dlas(args.dlas_run, c, args.workdir,
                                                        threads, args.dlas_budget, args.target,
                                                        args.dlas_args.split())
                ok = ok and round_ok
                log += round_log
                if d is not None:
                    dlas_ms = d if dlas_ms is None else min(dlas_ms, d)
            row = {"suite": c.suite, "case": c.name, "threads": threads,
                   "weight": c.weight, "gflop": c.flops / 1e9,
                   "dlas_ms": dlas_ms, "dlas_runs": runs, "dlas_check": "ok" if ok else "FAIL",
                   "onednn_ms": peers["onednn"], "torch_ms": torch_ms,
                   "openblas_ms": peers.get("openblas"), "peak_gflops": peak,
                   "onednn_conv_ms": peers.get("onednn_conv")}
            row["dlas_gflops"] = c.flops / dlas_ms / 1e6 if dlas_ms else None
            row["dlas_%peak"] = 100 * row["dlas_gflops"] / peak if dlas_ms else None
            row["dlas/onednn"] = dlas_ms / peers["onednn"] if dlas_ms else None
            row["dlas/torch"] = dlas_ms / torch_ms if dlas_ms else None
            rows.append(row)
            print(f"{c.name:<22} t={threads} dlas {dlas_ms or 0:9.3f} ms ({runs} runs, {row['dlas_check']}) "
                  f"onednn {peers['onednn']:8.3f} torch {torch_ms:8.3f}"
                  + (f" openblas {peers['openblas']:8.3f}" if "openblas" in peers else "")
                  + (f"  dlas {row['dlas_gflops']:.1f} GFLOP/s = {row['dlas_%peak']:.1f}% peak"
                     if dlas_ms else ""), flush=True)
            if not ok:
                print(log)
        # Measured again after the cases, keeping the higher: a steal
        # episode on this VM during the first measurement once halved the
        # two-thread peak and put DLAS above 100%.
        after = float(run_peers(args.peers, [peak_line], threads)[0].split()[1])
        if after > peak:
            print(f"== {threads} thread(s): peak re-measured {after:.0f} GFLOP/s", flush=True)
            for row in rows:
                if row["threads"] == threads:
                    row["peak_gflops"] = after
                    if row["dlas_gflops"]:
                        row["dlas_%peak"] = 100 * row["dlas_gflops"] / after

    base = os.path.join(args.out, args.tag)
    with open(base + ".csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        writer.writeheader()
        writer.writerows(rows)
    with open(base + ".md", "w") as f:
        f.write(f"# DLAS benchmark {args.tag}\n\n`bench/run_bench.py --suites {args.suites} "
                f"--threads {args.threads} --target {args.target}`.\n\n"
                f"- host: {host}\n- target: {args.target} ({vector_bits}-bit vectors, "
                f"{BLOCK}-channel blocks); FMA peak measured with {min(vector_bits, 512)}-bit FMAs\n"
                f"- peers: {'held to AVX2: ' + ', '.join(f'{k}={v}' for k, v in isa_env.items()) if isa_env else 'the host ISA'}\n\n"
                f"Medians in ms (best of {args.rounds} back-to-back rounds per case, DLAS and "
                "peers alike); ratio < 1 means DLAS is faster. Every DLAS result checked "
                "against PyTorch in the same run. Convolution filters: "
                f"{'module constants, packed by DLAS at compile time (oneDNN reorders them outside its timed loop)' if args.weights == 'constant' else 'run-time inputs'}.\n\n")
        for threads in sorted({r["threads"] for r in rows}):
            sel = [r for r in rows if r["threads"] == threads]
            f.write(f"\n## {threads} thread(s), measured fp32 FMA peak "
                    f"{sel[0]['peak_gflops']:.0f} GFLOP/s\n\n")
            f.write("| suite | case | GFLOP | DLAS ms (runs) | GFLOP/s | % peak | oneDNN ms | "
                    "PyTorch ms | OpenBLAS ms | DLAS/oneDNN | DLAS/PyTorch | check |\n"
                    "|---|---|---|---|---|---|---|---|---|---|---|---|\n")
            for r in sel:
                fmt = lambda v, p=3: "-" if v is None else f"{v:.{p}f}"
                # Times below 0.1 ms to 0.1 us (the layers of a few us).
                ms = lambda v: fmt(v, 4 if v is not None and v < 0.1 else 3)
                f.write(f"| {r['suite']} | {r['case']} | {r['gflop']:.3f} | {ms(r['dlas_ms'])} "
                        f"({r['dlas_runs']}) | {fmt(r['dlas_gflops'], 1)} | {fmt(r['dlas_%peak'], 1)} | "
                        f"{ms(r['onednn_ms'])} | {ms(r['torch_ms'])} | {ms(r['openblas_ms'])} | "
                        f"{fmt(r['dlas/onednn'], 2)} | {fmt(r['dlas/torch'], 2)} | {r['dlas_check']} |\n")
            for suite in sorted({r["suite"] for r in sel}):
                s = [r for r in sel if r["suite"] == suite and r["dlas_ms"]]
                if not s:
                    continue
                dlas = sum(r["dlas_ms"] * r["weight"] for r in s)
                dnn = sum(r["onednn_ms"] * r["weight"] for r in s)
                f.write(f"\n{suite}: weighted total DLAS {dlas:.2f} ms, oneDNN {dnn:.2f} ms, "
                        f"ratio {dlas / dnn:.2f}\n")
    chart(rows, base + ".png")
    print(f"wrote {base}.md, .csv, .png")
    failing = sum(r["dlas_check"] != "ok" for r in rows)
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
