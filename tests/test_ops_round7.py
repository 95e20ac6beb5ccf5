"""nanmedian, isin and signbit: values, indices and gradients as PyTorch 2.15 gives them on a
CPU (this file also passes under PyTorch)."""

import math

import ferrograd as torch

nan = float("nan")


def _same(got, expected):
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert (math.isnan(g) and math.isnan(e)) or g == e, (got, expected)


def test_nanmedian_along_a_dim_gives_pytorchs_values_and_indices():
    x = torch.tensor([[nan, 3.0, 1.0, 2.0, nan], [nan] * 5, [2.0, 2.0, 1.0, 2.0, nan]])
    values, indices = torch.nanmedian(x, 1)
    _same(values.tolist(), [2.0, nan, 2.0])
    # (an all-NaN lane gives the index std::nth_element leaves there, as PyTorch's kernel)
    assert indices.tolist() == [3, 2, 0]
    kept = torch.nanmedian(torch.tensor([[3, 1, 2]]), dim=1, keepdim=True)
    assert (kept.values.tolist(), kept.indices.tolist()) == ([[2]], [[2]])


def test_nanmedian_of_all_elements():
    x = torch.tensor([[nan, 3.0, 1.0, 2.0, nan], [nan] * 5, [2.0, 2.0, 1.0, 2.0, nan]])
    assert torch.nanmedian(x).item() == 2.0
    assert math.isnan(torch.nanmedian(x[1]).item())
    assert math.isnan(torch.empty(0).nanmedian().item())
    assert torch.tensor([3, 1, 2]).nanmedian().item() == 2


def test_nanmedian_gradients():
    x = torch.tensor([1.0, nan, 3.0, 2.0], requires_grad=True)
    y = x.nanmedian()
    y.backward()
    assert type(y.grad_fn).__name__ == "NanmedianBackward0"
    assert x.grad.tolist() == [0.0, 0.0, 0.0, 1.0]
    x = torch.tensor([[1.0, nan, 3.0, 2.0]], requires_grad=True)
    y = x.nanmedian(1)[0]
    y.sum().backward()
    assert type(y.grad_fn).__name__ == "NanmedianBackward1"
    assert x.grad.tolist() == [[0.0, 0.0, 0.0, 1.0]]
    # ties, and an all-NaN input, share the gradient evenly (PyTorch's
    # test_min_max_median_backprops_to_all_values)
    for values in ([1.0, 0.0, 1.0, 0.0, 1.0, 0.0], [nan, nan, nan]):
        x = torch.tensor(values, requires_grad=True)
        torch.nanmedian(x).backward()
        assert x.grad.sum().item() == 1.0
        assert (x.grad == 1 / 3).sum().item() == 3


def test_isin():
    got = torch.isin(torch.tensor([[1, 2], [3, 4.0]], requires_grad=True), torch.tensor([2, 3]))
    assert got.tolist() == [[False, True], [True, False]]
    assert not got.requires_grad
    assert torch.isin(3, torch.tensor([2, 3])).item() is True
    assert torch.isin(torch.tensor([1, 2]), 2, invert=True).tolist() == [True, False]
    # compared in the promoted dtype; NaN is never in
    assert torch.isin(torch.tensor([1.5, 2.0]), torch.tensor([2])).tolist() == [False, True]
    assert torch.isin(torch.tensor([nan]), torch.tensor([nan])).tolist() == [False]
    try:
        torch.isin(1, 2)
        raise AssertionError("isin of two numbers was not refused")
    except TypeError as e:
        assert "isin() received an invalid combination of arguments" in str(e)


def test_signbit():
    x = torch.tensor([-0.0, 0.0, -1.0, nan, -nan], requires_grad=True)
    got = torch.signbit(x)
    assert got.tolist() == [True, False, True, False, True]
    assert not got.requires_grad
    assert torch.tensor([-1, 0]).signbit().tolist() == [True, False]


def test_matrix_transpose_properties():
    x = torch.arange(24.0).reshape(2, 3, 4).requires_grad_()
    for name in ("mT", "mH"):
        y = getattr(x, name)
        assert y.shape == (2, 4, 3)
        assert type(y.grad_fn).__name__ == "TransposeBackward0"
        assert y[1, 2, 0].item() == x[1, 0, 2].item()
    m = torch.ones(2, 3, requires_grad=True)
    assert m.H.shape == (3, 2)
    assert type(m.H.grad_fn).__name__ == "TransposeBackward0"
    (m.mT * torch.arange(6.0).reshape(3, 2)).sum().backward()
    assert m.grad.tolist() == [[0.0, 2.0, 4.0], [1.0, 3.0, 5.0]]
    for name, message in (
        ("mT", "tensor.mT is only supported on matrices or batches of matrices. Got 1-D tensor."),
        ("mH", "tensor.mH is only supported on matrices or batches of matrices. Got 1-D tensor."),
        ("H", "tensor.H is only supported on matrices (2-D tensors). Got 1-D tensor."),
    ):
        try:
            getattr(torch.ones(3), name)
            raise AssertionError(f"{name} of a 1-D tensor was not refused")
        except RuntimeError as e:
            assert str(e) == message
    try:
        _ = torch.ones(2, 3, 4).H
        raise AssertionError("H of a 3-D tensor was not refused")
    except RuntimeError as e:
        assert "For batches of matrices, consider using tensor.mH" in str(e)


def _rounded(t):
    return [round(v, 4) for v in t.flatten().tolist()]


def _close(t, expected):
    got = t.flatten().tolist()
    assert len(got) == len(expected) and all(abs(g - e) < 2e-5 for g, e in zip(got, expected))


def test_instance_norm_matches_pytorch():
    # PyTorch 2.15's figures for this input and these parameters (rounded to 4 places)
    x = torch.arange(24, dtype=torch.float32).reshape(2, 3, 2, 2).sin().requires_grad_()
    m = torch.nn.InstanceNorm2d(3, affine=True, track_running_stats=True)
    with torch.no_grad():
        m.weight.copy_(torch.tensor([1.0, 2.0, 0.5]))
        m.bias.copy_(torch.tensor([0.0, 0.1, -0.2]))
    y = m(x)
    assert y.grad_fn.name() == "ViewBackward0"
    assert y.grad_fn.next_functions[0][0].name() == "NativeBatchNormBackward0"
    (y * torch.arange(24.0).reshape(2, 3, 2, 2).cos()).sum().backward()
    expected_y = [-1.16434, 0.90715, 1.07413, -0.81694, -1.25477, -1.90325, 0.27686, 3.28117,
                  0.45624, 0.08667, -0.52549, -0.81742, -1.61744, 0.06882, 1.07422, 0.47441,
                  0.91363, -2.22303, -1.24309, 2.9525, 0.28148, 0.22819, -0.36239, -0.94729]
    expected_dx = [2.1553, 1.42196, -0.90048, -2.67677, -2.39135, 0.99107, 1.90016, -0.49988,
                   0.24582, -0.26479, -0.25247, 0.27144, -0.09029, 1.14817, 0.46137, -1.51925,
                   -5.36944, -0.55339, 3.29185, 2.63098, 0.40136, -0.24682, -0.34715, 0.1926]
    _close(y, expected_y)
    _close(x.grad, expected_dx)
    assert _rounded(m.weight.grad) == [-1.8284, 2.3394, 0.8724]
    assert _rounded(m.bias.grad) == [1.2625, 1.7603, -3.5637]
    assert _rounded(m.running_mean) == [0.0427, -0.0399, 0.0094]
    assert _rounded(m.running_var) == [0.9325, 0.9382, 0.9748]
    m.eval()
    assert _rounded(m(x))[:6] == [-0.0442, 0.8272, 0.8974, 0.1019, -1.3804, -1.7977]
    n = torch.nn.InstanceNorm1d(3)
    assert _rounded(n(x.detach().reshape(2, 3, 4)[0]))[:4] == [-1.1643, 0.9072, 1.0741, -0.8169]
    assert repr(n) == (
        "InstanceNorm1d(3, eps=1e-05, momentum=0.1, affine=False, bias=False, "
        "track_running_stats=False)"
    )


def test_instance_norm_refusals():
    for module, x, message in (
        (torch.nn.InstanceNorm2d(3), torch.ones(3, 4), "expected 3D or 4D input (got 2D input)"),
        (
            torch.nn.InstanceNorm2d(3),
            torch.ones(2, 3, 1, 1),
            "Expected more than 1 spatial element when training, got input size",
        ),
        (
            torch.nn.InstanceNorm1d(4, affine=True),
            torch.ones(2, 3, 5),
            "expected input's size at dim=1 to match num_features (4), but got: 3.",
        ),
    ):
        try:
            module(x)
            raise AssertionError(f"{message} was not raised")
        except ValueError as e:
            assert message in str(e)


def test_threshold_out_of_place_and_in_place():
    x = torch.tensor([-1.0, 0.5, 2.0, nan], requires_grad=True)
    y = torch.nn.functional.threshold(x * 1, 0.7, -3.0)
    _same(y.tolist(), [-3.0, -3.0, 2.0, nan])
    assert y.grad_fn.name() == "ThresholdBackward0"
    z = x * 1
    out = torch.nn.functional.threshold(z, 0.7, -3.0, True)
    assert out is z and z.grad_fn.name() == "ThresholdBackward1"
    _same(z.tolist(), [-3.0, -3.0, 2.0, nan])
    for t in (y, z):
        (g,) = torch.autograd.grad(t.sum(), x, create_graph=True)
        # the gradient passes where x > threshold, and at NaN (PyTorch's x <= threshold ? 0 : g)
        assert g.tolist() == [0.0, 0.0, 1.0, 1.0]
    (g,) = torch.autograd.grad(y.sum() * 2, x, create_graph=True)
    assert [n.name() for n, _ in g.grad_fn.next_functions if n is not None] == [
        "ThresholdBackwardBackward0"
    ]
    assert torch.nn.functional.threshold(torch.tensor([1, 2, 3]), 2, 0).tolist() == [0, 0, 3]
    assert repr(torch.nn.Threshold(0.1, 20)) == "Threshold(threshold=0.1, value=20)"
    m = torch.nn.Threshold(0.1, 20, inplace=True)
    assert repr(m) == "Threshold(threshold=0.1, value=20, inplace=True)"
    assert m(torch.tensor([0.0, 1.0])).tolist() == [20.0, 1.0]
