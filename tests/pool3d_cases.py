"""The 3-D pools as one program: ``max_pool3d`` (values, flat indices, gradients; padding,
dilation, ceil_mode, NaN and ties), ``avg_pool3d`` (padding counted or not, ceil_mode, a
divisor), ``adaptive_avg_pool3d``/``adaptive_max_pool3d``, the modules' reprs and PyTorch's
refusals. ``test_index_ops_golden.py`` runs it with ferrograd and compares its output with
PyTorch 2.15's (``golden/pool3d_torch.txt``, recorded by running it with ``import torch``)."""

import ferrograd as torch

F = torch.nn.functional
torch.manual_seed(0)
x = torch.randn(2, 3, 6, 7, 5, dtype=torch.float64, requires_grad=True)
for args in [
    dict(kernel_size=2),
    dict(kernel_size=(3, 2, 2), stride=(2, 1, 2), padding=(1, 1, 0)),
    dict(kernel_size=3, stride=2, padding=1, dilation=(1, 2, 1), ceil_mode=True),
]:
    y, i = F.max_pool3d(x, return_indices=True, **args)
    print(tuple(y.shape), round(y.sum().item(), 8), i.sum().item(), i.flatten()[:6].tolist())
    (g,) = torch.autograd.grad((y * y).sum(), x)
    print(round(g.sum().item(), 8))
for args in [
    dict(kernel_size=2),
    dict(kernel_size=(3, 2, 2), stride=(2, 1, 2), padding=(1, 1, 0), count_include_pad=False),
    dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
    dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
    dict(kernel_size=2, divisor_override=3),
]:
    y = F.avg_pool3d(x, **args)
    (g,) = torch.autograd.grad((y * y).sum(), x)
    print(tuple(y.shape), round(y.sum().item(), 8), round(g.sum().item(), 8))
for size in [(2, 3, 4), 1, (None, 2, 3), (4, 5, 3)]:
    y = F.adaptive_avg_pool3d(x, size)
    (g,) = torch.autograd.grad((y * y).sum(), x)
    ym, im = F.adaptive_max_pool3d(x, size, return_indices=True)
    print(
        tuple(y.shape),
        round(y.sum().item(), 8),
        round(g.sum().item(), 8),
        round(ym.sum().item(), 8),
        im.sum().item(),
    )
xn = torch.tensor([[[[1.0, float("nan")], [3.0, 3.0]], [[3.0, 2.0], [float("nan"), 0.0]]]])
print(F.max_pool3d(xn, 2, return_indices=True))
m = torch.nn.MaxPool3d(2, return_indices=True)
print(
    m,
    torch.nn.AvgPool3d(3, stride=2),
    torch.nn.AdaptiveAvgPool3d((1, 2, 3)),
    torch.nn.AdaptiveMaxPool3d(2),
)
print(tuple(m(x)[0].shape), tuple(F.max_pool3d(x[0], 2).shape))
for bad in [dict(kernel_size=0), dict(kernel_size=2, stride=0), dict(kernel_size=2, padding=2)]:
    try:
        F.max_pool3d(x, **bad)
    except RuntimeError as e:
        print(e)
