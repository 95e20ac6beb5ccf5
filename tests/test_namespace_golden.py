"""Torch-namespace creation and sampling functions against PyTorch's recorded results
(``namespace_cases.py``): exact values (the same generator draws), dtypes, strides, reprs."""

import json
from pathlib import Path

import ferrograd
import namespace_cases
import pytest

GOLDEN = json.loads((Path(__file__).parent / "golden" / namespace_cases.GOLDEN).read_text())


def test_results_match_pytorch():
    got = namespace_cases.answers(ferrograd)["results"]
    expected = GOLDEN["results"]
    assert len(got) == len(expected)
    for i, (g, e) in enumerate(zip(got, expected)):
        assert json.loads(json.dumps(g)) == e, f"result {i}: {g} != {e}"


def test_casts_to_missing_dtypes_are_refused_clearly():
    """PyTorch has float16; ferrograd does not yet, and says which dtypes it has."""
    has = "float32, float64, int64, int32, int16, int8, uint8 and bool"
    with pytest.raises(TypeError, match=has):
        ferrograd.ones(2).half()


def test_default_dtype_accepts_only_floats():
    with pytest.raises(TypeError, match="floating-point"):
        ferrograd.set_default_dtype(ferrograd.int64)
    assert ferrograd.get_default_dtype() == ferrograd.float32
