"""Tensor subclasses that dispatch: ``Tensor._make_wrapper_subclass`` and ``__torch_dispatch__``
(a class that wraps a tensor and logs every op reaching it, as PyTorch's own ``LoggingTensor``),
with autograd recorded at the wrapper's level and the backward formulas dispatching again;
``torch.utils._pytree``; ``torch.ops.aten`` objects. ``test_index_ops_golden.py`` compares the
output with PyTorch 2.15's (``golden/subclass_dispatch_torch.txt``)."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ferrograd as torch
from case_printing import refused

tree_map = torch.utils._pytree.tree_map
LOG = []


class Wrapped(torch.Tensor):
    """Wraps ``elem``; every op runs on what it wraps and is logged by its aten name."""

    @staticmethod
    def __new__(cls, elem, requires_grad=False):
        r = torch.Tensor._make_wrapper_subclass(
            cls,
            elem.size(),
            strides=elem.stride(),
            storage_offset=elem.storage_offset(),
            dtype=elem.dtype,
            layout=elem.layout,
            device=elem.device,
            requires_grad=requires_grad,
        )
        r.elem = elem.detach() if requires_grad else elem
        return r

    def __repr__(self):
        return f"Wrapped({self.elem})"

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        LOG.append(func.__name__)

        def unwrap(e):
            return e.elem if isinstance(e, cls) else e

        def wrap(e):
            return cls(e) if isinstance(e, torch.Tensor) else e

        out = func(*tree_map(unwrap, args), **tree_map(unwrap, kwargs or {}))
        return tree_map(wrap, out)


def log(title, ordered=True):
    # PyTorch also dispatches the detach of each tensor it saves for backward or stores as a
    # .grad (ferrograd's saved tensors share the wrapper instead): left out of the comparison;
    # a backward pass's ops are compared as a set of calls (the order of the ops inside one
    # derivative formula is the library's own)
    names = [name for name in LOG if name != "detach.default"]
    print(title, names if ordered else sorted(names))
    LOG.clear()


def show(name, t):
    print(name, type(t).__name__, list(t.shape), t.dtype, t.requires_grad, t.is_leaf)
    inner = t.elem if isinstance(t, Wrapped) else t
    print("  ", [round(v, 4) for v in inner.reshape(-1).tolist()])


torch.manual_seed(0)
base = torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])
x = Wrapped(base.clone(), requires_grad=True)
show("x", x)

# forward: every op is dispatched, the results are wrappers recording autograd history
y = (x * 2).exp().sum(dim=1)
show("y", y)
print(y.grad_fn.name(), [f[0].name() if f[0] else None for f in y.grad_fn.next_functions])
log("forward")

# backward: the formulas run on wrappers, so they dispatch too
(g,) = torch.autograd.grad(y, x, Wrapped(torch.ones(2)))
show("grad", g)
log("backward", ordered=False)

# views, reductions and products
z = x.t().mm(x).narrow(0, 1, 2).transpose(0, 1).reshape(-1).unsqueeze(0)
show("z", z)
log("views")
z.sum().backward()
show("x.grad", x.grad)
log("z backward", ordered=False)

# a scalar out of a wrapper, and comparisons
print(round(x.sum().item(), 4), (x > 0).elem.tolist())
log("item")
refused(lambda: x.tolist())

# double backward through a wrapper (create_graph)
a = Wrapped(torch.tensor([1.0, 2.0, 3.0]), requires_grad=True)
(ga,) = torch.autograd.grad((a**3).sum(), a, create_graph=True)
show("ga", ga)
(gga,) = torch.autograd.grad(ga.sum(), a)
show("gga", gga)
LOG.clear()

# in-place writes outside autograd: the class writes into what it wraps
w = Wrapped(torch.zeros(2, 3))
with torch.no_grad():
    w[1] = torch.ones(3)
    w[0, 2] = 5.0
print(w.elem.tolist())
log("setitem")

# torch.ops objects and pytree
op = torch.ops.aten.mul.Tensor
print(op.__name__, op.name(), op.overloadpacket.__name__, op(torch.ones(2), torch.full((2,), 3.0)))
leaves, spec = torch.utils._pytree.tree_flatten({"b": (1, [2, 3]), "a": None})
print(leaves, torch.utils._pytree.tree_unflatten([x and x * 10 for x in leaves], spec))

# a wrapper has no elements of its own: NumPy cannot share them
refused(lambda: w.numpy())
refused(lambda: torch.Tensor._make_wrapper_subclass(int, (2,)))

# subclasses with elements: _make_subclass (a new leaf sharing the data) and as_subclass (an
# alias recorded as AliasBackward0)


class Tagged(torch.Tensor):
    pass


src = torch.tensor([1.0, 2.0], requires_grad=True)
leaf = torch.Tensor._make_subclass(Tagged, src, True)
print(type(leaf).__name__, leaf.requires_grad, leaf.is_leaf, leaf.grad_fn)
plain = torch.Tensor._make_subclass(Tagged, src * 2)
print(type(plain).__name__, plain.requires_grad, plain.is_leaf, plain.tolist())
view = (src * 3).as_subclass(Tagged)
print(type(view).__name__, view.requires_grad, view.grad_fn.name(), view.tolist())
with torch.no_grad():
    src.add_(1)
print(leaf.tolist())
refused(lambda: torch.Tensor._make_subclass(int, src))
refused(lambda: src.as_subclass(dict))
