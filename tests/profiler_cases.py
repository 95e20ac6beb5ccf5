"""The autograd profiler against PyTorch's (``tools/record_torch_cases.py`` records it,
``test_profiler.py`` replays it): for a small training step, the names the profiler lists,
how often each backward node runs, and the table's header."""

GOLDEN = "profiler.json"  # in tests/golden, written by tools/record_torch_cases.py


def profile_step(lib):
    """Profiles a forward, a labelled range and a backward; returns the averages."""
    lib.manual_seed(0)
    w = lib.randn(8, 4, requires_grad=True)
    b = lib.zeros(4, requires_grad=True)
    x = lib.randn(16, 8)
    with lib.autograd.profiler.profile() as prof:
        with lib.autograd.profiler.record_function("forward_block"):
            h = (x @ w + b).tanh()
            loss = (h * h).mean()
        loss.backward()
    return prof


def answers(lib):
    """Keys and counts of the averages, and the table's first lines."""
    averages = profile_step(lib).key_averages()
    table = averages.table(sort_by="count", row_limit=2).splitlines()
    return {
        "keys": sorted(e.key for e in averages),
        "counts": {e.key: e.count for e in averages},
        "header": table[:3],
        "rows": len(table),
    }
