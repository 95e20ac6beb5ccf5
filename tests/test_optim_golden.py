"""Optimizers against PyTorch's recorded trajectories (``tools/record_torch_cases.py``): the
parameters after each of several steps of SGD (momentum, dampening, Nesterov, weight decay,
maximize), Adam and AdamW (AMSGrad, weight decay, maximize), in float32 and float64, and the
names of the state each keeps."""

import json
from pathlib import Path

import ferrograd
import numpy as np
import optim_cases
import pytest

GOLDEN = json.loads((Path(__file__).parent / "golden" / optim_cases.GOLDEN).read_text())


@pytest.mark.parametrize(
    "name, optimizer, kwargs, dtype",
    [(n, o, k, d) for n, o, k in optim_cases.CASES for d in ("float32", "float64")],
)
def test_trajectory_matches_pytorch(name, optimizer, kwargs, dtype):
    expected = GOLDEN["cases"][f"{name}-{dtype}"]
    got = optim_cases.run(ferrograd, optimizer, kwargs, dtype)
    assert got["state_keys"] == expected["state_keys"]
    rtol, atol = (1e-5, 1e-6) if dtype == "float32" else (1e-12, 1e-14)
    for step, (g, e) in enumerate(zip(got["trajectory"], expected["trajectory"])):
        assert np.allclose(g, e, rtol=rtol, atol=atol), f"step {step + 1}: {g} != {e}"


def test_optimizer_api_as_pytorch():
    w = ferrograd.ones(2, requires_grad=True)
    b = ferrograd.zeros(1, requires_grad=True)
    opt = ferrograd.optim.SGD([{"params": [w]}, {"params": [b], "lr": 0.5}], lr=0.1, momentum=0.9)
    assert [g["lr"] for g in opt.param_groups] == [0.1, 0.5]
    assert opt.param_groups[1]["momentum"] == 0.9
    (w.sum() + b.sum()).backward()
    opt.step()
    assert w.tolist() == pytest.approx([0.9, 0.9]) and b.tolist() == pytest.approx([-0.5])
    saved = opt.state_dict()
    assert saved["param_groups"][1]["params"] == [1] and 0 in saved["state"]
    opt.zero_grad()
    assert w.grad is None
    with pytest.raises(ValueError, match="empty parameter list"):
        ferrograd.optim.Adam([])
    with pytest.raises(ValueError, match="more than one parameter group"):
        opt.add_param_group({"params": [w]})
