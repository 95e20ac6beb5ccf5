"""``nn.Linear``'s default initialisation and ``nn.init`` give PyTorch's values after
``manual_seed`` (recorded by ``tools/record_torch_cases.py``): the same formulas for gains and
fans, drawing from the same generator. Normal fills of 16 or more float32 elements are within
two ulps (see ``test_random_golden.py``); everything else is exact."""

import json
from pathlib import Path

import ferrograd
import init_cases
import numpy as np
import pytest

GOLDEN = json.loads((Path(__file__).parent / "golden" / init_cases.GOLDEN).read_text())
NORMAL_FILLS = {"normal", "xavier_normal", "kaiming_normal"}


@pytest.mark.parametrize("seed", init_cases.SEEDS)
def test_initialisations_match_pytorch(seed):
    got = init_cases.values(ferrograd, seed)
    expected = GOLDEN["seeds"][str(seed)]
    assert sorted(got) == sorted(expected)
    for name, values in expected.items():
        if name in NORMAL_FILLS:
            assert np.allclose(got[name], values, rtol=1e-6, atol=3e-7), name
        else:
            assert got[name] == values, name
