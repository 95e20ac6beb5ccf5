"""Parametrizations against PyTorch's recorded answers (``parametrize_cases.py``, recorded by
``tools/record_torch_cases.py`` into ``golden/parametrize.json``): ``nn.utils.parametrize``
(the generated class, ``print(model)``, ``state_dict`` keys, values and gradients of the
originals, ``right_inverse``, chains, buffers, ``cached()``, removal, copies and refusals),
``nn.utils.parametrizations`` (``weight_norm``, ``spectral_norm``'s power-iteration buffers,
``orthogonal`` with each map) and the older ``nn.utils.weight_norm``/``spectral_norm``.
Numbers are compared with a float32 tolerance; strings, flags and exception classes and
messages exactly."""

import json
import math
from pathlib import Path

import ferrograd
import parametrize_cases
import pytest

GOLDEN = json.loads((Path(__file__).parent / "golden" / parametrize_cases.GOLDEN).read_text())

# the orthogonal maps are compositions here (LAPACK's kernels in PyTorch) and trained for a
# few steps: their values agree to a few float32 roundings
TOLERANCE = {"orthogonals": (2e-4, 2e-5)}


def _mismatches(got, expected, tol, path=""):
    """Where ``got`` differs from ``expected`` (numbers within ``tol``)."""
    if isinstance(expected, bool) or expected is None or isinstance(expected, str):
        return [] if got == expected else [f"{path}: {got!r} != {expected!r}"]
    if isinstance(expected, (int, float)):
        if isinstance(got, bool) or not isinstance(got, (int, float)):
            return [f"{path}: {got!r} != {expected!r}"]
        if math.isnan(expected):
            return [] if math.isnan(got) else [f"{path}: {got!r} != nan"]
        if math.isclose(got, expected, rel_tol=tol[0], abs_tol=tol[1]):
            return []
        return [f"{path}: {got!r} != {expected!r}"]
    if isinstance(expected, list):
        if not isinstance(got, (list, tuple)) or len(got) != len(expected):
            return [f"{path}: {got!r} != {expected!r}"]
        out = []
        for i, (g, e) in enumerate(zip(got, expected)):
            out += _mismatches(g, e, tol, f"{path}[{i}]")
        return out
    if isinstance(expected, dict):
        if not isinstance(got, dict) or sorted(got) != sorted(expected):
            return [
                f"{path}: keys {sorted(got) if isinstance(got, dict) else got!r} != "
                f"{sorted(expected)}"
            ]
        out = []
        for k in expected:
            out += _mismatches(got[k], expected[k], tol, f"{path}.{k}")
        return out
    raise TypeError(f"unexpected golden value at {path}: {expected!r}")


@pytest.mark.parametrize("group", list(parametrize_cases.GROUPS))
def test_group_matches_pytorch(group):
    got = json.loads(json.dumps(parametrize_cases.GROUPS[group](ferrograd)))
    tol = TOLERANCE.get(group, (2e-5, 2e-6))
    bad = _mismatches(got, GOLDEN[group], tol, group)
    assert not bad, "\n".join(bad[:20])
