"""``optim.NAdam``, ``optim.RAdam`` and ``optim.SparseAdam`` as one program: parameters after
each of several steps of a small regression (plain, weight decay, decoupled weight decay,
maximize, float64), the state they keep, their ``state_dict`` and refusals.
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
