"""Normalization layers checked against PyTorch (``tools/record_torch_cases.py`` records them,
``test_norm_golden.py`` replays them): ``F.layer_norm``, ``F.batch_norm``, ``F.group_norm`` and
``F.rms_norm`` (values, gradients of input, weight and bias, second derivatives, node names and
their ``next_functions``, running statistics after a call), the modules ``BatchNorm1d/2d/3d``,
``LayerNorm``, ``GroupNorm`` and ``RMSNorm`` (reprs, parameters, buffers, state_dict keys,
running statistics over several training steps, ``momentum=None``, evaluation, untracked
statistics, old checkpoints without ``num_batches_tracked``), two small models trained for a few
optimizer steps, and bad arguments (class and message). Runs unchanged with ``torch`` or
``ferrograd`` as ``lib``."""

import math

GOLDEN = "normalization.json"  # in tests/golden, written by tools/record_torch_cases.py


def _values(n, phase, scale=1.0, offset=0.0):
    """Fixed values with a varying mean, so statistics are not trivial."""
    return [offset + scale * math.sin(1.3 * i + phase) + 0.4 * math.sin(0.29 * i) for i in range(n)]


def _t(lib, dtype, n, phase, shape, scale=1.0, offset=0.0):
    return lib.tensor(_values(n, phase, scale, offset), dtype=dtype).reshape(*shape)


def _inputs(lib, dtype):
    """Named tensors the functional cases draw from (no random numbers)."""
    t = lambda n, phase, *shape, **kw: _t(lib, dtype, n, phase, shape, **kw)  # noqa: E731
    return {
        "x3": t(60, 0.1, 4, 3, 5, scale=2.0, offset=0.5),
        "x2": t(24, 0.7, 8, 3, scale=1.5, offset=-1.0),
        "x4": t(96, 1.3, 2, 3, 4, 4, offset=2.0),
        "g3": t(60, 0.9, 2, 6, 5, scale=1.2),
        "g4": t(72, 2.1, 2, 4, 3, 3, offset=-0.5),
        "g2": t(18, 0.4, 3, 6),
        "w5": t(5, 0.3, 5, offset=1.0),
        "b5": t(5, 1.7, 5),
        "w35": t(15, 2.3, 3, 5, offset=1.0),
        "w4": t(4, 0.6, 4, offset=1.0),
        "b4": t(4, 2.6, 4),
        "w3": t(3, 0.2, 3, offset=1.0),
        "b3": t(3, 1.9, 3),
        "w6": t(6, 1.1, 6, offset=1.0),
        "b6": t(6, 0.5, 6),
        "rm3": t(3, 0.8, 3, scale=0.5),
        "rv3": t(3, 1.4, 3, scale=0.3, offset=1.2),
    }


# (name, function, positional input names (None stays None), keyword arguments, inputs needing
# grad). "x3t" is x3 transposed (not contiguous).
CASES = [
    ("ln_last", "layer_norm", ["x3", (5,)], {"weight": "w5", "bias": "b5"}, ["x3", "w5", "b5"]),
    ("ln_two_dims", "layer_norm", ["x3", (3, 5)], {"weight": "w35"}, ["x3", "w35"]),
    ("ln_plain", "layer_norm", ["x3", [5]], {}, ["x3"]),
    ("ln_bias_eps", "layer_norm", ["x3", (5,)], {"bias": "b5", "eps": 1e-2}, ["x3", "b5"]),
    ("ln_params_only", "layer_norm", ["x3", (5,)], {"weight": "w5", "bias": "b5"}, ["w5", "b5"]),
    ("ln_all_dims", "layer_norm", ["x3", (4, 3, 5)], {}, ["x3"]),
    (
        "ln_transposed",
        "layer_norm",
        ["x3t", (4,)],
        {"weight": "w4", "bias": "b4"},
        ["x3", "w4", "b4"],
    ),
    (
        "bn_train_2d",
        "batch_norm",
        ["x2", "rm3", "rv3"],
        {"weight": "w3", "bias": "b3", "training": True},
        ["x2", "w3", "b3"],
    ),
    (
        "bn_train_3d",
        "batch_norm",
        ["x3", "rm3", "rv3"],
        {"weight": "w3", "bias": "b3", "training": True, "momentum": 0.3},
        ["x3", "w3", "b3"],
    ),
    (
        "bn_train_4d_no_stats",
        "batch_norm",
        ["x4", None, None],
        {"weight": "w3", "training": True},
        ["x4", "w3"],
    ),
    ("bn_train_plain", "batch_norm", ["x3", "rm3", "rv3"], {"training": True, "eps": 1e-3}, ["x3"]),
    ("bn_train_transposed", "batch_norm", ["x3t", None, None], {"training": True}, ["x3"]),
    (
        "bn_eval",
        "batch_norm",
        ["x3", "rm3", "rv3"],
        {"weight": "w3", "bias": "b3"},
        ["x3", "w3", "b3"],
    ),
    ("bn_eval_plain", "batch_norm", ["x4", "rm3", "rv3"], {"training": False}, ["x4"]),
    (
        "bn_params_only",
        "batch_norm",
        ["x2", None, None],
        {"weight": "w3", "bias": "b3", "training": True},
        ["w3", "b3"],
    ),
    ("gn_3", "group_norm", ["g3", 3], {"weight": "w6", "bias": "b6"}, ["g3", "w6", "b6"]),
    ("gn_4d", "group_norm", ["g4", 2], {"weight": "w4", "eps": 1e-3}, ["g4", "w4"]),
    ("gn_one_group", "group_norm", ["g3", 1], {}, ["g3"]),
    ("gn_per_channel", "group_norm", ["g3", 6], {"bias": "b6"}, ["g3", "b6"]),
    ("gn_2d", "group_norm", ["g2", 3], {"weight": "w6", "bias": "b6"}, ["g2", "w6", "b6"]),
    ("gn_params_only", "group_norm", ["g4", 4], {"weight": "w4", "bias": "b4"}, ["w4", "b4"]),
    ("rms_last", "rms_norm", ["x3", (5,)], {"weight": "w5"}, ["x3", "w5"]),
    ("rms_two_dims_eps", "rms_norm", ["x3", (3, 5)], {"eps": 1e-3}, ["x3"]),
    ("rms_weight_only", "rms_norm", ["x3", [5]], {"weight": "w5", "eps": 0.1}, ["w5"]),
]


def _graph(fn, depth=6):
    """The names of a node and of everything below it (nested lists)."""
    if fn is None:
        return None
    if depth == 0:
        return type(fn).__name__
    return [type(fn).__name__] + [_graph(f, depth - 1) for f, _ in fn.next_functions]


def _flat(t):
    return None if t is None else t.detach().reshape(-1).tolist()


def run_case(lib, case, dtype_name):
    """Value, node graph, gradients (first and second) and running statistics of one call."""
    _, fn, args, kwargs, needs = case
    tensors = _inputs(lib, getattr(lib, dtype_name))
    for n in needs:
        tensors[n].requires_grad_()
    tensors["x3t"] = tensors["x3"].transpose(0, 2)
    resolve = lambda v: tensors[v] if isinstance(v, str) else v  # noqa: E731
    out = getattr(lib.nn.functional, fn)(
        *[resolve(a) for a in args], **{k: resolve(v) for k, v in kwargs.items()}
    )
    weights = lib.tensor(_values(out.numel(), 2.5), dtype=out.dtype).reshape(out.shape)
    inputs = [tensors[n] for n in needs]
    grads = lib.autograd.grad((out * weights).sum(), inputs, create_graph=True)
    second = sum((g * g).sum() for g in grads)
    try:
        grads2 = [_flat(g) for g in lib.autograd.grad(second, inputs, allow_unused=True)]
    except RuntimeError:
        # PyTorch has no second derivative of layer_norm with a bias and no weight (its
        # double backward fails), and none where the gradients do not depend on the inputs
        grads2 = None
    return {
        "value": _flat(out),
        "shape": list(out.shape),
        "dtype": str(out.dtype),
        "graph": _graph(out.grad_fn),
        "grads": [_flat(g) for g in grads],
        "grads2": grads2,
        "running": [tensors["rm3"].tolist(), tensors["rv3"].tolist()],
    }


# module constructors: (name, class, positional arguments, keyword arguments)
MODULES = [
    ("bn1d", "BatchNorm1d", [3], {}),
    ("bn2d_cumulative_plain", "BatchNorm2d", [4], {"momentum": None, "affine": False}),
    ("bn1d_untracked", "BatchNorm1d", [3], {"track_running_stats": False}),
    ("bn2d_eps_nobias", "BatchNorm2d", [3], {"eps": 1e-3, "bias": False}),
    ("bn3d", "BatchNorm3d", [2], {"momentum": 0.5}),
    ("ln", "LayerNorm", [5], {}),
    ("ln_list", "LayerNorm", [[5, 4]], {"eps": 1e-6, "elementwise_affine": False}),
    ("ln_nobias", "LayerNorm", [(3,)], {"bias": False}),
    ("gn", "GroupNorm", [2, 6], {}),
    ("gn_plain", "GroupNorm", [3, 6], {"affine": False}),
    ("gn_nobias", "GroupNorm", [1, 4], {"eps": 1e-3, "bias": False}),
    ("rms", "RMSNorm", [5], {}),
    ("rms_list", "RMSNorm", [[3, 5]], {"eps": 1e-4, "elementwise_affine": False}),
    ("ln_double", "LayerNorm", [4], {"dtype": "float64"}),
    ("bn_double", "BatchNorm1d", [2], {"dtype": "float64"}),
]


def _named(items):
    return {k: None if v is None else [list(v.shape), str(v.dtype), _flat(v)] for k, v in items}


def run_module(lib, case):
    """Repr, parameters, buffers and state_dict keys of a freshly built module."""
    _, cls, args, kwargs = case
    kwargs = {k: getattr(lib, v) if k == "dtype" else v for k, v in kwargs.items()}
    m = getattr(lib.nn, cls)(*args, **kwargs)
    return {
        "repr": repr(m),
        "parameters": _named(m.named_parameters()),
        "buffers": _named(m.named_buffers()),
        "state_dict": list(m.state_dict().keys()),
        "attrs": {k: repr(getattr(m, k, "<absent>")) for k in ("weight", "bias", "running_mean")},
    }


def _stats(m):
    """The running statistics of a batch norm module (None where untracked)."""
    return {
        "mean": _flat(m.running_mean),
        "var": _flat(m.running_var),
        "count": None if m.num_batches_tracked is None else m.num_batches_tracked.item(),
    }


# batch norm training sequences: (name, class, constructor kwargs, batch shape, steps)
SEQUENCES = [
    ("bn1d", "BatchNorm1d", {}, (6, 3), 3),
    ("bn1d_3d_momentum", "BatchNorm1d", {"momentum": 0.25}, (4, 3, 5), 3),
    ("bn2d_cumulative", "BatchNorm2d", {"momentum": None}, (2, 3, 4, 4), 4),
    ("bn1d_untracked", "BatchNorm1d", {"track_running_stats": False}, (5, 3), 2),
    ("bn1d_plain", "BatchNorm1d", {"affine": False}, (4, 3, 5), 2),
    ("bn2d_nobias_eps", "BatchNorm2d", {"bias": False, "eps": 1e-2}, (3, 3, 2, 2), 2),
    ("bn3d", "BatchNorm3d", {}, (2, 3, 2, 2, 3), 2),
]


def run_sequence(lib, case, dtype_name):
    """Several training steps (outputs, weight gradients, running statistics after each), then
    evaluation outputs, then training again after ``reset_running_stats``."""
    _, cls, kwargs, shape, steps = case
    dtype = getattr(lib, dtype_name)
    m = getattr(lib.nn, cls)(shape[1], **kwargs)
    if dtype_name == "float64":
        m = m.double()
    numel = math.prod(shape)
    trace = []
    for step in range(steps):
        x = _t(lib, dtype, numel, 0.3 * step, shape, scale=1.0 + step, offset=step - 1.0)
        x.requires_grad_()
        out = m(x)
        weights = lib.tensor(_values(numel, 1.1 + step), dtype=dtype).reshape(shape)
        (out * weights).sum().backward()
        trace.append(
            {
                "out": _flat(out),
                "x_grad": _flat(x.grad),
                "w_grad": None if m.weight is None else _flat(m.weight.grad),
                "stats": _stats(m),
                "node": type(out.grad_fn).__name__,
            }
        )
    m.eval()
    x = _t(lib, dtype, numel, 2.0, shape, offset=0.5).requires_grad_()
    out = m(x)
    out.sum().backward()
    evaluation = {"out": _flat(out), "x_grad": _flat(x.grad), "stats": _stats(m)}
    m.train()
    m.reset_running_stats()
    with lib.no_grad():
        again = m(_t(lib, dtype, numel, 0.6, shape))
    return {
        "trace": trace,
        "eval": evaluation,
        "after_reset": {"out": _flat(again), "stats": _stats(m)},
    }


def run_models(lib):
    """Two small models trained for a few steps after ``manual_seed``: losses, then the
    parameters and buffers at the end, and an evaluation output."""
    nn = lib.nn
    results = {}
    lib.manual_seed(0)
    mlp = nn.Sequential(
        nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 3), nn.LayerNorm(3)
    )
    opt = lib.optim.SGD(mlp.parameters(), lr=0.1, momentum=0.9)
    x = _t(lib, lib.float32, 40, 0.2, (10, 4), scale=1.5)
    y = _t(lib, lib.float32, 30, 1.2, (10, 3))
    losses = []
    for _ in range(5):
        opt.zero_grad()
        loss = ((mlp(x) - y) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    mlp.eval()
    results["mlp"] = {
        "losses": losses,
        "state": {k: _flat(v) for k, v in mlp.state_dict().items()},
        "eval": _flat(mlp(x)),
    }
    lib.manual_seed(1)
    net = nn.Sequential(
        nn.Linear(6, 8), nn.GroupNorm(2, 8), nn.Tanh(), nn.Linear(8, 6), nn.RMSNorm(6)
    )
    opt = lib.optim.Adam(net.parameters(), lr=0.01)
    x = _t(lib, lib.float32, 30, 0.5, (5, 6), scale=2.0)
    losses = []
    for _ in range(5):
        opt.zero_grad()
        loss = (net(x).sin() ** 2).sum()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    results["groupnorm_rms"] = {
        "losses": losses,
        "state": {k: _flat(v) for k, v in net.state_dict().items()},
    }
    return results


def run_checkpoints(lib):
    """Loading batch norm state dicts: an old one (version 1) without ``num_batches_tracked``
    loads with the counter kept, a current one missing it is refused."""
    m = lib.nn.BatchNorm1d(3)
    m(_t(lib, lib.float32, 12, 0.4, (4, 3)))
    state = m.state_dict()
    del state["num_batches_tracked"]
    fresh = lib.nn.BatchNorm1d(3)
    fresh.num_batches_tracked.fill_(7)
    state._metadata[""]["version"] = 1
    fresh.load_state_dict(state)
    out = {"old": {"stats": _stats(fresh)}}
    state._metadata[""]["version"] = 2
    try:
        lib.nn.BatchNorm1d(3).load_state_dict(state)
        out["missing"] = None
    except RuntimeError as e:
        out["missing"] = str(e)
    return out


# calls that must fail: (name, callable taking lib and the float32 inputs)
ERRORS = {
    "ln_shape": lambda lib, t: lib.nn.functional.layer_norm(t["x3"], (6,)),
    "ln_shape_two": lambda lib, t: lib.nn.functional.layer_norm(t["x3"], (3, 6)),
    "ln_too_long": lambda lib, t: lib.nn.functional.layer_norm(t["x3"], (1, 4, 3, 5)),
    "ln_empty_shape": lambda lib, t: lib.nn.functional.layer_norm(t["x3"], ()),
    "ln_int_shape": lambda lib, t: lib.nn.functional.layer_norm(t["x3"], 5),
    "ln_float_in_shape": lambda lib, t: lib.nn.functional.layer_norm(t["x3"], (5.0,)),
    "ln_weight": lambda lib, t: lib.nn.functional.layer_norm(t["x3"], (5,), t["w4"]),
    "ln_bias": lambda lib, t: lib.nn.functional.layer_norm(t["x3"], (5,), None, t["b4"]),
    "ln_integer": lambda lib, t: lib.nn.functional.layer_norm(lib.arange(10).reshape(2, 5), (5,)),
    "ln_mixed_float": lambda lib, t: lib.nn.functional.layer_norm(t["x3"], (5,), t["w5"].double()),
    "ln_mixed_double": lambda lib, t: lib.nn.functional.layer_norm(t["x3"].double(), (5,), t["w5"]),
    "ln_module": lambda lib, t: lib.nn.LayerNorm([4, 5])(t["x3"]),
    "bn_single_value": lambda lib, t: lib.nn.functional.batch_norm(
        t["x2"][:1], t["rm3"], t["rv3"], training=True
    ),
    "bn_single_value_3d": lambda lib, t: lib.nn.functional.batch_norm(
        t["x3"][:1, :, :1], None, None, training=True
    ),
    "bn_running_mean": lambda lib, t: lib.nn.functional.batch_norm(
        t["x3"], t["w4"], t["rv3"], training=True
    ),
    "bn_running_var_eval": lambda lib, t: lib.nn.functional.batch_norm(t["x3"], t["rm3"], t["w4"]),
    "bn_weight": lambda lib, t: lib.nn.functional.batch_norm(
        t["x3"], t["rm3"], t["rv3"], t["w4"], training=True
    ),
    "bn_bias": lambda lib, t: lib.nn.functional.batch_norm(
        t["x3"], t["rm3"], t["rv3"], None, t["b4"], training=True
    ),
    "bn_eval_no_stats": lambda lib, t: lib.nn.functional.batch_norm(t["x3"], None, None),
    "bn_eval_no_var": lambda lib, t: lib.nn.functional.batch_norm(t["x3"], t["rm3"], None),
    "bn_half_stats": lambda lib, t: lib.nn.functional.batch_norm(
        t["x3"], t["rm3"], None, training=True
    ),
    "bn_eps_zero": lambda lib, t: lib.nn.functional.batch_norm(
        t["x3"], None, None, training=True, eps=0.0
    ),
    "bn_eps_negative": lambda lib, t: lib.nn.functional.batch_norm(
        t["x3"], t["rm3"], t["rv3"], eps=-1.0
    ),
    "bn_momentum_none": lambda lib, t: lib.nn.functional.batch_norm(
        t["x3"], t["rm3"], t["rv3"], training=True, momentum=None
    ),
    "bn_integer": lambda lib, t: lib.nn.functional.batch_norm(
        lib.arange(12).reshape(4, 3), None, None, training=True
    ),
    "bn_mixed_float": lambda lib, t: lib.nn.functional.batch_norm(
        t["x3"], t["rm3"].double(), t["rv3"].double(), training=True
    ),
    "bn_mixed_double": lambda lib, t: lib.nn.functional.batch_norm(
        t["x3"].double(), t["rm3"], t["rv3"]
    ),
    "bn_stats_2d": lambda lib, t: lib.nn.functional.batch_norm(
        t["x3"], t["rm3"].reshape(1, 3), t["rv3"].reshape(1, 3), training=True
    ),
    "bn_1d_input": lambda lib, t: lib.nn.functional.batch_norm(t["w5"], None, None, training=True),
    "bn_1d_input_weight": lambda lib, t: lib.nn.functional.batch_norm(
        t["w3"], None, None, t["w3"], training=True
    ),
    "bn1d_4d_input": lambda lib, t: lib.nn.BatchNorm1d(3)(t["x4"].unsqueeze(0)),
    "bn2d_3d_input": lambda lib, t: lib.nn.BatchNorm2d(3)(t["x3"]),
    "bn3d_4d_input": lambda lib, t: lib.nn.BatchNorm3d(3)(t["x4"]),
    "bn2d_channels": lambda lib, t: lib.nn.BatchNorm2d(4)(t["x4"]),
    "bn1d_one_sample": lambda lib, t: lib.nn.BatchNorm1d(3)(t["x2"][:1]),
    "gn_divisible": lambda lib, t: lib.nn.functional.group_norm(t["x3"], 2),
    "gn_1d": lambda lib, t: lib.nn.functional.group_norm(t["w5"], 1),
    "gn_weight": lambda lib, t: lib.nn.functional.group_norm(t["x3"], 3, t["w4"]),
    "gn_bias": lambda lib, t: lib.nn.functional.group_norm(t["x3"], 3, None, t["b4"]),
    "gn_single_value": lambda lib, t: lib.nn.functional.group_norm(t["x2"][:1], 3),
    "gn_zero_groups": lambda lib, t: lib.nn.functional.group_norm(t["x3"], 0),
    "gn_negative_groups": lambda lib, t: lib.nn.functional.group_norm(t["g2"], -2),
    "gn_float_groups": lambda lib, t: lib.nn.functional.group_norm(t["g2"], 2.0),
    "gn_integer": lambda lib, t: lib.nn.functional.group_norm(lib.arange(12).reshape(2, 6), 3),
    "gn_mixed_float": lambda lib, t: lib.nn.functional.group_norm(t["g2"], 3, t["w6"].double()),
    "gn_no_channels": lambda lib, t: lib.nn.functional.group_norm(lib.zeros(2, 0, 3), 1),
    "gn_module_divisible": lambda lib, t: lib.nn.GroupNorm(2, 5),
    "gn_module_channels": lambda lib, t: lib.nn.GroupNorm(3, 6)(t["x3"]),
    "rms_shape": lambda lib, t: lib.nn.functional.rms_norm(t["x3"], (6,)),
    "rms_shape_two": lambda lib, t: lib.nn.functional.rms_norm(t["x3"], (3, 6)),
    "rms_too_long": lambda lib, t: lib.nn.functional.rms_norm(t["x3"], (1, 4, 3, 5)),
    "rms_empty_shape": lambda lib, t: lib.nn.functional.rms_norm(t["x3"], ()),
    "rms_weight": lambda lib, t: lib.nn.functional.rms_norm(t["x3"], (5,), t["w4"]),
    "rms_integer": lambda lib, t: lib.nn.functional.rms_norm(lib.arange(10).reshape(2, 5), (5,)),
    "rms_int_shape": lambda lib, t: lib.nn.functional.rms_norm(t["x3"], 5),
}


# calls on empty inputs: (name, function of lib) giving an empty result
EMPTY = {
    "ln_no_rows": lambda lib: lib.nn.functional.layer_norm(lib.zeros(0, 5), (5,)),
    "ln_empty_rows": lambda lib: lib.nn.functional.layer_norm(lib.zeros(2, 0), (0,)),
    "bn_no_samples": lambda lib: lib.nn.functional.batch_norm(
        lib.zeros(0, 3, 2), None, None, training=True
    ),
    "bn_no_samples_eval": lambda lib: lib.nn.functional.batch_norm(
        lib.zeros(0, 3), lib.zeros(3), lib.ones(3)
    ),
    "gn_no_samples": lambda lib: lib.nn.functional.group_norm(lib.zeros(0, 4, 2), 2),
    "rms_no_rows": lambda lib: lib.nn.functional.rms_norm(lib.zeros(0, 4), (4,)),
}


# gradients through empty inputs: (name, input shape, parameter size, function of x, w, b)
EMPTY_GRADS = [
    ("ln", (0, 5), 5, lambda F, x, w, b: F.layer_norm(x, (5,), w, b)),
    ("bn", (0, 3, 2), 3, lambda F, x, w, b: F.batch_norm(x, None, None, w, b, training=True)),
    ("gn", (0, 4, 2), 4, lambda F, x, w, b: F.group_norm(x, 2, w, b)),
    ("rms", (0, 4), 4, lambda F, x, w, b: F.rms_norm(x, (4,), w) + b),
]


def run_empty_grads(lib, case):
    """The input's gradient shape and the weight's and bias's gradients (zeros)."""
    _, shape, size, fn = case
    x = lib.zeros(*shape).requires_grad_()
    w, b = lib.ones(size).requires_grad_(), lib.zeros(size).requires_grad_()
    fn(lib.nn.functional, x, w, b).sum().backward()
    return [list(x.grad.shape), w.grad.tolist(), b.grad.tolist()]


def run_empty(lib, name):
    """The shape and dtype of a call on an empty input."""
    out = EMPTY[name](lib)
    return [list(out.shape), str(out.dtype)]


def run_error(lib, name):
    """The class and message of a call that fails (``None`` if it does not)."""
    try:
        ERRORS[name](lib, _inputs(lib, lib.float32))
    except Exception as e:
        return {"error": type(e).__name__, "message": str(e)}
    return {"error": None}


def answers(lib):
    """Everything the golden file holds."""
    return {
        "cases": {
            f"{c[0]}-{d}": run_case(lib, c, d) for c in CASES for d in ("float32", "float64")
        },
        "modules": {c[0]: run_module(lib, c) for c in MODULES},
        "sequences": {
            f"{c[0]}-{d}": run_sequence(lib, c, d)
            for c in SEQUENCES
            for d in ("float32", "float64")
        },
        "models": run_models(lib),
        "checkpoints": run_checkpoints(lib),
        "errors": {name: run_error(lib, name) for name in ERRORS},
        "empty": {name: run_empty(lib, name) for name in EMPTY},
        "empty_grads": {c[0]: run_empty_grads(lib, c) for c in EMPTY_GRADS},
    }
