"""Records PyTorch's learning-rate schedules for ``tests/test_scheduler_golden.py`` (run where
torch is installed; the tests never import it)::

    /work/torchenv/bin/python tools/record_torch_schedulers.py
"""

import json
import sys
import warnings
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import scheduler_cases  # noqa: E402


def main():
    warnings.simplefilter("ignore")
    out = {"torch_version": torch.__version__, "cases": {}}
    for name, optimizer, scheduler in scheduler_cases.CASES:
        out["cases"][name] = scheduler_cases.run(torch, optimizer, scheduler)
    path = ROOT / "tests" / "golden" / "scheduler_rates.json"
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {len(out['cases'])} schedules to {path}")


if __name__ == "__main__":
    main()
