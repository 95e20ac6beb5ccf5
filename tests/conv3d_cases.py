"""``F.conv3d`` and ``nn.Conv3d`` (composed of 2-D convolutions): values and gradients for
strides, padding (numbers and ``"same"``), dilation and groups, unbatched input, the module's
repr and shapes, PyTorch's errors, gradcheck. ``test_index_ops_golden.py`` compares the
output with PyTorch 2.15's (``golden/conv3d_torch.txt``)."""

import warnings

import ferrograd as torch

warnings.simplefilter("ignore")
F = torch.nn.functional
torch.manual_seed(0)
x = (
    torch.linspace(-1, 1, 2 * 4 * 5 * 6 * 7, dtype=torch.float64)
    .reshape(2, 4, 5, 6, 7)
    .requires_grad_()
)
w = (
    torch.linspace(-0.5, 0.7, 6 * 2 * 3 * 2 * 3, dtype=torch.float64)
    .reshape(6, 2, 3, 2, 3)
    .requires_grad_()
)
b = torch.tensor([0.1, -0.2, 0.3, 0.0, 0.5, -0.6], dtype=torch.float64, requires_grad=True)
for kw in [
    dict(),
    dict(stride=2),
    dict(padding=1),
    dict(stride=(2, 1, 2), padding=(1, 0, 2), dilation=(1, 2, 1)),
    dict(groups=2),
    dict(padding="same"),
]:
    wt = w if kw.get("groups") == 2 else w[:, :2].repeat(1, 2, 1, 1, 1)
    out = F.conv3d(x, wt, b, **kw)
    g = torch.autograd.grad((out * out.detach().sin()).sum(), (x, w, b))
    print(kw, list(out.shape), round(out.sum().item(), 8), [round(t.sum().item(), 8) for t in g])
print(list(F.conv3d(x[0], w.repeat(1, 2, 1, 1, 1)).shape))
m = torch.nn.Conv3d(4, 3, (2, 3, 3), stride=(1, 2, 2), padding=1, bias=False)
print(m, list(m(x.float()).shape), m.weight.shape)
for bad in [
    lambda: F.conv3d(x, w),
    lambda: F.conv3d(x, w.repeat(1, 2, 1, 1, 1)[:, :, :, :, :].repeat(1, 1, 9, 1, 1)),
    lambda: F.conv3d(x[0, 0], w),
]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, str(e)[:160])
print(
    torch.autograd.gradcheck(
        lambda a, c: F.conv3d(a, c, stride=(1, 2, 1), padding=(0, 1, 1)),
        (
            x[:1, :2, :3, :3, :4].detach().requires_grad_(),
            w[:2, :2, :2, :2, :2].detach().requires_grad_(),
        ),
    )
)
