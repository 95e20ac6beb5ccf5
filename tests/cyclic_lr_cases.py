"""``optim.lr_scheduler.CyclicLR`` as one program: the rates (and momenta or Adam's first beta)
over two and a half cycles in each mode, with a custom ``scale_fn``, per-group settings, a
state dict round trip and the refusals. ``test_index_ops_golden.py`` compares the output with
PyTorch 2.15's (``golden/cyclic_lr_torch.txt``, recorded by running it with ``import torch``)."""

import ferrograd as torch
from case_printing import refused

CyclicLR = torch.optim.lr_scheduler.CyclicLR


def params():
    return [torch.zeros(2, requires_grad=True)]


def run(name, make_opt, steps=13, **kwargs):
    opt = make_opt()
    sched = CyclicLR(opt, **kwargs)
    lrs, moms = [], []
    for _ in range(steps):
        opt.step()
        sched.step()
        group = opt.param_groups[0]
        lrs.append(round(group["lr"], 10))
        if "betas" in group:
            moms.append(round(group["betas"][0], 10))
        elif "momentum" in group:
            moms.append(round(group["momentum"], 10))
    print(name, lrs)
    print("  momentum", moms, [round(v, 10) for v in sched.get_last_lr()])


def sgd():
    return torch.optim.SGD(params(), lr=0.1, momentum=0.9)


run("triangular", sgd, base_lr=0.01, max_lr=0.1, step_size_up=4)
run("triangular up/down", sgd, base_lr=0.01, max_lr=0.1, step_size_up=3, step_size_down=2)
run("triangular2", sgd, steps=20, base_lr=0.01, max_lr=0.1, step_size_up=2, mode="triangular2")
run("exp_range", sgd, base_lr=0.01, max_lr=0.1, step_size_up=3, mode="exp_range", gamma=0.9)
run(
    "scale_fn cycle",
    sgd,
    base_lr=0.01,
    max_lr=0.1,
    step_size_up=2,
    scale_fn=lambda x: 0.5**x,
)
run(
    "scale_fn iterations",
    sgd,
    base_lr=0.01,
    max_lr=0.1,
    step_size_up=2,
    scale_fn=lambda x: 1 / (1 + x),
    scale_mode="iterations",
)
run(
    "adam betas",
    lambda: torch.optim.Adam(params(), lr=0.1),
    base_lr=0.001,
    max_lr=0.01,
    step_size_up=3,
    base_momentum=0.85,
    max_momentum=0.95,
)
run(
    "no momentum cycle",
    lambda: torch.optim.Adagrad(params(), lr=0.1),
    base_lr=0.001,
    max_lr=0.01,
    step_size_up=3,
    cycle_momentum=False,
)

opt = torch.optim.SGD([{"params": params()}, {"params": params(), "lr": 0.5}], lr=0.1, momentum=0.5)
sched = CyclicLR(opt, base_lr=[0.01, 0.02], max_lr=[0.1, 0.2], step_size_up=2)
for _ in range(3):
    sched.step()
print(
    "groups",
    [round(g["lr"], 10) for g in opt.param_groups],
    [g["momentum"] for g in opt.param_groups],
)
state = sched.state_dict()
print("state keys", sorted(k for k in state if not k.startswith("_")))
opt2 = torch.optim.SGD([{"params": params()}, {"params": params()}], lr=0.1, momentum=0.5)
sched2 = CyclicLR(opt2, base_lr=[0.01, 0.02], max_lr=[0.1, 0.2], step_size_up=2)
sched2.load_state_dict(state)
sched2.step()
print("resumed", sched2.last_epoch, [round(v, 10) for v in sched2.get_last_lr()])

refused(lambda: CyclicLR(torch.optim.Adagrad(params()), base_lr=0.1, max_lr=1.0))
refused(lambda: CyclicLR(sgd(), base_lr=0.1, max_lr=1.0, mode="bad"))
refused(lambda: CyclicLR(sgd(), base_lr=[0.1, 0.2], max_lr=1.0))
refused(lambda: CyclicLR(sgd(), base_lr=0.1, max_lr=[1.0, 2.0, 3.0]))
