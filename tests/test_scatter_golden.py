"""The scatter-family program (``scatter_cases.py``) prints what PyTorch 2.15 printed for it:
values, node names, gradients, gradcheck results and the errors of refused calls."""

import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def test_scatter_family_matches_pytorch():
    with open(os.path.join(HERE, "golden", "scatter_torch.txt")) as f:
        expected = f.read().splitlines()
    out = subprocess.run(
        [sys.executable, os.path.join(HERE, "scatter_cases.py")],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    assert len(out) == len(expected)
    for got, want in zip(out, expected):
        assert got == want
