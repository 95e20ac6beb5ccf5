"""``max_unpool1d/2d/3d`` and ``MaxUnpool1d/2d/3d`` as one program: values put back at a max
pool's indices, the gradient gathered back, ``output_size``, the modules' reprs and PyTorch's
refusals. ``test_index_ops_golden.py`` compares the output with PyTorch 2.15's
(``golden/unpool_torch.txt``)."""

import ferrograd as torch

F = torch.nn.functional
torch.manual_seed(0)
x = torch.randn(2, 3, 6, 6, requires_grad=True)
y, i = F.max_pool2d(x, 2, return_indices=True)
u = F.max_unpool2d(y, i, 2)
print(tuple(u.shape), round(u.sum().item(), 4), u.grad_fn is not None)
(u * u).sum().backward()
print(round(x.grad.sum().item(), 4))
u2 = F.max_unpool2d(y.detach(), i, 2, output_size=(7, 7))
print(tuple(u2.shape), round(u2.sum().item(), 4))
m = torch.nn.MaxUnpool2d(2, stride=2)
print(m, tuple(m(y.detach(), i, output_size=x.shape).shape))
x1 = torch.randn(2, 3, 9)
y1, i1 = F.max_pool1d(x1, 3, return_indices=True)
print(
    tuple(F.max_unpool1d(y1, i1, 3).shape),
    round(F.max_unpool1d(y1, i1, 3).sum().item(), 4),
    torch.nn.MaxUnpool1d(3),
)
x3 = torch.randn(1, 2, 4, 4, 4)
y3, i3 = F.max_pool3d(x3, 2, return_indices=True)
u3 = torch.nn.MaxUnpool3d(2)(y3, i3)
print(tuple(u3.shape), round(u3.sum().item(), 4), torch.nn.MaxUnpool3d(2))
for bad in [
    lambda: F.max_unpool2d(y, i.int(), 2),
    lambda: F.max_unpool2d(y, i[:1], 2),
    lambda: F.max_unpool2d(y, i + 100, 2),
    lambda: F.max_unpool2d(y, i, 2, output_size=(9, 9)),
    lambda: F.max_unpool2d(y, i, 2, output_size=(5,)),
    lambda: F.max_unpool3d(y3, i3 * 10, 2),
    lambda: F.max_unpool2d(y[0, 0], i[0, 0], 2),
]:
    try:
        bad()
        print("no error")
    except (RuntimeError, ValueError) as e:
        text = str(e)
        if text.startswith("Found an invalid max index"):  # which one is reported may differ
            text = "Found an invalid max index ... " + text[text.index("(") :]
        print(type(e).__name__, text)
# (two values at one index: PyTorch leaves which one is kept unspecified, so not printed)
print(F.max_unpool2d(torch.tensor([[[[1.0, 2.0]]]]), torch.tensor([[[[0, 3]]]]), 2))
