"""PyTorch's own rounding variants, for recording a chaotic program's band (``run.py
--record-band``; under PyTorch only, never under ferrograd, never in CI).

``REAL_PROGRAMS_VARIANT`` names the variant:

- ``nomkldnn``: ``torch.backends.mkldnn.enabled = False``, so convolutions and some products take
  PyTorch's other CPU kernels, which round differently;
- ``threads2``: the runner sets ``OMP_NUM_THREADS=2`` (work split differently); nothing here;
- ``perturbN``: after every backward pass each gradient reachable from the loss is multiplied by
  ``1 + 1e-6 * noise``, and after the first one each leaf's value too (noise standard normal,
  drawn from NumPy's generator seeded ``N``, so PyTorch's own random numbers are untouched): about
  the size of the difference between two correct float32 implementations of the same step.
"""

import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(_HERE, "..", "..", "_shim_common"))
import _common_stubs  # noqa: E402,F401

_variant = os.environ.get("REAL_PROGRAMS_VARIANT", "")
if _variant:
    import torch

if _variant == "nomkldnn":
    torch.backends.mkldnn.enabled = False
elif _variant.startswith("perturb"):
    import numpy as np

    _rng = np.random.default_rng(int(_variant[len("perturb") :]))
    _backward = torch.autograd.backward
    _first = [True]

    def _leaves(tensors):
        roots = tensors if isinstance(tensors, (list, tuple)) else [tensors]
        stack = [t.grad_fn for t in roots if t.grad_fn is not None]
        seen, found = set(), []
        while stack:
            node = stack.pop()
            if node is None or id(node) in seen:
                continue
            seen.add(id(node))
            if hasattr(node, "variable"):
                found.append(node.variable)
            stack.extend(n for n, _ in node.next_functions)
        return found

    def _nudge(t):
        noise = torch.from_numpy(_rng.standard_normal(tuple(t.shape))).to(t.dtype)
        t.mul_(1 + 1e-6 * noise)

    def backward(tensors, *args, **kwargs):
        _backward(tensors, *args, **kwargs)
        first, _first[0] = _first[0], False
        with torch.no_grad():
            for leaf in _leaves(tensors):
                if first and leaf.is_floating_point():
                    _nudge(leaf)
                if leaf.grad is not None:
                    _nudge(leaf.grad)

    torch.autograd.backward = backward
