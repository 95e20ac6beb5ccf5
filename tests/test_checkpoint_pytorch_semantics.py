"""``utils.checkpoint`` with ``use_reentrant=False`` behaving as PyTorch 2.15's: the checkpointed
graph is the ordinary one (hooks fire once, gradients of any order equal the plain ones, the
graph dies with its outputs), the determinism check and its errors, the global settings, and
the segment's arguments treated as saved tensors. Every expectation here was checked by running
the same program under PyTorch (``import torch`` in place of ferrograd): all pass there but the
last, ferrograd's refusal of selective checkpointing; the one PyTorch passes and ferrograd
does not yet is marked ``xfail`` with the reason."""

import gc
import weakref

import ferrograd as torch
import pytest

ck = torch.utils.checkpoint


def checkpointed(fn):
    """``fn`` wrapped in a non-reentrant checkpoint."""
    return lambda *args, **kwargs: ck.checkpoint(fn, *args, use_reentrant=False, **kwargs)


def grad_of(fn):
    """``x -> d fn(x).sum() / dx``, itself differentiable."""

    def wrapper(x):
        (g,) = torch.autograd.grad(fn(x).sum(), x, create_graph=True)
        return g

    return wrapper


def chain(x):
    return x.sin().exp().sin()


def test_hook_on_a_parameter_used_inside_and_outside_fires_once():
    w = torch.randn(4, 4, requires_grad=True)
    calls = []
    w.register_hook(lambda g: calls.append(1))
    x = torch.rand(4, 4, requires_grad=True)
    out = ck.checkpoint(lambda h: w * h, w * x, use_reentrant=False)
    out.sum().backward()
    assert len(calls) == 1
    assert torch.allclose(w.grad, 2 * w * x)


def test_hooks_inside_the_segment_and_on_its_nodes_fire_once():
    tensor_calls, node_calls = [], []

    def segment(a):
        b = a.sin()
        b.register_hook(lambda g: tensor_calls.append(1))
        return b.cos().sin()

    a = torch.tensor(1.0, requires_grad=True)
    out = ck.checkpoint(segment, a, use_reentrant=False)
    out.grad_fn.next_functions[0][0].register_hook(lambda *args: node_calls.append(1))
    out.backward()
    assert (len(tensor_calls), len(node_calls)) == (1, 1)
    assert torch.allclose(a.grad, a.sin().cos().cos() * -a.sin().sin() * a.cos())


@pytest.mark.parametrize(
    "order, wrapped",
    [
        (1, grad_of(checkpointed(chain))),
        (2, grad_of(checkpointed(grad_of(chain)))),
        (2, grad_of(checkpointed(grad_of(checkpointed(chain))))),
        (3, grad_of(checkpointed(grad_of(grad_of(checkpointed(chain)))))),
        (3, grad_of(checkpointed(grad_of(checkpointed(grad_of(checkpointed(chain))))))),
    ],
    ids=["order1", "order2-grad-inside", "order2-nested", "order3", "order3-nested"],
)
def test_gradients_of_any_order_through_nested_checkpoints(order, wrapped):
    x = torch.tensor([0.3, -1.2, 2.0], requires_grad=True)
    plain = chain
    for _ in range(order):
        plain = grad_of(plain)
    assert torch.allclose(wrapped(x), plain(x))


def test_backward_inside_the_segment():
    def segment(x):
        a = x.sin().exp().sin()
        (ga,) = torch.autograd.grad(a.sum(), x)
        return x.sin() * ga

    x = torch.tensor([0.3, -1.2], requires_grad=True)
    (expected,) = torch.autograd.grad(segment(x).sum(), x)
    (got,) = torch.autograd.grad(ck.checkpoint(segment, x, use_reentrant=False).sum(), x)
    assert torch.allclose(got, expected)


def test_the_graph_dies_with_its_output():
    alive = []

    class Mark:
        pass

    def scope():
        a = torch.randn((), requires_grad=True)
        out = grad_of(checkpointed(grad_of(checkpointed(chain))))(a)
        mark = Mark()
        alive.append(weakref.ref(mark))
        out.grad_fn.metadata["mark"] = mark

    scope()
    gc.collect()
    assert alive[0]() is None


def test_intermediate_tensors_are_not_kept():
    refs = []

    def segment(a):
        b = a.sin()
        refs.append(weakref.ref(b))
        return b.exp()

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    out = ck.checkpoint(segment, x, use_reentrant=False)
    gc.collect()
    assert refs[0]() is None
    out.sum().backward()
    assert torch.allclose(x.grad, x.sin().exp() * x.cos())


def test_saved_tensor_identity_is_kept():
    seen = []

    class Keep(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            ctx.save_for_backward(y)
            return x.clone()

        @staticmethod
        def backward(ctx, g):
            seen.append(ctx.saved_tensors[0])
            return g, None

    a = torch.tensor(1.0, requires_grad=True)
    b = torch.tensor(1.0)
    ck.checkpoint(Keep.apply, a, b, use_reentrant=False).backward()
    assert seen[0] is b


def test_an_argument_changed_in_place_is_refused_at_backward():
    x = torch.randn(3, requires_grad=True)
    y = x * 1
    out = ck.checkpoint(lambda a: a.sin(), y, use_reentrant=False)
    with torch.no_grad():
        y.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


def test_each_backward_of_a_retained_graph_recomputes():
    runs = []

    def segment(a):
        runs.append(1)
        return a.sin().exp()

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    out = ck.checkpoint(segment, x, use_reentrant=False).sum()
    out.backward(retain_graph=True)
    out.backward()
    assert len(runs) == 3
    assert torch.allclose(x.grad, 2 * x.sin().exp() * x.cos())


def test_keyword_and_non_tensor_arguments_and_outputs():
    def segment(k, a, *, scale, f):
        return f(k * a * scale.exp()), 1, "abcd"

    a = torch.tensor(2.0, requires_grad=True)
    s = torch.tensor(0.5, requires_grad=True)
    out, one, text = ck.checkpoint(segment, 3, a, scale=s, f=torch.sin, use_reentrant=False)
    got = torch.autograd.grad(out, (a, s))
    expected = torch.autograd.grad(segment(3, a, scale=s, f=torch.sin)[0], (a, s))
    assert (one, text) == (1, "abcd")
    assert all(torch.allclose(g, e) for g, e in zip(got, expected))


def _changing(first, later):
    calls = []

    def segment(x):
        calls.append(1)
        return first(x) if len(calls) == 1 else later(x)

    return segment


def save_3(x):
    return x.sin().exp().sin()


def save_2(x):
    return x.sin().exp()


def save_2_other_shape(x):
    return x.sin() * torch.tensor([1.0, 2.0])


def test_determinism_check_errors():
    a = torch.randn(1, requires_grad=True)
    with pytest.raises(RuntimeError, match="A different number of tensors was saved"):
        ck.checkpoint(_changing(save_3, save_2), a, use_reentrant=False).backward()
    with ck.set_checkpoint_early_stop(False):
        out = ck.checkpoint(_changing(save_2, save_3), a, use_reentrant=False)
    with pytest.raises(RuntimeError, match="trying to save more tensors during recomputation"):
        out.backward()
    ck.checkpoint(_changing(save_2, save_3), a, use_reentrant=False).backward()  # early stop
    with pytest.raises(ck.CheckpointError, match="tensors have different metadata"):
        ck.checkpoint(
            _changing(save_2, save_2_other_shape), a, use_reentrant=False
        ).sum().backward()
    out = ck.checkpoint(
        _changing(save_2, save_2_other_shape), a, use_reentrant=False, determinism_check="none"
    )
    out.sum().backward()


def test_debug_report_and_its_global_setting():
    a = torch.randn(1, requires_grad=True)
    report = "You are seeing this error because you passed `debug=True` to checkpoint"
    with pytest.raises(RuntimeError, match=report):
        segment = _changing(save_2, save_2_other_shape)
        ck.checkpoint(segment, a, use_reentrant=False, debug=True).sum().backward()
    with pytest.raises(RuntimeError, match=report):
        with ck.set_checkpoint_debug_enabled(True):
            segment = _changing(save_2, save_2_other_shape)
            ck.checkpoint(segment, a, use_reentrant=False).sum().backward()
    with pytest.raises(RuntimeError, match="Recomputed values for the following tensors"):
        with ck.set_checkpoint_debug_enabled(False):
            segment = _changing(save_2, save_2_other_shape)
            ck.checkpoint(segment, a, use_reentrant=False, debug=True).sum().backward()
    with pytest.raises(ValueError, match="debug=True is incompatible with non-default"):
        ck.checkpoint(save_2, a, use_reentrant=False, debug=True, context_fn=lambda: (None, None))


def test_early_stop_setting_is_taken_at_the_forward_and_overrides_the_argument():
    a = torch.tensor([1.0], requires_grad=True)
    with ck.set_checkpoint_early_stop(False):
        with ck.set_checkpoint_early_stop(True):
            tolerant = ck.checkpoint(_changing(save_2, save_3), a, use_reentrant=False)
        strict = ck.checkpoint(_changing(save_2, save_3), a, use_reentrant=False, early_stop=True)
    tolerant.sum().backward()
    with pytest.raises(RuntimeError, match="trying to save more tensors"):
        strict.sum().backward()


def test_early_stop_does_not_rerun_the_end_of_the_segment():
    clones = []

    def segment(x):
        y = x.sin().cos()
        clones.append(1)
        return y.clone()

    a = torch.tensor(1.0, requires_grad=True)
    ck.checkpoint(segment, a, use_reentrant=False).backward()
    assert len(clones) == 1


def test_selective_checkpointing_is_refused_clearly():
    assert [p.name for p in ck.CheckpointPolicy][:4] == [
        "MUST_SAVE",
        "PREFER_SAVE",
        "MUST_RECOMPUTE",
        "PREFER_RECOMPUTE",
    ]
    with pytest.raises(TypeError, match="either a function or a list of ops"):
        ck.create_selective_checkpoint_contexts(2)
    with pytest.raises(NotImplementedError, match="TorchDispatchMode"):
        ck.create_selective_checkpoint_contexts(lambda ctx, op, *args, **kwargs: None)


def test_graph_exec_group_recomputes_once_and_refuses_overlapping_backward_calls():
    """As PyTorch's test_checkpoint_graph_execution_group: under one GraphExecGroup, two
    backward calls over disjoint parts of a checkpointed graph share one recomputation, and a
    second call that needs an activation the first one used is refused."""
    GraphExecGroup = ck.GraphExecGroup

    calls = [0]

    def fn(x):
        calls[0] += 1
        y = x.sin().cos()
        return y, y.sin().cos()

    x = torch.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
    y, z = ck.checkpoint(fn, x, use_reentrant=False)
    with GraphExecGroup():
        (gy,) = torch.autograd.grad(z, (y,), (torch.ones(2, 2),))
        (gx,) = torch.autograd.grad(y, (x,), (gy,))
    assert calls[0] == 2
    xd = x.detach().requires_grad_()
    (gx_plain,) = torch.autograd.grad(xd.sin().cos().sin().cos().sum(), (xd,))
    assert torch.allclose(gx, gx_plain)
    out = ck.checkpoint(lambda t: t.sin().cos(), x, use_reentrant=False)
    with GraphExecGroup():
        out.sum().backward(retain_graph=True)
        with pytest.raises(RuntimeError, match="Performing two backward calls that overlap"):
            out.sum().backward()
    with GraphExecGroup(), pytest.raises(RuntimeError, match="cannot be nested"):
        with GraphExecGroup():
            pass
