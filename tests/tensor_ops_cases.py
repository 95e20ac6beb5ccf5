"""The torch-namespace tensor ops checked against PyTorch (``tools/record_torch_cases.py`` records
them, ``test_tensor_ops_golden.py`` replays them): rounding divisions, triangles and diagonals,
``cumprod``, sorting and selection, ``einsum``, ``cross``, ``roll``, ``meshgrid``, broadcasting,
the fused products, ``linalg`` norms, ``F.linear``'s graph and the tensor protocols.

For each expression: the values, dtypes and shapes of what it returns, its ``grad_fn`` (class
name, ``name()``, the names of ``next_functions``) and the gradients of a weighted sum of its
float outputs with respect to every input, in float64 and float32. Errors as class and message.
Ties: the indices of ``sort``, ``topk``, ``kthvalue``, ``median``, ``mode`` on data full of equal
values, which depend on the exact order of PyTorch's comparisons. Runs unchanged with ``torch``
or ``ferrograd`` as ``lib``."""

import math
import warnings

GOLDEN = "tensor_ops.json"  # in tests/golden, written by tools/record_torch_cases.py


def _values(n, phase, scale=1.0):
    return [scale * math.sin(1.3 * i + phase) for i in range(n)]


def inputs(lib, dtype):
    """Named leaves (all float ones require grad) and integer tensors, fixed values."""
    t = lambda v, *shape: lib.tensor(v, dtype=dtype).reshape(*shape)  # noqa: E731
    floats = {
        "x": t(_values(12, 0.1, 2.0), 3, 4),
        "y": t(_values(12, 0.7, 1.5), 3, 4),
        "d": t([v + (1.0 if v >= 0 else -1.0) for v in _values(12, 1.1, 2.0)], 3, 4),
        "v": t(_values(4, 0.2, 3.0), 4),
        "u": t(_values(4, 2.2, 3.0), 4),
        "w": t(_values(3, 1.4), 3),
        "sq": t(_values(9, 0.5, 2.0), 3, 3),
        "b": t(_values(24, 0.3), 2, 3, 4),
        "c": t(_values(40, 0.9), 2, 4, 5),
        "m": t(_values(20, 1.7), 4, 5),
        "m35": t(_values(15, 2.5), 3, 5),
        "q": t(_values(24, 0.4), 2, 2, 3, 2),
        "k": t(_values(40, 1.2), 2, 2, 5, 2),
        "z": t([1.5, 0.0, -2.0, 3.0, 0.5, 2.0, 0.0, 0.0, -1.0, 2.5, 4.0, 0.0], 3, 4),
        "r": t([3.0, 1.0, 2.0, 1.0, 4.0, 3.0, 0.0, -1.0, 5.0, 5.0, 2.0, -1.0], 2, 6),
        "n": t([3.0, 1.0, 2.0, 1.0, math.nan, 3.0, 0.0, -1.0, 5.0, 5.0, 2.0, -1.0], 2, 6),
        "a3": t(_values(12, 0.6), 4, 3),
        "b3": t(_values(12, 1.9), 4, 3),
        "s": lib.tensor(0.75, dtype=dtype),
    }
    for leaf in floats.values():
        leaf.requires_grad_()
    ints = {
        "i": lib.tensor([[7, -7, 5, -5], [9, 10, -3, 12], [1, -1, 6, -8]]),
        "j": lib.tensor([[2, 2, -3, -3], [4, 5, -2, 7], [1, 3, -4, -3]]),
        "iu": lib.tensor([[1, 2], [3, 4], [1, 2], [0, 9]]),
        "bo": lib.tensor([True, False, True]),
    }
    return {**floats, **ints}


# Expressions evaluated with ``torch`` (the library), ``F`` and the inputs bound.
CASES = [
    # ---- rounding divisions
    "x // d", "x // 0.75", "2.5 // d", "torch.floor_divide(x, d)", "torch.floor_divide(7, i)",
    "x.floor_divide(d)", "x % d", "x % 0.75", "x % -0.75", "2.5 % d", "torch.remainder(x, d)",
    "torch.remainder(3, d)", "x.remainder(s)", "torch.fmod(x, d)", "torch.fmod(x, 0.75)",
    "x.fmod(-0.75)", "i // j", "i % j", "torch.fmod(i, j)", "i // 2.5", "i % 2.5", "i // 3",
    "i % -3", "x.mul(1).remainder_(d)", "x.mul(1).fmod_(d)", "x.mul(1).floor_divide_(0.5)",
    "inplace_mod(x.mul(1), 0.75)", "inplace_floordiv(i.clone(), 3)", "v % x", "x % s",
    "torch.tensor([-7.0, 0.0, 7.0, 5.0, -5.0], dtype=x.dtype) // "
    "torch.tensor([0.0, 0.0, -0.0, math.inf, math.inf], dtype=x.dtype)",
    "torch.tensor([-7.0, 5.0, -5.0, -0.7, 0.7], dtype=x.dtype) % "
    "torch.tensor([0.0, math.inf, math.inf, 0.1, -0.1], dtype=x.dtype)",
    # ---- triangles and diagonals
    "x.tril()", "x.tril(-1)", "x.triu(1)", "torch.triu(b, -1)", "torch.tril(x, 2)",
    "x.mul(1).tril_(1)", "x.mul(1).triu_()", "i.tril()", "v.diag()", "torch.diag(v, 1)",
    "torch.diag(w, -2)", "x.diag()", "x.diag(-1)", "torch.diag(sq, 2)", "x.diagonal()",
    "x.diagonal(1)", "torch.diagonal(b, 0, 1, 2)", "b.diagonal(offset=-1, dim1=2, dim2=0)",
    "x.diagonal(5)", "x.trace()", "torch.trace(sq)", "i.trace()", "torch.eye(3)",
    "torch.eye(2, 4, dtype=torch.float64)", "torch.eye(3, dtype=torch.int64)",
    "torch.eye(2, requires_grad=True)", "torch.eye(0)",
    # ---- cumulative product
    "x.cumprod(1)", "torch.cumprod(x, 0)", "z.cumprod(1)", "z.cumprod(0)", "i.cumprod(1)",
    "bo.cumprod(0)", "x.cumprod(1, dtype=torch.float64)", "x.mul(1).cumprod_(0)",
    "x.mul(1).cumsum_(1)", "s.cumprod(0)",
    # ---- sorting and selection
    "r.sort()", "r.sort(descending=True)", "torch.sort(r, 0)", "r.sort(stable=True)",
    "r.sort(dim=0, descending=True, stable=True)", "n.sort()", "n.sort(descending=True)",
    "i.sort(1)", "bo.sort()", "s.sort()", "r.argsort()", "torch.argsort(r, 1, True)",
    "n.argsort(stable=True)", "r.topk(3)", "r.topk(3, largest=False)", "torch.topk(r, 1, 0)",
    "n.topk(2)", "n.topk(2, largest=False)", "r.topk(4, sorted=False)", "x.topk(0)",
    "r.kthvalue(2)", "torch.kthvalue(r, 1, 0, True)", "n.kthvalue(6)", "n.kthvalue(3)",
    "r.median()", "n.median()", "r.median(1)", "r.median(0, keepdim=True)", "n.median(1)",
    "x.median()", "torch.median(x, 0)", "i.median()", "r.mode()", "r.mode(0)", "n.mode()",
    "torch.mode(i, 1)", "r.unique()", "torch.unique(r, return_inverse=True, return_counts=True)",
    "n.unique(return_counts=True)", "iu.unique(dim=0, return_inverse=True, return_counts=True)",
    "iu.unique(dim=1)", "torch.unique(i, sorted=False)", "s.unique(return_inverse=True)",
    # ---- einsum
    "torch.einsum('ij,jk->ik', x, m)", "torch.einsum('bij,bjk->bik', b, c)",
    "torch.einsum('i,i->', v, u)", "torch.einsum('ij->ji', x)", "torch.einsum('ii->i', sq)",
    "torch.einsum('ii', sq)", "torch.einsum('bhqd,bhkd->bhqk', q, k)",
    "torch.einsum('ij,jk', x, m)", "torch.einsum('ij,jk', [x, m])", "torch.einsum('i,j->ij', v, w)",
    "torch.einsum('ij->', x)", "torch.einsum('ij->i', x)", "torch.einsum('ij,ij->ij', x, y)",
    "torch.einsum('ij,ij->', x, y)", "torch.einsum('ij,ij->i', x, y)",
    "torch.einsum('ij,kj->ik', x, m.t())", "torch.einsum('ji,jk->ik', m, m)",
    "torch.einsum('ij,j->i', x, v)", "torch.einsum('bij,jk->bik', b, m)",
    "torch.einsum('i,i,i->', v, u, v)", "torch.einsum('ij,jk,kl->il', x, m, m.t())",
    "torch.einsum('...ij,...jk->...ik', b, c)", "torch.einsum('b...,b->...', b, w[:2])",
    "torch.einsum('iJ,Jk->ik', x, m)", "torch.einsum(' i j , j k -> i k ', x, m)",
    # ---- cross, roll, meshgrid, broadcasting
    "torch.cross(a3, b3, dim=1)", "a3.cross(b3, dim=-1)", "torch.linalg.cross(a3, b3)",
    "torch.linalg.cross(a3, w[None])", "torch.cross(a3.t(), b3.t(), dim=0)", "x.roll(1)",
    "x.roll(-5)", "torch.roll(x, 1, 0)", "x.roll((1, -2), (0, 1))", "b.roll(7, 2)",
    "x.roll((1, 1), (0, 0))", "s.roll(1)", "i.roll(2, 1)",
    "torch.meshgrid(v, w, indexing='ij')", "torch.meshgrid(v, w, indexing='xy')",
    "torch.meshgrid([w, v, s], indexing='ij')", "torch.broadcast_to(v, (3, 4))",
    "v.broadcast_to((2, 3, 4))", "torch.broadcast_tensors(x, v)",
    "torch.broadcast_tensors(s, w[:, None], v)",
    # ---- fused products
    "torch.addmm(m35, x, m)", "torch.addmm(v[:1], x, m, beta=0.5, alpha=2)",
    "x.addmm(sq, x)", "torch.addmm(m35, x, m, beta=0)", "torch.addmv(w, x, v)",
    "torch.addmv(s, x, v, beta=-1, alpha=0.25)", "torch.baddbmm(b[:, :, :3], b, c[:, :, :3])",
    "torch.baddbmm(w, b.transpose(1, 2).transpose(1, 2), c[:, :, :3], alpha=-2)",
    "torch.addmm(i[:, :1], i, j.t())",
    # ---- F.linear's graph
    "F.linear(x, m.t(), m[0])", "F.linear(x, m.t())", "F.linear(b, m.t(), m[0])",
    "F.linear(b, m.t())", "F.linear(q, m[:, :2], v)", "F.linear(v, m.t(), m[1])",
    "F.linear(b.transpose(0, 1), m.t(), m[0])",
    # ---- linalg norms
    "torch.linalg.norm(x)", "torch.linalg.norm(x, 1)", "torch.linalg.norm(x, -1)",
    "torch.linalg.norm(x, math.inf)", "torch.linalg.norm(x, 'fro')", "torch.linalg.norm(v, 3)",
    "torch.linalg.norm(x, dim=1)", "torch.linalg.norm(b, dim=(0, 2))",
    "torch.linalg.norm(b, 1, dim=(2, 1), keepdim=True)", "torch.linalg.vector_norm(x)",
    "torch.linalg.vector_norm(x, 1, 0)", "torch.linalg.vector_norm(x, math.inf, (0, 1))",
    "torch.linalg.vector_norm(x, -math.inf, 1, True)", "torch.linalg.vector_norm(z, 0)",
    "torch.linalg.vector_norm(x, -1.5, 1)", "torch.linalg.vector_norm(x, 0.5)",
    "torch.linalg.vector_norm(x, 2, dtype=torch.float64)",
    "torch.linalg.matrix_norm(x)", "torch.linalg.matrix_norm(b, 1)",
    "torch.linalg.matrix_norm(b, -1, keepdim=True)", "torch.linalg.matrix_norm(x, math.inf)",
    "torch.linalg.matrix_norm(b, -math.inf, dim=(0, 2))", "torch.norm(z, 0)",
    # ---- protocols
    "list(x)", "len(b)", "2.0 in i", "7 in i", "float('nan') in n", "x[0] in x", "y[0] in x",
    "bool(s)", "bool(torch.tensor([0]))", "int(i[0, 0])", "[10, 20, 30][torch.tensor(1)]",
    "[10, 20, 30][torch.tensor([2])]", "tuple(iter(i[0]))",
]  # fmt: skip


# Calls that fail: their class and message.
ERRORS = [
    "i // torch.zeros_like(i)", "i % 0", "torch.fmod(i, 0)", "bo // bo", "bo % bo",
    "torch.fmod(bo, bo)", "x % torch.ones(2)", "i.clone().remainder_(2.5)",
    "x.floor_divide(d).sum().backward()", "(3 % x).sum().backward()", "v.tril()",
    "torch.triu(s)", "b.diag()", "s.diag()", "v.diagonal()", "x.diagonal(0, 1, 1)",
    "x.diagonal(0, 0, 2)", "v.trace()", "b.trace()", "bo.reshape(3, 1).expand(3, 3).trace()",
    "torch.eye(-1)", "torch.eye(2, -3)", "x.cumprod(2)", "x.sort(dim=3)", "x.topk(5)",
    "x.topk(-1)", "x.kthvalue(0)", "x.kthvalue(5)", "torch.zeros(2, 0).kthvalue(1)",
    "torch.zeros(2, 0).median(1)", "torch.zeros(2, 0).mode()", "x.unique(dim=2)",
    "s.unique(dim=0)", "x.unique().sum().backward()", "x.unique(dim=0).sum().backward()",
    "torch.einsum('ij,jk->ik', x, x)", "torch.einsum('ij,jk->ik', x)",
    "torch.einsum('ij->k', x)", "torch.einsum('ijk->ij', x)", "torch.einsum('ij,jk', x, m, m)",
    "torch.einsum('ii->i', x)", "torch.einsum('i1->i', x)", "torch.einsum('ij->ii', x)",
    "torch.einsum('i.j->i', x)", "torch.linalg.cross(x, y)", "torch.cross(x, y, dim=1)",
    "torch.linalg.cross(a3, w)", "torch.linalg.cross(a3, b3.double() if a3.dtype == torch.float32 "
    "else b3.float())", "torch.cross(x[:2], y[:2])", "x.roll(())", "x.roll((1, 2))",
    "x.roll((1, 2), (0,))", "x.roll(1, 5)", "s.roll(1, 0)",
    "torch.meshgrid(x, v, indexing='ij')", "torch.meshgrid(v, i[0], indexing='ij')",
    "torch.meshgrid(v, v, indexing='foo')", "torch.broadcast_tensors(x, w)",
    "v.broadcast_to((3, 5))", "torch.addmm(m35, v, m)", "torch.addmm(m35, x, v)",
    "torch.addmm(m35, x, m35)", "torch.addmm(v, x, m)", "torch.addmm(m35, x, m.double() if "
    "m.dtype == torch.float32 else m.float())", "torch.addmv(w, x, w)",
    "torch.addmv(v, x, v)", "torch.addmv(w, x, v[:, None])",
    "torch.baddbmm(b, b, c)", "torch.linalg.matrix_norm(v)", "torch.linalg.matrix_norm(x, 3)",
    "torch.linalg.matrix_norm(x, 'foo')", "torch.linalg.norm(b, 1)",
    "torch.linalg.norm(b, dim=(0, 1, 2))", "torch.linalg.vector_norm(i)",
    "torch.linalg.vector_norm(x.double(), dtype=torch.float32)", "len(s)", "iter(s)",
    "bool(x)", "bool(torch.tensor([]))", "'a' in x", "None in x", "y[:2] in x",
    "[1, 2][torch.tensor([0, 1])]", "[1, 2][torch.tensor(1.0)]",
]  # fmt: skip


def inplace_mod(t, other):
    """``t %= other``, returning ``t``."""
    t %= other
    return t


def inplace_floordiv(t, other):
    """``t //= other``, returning ``t``."""
    t //= other
    return t


def namespace(lib, dtype):
    """The names an expression is evaluated with."""
    return {
        "torch": lib,
        "F": lib.nn.functional,
        "math": math,
        "inplace_mod": inplace_mod,
        "inplace_floordiv": inplace_floordiv,
        **inputs(lib, dtype),
    }


def _weights(lib, t):
    """Fixed weights of `t`'s shape: the backward pass sees a different gradient per element
    (a plain sum would not tell a permutation from the identity)."""
    n = t.numel()
    w = lib.tensor([math.cos(0.7 * i + 0.3) for i in range(n)], dtype=t.dtype)
    return w.reshape(tuple(t.shape))


def _tensor_record(lib, t):
    g = t.grad_fn
    record = {
        "dtype": str(t.dtype),
        "shape": list(t.shape),
        "value": t.detach().tolist(),
        "requires_grad": t.requires_grad,
        "node": None if g is None else type(g).__name__,
        "name": None if g is None else g.name(),
        "next": None
        if g is None
        else [None if f is None else f.name() for f, _ in g.next_functions],
    }
    return record


def _describe(lib, out):
    """What an expression returned, as JSON."""
    if isinstance(out, lib.Tensor):
        return {"tensor": _tensor_record(lib, out)}
    if isinstance(out, (tuple, list)):
        kind = type(out).__name__
        if kind not in ("tuple", "list"):
            # a named (values, indices) pair: PyTorch's torch.return_types.<kind>
            kind = f"named:{kind}"
            assert out.values is out[0] and out.indices is out[1]
        return {"kind": kind, "items": [_describe(lib, o) for o in out]}
    return {"python": out, "type": type(out).__name__}


def _flat_tensors(lib, out):
    if isinstance(out, lib.Tensor):
        return [out]
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _flat_tensors(lib, o)]
    return []


def run_case(lib, expr, dtype_name):
    """One expression: what it returns and the gradients of a weighted sum of its outputs."""
    dtype = getattr(lib, dtype_name)
    names = namespace(lib, dtype)
    leaves = {k: v for k, v in names.items() if isinstance(v, lib.Tensor) and v.requires_grad}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = eval(expr, names)
    result = _describe(lib, out)
    differentiable = [t for t in _flat_tensors(lib, out) if t.requires_grad]
    grads = {}
    if differentiable:
        total = sum((t * _weights(lib, t)).sum() for t in differentiable)
        try:
            found = lib.autograd.grad(total, list(leaves.values()), allow_unused=True)
        except Exception as e:  # an op without a derivative
            grads = {"error": type(e).__name__, "message": str(e)}
        else:
            grads = {k: g.tolist() for k, g in zip(leaves, found) if g is not None}
    result["grads"] = grads
    return result


def run_error(lib, expr, dtype_name="float32"):
    """The class and message of a call that fails (None when it does not)."""
    names = namespace(lib, getattr(lib, dtype_name))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            eval(expr, names)
    except Exception as e:
        return {"error": type(e).__name__, "message": str(e).split("\n")[0]}
    return {"error": None}


def _lcg(seed):
    state = seed
    while True:
        state = (state * 1103515245 + 12345) % 2**31
        yield state >> 8


def tie_data(seed):
    """Integer-valued float64 rows of several lengths, full of ties (a few NaNs in odd seeds)."""
    draw = _lcg(seed)
    n = 3 + next(draw) % 90
    values = [float(next(draw) % 4) for _ in range(2 * n)]
    if seed % 2:
        for _ in range(2):
            values[next(draw) % (2 * n)] = math.nan
    return values, n


def run_ties(lib, seed):
    """The indices PyTorch's kernels give tied elements, on rows of length 3 to 92."""
    values, n = tie_data(seed)
    t = lib.tensor(values, dtype=lib.float64).reshape(2, n)
    ks = sorted({1, 2, 1 + seed % n, max(1, n // 64), n})
    out = {
        "sort": t.sort().indices.tolist(),
        "sort_desc": t.sort(descending=True).indices.tolist(),
        "sort_dim0": t.sort(0).indices.tolist(),
        "argsort": t.argsort(descending=True).tolist(),
        "kthvalue": [t.kthvalue(k).indices.tolist() for k in ks],
        "median": t.median(1).indices.tolist(),
        "mode": t.mode().indices.tolist(),
        "mode_values": t.mode().values.tolist(),
    }
    for largest in (True, False):
        for sorted_ in (True, False):
            key = f"topk_{'largest' if largest else 'smallest'}_{'sorted' if sorted_ else 'any'}"
            out[key] = [t.topk(k, largest=largest, sorted=sorted_).indices.tolist() for k in ks]
    return out


TIE_SEEDS = list(range(40))


def answers(lib):
    """Every case (what the golden file holds)."""
    return {
        "cases": {
            f"{expr} [{d}]": run_case(lib, expr, d)
            for expr in CASES
            for d in ("float64", "float32")
        },
        "errors": {expr: run_error(lib, expr) for expr in ERRORS},
        "ties": {str(seed): run_ties(lib, seed) for seed in TIE_SEEDS},
    }
