"""PyTorch's own test files (autograd, and the nn/optim files that need only a CPU), run verbatim
under ferrograd (tests/pytorch_suite/): every test a committed status list records as passing
must still pass, each in its own process. One status list per test file (``runner.SUITES``)."""

import importlib.util
import json
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SUITE = os.path.join(HERE, "pytorch_suite")


def _runner():
    spec = importlib.util.spec_from_file_location(
        "pytorch_suite_runner", os.path.join(SUITE, "runner.py")
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


RUNNER = _runner()
FILES = list(RUNNER.SUITES)


@pytest.mark.parametrize("test_file", FILES)
def test_status_list_is_consistent(test_file):
    with open(RUNNER.status_path(test_file)) as f:
        status = json.load(f)
    tests, summary = status["tests"], status["summary"]
    passing = sum(1 for s in tests.values() if s == "pass")
    assert summary["pass under ferrograd (of all)"] == passing
    assert summary["pass under PyTorch on a CPU (the suite)"] == len(tests)
    for name, s in tests.items():
        # every test that does not pass says why (its kind when excluded)
        assert s == "pass" or s.startswith(("fails | ", "excluded: ")), name


@pytest.mark.parametrize("test_file", FILES)
def test_listed_passes_still_pass(test_file):
    proc = subprocess.run(
        [
            sys.executable,
            os.path.join(SUITE, "runner.py"),
            "--lib",
            "ferrograd",
            "--file",
            test_file,
            "--all",
            "--status",
            RUNNER.status_path(test_file),
            "--timeout",
            "120",
        ],
        capture_output=True,
        text=True,
        timeout=1800,
    )
    print(proc.stdout[-5000:])
    assert proc.returncode == 0, proc.stdout[-5000:] + proc.stderr[-3000:]
    assert "REGRESSION" not in proc.stdout
