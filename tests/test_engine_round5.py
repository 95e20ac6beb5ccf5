"""Engine semantics added for PyTorch's autograd suite (issue 24), each checked against what
PyTorch 2.15 answers (messages copied from its runs; values from formulas or its runs):
``ctx.mark_dirty``, views returned by custom Functions and made in inference mode, calling a
node, ``var_mean``/``std_mean`` as one node, ``unsafe_split``, one object per dtype and per
node, attribute deletion, GELU's second derivative at infinity."""

import gc
import math
import warnings
import weakref

import ferrograd as torch
import numpy as np
import pytest
from ferrograd.autograd import Function


class AddInPlace(Function):
    @staticmethod
    def forward(ctx, a, b):
        a.add_(b)
        ctx.mark_dirty(a)
        return a

    @staticmethod
    def backward(ctx, grad):
        return grad, grad


def test_mark_dirty_keeps_identity_and_takes_the_node():
    x = torch.randn(3)
    y = torch.randn(3, requires_grad=True)
    before = x._version
    q = AddInPlace.apply(x, y)
    assert q is x
    assert type(q.grad_fn) is AddInPlace._backward_cls
    assert q.grad_fn.name() == "AddInPlaceBackward"
    assert x._version > before
    q.sum().backward()
    assert np.array_equal(y.grad.numpy(), np.ones(3))


def test_mark_dirty_through_a_view_rebases_the_base():
    a = torch.ones(2, requires_grad=True)
    b = torch.ones(2, requires_grad=True)
    base = a.clone()
    c = AddInPlace.apply(base.view_as(base), b)
    assert c.grad_fn.name() == "AsStridedBackward0"
    assert base.grad_fn.name() == "torch::autograd::CopySlices"
    (c * 3).sum().backward()
    assert a.grad.tolist() == [3.0, 3.0] and b.grad.tolist() == [3.0, 3.0]


def test_mark_dirty_refusals():
    leaf = torch.ones(2, requires_grad=True)
    with pytest.raises(
        RuntimeError,
        match=r"^a leaf Variable that requires grad has been used in an in-place operation\.$",
    ):
        AddInPlace.apply(leaf, torch.ones(2))

    class TwoOutputs(Function):
        @staticmethod
        def forward(ctx, a, b):
            a.add_(b)
            ctx.mark_dirty(a)
            return a, a + b

        @staticmethod
        def backward(ctx, ga, gab):
            return ga + gab, ga + gab

    a = torch.ones(2, requires_grad=True).clone()
    with pytest.raises(
        RuntimeError,
        match=r"your Function modifies inplace an input that is a view of another Tensor, your "
        "Function cannot return more than one Tensor",
    ):
        TwoOutputs.apply(a.view_as(a), torch.ones(2, requires_grad=True))

    class NotReturned(Function):
        @staticmethod
        def forward(ctx, a):
            a.add_(1)
            ctx.mark_dirty(a)
            return a.clone()

        @staticmethod
        def backward(ctx, g):
            return g

    with pytest.raises(RuntimeError, match=r"Some elements marked as dirty during the forward"):
        NotReturned.apply(torch.ones(2, requires_grad=True).clone())

    class ViewOfIntermediate(Function):
        @staticmethod
        def forward(ctx, a):
            out = a.clone().view_as(a)
            ctx.mark_dirty(out)
            return out

        @staticmethod
        def backward(ctx, g):
            return g

    with pytest.raises(RuntimeError, match=r"ctx\.mark_dirty\(\) received a tensor that was not"):
        ViewOfIntermediate.apply(torch.ones(1, requires_grad=True).clone())


def test_mark_dirty_with_saved_input_does_not_leak():
    class SaveDirty(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_dirty(x)
            ctx.save_for_backward(x)
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad

    def scope():
        x = torch.tensor(1.0, requires_grad=True).clone()
        x = x.view_as(x)
        SaveDirty.apply(x)
        return weakref.ref(x)

    ref = scope()
    gc.collect()
    assert ref() is None


class Alias(Function):
    @staticmethod
    def forward(ctx, x):
        return x.view_as(x)

    @staticmethod
    def backward(ctx, g):
        return g


CUSTOM = (
    " This view was created inside a custom Function (or because an input was returned as-is) "
    "and the autograd logic to handle view+inplace would override the custom backward "
    "associated with the custom Function, leading to incorrect gradients. This behavior is "
    "forbidden. You can fix this by cloning the output of the custom Function."
)
INFERENCE = (
    " Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify "
    "your code by moving both the view and the inplace either both inside the inference_mode "
    "block (if you don't want the inplace to be tracked) or both outside (if you want the "
    "inplace to be tracked)."
)


def _message(fn):
    with pytest.raises(RuntimeError) as info:
        fn()
    return str(info.value)


def test_views_returned_by_custom_functions_refuse_in_place_writes():
    b = torch.rand(1, requires_grad=True)
    view = Alias.apply(torch.rand(1, 2))
    assert view._is_view() and not view.requires_grad
    assert _message(lambda: view.add_(b)) == (
        "A view was created in no_grad mode and is being modified inplace with grad mode "
        "enabled." + CUSTOM
    )
    view = Alias.apply(torch.rand(1, 2, requires_grad=True).clone())
    assert view._is_view() and view.grad_fn.name() == "AliasBackward"
    assert _message(lambda: view.add_(b)) == (
        "Output 0 of Alias is a view and is being modified inplace." + CUSTOM
    )


def test_views_made_in_inference_mode():
    a = torch.ones(1, 2, 3, requires_grad=True).clone()
    with torch.inference_mode():
        view = a.view(-1)
    assert view.requires_grad and view.is_leaf and view._is_view()
    assert not torch.is_inference(view)
    assert _message(lambda: view.add_(2)) == (
        "A view was created in inference mode and is being modified inplace in normal mode."
        + INFERENCE
    )
    a = torch.ones(1, 2, 3, requires_grad=True).clone()
    with torch.inference_mode():
        view = a.view(-1)
    a.add_(2)
    assert _message(lambda: view.grad_fn) == (
        "A view was created in inference mode and its base or another view of its base has "
        "been modified inplace in normal mode." + INFERENCE
    )
    with torch.inference_mode():
        c = torch.ones(1, 2, 3, requires_grad=True)
        inner = c.view(-1)
        assert torch.is_inference(inner) and not inner.requires_grad


def test_view_of_a_view_made_in_inference_mode():
    x = torch.zeros(2)
    with torch.inference_mode():
        y = x.view(2)
    y.requires_grad_(True)
    z = y.view(2)
    assert _message(lambda: z.div_(2)) == (
        "Output 0 of View is a view of a view which was created in inference mode and is being "
        "modified inplace in normal mode." + INFERENCE
    )


def test_calling_a_node():
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x**2
    g = torch.tensor([1.0, 0.5, 2.0])
    assert y.grad_fn(g).tolist() == [2.0, 2.0, 12.0]
    with pytest.raises(TypeError, match=r"^expected 1 arguments, got 2 instead$"):
        y.grad_fn(g, g)
    with pytest.raises(TypeError, match=r"^expected 1 arguments, got 0 instead$"):
        y.grad_fn()
    a, b = torch.ones(2, requires_grad=True), torch.ones(2, requires_grad=True)
    ga, gb = (a * 3 + b * 2).grad_fn(torch.ones(2))
    assert ga.tolist() == [1.0, 1.0] and gb.tolist() == [1.0, 1.0]


def test_var_mean_and_std_mean_are_one_node():
    rng = np.random.default_rng(0)
    data = rng.standard_normal((3, 4, 5))
    x = torch.tensor(data, requires_grad=True)
    var, mean = torch.var_mean(x, dim=[0, 2])
    assert var.grad_fn is mean.grad_fn and var.grad_fn.name() == "VarMeanBackward0"
    assert (var.output_nr, mean.output_nr) == (0, 1)
    np.testing.assert_allclose(var.detach().numpy(), data.var(axis=(0, 2), ddof=1))
    np.testing.assert_allclose(mean.detach().numpy(), data.mean(axis=(0, 2)))
    (var * mean).sum().backward()
    m = data.mean(axis=(0, 2), keepdims=True)
    v = data.var(axis=(0, 2), ddof=1, keepdims=True)
    n = 15
    expected = m * 2 * (data - m) / (n - 1) + v / n
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-12)

    x = torch.tensor(data, requires_grad=True)
    std, mean = torch.std_mean(x, 1, keepdim=True, correction=0)
    assert std.grad_fn.name() == "StdMeanBackward0" and tuple(std.shape) == (3, 1, 5)
    np.testing.assert_allclose(std.detach().numpy(), data.std(axis=1, keepdims=True))
    assert torch.autograd.gradcheck(lambda t: torch.std_mean(t, 1), (x,))
    assert torch.autograd.gradgradcheck(lambda t: torch.var_mean(t, [0, 2]), (x,))


def test_unsafe_split_pieces_are_not_views():
    a = torch.randn(3, 3, requires_grad=True)
    b = a + a
    pieces = b.unsafe_split(1)
    assert [p.grad_fn.name() for p in pieces] == ["UnsafeSplitBackward0"] * 3
    assert not pieces[0]._is_view()
    assert b.unsafe_chunk(3)[0].grad_fn.name() == "UnsafeSplitBackward0"
    parts = b.unsafe_split_with_sizes([1, 2])
    assert parts[1].grad_fn.name() == "UnsafeSplitWithSizesBackward0"
    (parts[1] * 2).sum().backward()
    assert a.grad.tolist() == [[0.0] * 3, [4.0] * 3, [4.0] * 3]
    # split_with_sizes: views, as split with a list
    assert b.split_with_sizes([2, 1])[0].grad_fn.name() == "SplitWithSizesBackward0"


def test_one_object_per_dtype_and_per_node():
    x = torch.randn(2)
    assert x.dtype is torch.float32 and torch.float is torch.float32
    assert torch.ones_like(x, dtype=torch.float64, device="cpu").dtype is torch.float64
    y = x.requires_grad_() * 2
    assert y.grad_fn is y.grad_fn
    v, m = torch.var_mean(torch.randn(3, requires_grad=True))
    assert v.grad_fn is m.grad_fn


def test_attribute_assignment_and_deletion_messages():
    x = torch.randn(5, 5, requires_grad=True)
    with pytest.raises(
        TypeError, match=r"^assigned grad expected to be a Tensor or None but got grad of type int$"
    ):
        x.grad = 0
    del x.grad
    assert x.grad is None
    with pytest.raises(RuntimeError, match=r"^Deleting tensor data is not allowed"):
        del x.data
    with pytest.raises(TypeError, match=r"^Variable data has to be a tensor, but got NoneType$"):
        x.data = None
    with pytest.raises(RuntimeError, match=r"^requires_grad must be a bool$"):
        del x.requires_grad
    with pytest.raises(RuntimeError, match=r"^Deletion of _grad_fn not allowed"):
        del x._grad_fn
    a = torch.tensor(1.0, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"must be floating point or complex dtype$"):
        a.data = torch.tensor(3)
    assert a.dtype is torch.float32
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert x.volatile is False
    assert "volatile was removed" in str(caught[0].message)


def test_gelu_second_derivative_at_an_infinite_gradient():
    # PyTorch's recorded answer (fuzz program fz-7000051): inf, where the product rule gave NaN
    x2 = torch.tensor([[0.0, 1.167, 1.775], [0.552, -2.888, 2.141]], requires_grad=True)
    x7 = torch.tensor([-math.inf, 0.0, 2.197])
    v = torch.nn.functional.gelu(x2) @ x7
    (g,) = torch.autograd.grad(v.sum(), [x2], create_graph=True)
    (gg,) = torch.autograd.grad((g * g).sum(), [x2])
    assert gg[0, 0].item() == math.inf


def test_deprecated_jacobian_helpers():
    from ferrograd.autograd.gradcheck import get_analytical_jacobian, get_numerical_jacobian

    a = torch.rand(2, 2, requires_grad=True, dtype=torch.float64)
    b = torch.rand(2, 2, requires_grad=True, dtype=torch.float64)
    with pytest.warns(FutureWarning, match=r"`get_numerical_jacobian` was part of PyTorch's"):
        jac = get_numerical_jacobian(lambda t: (2 * t[0] + t[1],), (a, b), eps=1e-6)
    np.testing.assert_allclose(jac[0].numpy(), 2 * np.eye(4), atol=1e-8)
    np.testing.assert_allclose(jac[1].numpy(), np.eye(4), atol=1e-8)
    with pytest.warns(FutureWarning, match=r"`get_analytical_jacobian` was part of PyTorch's"):
        jacs, reentrant, _, _ = get_analytical_jacobian((a, b), a * 3 + b)
    assert reentrant and jacs[0].tolist() == (3 * np.eye(4)).tolist()
    with pytest.raises(ValueError, match=r"Expected grad_out to be 1.0"), pytest.warns(
        FutureWarning
    ):
        get_analytical_jacobian((a,), a * 3, grad_out=2.0)


def test_final_callbacks_run_after_the_pass_that_queued_them():
    from ferrograd.autograd import Variable
    from ferrograd.autograd.function import once_differentiable

    order = []

    class Inner(Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        @once_differentiable
        def backward(ctx, g):
            Variable._execution_engine.queue_callback(lambda: order.append("inner callback"))
            return g

    class Outer(Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        @once_differentiable
        def backward(ctx, g):
            def first():
                order.append("outer callback")
                Variable._execution_engine.queue_callback(lambda: order.append("queued by it"))

            Variable._execution_engine.queue_callback(first)
            t = g.detach().requires_grad_()
            with torch.enable_grad():
                Inner.apply(t).sum().backward()
            order.append("outer backward done")
            return g

    Outer.apply(torch.rand(3, requires_grad=True)).sum().backward()
    assert order == ["inner callback", "outer backward done", "outer callback", "queued by it"]
    with pytest.raises(RuntimeError, match=r"^Final callbacks can only be installed during"):
        Variable._execution_engine.queue_callback(lambda: None)


def test_multi_grad_hooks():
    t1, t2, t3 = (torch.rand(2, requires_grad=True) for _ in range(3))
    seen = []
    handle = torch.autograd.graph.register_multi_grad_hook(
        (t1, t2, t3), lambda grads: seen.append([g is not None for g in grads])
    )
    (t1 * 2 + t2).sum().backward()
    assert seen == [[True, True, False]]
    handle.remove()
    (t1 * 2).sum().backward()
    assert len(seen) == 1
    u = t3 * 1  # (PyTorch refuses a leaf's node under grad(): hook non-leaves there)
    torch.autograd.graph.register_multi_grad_hook(
        (u, t1 * 1), lambda grads: seen.append([g is not None for g in grads])
    )
    torch.autograd.grad((u * 3).sum(), (t3,))
    assert seen[1:] == [[True, False]]

    first = []
    torch.autograd.graph.register_multi_grad_hook(
        (t1, t2), lambda g: first.append(g.tolist()), mode="any"
    )
    (t1 * 2 + t2 * 3).sum().backward()
    assert first == [[3.0, 3.0]]  # t2's hook runs first (its node is newer), once per pass
    with pytest.raises(ValueError, match=r"Expects mode to be one of \('all', 'any'\) but got x"):
        torch.autograd.graph.register_multi_grad_hook((t1,), print, mode="x")


def test_multithreading_can_be_turned_off_with_the_same_gradients():
    x = torch.randn(300, 300, requires_grad=True)
    branches = [(x * (k + 1)).tanh().sum() for k in range(4)]
    sum(branches).backward()
    threaded = x.grad.clone()
    x.grad = None
    with torch.autograd.set_multithreading_enabled(False):
        assert not torch.autograd.is_multithreading_enabled()
        branches = [(x * (k + 1)).tanh().sum() for k in range(4)]
        sum(branches).backward()
    assert torch.autograd.is_multithreading_enabled()
    assert torch.equal(x.grad, threaded)


def test_saved_tensors_as_node_attributes():
    a = torch.randn(5, requires_grad=True)
    b = a * a
    c = a * b
    d = torch.exp(a)
    assert b.grad_fn._saved_self is a and b.grad_fn._saved_other is a
    assert c.grad_fn._saved_other is b
    assert torch.equal(d.grad_fn._saved_result, d) and d.grad_fn._saved_result is not d
    assert torch.sin(a).grad_fn._saved_self is a
    assert {"_saved_self", "_saved_other"} <= set(dir(c.grad_fn))
    # the saved output shares the version counter
    e = torch.exp(a)
    saved = e.grad_fn._saved_result
    with torch.no_grad():
        e += 1
    assert torch.equal(saved, e) and saved._version == e._version
    # through saved_tensors_hooks: the unpack hook's value
    with torch.autograd.graph.saved_tensors_hooks(lambda x: 2 * x, lambda x: x):
        y = a * a
    assert torch.equal(y.grad_fn._saved_self, 2 * a)
    c.sum().backward()
    with pytest.raises(RuntimeError, match="after they have already been freed"):
        _ = c.grad_fn._saved_self
    with pytest.raises(AttributeError):
        _ = c.grad_fn._saved_nothing


@pytest.mark.parametrize("tensor_hook", [False, True])
def test_a_hook_holding_its_own_node_is_collected_once_the_graph_is_gone(tensor_hook):
    class Sentinel:
        pass

    count = [0]

    def scope():
        b = torch.tensor(1.0, requires_grad=True).clone()
        grad_fn_b = b.grad_fn
        obj = Sentinel()

        def hook(*args):
            assert grad_fn_b is not None and obj is not None  # the cycle: hook -> its node
            count[0] += 1

        if tensor_hook:
            b.register_hook(hook)
        else:
            b.grad_fn.register_hook(hook)
        return b.clone(), weakref.ref(obj)

    gc.disable()
    try:
        out, ref = scope()
        out.backward(retain_graph=True)
        gc.collect()
        out.backward(retain_graph=True)  # the graph still holds the node: the hook runs
        assert count[0] == 2 and ref() is not None
        del out
        gc.collect()
        assert ref() is None
    finally:
        gc.enable()


def test_gather_saves_its_input_and_refuses_it_changed_in_place():
    # fuzz program fz-8004708: PyTorch refuses the backward
    x2 = torch.tensor([0.477, 0.601, -0.837], requires_grad=True)
    v4 = x2.masked_fill(torch.tensor([False]), 10.0)
    v6 = v4.gather(0, torch.tensor([0]))
    v4.sub_(torch.tensor([0.554, 1.0, -1.152]))
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        torch.autograd.grad(v6.sum(), [x2])


def test_one_element_tensors_in_nested_data():
    x = torch.ones((1,), requires_grad=True)
    assert torch.tensor([x]).tolist() == [1.0]
    assert tuple(torch.tensor([torch.ones(1, 1), torch.tensor(2.0)]).shape) == (2,)
    with pytest.raises(ValueError, match="only one element tensors can be converted"):
        torch.tensor([torch.ones(2), torch.ones(2)])


def test_refused_multi_output_view_names_its_own_op():
    x = torch.tensor([0.0, -0.137, 1.833, 0.543], requires_grad=True)
    v3, v4 = x.chunk(3, 0)
    v5 = v4.detach()
    v5[1] = 3
    # (PyTorch refuses at add_, where v3 is used; ferrograd at the backward through v3)
    with pytest.raises(RuntimeError, match=r"^Output 0 of Split is a view and its base"):
        v5.add_(v3)
        v3.sum().backward()


def test_setup_context_sees_default_arguments_and_non_diff_grads_can_stay_none():
    class Scale(Function):
        @staticmethod
        def forward(t, factor=2.5, shift=0.0):
            return t * factor + shift

        @staticmethod
        def setup_context(ctx, inputs, output):
            _, ctx.factor, ctx.shift = inputs  # all three, the defaults filled in

        @staticmethod
        def backward(ctx, g):
            return g * ctx.factor, None, None

    t = torch.tensor([1.0, -2.0], requires_grad=True)
    assert Scale.apply(t).tolist() == [2.5, -5.0]
    assert torch.autograd.grad(Scale.apply(t).sum(), t)[0].tolist() == [2.5, 2.5]
    x = torch.tensor(2.0, requires_grad=True)

    seen = []

    class TwoOutputs(Function):
        @staticmethod
        def forward(ctx, x):
            out1 = x.clone()
            ctx.mark_non_differentiable(out1)
            ctx._materialize_non_diff_grads = False
            return x.clone(), out1

        @staticmethod
        def backward(ctx, g0, g1):
            seen.append(g1)
            return g0

    TwoOutputs.apply(x)[0].backward()
    assert seen == [None]


def test_legacy_new():
    x = torch.randn(2, 3, dtype=torch.float64)
    assert tuple(x.new(2).shape) == (2,) and x.new(2).dtype is torch.float64
    assert tuple(x.new(2, 3).shape) == (2, 3) and not x.new(2, 3).requires_grad
    assert tuple(x.new(torch.Size([2, 2])).shape) == (2, 2)
    assert x.new((2, 2)).tolist() == [2.0, 2.0]  # a tuple is data, a Size is a shape
    assert x.new([1, 2]).tolist() == [1.0, 2.0] and x.new([1, 2]).dtype is torch.float64
    assert tuple(x.new().shape) == (0,)
