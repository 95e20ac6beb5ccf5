"""Records PyTorch's initialisations for ``tests/test_init_golden.py`` (run where torch is
installed; the tests never import it)::

    /work/torchenv/bin/python tools/record_torch_init.py
"""

import json
import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import init_cases  # noqa: E402


def main():
    out = {
        "torch_version": torch.__version__,
        "seeds": {str(s): init_cases.values(torch, s) for s in init_cases.SEEDS},
    }
    path = ROOT / "tests" / "golden" / "init_values.json"
    path.write_text(json.dumps(out) + "\n")
    print(f"wrote {len(out['seeds'])} seeds to {path}")


if __name__ == "__main__":
    main()
