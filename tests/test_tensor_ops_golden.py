"""The torch-namespace tensor ops against PyTorch's recorded answers (``tensor_ops_cases.py``,
recorded by ``tools/record_torch_cases.py``): values, dtypes, shapes, ``grad_fn`` names and
their ``next_functions``, gradients of every input, error classes and messages, and the indices
PyTorch's sorting kernels give tied elements."""

import json
import math
from pathlib import Path

import ferrograd
import numpy as np
import pytest
import tensor_ops_cases

GOLDEN = json.loads((Path(__file__).parent / "golden" / tensor_ops_cases.GOLDEN).read_text())

TOLERANCE = {"float32": 2e-5, "float64": 1e-10}

# Messages worded differently from PyTorch's (the class is still PyTorch's): the part of
# ferrograd's message that must appear instead.
MESSAGES = {
    # PyTorch prints the whole offending tensor
    "torch.meshgrid(x, v, indexing='ij')": "Expected 0D or 1D tensor in the tensor list",
}


def _close(got, expected, tol):
    g, e = np.asarray(got, dtype=float), np.asarray(expected, dtype=float)
    return g.shape == e.shape and np.allclose(g, e, rtol=tol, atol=tol, equal_nan=True)


def _compare(got, expected, tol, where="out"):
    if "tensor" in expected:
        assert "tensor" in got, f"{where}: expected a tensor, got {got}"
        g, e = got["tensor"], expected["tensor"]
        for key in ("dtype", "shape", "requires_grad", "node", "name"):
            assert g[key] == e[key], f"{where}.{key}: {g[key]!r} != {e[key]!r}"
        assert g["next"] == e["next"], f"{where}.next: {g['next']} != {e['next']}"
        assert _close(g["value"], e["value"], tol), f"{where}: {g['value']} != {e['value']}"
    elif "items" in expected:
        assert got.get("kind") == expected["kind"], (
            f"{where}: {got.get('kind')} != {expected['kind']}"
        )
        assert len(got["items"]) == len(expected["items"])
        for i, (g, e) in enumerate(zip(got["items"], expected["items"])):
            _compare(g, e, tol, f"{where}[{i}]")
    else:
        g, e = got["python"], expected["python"]
        assert got["type"] == expected["type"], f"{where}: {got['type']} != {expected['type']}"
        assert g == e or (isinstance(e, float) and math.isnan(e) and math.isnan(g)), (g, e)


@pytest.mark.parametrize(
    "expr, dtype",
    [(e, d) for e in tensor_ops_cases.CASES for d in ("float64", "float32")],
    ids=lambda v: v,
)
def test_matches_pytorch(expr, dtype):
    expected = GOLDEN["cases"][f"{expr} [{dtype}]"]
    got = tensor_ops_cases.run_case(ferrograd, expr, dtype)
    tol = TOLERANCE[dtype]
    _compare(got, expected, tol)
    if "error" in expected["grads"]:
        assert got["grads"].get("error") == expected["grads"]["error"]
        assert expected["grads"]["message"] in got["grads"]["message"]
        return
    assert sorted(got["grads"]) == sorted(expected["grads"]), (got["grads"], expected["grads"])
    for name, g in expected["grads"].items():
        assert _close(got["grads"][name], g, tol), f"d/d{name}: {got['grads'][name]} != {g}"


@pytest.mark.parametrize("expr", tensor_ops_cases.ERRORS)
def test_errors_match_pytorch(expr):
    expected = GOLDEN["errors"][expr]
    got = tensor_ops_cases.run_error(ferrograd, expr)
    assert got["error"] == expected["error"], (got, expected)
    wanted = MESSAGES.get(expr, expected["message"])
    assert wanted in got["message"], (got["message"], expected["message"])


@pytest.mark.parametrize("seed", [str(s) for s in tensor_ops_cases.TIE_SEEDS])
def test_tied_elements_get_pytorchs_indices(seed):
    """sort (unstable), topk, kthvalue, median and mode order ties as PyTorch's CPU kernels."""
    assert tensor_ops_cases.run_ties(ferrograd, int(seed)) == GOLDEN["ties"][seed]
