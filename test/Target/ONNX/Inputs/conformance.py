#!/usr/bin/env python3
"""ONNX's backend node conformance cases through dlas-run.

Generates every node test case of Debian's python3-onnx
(`onnx.backend.test.case.node.collect_testcases`) into a work directory
(model.onnx, inputs and expected outputs as .npy), runs

    dlas-run model.onnx --input in0.npy ... --expect out0.npy ...
             --rtol RTOL --atol ATOL

with the case's own tolerances, and sorts each case into

* pass: the outputs agree;
* wrong: dlas-run ran and the outputs disagree (a silent wrong answer
  would be this: it is never acceptable);
* crash: dlas-run died on a signal or ran out of time or memory;
* refused: dlas-run exited with a diagnostic (an unsupported op, attribute
  or element type, named in the message).

Inputs that ONNX allows at run time but that fix shapes (Reshape's shape,
Slice's starts/ends/axes/steps, ...; SHAPE_INPUTS below) are turned into
initializers first: DLAS compiles for static shapes. The table says which
cases that touched.

    conformance.py run --dlas-run build/bin/dlas-run --work build/conformance \\
        --json results.json --markdown docs/ONNXConformance.md
    conformance.py check results.json --supported-ops ops.md --baseline B

`check` fails when a case of a supported op crashes or gives a wrong
answer, or when a case that the committed baseline passes no longer does.
"""
import argparse
import collections
import concurrent.futures
import json
import os
import re
import resource
import subprocess
import sys
import warnings

# Node inputs (by index) that fix shapes or are attributes in all but name;
# a graph input feeding one becomes an initializer.
SHAPE_INPUTS = {
    "Reshape": [1], "Pad": [1, 2], "Clip": [1, 2],
    "Slice": [1, 2, 3, 4], "Resize": [1, 2, 3], "Upsample": [1],
    "Tile": [1], "Split": [1], "TopK": [1], "Expand": [1],
    "Squeeze": [1], "Unsqueeze": [1], "ConstantOfShape": [0],
    "OneHot": [1], "CumSum": [1], "Range": [0, 1, 2],
    "ReduceSum": [1], "ReduceMean": [1], "ReduceMax": [1], "ReduceMin": [1],
    "ReduceProd": [1], "ReduceL1": [1], "ReduceL2": [1],
    "ReduceLogSum": [1], "ReduceLogSumExp": [1], "ReduceSumSquare": [1],
    # Quantization parameters (scales and zero points; for the integer
    # convolutions and matmuls also the weight and bias): DLAS takes them
    # at import time, as a deployed quantized model has them.
    "QuantizeLinear": [1, 2], "DequantizeLinear": [1, 2],
    "QLinearConv": [1, 2, 3, 4, 5, 6, 7, 8], "QLinearMatMul": [1, 2, 3, 4, 5, 6, 7],
    "ConvInteger": [1, 2, 3], "MatMulInteger": [1, 2, 3],
    # Dropout's ratio and training mode: DLAS runs inference and takes them
    # at import time (training with ratio 0 is the identity too).
    "Dropout": [1, 2],
}


# Cases whose reference answer DLAS deliberately does not reproduce; a
# disagreement there is reported as *differs*, with the reason, not as
# wrong. Any other disagreement is a defect.
KNOWN_DIFFERENCES = {
    "test_cast_FLOAT_to_BFLOAT16":
        "ONNX 1.12's reference truncates f32 to bfloat16; DLAS rounds to "
        "nearest even, as PyTorch and ONNX's later references do",
}


def load_cases():
    """ONNX's node cases. Debian's onnx 1.12 still uses numpy aliases that
    numpy 1.24 removed (np.float, ...): restore them for the generators."""
    import numpy as np
    warnings.simplefilter("ignore")
    for name, alias in [("float", float), ("int", int), ("bool", bool),
                        ("object", object), ("complex", complex)]:
        if not hasattr(np, name):
            setattr(np, name, alias)
    from onnx.backend.test.case import node
    return node.collect_testcases(None)


def op_key(model):
    ops = sorted({n.op_type for n in model.graph.node})
    return ops[0] if len(ops) == 1 else "+".join(ops)


def freeze_shape_inputs(model, inputs):
    """Moves graph inputs that feed SHAPE_INPUTS into initializers; returns
    the remaining inputs' values and the names frozen."""
    from onnx import numpy_helper
    graph_inputs = [i.name for i in model.graph.input]
    values = dict(zip(graph_inputs, inputs))
    frozen = []
    for node in model.graph.node:
        for index in SHAPE_INPUTS.get(node.op_type, []):
            if index < len(node.input) and node.input[index] in values \
                    and node.input[index] not in frozen:
                frozen.append(node.input[index])
    for name in frozen:
        model.graph.initializer.append(numpy_helper.from_array(values[name], name))
    kept = [i for i in model.graph.input if i.name not in frozen]
    del model.graph.input[:]
    model.graph.input.extend(kept)
    return [values[i.name] for i in kept], frozen


def memory_limiter(gigabytes):
    """An address-space limit for each dlas-run (0: none; an ASan build
    reserves terabytes of shadow and has its own RSS limit instead)."""
    if not gigabytes:
        return None
    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (gigabytes << 30, gigabytes << 30))
    return limit


def run_case(case, work, dlas_run, timeout, address_space_gb=4, index=0):
    import numpy as np
    import onnx
    # Numbered: two of ONNX's cases share a name (test_resize_tf_crop_and_resize,
    # test_reduce_sum_negative_axes_keepdims_random), and run in parallel
    # they overwrote each other's files (a wrong answer, now and then).
    directory = os.path.join(work, f"{index:04d}-{case.name}")
    os.makedirs(directory, exist_ok=True)
    model = onnx.ModelProto()
    model.CopyFrom(case.model)
    inputs, outputs = case.data_sets[0]
    # A 0-d tensor may come as a numpy scalar (QuantizeLinear's zero point).
    def as_array(v):
        return np.asarray(v) if isinstance(v, np.generic) else v
    inputs = [as_array(v) for v in inputs]
    outputs = [as_array(v) for v in outputs]
    inputs, frozen = freeze_shape_inputs(model, list(inputs))
    result = {"case": case.name, "op": op_key(case.model),
              "opset": max((o.version for o in case.model.opset_import
                            if o.domain in ("", "ai.onnx")), default=0),
              "frozen": frozen}
    # Sequences and optionals have no .npy form, and DLAS takes tensors.
    if not all(isinstance(v, np.ndarray) for v in list(inputs) + list(outputs)):
        result.update(status="refused",
                      reason="(not run) a sequence or optional input or output")
        return result
    model_path = os.path.join(directory, "model.onnx")
    onnx.save(model, model_path)
    args = [dlas_run, model_path]
    def as_npy(value, info):
        # ONNX's bfloat16 data are uint16 bit patterns; dlas-run reads
        # bfloat16 as 2-byte records (numpy has no bfloat16).
        value = np.asarray(value)
        if info.type.tensor_type.elem_type == onnx.TensorProto.BFLOAT16 \
                and value.dtype == np.uint16:
            return value.view("V2")
        return value
    for k, value in enumerate(inputs):
        path = os.path.join(directory, f"input_{k}.npy")
        np.save(path, as_npy(value, model.graph.input[k]))
        args += ["--input", path]
    for k, value in enumerate(outputs):
        path = os.path.join(directory, f"output_{k}.npy")
        np.save(path, as_npy(value, model.graph.output[k]))
        args += ["--expect", path]
    args += ["--rtol", repr(case.rtol), "--atol", repr(case.atol),
             "--num-threads", "1", "--compile-threads", "1"]
    try:
        out = subprocess.run(args, capture_output=True, text=True,
                             timeout=timeout,
                             preexec_fn=memory_limiter(address_space_gb))
    except subprocess.TimeoutExpired:
        result.update(status="crash", reason=f"timeout after {timeout} s")
        return result
    text = out.stdout + out.stderr
    sanitizer = re.search(r"ERROR: AddressSanitizer[^\n]*|runtime error:[^\n]*", text)
    if out.returncode < 0:
        result.update(status="crash", reason=f"signal {-out.returncode}")
    elif sanitizer:
        # Instrumented builds report crashes and undefined behaviour
        # themselves and exit with 1.
        result.update(status="crash", reason=first_line([sanitizer.group(0)]))
    elif out.returncode == 0:
        result.update(status="pass", reason="")
    elif re.search(r": FAIL\b", out.stdout) and case.name in KNOWN_DIFFERENCES:
        result.update(status="differs", reason=KNOWN_DIFFERENCES[case.name])
    elif re.search(r": FAIL\b", out.stdout):
        result.update(status="wrong", reason=first_line(
            [l for l in out.stdout.splitlines() if "FAIL" in l]))
    else:
        result.update(status="refused", reason=first_line(
            [l for l in out.stderr.splitlines() if "error" in l] or
            text.splitlines()))
    return result


def first_line(lines):
    line = lines[0] if lines else ""
    return line.replace("|", "\\|")[:200]


def supported_ops(path):
    """The first column of `dlas-import --list-supported-ops`."""
    ops = set()
    with open(path) as f:
        for line in f:
            m = re.match(r"\| ([A-Z][A-Za-z0-9]*) \|", line)
            if m:
                ops.add(m.group(1))
    return ops


def markdown(results, supported):
    by_op = collections.defaultdict(list)
    for r in results:
        by_op[r["op"]].append(r)
    total = len(results)
    passed = sum(r["status"] == "pass" for r in results)
    ops_all = [op for op in by_op if "+" not in op]
    ops_passing = [op for op in ops_all
                   if all(r["status"] == "pass" for r in by_op[op])]
    lines = [
        "# ONNX backend node conformance",
        "",
        "Generated by `make conformance` (`test/Target/ONNX/Inputs/conformance.py`):",
        "every node test case of Debian's python3-onnx (1.12) through",
        "`dlas-run model.onnx --input ... --expect ...` at the case's own",
        "tolerances. Inputs that fix shapes (Reshape's shape, Slice's",
        "starts/ends/axes/steps, Pad's pads, ...) are made initializers",
        "first, since DLAS compiles for static shapes; the `frozen` column",
        "counts the cases where that applied.",
        "",
        f"**{passed} of {total} cases pass; {len(ops_passing)} of "
        f"{len(ops_all)} op types pass every case.**",
        "",
        "Status: *pass*; *refused*: a diagnostic (unsupported op, attribute",
        "or element type, named); *wrong*: ran and disagreed; *differs*:",
        "disagrees where DLAS deliberately differs from ONNX 1.12's reference",
        "(the reason is given); *crash*.",
        "",
        "| op | supported | cases | pass | refused | wrong | differs | crash | frozen | first problem |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for op in sorted(by_op, key=lambda o: ("+" in o, o)):
        rs = by_op[op]
        count = collections.Counter(r["status"] for r in rs)
        problem = next((f"`{r['case']}`: {r['reason']}" for r in rs
                        if r["status"] != "pass"), "")
        names = op.split("+")
        mark = "yes" if all(n in supported for n in names) else ""
        lines.append(
            f"| {op} | {mark} | {len(rs)} | {count['pass']} | {count['refused']} | "
            f"{count['wrong']} | {count['differs']} | {count['crash']} | "
            f"{sum(bool(r['frozen']) for r in rs)} | {problem} |")
    return "\n".join(lines) + "\n"


def sample_per_op(cases, every):
    """Every `every`-th case of each op (its first always), in name order:
    each op's import and lowering still run, at a fraction of the time
    (the ASan build, where each case costs 5-10x)."""
    by_op = collections.defaultdict(list)
    for c in sorted(cases, key=lambda c: c.name):
        by_op[op_key(c.model)].append(c)
    return [c for group in by_op.values() for c in group[::every]]


def cmd_run(args):
    cases = load_cases()
    if args.filter:
        cases = [c for c in cases if re.search(args.filter, c.name)]
    if args.supported_only:
        supported = supported_ops(args.supported_ops)
        cases = [c for c in cases
                 if all(o in supported for o in op_key(c.model).split("+"))]
    if args.sample > 1:
        cases = sample_per_op(cases, args.sample)
    # Cases run in parallel, each dlas-run single-threaded.
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = [pool.submit(run_case, c, args.work, args.dlas_run, args.timeout,
                               args.address_space_gb, k)
                   for k, c in enumerate(cases)]
        results = []
        for k, future in enumerate(futures):
            results.append(future.result())
            if args.verbose:
                print(f"[{k + 1}/{len(cases)}] {results[-1]['case']}: "
                      f"{results[-1]['status']} {results[-1]['reason']}", flush=True)
    with open(args.json, "w") as f:
        json.dump(results, f, indent=1)
    if args.markdown:
        supported = supported_ops(args.supported_ops) if args.supported_ops else set()
        with open(args.markdown, "w") as f:
            f.write(markdown(results, supported))
    if args.baseline_out:
        with open(args.baseline_out, "w") as f:
            f.write("# ONNX node conformance cases that pass (make conformance);\n"
                    "# conformance.test fails when one of them stops passing.\n")
            for name in sorted(r["case"] for r in results if r["status"] == "pass"):
                f.write(name + "\n")
    count = collections.Counter(r["status"] for r in results)
    print(f"{count['pass']} of {len(results)} cases pass "
          f"({count['refused']} refused, {count['wrong']} wrong, "
          f"{count['differs']} differ as documented, {count['crash']} crash)")


def cmd_check(args):
    with open(args.results) as f:
        results = json.load(f)
    supported = supported_ops(args.supported_ops)
    status = 0
    for r in results:
        ops = r["op"].split("+")
        if r["status"] in ("wrong", "crash"):
            # A crash or a wrong answer is a defect whatever the op.
            print(f"{r['status'].upper()}: {r['case']} ({r['op']}): {r['reason']}")
            status = 1
        elif r["status"] == "refused" and all(o in supported for o in ops) \
                and not args.allow_refused:
            print(f"REFUSED (supported op): {r['case']}: {r['reason']}")
    if args.baseline:
        with open(args.baseline) as f:
            expected = {line.strip() for line in f if line.strip()
                        and not line.startswith("#")}
        # Only cases this run ran count (--supported-only skips those of
        # ops converted to supported ones, such as opset 9's Upsample).
        ran = {r["case"] for r in results}
        passing = {r["case"] for r in results if r["status"] == "pass"}
        for case in sorted((expected & ran) - passing):
            print(f"REGRESSION: {case} passed before")
            status = 1
    sys.exit(status)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run")
    run.add_argument("--dlas-run", required=True)
    run.add_argument("--work", required=True)
    run.add_argument("--json", required=True)
    run.add_argument("--markdown")
    run.add_argument("--supported-ops")
    run.add_argument("--filter", help="regex over case names")
    run.add_argument("--supported-only", action="store_true",
                     help="only the cases whose ops --supported-ops lists")
    run.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    run.add_argument("--baseline-out",
                     help="write the passing cases here (the baseline of check)")
    run.add_argument("--timeout", type=int, default=120)
    run.add_argument("--sample", type=int, default=1,
                     help="run every N-th case of each op (1: all)")
    run.add_argument("--address-space-gb", type=int, default=4,
                     help="RLIMIT_AS of each dlas-run (0: none, for ASan builds)")
    run.add_argument("--verbose", action="store_true")
    check = sub.add_parser("check")
    check.add_argument("results")
    check.add_argument("--supported-ops", required=True)
    check.add_argument("--baseline")
    check.add_argument("--allow-refused", action="store_true")
    args = parser.parse_args()
    {"run": cmd_run, "check": cmd_check}[args.command](args)


if __name__ == "__main__":
    main()
