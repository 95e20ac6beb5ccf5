"""``utils.checkpoint`` checked against PyTorch (``tools/record_torch_cases.py`` records,
``test_checkpoint_golden.py`` replays): the outputs and gradients of checkpointed segments
(random draws inside, replayed or not; several outputs and non-tensor arguments; keyword
arguments; inputs that do not require grad; ``autograd.grad``; ``checkpoint_sequential``) in
both variants next to the plain computation, the random stream after backward, the warnings,
and the errors. The code runs unchanged with ``torch`` or ``ferrograd`` as ``lib``."""

import math
import warnings

GOLDEN = "checkpoint.json"  # in tests/golden, written by tools/record_torch_cases.py

MODES = ["plain", "reentrant", "non_reentrant"]


def _values(n, phase):
    return [math.sin(1.9 * i + phase) for i in range(n)]


def _params(lib):
    f64 = lib.float64
    w1 = lib.tensor(_values(12, 0.1), dtype=f64).reshape(3, 4).requires_grad_()
    b1 = lib.tensor(_values(4, 0.7), dtype=f64).requires_grad_()
    w2 = lib.tensor(_values(8, 1.3), dtype=f64).reshape(4, 2).requires_grad_()
    return w1, b1, w2


def _input(lib, requires_grad=True):
    x = lib.tensor(_values(15, 2.2), dtype=lib.float64).reshape(5, 3)
    return x.requires_grad_(requires_grad)


def _call(lib, mode, fn, *args, **kwargs):
    if mode == "plain":
        return fn(*args, **kwargs)
    reentrant = mode == "reentrant"
    return lib.utils.checkpoint.checkpoint(fn, *args, use_reentrant=reentrant, **kwargs)


def _flat(t):
    return None if t is None else t.detach().reshape(-1).tolist()


def _grads(tensors):
    return [_flat(t.grad) for t in tensors]


def dropout_mlp(lib, mode, preserve=True):
    """A two-layer segment with a random mask inside; backward replays (or not) the mask."""
    w1, b1, w2 = _params(lib)
    x = _input(lib)

    def segment(inp):
        mask = (lib.rand(5, 4, dtype=lib.float64) > 0.3).double()
        return ((inp @ w1 + b1).tanh() * mask) @ w2

    lib.manual_seed(11)
    if mode == "plain":
        out = segment(x)
    else:
        out = lib.utils.checkpoint.checkpoint(
            segment, x, use_reentrant=mode == "reentrant", preserve_rng_state=preserve
        )
    lib.rand(3)  # draws between forward and backward move the stream
    (out**2).sum().backward()
    return {
        "out": _flat(out),
        "grads": _grads([x, w1, b1, w2]),
        "after": lib.rand(3, dtype=lib.float64).tolist(),
    }


def two_outputs(lib, mode):
    """A tuple of outputs and a non-tensor argument."""
    w1, _b1, _w2 = _params(lib)
    x = _input(lib)
    y = lib.tensor(_values(4, 0.4), dtype=lib.float64).requires_grad_()

    def segment(a, scale, c):
        h = (a @ w1).sin() * scale
        return h + c, (h * c).sum(dim=1).exp()

    u, v = _call(lib, mode, segment, x, 0.5, y)
    ((u * u).sum() + v.sum()).backward()
    return {"out": [_flat(u), _flat(v)], "grads": _grads([x, y, w1])}


def no_input_grad(lib, mode):
    """No input requires grad: the reentrant variant's outputs do not require grad (and its
    parameters get none); the non-reentrant one still reaches the parameters."""
    w1, b1, w2 = _params(lib)
    x = _input(lib, requires_grad=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = _call(lib, mode, lambda a: (a @ w1 + b1).relu() @ w2, x)
    answer = {"requires_grad": out.requires_grad, "warnings": [str(w.message) for w in caught]}
    if out.requires_grad:
        out.sum().backward()
    answer["grads"] = _grads([w1, b1, w2])
    return answer


def keyword_arguments(lib):
    """Keyword arguments (tensor and not), non-reentrant only."""
    w1, _b1, _w2 = _params(lib)
    x = _input(lib)
    shift = lib.tensor(_values(4, 2.9), dtype=lib.float64).requires_grad_()

    def segment(a, *, shift, power):
        return ((a @ w1 + shift) ** power).sum(dim=0)

    out = lib.utils.checkpoint.checkpoint(segment, x, use_reentrant=False, shift=shift, power=3)
    out.sum().backward()
    return {"out": _flat(out), "grads": _grads([x, shift, w1])}


def through_autograd_grad(lib):
    """``autograd.grad`` through a non-reentrant checkpoint: the input's gradient, and no
    ``.grad`` on the parameters."""
    w1, b1, w2 = _params(lib)
    x = _input(lib)
    out = lib.utils.checkpoint.checkpoint(
        lambda a: (a @ w1 + b1).sigmoid() @ w2, x, use_reentrant=False
    )
    (gx,) = lib.autograd.grad((out**3).sum(), x)
    return {"gx": _flat(gx), "param_grads": _grads([w1, b1, w2])}


def double_backward(lib, mode):
    """A gradient taken with ``create_graph=True`` through the segment, differentiated again
    (the non-reentrant variant; PyTorch's reentrant one does not support it)."""
    w1, _b1, _w2 = _params(lib)
    x = _input(lib)
    out = _call(lib, mode, lambda a: (a @ w1).tanh(), x)
    (gx,) = lib.autograd.grad((out**2).sum(), x, create_graph=True)
    (gw,) = lib.autograd.grad((gx**2).sum(), w1)
    return {"gx": _flat(gx), "gw": _flat(gw)}


def sequential(lib, mode):
    """``checkpoint_sequential`` over an ``nn.Sequential`` (PyTorch's initialisation after
    ``manual_seed``)."""
    lib.manual_seed(3)
    model = lib.nn.Sequential(
        lib.nn.Linear(3, 6),
        lib.nn.Tanh(),
        lib.nn.Linear(6, 6),
        lib.nn.Tanh(),
        lib.nn.Linear(6, 2),
    ).double()
    x = _input(lib)
    if mode == "plain":
        out = model(x)
    else:
        out = lib.utils.checkpoint.checkpoint_sequential(
            model, 2, x, use_reentrant=mode == "reentrant"
        )
    (out**2).mean().backward()
    return {"out": _flat(out), "grads": _grads([x, *model.parameters()])}


def decorator(lib):
    """``checkpoint(use_reentrant=False)`` used as a decorator."""
    w1, _b1, w2 = _params(lib)
    x = _input(lib)

    @lib.utils.checkpoint.checkpoint(use_reentrant=False)
    def segment(a):
        return (a @ w1).cos() @ w2

    out = segment(x)
    out.sum().backward()
    return {"out": _flat(out), "grads": _grads([x, w1, w2])}


def under_no_grad(lib):
    """Called under no_grad, both variants give outputs without a graph."""
    w1, _b1, _w2 = _params(lib)
    x = _input(lib)
    answers = []
    with lib.no_grad():
        for reentrant in (True, False):
            out = lib.utils.checkpoint.checkpoint(lambda a: a @ w1, x, use_reentrant=reentrant)
            answers.append([out.requires_grad, _flat(out)[:3]])
    return answers


def omitted_use_reentrant(lib):
    """The warning when ``use_reentrant`` is not passed, and the reentrant default it implies."""
    w1, _b1, _w2 = _params(lib)
    x = _input(lib)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = lib.utils.checkpoint.checkpoint(lambda a: (a @ w1).tanh(), x)
    out.sum().backward()
    return {
        "warnings": [[w.category.__name__, str(w.message)] for w in caught],
        "grad_fn": type(out.grad_fn).__name__,
        "grads": _grads([x, w1]),
    }


def _error(action):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            action()
    except Exception as e:  # the error is the answer
        return {"error": type(e).__name__, "message": str(e)}
    return {"error": None}


def errors(lib):
    """Bad calls: PyTorch's exception classes and messages."""
    ck = lib.utils.checkpoint
    x = _input(lib)

    def constant_output():
        out = ck.checkpoint(lambda a: lib.ones(2, dtype=lib.float64), x, use_reentrant=True)
        out.sum().backward()

    return {
        "kwargs_reentrant": _error(
            lambda: ck.checkpoint(lambda a, k: a, x, use_reentrant=True, k=1)
        ),
        "constant_output_reentrant": _error(constant_output),
        "bad_determinism_check": _error(
            lambda: ck.checkpoint(lambda a: a * 2, x, use_reentrant=False, determinism_check="x")
        ),
        "context_fn_reentrant": _error(
            lambda: ck.checkpoint(lambda a: a, x, use_reentrant=True, context_fn=lambda: None)
        ),
        "decorator_kwargs": _error(lambda: ck.checkpoint(use_reentrant=False, k=1)),
        "sequential_kwargs": _error(
            lambda: ck.checkpoint_sequential([lambda a: a], 1, x, use_reentrant=True, k=1)
        ),
    }


def answers(lib):
    """Everything the golden file holds."""
    out = {}
    for mode in MODES:
        out[f"dropout_mlp-{mode}"] = dropout_mlp(lib, mode)
        out[f"two_outputs-{mode}"] = two_outputs(lib, mode)
        out[f"no_input_grad-{mode}"] = no_input_grad(lib, mode)
        out[f"sequential-{mode}"] = sequential(lib, mode)
    for mode in ("reentrant", "non_reentrant"):
        out[f"dropout_mlp_not_preserved-{mode}"] = dropout_mlp(lib, mode, preserve=False)
    for mode in ("plain", "non_reentrant"):
        out[f"double_backward-{mode}"] = double_backward(lib, mode)
    out["keyword_arguments"] = keyword_arguments(lib)
    out["through_autograd_grad"] = through_autograd_grad(lib)
    out["decorator"] = decorator(lib)
    out["under_no_grad"] = under_no_grad(lib)
    out["omitted_use_reentrant"] = omitted_use_reentrant(lib)
    out["errors"] = errors(lib)
    return {"cases": out}
