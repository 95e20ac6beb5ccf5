"""Convolution, pooling and sliding blocks against PyTorch's recorded answers (``conv_cases.py``,
recorded by ``tools/record_torch_cases.py``): values, node chains, gradients of every input,
second derivatives, max-pool indices (ties, NaN, -inf), layers after ``manual_seed``
(``repr``, initial parameters, output, gradients), and errors (class and message)."""

import json
import re
from pathlib import Path

import conv_cases
import ferrograd
import numpy as np
import pytest

GOLDEN = json.loads((Path(__file__).parent / "golden" / conv_cases.GOLDEN).read_text())

TOLERANCE = {"float32": 2e-5, "float64": 1e-10}

# PyTorch pads an even kernel's 'same' convolution with constant_pad_nd (ConstantPadNdBackward0);
# ferrograd's F.pad builds the padding with cat (CatBackward0), values and gradients alike.
CHAIN_DIFFERENCES = {"conv2d_same_even", "conv1d_same"}


def _close(got, expected, tol):
    """Equal within ``tol`` (a missing gradient only where PyTorch's is missing)."""
    if got is None or expected is None:
        return got is None and expected is None
    g, e = np.asarray(got, dtype=float), np.asarray(expected, dtype=float)
    return g.shape == e.shape and np.allclose(g, e, rtol=tol, atol=tol, equal_nan=True)


@pytest.mark.parametrize(
    "case, dtype",
    [(c, d) for c in conv_cases.CALLS for d in ("float32", "float64")],
    ids=lambda v: v[0] if isinstance(v, tuple) else v,
)
def test_call_matches_pytorch(case, dtype):
    expected = GOLDEN["calls"][f"{case[0]}-{dtype}"]
    got = conv_cases.run_call(ferrograd, case, dtype)
    tol = TOLERANCE[dtype]
    assert got["shape"] == expected["shape"]
    assert _close(got["value"], expected["value"], tol)
    assert got["indices"] == expected["indices"]
    if case[0] not in CHAIN_DIFFERENCES:
        assert got["chain"] == expected["chain"]
    else:
        assert got["chain"][0] == expected["chain"][0]
    for i, (g, e) in enumerate(zip(got["grads"], expected["grads"], strict=True)):
        assert _close(g, e, tol), f"gradient of input {i}"
    for i, (g, e) in enumerate(zip(got["seconds"], expected["seconds"], strict=True)):
        assert _close(g, e, tol * 10), f"second derivative of input {i}"


def test_max_pool_ties_nan_and_infinities_pick_pytorchs_indices():
    assert conv_cases.run_max_special(ferrograd) == GOLDEN["max_special"]


def test_pool_gradients_record_pytorchs_double_backward_nodes():
    assert conv_cases.run_double_nodes(ferrograd) == GOLDEN["double_nodes"]


def test_nan_and_infinity_spread_as_in_pytorch():
    assert conv_cases.run_non_finite(ferrograd) == GOLDEN["non_finite"]


@pytest.mark.parametrize("case", conv_cases.MODULES, ids=lambda c: c[0])
def test_module_matches_pytorch(case):
    expected = GOLDEN["modules"][case[0]]
    got = conv_cases.run_module(ferrograd, case)
    tol = TOLERANCE["float32"]
    assert got["repr"] == expected["repr"]
    assert got["state"].keys() == expected["state"].keys()
    for k in expected["state"]:
        # the same generator draws: initial parameters equal to float32 rounding
        assert _close(got["state"][k], expected["state"][k], 1e-7), k
    assert got["shape"] == expected["shape"]
    assert _close(got["value"], expected["value"], tol)
    assert got["indices"] == expected["indices"]
    for i, (g, e) in enumerate(zip(got["grads"], expected["grads"], strict=True)):
        assert _close(g, e, tol), f"gradient {i}"


def _sets_sorted(message):
    """A message with the elements of each ``{...}`` sorted: PyTorch prints Python sets, whose
    order changes with the interpreter's string hashing."""
    return re.sub(r"\{([^{}]*)\}", lambda m: "{" + ", ".join(sorted(m.group(1).split(", "))) + "}",
                  message)


@pytest.mark.parametrize("name", sorted(conv_cases.ERRORS))
def test_bad_call_raises_as_pytorch(name):
    got = conv_cases.run_error(ferrograd, conv_cases.ERRORS[name])
    expected = GOLDEN["errors"][name]
    assert got["error"] == expected["error"]
    if got["error"] is not None:
        assert _sets_sorted(got["message"]) == _sets_sorted(expected["message"])
