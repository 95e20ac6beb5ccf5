"""In-place activations (``F.leaky_relu(x, inplace=True)`` and the others) inside a graph:
the values written into the input and the gradients of what produced it, which need the
activation's backward to read a copy of the input rather than the overwritten tensor.
``test_index_ops_golden.py`` compares the output with PyTorch 2.15's
(``golden/inplace_activation_torch.txt``)."""

import ferrograd as torch

F = torch.nn.functional
for name, f in [
    ("leaky_relu", lambda t: F.leaky_relu(t, 0.2, inplace=True)),
    ("elu", lambda t: F.elu(t, inplace=True)),
    ("selu", lambda t: F.selu(t, inplace=True)),
    ("celu", lambda t: F.celu(t, 0.5, inplace=True)),
    ("silu", lambda t: F.silu(t, inplace=True)),
    ("hardtanh", lambda t: F.hardtanh(t, inplace=True)),
    ("relu6", lambda t: F.relu6(t, inplace=True)),
    ("mish", lambda t: F.mish(t, inplace=True)),
    ("hardsigmoid", lambda t: F.hardsigmoid(t, inplace=True)),
    ("hardswish", lambda t: F.hardswish(t, inplace=True)),
]:
    w = torch.tensor([-2.0, -0.5, 0.3, 1.5, 4.0], dtype=torch.float64, requires_grad=True)
    y = w * 2
    out = f(y)
    (out * torch.arange(1.0, 6.0, dtype=torch.float64)).sum().backward()
    print(
        name, out is y, [round(v, 8) for v in out.tolist()], [round(v, 8) for v in w.grad.tolist()]
    )
    # no grad path
    with torch.no_grad():
        z = torch.tensor([-1.0, 1.0])
        r = f(z)
        print("  nograd", r is z, [round(v, 6) for v in z.tolist()])
