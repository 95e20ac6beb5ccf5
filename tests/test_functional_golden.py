"""``autograd.functional`` against PyTorch's recorded answers (``functional_cases.py``, recorded
by ``tools/record_torch_cases.py``): values, nesting of the returned tuples (lists for PyTorch's
forward-mode strategy), dtypes, whether results carry a graph, gradients through
``create_graph`` results, and the class and message of every error."""

import json
from pathlib import Path

import ferrograd
import functional_cases
import numpy as np
import pytest

GOLDEN = json.loads((Path(__file__).parent / "golden" / functional_cases.GOLDEN).read_text())


def assert_same(got, expected, where="result"):
    """Recursive comparison of two encoded results (see ``functional_cases.encode``)."""
    assert got.keys() == expected.keys(), f"{where}: {list(got)} != {list(expected)}"
    for kind in ("tuple", "list"):
        if kind in expected:
            assert len(got[kind]) == len(expected[kind]), f"{where}: lengths differ"
            for i, (g, e) in enumerate(zip(got[kind], expected[kind])):
                assert_same(g, e, f"{where}[{i}]")
            return
    assert got["shape"] == expected["shape"], where
    assert got["dtype"] == expected["dtype"], where
    assert got["requires_grad"] == expected["requires_grad"], where
    tol = 1e-5 if expected["dtype"] == "torch.float32" else 1e-10
    assert np.allclose(got["values"], expected["values"], rtol=tol, atol=tol), (
        f"{where}: {got['values']} != {expected['values']}"
    )


@pytest.mark.parametrize("case", functional_cases.CASES, ids=[c[0] for c in functional_cases.CASES])
def test_case_matches_pytorch(case):
    expected = GOLDEN["cases"][case[0]]
    got = functional_cases.run(ferrograd, *case)
    if "error" in expected:
        assert got.get("error") == expected["error"], got
        assert got["message"] == expected["message"]
        return
    assert "error" not in got, got
    assert_same(got["result"], expected["result"])
    if "grads" in expected:
        assert len(got["grads"]) == len(expected["grads"])
        for g, e in zip(got["grads"], expected["grads"]):
            assert (g is None) == (e is None)
            if e is not None:
                assert np.allclose(g, e, rtol=1e-10, atol=1e-12), f"{g} != {e}"


def test_type_errors_match_pytorch():
    assert functional_cases.type_errors(ferrograd) == GOLDEN["type_errors"]


def test_function_capturing_its_input():
    got = functional_cases.captured_input(ferrograd)
    assert np.allclose(got, GOLDEN["captured_input"], rtol=0, atol=0)


def test_results_under_no_grad():
    got = functional_cases.no_grad_context(ferrograd)
    assert_same(got["jac"], GOLDEN["no_grad_context"]["jac"], "jac")
    assert_same(got["hess"], GOLDEN["no_grad_context"]["hess"], "hess")


def test_jacobian_matches_finite_differences():
    """Independent of the recording: central differences of a two-input, two-output function."""
    fn = ferrograd.autograd.functional

    def f(x, w):
        return (x @ w).sin(), (x * x).sum(dim=0)

    x = ferrograd.tensor([[0.3, -0.2, 0.5], [1.1, 0.4, -0.7]], dtype=ferrograd.float64)
    w = ferrograd.tensor([[0.2, 0.1], [-0.4, 0.3], [0.6, -0.5]], dtype=ferrograd.float64)
    jac = fn.jacobian(f, (x, w))
    eps = 1e-6
    inputs = [x.numpy(), w.numpy()]
    for j, base in enumerate(inputs):
        for idx in np.ndindex(base.shape):
            plus = [a.copy() for a in inputs]
            minus = [a.copy() for a in inputs]
            plus[j][idx] += eps
            minus[j][idx] -= eps
            outs_p = f(*(ferrograd.from_numpy(a) for a in plus))
            outs_m = f(*(ferrograd.from_numpy(a) for a in minus))
            for i in range(2):
                numeric = (outs_p[i].numpy() - outs_m[i].numpy()) / (2 * eps)
                block = jac[i][j].numpy()
                analytic = block[(Ellipsis, *idx)]
                assert np.allclose(analytic, numeric, atol=1e-8), (i, j, idx)
