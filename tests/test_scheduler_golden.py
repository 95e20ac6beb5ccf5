"""Learning-rate schedules against PyTorch's recorded rates (``tools/record_torch_cases.py``):
the rate (and momentum or Adam's first beta, which ``OneCycleLR`` cycles) after every epoch of
``StepLR``, ``MultiStepLR``, ``ExponentialLR``, ``CosineAnnealingLR``, ``LambdaLR``,
``LinearLR``, ``OneCycleLR`` (cos, linear, three phases) and ``ReduceLROnPlateau``, and the
parameter those rates moved."""

import json
from pathlib import Path

import ferrograd
import numpy as np
import pytest
import scheduler_cases

GOLDEN = json.loads((Path(__file__).parent / "golden" / scheduler_cases.GOLDEN).read_text())


@pytest.mark.parametrize("name, optimizer, scheduler", scheduler_cases.CASES)
def test_schedule_matches_pytorch(name, optimizer, scheduler):
    expected = GOLDEN["cases"][name]
    got = scheduler_cases.run(ferrograd, optimizer, scheduler)
    assert np.allclose(got["rows"], expected["rows"], rtol=1e-13, atol=0), name
    assert np.allclose(got["weights"], expected["weights"], rtol=1e-5, atol=1e-7), name


def test_scheduler_argument_errors_as_pytorch():
    opt = ferrograd.optim.SGD([ferrograd.ones(1, requires_grad=True)], lr=0.1)
    with pytest.raises(ValueError, match=r"Factor should be < 1\.0"):
        ferrograd.optim.lr_scheduler.ReduceLROnPlateau(opt, factor=1.5)
    with pytest.raises(ValueError, match="total_steps"):
        ferrograd.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1)


def test_plateau_scheduler_resumes_from_its_state_dict():
    """A checkpointed ReduceLROnPlateau continues exactly as the uninterrupted one."""

    def make():
        w = ferrograd.zeros(1, requires_grad=True)
        opt = ferrograd.optim.SGD([w], lr=1.0)
        return opt, ferrograd.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=1, factor=0.5)

    metrics = [5.0, 4.0, 4.0, 4.0, 4.0, 3.0, 3.0, 3.0, 3.0]
    opt, whole = make()
    for m in metrics:
        whole.step(m)
    opt2, first = make()
    for m in metrics[:4]:
        first.step(m)
    saved, opt_saved = first.state_dict(), opt2.state_dict()
    assert "optimizer" not in saved and saved["num_bad_epochs"] == first.num_bad_epochs
    opt3, resumed = make()
    opt3.load_state_dict(opt_saved)
    resumed.load_state_dict(saved)
    for m in metrics[4:]:
        resumed.step(m)
    assert resumed.get_last_lr() == whole.get_last_lr() == [0.25]
    assert opt3.param_groups[0]["lr"] == opt.param_groups[0]["lr"]
