"""The ``__torch_function__`` protocol where ferrograd honours it (Note [Where
__torch_function__ is honoured] in ``overrides.py``): ``torch.overrides``' helpers, the default
``Tensor.__torch_function__``, ``autograd.backward``/``grad`` and a custom Function returning
an input as-is. Every expectation was checked by running this file under PyTorch 2.15
(``import torch``)."""

import ferrograd as torch
import pytest
from ferrograd.overrides import (
    handle_torch_function,
    has_torch_function,
    has_torch_function_unary,
    is_tensor_like,
)


class Plain(torch.Tensor):
    pass


class Logged(torch.Tensor):
    calls: list = []  # noqa: RUF012 (shared on purpose: a log of the class's calls)

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        cls.calls.append((func.__name__, [t.__name__ for t in types]))
        return super().__torch_function__(func, types, args, kwargs)


class Declines:
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return NotImplemented


def test_who_takes_part():
    x = torch.ones(2)
    assert not has_torch_function((x, 1.0, None))
    assert not has_torch_function_unary(torch.nn.Parameter(torch.ones(1)))
    assert has_torch_function_unary(x.as_subclass(Plain))
    assert has_torch_function((x, Declines()))
    assert is_tensor_like(x) and is_tensor_like(Declines()) and not is_tensor_like([x])
    with torch._C.DisableTorchFunctionSubclass():
        assert not has_torch_function_unary(x.as_subclass(Plain))


def test_default_implementation_returns_the_subclass():
    x = torch.tensor([1.0, 2.0]).as_subclass(Plain)
    out = Plain.__torch_function__(torch.add, (Plain,), (x, 1.0))
    assert type(out) is Plain and out.tolist() == [2.0, 3.0]
    pair = Plain.__torch_function__(torch.Tensor.split, (Plain,), (x, 1))
    assert [type(p) for p in pair] == [Plain, Plain]
    assert Plain.__torch_function__(torch.add, (Declines,), (x, 1.0)) is NotImplemented


def test_handle_torch_function_asks_each_class_until_one_answers():
    Logged.calls.clear()
    a = torch.ones(2).as_subclass(Logged)
    out = handle_torch_function(torch.mul, (a,), a, 3.0)
    assert type(out) is Logged and out.tolist() == [3.0, 3.0]
    # the default implementation declines types that are not its superclasses
    with pytest.raises(TypeError, match=r"no implementation found for '\w+\.mul' on types"):
        handle_torch_function(torch.mul, (a, Declines()), a, Declines())
    muls = [call for call in Logged.calls if call[0] == "mul"]
    assert muls == [("mul", ["Logged"]), ("mul", ["Logged", "Declines"])]


def test_backward_and_grad_go_through_the_subclass():
    Logged.calls.clear()
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).as_subclass(Logged)
    torch.autograd.backward(y, torch.ones(2))
    assert x.grad.tolist() == [2.0, 4.0]
    z = (x * 3).as_subclass(Logged)
    # z.sum() is a plain tensor (ferrograd's ops do not dispatch yet; PyTorch's default
    # implementation would make it a Logged): what is compared is the gradient
    (g,) = torch.autograd.grad(z.sum(), x, retain_graph=True)
    (h,) = torch.autograd.grad(z, x, torch.ones(2))
    assert g.tolist() == h.tolist() == [3.0, 3.0]
    assert [name for name, _ in Logged.calls if name in ("backward", "grad")][:1] == ["backward"]
    assert [name for name, _ in Logged.calls].count("grad") >= 1


def test_a_custom_function_returning_its_input_keeps_the_subclass():
    class Identity(torch.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            return t

        @staticmethod
        def backward(ctx, g):
            return g

    Logged.calls.clear()
    x = torch.ones(2, requires_grad=True).as_subclass(Logged)
    y = Identity.apply(x)
    assert Logged.calls == [("view_as", ["Logged"])]
    assert type(y) is Logged and y is not x and y.grad_fn.name() == "IdentityBackward"


def test_dispatching_subclasses_and_parameters_leave_the_protocol():
    class Dispatching(torch.Tensor):
        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            return NotImplemented

    disabled = torch._C._disabled_torch_function_impl
    assert Dispatching.__torch_function__ is disabled
    assert torch.nn.Parameter.__torch_function__ is disabled
    assert Logged.__torch_function__.__func__ is not disabled
