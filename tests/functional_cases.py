"""``autograd.functional`` checked against PyTorch (``tools/record_torch_cases.py`` records,
``test_functional_golden.py`` replays): jacobian, hessian, vjp, jvp, vhp and hvp of a set of
functions (elementwise, matmul, reductions, several inputs and outputs, an output independent of
an input, 0-d tensors), their values, the nesting of the returned tuples, ``create_graph``
(results that carry a graph and their own gradients), and the errors of strict mode and of bad
arguments (class and message). The code runs unchanged with ``torch`` or ``ferrograd`` as
``lib``."""

import math

GOLDEN = "functional.json"  # in tests/golden, written by tools/record_torch_cases.py


def _values(n, phase, scale=1.0):
    return [scale * math.sin(1.3 * i + phase) for i in range(n)]


def _t(lib, n, phase, shape, dtype="float64"):
    return lib.tensor(_values(n, phase), dtype=getattr(lib, dtype)).reshape(*shape)


def encode(lib, value):
    """A JSON form of a (nested tuple of) tensor(s) that keeps the nesting, shapes, dtypes,
    values and whether each tensor carries a graph."""
    if isinstance(value, (tuple, list)):
        return {type(value).__name__: [encode(lib, v) for v in value]}
    if isinstance(value, lib.Tensor):
        return {
            "shape": list(value.shape),
            "dtype": str(value.dtype),
            "values": value.detach().reshape(-1).tolist(),
            "requires_grad": value.requires_grad,
        }
    return {"other": repr(value)}


# Functions (each takes lib first; the cases bind it).
def f_elementwise(lib, x):
    return x.exp() * x.sin() + x * x


def f_matmul(lib, x, w):
    return (x @ w).tanh()


def f_rowsum(lib, x):
    return (x**3).sum(dim=1)


def f_two_out(lib, x, y):
    return x.unsqueeze(1) * y, (x.sum() * y.exp()).sum()


def f_ignores_y(lib, x, y):
    return x.sin() * 2


def f_scalar(lib, x):
    return (x**3).sum() + (x.sin() * x).prod()


def f_scalar2(lib, x, y):
    return (x.exp() * y[:2]).sum() + (y**4).sum() * x[0]


def f_linear(lib, x):
    return (3 * x).sum()


def f_const(lib, x):
    return lib.ones(3, dtype=lib.float64)


def f_zero_d(lib, x):
    return x.sin() * x


def f_logsm(lib, x):
    return x.log_softmax(dim=-1)


def _inputs(lib, name):
    if name == "x23":
        return _t(lib, 6, 0.4, (2, 3))
    if name == "x3":
        return _t(lib, 3, 1.1, (3,))
    if name == "xw":
        return (_t(lib, 6, 0.2, (2, 3)), _t(lib, 12, 0.9, (3, 4)))
    if name == "x2y3":
        return (_t(lib, 2, 0.7, (2,)), _t(lib, 3, 2.1, (3,)))
    if name == "x3y3":
        return (_t(lib, 3, 0.3, (3,)), _t(lib, 3, 1.6, (3,)))
    if name == "x0":
        return lib.tensor(0.8, dtype=lib.float64)
    if name == "x3tuple":
        return (_t(lib, 3, 1.1, (3,)),)
    if name == "x23f":
        return _t(lib, 6, 0.4, (2, 3), "float32")
    raise KeyError(name)


FUNCS = {
    "elementwise": f_elementwise,
    "matmul": f_matmul,
    "rowsum": f_rowsum,
    "two_out": f_two_out,
    "ignores_y": f_ignores_y,
    "scalar": f_scalar,
    "scalar2": f_scalar2,
    "linear": f_linear,
    "const": f_const,
    "zero_d": f_zero_d,
    "logsm": f_logsm,
}

# (case name, api, function, inputs, v (None, "ones", "sin"), keyword arguments)
CASES = [
    ("jac_elementwise", "jacobian", "elementwise", "x23", None, {}),
    ("jac_elementwise_f32", "jacobian", "elementwise", "x23f", None, {}),
    ("jac_matmul", "jacobian", "matmul", "xw", None, {}),
    ("jac_rowsum", "jacobian", "rowsum", "x23", None, {}),
    ("jac_two_out", "jacobian", "two_out", "x2y3", None, {}),
    ("jac_ignores_y", "jacobian", "ignores_y", "x3y3", None, {}),
    ("jac_ignores_y_strict", "jacobian", "ignores_y", "x3y3", None, {"strict": True}),
    ("jac_const", "jacobian", "const", "x3", None, {}),
    ("jac_const_strict", "jacobian", "const", "x3", None, {"strict": True}),
    ("jac_zero_d", "jacobian", "zero_d", "x0", None, {}),
    ("jac_tuple_single", "jacobian", "elementwise", "x3tuple", None, {}),
    ("jac_logsm", "jacobian", "logsm", "x23", None, {}),
    ("jac_create_graph", "jacobian", "elementwise", "x3", None, {"create_graph": True}),
    ("jac_vectorize", "jacobian", "two_out", "x2y3", None, {"vectorize": True}),
    ("jac_vectorize_ignores", "jacobian", "ignores_y", "x3y3", None, {"vectorize": True}),
    ("jac_vectorize_strict", "jacobian", "matmul", "xw", None, {"vectorize": True, "strict": True}),
    (
        "jac_forward",
        "jacobian",
        "matmul",
        "xw",
        None,
        {"vectorize": True, "strategy": "forward-mode"},
    ),
    ("jac_forward_no_vectorize", "jacobian", "matmul", "xw", None, {"strategy": "forward-mode"}),
    (
        "jac_forward_strict",
        "jacobian",
        "matmul",
        "xw",
        None,
        {"strategy": "forward-mode", "strict": True, "vectorize": True},
    ),
    (
        "jac_forward_create_graph",
        "jacobian",
        "matmul",
        "xw",
        None,
        {"strategy": "forward-mode", "create_graph": True},
    ),
    (
        "jac_forward_single_in",
        "jacobian",
        "two_out",
        "x2y3",
        None,
        {"vectorize": True, "strategy": "forward-mode"},
    ),
    (
        "jac_forward_single",
        "jacobian",
        "elementwise",
        "x23",
        None,
        {"vectorize": True, "strategy": "forward-mode"},
    ),
    ("jac_bad_strategy", "jacobian", "matmul", "xw", None, {"strategy": "sideways"}),
    ("hess_scalar", "hessian", "scalar", "x3", None, {}),
    ("hess_scalar2", "hessian", "scalar2", "x2y3", None, {}),
    ("hess_zero_d", "hessian", "zero_d", "x0", None, {}),
    ("hess_tuple_single", "hessian", "scalar", "x3tuple", None, {}),
    ("hess_linear", "hessian", "linear", "x3", None, {}),
    ("hess_linear_strict", "hessian", "linear", "x3", None, {"strict": True}),
    ("hess_create_graph", "hessian", "scalar", "x3", None, {"create_graph": True}),
    ("hess_vectorize", "hessian", "scalar2", "x2y3", None, {"vectorize": True}),
    (
        "hess_forward",
        "hessian",
        "scalar2",
        "x2y3",
        None,
        {"vectorize": True, "outer_jacobian_strategy": "forward-mode"},
    ),
    ("hess_not_scalar", "hessian", "elementwise", "x3", None, {}),
    ("hess_tuple_out", "hessian", "two_out", "x2y3", None, {}),
    ("vjp_elementwise", "vjp", "elementwise", "x23", "sin", {}),
    ("vjp_matmul", "vjp", "matmul", "xw", "sin", {}),
    ("vjp_two_out", "vjp", "two_out", "x2y3", "sin", {}),
    ("vjp_ignores_y", "vjp", "ignores_y", "x3y3", "sin", {}),
    ("vjp_ignores_y_strict", "vjp", "ignores_y", "x3y3", "sin", {"strict": True}),
    ("vjp_const_strict", "vjp", "const", "x3", "ones", {"strict": True}),
    ("vjp_scalar_no_v", "vjp", "scalar", "x3", None, {}),
    ("vjp_no_v_refused", "vjp", "elementwise", "x3", None, {}),
    ("vjp_create_graph", "vjp", "elementwise", "x3", "sin", {"create_graph": True}),
    ("vjp_bad_v_size", "vjp", "elementwise", "x3", "short", {}),
    ("vjp_bad_v_len", "vjp", "two_out", "x2y3", "one", {}),
    ("vjp_bad_v_len_single", "vjp", "elementwise", "x3", "two", {}),
    ("jvp_elementwise", "jvp", "elementwise", "x23", "sin", {}),
    ("jvp_matmul", "jvp", "matmul", "xw", "sin", {}),
    ("jvp_two_out", "jvp", "two_out", "x2y3", "sin", {}),
    ("jvp_ignores_y", "jvp", "ignores_y", "x3y3", "sin", {}),
    ("jvp_zero_d_no_v", "jvp", "zero_d", "x0", None, {}),
    ("jvp_no_v_refused", "jvp", "elementwise", "x3", None, {}),
    ("jvp_const_strict", "jvp", "const", "x3", "ones", {"strict": True}),
    ("jvp_create_graph", "jvp", "elementwise", "x3", "sin", {"create_graph": True}),
    ("jvp_rowsum", "jvp", "rowsum", "x23", "sin", {}),
    ("vhp_scalar", "vhp", "scalar", "x3", "sin", {}),
    ("vhp_scalar2", "vhp", "scalar2", "x2y3", "sin", {}),
    ("vhp_linear", "vhp", "linear", "x3", "sin", {}),
    ("vhp_linear_strict", "vhp", "linear", "x3", "sin", {"strict": True}),
    ("vhp_create_graph", "vhp", "scalar", "x3", "sin", {"create_graph": True}),
    ("vhp_not_scalar", "vhp", "elementwise", "x3", "sin", {}),
    ("vhp_zero_d_no_v", "vhp", "zero_d", "x0", None, {}),
    ("hvp_scalar", "hvp", "scalar", "x3", "sin", {}),
    ("hvp_scalar2", "hvp", "scalar2", "x2y3", "sin", {}),
    ("hvp_linear", "hvp", "linear", "x3", "sin", {}),
    ("hvp_linear_strict", "hvp", "linear", "x3", "sin", {"strict": True}),
    ("hvp_create_graph", "hvp", "scalar", "x3", "sin", {"create_graph": True}),
    ("hvp_tuple_out", "hvp", "two_out", "x2y3", "sin", {}),
    ("hvp_no_v_refused", "hvp", "scalar", "x3", None, {}),
]


def _like(lib, t, phase):
    return lib.tensor(_values(t.numel(), phase), dtype=t.dtype).reshape(t.shape)


def _make_v(lib, kind, api, func, inputs):
    """The vector of a product: shaped like the outputs (vjp) or the inputs (the others)."""
    if kind is None:
        return None
    if api == "vjp":
        refs = func(*(inputs if isinstance(inputs, tuple) else (inputs,)))
    else:
        refs = inputs
    single = not isinstance(refs, tuple)
    refs = (refs,) if single else refs
    if kind == "short":
        return lib.ones(1, dtype=lib.float64)
    if kind == "one":
        return _like(lib, refs[0], 0.5)
    if kind == "two":
        return (_like(lib, refs[0], 0.5), _like(lib, refs[0], 0.6))
    if kind == "ones":
        vs = tuple(lib.ones(r.shape, dtype=r.dtype) for r in refs)
    else:
        vs = tuple(_like(lib, r, 0.5 + 0.3 * i) for i, r in enumerate(refs))
    return vs[0] if single else vs


def _sum_all(lib, value):
    if isinstance(value, tuple):
        total = None
        for v in value:
            s = _sum_all(lib, v)
            if s is not None:
                total = s if total is None else total + s
        return total
    if value.requires_grad:
        return (value * value).sum()
    return None


def run(lib, name, api, fname, inputs_name, v_kind, kwargs):
    """One case's answer: the encoded result (and, with ``create_graph``, the gradients of the
    sum of squares of the results with respect to the leaf inputs), or the error raised."""
    base = FUNCS[fname]

    def func(*args):
        return base(lib, *args)

    inputs = _inputs(lib, inputs_name)
    leaves = inputs if isinstance(inputs, tuple) else (inputs,)
    if kwargs.get("create_graph"):
        for leaf in leaves:
            leaf.requires_grad_(True)
    fn = getattr(lib.autograd.functional, api)
    try:
        if api in ("jacobian", "hessian"):
            result = fn(func, inputs, **kwargs)
        else:
            v = _make_v(lib, v_kind, api, func, inputs)
            result = fn(func, inputs, v, **kwargs)
    except Exception as e:  # the error is the answer
        return {"error": type(e).__name__, "message": str(e)}
    out = {"result": encode(lib, result)}
    if kwargs.get("create_graph"):
        total = _sum_all(lib, result)
        grads = lib.autograd.grad(total, leaves, allow_unused=True)
        out["grads"] = [None if g is None else g.reshape(-1).tolist() for g in grads]
    return out


def type_errors(lib):
    """Arguments that are not tensors: TypeError with PyTorch's message."""
    fn = lib.autograd.functional
    x = lib.ones(2, dtype=lib.float64)
    answers = {}
    attempts = {
        "jacobian_list_input": lambda: fn.jacobian(lambda a: a, [x]),
        "jacobian_tuple_with_number": lambda: fn.jacobian(lambda a, b: a, (x, 2.0)),
        "vjp_output_number": lambda: fn.vjp(lambda a: 3.0, x, x),
        "jvp_v_list": lambda: fn.jvp(lambda a: a * 2, x, [x]),
        "hessian_output_tuple_number": lambda: fn.hessian(lambda a: (a.sum(), 1), x),
    }
    for key, attempt in attempts.items():
        try:
            attempt()
            answers[key] = {"error": None}
        except Exception as e:  # the error is the answer
            answers[key] = {"error": type(e).__name__, "message": str(e)}
    return answers


def captured_input(lib):
    """PyTorch's issue 32576: ``func`` closes over the very tensor given as input; the
    Jacobian is taken with respect to the argument only."""
    x = lib.tensor([0.5, -1.0, 2.0], dtype=lib.float64, requires_grad=True)
    jac = lib.autograd.functional.jacobian(lambda a: a * x, x)
    return jac.reshape(-1).tolist()


def no_grad_context(lib):
    """Under no_grad the functions still differentiate, and create_graph results carry a
    graph."""
    x = _t(lib, 3, 0.1, (3,))
    with lib.no_grad():
        j = lib.autograd.functional.jacobian(lambda a: a.exp(), x)
        h = lib.autograd.functional.hessian(lambda a: (a**3).sum(), x, create_graph=True)
    return {"jac": encode(lib, j), "hess": encode(lib, h)}


def answers(lib):
    """Every case's answer (what the golden file holds)."""
    cases = {}
    for name, api, fname, inputs_name, v_kind, kwargs in CASES:
        cases[name] = run(lib, name, api, fname, inputs_name, v_kind, kwargs)
    return {
        "cases": cases,
        "type_errors": type_errors(lib),
        "captured_input": captured_input(lib),
        "no_grad_context": no_grad_context(lib),
    }
