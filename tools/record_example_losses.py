"""Runs every program of ``examples/`` under PyTorch and writes what they return (losses of
every step, accuracies, fitted values) and what they print to
``tests/golden/example_losses.json``, which ``tests/test_examples.py`` compares ferrograd
against. Run where torch is installed (the tests never import it)::

    /work/torchenv/bin/python tools/record_example_losses.py
"""

import contextlib
import importlib.util
import io
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
GOLDEN = ROOT / "tests" / "golden" / "example_losses.json"


def example_names():
    """The example programs: every ``examples/*.py`` not starting with an underscore."""
    return sorted(p.stem for p in EXAMPLES.glob("*.py") if not p.name.startswith("_"))


def load_example(name):
    """Imports ``examples/<name>.py`` as a fresh module (it picks its library up from
    ``EXAMPLES_LIB`` when imported)."""
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main():
    os.environ["EXAMPLES_LIB"] = "torch"
    import torch

    out = {"torch_version": torch.__version__, "examples": {}}
    for name in example_names():
        with contextlib.redirect_stdout(io.StringIO()):
            result = load_example(name).main(verbose=False)
        script = subprocess.run(
            [sys.executable, str(EXAMPLES / f"{name}.py")],
            capture_output=True,
            text=True,
            check=True,
            env=dict(os.environ),
            cwd=ROOT,
        )
        out["examples"][name] = {"result": result, "stdout": script.stdout.splitlines()}
        print(f"{name}: {len(result['losses'])} losses, {len(script.stdout.splitlines())} lines")
    GOLDEN.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {GOLDEN}")


if __name__ == "__main__":
    main()
