#!/usr/bin/python3
"""Recurrent layers end to end: ONNX model -> dlas-run -> compared.

  torch  torch.nn.LSTM/GRU/RNN exported by torch.onnx.export (one ONNX node
         per layer, as PyTorch writes them) over a matrix of layers, hidden
         and input sizes, directions, batch sizes, sequence lengths
         (length 1 included), batch_first, and initial states given as
         inputs; compared with PyTorch's own outputs.
  dynamic  the same, exported with the batch and the sequence length
         symbolic, compiled with both kept dynamic and run at other sizes.
  onnx   single LSTM/GRU/RNN nodes with what PyTorch never exports
         (sequence_lens as input and as constant, reverse direction,
         activations with alpha/beta, clip, peepholes, input_forget, GRU
         without linear_before_reset), compared with the plain numpy
         reference of ONNX's operator text below.

Every output of every model is checked: max |dlas - ref| <= 1e-5 * max|ref|
+ 1e-6, on every --targets target. Prints one line per case and target and
a summary.
"""
import argparse
import os
import subprocess
import sys

import numpy as np

RNG = np.random.default_rng(7)


def rand(*shape, scale=1.0):
    return (RNG.standard_normal(shape) * scale).astype(np.float32)


# ---------------------------------------------------------------------------
# numpy reference of ONNX LSTM / GRU / RNN (layout 0)
# ---------------------------------------------------------------------------

def act(name, x, alpha=None, beta=None):
    n = name.lower()
    if n == "sigmoid":
        return 1 / (1 + np.exp(-x))
    if n == "tanh":
        return np.tanh(x)
    if n == "relu":
        return np.maximum(x, 0)
    if n == "hardsigmoid":
        return np.clip(alpha * x + beta, 0, 1)
    if n == "leakyrelu":
        return np.where(x < 0, alpha * x, x)
    if n == "thresholdedrelu":
        return np.where(x > alpha, x, 0)
    if n == "scaledtanh":
        return alpha * np.tanh(beta * x)
    if n == "affine":
        return alpha * x + beta
    if n == "elu":
        return np.where(x < 0, alpha * (np.exp(x) - 1), x)
    if n == "softsign":
        return x / (1 + np.abs(x))
    if n == "softplus":
        return np.log1p(np.exp(x))
    raise ValueError(name)


DEFAULT_ALPHA = {"leakyrelu": 0.01, "thresholdedrelu": 1.0, "scaledtanh": 1.0,
                 "hardsigmoid": 0.2, "elu": 1.0, "affine": 1.0}
DEFAULT_BETA = {"scaledtanh": 1.0, "hardsigmoid": 0.5, "affine": 0.0}
READS_ALPHA = {"hardsigmoid", "leakyrelu", "thresholdedrelu", "scaledtanh", "affine", "elu"}
READS_BETA = {"hardsigmoid", "scaledtanh", "affine"}


def activation_functions(names, alphas, betas):
    """ONNX's lists -> one callable per activation (alpha/beta consumed in
    order by the functions that read them)."""
    alphas, betas = list(alphas or []), list(betas or [])
    fns = []
    for name in names:
        n = name.lower()
        a = alphas.pop(0) if n in READS_ALPHA and alphas else DEFAULT_ALPHA.get(n)
        b = betas.pop(0) if n in READS_BETA and betas else DEFAULT_BETA.get(n)
        fns.append(lambda x, n=n, a=a, b=b: act(n, x, a, b))
    return fns


def reference(kind, x, w, r, b, h0, c0=None, lens=None, p=None, direction="forward",
              activations=None, alpha=None, beta=None, clip=None,
              input_forget=0, linear_before_reset=0):
    seq, batch, _ = x.shape
    dirs, gh, hidden = r.shape
    per_dir = {"lstm": 3, "gru": 2, "rnn": 1}[kind]
    defaults = {"lstm": ["Sigmoid", "Tanh", "Tanh"], "gru": ["Sigmoid", "Tanh"],
                "rnn": ["Tanh"]}[kind]
    names = activations or defaults * dirs
    fns = activation_functions(names, alpha, beta)
    lens = np.full(batch, seq) if lens is None else lens
    cl = (lambda v: np.clip(v, -clip, clip)) if clip else (lambda v: v)
    x, w, r, b, h0 = [a.astype(np.float64) for a in (x, w, r, b, h0)]
    y = np.zeros((seq, dirs, batch, hidden))
    hs, cs = np.zeros((dirs, batch, hidden)), np.zeros((dirs, batch, hidden))
    for d in range(dirs):
        f = fns[d * per_dir:(d + 1) * per_dir]
        wb, rb = b[d, :gh], b[d, gh:]
        h = h0[d].copy()
        c = c0[d].astype(np.float64).copy() if c0 is not None else None
        reverse = direction == "reverse" or d == 1
        for t in (range(seq - 1, -1, -1) if reverse else range(seq)):
            xw = x[t] @ w[d].T + wb
            active = (t < lens)[:, None]
            if kind == "lstm":
                g = xw + h @ r[d].T + rb
                gi, go, gf, gc = np.split(g, 4, axis=1)
                pi, po, pf = (np.split(p[d].astype(np.float64), 3) if p is not None
                              else (0, 0, 0))
                i = f[0](cl(gi + pi * c))
                fg = 1 - i if input_forget else f[0](cl(gf + pf * c))
                cn = fg * c + i * f[1](cl(gc))
                o = f[0](cl(go + po * cn))
                hn = o * f[2](cn)
                c = np.where(active, cn, c)
            elif kind == "gru":
                xz, xr, xh = np.split(xw, 3, axis=1)
                rz, rr, rh = np.split(r[d], 3, axis=0)
                bz, br, bh = np.split(rb, 3)
                z = f[0](cl(xz + h @ rz.T + bz))
                rg = f[0](cl(xr + h @ rr.T + br))
                if linear_before_reset:
                    hh = f[1](cl(xh + rg * (h @ rh.T + bh)))
                else:
                    hh = f[1](cl(xh + (rg * h) @ rh.T + bh))
                hn = (1 - z) * hh + z * h
            else:
                hn = f[0](cl(xw + h @ r[d].T + rb))
            h = np.where(active, hn, h)
            y[t, d] = np.where(active, hn, 0)
        hs[d] = h
        if c is not None:
            cs[d] = c
    outs = [y, hs] + ([cs] if kind == "lstm" else [])
    return [o.astype(np.float32) for o in outs]


# ---------------------------------------------------------------------------
# cases
# ---------------------------------------------------------------------------

TORCH_CASES = [
    # kind, layers, input, hidden, bidirectional, batch, seq, batch_first, states
    ("lstm", 1, 4, 8, False, 1, 1, False, False),
    ("lstm", 2, 5, 16, True, 3, 7, False, True),
    ("lstm", 3, 8, 12, False, 2, 5, True, False),
    ("lstm", 1, 3, 33, True, 1, 9, True, True),
    ("gru", 1, 4, 8, False, 1, 1, False, False),
    ("gru", 2, 6, 16, True, 2, 6, False, True),
    ("gru", 3, 5, 10, False, 4, 3, True, False),
    ("rnn_tanh", 1, 4, 8, False, 1, 1, False, False),
    ("rnn_tanh", 2, 5, 20, True, 3, 8, False, True),
    ("rnn_relu", 2, 6, 9, False, 2, 4, True, False),
]


# Exported with the batch and the sequence length symbolic (dynamic_axes),
# compiled with both kept dynamic (dlas-run --dynamic-shapes keep) and run
# at other sizes than the exported ones: the last two fields.
DYNAMIC_TORCH_CASES = [
    # kind, layers, input, hidden, bidirectional, batch, seq, batch_first,
    # states, run batch, run seq
    ("gru", 2, 6, 16, True, 2, 6, False, True, 3, 9),
    ("gru", 1, 5, 10, False, 2, 4, True, False, 1, 7),
    ("lstm", 2, 5, 12, False, 2, 5, True, True, 4, 3),
    ("rnn_tanh", 1, 4, 8, True, 3, 2, False, False, 2, 5),
]


def torch_case(workdir, kind, layers, features, hidden, bidir, batch, seq, batch_first,
               states, run_batch=None, run_seq=None):
    """One torch.nn recurrent model, exported at (batch, seq); with run
    sizes, exported with both symbolic and run (and compared) at those."""
    import torch
    torch.manual_seed(3)
    cls = {"lstm": torch.nn.LSTM, "gru": torch.nn.GRU, "rnn_tanh": torch.nn.RNN,
           "rnn_relu": torch.nn.RNN}[kind]
    extra = {"nonlinearity": "relu"} if kind == "rnn_relu" else {}
    m = cls(features, hidden, num_layers=layers, bidirectional=bidir,
            batch_first=batch_first, **extra).eval()
    dirs = 2 if bidir else 1

    def model_inputs(batch, seq):
        x = torch.randn(*((batch, seq, features) if batch_first else (seq, batch, features)))
        if not states:
            return [x]
        h0 = torch.randn(layers * dirs, batch, hidden)
        return [x, (h0, torch.randn(layers * dirs, batch, hidden)) if kind == "lstm" else h0]

    args = model_inputs(batch, seq)
    names = ["x"] + (["h0", "c0"] if kind == "lstm" else ["h0"] if states else [])
    out_names = ["y", "hn", "cn"][:3 if kind == "lstm" else 2]
    dynamic = run_batch is not None
    name = (f"torch_{kind}_l{layers}_i{features}_h{hidden}_{'bi' if bidir else 'uni'}"
            f"_b{batch}_s{seq}{'_bf' if batch_first else ''}{'_states' if states else ''}"
            f"{f'_dyn_run_b{run_batch}_s{run_seq}' if dynamic else ''}")
    path = os.path.join(workdir, name + ".onnx")
    axes = None
    if dynamic:
        batch_axis, seq_axis = (0, 1) if batch_first else (1, 0)
        axes = {"x": {batch_axis: "batch", seq_axis: "seq"},
                "y": {batch_axis: "batch", seq_axis: "seq"}}
        for state in names[1:] + out_names[1:]:
            axes[state] = {1: "batch"}
    torch.onnx.export(m, tuple(args), path, opset_version=14, input_names=names,
                      output_names=out_names, dynamic_axes=axes)
    if dynamic:
        args = model_inputs(run_batch, run_seq)
    with torch.no_grad():
        out = m(*args)
    outputs = [out[0]] + (list(out[1]) if kind == "lstm" else [out[1]])
    flat_inputs = [args[0]] + ([args[1]] if kind != "lstm" and states
                               else list(args[1]) if states else [])
    return name, path, [a.numpy() for a in flat_inputs], [o.numpy() for o in outputs]


def onnx_node_case(workdir, name, kind, seq, batch, features, hidden, direction="forward",
                   lens=None, lens_input=False, peepholes=False, **attrs):
    """One ONNX node; inputs X (and sequence_lens when lens_input)."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    dirs = 2 if direction == "bidirectional" else 1
    gates = {"lstm": 4, "gru": 3, "rnn": 1}[kind]
    x = rand(seq, batch, features)
    w = rand(dirs, gates * hidden, features, scale=0.5)
    r = rand(dirs, gates * hidden, hidden, scale=0.5)
    b = rand(dirs, 2 * gates * hidden, scale=0.5)
    h0 = rand(dirs, batch, hidden)
    c0 = rand(dirs, batch, hidden) if kind == "lstm" else None
    p = rand(dirs, 3 * hidden) if peepholes else None
    lens_arr = None if lens is None else np.array(lens, np.int32)
    inits = {"W": w, "R": r, "B": b, "initial_h": h0}
    if c0 is not None:
        inits["initial_c"] = c0
    if p is not None:
        inits["P"] = p
    if lens_arr is not None and not lens_input:
        inits["sequence_lens"] = lens_arr
    node_inputs = ["X", "W", "R", "B", "sequence_lens" if lens_arr is not None else "",
                   "initial_h"]
    if kind == "lstm":
        node_inputs += ["initial_c", "P" if p is not None else ""]
    outputs = ["Y", "Y_h"] + (["Y_c"] if kind == "lstm" else [])
    node = helper.make_node(kind.upper(), node_inputs, outputs, hidden_size=hidden,
                            direction=direction, **attrs)
    graph_inputs = [helper.make_tensor_value_info("X", TensorProto.FLOAT, x.shape)]
    inputs = [x]
    if lens_input:
        graph_inputs.append(helper.make_tensor_value_info("sequence_lens", TensorProto.INT32,
                                                          lens_arr.shape))
        inputs.append(lens_arr)
    expected = reference(kind, x, w, r, b, h0, c0, lens_arr, p, direction,
                         attrs.get("activations"), attrs.get("activation_alpha"),
                         attrs.get("activation_beta"), attrs.get("clip"),
                         attrs.get("input_forget", 0), attrs.get("linear_before_reset", 0))
    graph = helper.make_graph(
        [node], name, graph_inputs,
        [helper.make_tensor_value_info(o, TensorProto.FLOAT, e.shape)
         for o, e in zip(outputs, expected)],
        [numpy_helper.from_array(v, n) for n, v in inits.items()])
    path = os.path.join(workdir, name + ".onnx")
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)]), path)
    return name, path, inputs, expected


ONNX_CASES = [
    dict(name="lstm_reverse_lens_input", kind="lstm", seq=6, batch=3, features=4, hidden=8,
         direction="reverse", lens=[6, 2, 4], lens_input=True),
    dict(name="lstm_bidir_lens_const_peepholes", kind="lstm", seq=5, batch=3, features=3,
         hidden=7, direction="bidirectional", lens=[5, 1, 3], peepholes=True),
    dict(name="lstm_clip_input_forget_acts", kind="lstm", seq=4, batch=2, features=5, hidden=6,
         clip=0.7, input_forget=1,
         activations=["HardSigmoid", "LeakyRelu", "ScaledTanh"],
         activation_alpha=[0.3, 0.1, 0.9], activation_beta=[0.4, 1.3]),
    dict(name="lstm_seq1_lens0", kind="lstm", seq=1, batch=2, features=3, hidden=4,
         lens=[1, 0], lens_input=True),
    dict(name="gru_no_linear_before_reset_bidir", kind="gru", seq=5, batch=2, features=4,
         hidden=8, direction="bidirectional"),
    dict(name="gru_linear_before_reset_lens_reverse", kind="gru", seq=6, batch=3, features=5,
         hidden=6, direction="reverse", lens=[3, 6, 1], linear_before_reset=1),
    dict(name="gru_acts_clip", kind="gru", seq=4, batch=1, features=3, hidden=5, clip=1.5,
         activations=["Softsign", "Affine"], activation_alpha=[0.8], activation_beta=[0.1]),
    dict(name="rnn_bidir_acts", kind="rnn", seq=5, batch=2, features=4, hidden=6,
         direction="bidirectional", activations=["Elu", "ThresholdedRelu"],
         activation_alpha=[0.5, 0.2]),
    dict(name="rnn_softplus_relu_lens", kind="rnn", seq=4, batch=3, features=3, hidden=5,
         direction="bidirectional", activations=["Softplus", "Relu"], lens=[4, 2, 3],
         lens_input=True),
    dict(name="rnn_sigmoid_clip_reverse", kind="rnn", seq=3, batch=2, features=2, hidden=3,
         direction="reverse", activations=["Sigmoid"], clip=0.5),
]


def check(dlas_run, workdir, name, path, inputs, expected, target):
    out_dir = os.path.join(workdir, name, target)
    cmd = [dlas_run, path, "--output-dir", out_dir, "--target", target]
    if "_dyn_" in name:
        # Compiled with the symbolic sizes kept (dlas-compile's code), not
        # specialized to the input's.
        cmd += ["--dynamic-shapes", "keep"]
    os.makedirs(out_dir, exist_ok=True)
    for i, a in enumerate(inputs):
        f = os.path.join(workdir, f"{name}.in{i}.npy")
        np.save(f, a)
        cmd += ["--input", f]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        return False, proc.stderr.strip().splitlines()[-3:]
    worst = 0.0
    for i, e in enumerate(expected):
        got = np.load(os.path.join(out_dir, f"main_output{i}.npy"))
        if got.shape != e.shape:
            return False, [f"output {i}: shape {got.shape}, expected {e.shape}"]
        err = float(np.abs(got - e).max()) if e.size else 0.0
        bound = 1e-5 * float(np.abs(e).max()) + 1e-6
        worst = max(worst, err / bound)
        if err > bound:
            return False, [f"output {i}: max abs err {err:.3g} > {bound:.3g}"]
    return True, [f"worst err/bound {worst:.3f}"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dlas-run", default="dlas-run")
    parser.add_argument("--work", required=True)
    parser.add_argument("--suite", default="torch,dynamic,onnx")
    parser.add_argument("--targets", default="host",
                        help="space-separated targets, each case runs on all")
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    cases = []
    suites = args.suite.split(",")
    if "torch" in suites:
        cases += [lambda c=c: torch_case(args.work, *c) for c in TORCH_CASES]
    if "dynamic" in suites:
        cases += [lambda c=c: torch_case(args.work, *c) for c in DYNAMIC_TORCH_CASES]
    if "onnx" in suites:
        cases += [lambda c=c: onnx_node_case(args.work, **c) for c in ONNX_CASES]
    failed = runs = 0
    targets = args.targets.split()
    for make in cases:
        name, path, inputs, expected = make()
        for target in targets:
            ok, detail = check(args.dlas_run, args.work, name, path, inputs, expected,
                               target)
            runs += 1
            failed += not ok
            print(f"{name} [{target}]: {'ok' if ok else 'FAIL'} ({'; '.join(detail)})",
                  flush=True)
    print(f"recurrent: {runs - failed} passed, {failed} failed "
          f"({len(cases)} cases x {len(targets)} targets)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
