"""``utils.checkpoint`` against PyTorch's recorded answers (``checkpoint_cases.py``, recorded
by ``tools/record_torch_cases.py``): outputs and gradients of checkpointed segments in both
variants equal PyTorch's and the plain computation's, the random stream after backward, the
warnings and the errors."""

import json
import math
from pathlib import Path

import checkpoint_cases
import ferrograd
import pytest

GOLDEN = json.loads((Path(__file__).parent / "golden" / checkpoint_cases.GOLDEN).read_text())
CASES = GOLDEN["cases"]


def assert_same(got, expected, where="answer"):
    """Equal JSON trees, floats to 1e-12 (float64 throughout)."""
    if isinstance(expected, dict):
        assert isinstance(got, dict) and got.keys() == expected.keys(), f"{where}: {got}"
        for key in expected:
            assert_same(got[key], expected[key], f"{where}.{key}")
    elif isinstance(expected, list):
        assert isinstance(got, list) and len(got) == len(expected), f"{where}: {got}"
        for i, (g, e) in enumerate(zip(got, expected)):
            assert_same(g, e, f"{where}[{i}]")
    elif isinstance(expected, float):
        assert isinstance(got, float), f"{where}: {got!r}"
        assert math.isclose(got, expected, rel_tol=1e-12, abs_tol=1e-14), f"{where}: {got}"
    else:
        assert type(got) is type(expected) and got == expected, f"{where}: {got!r} != {expected!r}"


def _answer(key):
    name, _, mode = key.partition("-")
    if name == "dropout_mlp_not_preserved":
        return checkpoint_cases.dropout_mlp(ferrograd, mode, preserve=False)
    fn = getattr(checkpoint_cases, name)
    return fn(ferrograd, mode) if mode else fn(ferrograd)


@pytest.mark.parametrize("key", sorted(CASES))
def test_matches_pytorch(key):
    assert_same(_answer(key), CASES[key], key)


@pytest.mark.parametrize(
    "name, mode",
    [
        (name, mode)
        for name in ("dropout_mlp", "two_outputs", "sequential")
        for mode in ("reentrant", "non_reentrant")
    ]
    + [("double_backward", "non_reentrant")],
)
def test_checkpointed_gradients_equal_plain_ones(name, mode):
    """Independent of the recording: a checkpointed segment's gradients are the plain ones."""
    fn = getattr(checkpoint_cases, name)
    assert_same(fn(ferrograd, mode), fn(ferrograd, "plain"), f"{name}-{mode}")
