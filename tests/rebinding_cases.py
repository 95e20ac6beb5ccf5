"""Ops that give a tensor object other sizes, strides, dtype or elements while it keeps its
identity: ``x.data = y`` of another shape or dtype, ``set_``, ``resize_``/``resize_as_``, the
in-place view ops (``t_``, ``transpose_``, ``swapdims_``, ``squeeze_``, ``unsqueeze_``),
``torch.utils.swap_tensors`` and what modules do with them (``Module.double()`` keeping its
``Parameter`` objects, ``to(memory_format=)``, the swap switch of ``torch.__future__`` in
conversions and ``load_state_dict``), ``as_strided``, and ``unsafe_split``'s pieces counting
versions alone. ``test_index_ops_golden.py`` compares the output with PyTorch 2.15's
(``golden/rebinding_torch.txt``)."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ferrograd as torch
from case_printing import refused

torch.manual_seed(0)


def show(name, t):
    """The tensor's identity-free facts: shape, strides, dtype, version, leaf-ness, node."""
    node = t.grad_fn.name() if t.grad_fn is not None else None
    print(name, list(t.shape), t.stride(), t.dtype, t._version, t.is_leaf, t.requires_grad, node)


# x.data = y keeps x's version counter, shared with its views
x = torch.randn(1, 2)
x.add_(1).add_(1)
xz = x[:]
x.data = torch.arange(6.0).reshape(2, 3)
show("data", x)
print(x.tolist(), x._version == xz._version)
x.add_(1)
xz.add_(1)
print(x._version, xz._version)
y = torch.ones(3, requires_grad=True)
(y * 2).sum().backward()
y.data = torch.zeros(2, 2, dtype=torch.float64)
show("data dtype", y)
print(y.grad.tolist())
refused(lambda: setattr(y, "data", torch.zeros(2, dtype=torch.long)))

# in-place view ops
a = torch.arange(6.0).reshape(2, 3)
print(a.transpose_(0, 1) is a, a.tolist(), a.is_contiguous())
show("transpose_", a)
s = torch.ones(2, 3, requires_grad=True)
c = s * torch.arange(6.0).reshape(2, 3)
c.t_()
show("t_", c)
print(c.grad_fn.next_functions[0][0].name())
(c * torch.arange(6.0).reshape(3, 2)).sum().backward()
print(s.grad.tolist())
u = torch.zeros(3, requires_grad=True) * 1
u.unsqueeze_(0)
show("unsqueeze_", u)
u.squeeze_()
show("squeeze_", u)
u.unsqueeze_(1).squeeze_(1)
show("squeeze_(dim)", u)
w = torch.ones(2, 3, requires_grad=True) * 1
w.swapdims_(0, 1).swapaxes_(0, 1)
show("swapdims_", w)
try:
    torch.ones(2, requires_grad=True).t_()
except RuntimeError as e:  # ferrograd's message goes on with advice: its first sentence
    print(type(e).__name__, str(e).split(".")[0])
refused(lambda: torch.ones(2, 3).clone().t_())
base = torch.ones(1, 2, 3, requires_grad=True).clone()
with torch.inference_mode():
    v = base.view_as(base)
refused(lambda: v.transpose_(0, 1))
leaf = torch.ones(2, 3, requires_grad=True)
with torch.no_grad():
    leaf.t_()
show("no_grad t_ on a leaf", leaf)
(leaf * 2).sum().backward()
print(leaf.grad.shape)

# resize_
r = torch.arange(4.0)
r.resize_(2, 2)
print(r.tolist(), r._version)
r.resize_(3, 3)
print(list(r.shape), r[0].tolist(), r._version)
r.resize_((3, 3))
print(r._version)
r.resize_as_(torch.ones(2))
print(r.tolist(), r._version)
refused(lambda: torch.ones(2, requires_grad=True).resize_(3))

# set_
p = torch.nn.Parameter(torch.ones(16, dtype=torch.double))
for _ in range(2):
    with torch.no_grad():
        p.set_(p[1:])
        p.grad = None
    torch.cat((p, p)).sum().backward()
show("set_", p)
print(p.grad.tolist()[:3], p._base is None)
q = torch.rand(2, requires_grad=True)
edge = torch.autograd.graph.get_gradient_edge(q)
out = q.clone()
with torch.no_grad():
    q.set_(torch.rand_like(q))
refused(lambda: torch.autograd.grad(out.sum(), q))
print([g.tolist() for g in torch.autograd.grad(out.sum(), edge)])
e = torch.ones(3)
e.set_()
print(list(e.shape), e._version)
refused(lambda: torch.ones(2).set_(torch.ones(2, dtype=torch.float64)))

# swap_tensors
t1 = torch.nn.Parameter(torch.ones(2))
t2 = torch.nn.Parameter(torch.zeros(3, dtype=torch.float64))
t1.tag = "one"
torch.utils.swap_tensors(t1, t2)
print(t1.tolist(), t1.dtype, t2.tolist(), t2.dtype, t2.tag, hasattr(t1, "tag"))
import weakref  # noqa: E402

t3 = torch.ones(1)
ref = weakref.ref(t3)
refused(lambda: torch.utils.swap_tensors(t3, torch.zeros(1)))

# modules
m = torch.nn.Linear(2, 3)
weight = m.weight
m.double()
print(m.weight is weight, m.weight.dtype)
conv = torch.nn.Conv2d(4, 8, 2)
cw = conv.weight
conv.to(memory_format=torch.channels_last)
print(conv.weight is cw, conv.weight.is_contiguous(memory_format=torch.channels_last))
print(conv.weight.stride(), conv.bias.stride())
torch.__future__.set_swap_module_params_on_conversion(True)
m.float()
print(m.weight is weight, m.weight.dtype)
state = {k: torch.full_like(v, 0.5) for k, v in m.state_dict().items()}
m.load_state_dict(state)
print(m.weight is weight, m.weight.tolist())
torch.__future__.set_swap_module_params_on_conversion(False)

# as_strided and as_strided_
base = torch.arange(12.0, dtype=torch.float64)
windows = base.as_strided((5, 4), (2, 1))
print(windows.tolist(), windows._base is base, windows.storage_offset())
print(base[2:].as_strided((2, 2), (1, 2)).tolist(), base[2:].as_strided((2, 2), (1, 2), 0).tolist())
leaf = torch.arange(1.0, 7.0, dtype=torch.float64, requires_grad=True)
overlapping = leaf.as_strided((3, 3), (1, 1), 1)
(overlapping * torch.arange(9.0, dtype=torch.float64).reshape(3, 3)).sum().backward()
print(overlapping.grad_fn.name(), leaf.grad.tolist())
print(
    torch.autograd.gradcheck(
        lambda t: t.as_strided((2, 2), (1, 2), 1), (leaf.detach().requires_grad_(),)
    )
)
print(
    torch.autograd.gradgradcheck(
        lambda t: t.as_strided((2, 2), (2, 1)) ** 2, (leaf.detach().requires_grad_(),)
    )
)
expanded = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
e = expanded.expand(3, 2)
e.as_strided((2,), (1,)).sum().backward()
print(expanded.grad.tolist())
refused(lambda: base.as_strided((4, 4), (4, 1)))
refused(lambda: base.as_strided((2,), (-1,)))
s = torch.arange(6.0) * torch.ones(6, requires_grad=True)
s.as_strided_((2, 3), (3, 1))
show("as_strided_", s)

# unsafe_split's pieces share elements but count versions alone
a = torch.arange(9.0, dtype=torch.float64).reshape(3, 3).requires_grad_()
b = a * 2
s1, s2, s3 = b.unsafe_split(1)
print(s1._base is None, s1.grad_fn.name())
s1.mul_(s2)
print(s1._version, s2._version, b._version, b.tolist()[0])
s1.sum().backward()
print(a.grad.tolist())
