"""``conv_transpose3d``/``ConvTranspose3d``, ``conv_tbc``, ``nn.grad`` and
``backends.mkldnn.flags``, against PyTorch 2.15's values (recorded by running the same lines
with ``import torch``): shapes, sums of outputs and of gradients, refusals, layouts."""

import ferrograd as torch
import pytest

F = torch.nn.functional


def test_conv_transpose3d_values_and_gradients():
    torch.manual_seed(0)
    x = torch.randn(2, 4, 3, 4, 5, dtype=torch.float64, requires_grad=True)
    w = torch.randn(4, 3, 2, 3, 2, dtype=torch.float64, requires_grad=True)
    b = torch.randn(12, dtype=torch.float64, requires_grad=True)
    w2 = torch.randn(4, 3, 2, 3, 2, dtype=torch.float64)
    y = F.conv_transpose3d(
        x, torch.cat([w, w2], 1), b, stride=(2, 1, 2), padding=(1, 0, 1),
        output_padding=(1, 0, 0), groups=2, dilation=(1, 2, 1),
    )  # fmt: skip
    assert tuple(y.shape) == (2, 12, 5, 8, 8) and y.is_contiguous()
    assert round(y.sum().item(), 8) == 2576.66465596
    assert round((y**2).sum().item(), 6) == round(26845.81216507, 6)
    (y**2).sum().backward()
    assert round(x.grad.sum().item(), 6) == -1911.984263
    assert round(w.grad.sum().item(), 6) == -1996.563051
    assert round(b.grad.sum().item(), 6) == 5153.329312
    m = torch.nn.ConvTranspose3d(2, 3, 3, stride=2)
    assert repr(m) == "ConvTranspose3d(2, 3, kernel_size=(3, 3, 3), stride=(2, 2, 2))"
    assert tuple(m(torch.randn(1, 2, 3, 3, 3), output_size=(8, 7, 8)).shape) == (1, 3, 8, 7, 8)


def test_conv_transpose3d_refusals():
    with pytest.raises(RuntimeError, match=r"expected input\[1, 3, 2, 2, 2\] to have 4 channels"):
        F.conv_transpose3d(torch.randn(1, 3, 2, 2, 2), torch.randn(4, 2, 1, 1, 1))
    with pytest.raises(RuntimeError, match="expected bias to be 1-dimensional with 2 elements"):
        F.conv_transpose3d(torch.randn(1, 4, 2, 2, 2), torch.randn(4, 2, 1, 1, 1), torch.zeros(3))


def test_conv_tbc_and_nn_grad():
    torch.manual_seed(0)
    x = torch.randn(5, 2, 3, dtype=torch.float64, requires_grad=True)
    w = torch.randn(3, 3, 4, dtype=torch.float64, requires_grad=True)
    b = torch.randn(4, dtype=torch.float64, requires_grad=True)
    y = torch.conv_tbc(x, w, b, 1)
    assert tuple(y.shape) == (5, 2, 4) and y.is_contiguous()
    assert round(y.sum().item(), 8) == 8.72534078
    y.pow(2).sum().backward()
    sums = [round(t.grad.sum().item(), 6) for t in (x, w, b)]
    assert sums == [-171.927468, -150.557295, 17.450682]
    expected = {
        1: (4.08368569, 27.60805006),
        2: (-6.16056451, 22.44682303),
        3: (58.57933709, 72.17796319),
    }
    for dims in (1, 2, 3):
        xi = torch.randn(*((2, 4) + (5,) * dims), dtype=torch.float64)
        wi = torch.randn(*((6, 2) + (3,) * dims), dtype=torch.float64)
        conv = getattr(F, f"conv{dims}d")
        out = conv(xi, wi, None, 2, 1, 1, 2)
        assert out.is_contiguous()
        go = torch.randn_like(out)
        gi = getattr(torch.nn.grad, f"conv{dims}d_input")(xi.shape, wi, go, 2, 1, 1, 2)
        gw = getattr(F.grad, f"conv{dims}d_weight")(xi, wi.shape, go, 2, 1, 1, 2)
        assert gi.shape == xi.shape and gw.shape == wi.shape
        assert (round(gi.sum().item(), 6), round(gw.sum().item(), 6)) == tuple(
            round(v, 6) for v in expected[dims]
        )


def test_mkldnn_flags_restore():
    assert torch.backends.mkldnn.enabled and not torch.backends.mkldnn.is_available()
    with torch.backends.mkldnn.flags(enabled=False):
        assert torch.backends.mkldnn.enabled is False
    assert torch.backends.mkldnn.enabled is True
