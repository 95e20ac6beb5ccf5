"""float32 convolutions at unit stride read their im2col rows in place (a table of where each
kernel tap's run starts in the padded image) and compute the input gradient as a convolution
with the flipped weight (Note [Unit-stride up as a convolution] in ``src/cpu/conv/products.rs``).
Checked here against a direct float64 sum in NumPy: outputs, input and weight gradients for
paddings below, at and above ``dilation·(kernel - 1)``, dilation, groups, one spatial dim,
and an image holding an infinity (whose wrapped-around copy in the grid's junk columns must
not reach taps that never touch it)."""

import ferrograd as torch
import numpy as np
import pytest

F = torch.nn.functional


def reference(x, w, bias, padding, dilation, groups, dy):
    """Output, input gradient and weight gradient of a unit-stride conv2d, summed directly."""
    n, cin, h, wd = x.shape
    cout, cg, kh, kw = w.shape
    (ph, pw), (dh, dw) = padding, dilation
    xp = np.zeros((n, cin, h + 2 * ph, wd + 2 * pw))
    xp[:, :, ph : ph + h, pw : pw + wd] = x
    oh, ow = h + 2 * ph - dh * (kh - 1), wd + 2 * pw - dw * (kw - 1)
    y = np.zeros((n, cout, oh, ow)) + (0.0 if bias is None else bias[None, :, None, None])
    dxp = np.zeros_like(xp)
    dwt = np.zeros_like(w)
    per_out = cout // groups
    with np.errstate(invalid="ignore"):
        for o in range(cout):
            grp = o // per_out
            for c in range(cg):
                ci = grp * cg + c
                for i in range(kh):
                    for j in range(kw):
                        patch = xp[:, ci, i * dh : i * dh + oh, j * dw : j * dw + ow]
                        y[:, o] += w[o, c, i, j] * patch
                        dxp[:, ci, i * dh : i * dh + oh, j * dw : j * dw + ow] += (
                            w[o, c, i, j] * dy[:, o]
                        )
                        dwt[o, c, i, j] = (patch * dy[:, o]).sum()
    return y, dxp[:, :, ph : ph + h, pw : pw + wd], dwt


CASES = [
    # (N, C_in, H, W, C_out, kernel, padding, dilation, groups)
    (2, 3, 7, 9, 4, (3, 3), (1, 1), (1, 1), 1),
    (2, 4, 6, 5, 6, (3, 3), (0, 0), (1, 1), 2),
    (1, 5, 8, 8, 16, (3, 2), (2, 1), (1, 1), 1),
    (3, 2, 9, 7, 3, (3, 3), (2, 2), (2, 1), 1),
    (2, 16, 10, 10, 16, (3, 3), (1, 1), (1, 1), 1),
    (1, 6, 7, 8, 4, (3, 3), (3, 2), (1, 1), 2),
    (2, 3, 1, 12, 5, (1, 5), (0, 2), (1, 2), 1),
]


@pytest.mark.parametrize("case", CASES)
def test_unit_stride_conv_matches_a_direct_sum(case):
    n, cin, h, wd, cout, k, padding, dilation, groups = case
    rng = np.random.default_rng(7)
    x = rng.standard_normal((n, cin, h, wd)).astype(np.float32)
    w = rng.standard_normal((cout, cin // groups, *k)).astype(np.float32)
    b = rng.standard_normal(cout).astype(np.float32)
    xt = torch.tensor(x, requires_grad=True)
    wt = torch.tensor(w, requires_grad=True)
    y = F.conv2d(xt, wt, torch.tensor(b), padding=padding, dilation=dilation, groups=groups)
    dy = rng.standard_normal(tuple(y.shape)).astype(np.float32)
    y.backward(torch.tensor(dy))
    want_y, want_dx, want_dw = reference(
        x.astype(np.float64), w.astype(np.float64), b.astype(np.float64), padding, dilation,
        groups, dy.astype(np.float64),
    )  # fmt: skip
    np.testing.assert_allclose(y.detach().numpy(), want_y, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(xt.grad.numpy(), want_dx, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(wt.grad.numpy(), want_dw, rtol=1e-4, atol=1e-4)


def test_conv1d_and_transposed_unit_stride_match_a_direct_sum():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 4, 11)).astype(np.float32)
    w = rng.standard_normal((6, 4, 3)).astype(np.float32)
    y = F.conv1d(torch.tensor(x), torch.tensor(w), padding=1)
    want, _, _ = reference(x[:, :, None].astype(np.float64), w[:, :, None].astype(np.float64),
                           None, (0, 1), (1, 1), 1, np.zeros((2, 6, 1, 11)))  # fmt: skip
    np.testing.assert_allclose(y.numpy(), want[:, :, 0], rtol=1e-4, atol=1e-4)
    # a transposed convolution at unit stride is the input gradient of a convolution
    s = rng.standard_normal((2, 6, 11)).astype(np.float32)
    t = F.conv_transpose1d(torch.tensor(s), torch.tensor(w), padding=1)
    _, dx, _ = reference(x[:, :, None].astype(np.float64), w[:, :, None].astype(np.float64),
                         None, (0, 1), (1, 1), 1, s[:, :, None].astype(np.float64))  # fmt: skip
    np.testing.assert_allclose(t.numpy(), dx[:, :, 0], rtol=1e-4, atol=1e-4)


def test_an_infinite_pixel_reaches_only_the_taps_that_read_it():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((1, 2, 5, 6)).astype(np.float32)
    x[0, 0, 2, 0] = np.inf  # column 0: tap column 2 never reads it, the junk columns do
    w = rng.standard_normal((3, 2, 3, 3)).astype(np.float32)
    xt = torch.tensor(x, requires_grad=True)
    wt = torch.tensor(w, requires_grad=True)
    y = F.conv2d(xt, wt, padding=1)
    y.sum().backward()
    _, _, want_dw = reference(x.astype(np.float64), w.astype(np.float64), None, (1, 1), (1, 1),
                              1, np.ones((1, 3, 5, 6)))  # fmt: skip
    got = wt.grad.numpy()
    assert np.isfinite(got[:, :, :, 2]).all()
    assert (np.isinf(got) == np.isinf(want_dw)).all() and np.isinf(got).any()
    finite = np.isfinite(want_dw)
    np.testing.assert_allclose(got[finite], want_dw[finite], rtol=1e-4, atol=1e-4)
