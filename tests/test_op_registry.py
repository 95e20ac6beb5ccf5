"""Every row of ``op_registry.OPS``: forward against NumPy (float64 and float32), gradcheck and
gradgradcheck in float64, the result dtype, and the in-place twin; and every public method of
``Tensor`` has a row (or a reason in ``NOT_OPS``)."""

import inspect

import ferrograd as torch
import numpy as np
import pytest
from ferrograd.autograd import gradcheck, gradgradcheck
from op_registry import DOMAINS, NOT_OPS, OPS

ROWS = [pytest.param(op, id=op.name) for op in OPS]
GRAD_ROWS = [pytest.param(op, id=op.name) for op in OPS if op.grad]
INPLACE_ROWS = [pytest.param(op, id=op.name) for op in OPS if op.inplace]


def arrays(op, seed=0):
    """The row's inputs as float64 NumPy arrays."""
    rng = np.random.default_rng(seed)
    out = []
    for spec in op.inputs:
        domain, shape = spec.split(":")
        out.append(np.asarray(DOMAINS[domain](rng, tuple(int(s) for s in shape.split(","))), float))
    return out


def first(result):
    """The tensor of an op that may return a tuple of them."""
    return result[0] if isinstance(result, (tuple, list)) else result


def as_array(t):
    return np.asarray(t.detach().double().tolist() if t.dtype != torch.bool else t.tolist())


@pytest.mark.parametrize("op", ROWS)
def test_forward_matches_numpy_float64(op):
    xs = arrays(op)
    out = first(op.call(*[torch.tensor(a, dtype=torch.float64) for a in xs]))
    expected = np.asarray(op.ref(*xs))
    got = as_array(out)
    assert got.shape == expected.shape, f"{op.name}: shape {got.shape} != {expected.shape}"
    assert np.allclose(got, expected, rtol=op.rtol, atol=1e-12), f"{op.name}: {got} != {expected}"


@pytest.mark.parametrize("op", ROWS)
def test_forward_matches_numpy_float32(op):
    xs = arrays(op)
    out = first(op.call(*[torch.tensor(a, dtype=torch.float32) for a in xs]))
    expected = np.asarray(op.ref(*[a.astype(np.float32).astype(np.float64) for a in xs]))
    got = as_array(out)
    assert np.allclose(got, expected, rtol=max(op.float32_rtol, op.rtol), atol=1e-5), op.name


@pytest.mark.parametrize("op", GRAD_ROWS)
def test_gradcheck(op):
    inputs = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in arrays(op)]
    assert gradcheck(lambda *xs: first(op.call(*xs)), inputs)


@pytest.mark.parametrize("op", GRAD_ROWS)
def test_gradgradcheck(op):
    inputs = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in arrays(op)]
    assert gradgradcheck(lambda *xs: first(op.call(*xs)), inputs)


def expected_dtype(op, input_dtypes):
    promoted = input_dtypes[0]
    for d in input_dtypes[1:]:
        if d == torch.float64 or promoted == torch.float64:
            promoted = torch.float64
        elif d == torch.float32 or promoted == torch.float32:
            promoted = torch.float32
    return {
        "float": torch.float32 if promoted == torch.int64 else promoted,
        "same": promoted,
        "first": input_dtypes[0],
        "bool": torch.bool,
        "long": torch.int64,
    }[op.dtype]


@pytest.mark.parametrize("op", [p for p in ROWS if p.values[0].dtype])
def test_result_dtype(op):
    xs = arrays(op)
    combos = [[torch.float32] * len(xs), [torch.float64] * len(xs)]
    if len(xs) == 2 and op.mixed:
        combos.append([torch.float32, torch.float64])
    if op.ints:
        combos.append([torch.int64] * len(xs))
    for dtypes in combos:
        values = [np.round(a * 2) if d == torch.int64 else a for a, d in zip(xs, dtypes)]
        if op.ints and dtypes[0] == torch.int64 and any(v.min() <= 0 for v in values):
            values = [np.abs(v) + 1 for v in values]  # stay in the op's domain (log of ints)
        tensors = [torch.tensor(v, dtype=d) for v, d in zip(values, dtypes)]
        out = first(op.call(*tensors))
        assert out.dtype == expected_dtype(op, dtypes), f"{op.name} on {dtypes}: {out.dtype}"


@pytest.mark.parametrize("op", [p for p in ROWS if not p.values[0].mixed])
def test_mixed_float_widths_refused(op):
    """PyTorch refuses float32 with float64 here (no promotion): a RuntimeError, as it."""
    xs = arrays(op)
    tensors = [torch.tensor(xs[0], dtype=torch.float32), torch.tensor(xs[1], dtype=torch.float64)]
    with pytest.raises(RuntimeError):
        op.call(*tensors)


@pytest.mark.parametrize("op", INPLACE_ROWS)
def test_inplace_twin_matches(op):
    xs = arrays(op)
    tensors = [torch.tensor(a, dtype=torch.float64) for a in xs]
    expected = first(op.call(*tensors)).tolist()
    target = tensors[0].clone()
    args = op.extra.get("inplace_args", ())
    if op.name == "masked_fill":
        args = (target > 0, 0.5)
    elif op.name == "scatter_add":
        args = (1, torch.tensor([[0, 1, 0, 1], [3, 3, 2, 0], [1, 1, 1, 2]]), tensors[1])
    else:
        args = (*tensors[1:], *args)
    version = target._version if hasattr(target, "_version") else None
    twin = op.extra.get("inplace_call")  # the twin called as the row calls the op
    if twin is not None:
        returned = twin(target, *tensors[1:])
    else:
        returned = getattr(target, op.inplace)(*args)
    assert returned is target, f"{op.inplace} returns the tensor itself"
    assert np.allclose(target.tolist(), expected, rtol=1e-12), op.inplace
    if version is not None:
        assert target._version > version


def public_methods():
    names = set()
    for name in dir(torch.Tensor):
        if name.startswith("_"):
            continue
        static = inspect.getattr_static(torch.Tensor, name)
        if type(static).__name__ in ("getset_descriptor", "property"):
            continue  # attributes: shape, grad, T, ...
        names.add(name)
    return names


def method_name(op):
    """The method a row checks (``scatter_reduce[sum,True]``: one of its variants)."""
    return op.name.split("[")[0]


def test_every_public_method_has_a_row():
    covered = {method_name(op) for op in OPS} | {op.inplace for op in OPS if op.inplace}
    covered |= set(NOT_OPS)
    covered |= {f"{op.name}_" for op in OPS if op.name in ("add", "sub", "mul", "div", "pow")}
    missing = sorted(public_methods() - covered)
    assert not missing, f"public methods with no row in tests/op_registry.py: {missing}"
    unknown = sorted(
        name
        for name in {method_name(op) for op in OPS} | set(NOT_OPS)
        if name not in public_methods() and name != "gelu_tanh"
    )
    assert not unknown, f"rows for names that are not Tensor methods: {unknown}"


def test_the_registry_check_catches_a_wrong_reference():
    """A row whose NumPy reference is wrong must fail the forward test."""
    from op_registry import Op

    wrong = Op("exp", lambda x: x.exp(), lambda a: np.exp(a) + 1e-6)
    with pytest.raises(AssertionError):
        test_forward_matches_numpy_float64(wrong)
