"""Records PyTorch's optimizer trajectories for ``tests/test_optim_golden.py`` (run where torch
is installed; the tests never import it)::

    /work/torchenv/bin/python tools/record_torch_optim.py
"""

import json
import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import optim_cases  # noqa: E402


def main():
    out = {"torch_version": torch.__version__, "steps": optim_cases.STEPS, "cases": {}}
    for name, optimizer, kwargs in optim_cases.CASES:
        for dtype in ("float32", "float64"):
            out["cases"][f"{name}-{dtype}"] = optim_cases.run(torch, optimizer, kwargs, dtype)
    path = ROOT / "tests" / "golden" / "optim_trajectories.json"
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {len(out['cases'])} trajectories to {path}")


if __name__ == "__main__":
    main()
