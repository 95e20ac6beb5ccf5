"""Convolution, pooling and sliding blocks checked against PyTorch
(``tools/record_torch_cases.py`` records them, ``test_conv_golden.py`` replays them): for each
call in float32 and float64, the value, the node chain, the gradients of every input for a
fixed upstream gradient, and second derivatives (the first gradients differentiated again,
with respect to the inputs and to the upstream gradient); max-pool indices with ties, NaN and
-inf; layers built after ``manual_seed`` (``repr``, initial parameters, output, parameter
gradients); errors as class and message. Runs unchanged with ``torch`` or ``ferrograd`` as
``lib``."""

import math
import warnings

GOLDEN = "conv.json"  # in tests/golden, written by tools/record_torch_cases.py


def _values(n, phase, scale=1.0):
    return [scale * math.sin(1.3 * i + phase) + 0.1 * math.cos(0.7 * i * i + phase)
            for i in range(n)]


def _tensor(lib, shape, phase, dtype, scale=1.0):
    n = math.prod(shape)
    return lib.tensor(_values(n, phase, scale), dtype=dtype).reshape(*shape)


# named inputs: shape and phase of their values
INPUTS = {
    "x": ((2, 3, 7, 6), 0.1),
    "x3": ((3, 7, 6), 0.2),
    "x4": ((2, 4, 6, 5), 0.3),
    "w": ((4, 3, 3, 3), 0.4),
    "w32": ((5, 3, 3, 2), 0.5),
    "w1x1": ((4, 3, 1, 1), 0.6),
    "w4": ((4, 3, 4, 4), 0.7),
    "wg": ((6, 2, 3, 3), 0.8),
    "wdw": ((8, 1, 3, 3), 0.9),
    "b4": ((4,), 1.0),
    "b5": ((5,), 1.1),
    "b6": ((6,), 1.2),
    "b8": ((8,), 1.3),
    "s": ((2, 3, 9), 1.4),
    "s2": ((3, 9), 1.5),
    "ws": ((4, 3, 3), 1.6),
    "wsg": ((6, 1, 2), 1.7),
    "t": ((2, 4, 5, 4), 1.8),
    "t3": ((4, 5, 4), 1.9),
    "wt": ((4, 3, 3, 3), 2.0),
    "wtg": ((4, 2, 3, 2), 2.1),
    "b3": ((3,), 2.2),
    "ts": ((2, 4, 6), 2.3),
    "wts": ((4, 3, 3), 2.4),
    "cols": ((2, 12, 12), 2.5),
    "cols2": ((12, 9), 2.6),
}

# (name, function, positional input names, keyword arguments)
CALLS = [
    ("conv2d", "conv2d", ["x", "w", "b4"], {}),
    ("conv2d_stride_pad", "conv2d", ["x", "w", "b4"], {"stride": 2, "padding": 1}),
    ("conv2d_mixed", "conv2d", ["x", "w32", "b5"],
     {"stride": (1, 2), "padding": (2, 1), "dilation": (2, 1)}),
    ("conv2d_no_bias", "conv2d", ["x", "w"], {"padding": 1}),
    ("conv2d_groups", "conv2d", ["x4", "wg", "b6"], {"groups": 2, "padding": 1}),
    ("conv2d_depthwise", "conv2d", ["x4", "wdw", "b8"], {"groups": 4, "stride": 2}),
    ("conv2d_depthwise_padded", "conv2d", ["x4", "wdw"], {"groups": 4, "padding": 1}),
    ("conv2d_1x1", "conv2d", ["x", "w1x1", "b4"], {}),
    ("conv2d_1x1_strided", "conv2d", ["x", "w1x1"], {"stride": 2, "padding": 1}),
    ("conv2d_same", "conv2d", ["x", "w", "b4"], {"padding": "same", "dilation": 2}),
    ("conv2d_same_even", "conv2d", ["x", "w4", "b4"], {"padding": "same"}),
    ("conv2d_valid", "conv2d", ["x", "w32"], {"padding": "valid"}),
    ("conv2d_unbatched", "conv2d", ["x3", "w", "b4"], {"padding": 1}),
    ("conv1d", "conv1d", ["s", "ws", "b4"], {}),
    ("conv1d_stride_pad_dil", "conv1d", ["s", "ws", "b4"],
     {"stride": 2, "padding": 2, "dilation": 2}),
    ("conv1d_groups", "conv1d", ["s", "wsg"], {"groups": 3, "padding": 1}),
    ("conv1d_same", "conv1d", ["s", "ws"], {"padding": "same"}),
    ("conv1d_unbatched", "conv1d", ["s2", "ws", "b4"], {"padding": 1}),
    ("conv_transpose2d", "conv_transpose2d", ["t", "wt", "b3"], {}),
    ("conv_transpose2d_stride", "conv_transpose2d", ["t", "wt", "b3"],
     {"stride": 2, "padding": 1, "output_padding": 1}),
    ("conv_transpose2d_groups", "conv_transpose2d", ["t", "wtg"],
     {"groups": 2, "stride": (2, 1), "dilation": (1, 2)}),
    ("conv_transpose2d_unbatched", "conv_transpose2d", ["t3", "wt", "b3"], {"stride": 2}),
    ("conv_transpose1d", "conv_transpose1d", ["ts", "wts", "b3"],
     {"stride": 3, "padding": 1, "output_padding": 2}),
    ("max_pool2d", "max_pool2d", ["x"], {"kernel_size": 2}),
    ("max_pool2d_pad", "max_pool2d", ["x"], {"kernel_size": 3, "stride": 2, "padding": 1}),
    ("max_pool2d_dilation", "max_pool2d", ["x"],
     {"kernel_size": (2, 3), "stride": 1, "dilation": (2, 1)}),
    ("max_pool2d_ceil", "max_pool2d", ["x"], {"kernel_size": 2, "ceil_mode": True}),
    ("max_pool2d_indices", "max_pool2d", ["x"],
     {"kernel_size": 3, "stride": 2, "padding": 1, "return_indices": True}),
    ("max_pool2d_unbatched", "max_pool2d", ["x3"], {"kernel_size": (3, 2), "stride": (2, 1)}),
    ("max_pool1d", "max_pool1d", ["s"], {"kernel_size": 2}),
    ("max_pool1d_pad_ceil", "max_pool1d", ["s"],
     {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True}),
    ("max_pool1d_indices", "max_pool1d", ["s2"],
     {"kernel_size": 2, "dilation": 2, "return_indices": True}),
    ("avg_pool2d", "avg_pool2d", ["x"], {"kernel_size": 2}),
    ("avg_pool2d_pad", "avg_pool2d", ["x"], {"kernel_size": 3, "stride": 2, "padding": 1}),
    ("avg_pool2d_exclude_pad", "avg_pool2d", ["x"],
     {"kernel_size": 3, "stride": 2, "padding": 1, "count_include_pad": False}),
    ("avg_pool2d_ceil", "avg_pool2d", ["x"],
     {"kernel_size": (3, 2), "stride": 2, "padding": 1, "ceil_mode": True}),
    ("avg_pool2d_divisor", "avg_pool2d", ["x3"], {"kernel_size": 2, "divisor_override": 3}),
    ("avg_pool1d", "avg_pool1d", ["s"], {"kernel_size": 3, "stride": 2, "padding": 1}),
    ("avg_pool1d_ceil", "avg_pool1d", ["s2"],
     {"kernel_size": 2, "ceil_mode": True, "count_include_pad": False}),
    ("adaptive_avg_pool2d", "adaptive_avg_pool2d", ["x"], {"output_size": (3, 4)}),
    ("adaptive_avg_pool2d_one", "adaptive_avg_pool2d", ["x"], {"output_size": 1}),
    ("adaptive_avg_pool2d_none", "adaptive_avg_pool2d", ["x3"], {"output_size": (None, 4)}),
    ("adaptive_avg_pool1d", "adaptive_avg_pool1d", ["s"], {"output_size": 4}),
    ("adaptive_avg_pool1d_one", "adaptive_avg_pool1d", ["s2"], {"output_size": 1}),
    ("adaptive_max_pool2d", "adaptive_max_pool2d", ["x"],
     {"output_size": (3, 4), "return_indices": True}),
    ("adaptive_max_pool2d_unbatched", "adaptive_max_pool2d", ["x3"], {"output_size": 2}),
    ("adaptive_max_pool1d", "adaptive_max_pool1d", ["s"],
     {"output_size": 4, "return_indices": True}),
    ("unfold", "unfold", ["x"], {"kernel_size": 2}),
    ("unfold_options", "unfold", ["x"],
     {"kernel_size": (2, 3), "dilation": (2, 1), "padding": 1, "stride": (2, 1)}),
    ("unfold_unbatched", "unfold", ["x3"], {"kernel_size": 3, "padding": 1}),
    ("fold", "fold", ["cols"], {"output_size": (4, 5), "kernel_size": 2}),
    ("fold_options", "fold", ["cols2"],
     {"output_size": (5, 4), "kernel_size": (2, 1), "stride": 2, "padding": 1}),
    ("interp_nearest_scale", "interpolate", ["x"], {"scale_factor": 2}),
    ("interp_nearest_size", "interpolate", ["x"], {"size": (5, 9)}),
    ("interp_nearest_fraction", "interpolate", ["x"], {"scale_factor": (1.5, 0.7)}),
    ("interp_nearest_recompute", "interpolate", ["x"],
     {"scale_factor": 1.7, "recompute_scale_factor": True}),
    ("interp_nearest_exact", "interpolate", ["x"], {"size": (5, 9), "mode": "nearest-exact"}),
    ("interp_nearest_exact_scale", "interpolate", ["x"],
     {"scale_factor": 1.5, "mode": "nearest-exact"}),
    ("interp_nearest_1d", "interpolate", ["s"], {"scale_factor": 2.5}),
    ("interp_linear", "interpolate", ["s"], {"size": 13, "mode": "linear"}),
    ("interp_linear_align", "interpolate", ["s"],
     {"size": 4, "mode": "linear", "align_corners": True}),
    ("interp_bilinear", "interpolate", ["x"], {"size": (10, 4), "mode": "bilinear"}),
    ("interp_bilinear_align", "interpolate", ["x"],
     {"size": (10, 4), "mode": "bilinear", "align_corners": True}),
    ("interp_bilinear_scale", "interpolate", ["x"],
     {"scale_factor": (1.6, 2.3), "mode": "bilinear"}),
    ("interp_bilinear_down", "interpolate", ["x"], {"scale_factor": 0.6, "mode": "bilinear"}),
    ("interp_area", "interpolate", ["x"], {"size": (3, 4), "mode": "area"}),
    ("interp_area_1d", "interpolate", ["s"], {"scale_factor": 0.5, "mode": "area"}),
]


def _inputs(lib, dtype):
    return {k: _tensor(lib, shape, phase, dtype) for k, (shape, phase) in INPUTS.items()}


def _chain(t):
    """Names of the nodes from ``t.grad_fn`` down its first edges."""
    names, fn = [], t.grad_fn
    while fn is not None:
        names.append(type(fn).__name__)
        nexts = [f for f, _ in fn.next_functions if f is not None]
        fn = nexts[0] if nexts else None
    return names


def _flat(t):
    """The elements as a list; float32 ones to 8 significant digits (all they hold)."""
    if t is None:
        return None
    values = t.detach().reshape(-1).tolist()
    if str(t.dtype).endswith("float32"):
        values = [float(f"{v:.8g}") for v in values]
    return values


def run_call(lib, case, dtype_name):
    """Value, node chain, gradients and second derivatives of one call."""
    _, fn, args, kwargs = case
    dtype = getattr(lib, dtype_name)
    tensors = _inputs(lib, dtype)
    ins = [tensors[a].requires_grad_() for a in args]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = getattr(lib.nn.functional, fn)(*ins, **kwargs)
    indices = None
    if isinstance(out, tuple):
        out, indices = out
    g = _tensor(lib, tuple(out.shape), 3.0, dtype).requires_grad_()
    firsts = lib.autograd.grad(out, ins, g, create_graph=True)
    # the first gradients, weighted by fixed tensors, differentiated again
    total = sum((f * _tensor(lib, tuple(f.shape), 4.0 + i, dtype)).sum()
                for i, f in enumerate(firsts) if f.requires_grad)
    seconds = [None] * (len(ins) + 1)
    # second derivatives in float64 only (float32 rounding adds nothing to check)
    if isinstance(total, lib.Tensor) and dtype_name == "float64":
        seconds = lib.autograd.grad(total, [*ins, g], allow_unused=True)
    return {
        "shape": list(out.shape),
        "value": _flat(out),
        "indices": None if indices is None else indices.reshape(-1).tolist(),
        "chain": _chain(out),
        "grads": [_flat(f) for f in firsts],
        "seconds": [_flat(s) for s in seconds],
    }


def run_max_special(lib):
    """Max-pool indices and gradients with ties, NaN and -inf (PyTorch's kernel order)."""
    inf, nan = float("inf"), float("nan")
    x = lib.tensor([[[[1.0, 1.0, 2.0, 2.0, 0.0],
                      [1.0, 0.5, 2.0, nan, 0.0],
                      [-inf, -inf, 3.0, 3.0, nan],
                      [-inf, -inf, 3.0, -1.0, nan]]]], requires_grad=True)
    out = {}
    F = lib.nn.functional
    for name, kwargs in [("k2", {"kernel_size": 2}),
                         ("k2s1", {"kernel_size": 2, "stride": 1}),
                         ("k3p1", {"kernel_size": 3, "stride": 2, "padding": 1}),
                         ("ceil", {"kernel_size": 2, "ceil_mode": True})]:
        v, i = F.max_pool2d(x, return_indices=True, **kwargs)
        (g,) = lib.autograd.grad(v.sum(), [x])
        out[name] = {"value": [str(e) for e in v.reshape(-1).tolist()],
                     "indices": i.reshape(-1).tolist(),
                     "grad": g.reshape(-1).tolist()}
    v, i = F.adaptive_max_pool2d(x, (2, 3), return_indices=True)
    out["adaptive"] = {"value": [str(e) for e in v.reshape(-1).tolist()],
                       "indices": i.reshape(-1).tolist()}
    return out


def run_non_finite(lib):
    """Where a NaN pixel or an infinite weight reaches outputs and gradients (the sums hold
    0·NaN terms exactly where PyTorch's do)."""
    F = lib.nn.functional
    out = {}
    for pos in [(0, 3), (3, 0), (1, 3), (2, 2)]:
        for pad in (0, 1):
            x = lib.zeros(1, 1, 4, 4)
            x[0, 0, pos[0], pos[1]] = float("nan")
            x.requires_grad_()
            w = lib.ones(1, 1, 2, 2)
            w[0, 0, 1, 0] = float("inf")
            w.requires_grad_()
            y = F.conv2d(x, w, padding=pad)
            g = lib.zeros(tuple(y.shape))
            g[0, 0, -1, 0] = 1.0
            gx, gw = lib.autograd.grad(y, [x, w], g)
            out[f"{pos}-{pad}"] = [[str(v) for v in t.reshape(-1).tolist()] for t in (y, gx, gw)]
    return out


def run_double_nodes(lib):
    """The node a pool's or resampling's gradient taken with ``create_graph`` records, and
    its inputs (PyTorch's pools' take the pooled input too)."""
    F = lib.nn.functional
    x = _tensor(lib, (1, 2, 4, 4), 0.3, lib.float64).requires_grad_()
    out = {}
    for name, source in [("max", "F.max_pool2d(t, 2)"), ("avg", "F.avg_pool2d(t, 2)"),
                         ("adaptive_avg", "F.adaptive_avg_pool2d(t, 3)"),
                         ("adaptive_max", "F.adaptive_max_pool2d(t, 3)"),
                         ("unfold", "F.unfold(t, 2)"), ("nearest", "F.interpolate(t, size=5)"),
                         ("bilinear", "F.interpolate(t, size=5, mode='bilinear')")]:
        y = eval(source, {"F": F, "t": x})
        g = lib.ones_like(y).requires_grad_()
        (gx,) = lib.autograd.grad(y, x, g, create_graph=True)
        out[name] = [type(gx.grad_fn).__name__] + [
            None if f is None else type(f).__name__ for f, _ in gx.grad_fn.next_functions]
    return out


# layers: (name, constructor source, input name, forward keyword arguments)
MODULES = [
    ("conv1d", "nn.Conv1d(3, 4, 3)", "s", {}),
    ("conv1d_options", "nn.Conv1d(3, 6, 2, stride=2, padding=1, dilation=2, groups=3, "
     "bias=False)", "s", {}),
    ("conv2d", "nn.Conv2d(3, 4, 3, padding=1)", "x", {}),
    ("conv2d_options", "nn.Conv2d(3, 6, (3, 2), stride=(2, 1), padding=(1, 0), dilation=2, "
     "groups=3)", "x", {}),
    ("conv2d_same", "nn.Conv2d(3, 2, 4, padding='same', bias=False)", "x", {}),
    ("conv2d_valid", "nn.Conv2d(3, 2, 3, padding='valid')", "x", {}),
    ("conv2d_reflect", "nn.Conv2d(3, 2, 3, padding=1, padding_mode='reflect')", "x", {}),
    ("conv2d_replicate", "nn.Conv2d(3, 2, 3, padding=(2, 1), padding_mode='replicate')",
     "x", {}),
    ("conv2d_circular", "nn.Conv2d(3, 2, 3, padding=1, padding_mode='circular')", "x", {}),
    ("conv_transpose2d", "nn.ConvTranspose2d(4, 3, 3, stride=2, padding=1, output_padding=1)",
     "t", {}),
    ("conv_transpose2d_size", "nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1)", "t",
     {"output_size": (10, 8)}),
    ("conv_transpose2d_groups", "nn.ConvTranspose2d(4, 6, 2, groups=2, dilation=2, bias=False)",
     "t", {}),
    ("conv_transpose1d", "nn.ConvTranspose1d(4, 2, 3, stride=2)", "ts", {}),
    ("max_pool2d", "nn.MaxPool2d(2)", "x", {}),
    ("max_pool2d_options", "nn.MaxPool2d((3, 2), stride=1, padding=1, ceil_mode=True)", "x", {}),
    ("max_pool1d", "nn.MaxPool1d(3, stride=2, return_indices=True)", "s", {}),
    ("avg_pool2d", "nn.AvgPool2d(3, stride=2, padding=1, count_include_pad=False)", "x", {}),
    ("avg_pool2d_divisor", "nn.AvgPool2d(2, divisor_override=2)", "x", {}),
    ("avg_pool1d", "nn.AvgPool1d(2)", "s", {}),
    ("adaptive_avg_pool2d", "nn.AdaptiveAvgPool2d((2, None))", "x", {}),
    ("adaptive_avg_pool1d", "nn.AdaptiveAvgPool1d(3)", "s", {}),
    ("adaptive_max_pool2d", "nn.AdaptiveMaxPool2d(2, return_indices=True)", "x", {}),
    ("adaptive_max_pool1d", "nn.AdaptiveMaxPool1d(2)", "s", {}),
    ("unfold", "nn.Unfold(2, stride=2)", "x", {}),
    ("fold", "nn.Fold((4, 5), 2)", "cols", {}),
    ("upsample", "nn.Upsample(scale_factor=2)", "x", {}),
    ("upsample_bilinear", "nn.Upsample(size=(9, 5), mode='bilinear', align_corners=True)",
     "x", {}),
    ("upsampling_nearest2d", "nn.UpsamplingNearest2d(scale_factor=(2, 1.5))", "x", {}),
    ("upsampling_bilinear2d", "nn.UpsamplingBilinear2d(size=4)", "x", {}),
]


def run_module(lib, case):
    """A layer built after ``manual_seed(0)``: repr, parameters, output and gradients."""
    _, source, input_name, kwargs = case
    lib.manual_seed(0)
    layer = eval(source, {"nn": lib.nn})
    shape, phase = INPUTS[input_name]
    x = _tensor(lib, shape, phase, lib.float32).requires_grad_()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = layer(x, **kwargs)
    indices = None
    if isinstance(out, tuple):
        out, indices = out
    g = _tensor(lib, tuple(out.shape), 3.0, lib.float32)
    params = list(layer.parameters())
    grads = lib.autograd.grad(out, [x, *params], g)
    return {
        "repr": repr(layer),
        "state": {k: _flat(v) for k, v in layer.state_dict().items()},
        "shape": list(out.shape),
        "value": _flat(out),
        "indices": None if indices is None else indices.reshape(-1).tolist(),
        "grads": [_flat(gr) for gr in grads],
    }


# calls that must fail: name -> source evaluated with F, nn and the float32 inputs
ERRORS = {
    "conv2d_dims": "F.conv2d(x[0, 0], w)",
    "conv2d_dims5": "F.conv2d(x.reshape(1, 2, 3, 7, 6), w)",
    "conv2d_channels": "F.conv2d(x4, w)",
    "conv2d_channels_unbatched": "F.conv2d(x4[0], w)",
    "conv2d_weight_dims": "F.conv2d(x, ws)",
    "conv2d_too_small": "F.conv2d(x[:, :, :2, :2], w)",
    "conv2d_too_small_dilated": "F.conv2d(x, w, dilation=4)",
    "conv2d_groups_weight": "F.conv2d(x4, wg, groups=4)",
    "conv2d_groups_channels": "F.conv2d(x, wg, groups=2)",
    "conv2d_groups_zero": "F.conv2d(x, w, groups=0)",
    "conv2d_bias_size": "F.conv2d(x, w, b5)",
    "conv2d_bias_dims": "F.conv2d(x, w, b4.reshape(4, 1))",
    "conv2d_negative_padding": "F.conv2d(x, w, padding=-1)",
    "conv2d_zero_stride": "F.conv2d(x, w, stride=0)",
    "conv2d_zero_dilation": "F.conv2d(x, w, dilation=0)",
    "conv2d_same_strided": "F.conv2d(x, w, stride=2, padding='same')",
    "conv2d_bad_padding_string": "F.conv2d(x, w, padding='full')",
    "conv2d_stride_length": "F.conv2d(x, w, stride=(1, 1, 1))",
    "conv2d_padding_length": "F.conv2d(x, w, padding=(1, 1, 1))",
    "conv2d_dtype_input": "F.conv2d(x.double(), w)",
    "conv2d_dtype_weight": "F.conv2d(x, w.double())",
    "conv2d_dtype_bias": "F.conv2d(x, w, b4.double())",
    "conv2d_no_output_channels": "F.conv2d(x, w[:0])",
    "conv1d_dims": "F.conv1d(x, ws)",
    "conv1d_channels": "F.conv1d(t[:, :, 0], ws)",
    "conv1d_too_small": "F.conv1d(s[:, :, :2], ws)",
    "conv1d_weight_dims": "F.conv1d(s, w)",
    "conv_transpose2d_channels": "F.conv_transpose2d(x, wt)",
    "conv_transpose2d_output_padding": "F.conv_transpose2d(t, wt, output_padding=1)",
    "conv_transpose2d_bias": "F.conv_transpose2d(t, wt, b4)",
    # (float64: PyTorch's float32 path fails inside oneDNN with a message of its own)
    "conv_transpose2d_too_small":
        "F.conv_transpose2d(t[:, :, :2, :2].double(), wt.double(), padding=3)",
    "conv_transpose2d_dims": "F.conv_transpose2d(t[0, 0], wt)",
    "conv_transpose2d_padding_string": "F.conv_transpose2d(t, wt, padding='same')",
    "max_pool2d_dims": "F.max_pool2d(x[0, 0], 2)",
    "max_pool2d_dims5": "F.max_pool2d(x.reshape(1, 2, 3, 7, 6), 2)",
    "max_pool2d_kernel_zero": "F.max_pool2d(x, 0)",
    "max_pool2d_kernel_zero_stride": "F.max_pool2d(x, 0, stride=1)",
    "max_pool2d_padding": "F.max_pool2d(x, 2, padding=2)",
    "max_pool2d_negative_padding": "F.max_pool2d(x, 2, padding=-1)",
    "max_pool2d_too_small": "F.max_pool2d(x[:, :, :1, :1], 2)",
    "max_pool2d_negative_stride": "F.max_pool2d(x, 2, stride=-1)",
    "max_pool2d_dilation_zero": "F.max_pool2d(x, 2, dilation=0)",
    "max_pool2d_kernel_length": "F.max_pool2d(x, (2, 2, 2))",
    "max_pool2d_empty_channels": "F.max_pool2d(x[:, :0], 2)",
    "max_pool1d_dims": "F.max_pool1d(x, 2)",
    "max_pool1d_padding": "F.max_pool1d(s, 2, padding=2)",
    "max_pool1d_too_small": "F.max_pool1d(s[:, :, :1], 2)",
    "max_pool1d_kernel_zero": "F.max_pool1d(s, 0)",
    "max_pool1d_stride_zero": "F.max_pool1d(s, 2, stride=0)",
    "max_pool1d_dilation_zero": "F.max_pool1d(s, 2, dilation=0)",
    "max_pool1d_indices_dims": "F.max_pool1d(x, 2, return_indices=True)",
    "avg_pool2d_dims": "F.avg_pool2d(x[0, 0], 2)",
    "avg_pool2d_dims5": "F.avg_pool2d(x.reshape(1, 2, 3, 7, 6), 2)",
    "avg_pool2d_padding": "F.avg_pool2d(x, 2, padding=2)",
    "avg_pool2d_too_small": "F.avg_pool2d(x[:, :, :1, :1], 2)",
    "avg_pool2d_kernel_zero": "F.avg_pool2d(x, 0)",
    "avg_pool2d_divisor_zero": "F.avg_pool2d(x, 2, divisor_override=0)",
    "avg_pool2d_kernel_length": "F.avg_pool2d(x, (2, 2, 2))",
    "avg_pool1d_dims": "F.avg_pool1d(x, 2)",
    "avg_pool1d_padding": "F.avg_pool1d(s, 2, padding=2)",
    "avg_pool1d_too_small": "F.avg_pool1d(s[:, :, :1], 2)",
    "adaptive_avg_pool2d_dims": "F.adaptive_avg_pool2d(x[0, 0], 2)",
    "adaptive_avg_pool2d_negative": "F.adaptive_avg_pool2d(x, -1)",
    "adaptive_avg_pool2d_size_length": "F.adaptive_avg_pool2d(x, (2, 2, 2))",
    "adaptive_avg_pool2d_empty": "F.adaptive_avg_pool2d(x[:, :, :0], 2)",
    "adaptive_avg_pool1d_dims": "F.adaptive_avg_pool1d(x, 2)",
    "adaptive_avg_pool1d_size_length": "F.adaptive_avg_pool1d(s, (2, 2))",
    "adaptive_max_pool2d_dims": "F.adaptive_max_pool2d(x[0, 0], 2)",
    "adaptive_max_pool2d_size_length": "F.adaptive_max_pool2d(x, (2, 2, 2))",
    "adaptive_max_pool2d_empty": "F.adaptive_max_pool2d(x[:, :, :0], 2)",
    "adaptive_max_pool1d_dims": "F.adaptive_max_pool1d(x, 2)",
    "unfold_dims": "F.unfold(x[0, 0], 3)",
    "unfold_too_small": "F.unfold(x[:, :, :2, :2], 3)",
    "fold_dims": "F.fold(x.reshape(1, 2, 3, 7, 6), (4, 4), 2)",
    "fold_blocks": "F.fold(cols[:, :, :8], (4, 5), 2)",
    "fold_channels": "F.fold(cols[:, :11], (4, 5), 2)",
    "conv_transpose1d_output_padding": "F.conv_transpose1d(ts, wts, stride=2, output_padding=2)",
    "unfold_kernel_length": "F.unfold(x, (2, 2, 2))",
    "unfold_padding_length": "F.unfold(x, 2, padding=(1, 1, 1))",
    "unfold_one_stride": "F.unfold(x, 2, stride=(1,))",
    "fold_output_size_length": "F.fold(cols, (4, 4, 4), 2)",
    "fold_no_blocks": "F.fold(cols[:, :, :1], (0, 0), 2)",
    "fold_zero_output": "F.fold(cols, (0, 5), 2)",
    "fold_zero_kernel": "F.fold(cols, (4, 5), 0)",
    "fold_negative_padding": "F.fold(cols, (4, 5), 2, padding=-1)",
    "interp_no_size": "F.interpolate(x)",
    "interp_size_and_scale": "F.interpolate(x, size=3, scale_factor=2)",
    "interp_size_length": "F.interpolate(x, size=(3, 4, 5))",
    "interp_scale_length": "F.interpolate(x, scale_factor=(2, 2, 2))",
    "interp_align_nearest": "F.interpolate(x, size=3, align_corners=True)",
    "interp_zero_size": "F.interpolate(x, size=0)",
    "interp_small_scale": "F.interpolate(x, scale_factor=0.1)",
    "interp_bilinear_3d": "F.interpolate(s, size=3, mode='bilinear')",
    "interp_linear_4d": "F.interpolate(x, size=3, mode='linear')",
    "interp_trilinear_3d": "F.interpolate(s, size=3, mode='trilinear')",
    "interp_bad_mode": "F.interpolate(x, size=3, mode='bicubicx')",
    "interp_recompute_size": "F.interpolate(x, size=3, recompute_scale_factor=True)",
    "interp_2d": "F.interpolate(x[0, 0], size=3)",
    "interp_antialias_nearest": "F.interpolate(x, size=3, antialias=True)",
    "module_groups_zero": "nn.Conv2d(3, 3, 3, groups=0)",
    "module_in_channels_groups": "nn.Conv2d(3, 4, 3, groups=2)",
    "module_out_channels_groups": "nn.Conv2d(4, 3, 3, groups=2)",
    "module_padding_string": "nn.Conv2d(3, 4, 3, padding='full')",
    "module_same_strided": "nn.Conv2d(3, 4, 3, stride=2, padding='same')",
    "module_padding_mode": "nn.Conv2d(3, 4, 3, padding_mode='mirror')",
    "module_transpose_padding_mode": "nn.ConvTranspose2d(3, 4, 3, padding_mode='reflect')",
    "module_transpose_output_size": "nn.ConvTranspose2d(4, 2, 3, stride=2)(t, output_size=(3, 3))",
    "module_transpose_output_size_length":
        "nn.ConvTranspose2d(4, 2, 3, stride=2)(t, output_size=(3, 3, 3))",
}


def run_error(lib, source):
    """The class and message of a call that fails."""
    scope = {"F": lib.nn.functional, "nn": lib.nn, **_inputs(lib, lib.float32)}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            eval(source, scope)
    except Exception as e:
        return {"error": type(e).__name__, "message": str(e)}
    return {"error": None}


def answers(lib):
    """Everything ``test_conv_golden.py`` compares, computed with ``lib``."""
    return {
        "calls": {f"{c[0]}-{d}": run_call(lib, c, d) for c in CALLS
                  for d in ("float32", "float64")},
        "max_special": run_max_special(lib),
        "non_finite": run_non_finite(lib),
        "double_nodes": run_double_nodes(lib),
        "modules": {c[0]: run_module(lib, c) for c in MODULES},
        "errors": {k: run_error(lib, v) for k, v in ERRORS.items()},
    }
