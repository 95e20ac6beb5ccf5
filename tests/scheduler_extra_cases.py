"""The learning-rate schedulers real programs add to the common ones (``ConstantLR``,
``PolynomialLR``, ``MultiplicativeLR``, ``CosineAnnealingWarmRestarts``, ``SequentialLR`` for a
warm-up, ``ChainedScheduler``) as one program: the rates of every step, ``get_last_lr``, the
state after a round trip and the refusals. ``test_index_ops_golden.py`` runs it with ferrograd
and compares its output with PyTorch 2.15's (``golden/scheduler_extra_torch.txt``, recorded by
running it with ``import torch``)."""

import warnings

import ferrograd as torch
from case_printing import refused

warnings.simplefilter("ignore")
S = torch.optim.lr_scheduler


def optimizer(lr=0.1, groups=1):
    params = [
        {"params": [torch.zeros(1, requires_grad=True)], "lr": lr * (i + 1)} for i in range(groups)
    ]
    return torch.optim.SGD(params, lr=lr)


def rates(name, make, steps=12, groups=1, epochs=None):
    opt = optimizer(groups=groups)
    sched = make(opt)
    seen = [[round(v, 12) for v in sched.get_last_lr()]]
    for i in range(steps):
        opt.step()
        if epochs is None:
            sched.step()
        else:
            sched.step(epochs[i])
        seen.append([round(g["lr"], 12) for g in opt.param_groups])
    print(name, seen)
    return sched


rates("ConstantLR", lambda o: S.ConstantLR(o, factor=0.5, total_iters=4))
rates("PolynomialLR", lambda o: S.PolynomialLR(o, total_iters=6, power=2.0), groups=2)
rates("MultiplicativeLR", lambda o: S.MultiplicativeLR(o, lambda e: 0.9 ** (e % 3)))
rates("CAWR", lambda o: S.CosineAnnealingWarmRestarts(o, T_0=4, eta_min=0.01), steps=14)
rates("CAWR mult", lambda o: S.CosineAnnealingWarmRestarts(o, T_0=2, T_mult=2), steps=14)
rates(
    "CAWR epochs",
    lambda o: S.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2),
    steps=6,
    epochs=[0.5, 1.0, 2.5, 3.0, 7.25, 20],
)
warm = rates(
    "SequentialLR",
    lambda o: S.SequentialLR(
        o,
        [S.LinearLR(o, start_factor=0.1, total_iters=3), S.CosineAnnealingLR(o, T_max=8)],
        milestones=[3],
    ),
)
rates(
    "SequentialLR three",
    lambda o: S.SequentialLR(
        o,
        [S.ConstantLR(o, factor=0.25, total_iters=10), S.ExponentialLR(o, 0.5), S.StepLR(o, 2)],
        milestones=[2, 5],
    ),
    groups=2,
)
rates(
    "ChainedScheduler",
    lambda o: S.ChainedScheduler(
        [S.ConstantLR(o, factor=0.5, total_iters=3), S.ExponentialLR(o, 0.9)]
    ),
)
# step(epoch): the closed forms PyTorch uses when an epoch is given
for name, make in [
    ("StepLR", lambda o: S.StepLR(o, 3, 0.5)),
    ("MultiStepLR", lambda o: S.MultiStepLR(o, [2, 2, 5], 0.5)),
    ("ExponentialLR", lambda o: S.ExponentialLR(o, 0.8)),
    ("CosineAnnealingLR", lambda o: S.CosineAnnealingLR(o, 10, 0.01)),
    ("LinearLR", lambda o: S.LinearLR(o, 0.2, 0.9, 6)),
    ("ConstantLR", lambda o: S.ConstantLR(o, 0.5, 3)),
    ("PolynomialLR", lambda o: S.PolynomialLR(o, 8, 0.5)),
]:
    rates(name + " epochs", make, steps=5, epochs=[4, 1, 7, 2, 12])
print("sequential state", sorted(warm.state_dict()), warm.last_epoch)

for label, call in [
    ("ConstantLR factor", lambda: S.ConstantLR(optimizer(), factor=1.5)),
    ("CAWR T_0", lambda: S.CosineAnnealingWarmRestarts(optimizer(), T_0=0)),
    ("CAWR T_mult", lambda: S.CosineAnnealingWarmRestarts(optimizer(), T_0=2, T_mult=1.5)),
    ("CAWR epoch", lambda: S.CosineAnnealingWarmRestarts(optimizer(), T_0=2).step(-1)),
    (
        "SequentialLR milestones",
        lambda: (lambda o: S.SequentialLR(o, [S.ConstantLR(o)], [1]))(optimizer()),
    ),
    ("SequentialLR empty", lambda: S.SequentialLR(optimizer(), [], [])),
]:
    print(label, end=" ")
    refused(call)
