"""How results are laid out in memory (Note [Elementwise output layout]) as one program: the
strides of elementwise results, copies, casts and ``*_like`` tensors made from transposed,
permuted, sliced and broadcast inputs, and what follows from them: whether ``.contiguous()``
copies or aliases, whether ``.view`` is refused, and which random numbers land where.
``test_index_ops_golden.py`` runs it with ferrograd and compares its output with PyTorch
2.15's (``golden/layout_torch.txt``, recorded by running it with ``import torch``)."""

import warnings

import ferrograd as torch
from case_printing import refused

warnings.simplefilter("ignore")


def values(t):
    """Elements in row-major order to 5 significant digits (the libraries' fast exp, sin and
    tanh differ in the last bits)."""
    return [float(f"{v:.5g}") for v in t.detach().reshape(-1).tolist()]


def show(name, t):
    print(name, tuple(t.shape), t.stride(), t.is_contiguous(), values(t))


x = torch.arange(6.0).reshape(2, 3)
t = x.t()
p = torch.arange(24.0).reshape(2, 3, 4).permute(2, 0, 1)
cl = torch.arange(16.0).reshape(1, 4, 2, 2).contiguous(memory_format=torch.channels_last)

# one input: its strides when dense, else dense in its stride order
show("exp t", t.exp())
show("neg p", -p)
show("sin p sliced", p[:, :, ::2].sin())
show("exp p step", p[::2].exp())
show("relu cl", cl.relu())
show("abs row", x[0].abs())
show("sigmoid t", torch.sigmoid(t))
# two inputs: the first whose strides tell the dims apart decides
show("t + t", t + t)
show("t * 2", t * 2)
show("t + ones", t + torch.ones(3, 2))
show("ones + t", torch.ones(3, 2) + t)
show("hypot bcast", torch.hypot(t, torch.tensor([[2.0, 1.0]])))
show("p + bcast", p + torch.ones(4, 1, 3))
show("bcast + p", torch.ones(4, 1, 3) + p)
show("t > 1", t > 1)
show("where t", torch.where(t > 1, t, 0.0))
show("where cond first", torch.where(torch.ones(3, 2) > 0, t, t))
show("maximum", torch.maximum(t, torch.zeros(3, 2)))
# copies and casts keep the layout; contiguous_format asks for row-major
show("clone t", t.clone())
show("clone t contiguous_format", t.clone(memory_format=torch.contiguous_format))
show("clone p sliced", p[:, :, ::2].clone())
show("clone cl", cl.clone())
show("float64 t", t.to(torch.float64))
show("long t", t.long())
show("zeros_like t", torch.zeros_like(t))
show("ones_like p", torch.ones_like(p))
show("empty_like t", torch.empty_like(t).zero_())
show("full_like t", torch.full_like(t, 7.0))
show("zeros_like t contiguous_format", torch.zeros_like(t, memory_format=torch.contiguous_format))

# .contiguous() of a column-major result is a copy: writing into it leaves the result alone
y = t.exp()
c = y.contiguous()
c[0, 0] = 100.0
print("after write through contiguous", y[0, 0].item(), c[0, 0].item())
print("view of exp t", end=" ")
refused(lambda: t.exp().view(-1))
show("reshape of exp t", t.exp().reshape(-1))

# random *_like samples fill memory in order, so they sit where PyTorch puts them
torch.manual_seed(0)
show("randn_like t", torch.randn_like(t))
show("rand_like p", torch.rand_like(p))
show("randint_like t", torch.randint_like(t, 10))
r = torch.randn_like(t, requires_grad=True)
print("randn_like leaf", r.is_leaf, r.requires_grad, r.grad_fn)

# gradients through column-major results
a = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
b = a.t().exp()
b.contiguous().mul_(2).sum().backward()
print("grad through contiguous copy", values(a.grad), b.stride())
a.grad = None
z = (a.t() * torch.tensor([0.2, -0.1])).tanh()
z.sum().backward()
print("grad tanh bcast", z.stride(), values(a.grad))
