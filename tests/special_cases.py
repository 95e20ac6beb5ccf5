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
