"""Optimizer trajectories checked against PyTorch (``tools/record_torch_cases.py`` records them,
``test_optim_golden.py`` replays them): each case builds the same two parameters and data,
takes ``STEPS`` optimizer steps on a fixed loss, and reports the parameters after each step.
The code runs unchanged with ``torch`` or ``ferrograd`` as ``lib``."""

import math

STEPS = 8

# (name, optimizer class name, keyword arguments)
CASES = [
    ("sgd", "SGD", {"lr": 0.1}),
    ("sgd_momentum", "SGD", {"lr": 0.05, "momentum": 0.9}),
    ("sgd_dampening", "SGD", {"lr": 0.05, "momentum": 0.9, "dampening": 0.3}),
    ("sgd_nesterov", "SGD", {"lr": 0.05, "momentum": 0.8, "nesterov": True}),
    ("sgd_weight_decay", "SGD", {"lr": 0.1, "momentum": 0.5, "weight_decay": 0.01}),
    ("sgd_maximize", "SGD", {"lr": 0.01, "maximize": True}),
    ("adam", "Adam", {"lr": 0.01}),
    ("adam_amsgrad", "Adam", {"lr": 0.02, "amsgrad": True}),
    ("adam_weight_decay", "Adam", {"lr": 0.01, "weight_decay": 0.1, "betas": (0.8, 0.99)}),
    ("adam_maximize", "Adam", {"lr": 0.01, "maximize": True, "eps": 1e-6}),
    ("adamw", "AdamW", {"lr": 0.01}),
    ("adamw_amsgrad", "AdamW", {"lr": 0.02, "weight_decay": 0.05, "amsgrad": True}),
    ("rmsprop", "RMSprop", {"lr": 0.01}),
    ("rmsprop_momentum", "RMSprop", {"lr": 0.01, "momentum": 0.8, "alpha": 0.9}),
    ("rmsprop_centered", "RMSprop", {"lr": 0.01, "centered": True, "weight_decay": 0.1}),
    ("rmsprop_centered_momentum_max", "RMSprop",
     {"lr": 0.005, "centered": True, "momentum": 0.5, "maximize": True, "eps": 1e-4}),
    ("adagrad", "Adagrad", {"lr": 0.1}),
    ("adagrad_decay", "Adagrad",
     {"lr": 0.1, "lr_decay": 0.05, "weight_decay": 0.02, "initial_accumulator_value": 0.3}),
    ("adagrad_maximize", "Adagrad", {"lr": 0.05, "maximize": True}),
    ("adadelta", "Adadelta", {}),
    ("adadelta_tuned", "Adadelta", {"lr": 0.5, "rho": 0.8, "weight_decay": 0.1, "eps": 1e-5}),
    ("adamax", "Adamax", {"lr": 0.02}),
    ("adamax_tuned", "Adamax",
     {"lr": 0.01, "betas": (0.8, 0.95), "weight_decay": 0.1, "maximize": True}),
]


def _values(n, phase):
    return [math.sin(1.7 * i + phase) for i in range(n)]


def run(lib, optimizer, kwargs, dtype_name):
    """The parameters (flat lists) after each of ``STEPS`` steps, and the state keys."""
    dtype = getattr(lib, dtype_name)
    w = lib.tensor(_values(12, 0.3), dtype=dtype).reshape(3, 4).requires_grad_()
    b = lib.tensor(_values(4, 1.1), dtype=dtype).requires_grad_()
    x = lib.tensor(_values(15, 2.0), dtype=dtype).reshape(5, 3)
    opt = getattr(lib.optim, optimizer)([w, b], **kwargs)
    trajectory = []
    for _ in range(STEPS):
        opt.zero_grad()
        loss = ((x @ w + b).tanh() ** 2).sum() + 0.01 * (w * w).sum()
        loss.backward()
        opt.step()
        trajectory.append(w.detach().reshape(-1).tolist() + b.detach().tolist())
    state_keys = sorted(opt.state[w].keys())
    return {"trajectory": trajectory, "state_keys": state_keys}


GOLDEN = "optim_trajectories.json"  # in tests/golden, written by tools/record_torch_cases.py


def answers(lib):
    """Every case's trajectory, in float32 and float64 (what the golden file holds)."""
    cases = {}
    for name, optimizer, kwargs in CASES:
        for dtype in ("float32", "float64"):
            cases[f"{name}-{dtype}"] = run(lib, optimizer, kwargs, dtype)
    return {"steps": STEPS, "cases": cases}
