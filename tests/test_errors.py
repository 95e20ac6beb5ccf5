"""Error behaviour of ferrograd: exception type, PyTorch's key phrase, and no side effects.

Every failing call must leave the tensors involved as they were (values, ``_version``, ``.grad``)
and, where PyTorch checks before running the engine, leave the graph usable.
"""

import ferrograd as torch
import pytest

IMPLICIT_GRAD = "grad can be implicitly created only for scalar outputs"
INPUT_NO_GRAD = "One of the differentiated Tensors does not require grad"
LEAF_INPLACE = r"a leaf Variable that requires grad is being used in an in-place operation\."
NON_LEAF_FLAG = "you can only change requires_grad flags of leaf variables"
MM_MISMATCH = r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x5\)"
INT_REQUIRES_GRAD = "only Tensors of floating point dtype can require gradients"


@pytest.fixture(autouse=True)
def _grad_mode_on():
    """Every test starts and ends with grad mode on."""
    torch.set_grad_enabled(True)
    yield
    torch.set_grad_enabled(True)


def values(t):
    """The tensor's values as a flat list of Python floats."""
    return t.detach().flatten().tolist()


# --------------------------------------------------------------------------------------------
# backward() / autograd.grad() argument errors
# --------------------------------------------------------------------------------------------


def test_backward_non_scalar_needs_gradient():
    """backward() on a non-scalar without gradient raises; the graph is still usable afterwards."""
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * x
    with pytest.raises(RuntimeError, match=IMPLICIT_GRAD):
        y.backward()
    assert x.grad is None
    assert values(x) == [1.0, 2.0, 3.0]
    assert x._version == 0
    y.backward(torch.ones(3))
    assert values(x.grad) == [2.0, 4.0, 6.0]


def test_backward_gradient_shape_mismatch():
    """backward(gradient) with a gradient of the wrong shape raises and changes nothing."""
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * x
    with pytest.raises(RuntimeError, match=r"Mismatch in shape: grad_output\[0\] has a shape of"):
        y.backward(torch.ones(2))
    assert x.grad is None
    y.backward(torch.ones(3))
    assert values(x.grad) == [2.0, 4.0, 6.0]


def test_backward_on_tensor_without_grad_fn():
    """backward() on a tensor that does not require grad raises."""
    x = torch.ones(3)
    with pytest.raises(
        RuntimeError, match="element 0 of tensors does not require grad and does not have a grad_fn"
    ):
        x.sum().backward()
    assert x.grad is None


def test_grad_input_not_requiring_grad():
    """autograd.grad w.r.t. a tensor that does not require grad raises, naming the input."""
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    z = torch.tensor([3.0, 4.0])
    y = (x * x).sum()
    with pytest.raises(RuntimeError, match=INPUT_NO_GRAD) as info:
        torch.autograd.grad(y, (x, z))
    assert "input 1" in str(info.value)
    assert x.grad is None
    assert z.grad is None
    assert values(x) == [1.0, 2.0]
    assert values(z) == [3.0, 4.0]
    (g,) = torch.autograd.grad(y, x)
    assert values(g) == [2.0, 4.0]


def test_grad_unused_input():
    """autograd.grad w.r.t. an unused input raises (naming its position) unless allow_unused."""
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    unused = torch.tensor([5.0, 6.0, 7.0], requires_grad=True)
    y = (x * x).sum()
    with pytest.raises(RuntimeError) as info:
        torch.autograd.grad(y, (x, unused))
    message = str(info.value)
    assert (
        message == "The differentiated Tensor at index 1 appears to not have been used in the "
        "graph. Set allow_unused=True if this is the desired behavior."
    )
    assert x.grad is None
    assert unused.grad is None
    assert values(unused) == [5.0, 6.0, 7.0]

    y = (x * x).sum()
    gx, gu = torch.autograd.grad(y, (x, unused), allow_unused=True)
    assert values(gx) == [2.0, 4.0]
    assert gu is None


# --------------------------------------------------------------------------------------------
# In-place operations
# --------------------------------------------------------------------------------------------


def test_inplace_on_leaf_requiring_grad():
    """In-place on a leaf that requires grad raises; value, version and grad are unchanged."""
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    x.sum().backward()
    version = x._version
    for op in (lambda: x.add_(1), lambda: x.mul_(2), lambda: x.zero_()):
        with pytest.raises(RuntimeError, match=LEAF_INPLACE):
            op()
        assert values(x) == [1.0, 2.0, 3.0]
        assert x._version == version
        assert values(x.grad) == [1.0, 1.0, 1.0]
        assert x.requires_grad is True


def test_inplace_operator_on_leaf_requiring_grad():
    """``x += 1`` on a leaf that requires grad raises and leaves x alone."""
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match=LEAF_INPLACE):
        x += 1
    assert values(x) == [1.0, 2.0]
    assert x._version == 0


def test_inplace_on_leaf_under_no_grad_works():
    """Under ``torch.no_grad()`` the same in-place update works and bumps ``_version``."""
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    assert x._version == 0
    with torch.no_grad():
        x.add_(1)
    assert values(x) == [2.0, 3.0, 4.0]
    assert x._version == 1
    with torch.no_grad():
        x -= 0.5
    assert values(x) == [1.5, 2.5, 3.5]
    assert x._version == 2
    assert x.is_leaf
    assert x.requires_grad is True
    assert x.grad_fn is None


def test_requires_grad_change_on_non_leaf():
    """requires_grad can only be switched off on leaves; a non-leaf keeps its graph."""
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    with pytest.raises(RuntimeError, match=NON_LEAF_FLAG):
        y.requires_grad = False
    with pytest.raises(RuntimeError, match=NON_LEAF_FLAG):
        y.requires_grad_(False)
    assert y.requires_grad is True
    assert y.grad_fn is not None
    y.sum().backward()
    assert values(x.grad) == [2.0, 2.0]


# --------------------------------------------------------------------------------------------
# Shape, type, dtype and index errors
# --------------------------------------------------------------------------------------------


def test_broadcast_shape_mismatch():
    """``ones(3) + ones(2)`` raises the broadcasting error; operands are untouched."""
    a = torch.ones(3)
    b = torch.ones(2)
    with pytest.raises(
        RuntimeError, match=r"must match the size of tensor b \(2\) at non-singleton dimension 0"
    ):
        a + b
    assert values(a) == [1.0, 1.0, 1.0]
    assert values(b) == [1.0, 1.0]


def test_broadcast_shape_mismatch_inplace():
    """A failed in-place add with mismatched shapes changes neither values nor version."""
    a = torch.tensor([1.0, 2.0, 3.0])
    with pytest.raises(
        RuntimeError, match=r"must match the size of tensor b \(2\) at non-singleton dimension 0"
    ):
        a.add_(torch.ones(2))
    assert values(a) == [1.0, 2.0, 3.0]
    assert a._version == 0


def test_broadcast_shape_mismatch_with_grad():
    """A failed broadcast between tensors requiring grad records nothing and leaves grads alone."""
    a = torch.ones(3, requires_grad=True)
    b = torch.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"must match the size of tensor b \(2\)"):
        a * b
    assert a.grad is None
    assert b.grad is None
    assert a._version == 0
    assert b._version == 0


def test_mm_shape_mismatch():
    """mm of (2x3) by (4x5) raises PyTorch's message; operands are untouched."""
    m1 = torch.ones(2, 3)
    m2 = torch.ones(4, 5)
    with pytest.raises(RuntimeError, match=MM_MISMATCH):
        m1.mm(m2)
    with pytest.raises(RuntimeError, match=MM_MISMATCH):
        m1 @ m2
    assert m1.shape == (2, 3)
    assert m2.shape == (4, 5)
    assert values(m1) == [1.0] * 6


@pytest.mark.parametrize(
    "call",
    [
        lambda: torch.ones(2) + "a",
        lambda: torch.ones(2) * None,
        lambda: torch.ones(2).add(None),
        lambda: torch.ones(2).pow("a"),
        lambda: torch.ones(2).mm([1, 2]),
        lambda: torch.ones("a"),
    ],
    ids=["add-str", "mul-none", "add-method-none", "pow-str", "mm-list", "ones-str"],
)
def test_wrong_argument_types_raise_type_error(call):
    """Arguments of the wrong Python type raise TypeError."""
    with pytest.raises(TypeError):
        call()


def test_wrong_argument_type_leaves_operand_alone():
    """A failed in-place call with a wrong argument type changes nothing."""
    x = torch.tensor([1.0, 2.0])
    with pytest.raises(TypeError):
        x.add_("a")
    assert values(x) == [1.0, 2.0]
    assert x._version == 0


def test_integer_tensor_requires_grad_in_constructor():
    """``torch.tensor([1, 2], requires_grad=True)`` raises the floating point dtype error."""
    with pytest.raises(RuntimeError, match="Only Tensors of floating point"):
        torch.tensor([1, 2], requires_grad=True)


def test_integer_tensor_requires_grad_method():
    """``requires_grad_()`` on an integer tensor raises and leaves the flag False."""
    x = torch.tensor([1, 2])
    with pytest.raises(RuntimeError, match=INT_REQUIRES_GRAD):
        x.requires_grad_()
    assert x.requires_grad is False
    assert x.tolist() == [1, 2]


def test_index_out_of_range():
    """``ones(3)[5]`` (and ``[-4]``) raise IndexError."""
    x = torch.ones(3)
    with pytest.raises(IndexError, match="index 5 is out of bounds for dimension 0 with size 3"):
        x[5]
    with pytest.raises(IndexError, match="index -4 is out of bounds for dimension 0 with size 3"):
        x[-4]
    assert values(x) == [1.0, 1.0, 1.0]


def test_index_out_of_range_names_original_dimension():
    """``ones(2, 3)[0, 3]`` reports dimension 1 (the dimension indexed), as PyTorch does."""
    x = torch.ones(2, 3)
    with pytest.raises(IndexError, match="index 3 is out of bounds for dimension 1 with size 3"):
        x[0, 3]


# --------------------------------------------------------------------------------------------
# Freed graphs and retain_graph
# --------------------------------------------------------------------------------------------


def test_second_backward_with_saved_tensors_errors():
    """A second backward through freed saved tensors raises and leaves the grad as it was."""
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    s = (x * x).sum()
    s.backward()
    assert values(x.grad) == [2.0, 4.0, 6.0]
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        s.backward()
    assert values(x.grad) == [2.0, 4.0, 6.0]
    assert values(x) == [1.0, 2.0, 3.0]


def test_second_grad_with_saved_tensors_errors():
    """autograd.grad through freed saved tensors raises too."""
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    s = x.exp().sum()
    torch.autograd.grad(s, x)
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        torch.autograd.grad(s, x)
    assert x.grad is None


def test_second_backward_without_saved_tensors_is_allowed():
    """``(x + 1).sum()`` saves no tensor, so it can be backwarded twice; grads accumulate."""
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    s = (x + 1).sum()
    s.backward()
    s.backward()
    assert values(x.grad) == [2.0, 2.0]


def test_retain_graph_second_backward_accumulates():
    """With retain_graph=True a second backward works and the grad doubles."""
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    s = (x * x).sum()
    s.backward(retain_graph=True)
    assert values(x.grad) == [2.0, 4.0, 6.0]
    s.backward(retain_graph=True)
    assert values(x.grad) == [4.0, 8.0, 12.0]
    s.backward()
    assert values(x.grad) == [6.0, 12.0, 18.0]
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        s.backward()
    assert values(x.grad) == [6.0, 12.0, 18.0]


# --------------------------------------------------------------------------------------------
# Grad-mode switches
# --------------------------------------------------------------------------------------------


def test_grad_mode_context_managers():
    """no_grad, enable_grad and set_grad_enabled work as ``with`` blocks and restore the mode."""
    x = torch.ones(2, requires_grad=True)
    assert torch.is_grad_enabled()
    with torch.no_grad():
        assert not torch.is_grad_enabled()
        assert (x * 2).requires_grad is False
        with torch.enable_grad():
            assert torch.is_grad_enabled()
            assert (x * 2).requires_grad is True
        assert not torch.is_grad_enabled()
        with torch.set_grad_enabled(True):
            assert (x * 2).requires_grad is True
        assert not torch.is_grad_enabled()
    assert torch.is_grad_enabled()
    with torch.set_grad_enabled(False):
        assert (x * 2).requires_grad is False
    assert torch.is_grad_enabled()
    assert (x * 2).requires_grad is True


def test_grad_mode_context_restored_after_exception():
    """Leaving a grad-mode block by an exception restores the previous mode."""
    with pytest.raises(ValueError):
        with torch.no_grad():
            raise ValueError("boom")
    assert torch.is_grad_enabled()
    with torch.no_grad():
        with pytest.raises(ValueError):
            with torch.enable_grad():
                raise ValueError("boom")
        assert not torch.is_grad_enabled()
    assert torch.is_grad_enabled()


def test_grad_mode_decorators():
    """``@no_grad()``, ``@enable_grad()`` and ``@set_grad_enabled(mode)`` decorate functions."""
    x = torch.ones(2, requires_grad=True)

    @torch.no_grad()
    def doubled_without_grad(t):
        return t * 2

    @torch.enable_grad()
    def doubled_with_grad(t):
        return t * 2

    @torch.set_grad_enabled(False)
    def doubled_mode_off(t):
        return t * 2

    assert torch.is_grad_enabled()
    assert doubled_without_grad(x).requires_grad is False
    assert doubled_mode_off(x).requires_grad is False
    assert torch.is_grad_enabled()
    assert doubled_with_grad(x).requires_grad is True
    with torch.no_grad():
        assert doubled_with_grad(x).requires_grad is True
        assert not torch.is_grad_enabled()
    assert torch.is_grad_enabled()


def test_grad_mode_decorator_restores_after_exception():
    """A decorated function that raises still restores the grad mode."""

    @torch.no_grad()
    def fails():
        raise ValueError("boom")

    with pytest.raises(ValueError):
        fails()
    assert torch.is_grad_enabled()


def test_grad_mode_bare_decorators():
    """``@torch.no_grad`` and ``@torch.enable_grad`` also work without parentheses (PyTorch 2)."""
    x = torch.ones(2, requires_grad=True)

    @torch.no_grad
    def doubled_without_grad(t):
        return t * 2

    @torch.enable_grad
    def doubled_with_grad(t):
        return t * 2

    assert doubled_without_grad(x).requires_grad is False
    with torch.no_grad():
        assert doubled_with_grad(x).requires_grad is True
    assert torch.is_grad_enabled()


def test_set_grad_enabled_as_function():
    """``torch.set_grad_enabled(False)`` as a plain call switches grad off until switched back."""
    x = torch.ones(2, requires_grad=True)
    try:
        torch.set_grad_enabled(False)
        assert not torch.is_grad_enabled()
        y = x * 2
        assert y.requires_grad is False
        assert y.grad_fn is None
        assert (x + 1).requires_grad is False
        assert not torch.is_grad_enabled()
    finally:
        torch.set_grad_enabled(True)
    assert torch.is_grad_enabled()
    assert (x * 2).requires_grad is True


def test_autograd_namespace_grad_modes():
    """``ferrograd.autograd`` re-exports the same grad-mode switches."""
    assert torch.autograd.no_grad is torch.no_grad
    assert torch.autograd.enable_grad is torch.enable_grad
    assert torch.autograd.set_grad_enabled is torch.set_grad_enabled
