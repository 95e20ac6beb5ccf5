"""Records PyTorch's autograd graphs into ``tests/golden/grad_fn_nodes.json``.

Run with a Python that has PyTorch installed (never needed by the tests or CI)::

    /work/torchenv/bin/python tools/record_torch_golden.py

Each entry of ``CASES`` is an expression evaluated with ``torch``, ``F`` (``torch.nn.functional``),
``operator``, the helpers and the inputs of ``tests/golden_inputs.py`` bound. For each one the
file holds ``type(out.grad_fn).__name__``, ``out.grad_fn.name()``, the ``next_functions`` tree
(``golden_inputs.graph_tree``), ``out.requires_grad`` and ``out.is_leaf``; for the cases marked
"values" also the float64 forward value and the gradient of ``out.sum()`` with respect to every
input it reaches. ``DOUBLE_BACKWARD`` holds first derivatives built with ``create_graph=True``;
``tests/test_golden_nodes.py`` checks only their values (ferrograd's node names for backward
graphs may differ). Expressions that PyTorch itself rejects are printed and left out.
"""

import importlib.util
import json
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "golden" / "grad_fn_nodes.json"


def _load_golden_inputs():
    path = ROOT / "tests" / "golden_inputs.py"
    spec = importlib.util.spec_from_file_location("golden_inputs", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


golden_inputs = _load_golden_inputs()


def graph(*exprs):
    """Cases whose graph (names, tree, flags) is recorded."""
    return [(e, False) for e in exprs]


def values(*exprs):
    """Cases whose forward value and gradients are recorded as well."""
    return [(e, True) for e in exprs]


def unary(names, operand="x"):
    """Method, torch function and in-place twin on a non-leaf for each unary op."""
    exprs = []
    for name in names:
        exprs += [
            f"{operand}.{name}()",
            f"torch.{name}({operand})",
            f"{operand}.mul(1).{name}_()",
        ]
    return values(*exprs)


ELEMENTWISE = [
    "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "sin", "cos",
    "tanh", "sigmoid", "relu", "erf", "sign", "floor", "ceil", "round",
]  # fmt: skip

NEW_UNARY = [
    "sinh", "cosh", "asinh", "atanh", "asin", "acos", "atan", "tan", "logit", "frac", "trunc",
    "lgamma", "digamma",
]  # fmt: skip

NEW_BINARY = ["xlogy", "hypot", "atan2"]

CASES = [
    # ---- python operators
    *graph(
        "x + y", "x - y", "x * y", "x / y", "x ** y", "x @ m", "-x", "abs(x)",
        "x * 2", "2 * x", "x + 1", "1 + x", "x - 1", "1 - x", "2 / x", "x / 2",
        "x ** 2", "x ** 0.5", "2 ** x", "x + y.detach()", "x.detach() * y",
        "x @ v", "v @ m", "v @ v", "b @ b", "b @ m", "b @ v", "x @ m.detach()",
        "operator.iadd(x.mul(1), y)", "operator.isub(x.mul(1), 1)",
        "operator.imul(x.mul(1), y)", "operator.itruediv(x.mul(1), 2)",
    ),
    # ---- arithmetic
    *graph(
        "x.add(y)", "x.add(y, alpha=2)", "x.add(2)", "x.sub(y)", "x.sub(2)", "x.mul(y)",
        "x.mul(2)", "x.div(y)", "x.div(2)", "x.pow(2)", "x.pow(0.5)", "x.pow(y)", "x.neg()",
        "x.abs()", "(x - 0.5).abs()", "x.reciprocal()", "x.square()", "x.matmul(m)", "x.mm(m)",
        "x.mv(v)", "b.bmm(b)", "v.dot(v)", "v.outer(v)", "x.maximum(y)", "x.minimum(y)",
        "x.clamp(0.3, 0.7)", "x.clamp(min=0.3)", "x.clamp(max=0.7)", "x.clamp(min=y)",
        "x.clip(0.3, 0.7)",
        "torch.add(x, y)", "torch.sub(x, y)", "torch.mul(x, y)", "torch.div(x, y)",
        "torch.pow(x, 2)", "torch.pow(2, x)", "torch.pow(x, y)", "torch.neg(x)", "torch.abs(x)",
        "torch.reciprocal(x)", "torch.square(x)", "torch.matmul(x, m)", "torch.matmul(b, m)",
        "torch.mm(x, m)", "torch.mv(x, v)", "torch.bmm(b, b)", "torch.dot(v, v)",
        "torch.outer(v, v)", "torch.maximum(x, y)", "torch.minimum(x, y)",
        "torch.clamp(x, 0.3, 0.7)", "torch.clip(x, 0.3, 0.7)",
    ),
    # ---- elementwise functions (the activations have no Tensor method in PyTorch)
    *unary(ELEMENTWISE),
    *values(
        "(x - 0.5).relu()", "(x - 0.5).sign()",
        "x.gelu()", "x.silu()", "x.softplus()", "x.leaky_relu()", "x.elu()",
        "F.relu(x)", "F.relu(x - 0.5)", "F.sigmoid(x)", "F.tanh(x)", "F.gelu(x)",
        "F.gelu(x, approximate='tanh')", "F.silu(x)", "F.softplus(x)", "F.softplus(x, beta=2)",
        "F.leaky_relu(x)", "F.leaky_relu(x - 0.5, 0.1)", "F.elu(x)", "F.elu(x - 0.5)",
        "F.elu(x - 0.5, alpha=0.7)",
    ),
    # ---- new elementwise ops
    *unary(NEW_UNARY),
    *unary(["acosh"], operand="p"),
    *values(
        "x.logit(0.1)", "torch.logit(x, 0.25)", "x.mul(1).logit_(0.1)",
    ),
    *values(*[
        e
        for name in NEW_BINARY
        for e in (f"x.{name}(y)", f"torch.{name}(x, y)", f"x.mul(1).{name}_(y)")
    ]),
    *values(
        "torch.xlogy(2, x)", "torch.xlogy(x, 2)", "x.xlogy(2)", "x.mul(1).xlogy_(2)",
        "torch.xlogy(x, y.detach())", "torch.hypot(x, y.detach())", "torch.atan2(x.detach(), y)",
    ),
    # ---- three-tensor pointwise ops (an EMA's lerp_, an optimizer's addcmul_/addcdiv_)
    *values(
        "x.lerp(y, 0.3)", "x.lerp(y, 0.7)", "torch.lerp(x, y, 0.25)", "x.lerp(y, v)",
        "x.lerp(y, v.detach())", "torch.lerp(x.detach(), y, v)", "x.mul(1).lerp_(y, 0.6)",
        "x.mul(1).lerp_(y, v)",
        "x.addcmul(y, v)", "x.addcmul(y, v, value=-0.5)", "torch.addcmul(x, y, p, value=2)",
        "x.addcmul(y.detach(), v)", "x.mul(1).addcmul_(y, p, value=0.3)",
        "x.addcdiv(y, p)", "x.addcdiv(y, p, value=-0.5)", "torch.addcdiv(x, v, p, value=2)",
        "x.addcdiv(y, p.detach())", "x.mul(1).addcdiv_(y, p, value=0.3)",
    ),
    # ---- reductions
    *graph(
        "x.sum()", "x.sum(1)", "x.sum(dim=0, keepdim=True)", "x.sum((0, 1))", "torch.sum(x)",
        "torch.sum(x, 1)",
        "x.mean()", "x.mean(1)", "x.mean((0, 1), keepdim=True)", "torch.mean(x, 0)",
        "x.prod()", "x.prod(1)", "torch.prod(x)", "torch.prod(x, 0)",
        "x.max()", "x.max(dim=1).values", "x.max(1, keepdim=True)[0]", "x.max(y)",
        "torch.max(x)", "torch.max(x, 0).values", "torch.max(x, y)",
        "x.min()", "x.min(dim=1).values", "x.min(1, keepdim=True)[0]", "x.min(y)",
        "torch.min(x)", "torch.min(x, 0).values", "torch.min(x, y)",
        "x.amax()", "x.amax(1)", "x.amax((0, 1))", "torch.amax(x, 0)",
        "x.amin()", "x.amin(1)", "x.amin((0, 1))", "torch.amin(x, 0)",
        "x.argmax()", "x.argmax(1)", "torch.argmax(x, 1)",
        "x.argmin()", "x.argmin(1)", "torch.argmin(x, 1)",
        "x.var()", "x.var(1)", "x.var(0, keepdim=True)", "torch.var(x)",
        "x.std()", "x.std(1)", "x.std(0, keepdim=True)", "torch.std(x)",
        "x.norm()", "x.norm(dim=1)", "x.norm(p=1)", "torch.norm(x)", "torch.norm(x, dim=0)",
        "x.logsumexp(1)", "torch.logsumexp(x, (0, 1))",
        "x.cumsum(1)", "torch.cumsum(x, 0)",
        "x.softmax(1)", "torch.softmax(x, 0)", "x.log_softmax(1)", "torch.log_softmax(x, 1)",
        "x.all()", "x.any()", "torch.all(x)", "torch.any(x)",
    ),
    # ---- comparison and logic (the differentiable ones)
    *graph(
        "torch.where(mask, x, y)", "x.where(mask, y)", "torch.where(mask, x, 0.0)",
        "torch.where(mask, 0.0, y)", "torch.where(x > 0.5, x, y)",
        "x.masked_fill(mask, 0.5)", "torch.masked_fill(x, mask, 0.5)",
    ),
    # ---- shape and views
    *graph(
        "x.t()", "x.T", "torch.t(x)", "x.transpose(0, 1)", "torch.transpose(b, 0, 2)",
        "b.permute(2, 0, 1)", "torch.permute(b, (1, 2, 0))", "x.view(6)", "x.view(3, 2)",
        "x.view_as(y)", "x.reshape(6)", "x.t().reshape(6)", "torch.reshape(x, (3, 2))",
        "x.reshape_as(y)", "x.flatten()", "b.flatten(1)", "torch.flatten(b)",
        "x.unsqueeze(0)", "torch.unsqueeze(x, 2)", "x.unsqueeze(0).squeeze(0)",
        "x.unsqueeze(1).squeeze()", "x.squeeze()", "torch.squeeze(x[None])",
        "x.expand(4, 2, 3)", "v.expand_as(x)", "x.narrow(1, 0, 2)", "x.select(1, 2)",
        "x.split(1)[0]", "x.split([1, 2], dim=1)[0]", "torch.split(x, 2, 1)[0]",
        "x.chunk(2, 1)[0]", "torch.chunk(x, 2)[0]", "x.unbind(1)[0]", "torch.unbind(x)[0]",
        "x.flip(0)", "torch.flip(x, (0, 1))", "x.repeat(2, 1)", "torch.repeat(x, 2, 1)",
        "x.contiguous()", "x.t().contiguous()",
        "torch.cat([x, y])", "torch.cat([x, y], 1)", "torch.cat([x, y.detach()])",
        "torch.stack([x, y])", "torch.stack([x, y], 2)", "torch.stack([x.detach(), y])",
    ),
    # ---- indexing
    *graph(
        "x[0]", "x[0, 1]", "x[:, 1:]", "x[:, ::2]", "x[None]", "x[..., 1]", "x[[0, 1]]",
        "x[mask]", "x[:, i]", "x[i[1], i[0]]", "m[i]",
        "x.gather(1, i)", "torch.gather(x, 1, i)", "x.scatter_add(1, i, y)",
        "torch.scatter_add(x, 1, i, y)", "x.index_select(1, i[0])",
        "torch.index_select(x, 0, i[1])", "m.index_select(0, i.flatten())",
        "setitem(x.clone(), (0,), y[1])", "setitem(x.clone(), (slice(None), 1), v[:2])",
        "setitem(x.clone(), mask, 0.5)", "setitem(x.clone(), mask, y[mask])",
        "setitem(x.clone(), ([0, 1], [2, 0]), v[:2])", "setitem(x.mul(1), (..., 0), 1.0)",
        "setitem(x.detach().clone(), (0,), y[1])",
        "mul_through_view(x.mul(1), (0,), 2.0)",
        "mul_through_view(x.clone(), (slice(None), 1), y[:, 1])",
        "x.mul(1)[0].mul_(2)",
    ),
    # ---- in-place on a non-leaf (the unary ones are with their ops above)
    *graph(
        "x.mul(1).add_(y)", "x.mul(1).add_(2)", "x.mul(1).sub_(y)", "x.mul(1).mul_(y)",
        "x.mul(1).mul_(2)", "x.mul(1).div_(y)", "x.mul(1).pow_(2)", "x.mul(1).zero_()",
        "x.mul(1).fill_(0.5)", "x.mul(1).copy_(y)", "x.mul(1).normal_()",
        "x.mul(1).uniform_()", "x.mul(1).clamp_(0.3, 0.7)", "x.mul(1).masked_fill_(mask, 0.5)",
        "x.mul(1).scatter_add_(1, i, y)", "x.mul(1).abs_()", "x.mul(1).neg_()",
        "x.mul(1).reciprocal_()",
        "torch.zeros(2, 3, dtype=torch.float64).copy_(x)",
        "torch.zeros(2, 3, dtype=torch.float64).add_(x)",
    ),
    # ---- conversion
    *graph(
        "x.to(torch.float32)", "x.to(torch.float64)", "x.float()", "x.double()",
        "x.float().double()", "x.clone()", "torch.clone(x)", "x.type_as(y)",
        "x.type_as(y.float())", "x.detach()", "torch.detach(x)", "x.cpu()", "x.long()",
        "x.bool()",
    ),
    # ---- nn.functional
    *graph(
        "F.linear(x, y)", "F.linear(x, m.t())", "F.linear(x, y, v[:2])",
        "F.softmax(x, 1)", "F.log_softmax(x, 1)", "F.mse_loss(x, y)",
        "F.mse_loss(x, y, reduction='sum')", "F.mse_loss(x, y, reduction='none')",
        "F.cross_entropy(x, i[:, 0])", "F.cross_entropy(x, i[:, 0], reduction='sum')",
        "F.nll_loss(F.log_softmax(x, 1), i[:, 0])",
    ),
]  # fmt: skip


def _first_derivative(expr, wrt="x"):
    return f"torch.autograd.grad({expr}.sum(), {wrt}, create_graph=True)[0]"


DOUBLE_BACKWARD = [
    *[
        _first_derivative(f"x.{name}()")
        for name in ["tanh", "sigmoid", "relu", "sin", "cos", "exp", "log", "sqrt", *NEW_UNARY]
    ],
    _first_derivative("p.acosh()", wrt="p"),
    _first_derivative("x.pow(3)"),
    *[_first_derivative(f"x.{name}(y)") for name in NEW_BINARY],
    *[_first_derivative(f"x.{name}(y)", wrt="y") for name in NEW_BINARY],
    _first_derivative("torch.xlogy(2, x)"),
]


def _leaves(names):
    return {n: names[n] for n in golden_inputs.input_arrays()}


def _evaluate(expr):
    names = golden_inputs.namespace(torch)
    out = eval(expr, names)
    if not isinstance(out, torch.Tensor):
        raise TypeError(f"{expr!r} gives {type(out).__name__}, not a tensor")
    return out, names


def _values(out, names):
    leaves = _leaves(names)
    grads = {}
    if out.requires_grad:
        found = torch.autograd.grad(out.sum(), list(leaves.values()), allow_unused=True)
        grads = {n: g.tolist() for n, g in zip(leaves, found) if g is not None}
    return {"value": out.detach().double().tolist(), "grads": grads}


def _node_names(out):
    g = out.grad_fn
    return {
        "type_name": None if g is None else type(g).__name__,
        "name": None if g is None else g.name(),
    }


def record_case(expr, with_values):
    out, names = _evaluate(expr)
    entry = {"expr": expr, "values": with_values, **_node_names(out)}
    g = out.grad_fn
    entry["next_functions"] = None if g is None else golden_inputs.graph_tree(g)
    entry["requires_grad"] = out.requires_grad
    entry["is_leaf"] = out.is_leaf
    if with_values:
        entry.update(_values(out, names))
    return entry


def record_double_backward(expr):
    out, names = _evaluate(expr)
    entry = {"expr": expr, **_node_names(out)}
    entry["requires_grad"] = out.requires_grad
    entry["is_leaf"] = out.is_leaf
    entry.update(_values(out, names))
    return entry


def _try(record, expr, *args):
    try:
        return record(expr, *args)
    except Exception as e:
        print(f"torch refuses {expr!r}: {type(e).__name__}: {str(e).splitlines()[0]}")
        return None


def _dump(doc):
    """JSON with one case per line (deterministic, diff-friendly); floats as their repr."""
    lines = ["{"]
    keys = list(doc)
    for k, key in enumerate(keys):
        comma = "," if k < len(keys) - 1 else ""
        value = doc[key]
        if isinstance(value, list) and value and isinstance(value[0], dict):
            items = [json.dumps(item, allow_nan=False) for item in value]
            lines.append(f"{json.dumps(key)}: [")
            lines += [f"  {item}," for item in items[:-1]] + [f"  {items[-1]}"]
            lines.append(f"]{comma}")
        else:
            lines.append(f"{json.dumps(key)}: {json.dumps(value, allow_nan=False)}{comma}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main():
    exprs = [e for e, _ in CASES] + DOUBLE_BACKWARD
    duplicates = sorted({e for e in exprs if exprs.count(e) > 1})
    if duplicates:
        raise SystemExit(f"duplicate expressions: {duplicates}")
    cases = [_try(record_case, e, v) for e, v in CASES]
    cases = [c for c in cases if c is not None]
    double = [_try(record_double_backward, e) for e in DOUBLE_BACKWARD]
    double = [c for c in double if c is not None]
    doc = {
        "about": "Generated by tools/record_torch_golden.py from PyTorch; do not edit.",
        "torch_version": torch.__version__.split("+")[0],
        "tree_depth": golden_inputs.TREE_DEPTH,
        "inputs": {n: a.tolist() for n, a in golden_inputs.input_arrays().items()},
        "cases": cases,
        "double_backward": double,
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(_dump(doc))
    refused = len(CASES) + len(DOUBLE_BACKWARD) - len(cases) - len(double)
    print(
        f"wrote {OUT.relative_to(ROOT)}: {len(cases)} cases, {len(double)} double-backward, "
        f"{refused} refused by torch"
    )


if __name__ == "__main__":
    main()
