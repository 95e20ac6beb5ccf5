"""Names PyTorch's own autograd tests touch, each doing what PyTorch's does (values as PyTorch
2.15 prints them; the file also passes with ``torch`` in place of ``ferrograd``)."""

import ferrograd as torch
import pytest
from ferrograd.autograd import Function
from ferrograd.autograd.function import once_differentiable


def test_named_comparisons_are_the_operators():
    x = torch.tensor([1.0, 2.0, 3.0])
    y = torch.tensor([2.0, 2.0, 2.0])
    assert x.lt(y).tolist() == [True, False, False]
    assert x.le(2).tolist() == [True, True, False]
    assert torch.gt(x, y).tolist() == [False, False, True]
    assert torch.ge(x, 2.0).tolist() == [False, True, True]
    assert x.eq(y).tolist() == [False, True, False]
    assert torch.ne(x, y).tolist() == [True, False, True]
    with pytest.raises(TypeError):
        x.gt("a")


def test_layouts_and_devices_of_a_cpu_build():
    assert repr(torch.strided) == "torch.strided" and repr(torch.sparse_coo) == "torch.sparse_coo"
    assert torch.sparse_csr != torch.strided
    assert torch.profiler.itt.is_available() in (False, True)
    assert torch.accelerator.is_available() is False
    assert torch.backends.mkldnn.is_available() in (False, True)


def test_view_replay_setting_is_scoped():
    assert torch.autograd.is_view_replay_enabled() is False
    with torch.autograd._force_original_view_tracking(True):
        assert torch.autograd.is_view_replay_enabled() is True
    assert torch.autograd.is_view_replay_enabled() is False
    torch.autograd._force_original_view_tracking(True)
    assert torch.autograd.is_view_replay_enabled() is True
    torch.autograd._force_original_view_tracking(False)
    assert torch.autograd.is_view_replay_enabled() is False


class _Square(Function):
    @staticmethod
    def forward(x):
        return x * x

    @staticmethod
    def setup_context(ctx, inputs, output):
        (x,) = inputs
        ctx.save_for_backward(x, None)

    @staticmethod
    def backward(ctx, g):
        x, nothing = ctx.saved_tensors
        assert nothing is None
        return g * 2 * x


def test_function_setup_context_style_and_saved_none():
    x = torch.tensor([1.0, 3.0], requires_grad=True)
    _Square.apply(x).sum().backward()
    assert x.grad.tolist() == [2.0, 6.0]


class _NonTensors(Function):
    @staticmethod
    def forward(ctx, x, scale):
        ctx.scale = scale
        return scale, x * scale, "tag"

    @staticmethod
    def backward(ctx, g_scale, g_out, g_tag):
        assert g_scale is None and g_tag is None
        return g_out * ctx.scale, None, None  # a trailing extra None is accepted


def test_function_non_tensor_outputs():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    scale, out, tag = _NonTensors.apply(x, 3)
    assert (scale, tag) == (3, "tag") and out.tolist() == [3.0, 6.0]
    out.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]


class _NoMaterialize(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        return x.clone(), x.clone()

    @staticmethod
    def backward(ctx, g0, g1):
        assert g1 is None
        return g0


def test_function_grads_not_materialized():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    a, _ = _NoMaterialize.apply(x)
    a.sum().backward()
    assert x.grad.tolist() == [1.0, 1.0]


class _Once(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    @once_differentiable
    def backward(ctx, g):
        assert not torch.is_grad_enabled()
        (x,) = ctx.saved_tensors
        return g * 2 * x


def test_once_differentiable_refuses_double_backward():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    # a plain output gradient: backward's results need no graph
    (g,) = torch.autograd.grad(_Once.apply(x).sum(), x, create_graph=True)
    assert g.tolist() == [2.0, 4.0] and not g.requires_grad
    # an output gradient that requires grad: the results lead to an Error node
    go = torch.ones((), requires_grad=True)
    (g,) = torch.autograd.grad(_Once.apply(x).sum(), x, go, create_graph=True)
    assert g.tolist() == [2.0, 4.0] and g.requires_grad
    assert type(g.grad_fn).__name__ == "Error"
    with pytest.raises(RuntimeError, match="marked with @once_differentiable"):
        g.sum().backward()


def test_legacy_function_call_is_refused():
    class Legacy(Function):
        def forward(self, x):
            return x

    with pytest.raises(RuntimeError, match="Legacy autograd function with non-static forward"):
        Legacy()(torch.ones(2))


class _NanBackward(Function):
    @staticmethod
    def forward(ctx, x):
        return x.clone()

    @staticmethod
    def backward(ctx, g):
        return g * float("nan")


def test_detect_anomaly_nan_check_and_forward_trace():
    import warnings

    x = torch.ones(3, requires_grad=True)
    _NanBackward.apply(x).sum().backward()  # outside anomaly mode: no check
    assert not torch.is_anomaly_enabled()
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with torch.autograd.detect_anomaly():
            assert torch.is_anomaly_enabled() and torch.is_anomaly_check_nan_enabled()
            out = _NanBackward.apply(x).sum()
            with pytest.raises(
                RuntimeError, match="Function '_NanBackwardBackward' returned nan values in its 0th"
            ):
                out.backward()
    messages = [str(m.message) for m in w]
    assert "Anomaly Detection has been enabled" in messages[0]
    # the failing node is reported with the forward call that made it
    assert "Error detected in _NanBackwardBackward" in messages[1]
    assert "_NanBackward.apply(x)" in messages[1]
    assert not torch.is_anomaly_enabled()
    with torch.autograd.set_detect_anomaly(True, check_nan=False):
        assert torch.is_anomaly_enabled() and not torch.is_anomaly_check_nan_enabled()
        _NanBackward.apply(x).sum().backward()  # no NaN check


def test_empty_takes_a_memory_format():
    t = torch.empty(2, 3, 3, 6, memory_format=torch.channels_last)
    assert t.shape == (2, 3, 3, 6) and t.stride() == (54, 1, 18, 3)
    assert t.is_contiguous(memory_format=torch.channels_last)
    assert torch.empty(2, 3, pin_memory=False).stride() == (3, 1)
    with pytest.raises(RuntimeError, match="unsupported memory format Preserve"):
        torch.empty(2, 3, memory_format=torch.preserve_format)
    with pytest.raises(RuntimeError, match="required rank 4 tensor to use channels_last format"):
        torch.empty(2, 3, memory_format=torch.channels_last)
    with pytest.raises(TypeError):
        torch.zeros(2, memory_format=torch.contiguous_format)


def test_a_given_dim_sums_by_the_dim_overload():
    # PyTorch 2.15: sum() is sum.default (SumBackward0); any dim given, None or [] included, is
    # sum.dim_IntList (SumBackward1), which sums every element when the list is empty
    x = torch.ones(2, 2, requires_grad=True)
    assert x.sum().grad_fn.name() == "SumBackward0"
    assert x.sum(dtype=torch.float64).grad_fn.name() == "SumBackward0"
    sums = (x.sum(dim=None), x.sum(None), torch.sum(x, dim=None), x.sum(dim=[]), x.sum(axis=None))
    for total in sums:
        assert total.grad_fn.name() == "SumBackward1" and total.shape == ()
    assert x.sum(dim=None, keepdim=True).shape == (1, 1)
    x.sum(dim=None).backward()
    assert x.grad.tolist() == [[1.0, 1.0], [1.0, 1.0]]
