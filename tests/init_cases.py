"""Initialisations checked against PyTorch (``tools/record_torch_cases.py`` records them,
``test_init_golden.py`` replays them): after ``manual_seed``, ``nn.Linear``'s default weights
and bias and each ``nn.init`` function's values. Runs unchanged with ``torch`` or
``ferrograd`` as ``lib``."""

import math


def values(lib, seed):
    """Name -> flat values, for one seed."""
    lib.manual_seed(seed)
    out = {}
    layer = lib.nn.Linear(5, 3)
    out["linear.weight"] = layer.weight.detach().reshape(-1).tolist()
    out["linear.bias"] = layer.bias.detach().tolist()
    big = lib.nn.Linear(20, 4)
    out["linear20.weight"] = big.weight.detach().reshape(-1).tolist()
    init = lib.nn.init
    for name, fill in [
        ("uniform", lambda t: init.uniform_(t, -0.5, 2.0)),
        ("normal", lambda t: init.normal_(t, 0.3, 0.2)),
        ("constant", lambda t: init.constant_(t, 0.7)),
        ("ones", init.ones_),
        ("zeros", init.zeros_),
        ("eye", init.eye_),
        ("xavier_uniform", lambda t: init.xavier_uniform_(t, gain=init.calculate_gain("tanh"))),
        ("xavier_normal", init.xavier_normal_),
        ("kaiming_uniform", lambda t: init.kaiming_uniform_(t, nonlinearity="relu")),
        ("kaiming_normal", lambda t: init.kaiming_normal_(t, mode="fan_out")),
    ]:
        t = lib.empty(4, 6)
        returned = fill(t)
        out[name] = [*t.reshape(-1).tolist(), returned is t]
    out["gains"] = [
        init.calculate_gain(n, p)
        for n, p in [
            ("linear", None),
            ("relu", None),
            ("leaky_relu", math.sqrt(5)),
            ("tanh", None),
            ("selu", None),
        ]
    ]
    return out


SEEDS = [0, 7]


GOLDEN = "init_values.json"  # in tests/golden, written by tools/record_torch_cases.py


def answers(lib):
    """Every seed's values (what the golden file holds)."""
    return {"seeds": {str(s): values(lib, s) for s in SEEDS}}
