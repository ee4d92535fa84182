#!/usr/bin/env python3
"""Runs a GPU library from `dlas-compile --target=cuda:sm_NN -o libm.so`.

Needs only the GPU driver, Python 3 and numpy: no MLIR, no CUDA toolkit.
The library's manifest (libm.json, written beside it) names the entry and
its tensors; inputs are .npy files (or seeded random values), results are
compared with expected .npy files and written out on request.

    run_gpu_model.py libm.so --input x.npy --expect y.npy --repeat 20
"""
import argparse
import ctypes
import json
import os
import sys
import time

import numpy as np


def descriptor_type(rank):
    """The MLIR C interface's ranked memref descriptor."""
    fields = [("allocated", ctypes.c_void_p), ("aligned", ctypes.c_void_p),
              ("offset", ctypes.c_int64)]
    if rank:
        fields += [("sizes", ctypes.c_int64 * rank),
                   ("strides", ctypes.c_int64 * rank)]
    return type(f"MemRef{rank}", (ctypes.Structure,), {"_fields_": fields})


def describe(array):
    desc = descriptor_type(array.ndim)()
    desc.allocated = desc.aligned = array.ctypes.data
    desc.offset = 0
    for d in range(array.ndim):
        desc.sizes[d] = array.shape[d]
        desc.strides[d] = array.strides[d] // array.itemsize
    return desc


def to_array(desc, spec):
    """Copies a result descriptor's elements into a new numpy array (its
    sizes from the descriptor: the manifest has null for a dynamic one)."""
    dtype = np.dtype(spec["dtype"])
    rank = len(spec["shape"])
    shape = tuple(desc.sizes[d] for d in range(rank))
    count = int(np.prod(shape)) if shape else 1
    strides = [desc.strides[d] for d in range(rank)]
    span = (sum((s - 1) * st for s, st in zip(shape, strides)) + 1) if count else 0
    base = desc.aligned + desc.offset * dtype.itemsize
    flat = np.ctypeslib.as_array(
        ctypes.cast(base, ctypes.POINTER(ctypes.c_byte)),
        shape=(max(span, 1) * dtype.itemsize,)).view(dtype)
    view = np.lib.stride_tricks.as_strided(
        flat, shape=shape, strides=[st * dtype.itemsize for st in strides])
    return np.array(view, copy=True)


def print_profile(library, run, top, runs=5):
    """`runs` more runs with every launch bracketed by events (kept apart
    from the timed ones): each kernel's median, the slowest `top` of them,
    and their sum."""
    library.dlasGpuProfile(1)
    for _ in range(runs):
        run()
        library.dlasGpuProfileFlush()
    library.dlasGpuProfile(0)
    library.dlasGpuProfileLabel.restype = ctypes.c_char_p
    library.dlasGpuProfileSample.restype = ctypes.c_double
    library.dlasGpuProfileSample.argtypes = [ctypes.c_int, ctypes.c_int]
    kernels = library.dlasGpuProfileKernels()
    rows = []
    for k in range(kernels):
        samples = sorted(library.dlasGpuProfileSample(k, i)
                         for i in range(library.dlasGpuProfileSamples(k)))
        if samples:
            rows.append((samples[len(samples) // 2], library.dlasGpuProfileLabel(k).decode()))
    total = sum(t for t, _ in rows)
    print(f"profile: {len(rows)} kernels, sum of medians {total:.3f} ms")
    for t, label in sorted(rows, reverse=True)[:top]:
        print(f"  {t:8.3f} ms {100 * t / total if total else 0:5.1f}%  {label}")


def compare(actual, expected, args):
    """As dlas-run compares: a non-finite value matches only itself (NaN
    matches NaN; inf - inf is no error, inf against a number an infinite
    one); finite values by --rtol/--atol, or by --max-rel-err. Returns
    (passed, max abs error, max |finite expected|)."""
    import numpy as np
    if actual.shape != expected.shape:
        return False, float("inf"), 0.0
    a, b = actual.astype(np.float64), expected.astype(np.float64)
    finite = np.isfinite(a) & np.isfinite(b)
    same = (np.isnan(a) & np.isnan(b)) | (a == b)
    with np.errstate(invalid="ignore"):  # inf - inf where `finite` is false
        diff = np.where(finite, np.abs(a - b), np.where(same, 0.0, np.inf))
    err = float(diff.max()) if diff.size else 0.0
    scale = float(np.abs(b[np.isfinite(b)]).max()) if np.isfinite(b).any() else 0.0
    if args.max_rel_err is not None:
        return err <= args.max_rel_err * scale, err, scale
    return bool(np.all(diff <= args.atol + args.rtol * np.abs(np.where(finite, b, 0)))), err, scale


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("library")
    parser.add_argument("--manifest", help="default: the library's path with .json")
    parser.add_argument("--input", action="append", default=[])
    parser.add_argument("--expect", action="append", default=[])
    parser.add_argument("--output-dir")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rtol", type=float, default=1e-3)
    parser.add_argument("--atol", type=float, default=1e-4)
    parser.add_argument("--max-rel-err", type=float, default=None, metavar="R",
                        help="judge by max |out - expected| <= R * max |expected| instead "
                             "of --rtol/--atol (for libraries computing in bf16/fp16/tf32 "
                             "against an f32 answer)")
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=0)
    parser.add_argument("--profile", type=int, default=0, metavar="N",
                        help="time every kernel of the timed runs (CUDA/HIP events) and "
                             "print the N slowest kernels' medians")
    args = parser.parse_args()

    manifest_path = args.manifest or os.path.splitext(args.library)[0] + ".json"
    with open(manifest_path) as f:
        manifest = json.load(f)
    library = ctypes.CDLL(os.path.abspath(args.library))
    library.dlasGpuLastError.restype = ctypes.c_char_p
    if library.dlasGpuInit() != 0:
        sys.exit(f"GPU: {library.dlasGpuLastError().decode()}")

    specs = manifest["inputs"]
    if args.input and len(args.input) != len(specs):
        sys.exit(f"the entry takes {len(specs)} inputs, got {len(args.input)}")
    rng = np.random.default_rng(args.seed)
    inputs = []
    for i, spec in enumerate(specs):
        if args.input:
            array = np.load(args.input[i])
            fits = array.ndim == len(spec["shape"]) and all(
                want is None or want == got for want, got in zip(spec["shape"], array.shape))
            if not fits or array.dtype != np.dtype(spec["dtype"]):
                sys.exit(f"input {i}: {args.input[i]} is {array.dtype}{list(array.shape)}, "
                         f"the entry takes {spec['dtype']}{spec['shape']}")
        elif None in spec["shape"]:
            sys.exit(f"input {i} has a dynamic size ({spec['shape']}, null: any): "
                     f"give it as --input x.npy")
        else:
            array = rng.standard_normal(spec["shape"]).astype(spec["dtype"])
        inputs.append(np.ascontiguousarray(array))

    results = manifest["results"]
    result_types = [descriptor_type(len(r["shape"])) for r in results]
    if len(results) == 1:
        out = result_types[0]()
    else:
        out = type("Results", (ctypes.Structure,),
                   {"_fields_": [(f"r{i}", t) for i, t in enumerate(result_types)]})()
    in_descs = [describe(a) for a in inputs]
    entry = getattr(library, manifest["entry"])
    entry.restype = None
    libc = ctypes.CDLL(None)

    def run():
        args_ = ([ctypes.byref(out)] if results else []) + [ctypes.byref(d) for d in in_descs]
        entry(*args_)
        error = library.dlasGpuLastError()
        if error:
            sys.exit(f"GPU: {error.decode()}")
        descs = [out] if len(results) == 1 else [getattr(out, f"r{i}") for i in range(len(results))]
        arrays = [to_array(d, r) for d, r in zip(descs, results)]
        freed = set()
        for d in descs:
            if d.allocated and d.allocated not in freed and d.allocated != 0xdeadbeef:
                freed.add(d.allocated)
                libc.free(ctypes.c_void_p(d.allocated))
        return arrays

    for _ in range(args.warmup):
        run()
    times = []
    arrays = None
    for _ in range(max(1, args.repeat)):
        start = time.perf_counter()
        arrays = run()
        times.append((time.perf_counter() - start) * 1e3)
    if args.profile:
        print_profile(library, run, args.profile)
    ok = True
    for i, array in enumerate(arrays):
        print(f"output #{i}: shape {list(array.shape)} {array.dtype}, checksum sum "
              f"{float(array.sum()):.6e}")
        if args.output_dir:
            os.makedirs(args.output_dir, exist_ok=True)
            np.save(os.path.join(args.output_dir, f"output{i}.npy"), array)
        if i < len(args.expect):
            passed, err, scale = compare(array, np.load(args.expect[i]), args)
            ok &= passed
            rel = err / scale if scale else err
            print(f"output #{i}: {'PASS' if passed else 'FAIL'} (max abs err {err:.3e}, "
                  f"max rel err {rel:.3e} to max |expected| {scale:.3e})")
    if args.repeat:
        times.sort()
        print(f"time: median {times[len(times) // 2]:.3f} ms, min {times[0]:.3f} ms "
              f"over {len(times)} runs (end to end, copies included)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
