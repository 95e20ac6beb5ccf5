"""Random streams checked against PyTorch (``tools/record_torch_cases.py`` records them,
``test_random_golden.py`` replays them): after ``manual_seed``, a fixed sequence of ``rand``,
``randn``, ``normal_`` and ``uniform_`` calls, in float32 and float64, small (one Box-Muller
pair per two elements) and large (PyTorch's blocks of 16, with a partial last block). Runs
unchanged with ``torch`` or ``ferrograd`` as ``lib``."""


def draws(lib, seed):
    """The values of each call of the sequence, as flat lists."""
    lib.manual_seed(seed)
    out = [
        lib.rand(5).reshape(-1).tolist(),
        lib.rand(3, dtype=lib.float64).reshape(-1).tolist(),
        lib.randn(3).reshape(-1).tolist(),
        lib.randn(20).reshape(-1).tolist(),
        lib.randn(4, 8, dtype=lib.float64).reshape(-1).tolist(),
        lib.randn(5, dtype=lib.float64).reshape(-1).tolist(),
    ]
    t = lib.zeros(4, 5)
    t.normal_(1.5, 0.5)
    out.append(t.reshape(-1).tolist())
    u = lib.zeros(7, dtype=lib.float64)
    u.uniform_(-2.0, 3.0)
    out.append(u.tolist())
    v = lib.zeros(3, 6)
    v.uniform_(0.5, 1.0)
    out.append(v.reshape(-1).tolist())
    out.append(lib.randint(0, 10, (6,)).tolist())
    out.append(lib.randint(-3, 1000, (2, 2)).reshape(-1).tolist())
    out.append(lib.randint(5, (3,)).tolist())
    out.append(lib.randperm(6).tolist())
    out.append(lib.randperm(40).tolist())
    out.append(lib.rand(2).tolist())  # the stream continues where they left it
    return out


SEEDS = [0, 1, 42, 2**40 + 7]


GOLDEN = "random_streams.json"  # in tests/golden, written by tools/record_torch_cases.py


def answers(lib):
    """Every seed's stream (what the golden file holds)."""
    return {"streams": {str(s): draws(lib, s) for s in SEEDS}}
