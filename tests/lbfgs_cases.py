"""``optim.LBFGS`` as one program: least squares and a logistic regression in float64 (well
conditioned, so the trajectories agree to many digits), with and without the strong-Wolfe line
search, a short history, a capped ``max_eval``; the losses, parameters, counters and state
keys after each step, and the refusals. ``test_index_ops_golden.py`` runs it with ferrograd and
compares its output with PyTorch 2.15's (``golden/lbfgs_torch.txt``, recorded by running it
with ``import torch``)."""

import ferrograd as torch

F64 = torch.float64


def r8(values):
    return [float(f"{v:.8g}") for v in values]


torch.manual_seed(0)
X = torch.randn(30, 4, dtype=F64)
Y = X @ torch.tensor([[1.0], [-2.0], [0.5], [3.0]], dtype=F64) + 0.3
labels = (Y.reshape(-1) > 0.5).to(F64)

for name, kwargs in [
    ("plain", {"lr": 0.5}),
    ("history 2", {"lr": 1.0, "history_size": 2, "max_iter": 7}),
    ("strong_wolfe", {"lr": 1.0, "line_search_fn": "strong_wolfe"}),
    ("max_eval", {"lr": 0.8, "max_iter": 10, "max_eval": 4}),
]:
    for task in ("least squares", "logistic"):
        torch.manual_seed(1)
        model = torch.nn.Linear(4, 1).double()
        opt = torch.optim.LBFGS(model.parameters(), **kwargs)

        def closure(opt=opt, model=model, task=task):
            opt.zero_grad()
            out = model(X)
            if task == "least squares":
                loss = ((out - Y) ** 2).mean()
            else:
                loss = torch.nn.functional.binary_cross_entropy_with_logits(out.reshape(-1), labels)
            loss.backward()
            return loss

        for step in range(3):
            loss = opt.step(closure)
            state = opt.state[model.weight]
            print(
                name,
                task,
                step,
                r8([loss.item()]),
                r8(model.weight.reshape(-1).tolist() + model.bias.tolist()),
                state["func_evals"],
                state["n_iter"],
                len(state["old_dirs"]),
            )
print(sorted(opt.state_dict()["state"][0]))
print(opt.state_dict()["param_groups"][0]["max_eval"])

p = torch.zeros(2, requires_grad=True)
for call in [
    lambda: torch.optim.LBFGS([{"params": [p]}, {"params": [torch.zeros(1, requires_grad=True)]}]),
    lambda: torch.optim.LBFGS([p], lr=-1),
    lambda: torch.optim.LBFGS([p], line_search_fn="armijo").step(lambda: (p**2).sum()),
]:
    try:
        call()
        print("no error")
    except Exception as e:
        print(type(e).__name__, e)
