"""Learning-rate schedules checked against PyTorch (``tools/record_torch_cases.py``
records them, ``test_scheduler_golden.py`` replays them): each case makes an optimizer over one
parameter, steps it and the schedule ``EPOCHS`` times, and reports each group's rate (and the
momentum or first beta) after every step. Runs unchanged with ``torch`` or ``ferrograd``."""

EPOCHS = 14
METRICS = [1.0, 0.9, 0.95, 0.96, 0.97, 0.8, 0.81, 0.82, 0.83, 0.84, 0.85, 0.7, 0.71, 0.72]

# (name, optimizer and its kwargs, scheduler and its kwargs); "lambda" kwargs are made below
CASES = [
    ("step", ("SGD", {"lr": 0.1}), ("StepLR", {"step_size": 3, "gamma": 0.5})),
    ("multistep", ("SGD", {"lr": 0.1}), ("MultiStepLR", {"milestones": [2, 5, 5, 9]})),
    ("exponential", ("SGD", {"lr": 0.1}), ("ExponentialLR", {"gamma": 0.9})),
    ("cosine", ("SGD", {"lr": 0.1}), ("CosineAnnealingLR", {"T_max": 5, "eta_min": 0.01})),
    ("lambda", ("SGD", {"lr": 0.1}), ("LambdaLR", {})),
    ("linear", ("SGD", {"lr": 0.1}), ("LinearLR", {"start_factor": 0.25, "total_iters": 6})),
    (
        "onecycle_sgd",
        ("SGD", {"lr": 0.1, "momentum": 0.9}),
        ("OneCycleLR", {"max_lr": 0.5, "total_steps": EPOCHS}),
    ),
    (
        "onecycle_adam_linear",
        ("Adam", {"lr": 0.1}),
        ("OneCycleLR", {"max_lr": 0.02, "total_steps": EPOCHS, "anneal_strategy": "linear"}),
    ),
    (
        "onecycle_three_phase",
        ("SGD", {"lr": 0.1, "momentum": 0.9}),
        ("OneCycleLR", {"max_lr": 0.3, "total_steps": EPOCHS + 2, "three_phase": True}),
    ),
    (
        "plateau",
        ("SGD", {"lr": 0.1}),
        ("ReduceLROnPlateau", {"patience": 2, "factor": 0.5, "cooldown": 1}),
    ),
    (
        "plateau_max_abs",
        ("SGD", {"lr": 0.1}),
        ("ReduceLROnPlateau", {"mode": "max", "threshold_mode": "abs", "patience": 1}),
    ),
]


def run(lib, optimizer, scheduler):
    """Per epoch: ``[lr, momentum or beta1]`` of the (only) parameter group."""
    (opt_name, opt_kwargs), (sched_name, sched_kwargs) = optimizer, scheduler
    w = lib.ones(3, requires_grad=True)
    opt = getattr(lib.optim, opt_name)([w], **opt_kwargs)
    kwargs = dict(sched_kwargs)
    if sched_name == "LambdaLR":
        kwargs["lr_lambda"] = lambda epoch: 0.95**epoch + 0.01 * epoch
    sched = getattr(lib.optim.lr_scheduler, sched_name)(opt, **kwargs)
    rows = []
    for epoch in range(EPOCHS):
        (w * w).sum().backward()
        opt.step()
        opt.zero_grad()
        if sched_name == "ReduceLROnPlateau":
            sched.step(METRICS[epoch])
        else:
            sched.step()
        group = opt.param_groups[0]
        momentum = group["betas"][0] if "betas" in group else group.get("momentum", 0.0)
        rows.append([sched.get_last_lr()[0], group["lr"], momentum])
    return {"rows": rows, "weights": w.detach().tolist()}


GOLDEN = "scheduler_rates.json"  # in tests/golden, written by tools/record_torch_cases.py


def answers(lib):
    """Every case's schedule (what the golden file holds)."""
    return {"cases": {name: run(lib, opt, sched) for name, opt, sched in CASES}}
