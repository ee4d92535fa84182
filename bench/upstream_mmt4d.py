#!/usr/bin/env python3
"""DLAS's GEMM microkernel against upstream MLIR's data-tiled path.

Issue 12 asks to reuse upstream MLIR where it measures as fast. This runs
sgemm (C = A B, both operands run-time arguments, as in `make bench`) two
ways through the same dlas-run, on seeded inputs, one thread:

* DLAS: `nn.matmul` through the CPU pipeline (`dlas-gemm-microkernel`:
  packed panels, cache blocking, a register tile from the target's cost
  model);
* upstream: `linalg.pack` of A and B into M0 x 1 and N0 x 1 tiles,
  `linalg.mmt4d`, `linalg.unpack`, scheduled with the transform dialect as
  upstream's own test does (mlir/test/Dialect/Linalg/
  transform-op-mmt4d-to-fma.mlir: tile to one M0 x N0 tile and K0 = 1,
  vectorize, hoist the accumulator out of the K loop, lower the
  vector.contract to outer products, i.e. M0 broadcast-FMAs of N0 lanes),
  then the rest of DLAS's CPU pipeline (bufferization, LLVM).

Both compute the same values (the checksums are compared); the table gives
the median times and their ratio.

    bench/upstream_mmt4d.py --target x86-64-v3 --tiles 8x8,6x16 --sizes 1024
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

TIME = re.compile(r"median ([0-9.]+) ms")
CHECKSUM = re.compile(r"checksum sum ([-0-9.e+]+)")


def matmul_module(n):
    t = f"tensor<{n}x{n}xf32>"
    return (f"func.func @main(%a: {t}, %b: {t}) -> {t} {{\n"
            f"  %c = nn.matmul %a, %b : ({t}, {t}) -> {t}\n  return %c : {t}\n}}\n")


def mmt4d_module(n, m0, n0):
    t = f"tensor<{n}x{n}xf32>"
    pa = f"tensor<{n // m0}x{n}x{m0}x1xf32>"
    pb = f"tensor<{n // n0}x{n}x{n0}x1xf32>"
    pc = f"tensor<{n // m0}x{n // n0}x{m0}x{n0}xf32>"
    return f"""func.func @main(%a: {t}, %b: {t}) -> {t} {{
  %ea = tensor.empty() : {pa}
  %pa = linalg.pack %a inner_dims_pos = [0, 1] inner_tiles = [{m0}, 1] into %ea : {t} -> {pa}
  %eb = tensor.empty() : {pb}
  %pb = linalg.pack %b outer_dims_perm = [1, 0] inner_dims_pos = [1, 0] inner_tiles = [{n0}, 1] into %eb : {t} -> {pb}
  %ec = tensor.empty() : {pc}
  %zero = arith.constant 0.0 : f32
  %c0 = linalg.fill ins(%zero : f32) outs(%ec : {pc}) -> {pc}
  %pc = linalg.mmt4d ins(%pa, %pb : {pa}, {pb}) outs(%c0 : {pc}) -> {pc}
  %e = tensor.empty() : {t}
  %c = linalg.unpack %pc inner_dims_pos = [0, 1] inner_tiles = [{m0}, {n0}] into %e : {pc} -> {t}
  return %c : {t}
}}
"""


SCHEDULE = """module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%module: !transform.any_op {transform.readonly}) {
    %func = transform.structured.match ops{["func.func"]} in %module : (!transform.any_op) -> !transform.op<"func.func">
    %mmt4d = transform.structured.match ops{["linalg.mmt4d"]} in %func : (!transform.op<"func.func">) -> !transform.any_op
    %tp, %loops:4 = transform.structured.tile_using_for %mmt4d tile_sizes [1, 1, 0, M0, N0, 0]
      : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    %tr, %loops2:2 = transform.structured.tile_using_for %tp tile_sizes [0, 0, 1, 0, 0, 1]
      : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.structured.vectorize %tr : !transform.any_op
    transform.apply_patterns to %func {
      transform.apply_patterns.vector.reduction_to_contract
      transform.apply_patterns.vector.transfer_permutation_patterns
    } : !transform.op<"func.func">
    %func_h = transform.structured.hoist_redundant_vector_transfers %func : (!transform.op<"func.func">) -> !transform.op<"func.func">
    %all_loops = transform.structured.match interface{LoopLikeInterface} in %func_h : (!transform.op<"func.func">) -> !transform.any_op
    transform.apply_licm to %all_loops : !transform.any_op
    transform.loop.hoist_loop_invariant_subsets %all_loops : !transform.any_op
    transform.apply_patterns to %func_h {
      transform.apply_patterns.vector.reduction_to_contract
      transform.apply_patterns.vector.cast_away_vector_leading_one_dim
      transform.apply_patterns.canonicalization
    } : !transform.op<"func.func">
    transform.apply_patterns to %func_h {
      transform.apply_patterns.vector.lower_contraction lowering_strategy = "outerproduct"
      transform.apply_patterns.vector.lower_outerproduct
    } : !transform.op<"func.func">
    transform.apply_patterns to %func_h {
      transform.apply_patterns.vector.lower_transpose
      transform.apply_patterns.vector.lower_broadcast
      transform.apply_patterns.vector.lower_shape_cast
    } : !transform.op<"func.func">
    %packs = transform.structured.match ops{["linalg.pack"]} in %func_h : (!transform.op<"func.func">) -> !transform.op<"linalg.pack">
    transform.foreach %packs : !transform.op<"linalg.pack"> {
    ^bb0(%p: !transform.op<"linalg.pack">):
      transform.structured.lower_pack %p : (!transform.op<"linalg.pack">) -> (!transform.op<"tensor.pad">, !transform.op<"tensor.expand_shape">, !transform.op<"linalg.transpose">)
    }
    %unpacks = transform.structured.match ops{["linalg.unpack"]} in %func_h : (!transform.op<"func.func">) -> !transform.op<"linalg.unpack">
    transform.structured.lower_unpack %unpacks : (!transform.op<"linalg.unpack">) -> (!transform.op<"tensor.empty">, !transform.op<"linalg.transpose">, !transform.op<"tensor.collapse_shape">, !transform.op<"tensor.extract_slice">)
    transform.yield
  }
}
"""


def run(dlas_run, path, target, repeat):
    out = subprocess.run([dlas_run, path, "--target", target, "--random-inputs",
                          "--repeat", str(repeat), "--warmup", "2",
                          "--num-threads", "1"],
                         capture_output=True, text=True, timeout=600)
    time, checksum = TIME.search(out.stdout), CHECKSUM.search(out.stdout)
    if out.returncode != 0 or not time or not checksum:
        sys.exit(f"dlas-run failed on {path}: {out.stderr or out.stdout}")
    return float(time.group(1)), checksum.group(1)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", default="build/bin")
    parser.add_argument("--target", default="x86-64-v3")
    parser.add_argument("--tiles", default="8x8,6x16",
                        help="mmt4d inner tiles M0xN0, comma-separated")
    parser.add_argument("--sizes", default="1024")
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=2,
                        help="interleaved rounds; the best median is kept")
    args = parser.parse_args()
    dlas_opt = os.path.join(args.bin, "dlas-opt")
    dlas_run = os.path.join(args.bin, "dlas-run")
    tiles = [tuple(int(x) for x in t.split("x")) for t in args.tiles.split(",")]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in (int(s) for s in args.sizes.split(",")):
            paths = {}
            paths["DLAS microkernel"] = os.path.join(tmp, f"matmul{n}.mlir")
            with open(paths["DLAS microkernel"], "w") as f:
                f.write(matmul_module(n))
            for m0, n0 in tiles:
                if n % m0 or n % n0:
                    sys.exit(f"size {n} is not a multiple of the tile {m0}x{n0}")
                src = os.path.join(tmp, f"mmt4d{n}_{m0}x{n0}.mlir")
                sched = os.path.join(tmp, f"sched_{m0}x{n0}.mlir")
                out = os.path.join(tmp, f"mmt4d{n}_{m0}x{n0}.sched.mlir")
                with open(src, "w") as f:
                    f.write(mmt4d_module(n, m0, n0))
                with open(sched, "w") as f:
                    f.write(SCHEDULE.replace("M0", str(m0)).replace("N0", str(n0)))
                subprocess.run([dlas_opt, src,
                                f"--transform-preload-library=transform-library-paths={sched}",
                                "--transform-interpreter",
                                "--convert-vector-to-scf=lower-tensors=true full-unroll=true",
                                "--canonicalize", "-o", out], check=True)
                paths[f"upstream mmt4d {m0}x{n0}x1"] = out
            best = {}
            for _ in range(args.rounds):
                for name, path in paths.items():
                    time, checksum = run(dlas_run, path, args.target, args.repeat)
                    best[name] = min(best.get(name, (time, checksum)), (time, checksum))
            checksums = {c for _, c in best.values()}
            if len(checksums) != 1:
                sys.exit(f"sgemm {n}: the variants disagree: {best}")
            base = best["DLAS microkernel"][0]
            for name, (time, _) in best.items():
                rows.append((n, name, time, time / base))
    print(f"sgemm, target {args.target}, 1 thread, median of {args.repeat} runs, "
          f"best of {args.rounds} interleaved rounds")
    print("| n | kernel | ms | vs DLAS |\n|---|---|---|---|")
    for n, name, time, ratio in rows:
        print(f"| {n} | {name} | {time:.2f} | {ratio:.2f}x |")


if __name__ == "__main__":
    main()
