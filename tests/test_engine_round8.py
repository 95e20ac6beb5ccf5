"""Engine semantics, round 8: an in-place write through a view recorded as PyTorch's CopySlices
(the in-place op's node folded in: its first input replaced by the base's old history), the
saved output of such an op unpacked with the view's new history, `fill_` with a 0-d tensor
(FillBackward3), `x[i] = v` as PyTorch's copy_to (fill from a number or a 0-d tensor; leading
size-1 dims of `v` dropped), and the node names of `x[:,]`, `chunk` of an empty dim and
`reshape` of a tensor that is not contiguous.

Every expectation here is PyTorch 2.15's on a CPU (the file also passes under PyTorch)."""

import ferrograd as torch
import pytest
from graph_desc import graph_desc

_names = graph_desc


def test_copy_slices_folds_in_the_in_place_node():
    # CopySlices' inputs: the base's old history, then the op's other inputs (none for a
    # number); the view's old ViewBackward0 is no longer in the graph
    x = torch.ones(2, 2, requires_grad=True)
    out = x.clone().view(-1)
    out.add_(1)
    assert (
        _names(out.grad_fn)
        == "AsStridedBackward0(CopySlices(CloneBackward0(AccumulateGrad()), None))"
    )
    y = torch.ones(2, requires_grad=True)
    base = x.mul(1)
    base[0].mul_(y)
    assert (
        _names(base.grad_fn) == "CopySlices(MulBackward0(AccumulateGrad(), None), AccumulateGrad())"
    )
    base.sum().backward()
    assert x.grad.tolist() == [[1.0, 1.0], [1.0, 1.0]]
    assert y.grad.tolist() == [1.0, 1.0]


def test_copy_slices_gradients_inside_and_outside_the_view():
    x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    w = torch.tensor([2.0, -1.0], requires_grad=True)
    b = x * 3
    b[:, 1].mul_(w)
    (b * torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])).sum().backward()
    assert x.grad.tolist() == [[3.0, 12.0, 9.0], [12.0, -15.0, 18.0]]
    assert w.grad.tolist() == [12.0, 75.0]


def test_hooks_on_the_views_old_history_do_not_fire():
    # PyTorch's test_tensor_hooks_inplace_over_view: the gradient reaches the base in one
    # piece, not through the view's old node
    fired = []
    base = torch.tensor([1.0], requires_grad=True).clone()
    view = base[:]
    view2 = base[:]
    view.register_hook(lambda g: fired.append("view"))
    view2.register_hook(lambda g: fired.append("view2"))
    view.mul_(2)
    view2.grad_fn  # noqa: B018 (regenerates view2's history)
    view2.register_hook(lambda g: fired.append(("new", g.tolist())))
    (view + view2).sum().backward()
    assert fired == [("new", [1.0])]


def test_double_backward_through_an_in_place_op_on_a_view():
    # the saved output of relu_ on a view unpacks with the view's new history, so the second
    # backward does not run the folded node a second time (PyTorch's is_inplace_on_view)
    x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
    v = (x * 1).view(3)
    v.relu_()
    (g,) = torch.autograd.grad((v**2).sum(), x, create_graph=True)
    assert g.tolist() == [2.0, 0.0, 6.0]
    (gg,) = torch.autograd.grad(g.sum(), x)
    assert gg.tolist() == [2.0, 0.0, 2.0]


def test_threshold_in_place_on_a_view_double_backward_graph():
    # the end of PyTorch's test_inplace_on_view_backward
    inputs = torch.ones((1, 2, 3, 3), requires_grad=True)
    tmp1 = (inputs + 1).view_as(inputs)
    tmp2 = torch.nn.functional.threshold(tmp1, 0.0, 0.0, True)
    prob = torch.sigmoid(tmp2)
    (gradients,) = torch.autograd.grad(
        prob, inputs, grad_outputs=torch.ones(prob.size()), create_graph=True
    )
    penalty = gradients.sum()
    penalty.backward()
    fn = penalty.grad_fn.next_functions[0][0].next_functions[1][0]
    assert fn.name() == "ThresholdBackwardBackward0"
    s = torch.sigmoid(torch.tensor(2.0)).item()
    expected = s * (1 - s) * (1 - 2 * s)
    assert inputs.grad[0, 0, 0, 0].item() == pytest.approx(expected, rel=1e-5)


def test_a_second_backward_through_copy_slices_is_refused():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    b = x * 1
    b[0].exp_()
    b.sum().backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        b.sum().backward()


def test_fill_with_a_tensor_value_is_differentiable():
    v = torch.tensor(2.0, requires_grad=True)
    y = torch.zeros(2, 3)
    y.fill_(v)
    assert type(y.grad_fn).__name__ == "FillBackward3"
    (y * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert v.grad.item() == 12.0
    with pytest.raises(
        RuntimeError,
        match="fill_ only supports 0-dimension value tensor but got tensor with 1 dimensions",
    ):
        torch.zeros(3).fill_(torch.ones(2))


def test_setitem_follows_copy_to():
    v = torch.tensor(2.0, requires_grad=True)
    a = torch.zeros(2, 3, requires_grad=True).clone()
    a[0] = 2.0
    assert _names(a.grad_fn) == "CopySlices(CloneBackward0(AccumulateGrad()))"
    a = torch.zeros(2, 3, requires_grad=True).clone()
    a[...] = 2.0
    assert type(a.grad_fn).__name__ == "FillBackward2"
    a = torch.zeros(2, 3, requires_grad=True).clone()
    a[:] = v
    assert _names(a.grad_fn) == "FillBackward3(CloneBackward0(AccumulateGrad()), AccumulateGrad())"
    a.sum().backward()
    assert v.grad.item() == 6.0
    z = torch.zeros(2, 3)
    z[0] = torch.tensor([[[1.0, 2.0, 3.0]]])  # leading size-1 dims are dropped
    assert z.tolist() == [[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]]
    msg = r"expand\(torch.FloatTensor\{\[2, 1, 3\]\}, size=\[3\]\): the number of sizes"
    with pytest.raises(RuntimeError, match=msg):
        z[0] = torch.ones(2, 1, 3)


def test_view_node_names():
    x = torch.randn(2, 3, 4, requires_grad=True)
    assert type(x[:].grad_fn).__name__ == "SliceBackward0"
    assert type(x[:,].grad_fn).__name__ == "AliasBackward0"
    e = torch.randn(0, requires_grad=True)
    assert [type(c.grad_fn).__name__ for c in e.chunk(2)] == ["SplitWithSizesBackward0"] * 2
    assert type(x.reshape(6, 4).grad_fn).__name__ == "ViewBackward0"
    assert type(x.permute(2, 0, 1).reshape(4, 6).grad_fn).__name__ == "ReshapeAliasBackward0"
    assert type(x.transpose(0, 1).reshape(3, 8).grad_fn).__name__ == "UnsafeViewBackward0"
    y = x.permute(2, 0, 1).reshape(4, 6)
    y.sum().backward()
    assert x.grad.shape == (2, 3, 4)


def test_a_refused_view_raises_at_the_op_that_uses_it():
    # PyTorch raises when the stale view's grad_fn is needed: at the op, not at backward
    msg = "A view was created in no_grad mode"
    x = torch.zeros(3)
    with torch.no_grad():
        v = x[:2]
    x[0] = torch.tensor(1.0, requires_grad=True)
    with pytest.raises(RuntimeError, match=msg):
        torch.mean(v)
    with torch.no_grad():
        assert (v * 2).tolist() == [2.0, 0.0]  # no graph, no refusal
    a = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    _, second = a.unbind(0)
    a.mul_(torch.ones(2, requires_grad=True))
    with pytest.raises(RuntimeError, match=msg):
        second[:,]
