#!/usr/bin/python3
"""Small ONNX graphs, one per supported op and one per error the importer
must report, built at test time with the `onnx` package.

  graphs.py make DIR          writes DIR/<case>.onnx (+ inputs and expected
                              outputs computed with PyTorch/numpy)
  graphs.py run DIR DLAS_RUN  runs every numeric case through dlas-run and
                              compares (|d - e| <= 1e-4 + 1e-4 |e|)
"""
import os
import subprocess
import sys

import numpy as np
import onnx
import torch
import torch.nn.functional as F
from onnx import TensorProto, helper, numpy_helper

RNG = np.random.default_rng(0)
CASES = {}


def rand(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def case(fn):
    CASES[fn.__name__] = fn
    return fn


def model(nodes, inputs, outputs, initializers=(), opset=13, name="g"):
    """inputs/outputs: lists of (name, shape)."""
    graph = helper.make_graph(
        nodes, name,
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in inputs],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in outputs],
        [numpy_helper.from_array(v, n) for n, v in initializers])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def t(x):
    return torch.from_numpy(x)


# Each case returns (model, [inputs], expected) or (model, None, None) for
# models that only test import.

@case
def conv():
    x, w, b = rand(1, 4, 9, 9), rand(6, 2, 3, 3), rand(6)
    y = F.conv2d(F.pad(t(x), (1, 2, 0, 1)), t(w), t(b), stride=2, dilation=1, groups=2)
    node = helper.make_node("Conv", ["x", "w", "b"], ["y"], name="conv0",
                            pads=[0, 1, 1, 2], strides=[2, 2], group=2)
    return model([node], [("x", x.shape)], [("y", y.shape)], [("w", w), ("b", b)]), [x], y


@case
def conv_same_upper():
    x, w = rand(1, 3, 7, 8), rand(4, 3, 3, 3)
    y = F.conv2d(F.pad(t(x), (0, 1, 1, 1)), t(w), stride=2)
    node = helper.make_node("Conv", ["x", "w"], ["y"], auto_pad="SAME_UPPER", strides=[2, 2])
    return model([node], [("x", x.shape)], [("y", y.shape)], [("w", w)]), [x], y


@case
def conv_transpose():
    x, w = rand(1, 4, 5, 5), rand(4, 3, 3, 3)
    y = F.conv_transpose2d(t(x), t(w), stride=2, padding=1, output_padding=1)
    node = helper.make_node("ConvTranspose", ["x", "w"], ["y"], strides=[2, 2],
                            pads=[1, 1, 1, 1], output_padding=[1, 1])
    return model([node], [("x", x.shape)], [("y", y.shape)], [("w", w)]), [x], y


@case
def gemm_linear():
    x, w, b = rand(2, 8), rand(5, 8), rand(5)
    y = F.linear(t(x), t(w), t(b))
    node = helper.make_node("Gemm", ["x", "w", "b"], ["y"], transB=1)
    return model([node], [("x", x.shape)], [("y", y.shape)], [("w", w), ("b", b)]), [x], y


@case
def gemm_general():
    a, b, c = rand(8, 3), rand(8, 5), rand(3, 1)
    y = 0.5 * t(a).T @ t(b) + 2.0 * t(c)
    node = helper.make_node("Gemm", ["a", "b", "c"], ["y"], transA=1, alpha=0.5, beta=2.0)
    return model([node], [("a", a.shape)], [("y", y.shape)], [("b", b), ("c", c)]), [a], y


@case
def matmul():
    a, b = rand(3, 4, 5), rand(3, 5, 2)
    node = helper.make_node("MatMul", ["a", "b"], ["y"])
    y = t(a) @ t(b)
    return model([node], [("a", a.shape), ("b", b.shape)], [("y", y.shape)]), [a, b], y


@case
def batch_norm():
    x = rand(1, 3, 4, 4)
    s, b, m = rand(3), rand(3), rand(3)
    v = np.abs(rand(3)) + 0.5
    y = F.batch_norm(t(x), t(m), t(v), t(s), t(b), eps=1e-3)
    node = helper.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y"], epsilon=1e-3)
    return model([node], [("x", x.shape)], [("y", y.shape)],
                 [("s", s), ("b", b), ("m", m), ("v", v)]), [x], y


@case
def max_pool():
    x = rand(1, 2, 9, 10)
    y = F.max_pool2d(t(x), 3, 2, 1, ceil_mode=True)
    node = helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[3, 3], strides=[2, 2],
                            pads=[1, 1, 1, 1], ceil_mode=1)
    return model([node], [("x", x.shape)], [("y", y.shape)]), [x], y


@case
def average_pool():
    # ONNX's default count_include_pad is 0.
    x = rand(1, 2, 9, 9)
    y = F.avg_pool2d(t(x), 3, 2, 1, count_include_pad=False)
    node = helper.make_node("AveragePool", ["x"], ["y"], kernel_shape=[3, 3], strides=[2, 2],
                            pads=[1, 1, 1, 1])
    return model([node], [("x", x.shape)], [("y", y.shape)]), [x], y


@case
def global_average_pool():
    x = rand(2, 3, 5, 4)
    y = F.adaptive_avg_pool2d(t(x), 1)
    node = helper.make_node("GlobalAveragePool", ["x"], ["y"])
    return model([node], [("x", x.shape)], [("y", y.shape)]), [x], y


@case
def reduce_mean():
    x = rand(1, 3, 5, 4)
    y = t(x).mean([2, 3])
    node = helper.make_node("ReduceMean", ["x"], ["y"], axes=[2, 3], keepdims=0)
    return model([node], [("x", x.shape)], [("y", y.shape)]), [x], y


@case
def activations():
    x = rand(2, 7) * 3
    nodes = [helper.make_node("Relu", ["x"], ["a"]),
             helper.make_node("Sigmoid", ["x"], ["b"]),
             helper.make_node("Tanh", ["x"], ["c"]),
             helper.make_node("LeakyRelu", ["x"], ["d"], alpha=0.2),
             helper.make_node("Add", ["a", "b"], ["ab"]),
             helper.make_node("Sub", ["ab", "c"], ["abc"]),
             helper.make_node("Mul", ["abc", "d"], ["y"])]
    tx = t(x)
    y = (F.relu(tx) + torch.sigmoid(tx) - torch.tanh(tx)) * F.leaky_relu(tx, 0.2)
    return model(nodes, [("x", x.shape)], [("y", y.shape)]), [x], y


@case
def clip():
    x = rand(2, 7) * 10
    nodes = [helper.make_node("Constant", [], ["lo"], value=numpy_helper.from_array(np.array(0.0, np.float32))),
             helper.make_node("Constant", [], ["hi"], value=numpy_helper.from_array(np.array(6.0, np.float32))),
             helper.make_node("Clip", ["x", "lo", "hi"], ["y"])]
    y = torch.clamp(t(x), 0, 6)
    return model(nodes, [("x", x.shape)], [("y", y.shape)]), [x], y


@case
def softmax():
    x = rand(2, 3, 5)
    nodes = [helper.make_node("Softmax", ["x"], ["s"], axis=1),
             helper.make_node("LogSoftmax", ["x"], ["l"]),
             helper.make_node("Div", ["s", "d"], ["q"]),
             helper.make_node("Max", ["q", "l"], ["m"]),
             helper.make_node("Min", ["m", "s"], ["y"])]
    d = np.abs(rand(5)) + 0.5
    tx = t(x)
    y = torch.minimum(torch.maximum(F.softmax(tx, 1) / t(d), F.log_softmax(tx, -1)), F.softmax(tx, 1))
    return model(nodes, [("x", x.shape)], [("y", y.shape)], [("d", d)]), [x], y


@case
def shapes():
    # Shape arithmetic folds: Shape -> Gather -> Unsqueeze -> Concat -> Reshape.
    x = rand(2, 3, 4, 5)
    nodes = [helper.make_node("Shape", ["x"], ["s"]),
             helper.make_node("Constant", [], ["i0"], value=numpy_helper.from_array(np.array(0, np.int64))),
             helper.make_node("Gather", ["s", "i0"], ["n"], axis=0),
             helper.make_node("Constant", [], ["ax"], value=numpy_helper.from_array(np.array([0], np.int64))),
             helper.make_node("Unsqueeze", ["n", "ax"], ["n1"]),
             helper.make_node("Constant", [], ["rest"], value=numpy_helper.from_array(np.array([-1], np.int64))),
             helper.make_node("Concat", ["n1", "rest"], ["shape"], axis=0),
             helper.make_node("Reshape", ["x", "shape"], ["r"]),
             helper.make_node("Identity", ["r"], ["i"]),
             helper.make_node("Dropout", ["i"], ["y"])]
    y = t(x).reshape(2, -1)
    return model(nodes, [("x", x.shape)], [("y", y.shape)]), [x], y


def transformer_mlp_graph(hf_order):
    """A transformer block's MLP as exporters write it: MatMul on [1, T, D]
    (reshaped to a matrix by the importer), the bias Add, GELU spelled out
    with Erf (PyTorch: (x * (1 + erf(x / sqrt 2))) * 0.5; Hugging Face's
    BERT: (x * 0.5) * (1 + erf(x * (1 / sqrt 2)))), the second MatMul and
    bias, and the residual Add."""
    x, w1, b1, w2, b2 = rand(1, 5, 16), rand(16, 24), rand(24), rand(24, 16), rand(16)
    inits = [("w1", w1), ("b1", b1), ("w2", w2), ("b2", b2),
             ("half", np.array(0.5, np.float32)), ("one", np.array(1.0, np.float32))]
    nodes = [helper.make_node("MatMul", ["x", "w1"], ["h0"]),
             helper.make_node("Add", ["h0", "b1"], ["h"])]
    if hf_order:
        inits.append(("inv_sqrt2", np.array(0.70710678, np.float32)))
        nodes += [helper.make_node("Mul", ["h", "half"], ["hh"]),
                  helper.make_node("Mul", ["h", "inv_sqrt2"], ["s"]),
                  helper.make_node("Erf", ["s"], ["e"]),
                  helper.make_node("Add", ["one", "e"], ["e1"]),
                  helper.make_node("Mul", ["hh", "e1"], ["g"])]
    else:
        inits.append(("sqrt2", np.array(1.4142135, np.float32)))
        nodes += [helper.make_node("Div", ["h", "sqrt2"], ["s"]),
                  helper.make_node("Erf", ["s"], ["e"]),
                  helper.make_node("Add", ["e", "one"], ["e1"]),
                  helper.make_node("Mul", ["h", "e1"], ["he"]),
                  helper.make_node("Mul", ["he", "half"], ["g"])]
    nodes += [helper.make_node("MatMul", ["g", "w2"], ["o0"]),
              helper.make_node("Add", ["o0", "b2"], ["o1"]),
              helper.make_node("Add", ["o1", "x"], ["y"])]
    m = model(nodes, [("x", [1, 5, 16])], [("y", [1, 5, 16])], inits)
    expected = F.gelu(t(x) @ t(w1) + t(b1)) @ t(w2) + t(b2) + t(x)
    return m, [x], expected


@case
def transformer_mlp_tanh():
    """GPT-2's MLP: its gelu_new, 0.5 * x * (1 + tanh(sqrt(2/pi) * (x +
    0.044715 * pow(x, 3)))), between the two dense layers."""
    x, w1, b1, w2, b2 = rand(1, 5, 16), rand(16, 24), rand(24), rand(24, 16), rand(16)
    inits = [("w1", w1), ("b1", b1), ("w2", w2), ("b2", b2),
             ("half", np.array(0.5, np.float32)), ("one", np.array(1.0, np.float32)),
             ("three", np.array(3.0, np.float32)), ("c", np.array(0.044715, np.float32)),
             ("k", np.array(0.7978846, np.float32))]
    nodes = [helper.make_node("MatMul", ["x", "w1"], ["h0"]),
             helper.make_node("Add", ["h0", "b1"], ["h"]),
             helper.make_node("Mul", ["h", "half"], ["hh"]),
             helper.make_node("Pow", ["h", "three"], ["h3"]),
             helper.make_node("Mul", ["h3", "c"], ["ch3"]),
             helper.make_node("Add", ["h", "ch3"], ["inner"]),
             helper.make_node("Mul", ["inner", "k"], ["scaled"]),
             helper.make_node("Tanh", ["scaled"], ["th"]),
             helper.make_node("Add", ["th", "one"], ["th1"]),
             helper.make_node("Mul", ["hh", "th1"], ["g"]),
             helper.make_node("MatMul", ["g", "w2"], ["o0"]),
             helper.make_node("Add", ["o0", "b2"], ["y"])]
    m = model(nodes, [("x", [1, 5, 16])], [("y", [1, 5, 16])], inits)
    expected = F.gelu(t(x) @ t(w1) + t(b1), approximate="tanh") @ t(w2) + t(b2)
    return m, [x], expected


@case
def conv_silu():
    """SiLU as exporters write it (EfficientNet): Sigmoid, then Mul by the
    convolution's output."""
    x, w, b = rand(1, 3, 8, 8), rand(4, 3, 3, 3), rand(4)
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
             helper.make_node("Sigmoid", ["c"], ["s"]),
             helper.make_node("Mul", ["c", "s"], ["y"])]
    m = model(nodes, [("x", [1, 3, 8, 8])], [("y", [1, 4, 8, 8])],
              [("w", w), ("b", b)])
    return m, [x], F.silu(F.conv2d(t(x), t(w), t(b), padding=1))


@case
def transformer_mlp():
    return transformer_mlp_graph(hf_order=False)


@case
def transformer_mlp_hf():
    return transformer_mlp_graph(hf_order=True)


def const(name, values):
    return helper.make_node("Constant", [], [name],
                            value=numpy_helper.from_array(np.array(values, np.int64)))


def dynamic_batch_graph(output):
    """Shape arithmetic on a dynamic batch as PyTorch exports it
    (x.view(x.size(0), -1), expand(n, ...), the -1 test of expand's
    shape): the graph's batch is the symbol "b"; one graph per output."""
    nodes = [helper.make_node("Shape", ["x"], ["s"]),
             const("i0", 0), const("ax", [0]), const("m1", [-1]),
             const("three", 3), const("c3", [3]), const("c20", [20]),
             const("one", [1]), const("lo", [1]), const("hi", [3]),
             const("split12", [1, 2]), const("copy00", [0, 0, -1]),
             helper.make_node("Gather", ["s", "i0"], ["n"], axis=0),
             helper.make_node("Unsqueeze", ["n", "ax"], ["n1"]),
             # Reshape(x, [b, -1]): the -1 is static, b cancels.
             helper.make_node("Concat", ["n1", "m1"], ["flat"], axis=0),
             helper.make_node("Reshape", ["x", "flat"], ["flat_out"]),
             # Reshape(x, [b * 3, 20]) through Mul, Div, Cast and back.
             helper.make_node("Mul", ["n", "three"], ["n3"]),
             helper.make_node("Div", ["n3", "three"], ["nn"]),
             helper.make_node("Mul", ["nn", "three"], ["rows"]),
             helper.make_node("Cast", ["rows"], ["rows32"], to=TensorProto.INT32),
             helper.make_node("Cast", ["rows32"], ["rows64"], to=TensorProto.INT64),
             helper.make_node("Unsqueeze", ["rows64", "ax"], ["rows1"]),
             helper.make_node("Concat", ["rows1", "c20"], ["rshape"], axis=0),
             helper.make_node("Reshape", ["x", "rshape"], ["rows_out"]),
             # Expand(bias, where(shape == -1, 1, shape)) with shape [b, 3, 1].
             helper.make_node("Concat", ["n1", "c3", "one"], ["eshape"], axis=0),
             helper.make_node("Equal", ["eshape", "m1"], ["is_m1"]),
             helper.make_node("ConstantOfShape", ["c3"], ["ones"],
                              value=numpy_helper.from_array(np.array([1], np.int64))),
             helper.make_node("Where", ["is_m1", "ones", "eshape"], ["wshape"]),
             helper.make_node("Expand", ["bias", "wshape"], ["expanded"]),
             helper.make_node("ReduceMean", ["x"], ["mean"], axes=[2], keepdims=0),
             helper.make_node("Add", ["expanded", "mean"], ["expand_out"]),
             # Reshape(x, [b] + shape[1:3] + [-1]) with a Slice of the shape.
             helper.make_node("Slice", ["s", "lo", "hi"], ["mid"]),
             helper.make_node("Concat", ["n1", "mid", "m1"], ["sshape"], axis=0),
             helper.make_node("Reshape", ["x", "sshape"], ["slice_out"]),
             # A one-element operand first broadcasts over the shape.
             helper.make_node("Mul", ["one", "s"], ["s1"]),
             helper.make_node("Reshape", ["x", "s1"], ["broadcast_out"]),
             # The shape itself as data: a run-time tensor.
             helper.make_node("Cast", ["s"], ["shape_out"], to=TensorProto.FLOAT),
             # ConstantOfShape to [b, 3, 1] (PyTorch's zero initial state of
             # an LSTM with a symbolic batch), added to the mean.
             helper.make_node("Concat", ["n1", "c3", "one"], ["zshape"], axis=0),
             helper.make_node("ConstantOfShape", ["zshape"], ["halves"],
                              value=numpy_helper.from_array(np.array([0.5], np.float32))),
             helper.make_node("Add", ["halves", "mean"], ["fill_out"]),
             # Split along a static axis of a tensor with a symbolic batch.
             helper.make_node("Split", ["x", "split12"], ["p1", "p2"], axis=1),
             helper.make_node("Concat", ["p2", "p1"], ["split_out"], axis=1),
             # Reshape(x, [0, 0, -1]): the 0 copies the symbolic batch, so
             # two sizes are not constants (a bidirectional LSTM's output).
             helper.make_node("Reshape", ["x", "copy00"], ["copy_out"])]
    shapes = {"flat_out": ["b", 60], "rows_out": ["b3", 20],
              "expand_out": ["b", 3, 5], "slice_out": ["b", 3, 4, 5],
              "broadcast_out": ["b", 3, 4, 5],
              "shape_out": [4], "fill_out": ["b", 3, 5],
              "split_out": ["b", 3, 4, 5], "copy_out": ["b", 3, 20]}
    nodes.append(helper.make_node("Identity", [output], ["y"]))
    bias = rand(1, 1, 5)
    return model(nodes, [("x", ["b", 3, 4, 5])], [("y", shapes[output])],
                 [("bias", bias)]), bias


def dynamic_batch_case(output, batch):
    m, bias = dynamic_batch_graph(output)
    x = rand(batch, 3, 4, 5)
    tx = t(x)
    expected = {"flat_out": lambda: tx.reshape(batch, -1),
                "rows_out": lambda: tx.reshape(batch * 3, 20),
                "expand_out": lambda: t(bias).expand(batch, 3, 5) + tx.mean(2),
                "slice_out": lambda: tx,
                "broadcast_out": lambda: tx,
                "shape_out": lambda: torch.tensor([batch, 3, 4, 5], dtype=torch.float32),
                "fill_out": lambda: 0.5 + tx.mean(2),
                "split_out": lambda: torch.cat([tx[:, 1:], tx[:, :1]], 1),
                "copy_out": lambda: tx.reshape(batch, 3, 20)}
    return m, [x], expected[output]()


for _output in ("flat_out", "rows_out", "expand_out", "slice_out",
                "broadcast_out", "shape_out", "fill_out", "split_out", "copy_out"):
    for _batch in (1, 3):
        CASES[f"dynamic_{_output}_b{_batch}"] = (
            lambda o=_output, b=_batch: dynamic_batch_case(o, b))


@case
def reshape_zero():
    x = rand(2, 3, 4)
    shape = np.array([0, -1, 2], np.int64)
    node = helper.make_node("Reshape", ["x", "shape"], ["y"])
    y = t(x).reshape(2, 6, 2)
    return model([node], [("x", x.shape)], [("y", y.shape)], [("shape", shape)]), [x], y


@case
def flatten():
    x = rand(2, 3, 4, 5)
    nodes = [helper.make_node("Flatten", ["x"], ["y"], axis=2)]
    y = t(x).reshape(6, 20)
    return model(nodes, [("x", x.shape)], [("y", y.shape)]), [x], y


@case
def transpose_concat():
    a, b = rand(1, 2, 3), rand(1, 3, 2)
    nodes = [helper.make_node("Transpose", ["b"], ["bt"], perm=[0, 2, 1]),
             helper.make_node("Concat", ["a", "bt"], ["y"], axis=1)]
    y = torch.cat([t(a), t(b).permute(0, 2, 1)], 1)
    return model(nodes, [("a", a.shape), ("b", b.shape)], [("y", y.shape)]), [a, b], y


@case
def pad_squeeze():
    x = rand(1, 2, 3, 1)
    pads = np.array([0, 0, 1, 0, 0, 0, 2, 0], np.int64)
    value = np.array(1.5, np.float32)
    nodes = [helper.make_node("Pad", ["x", "pads", "v"], ["p"], mode="constant"),
             helper.make_node("Squeeze", ["p", "axes"], ["y"])]
    y = F.pad(t(x), (0, 0, 1, 2), value=1.5).squeeze(3)
    return model(nodes, [("x", x.shape)], [("y", y.shape)],
                 [("pads", pads), ("v", value), ("axes", np.array([3], np.int64))]), [x], y


@case
def squeeze_two_dynamic():
    # Squeeze and Unsqueeze of a tensor whose batch and length are both
    # symbolic (a sequence model's [N, 1, T, C] -> [N, T, C] -> [N, T, C, 1]):
    # the run-time sizes are the input's, in order.
    x = rand(3, 1, 5, 4)
    nodes = [helper.make_node("Squeeze", ["x", "axes"], ["s"]),
             helper.make_node("Unsqueeze", ["s", "axes2"], ["y"])]
    y = t(x).reshape(3, 5, 4, 1)
    return model(nodes, [("x", ["N", 1, "T", 4])], [("y", ["N", "T", 4, 1])],
                 [("axes", np.array([1], np.int64)),
                  ("axes2", np.array([3], np.int64))]), [x], y


@case
def unsqueeze_scalar():
    # A scalar input made 1-D, and a 1x1 tensor squeezed to a scalar (the
    # rank-0 reshapes that used to crash the lowering).
    x = np.array(1.25, np.float32)
    nodes = [helper.make_node("Unsqueeze", ["x", "axes"], ["u"]),
             helper.make_node("Squeeze", ["u", "axes"], ["s"]),
             helper.make_node("Unsqueeze", ["s", "axes2"], ["y"])]
    y = t(x).reshape(1, 1)
    return model(nodes, [("x", ())], [("y", y.shape)],
                 [("axes", np.array([0], np.int64)),
                  ("axes2", np.array([0, 1], np.int64))]), [x], y


def variadic(op, reference, shapes):
    xs = [rand(*shape) for shape in shapes]
    names = [f"x{i}" for i in range(len(xs))]
    y = reference([t(x) for x in xs])
    nodes = [helper.make_node(op, names, ["y"])]
    return model(nodes, [(n, x.shape) for n, x in zip(names, xs)], [("y", y.shape)]), xs, y


# Max, Min, Sum and Mean take any number of inputs (ONNX's test_max_example
# has three) and broadcast them.
@case
def max3():
    return variadic("Max", lambda xs: torch.maximum(torch.maximum(xs[0], xs[1]), xs[2]),
                    [(2, 3), (2, 3), (3,)])


@case
def min3():
    return variadic("Min", lambda xs: torch.minimum(torch.minimum(xs[0], xs[1]), xs[2]),
                    [(2, 1, 4), (3, 4), (2, 3, 4)])


@case
def sum4():
    return variadic("Sum", lambda xs: xs[0] + xs[1] + xs[2] + xs[3],
                    [(2, 3), (2, 3), (1, 3), (2, 1)])


@case
def mean3():
    return variadic("Mean", lambda xs: (xs[0] + xs[1] + xs[2]) / 3, [(4,), (2, 4), (4,)])


@case
def max1():
    return variadic("Max", lambda xs: xs[0], [(5,)])


@case
def squeeze_to_scalar():
    x = rand(1, 1)
    nodes = [helper.make_node("Squeeze", ["x", "axes"], ["y"])]
    y = t(x).reshape(())
    return model(nodes, [("x", x.shape)], [("y", ())],
                 [("axes", np.array([0, 1], np.int64))]), [x], y


@case
def cast_constant():
    x = rand(2, 3)
    nodes = [helper.make_node("Constant", [], ["c"], value=numpy_helper.from_array(np.array([1, 2, 3], np.int64))),
             helper.make_node("Cast", ["c"], ["cf"], to=TensorProto.FLOAT),
             helper.make_node("Add", ["x", "cf"], ["y"])]
    y = t(x) + torch.tensor([1.0, 2.0, 3.0])
    return model(nodes, [("x", x.shape)], [("y", y.shape)]), [x], y


def binary_case(op, a, b, reference, **attrs):
    node = helper.make_node(op, ["a", "b"], ["y"], **attrs)
    y = reference(t(a), t(b))
    return model([node], [("a", a.shape), ("b", b.shape)], [("y", y.shape)]), [a, b], y


# MatMul of any ranks, as numpy's matmul.
@case
def matmul_shared_rhs():
    # A 4-D left operand times a 2-D weight: one GEMM over all rows.
    return binary_case("MatMul", rand(2, 3, 4, 5), rand(5, 6), torch.matmul)


@case
def matmul_broadcast_batch():
    return binary_case("MatMul", rand(2, 1, 4, 5), rand(3, 5, 6), torch.matmul)


@case
def matmul_lhs_2d():
    return binary_case("MatMul", rand(4, 5), rand(3, 5, 2), torch.matmul)


@case
def matmul_vector_lhs():
    return binary_case("MatMul", rand(5), rand(2, 5, 3), torch.matmul)


@case
def matmul_vector_rhs():
    return binary_case("MatMul", rand(2, 3, 5), rand(5), torch.matmul)


@case
def matmul_vectors():
    return binary_case("MatMul", rand(5), rand(5), torch.matmul)


def einsum_case(equation, *shapes):
    xs = [rand(*s) for s in shapes]
    names = [f"x{i}" for i in range(len(xs))]
    y = torch.einsum(equation, *[t(x) for x in xs])
    node = helper.make_node("Einsum", names, ["y"], equation=equation)
    return model([node], [(n, x.shape) for n, x in zip(names, xs)], [("y", y.shape)]), xs, y


@case
def einsum_attention_scores():
    # MaxViT's form, with spaces and upper-case letters.
    return einsum_case("B G H I D, B G H J D -> B G H I J", (1, 2, 3, 4, 5), (1, 2, 3, 6, 5))


@case
def einsum_attention_values():
    return einsum_case("bhij,bhjd->bhid", (2, 3, 4, 6), (2, 3, 6, 5))


@case
def einsum_ellipsis():
    return einsum_case("...ij,jk->...ik", (2, 3, 4, 5), (5, 6))


@case
def einsum_outer_sum():
    # k only in the left operand and not in the output: summed first.
    return einsum_case("ik,j->ji", (3, 4), (5,))


@case
def einsum_implicit():
    return einsum_case("ij,jk", (3, 4), (4, 2))


@case
def einsum_transpose():
    return einsum_case("ijk->kij", (2, 3, 4))


@case
def einsum_dot():
    return einsum_case("i,i->", (7,), (7,))


@case
def expand():
    x = rand(3, 1)
    nodes = [helper.make_node("Expand", ["x", "shape"], ["y"])]
    y = t(x).expand(2, 3, 4)
    return model(nodes, [("x", x.shape)], [("y", y.shape)],
                 [("shape", np.array([2, 1, 4], np.int64))]), [x], y


@case
def gather_constant_indices():
    # A run (0, 1) and a single index (4), then a scalar index: ViT's x[:, 0].
    x = rand(2, 5, 3)
    nodes = [helper.make_node("Gather", ["x", "i"], ["g"], axis=1),
             helper.make_node("Gather", ["g", "k"], ["y"], axis=-1)]
    i = np.array([[0, 1], [4, -5]], np.int64)
    y = t(x)[:, torch.from_numpy(i)][..., 2]
    return model(nodes, [("x", x.shape)], [("y", y.shape)],
                 [("i", i), ("k", np.array(2, np.int64))]), [x], y


def resize_case(mode, coordinates, torch_mode, align_corners, scales=None, sizes=None,
                nearest_mode="floor"):
    x = rand(1, 2, 5, 7)
    inputs = ["x", "", "scales" if scales else "", "sizes" if sizes else ""]
    while inputs[-1] == "":
        inputs.pop()
    node = helper.make_node("Resize", inputs, ["y"], mode=mode,
                            coordinate_transformation_mode=coordinates,
                            nearest_mode=nearest_mode)
    kwargs = {"align_corners": align_corners} if torch_mode != "nearest" else {}
    if scales:
        y = F.interpolate(t(x), scale_factor=scales[2:], mode=torch_mode, **kwargs)
    else:
        y = F.interpolate(t(x), size=sizes[2:], mode=torch_mode, **kwargs)
    inits = [("scales", np.array(scales, np.float32))] if scales else []
    inits += [("sizes", np.array(sizes, np.int64))] if sizes else []
    return model([node], [("x", x.shape)], [("y", y.shape)], inits), [x], y


@case
def resize_bilinear_sizes():
    return resize_case("linear", "pytorch_half_pixel", "bilinear", False, sizes=[1, 2, 9, 4])


@case
def resize_bilinear_align_corners():
    return resize_case("linear", "align_corners", "bilinear", True, sizes=[1, 2, 10, 14])


@case
def resize_nearest_scales():
    return resize_case("nearest", "asymmetric", "nearest", None, scales=[1.0, 1.0, 2.0, 3.0])


@case
def resize_bicubic_align_corners():
    return resize_case("cubic", "align_corners", "bicubic", True, sizes=[1, 2, 9, 12])


@case
def resize_bicubic_half_pixel():
    return resize_case("cubic", "half_pixel", "bicubic", False, scales=[1.0, 1.0, 2.0, 2.0])


@case
def resize_nearest_exact():
    # PyTorch's nearest-exact is half_pixel with halves rounded up.
    x = rand(1, 2, 5, 7)
    node = helper.make_node("Resize", ["x", "", "", "sizes"], ["y"], mode="nearest",
                            coordinate_transformation_mode="half_pixel",
                            nearest_mode="round_prefer_ceil")
    y = F.interpolate(t(x), size=(8, 3), mode="nearest-exact")
    return model([node], [("x", x.shape)], [("y", y.shape)],
                 [("sizes", np.array([1, 2, 8, 3], np.int64))]), [x], y


@case
def resize_bicubic_exclude_outside():
    # ONNX's cubic with A = -0.5 and exclude_outside, against a numpy
    # version of ONNX's reference formula.
    x = rand(1, 1, 4, 5)
    node = helper.make_node("Resize", ["x", "", "scales"], ["y"], mode="cubic",
                            cubic_coeff_a=-0.5, exclude_outside=1)

    def axis_weights(n_in, scale):
        n_out = int(np.floor(n_in * scale))
        w = np.zeros((n_out, n_in))
        a = -0.5
        for o in range(n_out):
            xo = (o + 0.5) / scale - 0.5
            base = int(np.floor(xo))
            r = xo - base
            coeffs = [((a * (r + 1) - 5 * a) * (r + 1) + 8 * a) * (r + 1) - 4 * a,
                      ((a + 2) * r - (a + 3)) * r * r + 1,
                      ((a + 2) * (1 - r) - (a + 3)) * (1 - r) * (1 - r) + 1,
                      ((a * (2 - r) - 5 * a) * (2 - r) + 8 * a) * (2 - r) - 4 * a]
            idx = [base - 1, base, base + 1, base + 2]
            keep = [c if 0 <= i < n_in else 0.0 for c, i in zip(coeffs, idx)]
            total = sum(keep)
            for c, i in zip(keep, idx):
                w[o, min(max(i, 0), n_in - 1)] += c / total
        return w

    wh, ww = axis_weights(4, 1.5), axis_weights(5, 2.0)
    y = np.einsum("oh,nchw,pw->ncop", wh, x.astype(np.float64), ww).astype(np.float32)
    return model([node], [("x", x.shape)], [("y", y.shape)],
                 [("scales", np.array([1, 1, 1.5, 2.0], np.float32))]), [x], torch.from_numpy(y)


@case
def shape_arithmetic_mask():
    # Swin's attention-mask recipe on constants: ConstantOfShape, Range,
    # Mod, Equal, Not, Where, ScatterND and an N-D Concat all fold at import;
    # the graph adds the folded mask to x.
    x = rand(4, 6)
    c = lambda name, v: helper.make_node("Constant", [], [name], value=numpy_helper.from_array(v))
    nodes = [
        c("shape", np.array([4, 6], np.int64)),
        helper.make_node("ConstantOfShape", ["shape"], ["zeros"],
                         value=numpy_helper.from_array(np.array([0.0], np.float32))),
        c("start", np.array(0, np.int64)), c("limit", np.array(6, np.int64)),
        c("delta", np.array(1, np.int64)),
        helper.make_node("Range", ["start", "limit", "delta"], ["r"]),
        c("three", np.array(-4, np.int64)),
        helper.make_node("Mod", ["r", "three"], ["m"]),            # Python %: 0 -3 -2 -1 0 -3
        c("zero", np.array(0, np.int64)),
        helper.make_node("Equal", ["m", "zero"], ["eq"]),
        helper.make_node("Not", ["eq"], ["ne"]),
        c("big", np.array(-100.0, np.float32)), c("small", np.array(1.5, np.float32)),
        helper.make_node("Where", ["ne", "big", "small"], ["row"]),  # shape (6,)
        c("idx", np.array([[1], [3]], np.int64)),
        c("ones", np.ones((2, 6), np.float32)),
        helper.make_node("ScatterND", ["zeros", "idx", "ones"], ["scattered"]),
        c("colpart", np.full((4, 2), 2.0, np.float32)),
        c("rest", np.full((4, 4), -1.0, np.float32)),
        helper.make_node("Concat", ["colpart", "rest"], ["cat"], axis=1),
        helper.make_node("Add", ["scattered", "cat"], ["mask0"]),
        helper.make_node("Add", ["mask0", "row"], ["mask"]),
        helper.make_node("Add", ["x", "mask"], ["y"]),
    ]
    m = np.mod(np.arange(6), -4)
    row = np.where(m != 0, -100.0, 1.5).astype(np.float32)
    scattered = np.zeros((4, 6), np.float32)
    scattered[[1, 3]] = 1.0
    cat = np.concatenate([np.full((4, 2), 2.0), np.full((4, 4), -1.0)], axis=1)
    y = x + (scattered + cat + row).astype(np.float32)
    return model(nodes, [("x", x.shape)], [("y", y.shape)]), [x], torch.from_numpy(y)


@case
def dropout_training_ratio_zero():
    # Swin's F.dropout(p=0.0) exports training_mode = true: still the identity.
    x = rand(2, 3)
    c = lambda name, v: helper.make_node("Constant", [], [name], value=numpy_helper.from_array(v))
    nodes = [c("ratio", np.array(0.0, np.float32)), c("train", np.array(True)),
             helper.make_node("Dropout", ["x", "ratio", "train"], ["y", "mask"])]
    return model(nodes, [("x", x.shape)], [("y", x.shape)]), [x], t(x)


def multi_output(nodes, x, outputs, inits=(), opset=13):
    """A model whose outputs are concatenated along the last axis after
    flattening (the runner compares one output)."""
    names = [f"o{i}" for i in range(len(outputs))]
    flat = [helper.make_node("Reshape", [n, "flat"], [n + "f"]) for n in names]
    cat = helper.make_node("Concat", [n + "f" for n in names], ["y"], axis=0)
    y = torch.cat([o.reshape(-1) for o in outputs])
    return (model(nodes + flat + [cat], [("x", x.shape)], [("y", y.shape)],
                  list(inits) + [("flat", np.array([-1], np.int64))], opset=opset), [x], y)


@case
def split_sizes_input():
    x = rand(2, 7, 3)
    nodes = [helper.make_node("Split", ["x", "split"], ["o0", "o1", "o2"], axis=1)]
    outs = torch.split(t(x), [2, 4, 1], dim=1)
    return multi_output(nodes, x, outs, [("split", np.array([2, 4, 1], np.int64))])


@case
def split_equal_parts():
    x = rand(3, 6)
    nodes = [helper.make_node("Split", ["x"], ["o0", "o1", "o2"], axis=-1)]
    return multi_output(nodes, x, torch.split(t(x), 2, dim=-1))


@case
def split_attribute_opset11():
    x = rand(5, 2)
    nodes = [helper.make_node("Split", ["x"], ["o0", "o1"], axis=0, split=[3, 2])]
    return multi_output(nodes, x, torch.split(t(x), [3, 2], dim=0), opset=11)


@case
def tile():
    x = rand(2, 3, 1)
    nodes = [helper.make_node("Tile", ["x", "r"], ["y"])]
    y = t(x).repeat(3, 1, 4)
    return model(nodes, [("x", x.shape)], [("y", y.shape)],
                 [("r", np.array([3, 1, 4], np.int64))]), [x], y


@case
def depth_to_space_dcr():
    x = rand(1, 8, 2, 3)
    nodes = [helper.make_node("DepthToSpace", ["x"], ["y"], blocksize=2, mode="DCR")]
    b = 2
    y = t(x).reshape(1, b, b, 2, 2, 3).permute(0, 3, 4, 1, 5, 2).reshape(1, 2, 4, 6)
    return model(nodes, [("x", x.shape)], [("y", y.shape)]), [x], y


@case
def depth_to_space_crd():
    # CRD is PyTorch's pixel_shuffle.
    x = rand(1, 8, 2, 3)
    nodes = [helper.make_node("DepthToSpace", ["x"], ["y"], blocksize=2, mode="CRD")]
    y = F.pixel_shuffle(t(x), 2)
    return model(nodes, [("x", x.shape)], [("y", y.shape)]), [x], y


@case
def space_to_depth():
    x = rand(2, 3, 4, 6)
    nodes = [helper.make_node("SpaceToDepth", ["x"], ["y"], blocksize=2)]
    b = 2
    y = t(x).reshape(2, 3, 2, b, 3, b).permute(0, 3, 5, 1, 2, 4).reshape(2, 12, 2, 3)
    return model(nodes, [("x", x.shape)], [("y", y.shape)]), [x], y


def conv_transpose_case(output_shape=None, auto_pad=None, strides=(2, 2)):
    x, w, b = rand(1, 3, 5, 4), rand(3, 2, 3, 3), rand(2)
    attrs = {"strides": list(strides)}
    if output_shape:
        attrs["output_shape"] = list(output_shape)
    if auto_pad:
        attrs["auto_pad"] = auto_pad
    node = helper.make_node("ConvTranspose", ["x", "w", "b"], ["y"], **attrs)
    # PyTorch reference: the full transposed convolution, cropped by the
    # pads ONNX derives (total = full - output; the odd one at the end but
    # for SAME_LOWER, as in ONNX's test_convtranspose_autopad_same).
    full = F.conv_transpose2d(t(x), t(w), t(b), stride=strides)
    target = output_shape or [x.shape[2] * strides[0], x.shape[3] * strides[1]]
    crops = []
    for i in range(2):
        total = full.shape[2 + i] - target[i]
        begin = total - total // 2 if auto_pad == "SAME_LOWER" else total // 2
        crops.append(begin)
    y = full[:, :, crops[0]:crops[0] + target[0], crops[1]:crops[1] + target[1]]
    return model([node], [("x", x.shape)], [("y", y.shape)], [("w", w), ("b", b)]), [x], y


@case
def conv_transpose_output_shape():
    return conv_transpose_case(output_shape=[10, 7])


@case
def conv_transpose_same_upper():
    return conv_transpose_case(auto_pad="SAME_UPPER", strides=(2, 3))


@case
def conv_transpose_same_lower():
    return conv_transpose_case(auto_pad="SAME_LOWER", strides=(2, 3))


def arg_case(op, x, reference, **attrs):
    node = helper.make_node(op, ["x"], ["y"], **attrs)
    y = reference(t(x))
    graph = helper.make_graph(
        [node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape)],
        [helper.make_tensor_value_info("y", TensorProto.INT64, y.shape)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), [x], y


@case
def argmax_keepdims():
    return arg_case("ArgMax", rand(3, 5, 4), lambda x: x.argmax(1, keepdim=True), axis=1)


@case
def argmin_last_axis():
    return arg_case("ArgMin", rand(3, 7), lambda x: x.argmin(-1), axis=-1, keepdims=0)


@case
def argmax_ties_select_last():
    # Ties: the last index with select_last_index (torch takes the first;
    # flip, take the first, map back).
    x = np.array([[1, 3, 3, 0], [2, 2, 2, 2], [-np.inf, -np.inf, -5, -5]], np.float32)
    return arg_case("ArgMax", x, lambda v: 3 - v.flip(1).argmax(1), axis=1, keepdims=0,
                    select_last_index=1)


@case
def argmax_ties_first():
    x = np.array([[1, 3, 3, 0], [2, 2, 2, 2], [-np.inf, -np.inf, -np.inf, -np.inf]], np.float32)
    return arg_case("ArgMax", x, lambda v: v.argmax(1), axis=1, keepdims=0)


@case
def layer_norm_last_axis():
    x, w, b = rand(2, 5, 8), rand(8), rand(8)
    nodes = [helper.make_node("LayerNormalization", ["x", "w", "b"], ["y"], epsilon=1e-3)]
    y = F.layer_norm(t(x), (8,), t(w), t(b), eps=1e-3)
    return model(nodes, [("x", x.shape)], [("y", y.shape)], [("w", w), ("b", b)],
                 opset=17), [x], y


@case
def layer_norm_axis1_no_bias():
    x, w = rand(2, 3, 4, 5), rand(3, 4, 5)
    nodes = [helper.make_node("LayerNormalization", ["x", "w"], ["y"], axis=1)]
    y = F.layer_norm(t(x), (3, 4, 5), t(w))
    return model(nodes, [("x", x.shape)], [("y", y.shape)], [("w", w)], opset=17), [x], y


@case
def instance_norm():
    x, w, b = rand(2, 3, 4, 5), rand(3), rand(3)
    nodes = [helper.make_node("InstanceNormalization", ["x", "w", "b"], ["y"], epsilon=1e-4)]
    y = F.instance_norm(t(x), weight=t(w), bias=t(b), eps=1e-4)
    return model(nodes, [("x", x.shape)], [("y", y.shape)], [("w", w), ("b", b)]), [x], y


# ------------------------------------------------------------ run-time indices
def indexed_model(node, data_shape, indices_shape, out_shape, initializers=()):
    """x (f32, unless an initializer) and i (int64) as graph inputs."""
    init_names = {n for n, _ in initializers}
    inputs = ([] if "x" in init_names else
              [helper.make_tensor_value_info("x", TensorProto.FLOAT, data_shape)])
    inputs.append(helper.make_tensor_value_info("i", TensorProto.INT64, indices_shape))
    graph = helper.make_graph(
        [node], "g", inputs,
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, out_shape)],
        [numpy_helper.from_array(v, n) for n, v in initializers])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


@case
def gather_runtime_embedding():
    # A constant table, run-time ids (negative ones count from the end).
    table = rand(10, 6)
    ids = np.array([[0, 9, -1], [3, -10, 4]], np.int64)
    y = t(table)[t(ids) % 10]
    node = helper.make_node("Gather", ["x", "i"], ["y"], axis=0)
    return indexed_model(node, table.shape, ids.shape, y.shape, [("x", table)]), [ids], y


@case
def gather_runtime_axis():
    x = rand(2, 5, 3)
    ids = np.array([4, 0, -2, 2], np.int64)
    y = t(x)[:, t(ids) % 5, :]
    node = helper.make_node("Gather", ["x", "i"], ["y"], axis=-2)
    return indexed_model(node, x.shape, ids.shape, y.shape), [x, ids], y


@case
def gather_elements_negative_axis():
    x = rand(3, 4)
    ids = np.array([[0, 3], [-1, 1], [2, -4]], np.int64)
    y = torch.gather(t(x), 1, t(ids) % 4)
    node = helper.make_node("GatherElements", ["x", "i"], ["y"], axis=-1)
    return indexed_model(node, x.shape, ids.shape, y.shape), [x, ids], y


@case
def conv_transpose_output_shape_beyond_full():
    # output_shape one row and column past the full output: those get no
    # contribution, as PyTorch's output_padding gives them.
    x, w, b = rand(1, 2, 4, 3), rand(2, 3, 3, 3), rand(3)
    y = F.conv_transpose2d(t(x), t(w), t(b), stride=(3, 2), output_padding=(1, 1))
    node = helper.make_node("ConvTranspose", ["x", "w", "b"], ["y"], strides=[3, 2],
                            output_shape=[y.shape[2], y.shape[3]])
    return model([node], [("x", x.shape)], [("y", y.shape)], [("w", w), ("b", b)]), [x], y


# ------------------------------------------- 3-D convolutions (video)
# nn.conv3d; BatchNormalization and GlobalAveragePool on 5-D viewed as 4-D.
def bn_params(c):
    return rand(c), rand(c), rand(c), np.abs(rand(c)) + 0.5


@case
def conv3d_video_block():
    """R3D's pieces: a 3x7x7 stem (stride 1x2x2), batch norm, ReLU, a
    grouped 3x3x3 stride-2 convolution without bias, batch norm, ReLU,
    global average pool over (D, H, W), a classifier."""
    x = rand(2, 3, 4, 12, 12)
    w1, b1 = rand(8, 3, 3, 7, 7) * 0.1, rand(8)
    w2 = rand(8, 4, 3, 3, 3) * 0.1
    fc, fcb = rand(5, 8), rand(5)
    s1, o1, m1, v1 = bn_params(8)
    s2, o2, m2, v2 = bn_params(8)
    h = F.conv3d(t(x), t(w1), t(b1), stride=(1, 2, 2), padding=(1, 3, 3))
    h = F.relu(F.batch_norm(h, t(m1), t(v1), t(s1), t(o1), eps=1e-5))
    h = F.conv3d(h, t(w2), None, stride=2, padding=1, groups=2)
    h = F.relu(F.batch_norm(h, t(m2), t(v2), t(s2), t(o2), eps=1e-5))
    y = F.linear(F.adaptive_avg_pool3d(h, 1).flatten(1), t(fc), t(fcb))
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], name="stem",
                         kernel_shape=[3, 7, 7], strides=[1, 2, 2], pads=[1, 3, 3, 1, 3, 3]),
        helper.make_node("BatchNormalization", ["c1", "s1", "o1", "m1", "v1"], ["n1"]),
        helper.make_node("Relu", ["n1"], ["r1"]),
        helper.make_node("Conv", ["r1", "w2"], ["c2"], name="grouped",
                         strides=[2, 2, 2], pads=[1, 1, 1, 1, 1, 1], group=2),
        helper.make_node("BatchNormalization", ["c2", "s2", "o2", "m2", "v2"], ["n2"]),
        helper.make_node("Relu", ["n2"], ["r2"]),
        helper.make_node("GlobalAveragePool", ["r2"], ["p"]),
        helper.make_node("Flatten", ["p"], ["f"]),
        helper.make_node("Gemm", ["f", "fc", "fcb"], ["y"], transB=1),
    ]
    inits = [("w1", w1), ("b1", b1), ("w2", w2), ("fc", fc), ("fcb", fcb),
             ("s1", s1), ("o1", o1), ("m1", m1), ("v1", v1),
             ("s2", s2), ("o2", o2), ("m2", m2), ("v2", v2)]
    return model(nodes, [("x", x.shape)], [("y", y.shape)], inits), [x], y


@case
def conv3d_same_upper_dilated():
    x, w = rand(1, 4, 5, 7, 6), rand(6, 4, 2, 3, 3)
    # SAME_UPPER at stride 2: outputs ceil(in / 2); the odd pad at the end.
    y = F.conv3d(F.pad(t(x), (1, 2, 2, 2, 0, 1)), t(w), stride=2, dilation=(1, 2, 2))
    node = helper.make_node("Conv", ["x", "w"], ["y"], auto_pad="SAME_UPPER",
                            strides=[2, 2, 2], dilations=[1, 2, 2])
    return model([node], [("x", x.shape)], [("y", y.shape)], [("w", w)]), [x], y


@case
def pool3d_max_dilated_ceil():
    """3-D max pooling as two 2-D pools: padding, a dilated depth, ceil
    mode, S3D's (1, 3, 3) / (1, 2, 2) after it."""
    x = rand(2, 3, 7, 9, 8)
    h = F.max_pool3d(t(x), (3, 3, 2), stride=(2, 2, 1), padding=(1, 1, 0),
                     dilation=(2, 1, 1), ceil_mode=True)
    y = F.max_pool3d(h, (1, 3, 3), stride=(1, 2, 2), padding=(0, 1, 1))
    nodes = [helper.make_node("MaxPool", ["x"], ["h"], kernel_shape=[3, 3, 2],
                              strides=[2, 2, 1], pads=[1, 1, 0, 1, 1, 0],
                              dilations=[2, 1, 1], ceil_mode=1),
             helper.make_node("MaxPool", ["h"], ["y"], kernel_shape=[1, 3, 3],
                              strides=[1, 2, 2], pads=[0, 1, 1, 0, 1, 1])]
    return model(nodes, [("x", x.shape)], [("y", y.shape)]), [x], y


@case
def pool3d_average_padding():
    """3-D average pooling, the padding out of the divisor (ONNX's default)
    and in it."""
    x = rand(1, 4, 5, 7, 6)
    a = F.avg_pool3d(t(x), 3, stride=2, padding=1, count_include_pad=False)
    b = F.avg_pool3d(t(x), (2, 3, 3), stride=(1, 2, 2), padding=(1, 1, 0),
                     count_include_pad=True, ceil_mode=True)
    y = torch.cat([a.flatten(1), b.flatten(1)], 1)
    nodes = [helper.make_node("AveragePool", ["x"], ["a"], kernel_shape=[3, 3, 3],
                              strides=[2, 2, 2], pads=[1] * 6),
             helper.make_node("AveragePool", ["x"], ["b"], kernel_shape=[2, 3, 3],
                              strides=[1, 2, 2], pads=[1, 1, 0, 1, 1, 0],
                              count_include_pad=1, ceil_mode=1),
             helper.make_node("Flatten", ["a"], ["fa"]),
             helper.make_node("Flatten", ["b"], ["fb"]),
             helper.make_node("Concat", ["fa", "fb"], ["y"], axis=1)]
    return model(nodes, [("x", x.shape)], [("y", y.shape)]), [x], y


@case
def batch_norm_1d_and_2d():
    """BatchNorm1d on (N, C, L) and on (N, C) (an MLP's)."""
    x = rand(3, 4, 7)
    s, o, m, v = bn_params(4)
    h = F.batch_norm(t(x), t(m), t(v), t(s), t(o), eps=1e-5)
    y = F.batch_norm(h.mean(2), t(m), t(v), t(s), t(o), eps=1e-5)
    nodes = [helper.make_node("BatchNormalization", ["x", "s", "o", "m", "v"], ["h"]),
             helper.make_node("ReduceMean", ["h"], ["r"], axes=[2], keepdims=0),
             helper.make_node("BatchNormalization", ["r", "s", "o", "m", "v"], ["y"])]
    return model(nodes, [("x", x.shape)], [("y", y.shape)],
                 [("s", s), ("o", o), ("m", m), ("v", v)]), [x], y


@case
def dynamic_conv3d_batch():
    """A dynamic batch through nn.conv3d, 5-D batch norm and pooling."""
    x, w = rand(3, 2, 4, 6, 6), rand(4, 2, 3, 3, 3)
    s, o, m, v = bn_params(4)
    h = F.batch_norm(F.conv3d(t(x), t(w), padding=1), t(m), t(v), t(s), t(o), eps=1e-5)
    y = F.adaptive_avg_pool3d(h, 1)
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], pads=[1] * 6),
             helper.make_node("BatchNormalization", ["c", "s", "o", "m", "v"], ["n"]),
             helper.make_node("GlobalAveragePool", ["n"], ["y"])]
    return model(nodes, [("x", ["b", 2, 4, 6, 6])], [("y", ["b", 4, 1, 1, 1])],
                 [("w", w), ("s", s), ("o", o), ("m", m), ("v", v)]), [x], y


# ------------------------------------------- 1-D convolutions and pools
# Run as 2-D ones over a unit H dimension.
@case
def conv1d_grouped_dilated():
    x, w, b = rand(2, 4, 19), rand(6, 2, 3), rand(6)
    y = F.conv1d(F.pad(t(x), (2, 1)), t(w), t(b), stride=2, dilation=2, groups=2)
    node = helper.make_node("Conv", ["x", "w", "b"], ["y"], pads=[2, 1], strides=[2],
                            dilations=[2], group=2)
    return model([node], [("x", x.shape)], [("y", y.shape)], [("w", w), ("b", b)]), [x], y


@case
def conv_transpose1d_output_padding():
    x, w = rand(1, 3, 7), rand(3, 5, 4)
    y = F.conv_transpose1d(t(x), t(w), stride=3, padding=1, output_padding=2)
    node = helper.make_node("ConvTranspose", ["x", "w"], ["y"], strides=[3], pads=[1, 1],
                            output_padding=[2])
    return model([node], [("x", x.shape)], [("y", y.shape)], [("w", w)]), [x], y


@case
def pool1d_max_then_average():
    x = rand(2, 3, 16)
    y = F.avg_pool1d(F.max_pool1d(t(x), 3, stride=2, padding=1), 2, stride=2,
                     ceil_mode=True)
    nodes = [helper.make_node("MaxPool", ["x"], ["m"], kernel_shape=[3], strides=[2],
                              pads=[1, 1]),
             helper.make_node("AveragePool", ["m"], ["y"], kernel_shape=[2], strides=[2],
                              ceil_mode=1)]
    return model(nodes, [("x", x.shape)], [("y", y.shape)]), [x], y


@case
def pad_reflect_and_edge():
    x = rand(1, 2, 5, 6)
    y = F.pad(F.pad(t(x), (2, 1, 3, 4), mode="reflect"), (0, 2, 1, 0), mode="replicate")
    nodes = [helper.make_node("Pad", ["x", "p1"], ["r"], mode="reflect"),
             helper.make_node("Pad", ["r", "p2"], ["y"], mode="edge")]
    return model(nodes, [("x", x.shape)], [("y", y.shape)],
                 [("p1", np.array([0, 0, 3, 2, 0, 0, 4, 1], np.int64)),
                  ("p2", np.array([0, 0, 1, 0, 0, 0, 0, 2], np.int64))]), [x], y


def maxpool_indices_case(column_major):
    # Ties (rounded values), padding, dilation and ceil_mode. PyTorch's
    # indices count within each (n, c) plane; ONNX's run over the whole
    # tensor (the plane times H * W added), column-major with storage_order 1.
    x = np.round(rand(2, 3, 9, 8) * 2).astype(np.float32)
    _, idx = F.max_pool2d(t(x), 3, stride=2, padding=1, dilation=2, ceil_mode=True,
                          return_indices=True)
    idx = idx.numpy()
    h, w = idx // 8, idx % 8
    inplane = h + w * 9 if column_major else idx
    plane = np.arange(6).reshape(2, 3, 1, 1)
    z = (plane * 72 + inplane).astype(np.int64)
    node = helper.make_node("MaxPool", ["x"], ["y", "z"], kernel_shape=[3, 3], strides=[2, 2],
                            pads=[1, 1, 1, 1], dilations=[2, 2], ceil_mode=1,
                            storage_order=int(column_major))
    return typed_model([node], [("x", x)], ("z", z)), [x], z


@case
def maxpool_indices_row_major():
    return maxpool_indices_case(False)


@case
def maxpool_indices_column_major():
    return maxpool_indices_case(True)


# ------------------------------------------------- typed run-time values
# Booleans, integers and f64 computed at run time: comparisons, logic,
# Where, Cast, Mod, TopK; references from numpy/PyTorch.
ONNX_TYPES = {np.dtype(np.float32): TensorProto.FLOAT, np.dtype(np.float64): TensorProto.DOUBLE,
              np.dtype(np.bool_): TensorProto.BOOL, np.dtype(np.int8): TensorProto.INT8,
              np.dtype(np.int16): TensorProto.INT16, np.dtype(np.int32): TensorProto.INT32,
              np.dtype(np.int64): TensorProto.INT64}


def typed_model(nodes, inputs, output, initializers=(), opset=13):
    """inputs: [(name, array)] (their dtypes and shapes); output: (name, array)."""
    def info(n, a):
        return helper.make_tensor_value_info(n, ONNX_TYPES[a.dtype], a.shape)
    graph = helper.make_graph(
        nodes, "g", [info(n, a) for n, a in inputs], [info(*output)],
        [numpy_helper.from_array(v, n) for n, v in initializers])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


@case
def where_compare_broadcast():
    x, y = rand(3, 4, 5), rand(4, 5)
    mask = x > y  # broadcast compare, then a three-way broadcast select
    z = np.where(mask, x, np.float32(-2.0)).astype(np.float32)
    nodes = [helper.make_node("Greater", ["x", "y"], ["m"]),
             helper.make_node("Where", ["m", "x", "c"], ["z"])]
    return typed_model(nodes, [("x", x), ("y", y)], ("z", z),
                       [("c", np.array([-2.0], np.float32))]), [x, y], z


@case
def logic_bool_inputs():
    a = RNG.random((2, 3, 17)) > 0.5
    b = RNG.random((3, 17)) > 0.5
    # A constant mask of more than 16 elements (stays a dense i1 constant).
    c = RNG.random((3, 17)) > 0.3
    z = np.logical_or(np.logical_and(a, np.logical_not(b)), np.logical_xor(a, c))
    nodes = [helper.make_node("Not", ["b"], ["nb"]),
             helper.make_node("And", ["a", "nb"], ["p"]),
             helper.make_node("Xor", ["a", "c"], ["q"]),
             helper.make_node("Or", ["p", "q"], ["z"])]
    return typed_model(nodes, [("a", a), ("b", b)], ("z", z), [("c", c)]), [a, b], z


@case
def compare_int_equal_less_equal():
    x = RNG.integers(-5, 5, (4, 6)).astype(np.int32)
    y = RNG.integers(-5, 5, (6,)).astype(np.int32)
    z = np.logical_or(x == y, x <= -3)
    nodes = [helper.make_node("Equal", ["x", "y"], ["e"]),
             helper.make_node("LessOrEqual", ["x", "k"], ["l"]),
             helper.make_node("Or", ["e", "l"], ["z"])]
    return typed_model(nodes, [("x", x), ("y", y)], ("z", z),
                       [("k", np.array(-3, np.int32))]), [x, y], z


@case
def cast_chain():
    x = (rand(5, 7) * 10).astype(np.float32)
    x[0, :3] = [2.5, -2.5, 0.0]
    # f32 -> i32 truncates toward zero; -> f64; * a f64 constant; -> bool
    # (non-zero); -> f32.
    as_int = np.trunc(x).astype(np.int32)
    scaled = as_int.astype(np.float64) * np.float64(0.5)
    z = np.stack([scaled.astype(np.float32), (scaled != 0).astype(np.float32)])
    nodes = [helper.make_node("Cast", ["x"], ["i"], to=TensorProto.INT32),
             helper.make_node("Cast", ["i"], ["d"], to=TensorProto.DOUBLE),
             helper.make_node("Mul", ["d", "half"], ["s"]),
             helper.make_node("Cast", ["s"], ["f"], to=TensorProto.FLOAT),
             helper.make_node("Cast", ["s"], ["b"], to=TensorProto.BOOL),
             helper.make_node("CastLike", ["b", "x"], ["bf"]),
             helper.make_node("Unsqueeze", ["f", "zero"], ["f1"]),
             helper.make_node("Unsqueeze", ["bf", "zero"], ["b1"]),
             helper.make_node("Concat", ["f1", "b1"], ["z"], axis=0)]
    return typed_model(nodes, [("x", x)], ("z", z),
                       [("half", np.array([0.5], np.float64)),
                        ("zero", np.array([0], np.int64))], opset=15), [x], z


@case
def mod_int_signs():
    # fmod = 0 takes the divisor's sign (Python's %), fmod = 1 the
    # dividend's (C's fmod); a 0 divisor gives 0 (DLAS's choice: ONNX
    # leaves it undefined, x86's idiv would trap).
    x = np.array([[7, -7, 7, -7, 5, -9223372036854775807 - 1]], np.int64)
    y = np.array([[3, 3, -3, -3, 0, -1]], np.int64)
    safe = np.where(y == 0, 1, y)
    python = np.where(y == 0, 0, np.mod(x, safe))
    c = np.where(y == 0, 0, np.fmod(x, safe))
    z = np.concatenate([python, c])
    nodes = [helper.make_node("Mod", ["x", "y"], ["p"], fmod=0),
             helper.make_node("Mod", ["x", "y"], ["c"], fmod=1),
             helper.make_node("Concat", ["p", "c"], ["z"], axis=0)]
    return typed_model(nodes, [("x", x), ("y", y)], ("z", z)), [x, y], z


@case
def div_int_by_zero_and_minus_one():
    x = np.array([7, -7, 9, -9223372036854775807 - 1, 6], np.int64)
    y = np.array([2, 2, 0, -1, -4], np.int64)
    # Truncating division; 0 for a 0 divisor; the lowest value / -1 wraps.
    z = np.array([3, -3, 0, -9223372036854775807 - 1, -1], np.int64)
    node = helper.make_node("Div", ["x", "y"], ["z"])
    return typed_model([node], [("x", x), ("y", y)], ("z", z)), [x, y], z


@case
def mod_float_fmod():
    x, y = rand(4, 5) * 5, rand(5) + 3
    z = np.fmod(x, y).astype(np.float32)
    node = helper.make_node("Mod", ["x", "y"], ["z"], fmod=1)
    return typed_model([node], [("x", x), ("y", y)], ("z", z)), [x, y], z


@case
def matmul_f64_constant_weight():
    # f64 GEMMs take the generic path (the microkernels are f32 ones).
    a, b = RNG.standard_normal((33, 48)), RNG.standard_normal((48, 40))
    z = a @ b
    node = helper.make_node("MatMul", ["a", "b"], ["z"])
    return typed_model([node], [("a", a)], ("z", z), [("b", b)]), [a], z


def topk_reference(x, k, axis, largest):
    # A stable sort: of equal values the lower index first, as ONNX asks.
    order = np.argsort(-x if largest else x, axis=axis, kind="stable")
    idx = np.take(order, np.arange(k), axis=axis)
    return np.take_along_axis(x, idx, axis=axis), idx.astype(np.int64)


@case
def topk_values_ties():
    x = np.round(rand(3, 12) * 2).astype(np.float32)  # many ties
    values, _ = topk_reference(x, 5, 1, True)
    node = helper.make_node("TopK", ["x", "k"], ["v", "i"], axis=-1)
    return typed_model([node], [("x", x)], ("v", values),
                       [("k", np.array([5], np.int64))]), [x], values


@case
def topk_indices_smallest_axis0():
    x = RNG.integers(-3, 3, (9, 2, 4)).astype(np.int32)
    _, indices = topk_reference(x, 4, 0, False)
    node = helper.make_node("TopK", ["x", "k"], ["v", "i"], axis=0, largest=0)
    return typed_model([node], [("x", x)], ("i", indices),
                       [("k", np.array([4], np.int64))]), [x], indices


@case
def pow_int_base_float_exponent():
    x = np.array([[2, -3, 5, 0]], np.int64)
    y = np.array([3.0, 2.0, 0.5, 2.0], np.float32)
    # The result has the base's type: numpy's float power truncated.
    z = np.trunc(np.power(x.astype(np.float64), y.astype(np.float64))).astype(np.int64)
    node = helper.make_node("Pow", ["x", "y"], ["z"])
    return typed_model([node], [("x", x), ("y", y)], ("z", z)), [x, y], z


@case
def typed_constants_f64_i8_i16():
    # Constants of more than 16 elements become resource blobs in their own
    # element type.
    d, cd = RNG.standard_normal((4, 6)), RNG.standard_normal((4, 6))
    b = RNG.integers(-100, 100, (5, 5)).astype(np.int8)
    cb = RNG.integers(-27, 27, (5, 5)).astype(np.int8)
    h = RNG.integers(-1000, 1000, (20,)).astype(np.int16)
    ch = RNG.integers(-1000, 1000, (20,)).astype(np.int16)
    z = np.concatenate([(d * cd).reshape(-1), (b + cb).astype(np.float64).reshape(-1),
                        np.maximum(h, ch).astype(np.float64)])
    nodes = [helper.make_node("Mul", ["d", "cd"], ["p"]),
             helper.make_node("Add", ["b", "cb"], ["q"]),
             helper.make_node("Max", ["h", "ch"], ["r"]),
             helper.make_node("Reshape", ["p", "flat"], ["p1"]),
             helper.make_node("Cast", ["q"], ["q0"], to=TensorProto.DOUBLE),
             helper.make_node("Reshape", ["q0", "flat"], ["q1"]),
             helper.make_node("Cast", ["r"], ["r1"], to=TensorProto.DOUBLE),
             helper.make_node("Concat", ["p1", "q1", "r1"], ["z"], axis=0)]
    return typed_model(nodes, [("d", d), ("b", b), ("h", h)], ("z", z),
                       [("cd", cd), ("cb", cb), ("ch", ch),
                        ("flat", np.array([-1], np.int64))], opset=14), [d, b, h], z


# ------------------------------------------------------------ recurrent
# Import only (import_*: "run" skips them): the numbers are checked by
# test/Integration/recurrent.test.
def recurrent_node(op, name, seq=3, batch=2, features=4, hidden=5, dirs=1, inputs=None,
                   graph_inputs=(), **attrs):
    gates = {"LSTM": 4, "GRU": 3, "RNN": 1}[op]
    inits = [("W", rand(dirs, gates * hidden, features)), ("R", rand(dirs, gates * hidden, hidden))]
    node = helper.make_node(op, inputs or ["x", "W", "R"], ["y", "y_h"], name=name, **attrs)
    graph = helper.make_graph(
        [node], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, (seq, batch, features))]
        + list(graph_inputs),
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None),
         helper.make_tensor_value_info("y_h", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(v, n) for n, v in inits])
    return import_only(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)]))


@case
def import_lstm_batchwise_activations():
    # layout 1; alpha/beta are consumed by the functions that read them:
    # HardSigmoid takes alpha 0.3 and beta 0.4, LeakyRelu alpha 0.1.
    return recurrent_node("LSTM", "lstm1", layout=1, hidden_size=5,
                          activations=["HardSigmoid", "LeakyRelu", "Tanh"],
                          activation_alpha=[0.3, 0.1], activation_beta=[0.4], clip=2.0)


@case
def import_gru_lens_input():
    lens = helper.make_tensor_value_info("lens", TensorProto.INT32, (2,))
    return recurrent_node("GRU", "gru1", inputs=["x", "W", "R", "", "lens"],
                          graph_inputs=[lens], direction="reverse", linear_before_reset=1)


# Ops composed from other nn ops (lib/Target/ONNX/CompositeOps.cpp) and the
# trigonometric family, against PyTorch or a numpy transcription of the
# ONNX definition.

@case
def trigonometry():
    x = (RNG.uniform(-0.9, 0.9, (3, 5))).astype(np.float32)
    x[0, :3] = [0.0, -0.0, 0.5]
    ops = ["Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Atanh", "Sign"]
    nodes = [helper.make_node(op, ["x"], [f"o{i}"]) for i, op in enumerate(ops)]
    # acosh needs x >= 1: acosh(1 + x^2).
    nodes += [helper.make_node("Mul", ["x", "x"], ["sq"]),
              helper.make_node("Add", ["sq", "one"], ["shifted"]),
              helper.make_node("Acosh", ["shifted"], [f"o{len(ops)}"])]
    tx = t(x).double()
    outs = [torch.tan(tx), torch.asin(tx), torch.acos(tx), torch.atan(tx), torch.sinh(tx),
            torch.cosh(tx), torch.asinh(tx), torch.atanh(tx), torch.sign(tx),
            torch.acosh(1 + tx * tx)]
    return multi_output(nodes, x, [o.float() for o in outs],
                        [("one", np.array([1.0], np.float32))])


@case
def composite_activations():
    x = rand(4, 9) * 2
    nodes = [helper.make_node("Celu", ["x"], ["o0"], alpha=0.7),
             helper.make_node("ThresholdedRelu", ["x"], ["o1"], alpha=0.3),
             helper.make_node("Shrink", ["x"], ["o2"], lambd=0.4, bias=0.4),
             helper.make_node("Shrink", ["x"], ["o3"], lambd=0.6)]
    tx = t(x)
    outs = [F.celu(tx, 0.7), torch.where(tx > 0.3, tx, torch.zeros_like(tx)),
            F.softshrink(tx, 0.4), F.hardshrink(tx, 0.6)]
    return multi_output(nodes, x, outs)


def lrn_reference(x, size, alpha, beta, bias):
    """ONNX's LRN: floor((size - 1) / 2) channels before, ceil after."""
    before, after = (size - 1) // 2, size - 1 - (size - 1) // 2
    sq = np.pad(x.astype(np.float64) ** 2,
                [(0, 0), (before, after)] + [(0, 0)] * (x.ndim - 2))
    total = sum(sq[:, i:i + x.shape[1]] for i in range(size))
    return (x / (bias + alpha / size * total) ** beta).astype(np.float32)


@case
def lrn_odd():
    # AlexNet's and GoogLeNet's LRN; PyTorch's agrees with ONNX for odd sizes.
    x = rand(2, 7, 5, 6) * 3
    node = helper.make_node("LRN", ["x"], ["y"], size=5, alpha=1e-3, beta=0.75, bias=2.0)
    y = F.local_response_norm(t(x), 5, alpha=1e-3, beta=0.75, k=2.0)
    return model([node], [("x", x.shape)], [("y", y.shape)]), [x], y


@case
def lrn_even_rank3():
    x = rand(2, 6, 9) * 3
    node = helper.make_node("LRN", ["x"], ["y"], size=4, alpha=0.5, beta=0.6)
    y = lrn_reference(x, 4, 0.5, 0.6, 1.0)
    return model([node], [("x", x.shape)], [("y", y.shape)]), [x], torch.from_numpy(y)


@case
def global_max_pool():
    x = rand(2, 3, 4, 5)
    node = helper.make_node("GlobalMaxPool", ["x"], ["y"])
    y = torch.amax(t(x), dim=(2, 3), keepdim=True)
    return model([node], [("x", x.shape)], [("y", y.shape)]), [x], y


@case
def global_max_pool_1d():
    x = rand(2, 3, 7)
    node = helper.make_node("GlobalMaxPool", ["x"], ["y"])
    y = torch.amax(t(x), dim=2, keepdim=True)
    return model([node], [("x", x.shape)], [("y", y.shape)]), [x], y


@case
def mean_variance_normalization():
    x = rand(3, 4, 5, 2) * 4 + 1
    node = helper.make_node("MeanVarianceNormalization", ["x"], ["y"], axes=[0, 2])
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=(0, 2), keepdims=True)
    std = np.sqrt(((x64 - mean) ** 2).mean(axis=(0, 2), keepdims=True))
    y = ((x64 - mean) / (std + 1e-9)).astype(np.float32)
    return model([node], [("x", x.shape)], [("y", y.shape)]), [x], torch.from_numpy(y)


@case
def trilu_batched():
    x = rand(2, 4, 6)
    nodes = [helper.make_node("Trilu", ["x", "k"], ["o0"], upper=0),
             helper.make_node("Trilu", ["x"], ["o1"])]
    outs = [torch.tril(t(x), -1), torch.triu(t(x))]
    return multi_output(nodes, x, outs, [("k", np.array(-1, np.int64))], opset=14)


@case
def hardmax():
    x = rand(2, 5, 3)
    nodes = [helper.make_node("Hardmax", ["x"], ["o0"], axis=1),
             helper.make_node("Hardmax", ["x"], ["o1"])]
    outs = [F.one_hot(torch.argmax(t(x), 1), 5).permute(0, 2, 1).float(),
            F.one_hot(torch.argmax(t(x), 2), 3).float()]
    return multi_output(nodes, x, outs)


@case
def hardmax_opset11_flattened():
    # Before opset 13 the input is flattened to 2-D at the axis.
    x = rand(2, 3, 4)
    node = helper.make_node("Hardmax", ["x"], ["y"], axis=1)
    flat = x.reshape(2, 12)
    y = np.zeros_like(flat)
    y[np.arange(2), flat.argmax(1)] = 1
    return (model([node], [("x", x.shape)], [("y", x.shape)], opset=11), [x],
            torch.from_numpy(y.reshape(x.shape)))


@case
def one_hot():
    # Float indices truncate; negative ones count from depth; 7 and -6 are
    # out of range (a row of 'off').
    x = np.array([[0.0, -1.0, 4.0], [2.9, 7.0, -6.0]], np.float32)
    node = helper.make_node("OneHot", ["x", "depth", "values"], ["y"], axis=1)
    idx = x.astype(np.int64)
    y = np.full((2, 5, 3), -2.0, np.float32)
    for i in range(2):
        for j in range(3):
            k = idx[i, j] + 5 if idx[i, j] < 0 else idx[i, j]
            if 0 <= k < 5:
                y[i, k, j] = 3.5
    return (model([node], [("x", x.shape)], [("y", y.shape)],
                  [("depth", np.array(5, np.int64)), ("values", np.array([-2.0, 3.5], np.float32))]),
            [x], torch.from_numpy(y))


@case
def nan_inf_tests():
    x = rand(2, 6)
    x[0, 1], x[0, 4], x[1, 2], x[1, 5] = np.nan, np.inf, -np.inf, np.nan
    c = lambda name, v: helper.make_node("Constant", [], [name], value=numpy_helper.from_array(v))
    nodes = [c("one", np.array(1.0, np.float32)), c("zero", np.array(0.0, np.float32)),
             helper.make_node("IsNaN", ["x"], ["nan"]),
             helper.make_node("IsInf", ["x"], ["inf"]),
             helper.make_node("IsInf", ["x"], ["neginf"], detect_positive=0),
             helper.make_node("Where", ["nan", "one", "zero"], ["o0"]),
             helper.make_node("Where", ["inf", "one", "zero"], ["o1"]),
             helper.make_node("Where", ["neginf", "one", "zero"], ["o2"])]
    tx = t(x)
    outs = [torch.isnan(tx).float(), torch.isinf(tx).float(), torch.isneginf(tx).float()]
    return multi_output(nodes, x, outs)


@case
def cumsum():
    # Along a middle axis (vectorized slices), and the first and last
    # axis exclusive and reversed.
    x = rand(3, 37, 19)
    nodes = [helper.make_node("CumSum", ["x", "a1"], ["o0"]),
             helper.make_node("CumSum", ["x", "a0"], ["o1"], exclusive=1),
             helper.make_node("CumSum", ["x", "a2"], ["o2"], reverse=1),
             helper.make_node("CumSum", ["x", "a2"], ["o3"], reverse=1, exclusive=1)]
    tx = t(x).double()
    rev = torch.flip(torch.cumsum(torch.flip(tx, [2]), 2), [2])
    outs = [torch.cumsum(tx, 1), torch.cumsum(tx, 0) - tx, rev, rev - tx]
    return multi_output(nodes, x, [o.float() for o in outs],
                        [("a0", np.array(0, np.int64)), ("a1", np.array(-2, np.int32)),
                         ("a2", np.array([2], np.int64))])


@case
def dynamic_cumsum():
    # Position ids as exported from attention masks: a cumulative sum along
    # a sequence whose batch and length are symbolic.
    x = rand(2, 11)
    node = helper.make_node("CumSum", ["x", "axis"], ["y"])
    y = torch.cumsum(t(x).double(), 1).float()
    return (model([node], [("x", ("batch", "seq"))], [("y", ("batch", "seq"))],
                  [("axis", np.array(1, np.int64))]), [x], y)


def sequence_positions_graph():
    """Positions of a sequence whose batch and length are symbolic, as
    transformer exports compute them: Range(0, T, 1) into an embedding
    table (GPT-2's arange), a Range with a run-time start and a negative
    delta, and the cumulative sum of an INT64 ConstantOfShape of the input's
    run-time shape (RoBERTa's position ids from a mask of ones)."""
    c = lambda name, v: helper.make_node("Constant", [], [name], value=numpy_helper.from_array(v))
    nodes = [c("i1", np.array(1, np.int64)), c("zero", np.array(0, np.int64)),
             c("one", np.array(1, np.int64)), c("minus2", np.array(-2, np.int64)),
             c("minus1", np.array(-1, np.int64)), c("ax1", np.array(1, np.int64)),
             c("hw", np.array([0, 1], np.int64)),
             helper.make_node("Shape", ["x"], ["s"]),
             helper.make_node("Gather", ["s", "i1"], ["T"], axis=0),
             helper.make_node("Range", ["zero", "T", "one"], ["pos"]),
             helper.make_node("Gather", ["table", "pos"], ["emb"], axis=0),
             helper.make_node("Add", ["x", "emb"], ["o0"]),
             # T, T-2, ... down to (not reaching) -1, as floats.
             helper.make_node("Range", ["T", "minus1", "minus2"], ["down"]),
             helper.make_node("Cast", ["down"], ["o1"], to=TensorProto.FLOAT),
             # cumsum(ones(x.shape[:2]), 1) - 1, times x.
             helper.make_node("Slice", ["s", "hw0", "hw1"], ["bt"]),
             helper.make_node("ConstantOfShape", ["bt"], ["ones"],
                              value=numpy_helper.from_array(np.array([1], np.int64))),
             helper.make_node("CumSum", ["ones", "ax1"], ["csum"]),
             helper.make_node("Sub", ["csum", "one"], ["ids"]),
             helper.make_node("Cast", ["ids"], ["idsf"], to=TensorProto.FLOAT),
             helper.make_node("Unsqueeze", ["idsf", "m1"], ["ids3"]),
             helper.make_node("Mul", ["x", "ids3"], ["o2"])]
    return nodes


def dynamic_positions_case(batch, length):
    x = rand(batch, length, 4)
    table = rand(16, 4)
    names = [f"o{i}" for i in range(3)]
    flat = [helper.make_node("Reshape", [n, "flat"], [n + "f"]) for n in names]
    cat = helper.make_node("Concat", [n + "f" for n in names], ["y"], axis=0)
    ids = np.broadcast_to(np.arange(length, dtype=np.float32), (batch, length))
    outs = [x + table[:length], np.arange(length, -1, -2).astype(np.float32),
            x * ids[:, :, None]]
    y = np.concatenate([o.reshape(-1) for o in outs])
    m = model(sequence_positions_graph() + flat + [cat], [("x", ["b", "t", 4])], [("y", ["n"])],
              [("table", table), ("flat", np.array([-1], np.int64)),
               ("hw0", np.array([0], np.int64)), ("hw1", np.array([2], np.int64)),
               ("m1", np.array([-1], np.int64))])
    return m, [x], torch.from_numpy(y)


for _b, _t in ((1, 5), (2, 9)):
    CASES[f"dynamic_positions_b{_b}_t{_t}"] = (
        lambda b=_b, t_=_t: dynamic_positions_case(b, t_))


def gather_nd_reference(data, indices, batch_dims=0):
    """ONNX's GatherND, transcribed."""
    batch = data.shape[:batch_dims]
    out = []
    flat_data = data.reshape((-1,) + data.shape[batch_dims:])
    flat_idx = indices.reshape((-1,) + indices.shape[batch_dims:])
    for b in range(flat_data.shape[0]):
        for idx in flat_idx[b].reshape(-1, indices.shape[-1]):
            out.append(flat_data[b][tuple(idx)])
    return np.array(out).reshape(batch + indices.shape[batch_dims:-1] + data.shape[batch_dims + indices.shape[-1]:])


@case
def gather_nd():
    # Two coordinates (one negative), one coordinate (whole rows), batch
    # dims; the last case's indices arrive at run time (a float input cast).
    x = rand(4, 5, 3)
    i2 = np.array([[1, -2], [3, 0], [0, 4]], np.int64)
    i1 = np.array([[[2]], [[-1]]], np.int64)
    ib = np.array([[[1], [0]], [[3], [2]], [[4], [4]], [[0], [1]]], np.int64)
    nodes = [helper.make_node("GatherND", ["x", "i2"], ["o0"]),
             helper.make_node("GatherND", ["x", "i1"], ["o1"]),
             helper.make_node("GatherND", ["x", "ib"], ["o2"], batch_dims=1),
             helper.make_node("Abs", ["x"], ["xabs"]),
             helper.make_node("Cast", ["xabs"], ["xa"], to=TensorProto.INT64),
             helper.make_node("Slice", ["xa", "s0", "s1", "s2"], ["rt"]),
             helper.make_node("Mod", ["rt", "m"], ["rtm"]),
             helper.make_node("GatherND", ["x", "rtm"], ["o3"])]
    xi = np.abs(np.trunc(x).astype(np.int64))[0, :, :2] % np.array([4, 5])
    outs = [gather_nd_reference(x, i2), gather_nd_reference(x, i1),
            gather_nd_reference(x, ib, 1), gather_nd_reference(x, xi)]
    return multi_output(nodes, x, [torch.from_numpy(np.ascontiguousarray(o)) for o in outs],
                        [("i2", i2), ("i1", i1), ("ib", ib),
                         ("s0", np.array([0, 0], np.int64)), ("s1", np.array([1, 2], np.int64)),
                         ("s2", np.array([0, 2], np.int64)), ("m", np.array([4, 5], np.int64))])


@case
def eye_like():
    x = rand(3, 5)
    nodes = [helper.make_node("EyeLike", ["x"], ["eye"], k=1),
             helper.make_node("Add", ["x", "eye"], ["y"])]
    y = x + np.eye(3, 5, k=1, dtype=np.float32)
    return model(nodes, [("x", x.shape)], [("y", y.shape)]), [x], torch.from_numpy(y)


@case
def error_rnn_activation():
    return recurrent_node("RNN", "rnn1", activations=["Gelu"])


@case
def error_rnn_hidden_size():
    return recurrent_node("RNN", "rnn2", hidden_size=6)


@case
def error_rnn_direction():
    return recurrent_node("RNN", "rnn3", direction="sideways")


@case
def error_rnn_activation_count():
    return recurrent_node("RNN", "rnn4", dirs=2, direction="bidirectional",
                          activations=["Tanh"])


@case
def error_rnn_extra_alpha():
    return recurrent_node("RNN", "rnn5", activations=["Tanh"], activation_alpha=[0.5])


# ------------------------------------------------------------ errors
def import_only(m):
    return m, None, None


@case
def error_unsupported_op():
    node = helper.make_node("Det", ["x"], ["y"], name="det7")
    return import_only(model([node], [("x", (2, 2))], [("y", ())]))


@case
def error_onehot_runtime_depth():
    node = helper.make_node("OneHot", ["x", "depth", "values"], ["y"], name="onehot1")
    return import_only(model([node], [("x", (3,)), ("depth", (1,)), ("values", (2,))],
                             [("y", (3, 4))]))


@case
def error_lrn_size():
    node = helper.make_node("LRN", ["x"], ["y"], name="lrn2", size=0)
    return import_only(model([node], [("x", (1, 4, 2, 2))], [("y", (1, 4, 2, 2))]))


@case
def error_trilu_dynamic():
    node = helper.make_node("Trilu", ["x"], ["y"], name="trilu3")
    return import_only(model([node], [("x", (2, "rows", 4))], [("y", (2, "rows", 4))], opset=14))


@case
def error_eyelike_dynamic():
    node = helper.make_node("EyeLike", ["x"], ["y"], name="eye4")
    return import_only(model([node], [("x", ("n", 4))], [("y", ("n", 4))]))


@case
def error_celu_alpha_zero():
    node = helper.make_node("Celu", ["x"], ["y"], name="celu5", alpha=0.0)
    return import_only(model([node], [("x", (2, 2))], [("y", (2, 2))]))


@case
def error_range_runtime_delta():
    c = lambda name, v: helper.make_node("Constant", [], [name], value=numpy_helper.from_array(v))
    nodes = [c("i0", np.array(0, np.int64)),
             helper.make_node("Shape", ["x"], ["s"]),
             helper.make_node("Gather", ["s", "i0"], ["n"], axis=0),
             helper.make_node("Range", ["i0", "n", "n"], ["r"], name="range6"),
             helper.make_node("Cast", ["r"], ["y"], to=TensorProto.FLOAT)]
    return import_only(model(nodes, [("x", ("b", 2))], [("y", (1,))]))


@case
def error_missing_initializer():
    node = helper.make_node("Add", ["x", "w"], ["y"], name="add3")
    m = model([node], [("x", (2, 2))], [("y", (2, 2))])
    return import_only(m)


@case
def error_split_dynamic_axis():
    # Split along the symbolic batch: the pieces' sizes are unknown.
    node = helper.make_node("Split", ["x", "split"], ["a", "b"], axis=0)
    return import_only(model([node], [("x", ["b", 3])], [("a", [1, 3]), ("b", [1, 3])],
                             [("split", np.array([1, 1], np.int64))]))


@case
def error_mismatched_shapes():
    node = helper.make_node("Conv", ["x", "w"], ["y"], name="conv5")
    m = model([node], [("x", (1, 3, 8, 8))], [("y", (1, 4, 6, 6))], [("w", rand(4, 2, 3, 3))])
    return import_only(m)


@case
def error_opset():
    node = helper.make_node("Relu", ["x"], ["y"])
    return import_only(model([node], [("x", (2,))], [("y", (2,))], opset=30))


@case
def old_opset():
    # Opset 9: Slice still takes starts/ends/axes as attributes; ONNX's
    # version converter turns them into the inputs opset 11 has.
    x = rand(2, 5, 3)
    nodes = [helper.make_node("Slice", ["x"], ["s"], starts=[1], ends=[4], axes=[1]),
             helper.make_node("Relu", ["s"], ["y"])]
    y = F.relu(t(x)[:, 1:4, :])
    return model(nodes, [("x", x.shape)], [("y", y.shape)], opset=9), [x], y


# Opsets 18-22: Debian's libonnx knows up to 17; DLAS rewrites the ops
# that changed (NewerOpsets.cpp). The onnx package here (1.12) cannot
# check these models, so they are built by hand.

def i64(name, values):
    return (name, np.array(values, np.int64))


@case
def opset18_reduce_axes_input():
    # ReduceMean over axes given as an input (opset 18), ReduceMax over
    # axes from a Constant node, then ReduceL2 with noop_with_empty_axes and
    # no axes (Identity).
    x = rand(2, 3, 4, 5)
    nodes = [helper.make_node("ReduceMean", ["x", "axes"], ["m"], keepdims=1),
             const("max_axes", [-1]),
             helper.make_node("ReduceMax", ["m", "max_axes"], ["mx"], keepdims=0),
             helper.make_node("ReduceL2", ["mx"], ["y"], noop_with_empty_axes=1)]
    y = t(x).mean(dim=(1, 2), keepdim=True).amax(dim=-1)
    return model(nodes, [("x", x.shape)], [("y", y.shape)], [i64("axes", [1, 2])],
                 opset=18), [x], y


@case
def opset18_reduce_all_axes():
    # ReduceSumSquare without axes reduces every dim (keepdims 0).
    x = rand(3, 4)
    node = helper.make_node("ReduceSumSquare", ["x"], ["y"], keepdims=0)
    y = (t(x) ** 2).sum()
    return model([node], [("x", x.shape)], [("y", ())], opset=18), [x], y


@case
def opset18_pad_axes():
    # Pad with an 'axes' input: pads [1, 2, 0, 3] for axes (2, -1), reflect.
    x = rand(1, 3, 5, 6)
    node = helper.make_node("Pad", ["x", "pads", "", "axes"], ["y"], mode="reflect")
    y = F.pad(t(x), (2, 3, 1, 0), mode="reflect")
    return model([node], [("x", x.shape)], [("y", y.shape)],
                 [i64("pads", [1, 2, 0, 3]), i64("axes", [2, -1])], opset=18), [x], y


@case
def opset18_split_uneven():
    # num_outputs 3 over 7 columns: 3, 3 and 1 (opset 18's smaller last part).
    x = rand(2, 7)
    node = helper.make_node("Split", ["x"], ["a", "b", "c"], axis=1, num_outputs=3)
    add = helper.make_node("Add", ["a", "b"], ["ab"])
    cat = helper.make_node("Concat", ["ab", "c"], ["y"], axis=1)
    xt = t(x)
    y = torch.cat([xt[:, 0:3] + xt[:, 3:6], xt[:, 6:7]], dim=1)
    return model([node, add, cat], [("x", x.shape)], [("y", y.shape)], opset=18), [x], y


@case
def opset18_split_after_matmul():
    # The uneven split's extent comes from shape inference through a MatMul
    # whose weight (7 KB) lends inference only its dims.
    x, w = rand(2, 256), rand(256, 7)
    nodes = [helper.make_node("MatMul", ["x", "w"], ["h"]),
             helper.make_node("Split", ["h"], ["a", "b", "c"], axis=1, num_outputs=3),
             helper.make_node("Add", ["a", "b"], ["ab"]),
             helper.make_node("Concat", ["ab", "c"], ["y"], axis=1)]
    h = t(x) @ t(w)
    y = torch.cat([h[:, 0:3] + h[:, 3:6], h[:, 6:7]], dim=1)
    return model(nodes, [("x", x.shape)], [("y", y.shape)], [("w", w)], opset=18), [x], y


@case
def opset18_mish():
    x = rand(2, 9) * 3
    node = helper.make_node("Mish", ["x"], ["y"])
    return model([node], [("x", x.shape)], [("y", x.shape)], opset=18), [x], F.mish(t(x))


def gelu_case(approximate):
    x = rand(3, 8) * 2
    node = helper.make_node("Gelu", ["x"], ["y"], approximate=approximate)
    y = F.gelu(t(x), approximate=approximate)
    return model([node], [("x", x.shape)], [("y", x.shape)], opset=20), [x], y


@case
def opset20_gelu():
    return gelu_case("none")


@case
def opset20_gelu_tanh():
    return gelu_case("tanh")


@case
def opset18_group_norm():
    # Opset 18: scale and bias per group.
    x, scale, bias = rand(2, 6, 4, 3), rand(3), rand(3)
    node = helper.make_node("GroupNormalization", ["x", "scale", "bias"], ["y"],
                            num_groups=3, epsilon=1e-3)
    g = F.group_norm(t(x), 3, eps=1e-3).reshape(2, 3, -1)
    y = (g * t(scale)[:, None] + t(bias)[:, None]).reshape(x.shape)
    return model([node], [("x", x.shape)], [("y", x.shape)],
                 [("scale", scale), ("bias", bias)], opset=18), [x], y


@case
def opset21_group_norm():
    # Opset 21: scale and bias per channel, as PyTorch's GroupNorm.
    x, scale, bias = rand(2, 6, 5), rand(6), rand(6)
    node = helper.make_node("GroupNormalization", ["x", "scale", "bias"], ["y"],
                            num_groups=2)
    y = F.group_norm(t(x), 2, t(scale), t(bias), eps=1e-5)
    return model([node], [("x", x.shape)], [("y", x.shape)],
                 [("scale", scale), ("bias", bias)], opset=21), [x], y


@case
def opset19_resize_axes():
    # Scales for axes (2, 3) only; bilinear, half_pixel (PyTorch's
    # align_corners=False).
    x = rand(1, 2, 4, 5)
    node = helper.make_node("Resize", ["x", "", "scales"], ["y"], mode="linear",
                            axes=[2, 3], antialias=0,
                            keep_aspect_ratio_policy="stretch")
    scales = ("scales", np.array([2.0, 3.0], np.float32))
    y = F.interpolate(t(x), scale_factor=(2.0, 3.0), mode="bilinear",
                      align_corners=False)
    return model([node], [("x", x.shape)], [("y", y.shape)], [scales], opset=19), [x], y


@case
def opset19_average_pool_dilations():
    x = rand(1, 2, 6, 6)
    node = helper.make_node("AveragePool", ["x"], ["y"], kernel_shape=[3, 3],
                            strides=[2, 2], dilations=[1, 1])
    y = F.avg_pool2d(t(x), 3, 2)
    return model([node], [("x", x.shape)], [("y", y.shape)], opset=19), [x], y


@case
def opset21_quantize_output_dtype():
    # QuantizeLinear with output_dtype INT8 and no zero point, then back.
    x = rand(2, 8) * 4
    nodes = [helper.make_node("QuantizeLinear", ["x", "scale"], ["q"],
                              output_dtype=TensorProto.INT8),
             helper.make_node("DequantizeLinear", ["q", "scale"], ["y"])]
    scale = np.array(0.05, np.float32)
    y = np.clip(np.round(x / scale), -128, 127).astype(np.float32) * scale
    return model(nodes, [("x", x.shape)], [("y", x.shape)], [("scale", scale)],
                 opset=21), [x], y


@case
def opset22_relu_cast():
    # Ops that changed only in types: as they were; Cast's saturate (19)
    # concerns float8 only.
    x = rand(3, 4)
    nodes = [helper.make_node("Relu", ["x"], ["r"]),
             helper.make_node("Cast", ["r"], ["y"], to=TensorProto.FLOAT, saturate=1)]
    return model(nodes, [("x", x.shape)], [("y", x.shape)], opset=22), [x], F.relu(t(x))


@case
def error_opset18_runtime_axes():
    nodes = [helper.make_node("ReduceMean", ["x", "axes"], ["y"], name="mean3")]
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, (2, 3)),
                     helper.make_tensor_value_info("axes", TensorProto.INT64, (1,))],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    return import_only(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]))


@case
def error_opset19_pad_wrap():
    node = helper.make_node("Pad", ["x", "pads"], ["y"], mode="wrap", name="pad1")
    return import_only(model([node], [("x", (2, 3))], [("y", (2, 5))],
                             [i64("pads", [0, 1, 0, 1])], opset=19))


@case
def error_opset18_resize_antialias():
    node = helper.make_node("Resize", ["x", "", "scales"], ["y"], mode="linear",
                            antialias=1, name="resize4")
    return import_only(model([node], [("x", (1, 1, 4, 4))], [("y", (1, 1, 2, 2))],
                             [("scales", np.array([1, 1, 0.5, 0.5], np.float32))],
                             opset=18))


@case
def error_opset18_bitwise():
    node = helper.make_node("BitwiseAnd", ["x", "x"], ["y"], name="and5")
    return import_only(model([node], [("x", (2,))], [("y", (2,))], opset=18))


@case
def error_opset21_block_quantize():
    node = helper.make_node("QuantizeLinear", ["x", "scale"], ["y"], block_size=2,
                            name="quant6")
    return import_only(model([node], [("x", (2, 4))], [("y", (2, 4))],
                             [("scale", np.ones((2, 2), np.float32))], opset=21))


@case
def error_old_opset_undefined_input():
    node = helper.make_node("Relu", ["missing"], ["y"], name="relu2")
    return import_only(model([node], [("x", (2,))], [("y", (2,))], opset=9))


@case
def error_conv_transpose_3d():
    node = helper.make_node("ConvTranspose", ["x", "w"], ["y"], name="deconv1")
    m = model([node], [("x", (1, 1, 3, 3, 3)), ("w", (1, 2, 3, 3, 3))], [("y", (1, 2, 5, 5, 5))])
    return import_only(m)


@case
def error_conv_transpose_huge_stride():
    # A stride this large overflowed the importer's output-size arithmetic
    # (found by dlas-fuzz-onnx): window attributes are bounded by 2^30.
    node = helper.make_node("ConvTranspose", ["x", "w"], ["y"], name="deconv2",
                            strides=[1 << 40, 1], auto_pad="SAME_UPPER")
    m = model([node], [("x", (1, 1, 3, 3)), ("w", (1, 2, 3, 3))], [("y", (1, 2, 3, 3))])
    return import_only(m)


@case
def error_conv_transpose_same_dynamic():
    node = helper.make_node("ConvTranspose", ["x", "w"], ["y"], name="deconv3",
                            strides=[2, 2], auto_pad="SAME_LOWER")
    m = model([node], [("x", (1, 1, "h", 3)), ("w", (1, 2, 3, 3))], [("y", (1, 2, None, 6))])
    return import_only(m)


@case
def import_conv_transpose_1d_runtime_weight():
    node = helper.make_node("ConvTranspose", ["x", "w"], ["y"], name="deconv1d")
    m = model([node], [("x", (1, 1, 3)), ("w", (1, 2, 3))], [("y", (1, 2, 5))])
    return import_only(m)


@case
def error_domain():
    node = helper.make_node("Foo", ["x"], ["y"], name="foo1", domain="com.example")
    m = model([node], [("x", (2,))], [("y", (2,))])
    m.opset_import.append(helper.make_opsetid("com.example", 1))
    return import_only(m)


@case
def error_training_bn():
    x = (1, 3, 4, 4)
    node = helper.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y"],
                            name="bn2", training_mode=1)
    p = [(n, rand(3)) for n in "sbmv"]
    return import_only(model([node], [("x", x)], [("y", x)], p, opset=15))


@case
def error_non_constant_reshape():
    node = helper.make_node("Reshape", ["x", "s"], ["y"], name="reshape4")
    graph = helper.make_graph(
        [node], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, (2, 3)),
         helper.make_tensor_value_info("s", TensorProto.INT64, (2,))],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    return import_only(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]))


@case
def error_external_data():
    tensor = numpy_helper.from_array(rand(2, 2), "w")
    tensor.ClearField("raw_data")
    tensor.data_location = TensorProto.EXTERNAL
    entry = tensor.external_data.add()
    entry.key, entry.value = "location", "weights.bin"
    node = helper.make_node("Add", ["x", "w"], ["y"])
    graph = helper.make_graph(
        [node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, (2, 2))],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, (2, 2))], [tensor])
    return import_only(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]))


# Attributes and arity checked against ONNX's schema before import: each of
# these used to import with exit 0 and compute another function.
@case
def error_concat_axis_string():
    # Declared as ONNX's shape inference reads the string axis (0), so that
    # only the schema check stands between it and a wrong import.
    node = helper.make_node("Concat", ["x", "x"], ["y"], axis="1")
    return import_only(model([node], [("x", (2, 2))], [("y", (4, 2))]))


@case
def error_softmax_axis_float():
    node = helper.make_node("Softmax", ["x"], ["y"], axis=1.0)
    return import_only(model([node], [("x", (2, 2))], [("y", (2, 2))]))


@case
def error_leaky_relu_alpha_int():
    node = helper.make_node("LeakyRelu", ["x"], ["y"], alpha=2)
    return import_only(model([node], [("x", (2, 2))], [("y", (2, 2))]))


@case
def error_unknown_attribute():
    node = helper.make_node("Relu", ["x"], ["y"], slope=0.5)
    return import_only(model([node], [("x", (2, 2))], [("y", (2, 2))]))


@case
def error_extra_input():
    node = helper.make_node("Relu", ["x", "x"], ["y"])
    return import_only(model([node], [("x", (2, 2))], [("y", (2, 2))]))


@case
def error_einsum_diagonal():
    node = helper.make_node("Einsum", ["x"], ["y"], name="einsum3", equation="ii->i")
    return import_only(model([node], [("x", (3, 3))], [("y", (3,))]))


@case
def error_einsum_implicit_upper_case():
    # libonnx's shape inference wrote outside a stack array for this
    # (found by dlas-fuzz-onnx): refused before it runs.
    node = helper.make_node("Einsum", ["a", "b"], ["y"], name="einsum5", equation="iJ,jk")
    return import_only(model([node], [("a", (3, 4)), ("b", (4, 2))], [("y", (3, 2))]))


@case
def error_expand_huge_constant():
    # Element counts of folded shapes used to overflow (found by
    # dlas-fuzz-onnx): they saturate and folds stop at 16 M elements.
    nodes = [helper.make_node("Constant", [], ["c"], value=numpy_helper.from_array(np.array([1.0], np.float32))),
             helper.make_node("Expand", ["c", "shape"], ["e"], name="expand9"),
             helper.make_node("Add", ["x", "e"], ["y"])]
    return import_only(model(nodes, [("x", (1,))], [("y", None)],
                             [("shape", np.array([2 ** 40, 2 ** 40], np.int64))]))


@case
def error_einsum_three_operands():
    node = helper.make_node("Einsum", ["x", "x", "x"], ["y"], equation="ij,jk,kl->il")
    return import_only(model([node], [("x", (3, 3))], [("y", (3, 3))]))


@case
def error_resize_crop():
    node = helper.make_node("Resize", ["x", "", "s"], ["y"], name="resize5", mode="linear",
                            coordinate_transformation_mode="tf_crop_and_resize")
    return import_only(model([node], [("x", (1, 1, 2, 2))], [("y", (1, 1, 4, 4))],
                             [("s", np.array([1, 1, 2, 2], np.float32))]))


@case
def error_resize_crop_channels():
    node = helper.make_node("Resize", ["x", "r", "", "z"], ["y"], name="resize6",
                            mode="linear", coordinate_transformation_mode="tf_crop_and_resize")
    return import_only(model([node], [("x", (1, 2, 4, 4))], [("y", (1, 2, 3, 3))],
                             [("r", np.array([0, 0.5, 0, 0, 1, 1, 1, 1], np.float32)),
                              ("z", np.array([1, 2, 3, 3], np.int64))]))


@case
def resize_tf_crop_and_resize():
    # A box partly outside the input: those positions take the
    # extrapolation value. Reference: the formula, bilinear, in numpy.
    x = rand(1, 2, 5, 6)
    roi = np.array([0, 0, 0.2, -0.3, 1, 1, 1.1, 0.9], np.float32)
    out_h, out_w, fill = 4, 7, 2.5
    y = np.empty((1, 2, out_h, out_w), np.float32)
    def source(o, out, size, start, end):
        if out == 1:
            return 0.5 * (start + end) * (size - 1)
        return start * (size - 1) + o * (end - start) * (size - 1) / (out - 1)
    for i in range(out_h):
        for j in range(out_w):
            sy = source(i, out_h, 5, roi[2], roi[6])
            sx = source(j, out_w, 6, roi[3], roi[7])
            if not (0 <= sy <= 4 and 0 <= sx <= 5):
                y[0, :, i, j] = fill
                continue
            y0, x0 = int(np.floor(sy)), int(np.floor(sx))
            ty, tx = sy - y0, sx - x0
            y1, x1 = min(y0 + 1, 4), min(x0 + 1, 5)
            y[0, :, i, j] = ((1 - ty) * ((1 - tx) * x[0, :, y0, x0] + tx * x[0, :, y0, x1]) +
                             ty * ((1 - tx) * x[0, :, y1, x0] + tx * x[0, :, y1, x1]))
    node = helper.make_node("Resize", ["x", "r", "", "z"], ["y"], mode="linear",
                            coordinate_transformation_mode="tf_crop_and_resize",
                            extrapolation_value=fill)
    return model([node], [("x", x.shape)], [("y", y.shape)],
                 [("r", roi), ("z", np.array([1, 2, out_h, out_w], np.int64))]), [x], y


@case
def error_resize_exclude_outside_linear():
    node = helper.make_node("Resize", ["x", "", "s"], ["y"], mode="linear", exclude_outside=1)
    return import_only(model([node], [("x", (1, 1, 2, 2))], [("y", (1, 1, 4, 4))],
                             [("s", np.array([1, 1, 2, 2], np.float32))]))


@case
def error_gather_axis():
    node = helper.make_node("Gather", ["x", "i"], ["y"], name="gather2", axis=2)
    graph = helper.make_graph(
        [node], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, (4, 3)),
         helper.make_tensor_value_info("i", TensorProto.INT64, (2,))],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    return import_only(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]))


@case
def error_mod_float_without_fmod():
    node = helper.make_node("Mod", ["x", "x"], ["y"], name="mod1", fmod=0)
    return import_only(model([node], [("x", (2,))], [("y", (2,))]))


@case
def error_cast_to_string():
    node = helper.make_node("Cast", ["x"], ["y"], name="cast1", to=TensorProto.STRING)
    graph = helper.make_graph(
        [node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, (2,))],
        [helper.make_tensor_value_info("y", TensorProto.STRING, (2,))])
    return import_only(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]))


@case
def error_uint8_input():
    node = helper.make_node("Add", ["x", "x"], ["y"], name="add1")
    graph = helper.make_graph(
        [node], "g", [helper.make_tensor_value_info("x", TensorProto.UINT8, (2,))],
        [helper.make_tensor_value_info("y", TensorProto.UINT8, (2,))])
    return import_only(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)]))


@case
def error_dropout_runtime_training():
    node = helper.make_node("Dropout", ["x", "r", "t"], ["y"], name="drop1")
    graph = helper.make_graph(
        [node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, (2, 3)),
                      helper.make_tensor_value_info("t", TensorProto.BOOL, ())],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, (2, 3))],
        [helper.make_tensor("r", TensorProto.FLOAT, (), [0.5])])
    return import_only(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]))


@case
def error_topk_runtime_k():
    node = helper.make_node("TopK", ["x", "k"], ["v", "i"], name="topk1")
    graph = helper.make_graph(
        [node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, (3, 5)),
                      helper.make_tensor_value_info("k", TensorProto.INT64, (1,))],
        [helper.make_tensor_value_info("v", TensorProto.FLOAT, None)])
    return import_only(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]))


@case
def error_topk_k_too_large():
    node = helper.make_node("TopK", ["x", "k"], ["v", "i"], name="topk2", axis=0)
    graph = helper.make_graph(
        [node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, (3, 5))],
        [helper.make_tensor_value_info("v", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(np.array([4], np.int64), "k")])
    return import_only(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]))


@case
def error_matmul_mismatched_batch():
    node = helper.make_node("MatMul", ["a", "b"], ["y"])
    return import_only(model([node], [("a", (2, 3, 4)), ("b", (3, 4, 5))], [("y", (2, 3, 5))]))


@case
def error_split_sizes():
    node = helper.make_node("Split", ["x", "s"], ["a", "b"], name="split9", axis=0)
    return import_only(model([node], [("x", (5, 2))], [("a", (2, 2)), ("b", (2, 2))],
                             [("s", np.array([2, 2], np.int64))]))


@case
def error_depth_to_space_channels():
    node = helper.make_node("DepthToSpace", ["x"], ["y"], name="d2s", blocksize=2)
    return import_only(model([node], [("x", (1, 6, 2, 2))], [("y", None)]))


@case
def error_layer_norm_stash_type():
    node = helper.make_node("LayerNormalization", ["x", "w"], ["y"], name="ln", stash_type=0)
    return import_only(model([node], [("x", (2, 4))], [("y", (2, 4))], [("w", rand(4))],
                             opset=17))


# Cases saved with their initializers in a file beside the model (ONNX's
# external data, the format of models over protobuf's 2 GB).
EXTERNAL_DATA = {"external_data"}


@case
def external_data():
    x, w, b = rand(2, 6), rand(6, 5), rand(5)
    nodes = [helper.make_node("MatMul", ["x", "w"], ["xw"]),
             helper.make_node("Add", ["xw", "b"], ["y"])]
    y = t(x) @ t(w) + t(b)
    return model(nodes, [("x", x.shape)], [("y", y.shape)], [("w", w), ("b", b)]), [x], y


def external_error(location, offset=None, length=None):
    tensor = numpy_helper.from_array(rand(2, 2), "w")
    tensor.ClearField("raw_data")
    tensor.data_location = TensorProto.EXTERNAL
    for key, value in (("location", location), ("offset", offset), ("length", length)):
        if value is not None:
            entry = tensor.external_data.add()
            entry.key, entry.value = key, str(value)
    node = helper.make_node("Add", ["x", "w"], ["y"])
    graph = helper.make_graph(
        [node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, (2, 2))],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, (2, 2))], [tensor])
    return import_only(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]))


@case
def error_external_outside():
    return external_error("../secret.bin")


@case
def error_external_range():
    # malformed.onnx (written by make) is 27 bytes.
    return external_error("malformed.onnx", offset=16, length=16)


def make(directory):
    os.makedirs(directory, exist_ok=True)
    for name, fn in CASES.items():
        m, inputs, expected = fn()
        path = os.path.join(directory, name + ".onnx")
        if name in EXTERNAL_DATA:
            onnx.save_model(m, path, save_as_external_data=True,
                            all_tensors_to_one_file=True, location=name + ".weights",
                            size_threshold=0)
        else:
            with open(path, "wb") as f:
                f.write(m.SerializeToString())
        for i, x in enumerate(inputs or []):
            np.save(os.path.join(directory, f"{name}.in{i}.npy"), x)
        if expected is not None:
            # astype copies C-contiguous and keeps rank 0 (ascontiguousarray
            # would make a scalar 1-D).
            array = np.asarray(expected.numpy() if torch.is_tensor(expected) else expected)
            # Integers, booleans and f64 keep their type (as the graph's
            # output has it); other values are compared as f32.
            if array.dtype.kind not in "biu" and array.dtype != np.float64:
                array = array.astype(np.float32)
            np.save(os.path.join(directory, f"{name}.expected.npy"), array)
    with open(os.path.join(directory, "malformed.onnx"), "wb") as f:
        f.write(b"\x08\x07this is not a protobuf\xff\xff\xff")


def run(directory, dlas_run):
    failing = 0
    numeric = [n for n in CASES if not n.startswith(("error_", "import_"))]
    for name in numeric:
        base = os.path.join(directory, name)
        inputs = sorted(p for p in os.listdir(directory) if p.startswith(name + ".in"))
        cmd = [dlas_run, base + ".onnx", "--expect", base + ".expected.npy",
               "--rtol", "1e-4", "--atol", "1e-4"]
        for p in inputs:
            cmd += ["--input", os.path.join(directory, p)]
        # A dynamic batch: compiled for the input's shape (dlas-run's
        # default) and as dynamic code (--dynamic-shapes=keep).
        variants = [("", [])]
        if name.startswith("dynamic_"):
            variants.append((" (dynamic-shapes=keep)", ["--dynamic-shapes", "keep"]))
        for label, extra in variants:
            proc = subprocess.run(cmd + extra, capture_output=True, text=True, timeout=300)
            ok = proc.returncode == 0 and proc.stdout.rstrip().endswith("PASS")
            print(("ok   " if ok else "FAIL ") + name + label)
            if not ok:
                failing += 1
                print(proc.stdout + proc.stderr)
    print(f"onnx ops: {len(numeric)} cases run, {failing} failing")
    return 1 if failing else 0


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2])
    else:
        sys.exit(run(sys.argv[2], sys.argv[3]))
