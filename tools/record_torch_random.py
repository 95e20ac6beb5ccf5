"""Records PyTorch's random streams for ``tests/test_random_golden.py`` (run where torch is
installed; the tests never import it)::

    /work/torchenv/bin/python tools/record_torch_random.py
"""

import json
import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import random_cases  # noqa: E402


def main():
    out = {
        "torch_version": torch.__version__,
        "streams": {str(s): random_cases.draws(torch, s) for s in random_cases.SEEDS},
    }
    path = ROOT / "tests" / "golden" / "random_streams.json"
    path.write_text(json.dumps(out) + "\n")
    print(f"wrote {len(out['streams'])} streams to {path}")


if __name__ == "__main__":
    main()
