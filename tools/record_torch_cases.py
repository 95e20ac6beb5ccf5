"""Records PyTorch's answers for the golden tests built on a case module of ``tests/``
(``optim_cases``, ``scheduler_cases``, ``random_cases``, ``init_cases``): each module's
``answers(lib)`` is run with torch and written to ``tests/golden/<GOLDEN>``. Run where torch is
installed (the tests never import it)::

    /work/torchenv/bin/python tools/record_torch_cases.py [module ...]
"""

import importlib
import json
import sys
import warnings
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

MODULES = [
    "optim_cases",
    "scheduler_cases",
    "random_cases",
    "init_cases",
    "functional_cases",
    "data_cases",
    "loss_cases",
    "profiler_cases",
    "namespace_cases",
    "linalg_cases",
    "rnn_cases",
    "norm_cases",
    "conv_cases",
    "checkpoint_cases",
    "module_cases",
    "tensor_ops_cases",
    "attention_cases",
    "parametrize_cases",
]


def main(names):
    warnings.simplefilter("ignore")  # PyTorch's scheduler-order warnings
    for name in names or MODULES:
        module = importlib.import_module(name)
        out = {"torch_version": torch.__version__, **module.answers(torch)}
        path = ROOT / "tests" / "golden" / module.GOLDEN
        path.write_text(json.dumps(out, indent=1) + "\n")
        print(f"{name}: wrote {path}")


if __name__ == "__main__":
    main(sys.argv[1:])
