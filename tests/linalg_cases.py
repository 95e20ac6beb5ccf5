"""Singular values and the norms built on them against PyTorch (``tools/record_torch_cases.py``
records them, ``test_linalg_golden.py`` replays them): ``linalg.svdvals`` of tall, wide and
batched matrices, ``matrix_norm`` with ``ord`` 2, -2 and ``'nuc'`` (values, gradients, node
names), over chosen dims with ``keepdim``. Runs unchanged with ``torch`` or ``ferrograd``."""

GOLDEN = "linalg.json"  # in tests/golden, written by tools/record_torch_cases.py


def run(lib):
    """Every result, rounded where the two SVD algorithms may differ in the last bits."""
    lib.manual_seed(0)
    out = []
    for shape in [(3, 4), (4, 3), (2, 3, 3), (5, 2)]:
        A = lib.randn(*shape, dtype=lib.float64, requires_grad=True)
        s = lib.linalg.svdvals(A)
        out.append([round(v, 10) for v in s.reshape(-1).tolist()])
        for ord in (2, -2, "nuc"):
            n = lib.linalg.matrix_norm(A, ord)
            (g,) = lib.autograd.grad(n.sum(), A)
            out.append(
                (
                    ord,
                    [round(v, 9) for v in n.reshape(-1).tolist()],
                    [round(v, 8) for v in g.reshape(-1).tolist()],
                    type(n.grad_fn).__name__,
                )
            )
        n = lib.linalg.norm(A, 2 if A.dim() == 2 else None)
        out.append(round(n.sum().item(), 9))
    A = lib.randn(3, 4, 2, dtype=lib.float64)
    out.append(
        [
            round(v, 9)
            for v in lib.linalg.matrix_norm(A, "nuc", dim=(0, 2), keepdim=True).reshape(-1).tolist()
        ]
    )
    out.append(list(lib.linalg.matrix_norm(A, 2, dim=(0, 2), keepdim=True).shape))
    return out


def answers(lib):
    """The results (what the golden file holds)."""
    return {"results": [list(r) if isinstance(r, tuple) else r for r in run(lib)]}
