"""``optim.NAdam``, ``RAdam``, ``SparseAdam``, ``Rprop`` and ``ASGD`` as one program: parameters
after each of several steps of a small regression (plain, weight decay, decoupled weight decay,
maximize, float64), the state they keep, their ``state_dict`` and refusals; then the flags every
optimizer takes (``foreach``, ``fused``, a tensor ``lr``, ``differentiable=True`` steps recorded
in the graph), the base class's refusals and an older state dict's numeric step counts.
``test_index_ops_golden.py`` runs it with ferrograd and compares its output with PyTorch
2.15's (``golden/optim_extra_torch.txt``, recorded by running it with ``import torch``)."""

import ferrograd as torch
from case_printing import refused


def run(make, dtype=torch.float32, steps=8):
    """Fits ``w`` (3x2) and ``b`` (2) to a fixed target with the optimizer ``make`` builds."""
    torch.manual_seed(0)
    w = torch.randn(3, 2, dtype=dtype, requires_grad=True)
    b = torch.zeros(2, dtype=dtype, requires_grad=True)
    x = torch.randn(5, 3, dtype=dtype)
    y = torch.randn(5, 2, dtype=dtype)
    opt = make([w, b])
    for _ in range(steps):
        opt.zero_grad()
        loss = ((x @ w + b - y) ** 2).mean()
        loss.backward()
        opt.step()
    return opt, w, b


def show(name, make, dtype=torch.float32, steps=8):
    opt, w, b = run(make, dtype, steps)
    digits = 5 if dtype == torch.float32 else 11
    print(name, [round(v, digits) for v in w.reshape(-1).tolist() + b.tolist()])
    state = opt.state[w]
    print("  state", sorted(state), [round(float(state[k].sum()), digits) for k in sorted(state)])
    print("  dtypes", [str(state[k].dtype) for k in sorted(state)])


show("nadam", lambda p: torch.optim.NAdam(p, lr=0.05))
show("nadam 1 step", lambda p: torch.optim.NAdam(p, lr=0.05), steps=1)
show("nadam wd", lambda p: torch.optim.NAdam(p, lr=0.05, weight_decay=0.1))
show(
    "nadam decoupled",
    lambda p: torch.optim.NAdam(p, lr=0.05, weight_decay=0.1, decoupled_weight_decay=True),
)
show("nadam momentum_decay", lambda p: torch.optim.NAdam(p, lr=0.05, momentum_decay=0.1))
show("nadam maximize", lambda p: torch.optim.NAdam(p, lr=0.01, maximize=True))
show("nadam float64", lambda p: torch.optim.NAdam(p, lr=0.05, betas=(0.8, 0.9)), torch.float64)
show("radam", lambda p: torch.optim.RAdam(p, lr=0.05), steps=12)
show("radam 3 steps", lambda p: torch.optim.RAdam(p, lr=0.05), steps=3)
show("radam wd", lambda p: torch.optim.RAdam(p, lr=0.05, weight_decay=0.1), steps=12)
show(
    "radam decoupled",
    lambda p: torch.optim.RAdam(p, lr=0.05, weight_decay=0.1, decoupled_weight_decay=True),
    steps=12,
)
show("radam maximize", lambda p: torch.optim.RAdam(p, lr=0.01, maximize=True), steps=12)
show("radam betas", lambda p: torch.optim.RAdam(p, lr=0.05, betas=(0.5, 0.6)), steps=12)
show("radam float64", lambda p: torch.optim.RAdam(p, lr=0.05), torch.float64, steps=12)

opt, w, b = run(lambda p: torch.optim.NAdam(p, lr=0.05), steps=2)
sd = opt.state_dict()
print("nadam param_groups", sd["param_groups"])
print("nadam state keys", list(sd["state"][0]))
opt, w, b = run(lambda p: torch.optim.RAdam(p), steps=2)
sd = opt.state_dict()
print("radam param_groups", sd["param_groups"])
print("radam state keys", list(sd["state"][0]))
print(torch.optim.NAdam([w], lr=0.1))
print(torch.optim.RAdam([w], weight_decay=0.5))

p = [torch.zeros(2, requires_grad=True)]
refused(lambda: torch.optim.NAdam(p, lr=-1.0))
refused(lambda: torch.optim.NAdam(p, eps=-1.0))
refused(lambda: torch.optim.NAdam(p, betas=(1.0, 0.9)))
refused(lambda: torch.optim.NAdam(p, betas=(0.9, -0.1)))
refused(lambda: torch.optim.NAdam(p, weight_decay=-0.1))
refused(lambda: torch.optim.NAdam(p, momentum_decay=-0.1))
refused(lambda: torch.optim.RAdam(p, lr=-1.0))
refused(lambda: torch.optim.RAdam(p, betas=(0.9, 1.0)))
refused(lambda: torch.optim.RAdam(p, weight_decay=-1))

# reloading a state dict continues the same trajectory
opt, w, b = run(lambda p: torch.optim.NAdam(p, lr=0.05), steps=3)
saved = opt.state_dict()
opt2 = torch.optim.NAdam([w, b], lr=0.05)
opt2.load_state_dict(saved)
print("reloaded mu_product", round(float(opt2.state[w]["mu_product"]), 7))

# SparseAdam: an embedding with sparse gradients (repeated and fresh indices, two sparse
# dimensions, maximize), the state it keeps, and its refusals
torch.manual_seed(0)
emb = torch.nn.Embedding(6, 3, sparse=True)
opt = torch.optim.SparseAdam(emb.parameters(), lr=0.1)
for step in range(4):
    opt.zero_grad()
    rows = emb(torch.tensor([[1, 4, 1], [0, 4, 5]][step % 2]))
    ((rows**2).sum() * 3).backward()
    opt.step()
    print("sparse adam", step, [float(f"{v:.6g}") for v in emb.weight.flatten().tolist()])
state = opt.state[emb.weight]
print("sparse adam state", sorted(state), state["step"])
print("exp_avg_sq", [float(f"{v:.6g}") for v in state["exp_avg_sq"].flatten().tolist()])
w = torch.nn.Parameter(torch.ones(3, 2, 2))
opt = torch.optim.SparseAdam([w], lr=0.5, betas=(0.8, 0.9), maximize=True)
for _ in range(2):
    w.grad = torch.sparse_coo_tensor(
        [[0, 2, 0], [1, 0, 1]], torch.tensor([[2.0, 1.0], [-1.0, 3.0], [0.5, 0.5]]), (3, 2, 2)
    )
    opt.step()
    print("two sparse dims", [float(f"{v:.6g}") for v in w.flatten().tolist()])
print(opt)
w.grad = torch.ones(3, 2, 2)
refused(lambda: opt.step())
refused(lambda: torch.optim.SparseAdam([w], lr=0))
refused(lambda: torch.optim.SparseAdam([w], eps=0.0))
refused(lambda: torch.optim.SparseAdam([w], betas=(0.9, 1.0)))

# Rprop and ASGD: trajectories, state and refusals
show("rprop", lambda p: torch.optim.Rprop(p, lr=0.05), steps=10)
show("rprop etas", lambda p: torch.optim.Rprop(p, lr=0.05, etas=(0.3, 1.5), step_sizes=(1e-3, 0.1)))
show("rprop maximize", lambda p: torch.optim.Rprop(p, lr=0.01, maximize=True))
show("rprop float64", lambda p: torch.optim.Rprop(p), torch.float64, steps=10)
show("asgd", lambda p: torch.optim.ASGD(p, lr=0.05), steps=10)
show("asgd averaging", lambda p: torch.optim.ASGD(p, lr=0.05, t0=3, lambd=0.01), steps=10)
show("asgd wd maximize", lambda p: torch.optim.ASGD(p, lr=0.01, weight_decay=0.1, maximize=True))
show("asgd float64", lambda p: torch.optim.ASGD(p, lr=0.05, t0=2, alpha=0.5), torch.float64)
opt, w, b = run(lambda p: torch.optim.Rprop(p), steps=2)
print("rprop param_groups", opt.state_dict()["param_groups"])
opt, w, b = run(lambda p: torch.optim.ASGD(p), steps=2)
print("asgd param_groups", opt.state_dict()["param_groups"])
print("asgd eta mu", opt.state[w]["eta"], opt.state[w]["mu"])
print(torch.optim.Rprop([w]))
print(torch.optim.ASGD([w], t0=5))
refused(lambda: torch.optim.Rprop(p, lr=-1.0))
refused(lambda: torch.optim.Rprop(p, etas=(1.0, 1.2)))
refused(lambda: torch.optim.Rprop(p, etas=(0.5, 0.9)))
refused(lambda: torch.optim.ASGD(p, lr=-1.0))
refused(lambda: torch.optim.ASGD(p, weight_decay=-1.0))

# the implementation flags: the same update whichever PyTorch kernel they would choose
for flags in [{"foreach": False}, {"fused": True}, {"foreach": True}]:
    show(f"adam {flags}", lambda p, f=flags: torch.optim.Adam(p, lr=0.05, **f))
    show(f"sgd {flags}", lambda p, f=flags: torch.optim.SGD(p, lr=0.04, momentum=0.9, **f))
show("adamw tensor lr", lambda p: torch.optim.AdamW(p, lr=torch.tensor(0.05)))
print(torch.optim.Adam([w], fused=True))
print(torch.optim.AdamW([w]))
print(torch.optim.SGD([w], differentiable=True))
refused(lambda: torch.optim.Adam(p, foreach=True, fused=True))
refused(lambda: torch.optim.Adam(p, fused=True, differentiable=True))
refused(lambda: torch.optim.Adam(p, lr=torch.tensor(0.01), foreach=True))
refused(lambda: torch.optim.Adam(p, lr=torch.tensor([0.01, 0.02])))

# what every optimizer refuses (PyTorch's exception classes and messages)
refused(lambda: torch.optim.SGD(torch.zeros(2, requires_grad=True)))
refused(lambda: torch.optim.SGD({torch.zeros(2, requires_grad=True)}))
refused(lambda: torch.optim.SGD([1.0, 2.0]))
refused(lambda: torch.optim.SGD([torch.zeros(2, requires_grad=True) * 2]))
refused(lambda: torch.optim.SGD([{"params": p}, {"params": p}]))
refused(lambda: torch.optim.Adam(p, capturable=True).step() if p[0].grad is not None else None)
with __import__("warnings").catch_warnings(record=True) as caught:
    __import__("warnings").simplefilter("always")
    torch.optim.SGD([p[0], p[0]])
print("duplicate parameters warn", [str(c.message)[:60] for c in caught])

# a state dict whose step counts are numbers (older PyTorch saved them so) still loads
opt, w, b = run(lambda p: torch.optim.Adam(p, lr=0.05), steps=3)
saved = opt.state_dict()
for s in saved["state"].values():
    s["step"] = s["step"].item()
opt.load_state_dict(saved)
print("loaded step", opt.state[w]["step"], opt.state[w]["step"].dtype)
opt.zero_grad()
((w**2).sum() + (b**2).sum()).backward()
opt.step()
print("after reload", [round(v, 5) for v in w.reshape(-1).tolist()], opt.state[w]["step"])

# differentiable=True: the step is in the graph (a gradient flows back to the gradient it used)
for name, kwargs in [("SGD", {"lr": 0.1, "momentum": 0.5}), ("Adam", {"lr": 0.1}), ("RMSprop", {})]:
    torch.manual_seed(1)
    p0 = torch.randn(3, dtype=torch.float64, requires_grad=True)
    g = torch.randn(3, dtype=torch.float64, requires_grad=True)
    q = p0.clone()
    opt = getattr(torch.optim, name)([q], differentiable=True, **kwargs)
    for _ in range(2):
        q.grad = g * q.detach().clone()
        opt.step()
    dp, dg = torch.autograd.grad((q**2).sum(), (p0, g))
    print(name, "differentiable", [round(v, 8) for v in dp.tolist() + dg.tolist()])
with __import__("warnings").catch_warnings(record=True) as caught:
    __import__("warnings").simplefilter("always")
    torch.optim.SGD({p[0]})
print("a set of parameters warns", [(c.category.__name__, str(c.message)[-40:]) for c in caught])
refused(lambda: torch.optim.SGD([{"params": {p[0]}}]))

# Adafactor: factored second moments for matrices, a full one for vectors
show("adafactor", lambda p: torch.optim.Adafactor(p))
show("adafactor lr", lambda p: torch.optim.Adafactor(p, lr=0.5, beta2_decay=-0.5))
show("adafactor wd", lambda p: torch.optim.Adafactor(p, lr=0.2, weight_decay=0.05))
show("adafactor eps d", lambda p: torch.optim.Adafactor(p, eps=(1e-4, 0.1), d=2.0))
show("adafactor maximize", lambda p: torch.optim.Adafactor(p, lr=0.1, maximize=True))
show("adafactor float64", lambda p: torch.optim.Adafactor(p, lr=0.3), torch.float64)
torch.manual_seed(2)
cube = torch.randn(2, 3, 4, requires_grad=True)
opt = torch.optim.Adafactor([cube], lr=0.1)
for _ in range(3):
    opt.zero_grad()
    cube.sin().sum().backward()
    opt.step()
state = opt.state[cube]
print("adafactor 3-d", [round(v, 5) for v in cube.reshape(-1).tolist()[:8]])
print("  shapes", tuple(state["row_var"].shape), tuple(state["col_var"].shape))
for bad in [
    {"lr": -1.0},
    {"beta2_decay": 0.5},
    {"eps": (-1.0, 1e-3)},
    {"eps": (None, -1.0)},
    {"d": 0.5},
    {"weight_decay": -1.0},
]:
    refused(lambda bad=bad: torch.optim.Adafactor(p, **bad))

# parameters given with their names (model.named_parameters()): kept as "param_names"
torch.manual_seed(3)
model = torch.nn.Linear(3, 2)
opt = torch.optim.AdamW(model.named_parameters(), lr=0.1)
model(torch.randn(4, 3)).sum().backward()
opt.step()
print("named", opt.param_groups[0]["param_names"], opt.state_dict()["param_groups"][0]["params"])
print("  values", [round(v, 5) for v in model.weight.reshape(-1).tolist()])
opt2 = torch.optim.AdamW(torch.nn.Linear(3, 2).named_parameters(), lr=0.1)
opt2.load_state_dict(opt.state_dict())
print("  reloaded", opt2.param_groups[0]["param_names"], sorted(opt2.state_dict()["state"]))
refused(lambda: torch.optim.SGD([("w", model.weight), model.bias], lr=0.1))
refused(
    lambda: torch.optim.SGD(
        [{"params": [("w", model.weight)]}, {"params": [model.bias]}], lr=0.1
    )
)
