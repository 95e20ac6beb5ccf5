"""Inputs and helpers shared by ``tools/record_torch_golden.py`` and ``test_golden_nodes.py``.

The recorder runs the golden expressions with PyTorch, the test runs them with ferrograd; both
build their inputs here so that the two evaluate exactly the same expressions on exactly the same
values. Every function takes the tensor module (``torch`` or ``ferrograd``) as an argument; this
module itself imports only numpy.
"""

import operator

import numpy as np

SEED = 20250607

# How many levels of ``next_functions`` below ``out.grad_fn`` a recorded graph tree holds.
TREE_DEPTH = 3

INDEX = [[0, 2], [1, 0]]
MASK = [[True, False, True], [False, True, True]]


def input_arrays():
    """The float64 input values by name (fixed: ``default_rng(SEED)``, no torch seed involved).

    ``x`` and ``y`` lie in (0.2, 0.8) (inside the domains of ``log``, ``logit``, ``atanh``,
    ``asin``, ``acos``, ``lgamma``, ...), ``p`` in (1.2, 2.5) (``acosh``); ``v``, ``m`` and
    ``b`` are operands of the products.
    """
    rng = np.random.default_rng(SEED)
    return {
        "x": rng.uniform(0.2, 0.8, size=(2, 3)),
        "p": rng.uniform(1.2, 2.5, size=(2, 3)),
        "y": rng.uniform(0.2, 0.8, size=(2, 3)),
        "v": rng.uniform(-1.0, 1.0, size=(3,)),
        "m": rng.uniform(-1.0, 1.0, size=(3, 4)),
        "b": rng.uniform(-1.0, 1.0, size=(2, 3, 3)),
    }


def make_inputs(mod):
    """Fresh tensors built with ``mod``: the float64 leaves requiring grad, ``i`` and ``mask``."""
    tensors = {
        name: mod.tensor(a.tolist(), dtype=mod.float64, requires_grad=True)
        for name, a in input_arrays().items()
    }
    tensors["i"] = mod.tensor(INDEX, dtype=mod.int64)
    tensors["mask"] = mod.tensor(MASK, dtype=mod.bool)
    return tensors


def setitem(t, index, value):
    """``t[index] = value``, returning ``t`` (assignment as an expression)."""
    t[index] = value
    return t


def mul_through_view(base, index, factor):
    """``base[index].mul_(factor)``, returning ``base`` (an in-place op through a view)."""
    base[index].mul_(factor)
    return base


def namespace(mod):
    """The names a golden expression is evaluated with, inputs freshly built with ``mod``."""
    names = {
        "torch": mod,
        "F": mod.nn.functional,
        "operator": operator,
        "setitem": setitem,
        "mul_through_view": mul_through_view,
    }
    names.update(make_inputs(mod))
    return names


def graph_tree(node, depth=TREE_DEPTH):
    """``node.next_functions`` as nested lists, ``depth`` levels deep.

    Each entry is ``None`` for ``(None, 0)``; ``[name, nr]`` for an ``AccumulateGrad`` (a leaf,
    recognised by its ``variable`` attribute); otherwise ``[name, nr, children]`` with
    ``children`` the node's own entries, or ``None`` once ``depth`` levels are recorded. ``name``
    is ``type(node).__name__``.
    """
    entries = []
    for child, nr in node.next_functions:
        if child is None:
            entries.append(None)
        elif hasattr(child, "variable"):
            entries.append([type(child).__name__, nr])
        else:
            below = graph_tree(child, depth - 1) if depth > 1 else None
            entries.append([type(child).__name__, nr, below])
    return entries
