"""The Python classes of graph nodes: one class per node kind named as PyTorch names it, all
subclasses of ``autograd.graph.Node``, with ``name()``, ``next_functions``, ``metadata`` and
node hooks; and ``_base`` of a view of any op's result is that result's object.

Every expectation here was checked against PyTorch 2.15 (the file runs unchanged with
``import torch``).
"""

import ferrograd as torch
import pytest


def leaf(*values):
    return torch.tensor(list(values), dtype=torch.float64, requires_grad=True)


def test_each_node_kind_has_its_own_class_named_as_pytorch():
    x = leaf(1.0, 2.0)
    y = x * 2
    z = y.exp()
    assert type(y.grad_fn).__name__ == "MulBackward0"
    assert type(z.grad_fn).__name__ == "ExpBackward0"
    assert type(y.grad_fn) is type((x * 3).grad_fn)
    assert type(y.grad_fn) is not type(z.grad_fn)
    assert isinstance(y.grad_fn, torch.autograd.graph.Node)
    assert isinstance(z.grad_fn, torch.autograd.graph.Node)
    acc = y.grad_fn.next_functions[0][0]
    assert type(acc).__name__ == "AccumulateGrad"
    assert acc.name() == "torch::autograd::AccumulateGrad"
    assert acc.variable is x
    assert repr(y.grad_fn).startswith("<MulBackward0 object at 0x")


def test_next_functions_keep_none_for_inputs_without_gradient():
    x = leaf(1.0, 2.0)
    w = torch.tensor([3.0, 4.0], dtype=torch.float64)
    assert [f is None for f, _ in (x * 2).grad_fn.next_functions] == [False, True]
    assert [f is None for f, _ in (x + 1).grad_fn.next_functions] == [False, True]
    assert [f is None for f, _ in (x * w).grad_fn.next_functions] == [False, True]
    assert [f is None for f, _ in (w * x).grad_fn.next_functions] == [True, False]
    assert len((x**2).grad_fn.next_functions) == 1
    assert len((1 - x).grad_fn.next_functions) == 1
    pair = (x * 2 + 1).grad_fn.next_functions
    assert type(pair[0][0]).__name__ == "MulBackward0"
    assert pair[1] == (None, 0)


def test_metadata_is_one_dict_kept_with_the_node():
    y = leaf(1.0) * 2
    y.grad_fn.metadata["step"] = 3
    assert y.grad_fn.metadata == {"step": 3}


def test_node_prehook_sees_and_replaces_the_incoming_gradient():
    x = leaf(1.0, 2.0)
    y = x * 3
    seen = []

    def prehook(grad_outputs):
        seen.append([g.tolist() for g in grad_outputs])
        return (grad_outputs[0] * 10,)

    handle = y.grad_fn.register_prehook(prehook)
    y.sum().backward(retain_graph=True)
    assert seen == [[[1.0, 1.0]]]
    assert x.grad.tolist() == [30.0, 30.0]
    handle.remove()
    x.grad = None
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]
    assert len(seen) == 1


def test_node_hook_sees_both_sides_and_replaces_the_input_gradients():
    x = leaf(1.0, 2.0)
    y = x.exp()
    calls = []

    def hook(grad_inputs, grad_outputs):
        calls.append((grad_inputs[0].tolist(), grad_outputs[0].tolist()))
        return (grad_inputs[0] + 1,)

    y.grad_fn.register_hook(hook)
    (y * 2).sum().backward()
    e1, e2 = leaf(1.0, 2.0).exp().tolist()
    assert calls == [([2 * e1, 2 * e2], [2.0, 2.0])]
    assert x.grad.tolist() == pytest.approx([2 * e1 + 1, 2 * e2 + 1])


def test_node_hook_of_a_tanh_sees_the_incoming_gradient_unchanged():
    # tanh's fused backward may write over the incoming gradient; not when a hook reads it
    x = leaf(0.5, -0.5)
    y = x.tanh()
    seen = []
    y.grad_fn.register_hook(lambda gi, go: seen.append(go[0].tolist()))
    (y * 3).sum().backward()
    assert seen == [[3.0, 3.0]]


def test_nodes_cannot_be_made_directly():
    with pytest.raises(TypeError):
        torch.autograd.graph.Node()


@pytest.mark.parametrize(
    "make",
    [
        lambda x: x + 1,
        lambda x: x * 2,
        lambda x: 2 - x,
        lambda x: x.exp(),
        lambda x: x @ x.t(),
        lambda x: x.sum(0),
        lambda x: x.sinh(),
        lambda x: torch.xlogy(x, x),
        lambda x: x.maximum(x),
        lambda x: x.clone(),
    ],
    ids=["add", "mul", "rsub", "exp", "matmul", "sum", "sinh", "xlogy", "maximum", "clone"],
)
def test_a_view_of_any_result_has_that_object_as_base(make):
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    y = make(x)
    assert y.t()._base is y if y.dim() == 2 else y[0:1]._base is y


class Twice(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2, x * 3

    @staticmethod
    def backward(ctx, ga, gb):
        return ga * 2 + gb * 3


class Positive(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        out = x > 0
        ctx.mark_non_differentiable(out)
        return out

    @staticmethod
    def backward(ctx, g):
        return None


def test_custom_function_nodes_are_named_after_the_function():
    x = leaf(1.0, 2.0)
    a, b = Twice.apply(x)
    assert type(a.grad_fn).__name__ == "TwiceBackward"
    assert a.grad_fn is not None and b.grad_fn is not None
    assert isinstance(a.grad_fn, torch.autograd.graph.Node)


def test_custom_function_used_through_its_first_output_only():
    x = leaf(1.0, 2.0)
    a, _ = Twice.apply(x)
    a.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]


def test_custom_function_with_only_non_differentiable_outputs():
    x = leaf(-1.0, 2.0)
    out = Positive.apply(x)
    assert out.tolist() == [False, True]
    assert out.grad_fn is None and not out.requires_grad


class SaveSome(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, y):
        ctx.save_for_backward(None, y, x)
        ctx.scale = 3
        return x * y

    @staticmethod
    def backward(ctx, g):
        _, y, x = ctx.saved_tensors
        return g * y, g * x


def test_custom_function_node_is_its_ctx():
    # PyTorch's node of a custom Function is its ctx: grad_fn shows ctx's attributes, and
    # grad_fn.saved_tensors unpacks the saved tensors (None kept in place) through their
    # hooks, until backward frees them
    x, y = leaf(1.0, 2.0), leaf(3.0, 4.0)
    unpacked = []

    def unpack(t):
        unpacked.append(t.tolist())
        return t

    with torch.autograd.graph.saved_tensors_hooks(lambda t: t, unpack):
        out = SaveSome.apply(x, y)
    node = out.grad_fn
    assert node.scale == 3 and node.needs_input_grad == (True, True)
    none, saved_y, saved_x = node.saved_tensors
    assert none is None and saved_y.tolist() == [3.0, 4.0] and saved_x.tolist() == [1.0, 2.0]
    assert unpacked == [[3.0, 4.0], [1.0, 2.0]]
    with pytest.raises(AttributeError, match="SaveSomeBackward"):
        _ = node.not_an_attribute
    out.sum().backward()
    assert x.grad.tolist() == [3.0, 4.0] and y.grad.tolist() == [1.0, 2.0]
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        _ = node.saved_tensors


@pytest.mark.parametrize("pack", [lambda t: t, lambda t: t * 1])
def test_a_saved_leaf_unpacked_through_hooks_is_a_leaf(pack):
    # PyTorch's SavedVariable: a leaf saved under hooks comes back a leaf (no grad_fn) that
    # requires grad and accumulates into the original's .grad
    a, b = leaf(1.0, 1.0, 1.0), leaf(1.0, 2.0, 3.0)
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        y = SaveSome.apply(a, b)
        z = b * a
    for unpacked in (y.grad_fn.saved_tensors[1], z.grad_fn._saved_self):
        assert unpacked.is_leaf and unpacked.requires_grad and unpacked.grad_fn is None
    (y.grad_fn.saved_tensors[1] * 2).sum().backward()
    assert b.grad.tolist() == [2.0, 2.0, 2.0]
