"""Losses, activations and dropout against PyTorch's recorded answers (``loss_cases.py``,
recorded by ``tools/record_torch_cases.py``): values, gradients of every input, ``grad_fn``
names, second derivatives of the activations, error classes and messages, and dropout masks
after ``manual_seed`` (exact: the same generator draws)."""

import json
from pathlib import Path

import ferrograd
import loss_cases
import numpy as np
import pytest

GOLDEN = json.loads((Path(__file__).parent / "golden" / loss_cases.GOLDEN).read_text())

# PyTorch divides by the batch size through C++'s div(Tensor, Scalar), which it names
# DivBackward1; ferrograd's division by a number is DivBackward0, as PyTorch's Python `x / n`.
NODE_DIFFERENCES = {"ce_probs-mean", "ce_probs_weight_smooth-mean"}

TOLERANCE = {"float32": 1e-5, "float64": 1e-10}


def _close(got, expected, tol):
    if expected is None or got is None:
        return got is expected
    g, e = np.asarray(got, dtype=float), np.asarray(expected, dtype=float)
    return g.shape == e.shape and np.allclose(g, e, rtol=tol, atol=tol, equal_nan=True)


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize(
    "case, reduction, dtype",
    [(c, r, d) for c in loss_cases.LOSSES for r in loss_cases.REDUCTIONS
     for d in ("float32", "float64")],
    ids=lambda v: v[0] if isinstance(v, tuple) else v,
)
def test_loss_matches_pytorch(case, reduction, dtype):
    key = f"{case[0]}-{reduction}-{dtype}"
    expected = GOLDEN["losses"][key]
    got = loss_cases.run_loss(ferrograd, case, reduction, dtype)
    tol = TOLERANCE[dtype]
    assert got["shape"] == expected["shape"]
    assert _close(got["value"], expected["value"], tol), (got["value"], expected["value"])
    for g, e in zip(got["grads"], expected["grads"], strict=True):
        assert _close(g, e, tol), (g, e)
    if f"{case[0]}-{reduction}" not in NODE_DIFFERENCES:
        assert got["node"] == expected["node"]


@pytest.mark.parametrize(
    "case, dtype",
    [(c, d) for c in loss_cases.ACTIVATIONS for d in ("float32", "float64")],
    ids=lambda v: v[0] if isinstance(v, tuple) else v,
)
def test_activation_matches_pytorch(case, dtype):
    expected = GOLDEN["activations"][f"{case[0]}-{dtype}"]
    got = loss_cases.run_activation(ferrograd, case, dtype)
    tol = TOLERANCE[dtype]
    assert got["node"] == expected["node"]
    assert _close(got["value"], expected["value"], tol)
    assert _close(got["grad"], expected["grad"], tol)
    if expected["grad2"] is not None:  # PyTorch has none for hardsigmoid
        assert _close(got["grad2"], expected["grad2"], tol * 10)


@pytest.mark.parametrize("case", loss_cases.ERRORS, ids=lambda c: c[0])
def test_bad_arguments_raise_as_pytorch(case):
    assert loss_cases.run_error(ferrograd, case) == GOLDEN["errors"][case[0]]


@pytest.mark.parametrize("seed", ["0", "7", "2024"])
def test_dropout_masks_match_pytorch(seed):
    """The masks, their scaling and the generator position afterwards are PyTorch's."""
    assert loss_cases.run_dropout(ferrograd, int(seed)) == GOLDEN["dropout"][seed]
