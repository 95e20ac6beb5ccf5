"""Running extrema, NaN-aware reductions, ``logaddexp``, ``nan_to_num``, ``erfc``/``erfinv``,
``pixel_shuffle``, ``aminmax``, ``bincount`` and the triangle indices as one program: values,
gradients, node names, dtypes and refusals. ``test_index_ops_golden.py`` runs it with ferrograd
and compares its output with PyTorch 2.15's (``golden/numeric_torch.txt``, recorded by running
it with ``import torch``)."""

import math

import ferrograd as torch
from case_printing import refused

nan, inf = math.nan, math.inf


def r(values):
    """Rounded nested lists (NaN and infinities printed as words)."""
    if isinstance(values, list):
        return [r(v) for v in values]
    if isinstance(values, float) and not math.isfinite(values):
        return str(values)
    return round(values, 9) if isinstance(values, float) else values


def show(name, y, x=None, weights=None):
    """``y``'s values, dtype and node; with ``x``, the gradient of a weighted sum of ``y``."""
    line = [name, r(y.tolist()), str(y.dtype), y.grad_fn.name() if y.grad_fn else None]
    if x is not None:
        w = weights if weights is not None else torch.arange(1.0, y.numel() + 1.0, dtype=y.dtype)
        (g,) = torch.autograd.grad((y * w.reshape(y.shape)).sum(), x)
        line.append(r(g.tolist()))
    print(*line)


x = torch.tensor(
    [[1.0, 5.0, 2.0, 5.0], [3.0, nan, 0.0, 4.0], [-1.0, -2.0, -2.0, 7.0]],
    dtype=torch.float64,
    requires_grad=True,
)
for op in ("cummax", "cummin"):
    for dim in (0, 1, -1):
        v, i = getattr(torch, op)(x, dim)
        show(f"{op} dim={dim}", v, x)
        print("  indices", i.tolist(), i.dtype)
v, i = x.cummax(dim=1)
print("method", r(v.tolist()), type(x.cummax(1)).__name__)
s = torch.tensor(2.5, requires_grad=True)
v, i = torch.cummax(s, 0)
show("cummax 0-d", v, s)
print("  indices", i.tolist())
print("cummax int", torch.cummax(torch.tensor([3, 1, 4, 1, 5]), 0).values.tolist())
print("cummin bool", torch.cummin(torch.tensor([True, False, True]), 0).values.tolist())
refused(lambda: torch.cummax(x, 2))

y = torch.tensor([[1.0, nan, 3.0], [nan, nan, nan]], dtype=torch.float64, requires_grad=True)
show("nansum", torch.nansum(y), y)
show("nansum dim", torch.nansum(y, 1), y)
show("nansum keepdim", y.nansum(dim=0, keepdim=True), y)
show("nansum tuple", y.nansum((0, 1)), y)
print("nansum int", torch.nansum(torch.tensor([1, 2, 3])).tolist())
show("nanmean", torch.nanmean(y), y)
show("nanmean dim", y.nanmean(dim=1), y)
refused(lambda: torch.nanmean(torch.tensor([1, 2])))

a = torch.tensor([1.0, -inf, inf, 1000.0, -3.0, nan], dtype=torch.float64, requires_grad=True)
b = torch.tensor([2.0, -inf, inf, 1000.5, 20.0, 1.0], dtype=torch.float64, requires_grad=True)
for op in ("logaddexp", "logaddexp2"):
    out = getattr(torch, op)(a, b)
    print(op, r(out.tolist()), out.grad_fn.name())
    w = torch.tensor([1.0, 0.0, 0.0, 2.0, 3.0, 0.0], dtype=torch.float64)
    ga, gb = torch.autograd.grad((out * w).sum(), (a, b))
    print("  grads", r(ga.tolist()), r(gb.tolist()))
f32 = torch.tensor([0.5, 88.0])
print("logaddexp f32", r(f32.logaddexp(torch.tensor([0.25, 89.0])).tolist()))
refused(lambda: torch.logaddexp(torch.tensor([1, 2]), torch.tensor([3, 4])))
refused(lambda: torch.logaddexp2(torch.tensor([True]), torch.tensor([False])))
print("logaddexp mixed", torch.logaddexp(torch.tensor([1, 2]), torch.tensor([3.0, 4.0])).dtype)
print("logaddexp broadcast", r(torch.logaddexp(torch.zeros(2, 1), torch.zeros(3)).shape))

z = torch.tensor([1.5, nan, inf, -inf, -2.0], dtype=torch.float64, requires_grad=True)
show("nan_to_num", torch.nan_to_num(z), z)
show("nan_to_num args", z.nan_to_num(nan=7.0, posinf=100.0, neginf=-100.0), z)
print("nan_to_num f32", torch.nan_to_num(torch.tensor([inf, -inf, nan])).tolist())
print("nan_to_num int", torch.nan_to_num(torch.tensor([1, 2])).tolist())
w = torch.tensor([nan, 1.0, -inf])
w.nan_to_num_(posinf=1.0, neginf=-1.0)
print("nan_to_num_", w.tolist())

e = torch.tensor([-0.9, -0.3, 0.0, 0.2, 0.7, 0.999], dtype=torch.float64, requires_grad=True)
show("erfc", torch.erfc(e), e)
show("erfinv", torch.erfinv(e), e)
show("special.erfc", torch.special.erfc(e), e)
show("special.erfinv", torch.special.erfinv(e), e)
print("erfinv edges", r(torch.erfinv(torch.tensor([1.0, -1.0, 1.5, -2.0])).tolist()))
print("erfinv f32", r(torch.erfinv(torch.tensor([0.1, 0.5, 0.9])).tolist()))
print("erfc f32", r(torch.tensor([0.1, 3.0]).erfc().tolist()))
q = torch.tensor([0.25, -0.5], dtype=torch.float64, requires_grad=True)
(g,) = torch.autograd.grad(torch.erfinv(q).sum(), q, create_graph=True)
(gg,) = torch.autograd.grad(g.sum(), q)
print("erfinv second order", r(g.tolist()), r(gg.tolist()))

p = torch.arange(2 * 8 * 2 * 3, dtype=torch.float64).reshape(2, 8, 2, 3).requires_grad_()
out = torch.nn.functional.pixel_shuffle(p, 2)
show("pixel_shuffle", out.reshape(-1)[:12], p)
print("  shape", list(out.shape), out.is_contiguous(), out.grad_fn.name())
back = torch.pixel_unshuffle(out, 2)
print("pixel_unshuffle round trip", torch.equal(back, p), back.grad_fn.name())
(g,) = torch.autograd.grad((back * torch.arange(float(back.numel())).reshape(back.shape)).sum(), p)
print("  gradient", r(g.reshape(-1)[:10].tolist()))
print("PixelShuffle", torch.nn.PixelShuffle(3), torch.nn.PixelUnshuffle(2))
print("module", list(torch.nn.PixelShuffle(2)(torch.zeros(8, 3, 4)).shape))
print("unshuffle 5-d", list(torch.nn.PixelUnshuffle(2)(torch.zeros(2, 1, 3, 4, 6)).shape))
refused(lambda: torch.pixel_shuffle(torch.zeros(3, 2), 2))
refused(lambda: torch.pixel_shuffle(torch.zeros(5, 2, 2), 2))
refused(lambda: torch.pixel_shuffle(torch.zeros(4, 2, 2), 0))
refused(lambda: torch.pixel_unshuffle(torch.zeros(4, 5, 2), 2))
refused(lambda: torch.pixel_unshuffle(torch.zeros(4, 2, 3), 2))
refused(lambda: torch.pixel_unshuffle(torch.zeros(4, 2, 2), -1))

m = torch.tensor([[4.0, 1.0, 1.0], [2.0, 9.0, 9.0]], dtype=torch.float64, requires_grad=True)
lo, hi = torch.aminmax(m)
print("aminmax", lo.tolist(), hi.tolist(), lo.grad_fn.name(), hi.grad_fn is lo.grad_fn)
(g,) = torch.autograd.grad(lo * 2 + hi * 3, m)
print("  gradient", r(g.tolist()))
res = m.aminmax(dim=1, keepdim=True)
print("aminmax dim", res.min.tolist(), res.max.tolist(), type(res).__name__)
(g,) = torch.autograd.grad(res.max.sum(), m)
print("  gradient of max only", r(g.tolist()))
print("aminmax int", [t.tolist() for t in torch.aminmax(torch.tensor([3, -1, 2]))])
refused(lambda: torch.aminmax(torch.zeros(0)))
refused(lambda: torch.aminmax(torch.zeros(2, 0), dim=1))

print("bincount", torch.bincount(torch.tensor([1, 3, 3, 0, 3])).tolist())
print("bincount minlength", torch.bincount(torch.tensor([1, 1]), minlength=5).tolist())
bw = torch.bincount(torch.tensor([0, 2, 2]), weights=torch.tensor([0.5, 1.0, 2.0]))
print("bincount weights", bw.tolist(), bw.dtype)
bd = torch.tensor([0, 2, 2]).bincount(torch.tensor([1, 2, 3]))
print("bincount int weights", bd.tolist(), bd.dtype)
print("bincount empty", torch.bincount(torch.tensor([], dtype=torch.int64)).tolist())
print(
    "bincount empty minlength",
    torch.bincount(torch.zeros(0, dtype=torch.int64), minlength=3).tolist(),
)
refused(lambda: torch.bincount(torch.tensor([[1]])))
refused(lambda: torch.bincount(torch.tensor([-1, 2])))
refused(lambda: torch.bincount(torch.tensor([1.0])))
refused(lambda: torch.bincount(torch.tensor([1]), minlength=-1))
refused(lambda: torch.bincount(torch.tensor([1, 2]), weights=torch.tensor([1.0])))

print("tril_indices", torch.tril_indices(3, 4).tolist())
print(
    "tril_indices offset",
    torch.tril_indices(3, 3, 1).tolist(),
    torch.tril_indices(4, 3, -2).tolist(),
)
print("triu_indices", torch.triu_indices(3, 4).tolist())
ti = torch.triu_indices(3, 3, -1, dtype=torch.int64)
print("triu_indices offset", ti.tolist(), ti.dtype)
print("empty", torch.tril_indices(0, 3).shape, torch.triu_indices(2, 0).shape)
refused(lambda: torch.tril_indices(-1, 3))
refused(lambda: torch.triu_indices(2, -3))
