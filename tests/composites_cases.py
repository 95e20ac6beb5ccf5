"""Functions PyTorch composes of other ops (``hstack``, ``vstack``, ``dstack``,
``column_stack``, ``atleast_*d``, ``movedim``, ``swapaxes``, ``flipud``, ``fliplr``,
``rot90``, ``ravel``, ``unflatten``, ``tile``, ``tensor_split``, ``hsplit``, ``vsplit``,
``dsplit``, ``kron``, ``tensordot``, ``inner``, ``diff``, ``msort``) as one program: shapes,
values, gradients and refusals. ``test_index_ops_golden.py`` runs it with ferrograd and compares
its output with PyTorch 2.15's (``golden/composites_torch.txt``, recorded by running it with
``import torch``)."""

import math
import warnings

import ferrograd as torch
from case_printing import refused

warnings.simplefilter("ignore")
F64 = torch.float64


def show(name, t):
    if isinstance(t, tuple):
        print(name, [(tuple(p.shape), p.tolist()) for p in t])
        return
    print(name, tuple(t.shape), t.detach().reshape(-1).tolist(), t.requires_grad)


def grad_of(name, f, *shapes):
    xs = [
        torch.arange(float(math.prod(s)), dtype=F64).add(1.0).mul(0.5).reshape(*s).requires_grad_()
        for s in shapes
    ]
    out = f(*xs)
    if isinstance(out, tuple):
        out = sum((o * (i + 1)).sum() for i, o in enumerate(out))
    weights = torch.arange(float(out.numel()), dtype=F64).reshape(out.shape).add(1.0)
    (out * weights).sum().backward()
    print(name, [x.grad.reshape(-1).tolist() for x in xs])


x = torch.arange(6.0, dtype=F64).reshape(2, 3)
v = torch.tensor([1.0, 2.0], dtype=F64)
s = torch.tensor(3.0, dtype=F64)
show("atleast_1d", torch.atleast_1d(s))
show("atleast_2d", torch.atleast_2d(v))
show("atleast_3d", torch.atleast_3d(x))
print("atleast_3d many", [tuple(t.shape) for t in torch.atleast_3d(s, v, x)])
print("atleast_2d list", [tuple(t.shape) for t in torch.atleast_2d([s, v])])
show("hstack", torch.hstack([x, x]))
show("hstack 1d", torch.hstack([v, v, s.reshape(1)]))
show("vstack", torch.vstack([v, v]))
show("row_stack", torch.row_stack([x, x[:1]]))
show("dstack", torch.dstack([v, v]))
show("column_stack", torch.column_stack([x[0], x.t(), s.expand(3)]))
show("concat", torch.concat([x, x], 1))
show("concatenate", torch.concatenate([x, x]))
show("movedim", torch.arange(24.0).reshape(2, 3, 4).movedim(0, -1))
show("movedim many", torch.arange(24.0).reshape(2, 3, 4).movedim((0, 1), (2, 0)))
show("moveaxis", torch.moveaxis(torch.arange(24.0).reshape(2, 3, 4), 2, 0))
show("swapaxes", x.swapaxes(0, 1))
show("swapdims", torch.swapdims(x, 1, 0))
show("flipud", x.flipud())
show("fliplr", torch.fliplr(x))
for k in range(-1, 5):
    show(f"rot90 k={k}", x.rot90(k))
show("rot90 dims", torch.arange(24.0).reshape(2, 3, 4).rot90(1, (2, 0)))
show("ravel", x.t().ravel())
show("unflatten", torch.arange(12.0).reshape(3, 4).unflatten(1, (2, -1)))
show("tile", x.tile((2,)))
show("tile more", v.tile((2, 2)))
show("msort", torch.tensor([[3.0, 1.0], [1.0, 2.0], [2.0, 0.0]]).msort())
show("tensor_split n", torch.arange(7.0).tensor_split(3))
show("tensor_split idx", torch.arange(7.0).tensor_split([1, 5, 9]))
show("tensor_split dim", x.tensor_split([1], dim=1))
show("hsplit", torch.arange(12.0).reshape(2, 6).hsplit(3))
show("hsplit 1d", torch.arange(6.0).hsplit([2]))
show("vsplit", torch.arange(12.0).reshape(4, 3).vsplit([1, 3]))
show("dsplit", torch.arange(8.0).reshape(1, 2, 4).dsplit(2))
show(
    "kron",
    torch.kron(torch.tensor([[1.0, 2.0], [3.0, 4.0]]), torch.tensor([[0.0, 1.0], [1.0, 0.0]])),
)
show("kron ranks", torch.kron(v, x))
show(
    "tensordot",
    torch.tensordot(torch.arange(24.0).reshape(2, 3, 4), torch.arange(12.0).reshape(3, 4), 2),
)
show(
    "tensordot dims",
    torch.tensordot(torch.arange(6.0).reshape(2, 3), torch.arange(6.0).reshape(3, 2), ([1], [0])),
)
show("inner", torch.inner(x, x))
show("inner scalar", torch.inner(s, v))
show("diff", x.diff())
show("diff n2 dim0", torch.arange(10.0).reshape(5, 2).pow(2).diff(n=2, dim=0))
show("diff prepend", torch.diff(v, prepend=torch.tensor([0.0], dtype=F64), append=s.reshape(1)))
show("diff bool", torch.tensor([True, False, False, True]).diff())
show("diff n big", v.diff(n=5))
grad_of("grad hstack", lambda a, b: torch.hstack([a, b]), (2, 3), (2, 2))
grad_of("grad column_stack", lambda a, b: torch.column_stack([a, b]), (3,), (3, 2))
grad_of("grad rot90", lambda a: a.rot90(), (2, 3))
grad_of("grad rot90 k3", lambda a: a.rot90(3), (2, 3))
grad_of("grad kron", torch.kron, (2, 2), (2, 3))
grad_of("grad tensordot", lambda a, b: torch.tensordot(a, b, 1), (2, 3), (3, 2))
grad_of("grad inner", torch.inner, (2, 3), (4, 3))
grad_of("grad diff", lambda a: a.diff(n=2), (2, 5))
grad_of("grad tensor_split", lambda a: a.tensor_split(2, 1), (2, 5))
grad_of("grad movedim", lambda a: a.movedim(0, 1), (2, 3))
grad_of("grad tile", lambda a: a.tile((2, 1)), (2, 3))
grad_of("grad msort", lambda a: a.msort(), (3, 2))
print("rot90 name", x.requires_grad_().rot90().grad_fn.name(), x.rot90(2).grad_fn.name())
x = x.detach()
for label, call in [
    ("hstack empty", lambda: torch.hstack([])),
    ("rot90 same dims", lambda: x.rot90(1, (0, 0))),
    ("rot90 1d", lambda: v.rot90()),
    ("rot90 three dims", lambda: x.rot90(1, (0, 1, 1))),
    ("flipud 0d", lambda: s.flipud()),
    ("fliplr 1d", lambda: v.fliplr()),
    ("movedim repeated", lambda: x.movedim((0, 0), (0, 1))),
    ("movedim lengths", lambda: x.movedim((0, 1), (0,))),
    ("unflatten bad", lambda: x.unflatten(1, (2, 2))),
    ("tensor_split 0", lambda: v.tensor_split(0)),
    ("tensor_split 0d", lambda: s.tensor_split(1)),
    ("hsplit indivisible", lambda: x.hsplit(2)),
    ("vsplit 1d", lambda: v.vsplit(1)),
    ("dsplit 2d", lambda: x.dsplit(1)),
    ("diff 0d", lambda: s.diff()),
    ("diff negative", lambda: v.diff(n=-1)),
    ("diff prepend rank", lambda: x.diff(prepend=v)),
    ("tensordot mismatch", lambda: torch.tensordot(x, x, ([1], [0]))),
    ("inner mismatch", lambda: torch.inner(x, v)),
]:
    print(label, end=" ")
    refused(call)
