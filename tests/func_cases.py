"""``torch.func`` as one program: ``grad``/``grad_and_value`` (argnums, pytrees, has_aux, nested,
closures), ``vjp``, ``jvp``, ``jacrev``/``jacfwd``/``hessian``, ``vmap`` (in_dims, out_dims,
pytrees, randomness, composed with ``grad``), ``functional_call`` (dicts, tied weights, strict,
values written back) and ``stack_module_state``, whether results leak ``requires_grad``, the
refusals with PyTorch's messages, and ``torch.utils.benchmark.Timer``'s measurement format.
``test_index_ops_golden.py`` runs it with ferrograd and compares its output with PyTorch 2.15's
(``golden/func_torch.txt``, recorded by running it with ``import torch``)."""

import re

import case_printing
import ferrograd as torch
import ferrograd.nn.functional as F
from ferrograd import nn
from ferrograd.func import (
    functional_call,
    grad,
    grad_and_value,
    hessian,
    jacfwd,
    jacrev,
    jvp,
    stack_module_state,
    vjp,
    vmap,
)


def show(name, t):
    """A tensor (or a tuple/dict of them) as rounded values, shape and requires_grad."""
    if isinstance(t, (tuple, list)):
        for i, x in enumerate(t):
            show(f"{name}[{i}]", x)
        return
    if isinstance(t, dict):
        for k in sorted(t):
            show(f"{name}[{k}]", t[k])
        return
    print(name, [round(v, 4) for v in t.flatten().tolist()], list(t.shape), t.requires_grad)


def refused(call):
    case_printing.refused(call, width=200)


torch.manual_seed(0)
x = torch.tensor([0.5, -1.0, 2.0])
y = torch.tensor([1.5, 0.25, -0.5])


def f(a, b):
    return (a.sin() * b).sum()


show("grad", grad(f)(x, y))
show("grad argnums=1", grad(f, argnums=1)(x, y))
show("grad argnums=(0,1)", grad(f, argnums=(0, 1))(x, y))
g, v = grad_and_value(f)(x, y)
show("grad_and_value", (g, v))
g, (v, aux) = grad_and_value(lambda a: ((a**3).sum(), a.cos()), has_aux=True)(x)
show("has_aux", (g, v, aux))
show("grad of dict", grad(lambda d: (d["w"] * d["b"]).sum())({"w": x, "b": y}))
show(
    "grad grad",
    grad(
        grad(lambda a: (a**3).sum()).__call__ and (lambda a: grad(lambda b: (b**3).sum())(a).sum())
    )(x),
)
show("grad of grad sin", grad(lambda a: grad(lambda b: b.sin().sum())(a).sum())(x))
w = torch.tensor([2.0, -1.0, 0.5], requires_grad=True)
closure = grad(lambda a: (a * w).pow(2).sum())(x)
show("closure keeps graph", closure)
closure.sum().backward()
show("closure grad to w", w.grad)
leaf = x.clone().requires_grad_()
out = grad(lambda a: (a**2).sum())(leaf)
show("input requiring grad", out)
print("grad_fn present", out.grad_fn is not None)

out, fn = vjp(lambda a: a.exp() * 2, x)
show("vjp out", out)
show("vjp fn", fn(torch.ones(3)))
out, fn = vjp(lambda a, b: (a * b, a + b), x, y)
show("vjp two", fn((torch.ones(3), torch.tensor([1.0, 0.0, -1.0]))))
out, fn, aux = vjp(lambda a: (a.tanh(), a.sum()), x, has_aux=True)
show("vjp aux", (out, aux, fn(torch.ones(3))[0]))
refused(lambda: vjp(lambda a: a * 2, x)[1]((torch.ones(3), torch.ones(3))))

show("jvp", jvp(lambda a: a.sin() * a, (x,), (torch.ones(3),)))
show("jvp two", jvp(lambda a, b: a * b.exp(), (x, y), (y, x)))
show("hvp", jvp(grad(lambda a: (a.sin() * a).sum()), (x,), (torch.tensor([1.0, 0.0, 2.0]),)))
refused(lambda: jvp(lambda a: a, [x], [x]))
refused(lambda: jvp(lambda a: a, (x,), (x, y)))

W = torch.randn(4, 3)
bias = torch.randn(4)


def predict(weight, b, inp):
    return F.linear(inp, weight, b).tanh()


show("jacrev", jacrev(predict, argnums=2)(W, bias, x))
show("jacfwd", jacfwd(predict, argnums=2)(W, bias, x))
jw, jb = jacrev(predict, argnums=(0, 1))(W, bias, x)
print("jacrev shapes", list(jw.shape), list(jb.shape))
show("jacrev of dict output", jacrev(lambda a: {"s": a.sin(), "c": a.cos().sum()})(x))
show("hessian", hessian(lambda a: (a**3 * a.sin()).sum())(x))
show("jacrev jacrev", jacrev(jacrev(lambda a: (a.exp() * a).sum()))(x))
j, aux = jacrev(lambda a: (a**2, a.sum()), has_aux=True)(x)
show("jacrev aux", (j, aux))

batch = torch.randn(5, 3)
show("vmap", vmap(lambda a: a.sin().sum())(batch))
show("vmap in_dims None", vmap(lambda a, b: a * b, in_dims=(0, None))(batch, y))
show("vmap in_dims 1", vmap(lambda a: a.sum(), in_dims=1)(batch))
show("vmap out_dims 1", vmap(lambda a: a * 2, out_dims=1)(batch[:2]))
show("vmap tuple out", vmap(lambda a: (a.max(), a.min()))(batch))
show("vmap dict in", vmap(lambda d: d["a"] + d["b"])({"a": batch, "b": batch * 2}))
show("vmap nested", vmap(vmap(lambda a: a * a))(batch[:2]))
show("vmap grad", vmap(grad(lambda a: (a**2).sin().sum()))(batch))
show("vmap jacrev", vmap(jacrev(predict, argnums=2), in_dims=(None, None, 0))(W, bias, batch[:2]))
same = vmap(lambda a: a + torch.rand(()), randomness="same")(batch[:3])
print("randomness same equal", bool((same - batch[:3]).std(0).max() < 1e-6))
different = vmap(lambda a: a + torch.rand(()), randomness="different")(torch.zeros(4))
print("randomness different distinct", len(set(round(v, 6) for v in different.tolist())))
refused(lambda: vmap(lambda a: a + torch.rand(()))(batch))
refused(lambda: vmap(lambda a, b: a + b)(batch, torch.ones(4, 3)))
refused(lambda: vmap(lambda a: a, in_dims=2)(batch))
refused(lambda: vmap(lambda a, n: a * n, in_dims=(0, 0))(batch, 2))
refused(lambda: vmap(lambda a: a, randomness="sometimes"))
refused(lambda: vmap(lambda a: 1.0)(batch))
refused(lambda: grad(lambda a: a * 2)(x))
refused(lambda: grad(lambda a: 2)(x))
refused(lambda: grad(f, argnums=2)(x, y))
refused(lambda: grad(f, argnums=(0, 0))(x, y))

torch.manual_seed(1)  # vmap's "different" draws are not PyTorch's batched ones
model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
params = {k: v.detach() * 2 for k, v in model.named_parameters()}
show("functional_call", functional_call(model, params, (batch,)))
show("module unchanged", model(batch))
show("functional_call tuple of dicts", functional_call(model, (params, {}), batch))
bn = nn.BatchNorm1d(3)
bufs = {k: v.clone() for k, v in bn.named_buffers()}
functional_call(bn, bufs, (batch,))
show("buffers written back", bufs["running_mean"])
show("module buffer unchanged", bn.running_mean)
refused(lambda: functional_call(model, {"0.weight": params["0.weight"]}, (batch,), strict=True))
refused(lambda: functional_call(model, {"nope": x}, (batch,), strict=True))


class Tied(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(2, 2, bias=False)
        self.b = nn.Linear(2, 2, bias=False)
        self.b.weight = self.a.weight

    def forward(self, inp):
        return self.b(self.a(inp))


tied = Tied()
show("tied weights", functional_call(tied, {"a.weight": torch.eye(2) * 3}, (torch.ones(1, 2),)))
show(
    "untied",
    functional_call(tied, {"a.weight": torch.eye(2) * 3}, (torch.ones(1, 2),), tie_weights=False),
)
refused(
    lambda: functional_call(
        tied, {"a.weight": torch.eye(2), "b.weight": torch.eye(2) * 2}, (torch.ones(1, 2),)
    )
)

models = [nn.Linear(3, 2) for _ in range(4)]
sp, sb = stack_module_state(models)
print("stacked", {k: (list(v.shape), v.requires_grad, v.is_leaf) for k, v in sp.items()}, sb)
base = nn.Linear(3, 2)
per_model = vmap(lambda p, b, inp: functional_call(base, (p, b), (inp,)), in_dims=(0, 0, None))(
    sp, sb, batch
)
show("ensemble", per_model)
show("ensemble model 2", models[2](batch))


def loss_fn(p, b, sample, target):
    out = functional_call(model, (p, b), (sample.unsqueeze(0),))
    return F.cross_entropy(out, target.unsqueeze(0))


targets = torch.tensor([0, 1, 1, 0, 1])
p = {k: v.detach() for k, v in model.named_parameters()}
per_sample = vmap(grad(loss_fn), in_dims=(None, None, 0, 0))(p, {}, batch, targets)
show("per-sample grad 0.bias", per_sample["0.bias"])
model.zero_grad()
F.cross_entropy(model(batch[3:4]), targets[3:4]).backward()
show("sample 3 by backward", model[0].bias.grad)

from ferrograd.utils.benchmark import Timer  # noqa: E402

m = Timer("a + 1", globals={"a": x}).timeit(10)
print(re.sub(r"[0-9.]+ (ns|us|ms|s)\b", "<t>", re.sub(r"0x[0-9a-f]+", "0x", repr(m))))
m = Timer("a * 2", setup="b = 1", globals={"a": x}, label="mul", sub_label="x", description="d")
m = m.blocked_autorange(min_run_time=0.01)
print("\n".join(re.sub(r"0x[0-9a-f]+", "0x", repr(m)).splitlines()[:4]))
print("times", len(m.times) >= 1, m.median > 0, m.title, m.number_per_run > 0)
