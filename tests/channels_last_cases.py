"""Where results come out channels-last, as PyTorch lays them out: convolutions and pools of a
channels-last input (or a channels-last convolution weight) give channels-last results, a
sliced input whose strides no longer suggest it does not; the ``*_like`` functions keep a
dense input's exact strides; ``to(memory_format=...)`` lays out a single channel anew.
``test_index_ops_golden.py`` compares the output with PyTorch 2.15's
(``golden/channels_last_torch.txt``)."""

import ferrograd as torch

F = torch.nn.functional
cl, cl3 = torch.channels_last, torch.channels_last_3d
torch.manual_seed(0)
x = torch.randn(2, 3, 6, 6).contiguous(memory_format=cl)
w = torch.randn(4, 3, 3, 3)
outs = [
    F.conv2d(x, w),
    F.conv2d(x.contiguous(), w.contiguous(memory_format=cl)),
    F.max_pool2d(x, 2),
    F.max_pool2d(x, 2, return_indices=True)[1],
    F.avg_pool2d(x, 3),
    F.adaptive_avg_pool2d(x, 2),
    F.adaptive_max_pool2d(x, 2),
    F.conv_transpose2d(x, torch.randn(3, 2, 3, 3)),
    F.max_pool2d(x[:, ::2], 2),
    F.max_pool2d(x.contiguous(), 2),
]
print([o.is_contiguous(memory_format=cl) and not o.is_contiguous() for o in outs])
x3 = torch.randn(2, 3, 4, 4, 4).contiguous(memory_format=cl3)
print(
    [
        o.is_contiguous(memory_format=cl3)
        for o in (F.max_pool3d(x3, 2), F.avg_pool3d(x3, 2), F.adaptive_avg_pool3d(x3, 1))
    ]
)
p = torch.nn.Conv2d(1, 8, 3).to(memory_format=cl).weight
print(
    p.stride(),
    torch.zeros_like(p).stride(),
    torch.randn_like(p).stride(),
    torch.full_like(p, 2.0).stride(),
)
print(torch.randn(8, 1, 3, 3).contiguous(memory_format=cl).stride())
y = torch.randn(2, 3, 6, 6, requires_grad=True)
z = F.max_pool2d(y.contiguous(memory_format=cl), 2)
z.sum().backward()
print(round(y.grad.sum().item(), 4), z.grad_fn is not None)
