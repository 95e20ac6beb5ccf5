"""The layers and functions ``test/test_nn.py`` needed, as one program: shrinkage, gated and
parametric activations (``hardshrink``, ``softshrink``, ``tanhshrink``, ``glu``, ``prelu``,
``rrelu`` with PyTorch's random slopes), ``AdaptiveLogSoftmaxWithLoss``, bicubic and
antialiased ``interpolate`` (float and uint8), the margin and likelihood losses, ``pdist``, the
padding layers, integer convolution, 3-D resampling, ``softmin``, ``gumbel_softmax``, the
distance triplet loss, weighted ``l1_loss``/``mse_loss``, the recurrent layers' hidden-size
checks, ``affine_grid``, ``torch.random``, ``Tensor._grad`` and ``backends.quantized``:
values, gradients, node names, reprs and refusals. ``test_index_ops_golden.py`` compares the
output with PyTorch 2.15's (``golden/nn_extra_torch.txt``)."""

# ruff: noqa: B023  (each lambda is called at once, inside grads(), with the loop's values)
import os
import sys

import ferrograd as torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from case_printing import refused

F = torch.nn.functional
nn = torch.nn


def show(t, digits=5):
    """A tensor's values rounded, as a flat list (a zero's sign not shown)."""
    return [round(v, digits) + 0.0 for v in t.detach().double().flatten().tolist()]


def grads(fn, *tensors, named=True):
    """The values of ``fn(*tensors)``, its node's name (unless ``named`` is False: the losses
    PyTorch runs as kernels of their own are composed here, their last op's node differs) and
    the inputs' gradients."""
    leaves = [t.detach().requires_grad_() for t in tensors]
    out = fn(*leaves)
    out.sum().backward()
    name = type(out.grad_fn).__name__ if named else "-"
    print(name, show(out), *[show(t.grad) for t in leaves])


torch.manual_seed(0)
x = torch.randn(2, 4, 3, dtype=torch.float64)
grads(lambda a: F.hardshrink(a, 0.4), x)
grads(lambda a: F.softshrink(a, 0.4), x)
grads(F.tanhshrink, x)
grads(lambda a: F.glu(a, 1), x)
grads(F.prelu, x, torch.tensor([0.1, 0.2, 0.3, 0.4], dtype=torch.float64))
grads(F.prelu, x, torch.tensor([0.25], dtype=torch.float64))
torch.manual_seed(1)
grads(lambda a: F.rrelu(a, 0.1, 0.3, training=True), x)
grads(lambda a: F.rrelu(a), x)
print(F.hardshrink(torch.tensor([-0.5, 0.5, 0.6, float("nan")]), 0.5))
print(nn.Hardshrink(), nn.Softshrink(0.3), nn.Tanhshrink(), nn.GLU(), nn.PReLU(3), nn.RReLU(0.1))
print(show(nn.PReLU(3, init=0.1).weight), torch.prelu(x, torch.tensor([0.5], dtype=x.dtype)).sum())
refused(lambda: F.glu(torch.randn(3, 3)))
refused(lambda: F.glu(torch.tensor(1.0)))
refused(lambda: F.softshrink(torch.randn(3), -1))
refused(lambda: F.prelu(torch.randn(2, 3), torch.rand(2)))
refused(lambda: F.prelu(torch.randn(2, 3), torch.rand(1, 3)))
refused(lambda: F.prelu(torch.tensor(1.0), torch.rand(2)))

torch.manual_seed(2)
asm = nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6], div_value=2.0)
print(asm)
inp = torch.randn(5, 8, requires_grad=True)
out = asm(inp, torch.tensor([0, 4, 9, 2, 7]))
out.loss.backward()
print(show(out.output), round(out.loss.item(), 5), show(inp.grad.sum(1)))
print(show(asm.log_prob(inp).exp().sum(1)), asm.predict(inp).tolist())
print(type(asm(inp[0], torch.tensor(5)).output).__name__, asm(inp[0], torch.tensor(5)).output.shape)
refused(lambda: asm(inp, torch.tensor([0, 4, 10, 2, 7])))
refused(lambda: nn.AdaptiveLogSoftmaxWithLoss(8, 10, [6, 3]))

torch.manual_seed(3)
img = torch.randn(1, 2, 9, 7, dtype=torch.float64)
for mode in ("bilinear", "bicubic"):
    for aa in (False, True):
        for ac in (False, True):
            grads(
                lambda a: F.interpolate(a, size=(4, 11), mode=mode, align_corners=ac, antialias=aa),
                img,
            )
print(show(F.interpolate(img.float(), scale_factor=1.7, mode="bicubic"), 3))
cl = F.interpolate(
    img.contiguous(memory_format=torch.channels_last), size=(3, 3), mode="bicubic", antialias=True
)
print(cl.is_contiguous(memory_format=torch.channels_last))
u8 = torch.randint(30, 220, (1, 3, 12, 12), dtype=torch.uint8)
for mode in ("bilinear", "bicubic", "nearest"):
    for aa in (False, True) if mode != "nearest" else (False,):
        up = F.interpolate(u8, size=(17, 5), mode=mode, antialias=aa)
        ref = F.interpolate(u8.float(), size=(17, 5), mode=mode, antialias=aa).round().clamp(0, 255)
        # PyTorch's uint8 kernels compute in fixed point: within 1 of the float results
        print(mode, aa, up.dtype, (up.float() - ref).abs().max().item() <= 1)
refused(lambda: F.interpolate(u8.int(), size=(3, 3), mode="bilinear"))

torch.manual_seed(4)
a = torch.randn(4, 5, dtype=torch.float64)
sign = torch.randn(4, 5, dtype=torch.float64).sign()
for red in ("none", "mean", "sum"):
    grads(lambda v: F.soft_margin_loss(v, sign, reduction=red), a, named=False)
    grads(lambda v: F.hinge_embedding_loss(v, sign, margin=0.5, reduction=red), a)
    grads(lambda v: F.multilabel_soft_margin_loss(v, (sign > 0).double(), reduction=red), a)
    grads(lambda v: F.poisson_nll_loss(v, sign.abs() * 3, full=True, reduction=red), a)
    grads(lambda v, s: F.gaussian_nll_loss(v, sign, s.abs() + 0.1, reduction=red), a, a.flip(0))
    grads(
        lambda v: F.multi_margin_loss(
            v,
            torch.tensor([1, 0, 4, 2]),
            p=2,
            margin=0.7,
            weight=torch.rand(5, dtype=torch.float64),
            reduction=red,
        ),
        a,
        named=False,
    )
    lists = torch.tensor([[3, 0, -1, 1, 2], [1, 2, 3, 4, 0], [-1, 0, 0, 0, 0], [4, 4, -1, 0, 0]])
    grads(lambda v: F.multilabel_margin_loss(v, lists, reduction=red), a, named=False)
grads(lambda v: F.pdist(v, 1.5), a, named=False)
grads(lambda v, w: F.pairwise_distance(v, w, 3.0), a, a.flip(1), named=False)
print(
    nn.SoftMarginLoss(),
    nn.MultiMarginLoss(p=2),
    nn.PoissonNLLLoss(),
    nn.GaussianNLLLoss(),
    nn.MultiLabelMarginLoss(),
    nn.PairwiseDistance(),
    nn.CosineSimilarity(),
)
refused(lambda: F.multi_margin_loss(a, torch.tensor([1, 2, 3, 9])))
refused(lambda: F.multi_margin_loss(a, torch.tensor([1, 2])))
refused(lambda: F.multi_margin_loss(a, torch.tensor([1, 2, 3, 0]), p=3))
refused(lambda: F.multilabel_margin_loss(a, torch.tensor([1, 2])))
refused(lambda: F.gaussian_nll_loss(a, a, torch.ones(3)))
refused(lambda: F.gaussian_nll_loss(a, a, -torch.ones(4, 5)))

vol = torch.arange(2 * 3 * 4 * 5, dtype=torch.float64).reshape(1, 2, 3, 4, 5)
for m in (
    nn.ReplicationPad3d((1, 2, 0, 1, 2, 0)),
    nn.ReflectionPad3d(1),
    nn.ConstantPad3d(1, -1.0),
    nn.CircularPad3d(1),
    nn.ReplicationPad2d((1, 2, 0, 1)),
    nn.ReflectionPad2d(2),
    nn.ZeroPad2d((1, 0, 2, 0)),
    nn.CircularPad2d(1),
    nn.ReflectionPad1d((1, 2)),
    nn.ConstantPad1d(2, 3.5),
    nn.ZeroPad1d(1),
    nn.ReplicationPad1d(3),
):
    name = type(m).__name__
    data = vol if "3d" in name else vol[0, 0] if "2d" in name else vol[0, 0, 0]
    print(m, m(data).sum().item(), tuple(m(data).shape))
refused(lambda: nn.CircularPad2d(1)(vol))

long_in = torch.randint(-1000, 1000, (2, 3, 6, 6))
long_w = torch.randint(-1000, 1000, (4, 3, 2, 2))
print(F.conv2d(long_in, long_w, stride=2).sum().item(), F.conv2d(long_in, long_w).dtype)
print(F.conv_transpose2d(long_in, long_w.transpose(0, 1).contiguous(), stride=2).sum().item())

lin = nn.Linear(2, 2)
lin.weight._grad = torch.ones(2, 2)
print(lin.weight.grad.sum().item(), lin.weight._grad is lin.weight.grad)
print(torch.backends.quantized.engine in ("none", "x86"))

# 3-D resampling: nearest, nearest-exact and trilinear, values, gradients and node names
vol3 = torch.randn(2, 2, 3, 4, 5, dtype=torch.float64, requires_grad=True)
for mode, ac in [
    ("nearest", None),
    ("nearest-exact", None),
    ("trilinear", False),
    ("trilinear", True),
    ("area", None),
]:
    for kw in [dict(size=(5, 3, 8)), dict(scale_factor=(2, 0.5, 1.3))]:
        if mode == "area" and "scale_factor" in kw:
            continue
        out3 = F.interpolate(vol3, mode=mode, align_corners=ac, **kw)
        (g3,) = torch.autograd.grad((out3 * out3).sum(), vol3)
        # (ferrograd's 3-D adaptive pool, behind "area", is composed: its node is a view's)
        name = type(out3.grad_fn).__name__ if mode != "area" else "-"
        print(
            mode,
            ac,
            name,
            tuple(out3.shape),
            round(out3.sum().item(), 8),
            round(g3.abs().sum().item(), 8),
        )
cl3 = F.interpolate(
    vol3.detach().contiguous(memory_format=torch.channels_last_3d), scale_factor=2, mode="trilinear"
)
print(cl3.is_contiguous(memory_format=torch.channels_last_3d))

# softmin, gumbel_softmax (PyTorch's draws), the distance triplet loss, weighted l1/mse
torch.manual_seed(5)
logits = torch.randn(3, 4, dtype=torch.float64)
grads(lambda v: F.softmin(v, 1), logits)
grads(lambda v: F.gumbel_softmax(v, tau=0.5), logits)
grads(lambda v: F.gumbel_softmax(v, hard=True), logits)
grads(
    lambda v, w: F.triplet_margin_with_distance_loss(v, w, v.flip(0), swap=True),
    logits,
    logits.flip(1),
)
grads(
    lambda v: F.triplet_margin_with_distance_loss(
        v,
        v.flip(1),
        v.flip(0),
        distance_function=lambda s, t: (s - t).abs().sum(-1),
        margin=0.5,
        reduction="none",
    ),
    logits,
)
weights = torch.tensor([1.0, 2.0, 3.0, 4.0], dtype=torch.float64)
for red in ("none", "mean", "sum"):
    grads(lambda v: F.l1_loss(v, v.detach().flip(0) * 2, weight=weights, reduction=red), logits[0])
    grads(lambda v: F.mse_loss(v, v.detach().flip(0) * 2, weight=weights, reduction=red), logits[0])
refused(lambda: F.l1_loss(logits[0], logits[0], weight=torch.ones(3, dtype=torch.float64)))
print(nn.Softmin(1), nn.TripletMarginWithDistanceLoss(margin=0.3), nn.RNN(2, 3, 1, "relu"))
refused(lambda: nn.Bilinear(0, 0, 0))
refused(lambda: nn.TripletMarginWithDistanceLoss(margin=0))
refused(
    lambda: nn.LSTM(3, 5, 2)(torch.randn(6, 4, 3), (torch.randn(2, 7, 5), torch.randn(2, 4, 5)))
)
refused(lambda: nn.GRU(3, 5, 2)(torch.randn(6, 4, 3), torch.randn(2, 4, 6)))
print(torch.constant_pad_nd(torch.tensor([[1, 2], [3, 4]]), [1, 2, 1, 0], 9))
nhwc = torch.rand((1, 2, 5, 3)).contiguous(memory_format=torch.channels_last)
print(torch.constant_pad_nd(nhwc, [1, 2], 0.5).is_contiguous(memory_format=torch.channels_last))
nhwc18 = torch.randn(3, 18, 4, 4).contiguous(memory_format=torch.channels_last)
shuffled = nn.PixelShuffle(3)(nhwc18)
print(shuffled.is_contiguous(memory_format=torch.channels_last), tuple(shuffled.shape))
# (PyTorch's zero-norm pdist gives zero gradients, ferrograd's none)
print(show(F.pdist(logits, 0)))
# the refusals PyTorch's kernels make: target and input ranks, empty dims
refused(lambda: F.cosine_embedding_loss(logits, logits, torch.ones(3, 1)))
refused(lambda: F.cosine_embedding_loss(logits[0], logits[0], torch.ones(4)))
refused(lambda: F.cosine_embedding_loss(logits, logits, torch.tensor(1.0)))
refused(lambda: nn.ReflectionPad1d(2)(torch.randn(3, 0, 10)))
refused(lambda: nn.ReplicationPad2d(2)(torch.randn(3, 0, 10, 10)))
print(tuple(nn.ReflectionPad2d(2)(torch.randn(0, 3, 10, 10)).shape))
refused(lambda: nn.MultiMarginLoss()(torch.randn(0), torch.ones(0).long()))
refused(lambda: nn.MultiLabelMarginLoss()(torch.randn(10, 0), torch.ones(10, 0).long()))
print(tuple(F.multi_margin_loss(torch.randn(10), torch.tensor([3]), reduction="none").shape))
print(round(F.gaussian_nll_loss(logits, logits.flip(0), 0.5).item(), 6))
state = torch.random.get_rng_state()
first = torch.rand(3)
torch.random.set_rng_state(state)
with torch.random.fork_rng():
    print(torch.equal(first, torch.rand(3)))
print(torch.equal(first, torch.rand(3)))
holder = nn.Module()
holder.attribute_name = 5
refused(lambda: setattr(holder, "attribute_name", nn.Buffer(torch.rand(5))))
refused(lambda: holder.register_buffer("attribute_name", torch.rand(5)))
# affine_grid: 2-D and 3-D grids, both corner conventions, gradients and refusals
for nd, size in [(2, [2, 3, 4, 5]), (3, [2, 3, 4, 5, 2]), (2, [1, 1, 1, 3])]:
    for corners in (False, True):
        theta = torch.rand(size[0], nd, nd + 1, dtype=torch.float64, requires_grad=True)
        grid = F.affine_grid(theta, size, align_corners=corners)
        (grid * grid).sum().backward()
        print(tuple(grid.shape), round(grid.sum().item(), 8), show(theta.grad))
refused(lambda: F.affine_grid(torch.ones(1, 2, 3, dtype=torch.int64), [1, 1, 2, 2], False))
refused(lambda: F.affine_grid(torch.ones(1, 3, 3), [1, 1, 2, 2], False))
refused(lambda: F.affine_grid(torch.ones(1, 2, 3), [1, 1, 2], False))
refused(lambda: F.affine_grid(torch.ones(1, 3, 4), [1, 1, 2, 2, 0], False))
