"""ferrograd's autograd graphs against PyTorch's, recorded in ``golden/grad_fn_nodes.json``.

``tools/record_torch_golden.py`` evaluated each expression with PyTorch and stored the node
names, the ``next_functions`` tree, ``requires_grad``/``is_leaf`` and, for the cases marked
"values", the float64 forward value and the gradients of ``out.sum()``. This file evaluates the
same expressions with ferrograd on the same inputs (``golden_inputs.py``) and compares; it never
imports torch. The double-backward entries (first derivatives built with ``create_graph=True``)
are checked for their values only: their node names are an implementation detail.
"""

import json
from pathlib import Path

import ferrograd as torch
import golden_inputs
import numpy as np
import pytest

GOLDEN = json.loads((Path(__file__).parent / "golden" / "grad_fn_nodes.json").read_text())
CASES = GOLDEN["cases"]
VALUE_CASES = [c for c in CASES if c["values"]]
DOUBLE_BACKWARD = GOLDEN["double_backward"]

RTOL = 1e-10
ATOL = 1e-12


def by_expr(cases):
    return pytest.mark.parametrize("case", cases, ids=[c["expr"] for c in cases])


def evaluate(expr):
    """``expr`` evaluated with ferrograd on fresh inputs, and the names it was evaluated with."""
    names = golden_inputs.namespace(torch)
    out = eval(expr, names)
    assert isinstance(out, torch.Tensor), f"{expr!r} gives {type(out).__name__}, not a tensor"
    return out, names


def assert_close(actual, expected, what):
    actual = np.asarray(actual, dtype=np.float64)
    expected = np.asarray(expected, dtype=np.float64)
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} != {expected.shape}"
    assert np.allclose(actual, expected, rtol=RTOL, atol=ATOL), (
        f"{what}: max abs difference {np.max(np.abs(actual - expected), initial=0.0):.3g}\n"
        f"ferrograd: {actual.tolist()}\npytorch:   {expected.tolist()}"
    )


def check_values(case):
    """Forward value and the gradients of ``out.sum()`` with respect to every input leaf.

    An input that PyTorch's graph does not reach has no recorded gradient: it must get ``None``
    or zeros here.
    """
    out, names = evaluate(case["expr"])
    assert_close(out.detach().double().tolist(), case["value"], "forward value")
    leaves = {n: names[n] for n in golden_inputs.input_arrays()}
    found = [None] * len(leaves)
    if out.requires_grad:
        found = torch.autograd.grad(out.sum(), list(leaves.values()), allow_unused=True)
    for (name, leaf), grad in zip(leaves.items(), found):
        expected = case["grads"].get(name, np.zeros(tuple(leaf.shape)))
        actual = np.zeros(tuple(leaf.shape)) if grad is None else grad.tolist()
        assert_close(actual, expected, f"gradient with respect to {name}")


def test_inputs_match_the_recording():
    for name, recorded in GOLDEN["inputs"].items():
        assert golden_inputs.input_arrays()[name].tolist() == recorded, name
        assert golden_inputs.make_inputs(torch)[name].tolist() == recorded, name


@by_expr(CASES)
def test_node_names(case):
    out, _ = evaluate(case["expr"])
    if case["type_name"] is None:
        assert out.grad_fn is None
        return
    assert out.grad_fn is not None
    assert type(out.grad_fn).__name__ == case["type_name"]
    assert out.grad_fn.name() == case["name"]


@by_expr(CASES)
def test_next_functions(case):
    out, _ = evaluate(case["expr"])
    if case["next_functions"] is None:
        assert out.grad_fn is None
        return
    assert out.grad_fn is not None
    depth = GOLDEN["tree_depth"]
    assert golden_inputs.graph_tree(out.grad_fn, depth) == case["next_functions"]


@by_expr(CASES)
def test_requires_grad_and_is_leaf(case):
    out, _ = evaluate(case["expr"])
    assert (out.requires_grad, out.is_leaf) == (case["requires_grad"], case["is_leaf"])


@by_expr(VALUE_CASES)
def test_values(case):
    check_values(case)


@by_expr(DOUBLE_BACKWARD)
def test_double_backward_values(case):
    check_values(case)
