"""``linalg.svdvals`` and the spectral and nuclear matrix norms against PyTorch's recorded
results (``linalg_cases.py``), first and second derivatives checked numerically."""

import json
from pathlib import Path

import ferrograd as torch
import linalg_cases
import pytest

GOLDEN = json.loads((Path(__file__).parent / "golden" / linalg_cases.GOLDEN).read_text())


def test_results_match_pytorch():
    got = linalg_cases.answers(torch)["results"]
    assert json.loads(json.dumps(got)) == GOLDEN["results"]


@pytest.mark.parametrize("ord", [2, -2, "nuc"])
@pytest.mark.parametrize("shape", [(3, 4), (4, 3), (2, 3, 3)])
def test_gradients_match_finite_differences(shape, ord):
    torch.manual_seed(sum(shape))
    a = torch.randn(*shape, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda x: torch.linalg.matrix_norm(x, ord), (a,))


@pytest.mark.parametrize("ord", [2, -2, "nuc"])
def test_second_derivatives_match_finite_differences(ord):
    torch.manual_seed(3)
    a = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradgradcheck(lambda x: torch.linalg.matrix_norm(x, ord), (a,))
