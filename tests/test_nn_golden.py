"""``nn`` against PyTorch's recorded answers (``module_cases.py``, recorded by
``tools/record_torch_cases.py`` into ``golden/nn_modules.json``): model reprs, ``state_dict``
keys and values after ``manual_seed``, traversal names, ``load_state_dict`` results and error
messages, attribute rules, hook orders and the gradients full backward hooks see, containers,
conversions and copies, layer initialisations, layer functions with their gradients, the
activation and loss modules, ``nn.utils`` and ``nn.init``. Numbers are compared with a float32
tolerance; strings, flags and exception classes/messages exactly."""

import json
import math
from pathlib import Path

import ferrograd
import module_cases
import pytest

# PyTorch's own warnings, given on purpose by some cases
pytestmark = [
    pytest.mark.filterwarnings("ignore:Full backward hook is firing:UserWarning"),
    pytest.mark.filterwarnings("ignore:size_average and reduce args:UserWarning"),
]

GOLDEN = json.loads((Path(__file__).parent / "golden" / module_cases.GOLDEN).read_text())

GROUPS = {
    "reprs": module_cases.reprs,
    "state_dicts": module_cases.state_dicts,
    "loading": module_cases.loading,
    "attributes": module_cases.attributes,
    "hooks": module_cases.hooks,
    "backward_hooks": module_cases.backward_hooks,
    "containers": module_cases.containers,
    "modes": module_cases.modes,
    "copies": module_cases.copies,
    "layer_inits": module_cases.layer_inits,
    "layer_functions": module_cases.layer_functions,
    "utils": module_cases.utils,
    "inits": module_cases.inits,
}


def _mismatches(got, expected, path=""):
    """Where ``got`` differs from ``expected`` (numbers within float32 tolerance)."""
    if isinstance(expected, str) and isinstance(got, str):
        # PyTorch's messages name its classes (<class 'torch.nn...'>): ferrograd's own here
        got = got.replace("'ferrograd.", "'torch.")
    if isinstance(expected, bool) or expected is None or isinstance(expected, str):
        return [] if got == expected else [f"{path}: {got!r} != {expected!r}"]
    if isinstance(expected, (int, float)):
        if isinstance(got, bool) or not isinstance(got, (int, float)):
            return [f"{path}: {got!r} != {expected!r}"]
        if math.isnan(expected):
            return [] if math.isnan(got) else [f"{path}: {got!r} != nan"]
        if math.isclose(got, expected, rel_tol=2e-5, abs_tol=2e-6):
            return []
        return [f"{path}: {got!r} != {expected!r}"]
    if isinstance(expected, list):
        if not isinstance(got, (list, tuple)) or len(got) != len(expected):
            return [f"{path}: {got!r} != {expected!r}"]
        out = []
        for i, (g, e) in enumerate(zip(got, expected)):
            out += _mismatches(g, e, f"{path}[{i}]")
        return out
    if isinstance(expected, dict):
        if not isinstance(got, dict) or sorted(got) != sorted(expected):
            return [
                f"{path}: keys {sorted(got) if isinstance(got, dict) else got!r} != "
                f"{sorted(expected)}"
            ]
        out = []
        for k in expected:
            out += _mismatches(got[k], expected[k], f"{path}.{k}")
        return out
    raise TypeError(f"unexpected golden value at {path}: {expected!r}")


@pytest.fixture(scope="module")
def answers():
    """Each group's answers under ferrograd, computed once."""
    return {name: fn(ferrograd) for name, fn in GROUPS.items()}


# Answers that differ today because the core lacks something (named in the reason).
KNOWN: dict[tuple[str, str], str] = {}


def _entries():
    for group in GROUPS:
        for key in GOLDEN[group]:
            reason = KNOWN.get((group, key))
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            yield pytest.param(group, key, marks=marks, id=f"{group}-{key}")


@pytest.mark.parametrize("group, key", list(_entries()))
def test_matches_pytorch(answers, group, key):
    assert key in answers[group], f"{group}.{key} not computed"
    problems = _mismatches(answers[group][key], GOLDEN[group][key], f"{group}.{key}")
    assert not problems, "\n".join(problems[:20])


def test_every_answer_is_checked(answers):
    """The groups compute exactly the recorded keys (no answer silently unchecked)."""
    for group in GROUPS:
        assert sorted(answers[group]) == sorted(GOLDEN[group]), group


def _needs(names):
    missing = [n for n in names if not hasattr(ferrograd.nn.functional, n)]
    if missing:
        pytest.xfail(f"nn.functional has no {missing} yet (the lead's Rust-backed functions)")


@pytest.mark.parametrize("name", sorted(GOLDEN["activations"]))
def test_activation_module_matches_pytorch(name):
    _needs([module_cases.ACTIVATION_FUNCTIONS[name]])
    got = module_cases.activation_module(ferrograd, name)
    problems = _mismatches(got, GOLDEN["activations"][name], name)
    assert not problems, "\n".join(problems[:20])


@pytest.mark.parametrize("name", sorted(GOLDEN["losses"]))
def test_loss_module_matches_pytorch(name):
    _needs([module_cases.LOSS_FUNCTIONS[name]])
    got = module_cases.loss_module(ferrograd, name)
    problems = _mismatches(got, GOLDEN["losses"][name], name)
    assert not problems, "\n".join(problems[:20])
