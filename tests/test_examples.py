"""The programs of ``examples/`` run under ferrograd and reach PyTorch's results step for step.

PyTorch's answers are recorded by ``tools/record_example_losses.py`` (the same files run with
``EXAMPLES_LIB=torch``) into ``golden/example_losses.json``.

Tolerances: the float32 programs compute every step's loss from the same data, initial weights,
shuffles and dropout masks as PyTorch (its random streams are reproduced bit for bit), so the
only differences are the order of float32 summations in matrix products and reductions: a few
units in the last place (~1e-7 relative) on the first step, which the training dynamics then
carry forward and amplify slowly (at most ~1.4e-6 relative after 200 steps when recorded). The
bound ``rtol(step) = 2e-5 * (1 + step / 25)`` leaves more than ten times that margin, yet a
slightly wrong hyper-parameter or formula breaks it within a few steps (measured: label smoothing
0.04 for 0.05 at step 1, Nesterov off at step 2, Adam's beta2 0.999 for 0.99 at step 4, AdamW
without weight decay at step 10). The float64 program (``oscillator_fit``) is held to 1e-12.
"""

import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
GOLDEN = json.loads((Path(__file__).parent / "golden" / "example_losses.json").read_text())
NAMES = sorted(GOLDEN["examples"])
FLOAT64_EXAMPLES = {"oscillator_fit"}


def load_example(name):
    """Imports ``examples/<name>.py`` with ferrograd as its ``torch``."""
    os.environ["EXAMPLES_LIB"] = "ferrograd"
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def results():
    """Each example's ``main(verbose=False)`` under ferrograd, run once for all the tests."""
    previous = os.environ.get("EXAMPLES_LIB")
    try:
        return {name: load_example(name).main(verbose=False) for name in NAMES}
    finally:
        if previous is None:
            os.environ.pop("EXAMPLES_LIB", None)
        else:
            os.environ["EXAMPLES_LIB"] = previous


def expected(name):
    return GOLDEN["examples"][name]["result"]


def assert_losses_match(name, got, want):
    """Step ``k`` (from 1) agrees to ``rtol(k)``; the whole sequence has PyTorch's length."""
    assert len(got) == len(want), f"{name}: {len(got)} steps, PyTorch ran {len(want)}"
    assert len(want) >= 20
    for step, (g, w) in enumerate(zip(got, want), start=1):
        rtol = 1e-12 if name in FLOAT64_EXAMPLES else 2e-5 * (1 + step / 25)
        assert g == pytest.approx(w, rel=rtol, abs=0), (
            f"{name}: step {step} loss {g!r}, PyTorch's {w!r} (rtol {rtol:.1e})"
        )


def test_every_example_is_recorded():
    """A new program in ``examples/`` needs PyTorch's answers recorded before it is tested."""
    on_disk = sorted(p.stem for p in EXAMPLES.glob("*.py") if not p.name.startswith("_"))
    assert on_disk == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_losses_match_pytorch_step_for_step(results, name):
    assert_losses_match(name, results[name]["losses"], expected(name)["losses"])


def test_spiral_classifier_accuracies(results):
    got, want = results["spiral_classifier"], expected("spiral_classifier")
    assert got["epoch_accuracies"] == pytest.approx(want["epoch_accuracies"], abs=1e-6)
    assert got["final_accuracy"] == pytest.approx(want["final_accuracy"], abs=1e-6)
    assert got["final_accuracy"] > 0.95


def test_checkpoint_resume_is_seamless(results):
    got, want = results["checkpoint_resume"], expected("checkpoint_resume")
    assert got["same_outputs"] is True and want["same_outputs"] is True
    # Restored from the file, training continues exactly as the run that never stopped ...
    assert got["resumed_equals_continued"] is True
    assert got["resumed_losses"] == got["losses"][-len(got["resumed_losses"]) :]
    # ... which is PyTorch's run.
    assert_losses_match("checkpoint_resume", got["resumed_losses"], want["resumed_losses"])
    assert got["final_lr"] == pytest.approx(want["final_lr"], rel=1e-12)


def test_regression_plateau_schedule_and_buffers(results):
    got, want = results["regression_nesterov"], expected("regression_nesterov")
    assert got["lrs"] == want["lrs"]  # ReduceLROnPlateau cut the rate at the same epochs
    assert len(set(want["lrs"])) > 1  # ... and it did cut it
    assert got["val_losses"] == pytest.approx(want["val_losses"], rel=1e-4)
    assert got["state_dict_keys"] == want["state_dict_keys"]
    assert {"mean", "std"} <= set(got["state_dict_keys"])


def test_imbalanced_binary_split_and_metrics(results):
    got, want = results["imbalanced_binary"], expected("imbalanced_binary")
    assert got["train_indices"] == want["train_indices"]  # random_split drew PyTorch's split
    assert len(got["val_metrics"]) == len(want["val_metrics"])
    for epoch, (g, w) in enumerate(zip(got["val_metrics"], want["val_metrics"]), start=1):
        assert g == pytest.approx(w, abs=1e-12), f"epoch {epoch}"


def test_oscillator_fit_custom_function(results):
    got, want = results["oscillator_fit"], expected("oscillator_fit")
    assert got["gradcheck"] is True
    assert got["params"] == pytest.approx(want["params"], rel=1e-10)
    for key in ("hessian", "gauss_newton"):
        assert np.allclose(got[key], want[key], rtol=1e-10, atol=1e-13), key
    assert got["params"] == pytest.approx([1.5, 0.3, 2.0, 0.4], abs=0.02)  # the truth, nearly


NUMBER = re.compile(r"[-+]?\d+\.\d+(?:e[-+]?\d+)?|[-+]?\d+(?:e[-+]?\d+)?")


def printed_unit(token):
    """One unit in the last printed place of a number as formatted (``0.1234`` -> 1e-4)."""
    mantissa, _, exponent = token.partition("e")
    decimals = len(mantissa.partition(".")[2])
    return 10.0 ** (int(exponent or 0) - decimals)


@pytest.mark.parametrize("name", NAMES)
def test_runs_as_a_script(name):
    """``python examples/<name>.py`` with ferrograd (the default) prints PyTorch's lines: the
    same text, and the same numbers up to rounding in their last printed digit."""
    env = {k: v for k, v in os.environ.items() if k != "EXAMPLES_LIB"}
    script = subprocess.run(
        [sys.executable, str(EXAMPLES / f"{name}.py")],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=120,
    )
    assert script.returncode == 0, script.stderr
    got, want = script.stdout.splitlines(), GOLDEN["examples"][name]["stdout"]
    assert len(got) == len(want)
    for number, (g, w) in enumerate(zip(got, want), start=1):
        assert NUMBER.sub("#", g) == NUMBER.sub("#", w), f"line {number}: {g!r} != {w!r}"
        for a, b in zip(NUMBER.findall(g), NUMBER.findall(w)):
            tolerance = 1.01 * printed_unit(b) + 1e-4 * abs(float(b))
            assert abs(float(a) - float(b)) <= tolerance, f"line {number}: {g!r} != {w!r}"
