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


def generator_draws(lib, seed):
    """Draws from a ``Generator`` object of its own (the global stream is left alone), and
    ``random_`` over every dtype; exact in PyTorch's numbers."""
    lib.manual_seed(1000 + seed)
    g = lib.Generator().manual_seed(seed)
    out = [
        lib.randperm(12, generator=g).tolist(),
        lib.rand(4, generator=g).tolist(),
        lib.randn(3, generator=g, dtype=lib.float64).tolist(),
        lib.randint(3, 9, (5,), generator=g).tolist(),
        lib.zeros(4).normal_(2.0, 0.5, generator=g).tolist(),
        lib.zeros(3, dtype=lib.float64).uniform_(-1.0, 1.0, generator=g).tolist(),
        [g.initial_seed()],
        lib.rand(3).tolist(),  # the global stream is untouched by ``g``
        [int(lib.empty((), dtype=lib.int64).random_().item())],  # DataLoader's seed draw
        [int(lib.empty((), dtype=lib.int64).random_(generator=g).item())],
    ]
    for dtype in (lib.int64, lib.float32, lib.float64, lib.bool):
        out.append(lib.empty(4, dtype=dtype).random_(generator=g).tolist())
        out.append(lib.empty(3, dtype=dtype).random_(2, generator=g).tolist())
        if dtype != lib.bool:
            out.append(lib.empty(3, dtype=dtype).random_(-5, 9, generator=g).tolist())
    out.append(lib.randint(low=2, high=10, size=(2,), generator=g).tolist())
    out.append(lib.randint(3, high=7, size=(3,), generator=g).tolist())
    out.append(lib.randint(high=5, size=(3,), generator=g).tolist())
    state = g.get_state()
    first = lib.randn(5, generator=g).tolist()
    g.set_state(state)
    out.append([first == lib.randn(5, generator=g).tolist()])
    return out


GOLDEN = "random_streams.json"  # in tests/golden, written by tools/record_torch_cases.py


def answers(lib):
    """Every seed's stream (what the golden file holds)."""
    return {
        "streams": {str(s): draws(lib, s) for s in SEEDS},
        "generators": {str(s): generator_draws(lib, s) for s in SEEDS},
    }
