"""Hostile calls are refused the way PyTorch refuses them, and change nothing.

``golden/hostile_calls.json`` (written by ``tools/record_torch_errors.py`` with PyTorch) holds, per
case of ``hostile_cases.py``, the code and the builtin class of PyTorch's exception. Each case runs
here with ferrograd on fresh inputs: the set-up lines, a snapshot of every tensor bound, then the
hostile call, which must raise an instance of that class (never a Rust panic) with a real message,
and leave every tensor as the snapshot has it (values, ``_version``, ``.grad``, flags). This file
never imports torch.
"""

import builtins
import json
import warnings
from pathlib import Path

import ferrograd as torch
import hostile_cases
import pytest

GOLDEN = Path(__file__).resolve().parent / "golden" / "hostile_calls.json"
CASES = json.loads(GOLDEN.read_text())
MIN_CASES = 160


@pytest.fixture(autouse=True)
def _restore_global_state():
    """Grad mode on and the thread count kept, whatever a case does."""
    threads = torch.get_num_threads()
    torch.set_grad_enabled(True)
    yield
    torch.set_grad_enabled(True)
    torch.set_num_threads(threads)


def test_catalogue_size():
    ids = [case["id"] for case in CASES]
    assert len(ids) == len(set(ids)), "duplicate case ids"
    assert len(CASES) >= MIN_CASES


def test_catalogue_matches_cases():
    """The golden file was recorded from the current ``hostile_cases.CASES``."""
    codes = dict(hostile_cases.CASES)
    for case in CASES:
        assert codes.get(case["id"]) == case["code"], case["id"]


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_hostile_call(case):
    expected = getattr(builtins, case["exception"])
    torch.manual_seed(0)
    names = hostile_cases.namespace(torch)
    setup, call = hostile_cases.split_code(case["code"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(compile(setup, f"<{case['id']} setup>", "exec"), names)
        before = hostile_cases.snapshot(names, torch)
        raised = None
        try:
            exec(compile(call, f"<{case['id']}>", "exec"), names)
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as exc:  # a pyo3 PanicException derives from BaseException
            raised = exc
        after = hostile_cases.snapshot(names, torch)
    torch_says = f"PyTorch: {case['exception']}: {case['message']}"
    assert raised is not None, f"no error; {torch_says}"
    got = f"{type(raised).__name__}: {raised}"
    assert type(raised).__name__ != "PanicException", f"Rust panic {got}; {torch_says}"
    assert isinstance(raised, expected), f"raised {got}; {torch_says}"
    message = str(raised).strip()
    assert message, f"empty message from {type(raised).__name__}; {torch_says}"
    assert "internal error" not in message.lower(), f"raised {got}; {torch_says}"
    diff = hostile_cases.changed(before, after)
    assert not diff, f"changed {diff} while raising {got}"
