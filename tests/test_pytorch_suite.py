"""PyTorch's own autograd test file, run verbatim under ferrograd (tests/pytorch_suite/): every
test the committed status list records as passing must still pass, each in its own process."""

import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SUITE = os.path.join(HERE, "pytorch_suite")
STATUS = os.path.join(SUITE, "status.json")


def test_status_list_is_consistent():
    with open(STATUS) as f:
        status = json.load(f)
    tests, summary = status["tests"], status["summary"]
    passing = sum(1 for s in tests.values() if s == "pass")
    assert summary["pass under ferrograd (of all)"] == passing
    assert summary["pass under PyTorch on a CPU (the suite)"] == len(tests)
    for name, s in tests.items():
        # every test that does not pass says why (its kind when excluded)
        assert s == "pass" or s.startswith(("fails | ", "excluded: ")), name


def test_listed_passes_still_pass():
    proc = subprocess.run(
        [
            sys.executable,
            os.path.join(SUITE, "runner.py"),
            "--lib",
            "ferrograd",
            "--all",
            "--status",
            STATUS,
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
