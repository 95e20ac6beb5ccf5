"""Normalization layers against PyTorch's recorded answers (``norm_cases.py``, recorded by
``tools/record_torch_cases.py``): values, gradients of input, weight and bias, second
derivatives, node graphs, running statistics, module reprs/parameters/buffers/state_dict keys,
training sequences of batch norms, two small trained models, old checkpoints and the errors of
bad arguments."""

import json
from pathlib import Path

import ferrograd
import norm_cases
import numpy as np
import pytest

GOLDEN = json.loads((Path(__file__).parent / "golden" / norm_cases.GOLDEN).read_text())

# float32: PyTorch accumulates statistics in float32 (ferrograd in float64), so results differ
# in the last bits; the gradients' cancellations scale that by the values' size
TOLERANCE = {"float32": 2e-5, "float64": 1e-10}


def _close(got, expected, tol):
    if expected is None or got is None:
        return got is expected
    g, e = np.asarray(got, dtype=float), np.asarray(expected, dtype=float)
    scale = max(1.0, float(np.max(np.abs(e)))) if e.size else 1.0
    return g.shape == e.shape and np.allclose(g, e, rtol=tol, atol=tol * scale, equal_nan=True)


def _zeros_if_none(got, expected):
    """A second derivative ferrograd leaves undefined (``None``) where PyTorch gives zeros:
    PyTorch's double backward of ``group_norm`` runs back through the forward node's saved mean
    and rstd outputs, which makes the bias (and any unused input) get a zero tensor; ferrograd's
    formula does not reach them, as PyTorch's own layer and batch norm formulas do not."""
    if got is None and expected is not None and not any(expected):
        return [0.0] * len(expected)
    return got


@pytest.mark.parametrize(
    "case, dtype",
    [(c, d) for c in norm_cases.CASES for d in ("float32", "float64")],
    ids=lambda v: v[0] if isinstance(v, tuple) else v,
)
def test_functional_matches_pytorch(case, dtype):
    expected = GOLDEN["cases"][f"{case[0]}-{dtype}"]
    got = norm_cases.run_case(ferrograd, case, dtype)
    tol = TOLERANCE[dtype]
    assert got["shape"] == expected["shape"] and got["dtype"] == expected["dtype"]
    assert got["graph"] == expected["graph"]
    assert _close(got["value"], expected["value"], tol), (got["value"], expected["value"])
    for g, e in zip(got["grads"], expected["grads"], strict=True):
        assert _close(g, e, tol), (g, e)
    if expected["grads2"] is not None:  # PyTorch has none for some (see norm_cases)
        for g, e in zip(got["grads2"], expected["grads2"], strict=True):
            assert _close(_zeros_if_none(g, e), e, tol * 10), (g, e)
    for g, e in zip(got["running"], expected["running"], strict=True):
        assert _close(g, e, tol), (g, e)


@pytest.mark.parametrize("case", norm_cases.MODULES, ids=lambda c: c[0])
def test_module_construction_matches_pytorch(case):
    assert norm_cases.run_module(ferrograd, case) == GOLDEN["modules"][case[0]]


def _close_tree(got, expected, tol, path="") -> None:
    if isinstance(expected, dict):
        assert isinstance(got, dict) and got.keys() == expected.keys(), path
        for k in expected:
            _close_tree(got[k], expected[k], tol, f"{path}.{k}")
    elif isinstance(expected, list) and expected and not isinstance(expected[0], (int, float)):
        assert isinstance(got, list) and len(got) == len(expected), path
        for i, (g, e) in enumerate(zip(got, expected)):
            _close_tree(g, e, tol, f"{path}[{i}]")
    elif isinstance(expected, list):
        assert _close(got, expected, tol), (path, got, expected)
    elif isinstance(expected, float):
        assert got == pytest.approx(expected, rel=tol, abs=tol), path
    else:
        assert got == expected, path


@pytest.mark.parametrize(
    "case, dtype",
    [(c, d) for c in norm_cases.SEQUENCES for d in ("float32", "float64")],
    ids=lambda v: v[0] if isinstance(v, tuple) else v,
)
def test_batch_norm_training_sequence_matches_pytorch(case, dtype):
    """Outputs, gradients and running statistics after each training step, evaluation with
    the running statistics, and a reset."""
    expected = GOLDEN["sequences"][f"{case[0]}-{dtype}"]
    _close_tree(norm_cases.run_sequence(ferrograd, case, dtype), expected, TOLERANCE[dtype])


def test_small_models_train_as_in_pytorch():
    """Linear/BatchNorm1d/LayerNorm with SGD and Linear/GroupNorm/RMSNorm with Adam, from
    PyTorch's initial weights: the losses of five steps and the final state."""
    _close_tree(norm_cases.run_models(ferrograd), GOLDEN["models"], 2e-4)


def test_old_checkpoints_load_as_in_pytorch():
    _close_tree(norm_cases.run_checkpoints(ferrograd), GOLDEN["checkpoints"], 1e-6)


@pytest.mark.parametrize("name", sorted(norm_cases.ERRORS))
def test_bad_arguments_raise_as_pytorch(name):
    assert norm_cases.run_error(ferrograd, name) == GOLDEN["errors"][name]


def test_running_statistics_are_updated_in_place():
    """The module's buffers are the same tensors after a step, written without a version bump
    (as PyTorch's kernel writes them)."""
    m = ferrograd.nn.BatchNorm1d(3)
    mean, var = m.running_mean, m.running_var
    before = (mean._version, var._version)
    m(ferrograd.tensor([[1.0, 2.0, 3.0], [2.0, 0.0, 5.0]]))
    assert m.running_mean is mean and m.running_var is var
    assert (mean._version, var._version) == before
    assert mean.tolist() == pytest.approx([0.15, 0.1, 0.4])
    assert var.tolist() == pytest.approx([0.95, 1.1, 1.1])


@pytest.mark.parametrize("name", sorted(norm_cases.EMPTY))
def test_empty_inputs_as_pytorch(name):
    assert norm_cases.run_empty(ferrograd, name) == GOLDEN["empty"][name]


@pytest.mark.parametrize("case", norm_cases.EMPTY_GRADS, ids=lambda c: c[0])
def test_gradients_through_empty_inputs_as_pytorch(case):
    assert norm_cases.run_empty_grads(ferrograd, case) == GOLDEN["empty_grads"][case[0]]
