"""Losses, activations and dropout checked against PyTorch (``tools/record_torch_cases.py``
records them, ``test_loss_golden.py`` replays them): for each call, the value, the gradients
of every input that requires grad, and the ``grad_fn`` name; errors as class and message;
dropout masks after ``manual_seed``. Runs unchanged with ``torch`` or ``ferrograd`` as
``lib``."""

import math
import warnings

GOLDEN = "losses.json"  # in tests/golden, written by tools/record_torch_cases.py


def _values(n, phase, scale=1.0):
    return [scale * math.sin(1.3 * i + phase) for i in range(n)]


def _inputs(lib, dtype):
    """Named tensors the cases draw from (fixed values, no random numbers)."""
    t = lambda v, *shape: lib.tensor(v, dtype=dtype).reshape(*shape)  # noqa: E731
    return {
        "x": t(_values(12, 0.1, 2.0), 4, 3),
        "y": t(_values(12, 0.7, 1.5), 4, 3),
        "p": t([0.5 + 0.45 * v for v in _values(12, 0.4)], 4, 3),
        "q": t([0.5 + 0.5 * v for v in _values(12, 1.9)], 4, 3),
        "x3": t(_values(24, 0.3, 2.0), 2, 3, 4),
        "v": t(_values(4, 0.2, 3.0), 4),
        "u": t(_values(4, 2.2, 3.0), 4),
        "z": t([-7.0, -3.0, -2.5, -1.0, -0.5, 0.0, 0.5, 1.0, 2.5, 3.0, 6.0, 9.0], 4, 3),
        "w3": t([0.2, 1.0, 2.5], 3),
        "pw": t([0.5, 2.0, 3.0], 3),
    }


def _labels(lib):
    return {
        "c": lib.tensor([0, 2, 1, 2]),
        "c_ignore": lib.tensor([0, -100, 1, 2]),
        "c_all_ignored": lib.tensor([1, 1, 1, 1]),
        "c3": lib.tensor([[0, 2, 1, 1], [2, 2, 0, 1]]),
        "sign": lib.tensor([1, -1, 1, -1]),
        "signf": lib.tensor([1.0, -1.0, -1.0, 1.0]),
        "c0": lib.tensor(1),
    }


# (name, function, positional input names, keyword arguments, names of inputs needing grad)
LOSSES = [
    ("mse", "mse_loss", ["x", "y"], {}, ["x", "y"]),
    ("l1", "l1_loss", ["x", "y"], {}, ["x", "y"]),
    ("smooth_l1", "smooth_l1_loss", ["x", "y"], {}, ["x", "y"]),
    ("smooth_l1_beta", "smooth_l1_loss", ["x", "y"], {"beta": 0.4}, ["x"]),
    ("smooth_l1_beta0", "smooth_l1_loss", ["x", "y"], {"beta": 0.0}, ["x"]),
    ("huber", "huber_loss", ["x", "y"], {}, ["x", "y"]),
    ("huber_delta", "huber_loss", ["x", "y"], {"delta": 0.3}, ["x"]),
    ("nll", "nll_loss", ["x", "c"], {}, ["x"]),
    ("nll_weight", "nll_loss", ["x", "c"], {"weight": "w3"}, ["x"]),
    ("nll_ignore", "nll_loss", ["x", "c_ignore"], {}, ["x"]),
    ("nll_ignore_weight", "nll_loss", ["x", "c_ignore"], {"weight": "w3"}, ["x"]),
    ("nll_all_ignored", "nll_loss", ["x", "c_all_ignored"], {"ignore_index": 1}, ["x"]),
    ("nll_3d", "nll_loss", ["x3", "c3"], {}, ["x3"]),
    ("nll_1d", "nll_loss", ["v", "c0"], {}, ["v"]),
    ("ce", "cross_entropy", ["x", "c"], {}, ["x"]),
    ("ce_weight", "cross_entropy", ["x", "c"], {"weight": "w3"}, ["x"]),
    ("ce_ignore", "cross_entropy", ["x", "c_ignore"], {}, ["x"]),
    ("ce_smooth", "cross_entropy", ["x", "c"], {"label_smoothing": 0.1}, ["x"]),
    ("ce_smooth_weight", "cross_entropy", ["x", "c_ignore"],
     {"label_smoothing": 0.2, "weight": "w3"}, ["x"]),
    ("ce_probs", "cross_entropy", ["x", "q"], {}, ["x", "q"]),
    ("ce_probs_weight_smooth", "cross_entropy", ["x", "q"],
     {"weight": "w3", "label_smoothing": 0.3}, ["x"]),
    ("ce_3d", "cross_entropy", ["x3", "c3"], {}, ["x3"]),
    ("bce", "binary_cross_entropy", ["p", "q"], {}, ["p", "q"]),
    ("bce_weight", "binary_cross_entropy", ["p", "q"], {"weight": "w3"}, ["p"]),
    ("bce_logits", "binary_cross_entropy_with_logits", ["x", "q"], {}, ["x", "q"]),
    ("bce_logits_pos_weight", "binary_cross_entropy_with_logits", ["x", "q"],
     {"pos_weight": "pw", "weight": "w3"}, ["x", "q"]),
    ("bce_logits_large", "binary_cross_entropy_with_logits", ["z", "q"], {}, ["z"]),
    ("kl", "kl_div", ["x", "q"], {}, ["x", "q"]),
    ("kl_batchmean", "kl_div", ["x", "q"], {"reduction": "batchmean"}, ["x"]),
    ("kl_log_target", "kl_div", ["x", "y"], {"log_target": True}, ["x", "y"]),
    ("cosine_embedding", "cosine_embedding_loss", ["x", "y", "sign"], {"margin": 0.1}, ["x", "y"]),
    ("margin_ranking", "margin_ranking_loss", ["v", "u", "signf"], {"margin": 0.5}, ["v", "u"]),
    ("triplet", "triplet_margin_loss", ["x", "y", "p"], {}, ["x", "y", "p"]),
    ("triplet_swap_p1", "triplet_margin_loss", ["x", "y", "p"],
     {"swap": True, "p": 1, "margin": 2.0}, ["x"]),
]

REDUCTIONS = ["mean", "sum", "none"]

# (name, function, keyword arguments)
ACTIVATIONS = [
    ("relu", "relu", {}),
    ("relu6", "relu6", {}),
    ("leaky_relu", "leaky_relu", {"negative_slope": 0.2}),
    ("elu", "elu", {"alpha": 0.7}),
    ("selu", "selu", {}),
    ("celu", "celu", {"alpha": 1.5}),
    ("gelu", "gelu", {}),
    ("gelu_tanh", "gelu", {"approximate": "tanh"}),
    ("silu", "silu", {}),
    ("mish", "mish", {}),
    ("softplus", "softplus", {"beta": 2.0, "threshold": 5.0}),
    ("softsign", "softsign", {}),
    ("hardtanh", "hardtanh", {"min_val": -2.0, "max_val": 2.5}),
    ("hardsigmoid", "hardsigmoid", {}),
    ("hardswish", "hardswish", {}),
    ("sigmoid", "sigmoid", {}),
    ("tanh", "tanh", {}),
    ("logsigmoid", "logsigmoid", {}),
    ("softmax", "softmax", {"dim": 1}),
    ("log_softmax", "log_softmax", {"dim": 0}),
]

# calls that must fail: (name, function, positional input names, keyword arguments)
ERRORS = [
    ("bad_reduction", "mse_loss", ["x", "y"], {"reduction": "avg"}),
    ("nll_float_target", "nll_loss", ["x", "q"], {}),
    ("nll_out_of_bounds", "nll_loss", ["x", "c_big"], {}),
    ("nll_batch_mismatch", "nll_loss", ["x", "c3"], {}),
    ("nll_weight_size", "nll_loss", ["x", "c"], {"weight": "pw2"}),
    ("bce_outside", "binary_cross_entropy", ["x", "q"], {}),
    ("bce_size", "binary_cross_entropy", ["p", "q1"], {}),
    ("ce_smoothing_range", "cross_entropy", ["x", "c"], {"label_smoothing": 1.5}),
    ("dropout_p", "dropout", ["x"], {"p": 1.5}),
]


def _grads(lib, out, tensors, names):
    grads = lib.autograd.grad(out.sum(), [tensors[n] for n in names], allow_unused=True)
    return [None if g is None else g.reshape(-1).tolist() for g in grads]


def _call(lib, fn, args, kwargs, tensors):
    F = lib.nn.functional
    resolved = {k: tensors.get(v, v) if isinstance(v, str) else v for k, v in kwargs.items()}
    return getattr(F, fn)(*[tensors[a] for a in args], **resolved)


def run_loss(lib, case, reduction, dtype_name):
    """Value, gradients and node name of one loss call."""
    _, fn, args, kwargs, needs = case
    dtype = getattr(lib, dtype_name)
    tensors = {**_inputs(lib, dtype), **_labels(lib)}
    for n in needs:
        tensors[n].requires_grad_()
    kwargs = dict(kwargs)
    if "reduction" not in kwargs:
        kwargs["reduction"] = reduction
    out = _call(lib, fn, args, kwargs, tensors)
    return {
        "value": out.detach().reshape(-1).tolist(),
        "shape": list(out.shape),
        "node": type(out.grad_fn).__name__,
        "grads": _grads(lib, out, tensors, needs),
    }


def run_activation(lib, case, dtype_name):
    """Value, gradient, second derivative and node name of one activation."""
    _, fn, kwargs = case
    dtype = getattr(lib, dtype_name)
    z = _inputs(lib, dtype)["z"].requires_grad_()
    out = getattr(lib.nn.functional, fn)(z, **kwargs)
    (g,) = lib.autograd.grad((out * out).sum(), [z], create_graph=True)
    try:  # PyTorch has no second derivative of some (hardsigmoid)
        (gg,) = lib.autograd.grad(g.sum(), [z])
        grad2 = gg.reshape(-1).tolist()
    except RuntimeError:
        grad2 = None
    return {
        "value": out.detach().reshape(-1).tolist(),
        "node": type(out.grad_fn).__name__,
        "grad": g.detach().reshape(-1).tolist(),
        "grad2": grad2,
    }


def run_error(lib, case):
    """The class and message of a call that fails."""
    _, fn, args, kwargs = case
    tensors = {**_inputs(lib, lib.float32), **_labels(lib)}
    tensors["c_big"] = lib.tensor([0, 3, 1, 2])
    tensors["pw2"] = lib.tensor([1.0, 2.0])
    tensors["q1"] = lib.tensor([0.5, 0.5])
    try:
        _call(lib, fn, args, kwargs, tensors)
    except Exception as e:
        return {"error": type(e).__name__, "message": str(e)}
    return {"error": None}


def run_dropout(lib, seed):
    """Dropout outputs after ``manual_seed``: functional, in place, feature dropout, eval."""
    lib.manual_seed(seed)
    F = lib.nn.functional
    x = lib.tensor(_values(40, 0.5), dtype=lib.float32).reshape(5, 8).requires_grad_()
    a = F.dropout(x, 0.3)
    (g,) = lib.autograd.grad(a.sum(), [x])
    b = F.dropout(x.double(), 0.75)
    c = F.dropout2d(x.reshape(1, 5, 2, 4), 0.4)
    d = F.dropout(x, 0.3, training=False)
    e = lib.ones(3, 4).bernoulli_(0.35)
    f = lib.bernoulli(lib.tensor([[0.1, 0.9, 0.5], [0.0, 1.0, 0.3]]))
    h = lib.bernoulli(lib.tensor([0.2, 0.7, 0.5], dtype=lib.float64))
    return {
        "dropout": a.detach().reshape(-1).tolist(),
        "node": type(a.grad_fn).__name__,
        "grad": g.reshape(-1).tolist(),
        "dropout_double": b.detach().reshape(-1).tolist(),
        "dropout2d": c.detach().reshape(-1).tolist(),
        "eval_is_input": d is x,
        "bernoulli_": e.reshape(-1).tolist(),
        "bernoulli_f32": f.reshape(-1).tolist(),
        "bernoulli_f64": h.tolist(),
        "after": lib.rand(3).tolist(),
    }


def answers(lib):
    """Every case (what the golden file holds)."""
    warnings.simplefilter("ignore")  # kl_div's "mean" and broadcasting warnings
    losses = {}
    for case in LOSSES:
        for reduction in REDUCTIONS:
            for dtype in ("float32", "float64"):
                losses[f"{case[0]}-{reduction}-{dtype}"] = run_loss(lib, case, reduction, dtype)
    activations = {}
    for case in ACTIVATIONS:
        for dtype in ("float32", "float64"):
            activations[f"{case[0]}-{dtype}"] = run_activation(lib, case, dtype)
    return {
        "losses": losses,
        "activations": activations,
        "errors": {case[0]: run_error(lib, case) for case in ERRORS},
        "dropout": {str(s): run_dropout(lib, s) for s in (0, 7, 2024)},
    }
