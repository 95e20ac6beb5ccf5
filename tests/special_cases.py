"""``torch.special`` as one program: each function's values, gradient and node name in float64.
``test_index_ops_golden.py`` runs it with ferrograd and compares its output with PyTorch
2.15's (``golden/special_torch.txt``, recorded by running it with ``import torch``)."""

import ferrograd as torch

x = torch.tensor([0.2, 0.5, 0.9], dtype=torch.float64, requires_grad=True)
S = torch.special
CASES = [
    ("erf", S.erf),
    ("expit", S.expit),
    ("logit", S.logit),
    ("logit eps", lambda t: S.logit(t, eps=0.3)),
    ("gammaln", S.gammaln),
    ("digamma", S.digamma),
    ("psi", S.psi),
    ("polygamma", lambda t: S.polygamma(1, t)),
    ("expm1", S.expm1),
    ("exp2", S.exp2),
    ("log1p", S.log1p),
    ("xlogy", lambda t: S.xlogy(t, t + 1)),
    ("xlogy number", lambda t: S.xlogy(2.0, t)),
    ("softmax", lambda t: S.softmax(t, 0)),
    ("log_softmax", lambda t: S.log_softmax(t, 0)),
    ("logsumexp", lambda t: S.logsumexp(t, 0)),
]
for name, f in CASES:
    y = f(x)
    (g,) = torch.autograd.grad((y * torch.arange(1.0, y.numel() + 1.0, dtype=y.dtype)).sum(), x)
    values = [round(v, 10) for v in y.reshape(-1).tolist()]
    print(name, values, [round(v, 10) for v in g.tolist()], y.grad_fn.name())

# the modified Bessel functions: values across the series/asymptotic switch, at 0, at the
# infinities and NaN (float64 to 12 digits, float32 to 6), first and second derivatives with
# PyTorch's limits at 0, node names, integer inputs computed in float32, the in-place method
points = [0.0, 1e-9, 0.5, -1.0, 2.5, -3.0, 7.9, 8.1, 25.0, 31.0, -45.0, 80.0]
specials = [float("inf"), float("-inf"), float("nan")]
for name in ("i0", "i0e", "i1", "i1e"):
    f = getattr(S, name)
    wide = f(torch.tensor(points + specials, dtype=torch.float64)).tolist()
    print(name, [float(f"{v:.12g}") for v in wide])
    narrow = f(torch.tensor(points[:-1])).tolist()
    print(name, "float32", [float(f"{v:.6g}") for v in narrow], f(torch.tensor([1, 2])).dtype)
    z = torch.tensor([0.0, 0.3, -1.7, 4.0, 40.0], dtype=torch.float64, requires_grad=True)
    y = f(z)
    (g,) = torch.autograd.grad(y.sum(), z, create_graph=True)
    (gg,) = torch.autograd.grad(g.sum(), z)
    print(name, y.grad_fn.name(), [float(f"{v:.11g}") for v in g.tolist()])
    print(name, "second", [float(f"{v:.9g}") for v in gg.tolist()])
t = torch.tensor([1.0, -2.0])
print("i0", [round(v, 5) for v in torch.i0(t).tolist()], [round(v, 5) for v in t.i0().tolist()])
print("i0_", t.i0_() is t, [round(v, 5) for v in t.tolist()])
