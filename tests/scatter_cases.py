"""Scatter-family ops (scatter, scatter_reduce, index_reduce, index_copy, index_add, index_fill)
as one program: values, node names, gradients, gradcheck, the double-backward refusal of prod
with several zeros, and refused calls. ``test_scatter_golden.py`` runs it with ferrograd and
compares its output with PyTorch 2.15's (``golden/scatter_torch.txt``, recorded by running it
with ``import torch``)."""

import warnings

import ferrograd as torch
from case_printing import refused
from ferrograd.autograd import gradcheck, gradgradcheck

warnings.simplefilter("ignore")
F64 = torch.float64


def show(name, t):
    print(name, [round(v, 5) for v in t.detach().reshape(-1).tolist()])


def show_grads(y, w, *inputs):
    """The node name of ``y`` and the gradients of ``(y * w).sum()``."""
    print(type(y.grad_fn).__name__)
    for name, g in zip((" gx", " gs"), torch.autograd.grad((y * w).sum(), inputs)):
        show(name, g)


x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]], dtype=F64)
x.requires_grad_()
src = torch.tensor([[0.5, -1.0, 2.0], [3.0, 0.0, -2.0]], dtype=F64, requires_grad=True)
idx = torch.tensor([[0, 2, 0], [0, 0, 1]])
w = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]], dtype=F64)

for red in ["sum", "prod", "mean", "amax", "amin"]:
    for inc in [True, False]:
        y = x.scatter_reduce(0, idx, src, red, include_self=inc)
        show(f"sr {red} {inc}", y)
        show_grads(y, w, x, src)
        ok = gradcheck(
            lambda a, b, red=red, inc=inc: a.scatter_reduce(0, idx, b, red, include_self=inc),
            (x, src),
        )
        print(" gc", ok)

y = x.scatter(1, idx, src)
show("scatter", y)
show_grads(y, w, x, src)
y = x.scatter(1, idx, 2.5)
show("scatter v", y)
print(type(y.grad_fn).__name__)
show("scatter v kw", x.scatter(0, idx, value=-1.0))
show("onehot", torch.zeros(4, 5).scatter_(1, torch.tensor([[1], [0], [4], [2]]), 1.0))

i1 = torch.tensor([2, 0])
s2 = torch.tensor([[10.0, 20.0, 30.0], [40.0, 50.0, 60.0]], dtype=F64, requires_grad=True)
for red in ["prod", "mean", "amax", "amin"]:
    y = x.index_reduce(0, i1, s2, red)
    show(f"ir {red}", y)
    show_grads(y, w, x, s2)
y = x.index_copy(0, i1, s2)
show("ic", y)
show_grads(y, w, x, s2)
y = x.index_add(0, i1, s2, alpha=2.0)
show("ia", y)
show_grads(y, w, x, s2)
y = x.index_fill(1, torch.tensor([0, 2]), -3.0)
show("if", y)
print(type(y.grad_fn).__name__)

z = torch.zeros(3, 3)
show("ia_", z.index_add_(1, torch.tensor([0, 0, 2]), torch.ones(3, 3)))
z = torch.zeros(3, 3)
show("ic_", z.index_copy_(1, torch.tensor([2, 0]), torch.ones(3, 2)))
z = torch.zeros(3, 3)
show("if_", z.index_fill_(0, torch.tensor([1]), 7))
z = torch.ones(2, 3)
pairs = torch.tensor([[2.0, 3.0], [4.0, 5.0]])
show("srp_", z.scatter_reduce_(1, torch.tensor([[0, 0], [2, 2]]), pairs, "prod"))

a = torch.tensor([1.0], dtype=F64, requires_grad=True)
b = torch.tensor([0.0, 0.0], dtype=F64, requires_grad=True)
i0 = torch.tensor([0, 0])
for fn in (torch.scatter_reduce, torch.index_reduce):
    print(gradcheck(fn, (a, 0, i0, b, "prod"), check_batched_grad=False))
    refused(lambda fn=fn: gradgradcheck(fn, (a, 0, i0, b, "prod")))

refused(lambda: x.scatter_reduce(0, idx, src, "max"))
refused(lambda: x.index_reduce(0, i1, s2, "sum"))
refused(lambda: x.index_copy(0, torch.tensor([0, 1, 2]), s2))
refused(lambda: x.scatter(0, idx, src.float()))
refused(lambda: x.index_add(0, i1, torch.ones(2, 2, dtype=F64)))
refused(lambda: x.index_reduce(0, torch.tensor([[0, 1]]), s2, "prod"))
refused(lambda: x.index_copy(0, torch.tensor([0, 1]), s2.float()))
refused(lambda: x.scatter(0, torch.tensor([[0, 1]]), torch.ones(1, 1, dtype=F64)))
refused(lambda: x.scatter(0, torch.tensor([[0, 5]]), 1.0))
