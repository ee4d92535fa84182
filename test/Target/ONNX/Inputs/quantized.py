"""ONNX models quantized as onnxruntime's quantizer and PyTorch's exporter
write them (QDQ pairs, QLinearConv/QLinearMatMul, ConvInteger/MatMulInteger,
UINT8 and INT8, per tensor and per channel), with a reference computed here
in numpy by ONNX's definitions (integer arithmetic exact in int64).

  quantized.py make DIR        models, inputs and expected outputs
  quantized.py run DIR --dlas-run BIN
                               runs each case; prints one line per case and
                               fails on any mismatch

Tolerance: an output that ONNX quantizes and DequantizeLinear turns back
into FLOAT may differ by one quantization step (the requantization's
rounding: DLAS multiplies by the f32 product of the scales, ONNX's
reference divides); the integer outputs of ConvInteger and MatMulInteger
must agree exactly.
"""
import argparse
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

RNG = np.random.default_rng(7)
CASES = {}
ERRORS = {}
U8, I8, I32, F32 = TensorProto.UINT8, TensorProto.INT8, TensorProto.INT32, TensorProto.FLOAT
NP = {U8: np.uint8, I8: np.int8, I32: np.int32}
RANGE = {U8: (0, 255), I8: (-128, 127)}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


def error(fn):
    ERRORS[fn.__name__] = fn
    return fn


# ----------------------------------------------------------------------------
# Reference: ONNX's definitions
# ----------------------------------------------------------------------------

def channel_view(v, rank, axis):
    v = np.asarray(v)
    if v.size == 1:
        return v.reshape(())
    shape = [1] * rank
    shape[axis] = v.size
    return v.reshape(shape)


def quantize(x, scale, zp, dtype, axis=1):
    s = channel_view(np.float32(scale), x.ndim, axis)
    z = channel_view(zp, x.ndim, axis).astype(np.int64)
    q = np.rint(x.astype(np.float32) / s).astype(np.int64) + z
    lo, hi = RANGE[dtype]
    return np.clip(q, lo, hi).astype(NP[dtype])


def dequantize(q, scale, zp, axis=1):
    s = channel_view(np.float32(scale), q.ndim, axis)
    z = channel_view(zp, q.ndim, axis).astype(np.int64)
    return ((q.astype(np.int64) - z).astype(np.float32) * s).astype(np.float32)


def convolve(x, w, pads, strides, dilations, group, pad_value=0, dtype=np.int64):
    """NCHW convolution, the padding holding `pad_value`: exact in int64
    for integers, float64 for the f32 convolution of the QDQ form."""
    n, c, h, wd = x.shape
    m, cg, kh, kw = w.shape
    xp = np.full((n, c, h + pads[0] + pads[2], wd + pads[1] + pads[3]),
                 pad_value, dtype=dtype)
    xp[:, :, pads[0]:pads[0] + h, pads[1]:pads[1] + wd] = x
    oh = (xp.shape[2] - dilations[0] * (kh - 1) - 1) // strides[0] + 1
    ow = (xp.shape[3] - dilations[1] * (kw - 1) - 1) // strides[1] + 1
    y = np.zeros((n, m, oh, ow), dtype=dtype)
    mg = m // group
    for g in range(group):
        for i in range(kh):
            for j in range(kw):
                patch = xp[:, g * cg:(g + 1) * cg,
                           i * dilations[0]:i * dilations[0] + strides[0] * oh:strides[0],
                           j * dilations[1]:j * dilations[1] + strides[1] * ow:strides[1]]
                y[:, g * mg:(g + 1) * mg] += np.einsum(
                    "nchw,mc->nmhw", patch, w[g * mg:(g + 1) * mg, :, i, j].astype(dtype))
    return y


def requantize(acc, multiplier, zp, dtype):
    q = np.rint(acc * multiplier).astype(np.int64) + zp
    lo, hi = RANGE[dtype]
    return np.clip(q, lo, hi).astype(NP[dtype])


# ----------------------------------------------------------------------------
# Model building
# ----------------------------------------------------------------------------

def init(name, array, dtype=None):
    array = np.asarray(array)
    if dtype is not None:
        array = array.astype(NP[dtype] if dtype in NP else np.float32)
    return numpy_helper.from_array(array, name)


def scalar(name, value, dtype):
    return init(name, np.array(value), dtype)


def build(name, nodes, inputs, outputs, initializers, opset=13):
    graph = helper.make_graph(
        nodes, name,
        [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs],
        [helper.make_tensor_value_info(n, t, s) for n, t, s in outputs],
        initializers)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m


def quant_input(x_name, q_name, scale, zp, dtype):
    """QuantizeLinear of a FLOAT graph input: node and initializers."""
    return ([helper.make_node("QuantizeLinear", [x_name, q_name + "_s", q_name + "_z"],
                              [q_name])],
            [scalar(q_name + "_s", scale, F32), scalar(q_name + "_z", zp, dtype)])


def dequant_output(q_name, y_name, scale, zp, dtype):
    return ([helper.make_node("DequantizeLinear", [q_name, y_name + "_ds", y_name + "_dz"],
                              [y_name])],
            [scalar(y_name + "_ds", scale, F32), scalar(y_name + "_dz", zp, dtype)])


def qlinearconv_case(xdtype, wdtype, ydtype, cin, cout, hw, kernel, pads, strides,
                     dilations, group, per_channel, w_zp_value, w_range, bias=True):
    x = RNG.uniform(-1.0, 2.0, (1, cin) + hw).astype(np.float32)
    xs, xz = np.float32(3.0 / 255), (85 if xdtype == U8 else -43)
    ys, yz = np.float32(0.05), (128 if ydtype == U8 else 3)
    wshape = (cout, cin // group) + kernel
    w = RNG.integers(w_range[0], w_range[1] + 1, wshape)
    ws = (RNG.uniform(0.002, 0.01, cout) if per_channel else np.array([0.006])).astype(np.float32)
    wz = np.full(ws.shape, w_zp_value)
    b = RNG.integers(-300, 300, cout).astype(np.int32)
    qn, qi = quant_input("x", "xq", xs, xz, xdtype)
    attrs = dict(pads=list(pads), strides=list(strides), dilations=list(dilations), group=group)
    inputs = ["xq", "xq_s", "xq_z", "w", "w_s", "w_z", "y_s", "y_z"] + (["b"] if bias else [])
    conv = helper.make_node("QLinearConv", inputs, ["yq"], name="qconv", **attrs)
    dn, di = dequant_output("yq", "y", ys, yz, ydtype)
    inits = qi + [init("w", w, wdtype),
                  init("w_s", ws if per_channel else ws[0], F32),
                  init("w_z", wz if per_channel else wz[0], wdtype),
                  scalar("y_s", ys, F32), scalar("y_z", yz, ydtype)] + di
    if bias:
        inits.append(init("b", b, I32))
    # Reference.
    xq = quantize(x, xs, xz, xdtype).astype(np.int64)
    wc = w.astype(np.int64) - wz.reshape(-1, 1, 1, 1)
    acc = convolve(xq - xz, wc, pads, strides, dilations, group, 0)
    if bias:
        acc = acc + b.reshape(1, -1, 1, 1)
    mult = (xs.astype(np.float64) * ws.astype(np.float64) / ys).reshape(1, -1, 1, 1)
    yq = requantize(acc, mult, yz, ydtype)
    y = dequantize(yq, ys, yz)
    m = build("qlinearconv", qn + [conv] + dn, [("x", F32, x.shape)],
              [("y", F32, y.shape)], inits)
    return m, [x], [y], float(ys) * 1.01


@case
def qlinearconv_u8_per_channel():
    """UINT8 activations, INT8 per-channel weights, bias, stride 2, padding
    (the input's zero point is not 0: padding made explicit)."""
    return qlinearconv_case(U8, I8, U8, 4, 6, (9, 9), (3, 3), (1, 1, 1, 1), (2, 2),
                            (1, 1), 1, True, 0, (-127, 127))


@case
def qlinearconv_s8_grouped_dilated():
    return qlinearconv_case(I8, I8, I8, 6, 4, (10, 8), (3, 3), (2, 1, 2, 1), (1, 1),
                            (2, 1), 2, False, 0, (-100, 100), bias=False)


@case
def qlinearconv_u8_weights_zero_point_128():
    """UINT8 weights around 128: int8 once centred, the integer path."""
    return qlinearconv_case(U8, U8, U8, 3, 5, (7, 7), (3, 3), (0, 1, 2, 1), (1, 2),
                            (1, 1), 1, True, 128, (20, 235))


@case
def qlinearconv_u8_weights_f32_path():
    """UINT8 weights with zero point 3: out of int8 range once centred, so
    the f32 form ONNX defines."""
    return qlinearconv_case(U8, U8, U8, 3, 4, (6, 6), (3, 3), (1, 1, 1, 1), (1, 1),
                            (1, 1), 1, False, 3, (0, 255))


@case
def qlinearconv_depthwise():
    return qlinearconv_case(U8, I8, U8, 8, 8, (6, 6), (3, 3), (1, 1, 1, 1), (1, 1),
                            (1, 1), 8, True, 0, (-127, 127))


def qlinearmatmul_case(ashape, b_const, per_column, adtype=U8, bdtype=I8):
    k, n = ashape[-1], 5
    a = RNG.uniform(-2.0, 2.0, ashape).astype(np.float32)
    as_, az = np.float32(4.0 / 255), (128 if adtype == U8 else 0)
    b = RNG.integers(-120, 121, (k, n))
    bs = (RNG.uniform(0.003, 0.01, n) if per_column else np.array([0.005])).astype(np.float32)
    ys, yz = np.float32(0.02), (100 if adtype == U8 else -5)
    qn, qi = quant_input("a", "aq", as_, az, adtype)
    nodes = list(qn)
    inputs = [("a", F32, a.shape)]
    inits = list(qi)
    feeds = [a]
    if b_const:
        inits.append(init("b", b, bdtype))
    else:
        # b quantized at run time from a FLOAT input: the f32 path.
        bf = dequantize(b.astype(np.int8), bs[0], 0)
        nodes.append(helper.make_node("QuantizeLinear", ["bf", "b_s", "b_z"], ["b"]))
        inputs.append(("bf", F32, bf.shape))
        feeds.append(bf)
    inits += [init("b_s", bs if per_column else bs[0], F32),
              init("b_z", np.zeros(bs.shape) if per_column else 0, bdtype),
              scalar("y_s", ys, F32), scalar("y_z", yz, adtype)]
    nodes.append(helper.make_node("QLinearMatMul", ["aq", "aq_s", "aq_z", "b", "b_s", "b_z",
                                                    "y_s", "y_z"], ["yq"], name="qmatmul"))
    dn, di = dequant_output("yq", "y", ys, yz, adtype)
    aq = quantize(a, as_, az, adtype).astype(np.int64) - az
    acc = np.matmul(aq, b.astype(np.int64))
    y = dequantize(requantize(acc, as_.astype(np.float64) * bs.astype(np.float64) / ys, yz, adtype),
                   ys, yz)
    m = build("qlinearmatmul", nodes + dn, inputs, [("y", F32, y.shape)], inits + di)
    return m, feeds, [y], float(ys) * 1.01


@case
def qlinearmatmul_u8_per_column():
    return qlinearmatmul_case((4, 16), True, True)


@case
def qlinearmatmul_3d_s8():
    return qlinearmatmul_case((2, 3, 8), True, False, adtype=I8)


@case
def qlinearmatmul_runtime_b():
    return qlinearmatmul_case((3, 8), False, False, adtype=I8)


@case
def qdq_conv():
    """The QDQ form: DequantizeLinear of a constant INT8 weight (per
    channel, folded at import), a FLOAT Conv, QuantizeLinear and
    DequantizeLinear around the activations. dlas-fold-qdq puts the Conv
    on the int8 kernels (quantized.test checks that it does)."""
    x = RNG.uniform(-1.0, 1.0, (1, 3, 8, 8)).astype(np.float32)
    w = RNG.integers(-127, 128, (4, 3, 3, 3))
    w[0, 0, 0, 0] = -128  # PyTorch's symmetric scales reach -128
    ws = RNG.uniform(0.001, 0.004, 4).astype(np.float32)
    b = RNG.uniform(-0.1, 0.1, 4).astype(np.float32)
    xs, xz, ys, yz = np.float32(2.0 / 255), 127, np.float32(0.01), 0
    nodes = [helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq0"]),
             # PyTorch's export writes a Cast to UINT8 after each
             # QuantizeLinear.
             helper.make_node("Cast", ["xq0"], ["xq"], to=U8),
             helper.make_node("DequantizeLinear", ["xq", "xs", "xz"], ["xd"]),
             helper.make_node("DequantizeLinear", ["w", "ws", "wz"], ["wd"], axis=0),
             helper.make_node("Conv", ["xd", "wd", "b"], ["c"], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c"], ["r"]),
             helper.make_node("QuantizeLinear", ["r", "ys", "yz"], ["yq"]),
             helper.make_node("MaxPool", ["yq"], ["pq"], kernel_shape=[2, 2], strides=[2, 2]),
             helper.make_node("DequantizeLinear", ["pq", "ys", "yz"], ["y"])]
    inits = [scalar("xs", xs, F32), scalar("xz", xz, U8), init("w", w, I8),
             init("ws", ws, F32), init("wz", np.zeros(4), I8), init("b", b, F32),
             scalar("ys", ys, F32), scalar("yz", yz, I8)]
    xd = dequantize(quantize(x, xs, xz, U8), xs, xz)
    wd = dequantize(w.astype(np.int8), ws, np.zeros(4, np.int64), axis=0)
    r = np.maximum(convolve(xd, wd, (1, 1, 1, 1), (1, 1), (1, 1), 1, dtype=np.float64)
                   + b.reshape(1, -1, 1, 1), 0)
    yq = quantize(r, ys, yz, I8)
    pq = yq.reshape(1, 4, 4, 2, 4, 2).max(axis=(3, 5))
    y = dequantize(pq, ys, yz)
    m = build("qdq_conv", nodes, [("x", F32, x.shape)], [("y", F32, y.shape)], inits)
    return m, [x], [y], float(ys) * 1.01


@case
def quantize_per_axis_roundtrip():
    """Per-axis QuantizeLinear and DequantizeLinear on run-time values
    (axis 1 of 3-D), UINT8, with a Reshape and Transpose between."""
    x = RNG.uniform(-3.0, 3.0, (2, 4, 5)).astype(np.float32)
    s = np.array([0.01, 0.02, 0.03, 0.05], np.float32)
    z = np.array([0, 100, 128, 255])
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"], axis=1),
             helper.make_node("Transpose", ["q"], ["t"], perm=[0, 2, 1]),
             helper.make_node("Transpose", ["t"], ["u"], perm=[0, 2, 1]),
             helper.make_node("DequantizeLinear", ["u", "s", "z"], ["y"], axis=-2)]
    inits = [init("s", s, F32), init("z", z, U8)]
    y = dequantize(quantize(x, s, z, U8, axis=1), s, z, axis=1)
    m = build("quantize_per_axis", nodes, [("x", F32, x.shape)], [("y", F32, y.shape)], inits)
    return m, [x], [y], float(s.max()) * 1.01


@case
def default_zero_points():
    """No zero point inputs: UINT8 with zero point 0 (QuantizeLinear's
    default type), in QuantizeLinear, DequantizeLinear and ConvInteger's
    UINT8 weight."""
    x = RNG.uniform(-0.5, 3.0, (1, 2, 5, 5)).astype(np.float32)
    s = np.float32(0.02)
    w = RNG.integers(0, 128, (3, 2, 2, 2))
    nodes = [helper.make_node("QuantizeLinear", ["x", "s"], ["q"]),
             helper.make_node("DequantizeLinear", ["q", "s"], ["y0"]),
             helper.make_node("ConvInteger", ["q", "w"], ["y1"])]
    inits = [scalar("s", s, F32), init("w", w, U8)]
    q = quantize(x, s, 0, U8).astype(np.int64)
    y0 = dequantize(q, s, 0)
    y1 = convolve(q, w, (0, 0, 0, 0), (1, 1), (1, 1), 1, 0).astype(np.int32)
    m = build("default_zero_points", nodes, [("x", F32, x.shape)],
              [("y0", F32, y0.shape), ("y1", I32, y1.shape)], inits)
    return m, [x], [y0, y1], 0.0


def integer_conv_case(xdtype, xz, pads):
    x = RNG.uniform(-1.0, 1.0, (1, 3, 7, 7)).astype(np.float32)
    xs = np.float32(2.0 / 255)
    w = RNG.integers(-128, 128, (4, 3, 3, 3))
    qn, qi = quant_input("x", "xq", xs, xz, xdtype)
    nodes = qn + [helper.make_node("ConvInteger", ["xq", "w", "xq_z"], ["y"], pads=list(pads))]
    inits = qi + [init("w", w, I8)]
    xq = quantize(x, xs, xz, xdtype).astype(np.int64)
    y = convolve(xq - xz, w, pads, (1, 1), (1, 1), 1, 0).astype(np.int32)
    m = build("convinteger", nodes, [("x", F32, x.shape)], [("y", I32, y.shape)], inits)
    return m, [x], [y], 0.0


@case
def convinteger_u8_padded():
    return integer_conv_case(U8, 130, (1, 1, 1, 1))


@case
def convinteger_s8():
    return integer_conv_case(I8, -7, (0, 0, 0, 0))


@case
def matmulinteger_u8():
    a = RNG.uniform(-1.0, 1.0, (2, 3, 6)).astype(np.float32)
    as_, az = np.float32(2.0 / 255), 120
    b = RNG.integers(0, 256, (6, 4))
    bz = np.array([128, 120, 130, 127])
    qn, qi = quant_input("a", "aq", as_, az, U8)
    nodes = qn + [helper.make_node("MatMulInteger", ["aq", "b", "aq_z", "bz"], ["y"])]
    inits = qi + [init("b", b, U8), init("bz", bz, U8)]
    aq = quantize(a, as_, az, U8).astype(np.int64)
    y = np.matmul(aq - az, b - bz).astype(np.int32)
    m = build("matmulinteger", nodes, [("a", F32, a.shape)], [("y", I32, y.shape)], inits)
    return m, [a], [y], 0.0


# ----------------------------------------------------------------------------
# Models the importer must refuse
# ----------------------------------------------------------------------------

def simple(nodes, inits, out_type=F32, out_shape=(1, 4), in_shape=(1, 4), opset=13):
    return build("error", nodes, [("x", F32, in_shape)], [("y", out_type, out_shape)], inits,
                 opset=opset)


@error
def error_u8_into_add():
    return simple([helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"]),
                   helper.make_node("Add", ["q", "q"], ["a"], name="add_u8"),
                   helper.make_node("DequantizeLinear", ["a", "s", "z"], ["y"])],
                  [scalar("s", 0.1, F32), scalar("z", 3, U8)], opset=14)


@error
def error_runtime_scale():
    m = build("error", [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"], name="q1"),
                        helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"])],
              [("x", F32, (1, 4)), ("s", F32, ())], [("y", F32, (1, 4))],
              [scalar("z", 0, I8)])
    return m


@error
def error_negative_scale():
    return simple([helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"], name="q1"),
                   helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"])],
                  [scalar("s", -0.5, F32), scalar("z", 0, I8)])


@error
def error_per_axis_size():
    return simple([helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"], name="q1", axis=1),
                   helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"], axis=1)],
                  [init("s", np.array([0.1, 0.2, 0.3], np.float32)), init("z", np.zeros(3), I8)])


@error
def error_convinteger_wide_weight():
    """UINT8 weights with zero point 0 do not fit int8 once centred."""
    return build("error", [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"]),
                           helper.make_node("ConvInteger", ["q", "w"], ["y"], name="ci")],
                 [("x", F32, (1, 1, 3, 3))], [("y", I32, (1, 1, 1, 1))],
                 [scalar("s", 0.1, F32), scalar("z", 0, U8),
                  init("w", np.full((1, 1, 3, 3), 200), U8)])


# UINT8 at the graph's edges: inputs arrive and outputs leave as their bytes
# (uint8 .npy files); inside they are i8 less 128.

@case
def quantize_u8_output():
    """QuantizeLinear to a UINT8 graph output: exact."""
    x = RNG.uniform(-2.0, 12.0, (2, 3, 5)).astype(np.float32)
    s, z = np.float32(0.05), 3
    m = build("q", [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["y"])],
              [("x", F32, x.shape)], [("y", U8, x.shape)],
              [scalar("s", s, F32), scalar("z", z, U8)])
    return m, [x], [quantize(x, s, z, U8)], 0.0


@case
def dequantize_u8_input():
    """DequantizeLinear of a UINT8 graph input (every byte value): exact."""
    q = np.arange(256, dtype=np.uint8).reshape(4, 64)
    s, z = np.float32(0.125), 200
    m = build("dq", [helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"])],
              [("q", U8, q.shape)], [("y", F32, q.shape)],
              [scalar("s", s, F32), scalar("z", z, U8)])
    return m, [q], [dequantize(q, s, z)], 0.0


@case
def maxpool_u8_through():
    """A UINT8 input through MaxPool and Reshape to a UINT8 output: the
    bytes' order is kept (exact), padding never wins."""
    q = RNG.integers(0, 256, (1, 2, 5, 5)).astype(np.uint8)
    pool = helper.make_node("MaxPool", ["q"], ["p"], kernel_shape=[3, 3],
                            strides=[2, 2], pads=[1, 1, 1, 1])
    flat = helper.make_node("Flatten", ["p"], ["y"], axis=1)
    m = build("pool", [pool, flat], [("q", U8, q.shape)], [("y", U8, (1, 18))], [])
    qp = np.pad(q.astype(np.int64), ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=-1)
    y = np.stack([qp[:, :, i:i + 3, j:j + 3].max(axis=(2, 3))
                  for i in range(0, 5, 2) for j in range(0, 5, 2)], axis=-1)
    return m, [q], [y.reshape(1, 18).astype(np.uint8)], 0.0


@case
def qlinearconv_u8_edges():
    """QLinearConv from a UINT8 graph input to a UINT8 graph output (as
    ONNX's own backend case): within one step of the requantization."""
    xq = RNG.integers(0, 256, (1, 3, 7, 7)).astype(np.uint8)
    xs, xz, ys, yz = np.float32(0.02), 120, np.float32(0.04), 110
    w = RNG.integers(-90, 91, (4, 3, 3, 3))
    ws = RNG.uniform(0.004, 0.008, 4).astype(np.float32)
    conv = helper.make_node("QLinearConv", ["xq", "xs", "xz", "w", "ws", "wz", "ys", "yz"],
                            ["yq"], pads=[1, 1, 1, 1])
    m = build("qconv_edges", [conv], [("xq", U8, xq.shape)], [("yq", U8, (1, 4, 7, 7))],
              [scalar("xs", xs, F32), scalar("xz", xz, U8), init("w", w, I8),
               init("ws", ws, F32), init("wz", np.zeros(4), I8),
               scalar("ys", ys, F32), scalar("yz", yz, U8)])
    acc = convolve(xq.astype(np.int64) - xz, w.astype(np.int64), (1, 1, 1, 1), (1, 1), (1, 1), 1)
    mult = (xs.astype(np.float64) * ws.astype(np.float64) / ys).reshape(1, -1, 1, 1)
    return m, [xq], [requantize(acc, mult, yz, U8)], 1.0


# ----------------------------------------------------------------------------

def make(directory):
    os.makedirs(directory, exist_ok=True)
    for name, fn in CASES.items():
        m, inputs, outputs, atol = fn()
        d = os.path.join(directory, name)
        os.makedirs(d, exist_ok=True)
        onnx.save(m, os.path.join(d, "model.onnx"))
        for i, x in enumerate(inputs):
            np.save(os.path.join(d, f"input{i}.npy"), x)
        for i, y in enumerate(outputs):
            np.save(os.path.join(d, f"expected{i}.npy"), y)
        with open(os.path.join(d, "atol"), "w") as f:
            f.write(repr(atol))
    for name, fn in ERRORS.items():
        onnx.save(fn(), os.path.join(directory, name + ".onnx"))


def run(directory, dlas_run, targets):
    failures = 0
    for name in CASES:
        d = os.path.join(directory, name)
        inputs = sorted(f for f in os.listdir(d) if f.startswith("input"))
        expected = sorted(f for f in os.listdir(d) if f.startswith("expected"))
        atol = open(os.path.join(d, "atol")).read().strip()
        for target in targets:
            # cpu or cpu:+features (lit's %int8_targets)
            cpu, _, features = target.partition(":")
            cmd = [dlas_run, os.path.join(d, "model.onnx"), "--target", cpu]
            if features:
                cmd += ["--target-features", features]
            for f in inputs:
                cmd += ["--input", os.path.join(d, f)]
            for f in expected:
                cmd += ["--expect", os.path.join(d, f)]
            cmd += ["--atol", atol, "--rtol", "0"]
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
            ok = p.returncode == 0
            failures += not ok
            print(f"{name} [{target}]: {'ok' if ok else 'FAIL'}", flush=True)
            if not ok:
                print(" ".join(cmd))
                print(p.stdout[-2000:] + p.stderr[-2000:])
    print(f"quantized: {failures} failed")
    return 1 if failures else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    mk = sub.add_parser("make")
    mk.add_argument("dir")
    rn = sub.add_parser("run")
    rn.add_argument("dir")
    rn.add_argument("--dlas-run", required=True)
    rn.add_argument("--targets", default="x86-64-v3")
    args = parser.parse_args()
    if args.command == "make":
        make(args.dir)
        return 0
    return run(args.dir, args.dlas_run, args.targets.split())


if __name__ == "__main__":
    sys.exit(main())
