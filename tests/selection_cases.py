"""Finding elements (nonzero, argwhere, count_nonzero, masked_select, take_along_dim,
searchsorted, bucketize, unique_consecutive, _unique, _unique2, _VF.unique_dim) as one program:
dtypes, shapes, values, requires_grad, node names, gradients and refused calls.
``test_index_ops_golden.py`` runs it with ferrograd and compares its output with PyTorch
2.15's (``golden/selection_torch.txt``, recorded by running it with ``import torch``)."""

import warnings

import ferrograd as torch
from case_printing import refused

warnings.simplefilter("ignore")
F64 = torch.float64


def show(name, t):
    if isinstance(t, tuple):
        for i, p in enumerate(t):
            show(f"{name}[{i}]", p)
        return
    print(name, t.dtype, tuple(t.shape), t.detach().reshape(-1).tolist(), t.requires_grad)


x = torch.tensor([[0.0, 1.5, 0.0], [2.0, 0.0, -3.0]], dtype=F64, requires_grad=True)
show("nonzero", x.nonzero())
show("nonzero t", x.nonzero(as_tuple=True))
show("nonzero fn", torch.nonzero(x))
show("nonzero 0d", torch.tensor(2.0).nonzero())
show("nonzero 0d t", torch.tensor(2.0).nonzero(as_tuple=True))
show("argwhere", torch.argwhere(x))
show("count", x.count_nonzero())
show("count d0", x.count_nonzero(dim=0))
show("count d01", torch.count_nonzero(x, dim=(0, 1)))
m = torch.tensor([[True, False, True], [False, True, True]])
y = x.masked_select(m)
show("msel", y)
print(type(y.grad_fn).__name__)
(g,) = torch.autograd.grad((y * torch.arange(4, dtype=F64)).sum(), x)
show("msel g", g)
mb = torch.tensor([True, False, True])
y = torch.masked_select(x, mb)
show("msel bc", y)
(g,) = torch.autograd.grad(y.sum(), x)
show("msel bc g", g)
xb = torch.tensor([1.0, 2.0, 3.0], dtype=F64, requires_grad=True)
y = xb.masked_select(m)
show("msel bx", y)
(g,) = torch.autograd.grad((y * torch.arange(4, dtype=F64)).sum(), xb)
show("msel bx g", g)
idx = torch.tensor([[2, 0], [1, 1]])
y = x.take_along_dim(idx, dim=1)
show("tad", y)
print(type(y.grad_fn).__name__)
show("tad none", torch.take_along_dim(x, torch.tensor([5, 0, 3])))
show("tad bc", x.take_along_dim(torch.tensor([[0], [2]]), 1))
show("tad bc2", x.take_along_dim(torch.tensor([[1, 0, 1]]), 0))
s = torch.tensor([1.0, 2.0, 2.0, 3.0, 5.0])
v = torch.tensor([[0.5, 2.0, 2.5], [3.0, 5.0, 9.0]])
show("ss", torch.searchsorted(s, v))
show("ss r", torch.searchsorted(s, v, right=True))
show("ss side", torch.searchsorted(s, v, side="right"))
show("ss scalar", torch.searchsorted(s, 2.0))
s2 = torch.tensor([[1.0, 3.0, 5.0], [2.0, 4.0, 6.0]])
show("ss nd", torch.searchsorted(s2, torch.tensor([[3.0, 0.0], [4.5, 7.0]])))
unsorted, order = torch.tensor([3.0, 1.0, 2.0]), torch.tensor([1, 2, 0])
show("ss sorter", torch.searchsorted(unsorted, torch.tensor([2.5]), sorter=order))
show("bk", torch.bucketize(v, s))
show("bk r", torch.bucketize(v, s, right=True))
show("bk nan", torch.bucketize(torch.tensor([float("nan"), 1.0]), s))
u = torch.tensor([1.0, 1.0, 2.0, 2.0, 3.0, 1.0, 1.0, 2.0], requires_grad=True)
show("uc", torch.unique_consecutive(u))
show("uc all", torch.unique_consecutive(u, return_inverse=True, return_counts=True))
show("uc m", u.unique_consecutive(return_counts=True))
u2 = torch.tensor([[1, 1, 2], [1, 1, 2], [3, 3, 3], [1, 1, 2]])
show("uc dim", torch.unique_consecutive(u2, return_inverse=True, return_counts=True, dim=0))
show("uc dim1", torch.unique_consecutive(u2, dim=1))
show("_unique", torch._unique(u, sorted=True, return_inverse=False))
show("_unique2", torch._unique2(u, sorted=True, return_inverse=True, return_counts=False))
show("unique_dim", torch._VF.unique_dim(u2, 0, True, False, False))
refused(lambda: x.masked_select(torch.tensor([1, 0, 1])))
refused(lambda: torch.searchsorted(s2, torch.tensor([1.0])))
refused(lambda: torch.bucketize(v, s2))
refused(lambda: torch.searchsorted(s, v, side="middle"))
refused(lambda: torch.searchsorted(s, v, side="left", right=True))
refused(lambda: x.take_along_dim(torch.tensor([[0.0]]), 1))
