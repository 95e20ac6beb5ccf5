"""The two forms of every optimizer's step compute the same update (Note [Two forms of an
optimizer step] in ``optim/_differentiable.py``): the core's fused kernel (the ordinary step)
and the tensor-operation form that ``differentiable=True`` records in the graph. Their
gradients are checked by PyTorch's own ``TestDifferentiableOptimizer`` (tests/pytorch_suite)."""

import ferrograd as torch
import pytest

CONFIGS = [
    ("SGD", {"lr": 0.1}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "dampening": 0.1, "weight_decay": 0.1}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True, "maximize": True}),
    ("Adam", {"lr": 0.1, "weight_decay": 0.1}),
    ("Adam", {"lr": 0.1, "amsgrad": True, "maximize": True}),
    ("AdamW", {"lr": 0.1, "amsgrad": True}),
    ("Adagrad", {"lr": 0.1, "lr_decay": 0.01, "weight_decay": 0.1}),
    ("Adadelta", {"lr": 0.5, "weight_decay": 0.1, "maximize": True}),
    ("Adamax", {"lr": 0.1, "weight_decay": 0.1}),
    ("NAdam", {"lr": 0.1, "weight_decay": 0.1}),
    ("NAdam", {"lr": 0.1, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("RAdam", {"lr": 0.1, "weight_decay": 0.1}),
    ("RAdam", {"lr": 0.1, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("RMSprop", {"lr": 0.01, "momentum": 0.9, "centered": True, "weight_decay": 0.1}),
    ("RMSprop", {"lr": 0.01, "maximize": True}),
    ("Rprop", {"lr": 0.05}),
    ("Rprop", {"lr": 0.05, "maximize": True}),
    ("ASGD", {"lr": 0.1, "t0": 3, "weight_decay": 0.1}),
]


def _run(name, kwargs, differentiable):
    # parameters that do not need gradients (so the differentiable form may write them in
    # place with grad mode on), their gradients computed from detached copies
    torch.manual_seed(0)
    w = torch.randn(4, 3, dtype=torch.float64)
    b = torch.randn(4, dtype=torch.float64)
    x = torch.randn(3, dtype=torch.float64)
    opt = getattr(torch.optim, name)([w, b], differentiable=differentiable, **kwargs)
    for _ in range(8):  # RAdam's rectified form starts at step 6
        wc, bc = w.detach().requires_grad_(), b.detach().requires_grad_()
        w.grad, b.grad = torch.autograd.grad(((wc.mv(x) + bc).sin() ** 2).sum(), (wc, bc))
        opt.step()
    return [w, b], [dict(opt.state[p]) for p in (w, b)]


@pytest.mark.parametrize(
    ("name", "kwargs"), CONFIGS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CONFIGS)]
)
def test_differentiable_step_matches_fused_kernel(name, kwargs):
    # float64 step counts and scalar state (PyTorch keeps them in the default dtype): with
    # float32 ones the differentiable form computes Adam's bias corrections in float32, as
    # PyTorch's does, and the forms differ at float32's precision
    saved = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        params, states = _run(name, kwargs, differentiable=False)
        params_d, states_d = _run(name, kwargs, differentiable=True)
    finally:
        torch.set_default_dtype(saved)
    for p, q in zip(params, params_d):
        torch.testing.assert_close(q, p, rtol=1e-12, atol=1e-12)
    for s, t in zip(states, states_d):
        assert s.keys() == t.keys()
        for key in s:
            torch.testing.assert_close(t[key], s[key], rtol=1e-12, atol=1e-12, msg=key)


def test_differentiable_step_records_the_update():
    # a loss after the step, differentiated through it to the gradient the step used
    p = torch.tensor([1.0, -2.0], dtype=torch.float64, requires_grad=True).clone()
    grad = torch.tensor([0.5, 0.25], dtype=torch.float64, requires_grad=True)
    p.grad = grad
    opt = torch.optim.SGD([p], lr=0.1, differentiable=True)
    opt.step()
    assert p.grad_fn is not None
    (g,) = torch.autograd.grad(p.sum(), grad)
    torch.testing.assert_close(g, torch.full((2,), -0.1, dtype=torch.float64))


def test_ordinary_step_records_nothing():
    w = torch.tensor([1.0, -2.0], requires_grad=True)
    w.grad = torch.tensor([0.5, 0.25])
    torch.optim.Adam([w], lr=0.1).step()
    assert w.grad_fn is None and w.is_leaf
