"""``manual_seed`` then ``rand``/``randn``/``normal_``/``uniform_`` give PyTorch's numbers
(recorded by ``tools/record_torch_cases.py``): the same Mersenne Twister and the same draws per
distribution. float32 normals from 16 elements on are within two float32 ulps (PyTorch
evaluates their log/sin/cos with vectorized approximations); everything else is exact."""

import json
from pathlib import Path

import ferrograd
import numpy as np
import pytest
import random_cases

GOLDEN = json.loads((Path(__file__).parent / "golden" / random_cases.GOLDEN).read_text())


@pytest.mark.parametrize("seed", random_cases.SEEDS)
def test_streams_match_pytorch(seed):
    got = random_cases.draws(ferrograd, seed)
    expected = GOLDEN["streams"][str(seed)]
    assert len(got) == len(expected)
    for i, (g, e) in enumerate(zip(got, expected)):
        assert np.allclose(g, e, rtol=1e-6, atol=3e-7), f"call {i}: {g} != {e}"
    # uniforms, float64 draws and small float32 normals (drawn in float64) are exact
    for i in (0, 1, 2, 4, 5, 7, 8, 9, 10, 11, 12, 13, 14):
        assert got[i] == expected[i], f"call {i}"


@pytest.mark.parametrize("seed", random_cases.SEEDS)
def test_generator_objects_and_random_match_pytorch(seed):
    """``Generator`` objects draw PyTorch's numbers apart from the global stream; ``random_``
    draws PyTorch's integers for every dtype; a saved state replays."""
    assert random_cases.generator_draws(ferrograd, seed) == GOLDEN["generators"][str(seed)]


def test_manual_seed_returns_the_default_generator():
    g = ferrograd.manual_seed(5)
    assert g.initial_seed() == 5 and ferrograd.initial_seed() == 5
    assert ferrograd.default_generator.initial_seed() == 5
    with pytest.raises(TypeError, match="Generator"):
        ferrograd.rand(2, generator=3)
