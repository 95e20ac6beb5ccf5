"""``gradcheck`` and ``gradgradcheck`` in float64 of convolution, pooling and sliding blocks
(finite differences against the recorded backward, and against the backward of the backward),
plus checks that need no recorded answers: ``conv_transpose2d`` is the adjoint of ``conv2d``,
batched and image-by-image results agree, large batches (the parallel path) match small ones,
and gradients are bitwise the same whatever the thread count."""

import ferrograd as torch
import numpy as np
import pytest

F = torch.nn.functional


def _rand(rng, *shape):
    return torch.tensor(rng.uniform(-1.0, 1.0, size=shape), requires_grad=True)


def _distinct(rng, *shape):
    """Values far apart (max pooling has no kink within finite-difference reach)."""
    n = int(np.prod(shape))
    return torch.tensor((rng.permutation(n) * 0.1 - n * 0.05).reshape(shape), requires_grad=True)


# (id, function, input shapes, whether the inputs must be distinct)
CASES = [
    ("conv2d", lambda x, w, b: F.conv2d(x, w, b), [(2, 3, 5, 4), (4, 3, 3, 2), (4,)], False),
    ("conv2d_stride_pad_dil", lambda x, w, b: F.conv2d(x, w, b, stride=(2, 1), padding=(1, 2),
                                                       dilation=(1, 2)),
     [(2, 3, 6, 5), (2, 3, 2, 3), (2,)], False),
    ("conv2d_groups", lambda x, w: F.conv2d(x, w, groups=2, padding=1),
     [(1, 4, 4, 4), (6, 2, 3, 3)], False),
    ("conv2d_1x1", lambda x, w, b: F.conv2d(x, w, b), [(2, 3, 3, 3), (2, 3, 1, 1), (2,)], False),
    ("conv2d_same_even", lambda x, w: F.conv2d(x, w, padding="same"),
     [(1, 2, 4, 5), (2, 2, 2, 2)], False),
    ("conv2d_unbatched", lambda x, w: F.conv2d(x, w, padding=1), [(2, 4, 3), (3, 2, 3, 3)],
     False),
    ("conv1d", lambda x, w, b: F.conv1d(x, w, b, stride=2, padding=1),
     [(2, 3, 7), (4, 3, 3), (4,)], False),
    ("conv1d_dilated_groups", lambda x, w: F.conv1d(x, w, dilation=2, groups=3),
     [(2, 3, 8), (6, 1, 3)], False),
    ("conv_transpose2d", lambda x, w, b: F.conv_transpose2d(x, w, b, stride=2, padding=1,
                                                            output_padding=1),
     [(2, 3, 3, 4), (3, 2, 3, 3), (2,)], False),
    ("conv_transpose2d_groups_dil", lambda x, w: F.conv_transpose2d(x, w, groups=2, dilation=2),
     [(1, 4, 3, 3), (4, 1, 2, 3)], False),
    ("conv_transpose1d", lambda x, w, b: F.conv_transpose1d(x, w, b, stride=3),
     [(2, 2, 4), (2, 3, 2), (3,)], False),
    ("max_pool2d", lambda x: F.max_pool2d(x, 3, stride=2, padding=1), [(2, 2, 5, 6)], True),
    ("max_pool2d_dilated_ceil", lambda x: F.max_pool2d(x, 2, dilation=2, ceil_mode=True),
     [(1, 2, 6, 7)], True),
    ("max_pool1d", lambda x: F.max_pool1d(x, 3, stride=2), [(2, 3, 8)], True),
    ("avg_pool2d", lambda x: F.avg_pool2d(x, 3, stride=2, padding=1, ceil_mode=True),
     [(2, 2, 5, 6)], False),
    ("avg_pool2d_exclude_pad", lambda x: F.avg_pool2d(x, 2, padding=1, count_include_pad=False),
     [(1, 2, 5, 4)], False),
    ("avg_pool1d", lambda x: F.avg_pool1d(x, 2), [(2, 3, 7)], False),
    ("adaptive_avg_pool2d", lambda x: F.adaptive_avg_pool2d(x, (3, 2)), [(2, 2, 7, 5)], False),
    ("adaptive_avg_pool1d", lambda x: F.adaptive_avg_pool1d(x, 3), [(2, 2, 7)], False),
    ("adaptive_max_pool2d", lambda x: F.adaptive_max_pool2d(x, (2, 3)), [(2, 2, 5, 7)], True),
    ("unfold", lambda x: F.unfold(x, (2, 3), dilation=(1, 2), padding=1, stride=2),
     [(2, 2, 5, 6)], False),
    ("fold", lambda x: F.fold(x, (4, 5), 2, stride=1), [(2, 8, 12)], False),
    ("interpolate_nearest", lambda x: F.interpolate(x, scale_factor=(1.5, 0.7)),
     [(2, 2, 4, 5)], False),
    ("interpolate_nearest_exact", lambda x: F.interpolate(x, size=7, mode="nearest-exact"),
     [(1, 2, 4)], False),
    ("interpolate_linear", lambda x: F.interpolate(x, size=9, mode="linear"), [(2, 2, 5)],
     False),
    ("interpolate_bilinear", lambda x: F.interpolate(x, size=(5, 3), mode="bilinear"),
     [(2, 2, 4, 5)], False),
    ("interpolate_bilinear_align", lambda x: F.interpolate(x, scale_factor=1.7, mode="bilinear",
                                                           align_corners=True),
     [(1, 2, 3, 4)], False),
]


@pytest.mark.filterwarnings("ignore:Using padding='same'")
@pytest.mark.parametrize("case", CASES, ids=lambda c: c[0])
def test_gradcheck_and_gradgradcheck(case):
    _, fn, shapes, distinct = case
    rng = np.random.default_rng(0)
    inputs = [(_distinct if distinct else _rand)(rng, *s) for s in shapes]
    assert torch.autograd.gradcheck(fn, inputs)
    assert torch.autograd.gradgradcheck(fn, inputs)


def test_conv_transpose_is_the_adjoint_of_conv():
    """<conv2d(x, w), y> == <x, conv_transpose2d(y, w)> for every stride/padding/dilation."""
    rng = np.random.default_rng(1)
    x = torch.tensor(rng.standard_normal((2, 4, 9, 8)))
    w = torch.tensor(rng.standard_normal((6, 2, 3, 2)))
    for stride, padding, dilation in [(1, 0, 1), (2, 1, 1), ((2, 3), (1, 2), (2, 1))]:
        y = F.conv2d(x, w, stride=stride, padding=padding, dilation=dilation, groups=2)
        v = torch.tensor(rng.standard_normal(tuple(y.shape)))
        back = F.conv_transpose2d(v, w, stride=stride, padding=padding, dilation=dilation,
                                  groups=2, output_padding=_output_padding(x, v, w, stride,
                                                                           padding, dilation))
        assert np.isclose(float((y * v).sum()), float((x * back).sum()), rtol=1e-10)


def _output_padding(x, y, w, stride, padding, dilation):
    pair = lambda v: v if isinstance(v, tuple) else (v, v)  # noqa: E731
    s, p, d = pair(stride), pair(padding), pair(dilation)
    return tuple(
        x.shape[2 + i] - ((y.shape[2 + i] - 1) * s[i] - 2 * p[i] + d[i] * (w.shape[2 + i] - 1)
                          + 1)
        for i in range(2)
    )


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_a_large_batch_matches_image_by_image(dtype):
    """The parallel path over many images gives each image's own result."""
    rng = np.random.default_rng(2)
    d = getattr(torch, dtype)
    x = torch.tensor(rng.standard_normal((37, 8, 12, 11)), dtype=d, requires_grad=True)
    w = torch.tensor(rng.standard_normal((16, 8, 3, 3)), dtype=d, requires_grad=True)
    b = torch.tensor(rng.standard_normal(16), dtype=d, requires_grad=True)
    g = torch.tensor(rng.standard_normal((37, 16, 12, 11)), dtype=d)
    y = F.conv2d(x, w, b, padding=1)
    gx, gw, gb = torch.autograd.grad(y, [x, w, b], g)
    tol = 1e-4 if dtype == "float32" else 1e-10
    gw_sum = None
    for n in (0, 5, 36):
        yn = F.conv2d(x[n:n + 1], w, b, padding=1)
        assert np.allclose(yn.detach().numpy(), y[n:n + 1].detach().numpy(), rtol=tol, atol=tol)
    for n in range(37):
        xn = x[n:n + 1].detach().requires_grad_()
        gxn, gwn = torch.autograd.grad(F.conv2d(xn, w, b, padding=1), [xn, w], g[n:n + 1])
        assert np.allclose(gxn.numpy(), gx[n:n + 1].numpy(), rtol=tol, atol=tol)
        gw_sum = gwn if gw_sum is None else gw_sum + gwn
    assert np.allclose(gw_sum.numpy(), gw.numpy(), rtol=tol, atol=tol * 10)
    assert np.allclose(gb.numpy(), g.sum((0, 2, 3)).numpy(), rtol=tol, atol=tol * 10)


def test_gradients_do_not_depend_on_the_thread_count():
    """Images are summed into the weight gradient in fixed chunks: the same bits with 1 or 2
    threads (ferrograd's own guarantee; PyTorch's sums change with the thread count)."""
    rng = np.random.default_rng(3)
    x = torch.tensor(rng.standard_normal((32, 16, 14, 14)), dtype=torch.float32,
                     requires_grad=True)
    w = torch.tensor(rng.standard_normal((32, 16, 3, 3)), dtype=torch.float32,
                     requires_grad=True)
    g = torch.tensor(rng.standard_normal((32, 32, 7, 7)), dtype=torch.float32)
    results = []
    before = torch.get_num_threads()
    try:
        for threads in (1, 2):
            torch.set_num_threads(threads)
            y = F.max_pool2d(F.relu(F.conv2d(x, w, padding=1)), 2)
            results.append([t.numpy() for t in torch.autograd.grad(y, [x, w], g)])
    finally:
        torch.set_num_threads(before)
    for a, b in zip(results[0], results[1], strict=True):
        assert np.array_equal(a, b)
