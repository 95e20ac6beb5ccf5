"""Engine semantics, round 7: PyTorch's execution order (a priority queue on sequence numbers,
not waves), `_sequence_nr`/`_set_sequence_nr`, `.grad` under `create_graph` (a copy through
CopyBackwards; retained gradients through CloneBackward0), the full reduction's gradient
expanded at once, and once_differentiable's Error node with one edge per value.

Every expectation here is PyTorch 2.15's on a CPU (the file also passes under PyTorch)."""

import ferrograd as torch
from ferrograd.autograd import Function
from ferrograd.autograd.function import once_differentiable
from graph_desc import graph_desc

_names = graph_desc


def _record_order(root, order):
    """A pre-hook on every node reachable from ``root`` appending the node's name."""
    # (the nodes are kept in `kept` so no id is reused while walking)
    seen, stack, kept = set(), [root], []
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        kept.append(node)
        name = node.name()
        node.register_prehook(lambda g, name=name: order.append(name))
        stack.extend(n for n, _ in node.next_functions)


def test_newest_ready_node_runs_first_not_wave_by_wave():
    # after AddBackward0 both products are ready; b's runs first (newer), and its input
    # product, newer than a's, runs before a's: PyTorch's priority queue, where waves would
    # have run a's before b1's
    x1 = torch.ones(3, requires_grad=True)
    x2 = torch.ones(3, requires_grad=True)
    a = x1 * 2
    b1 = x2 * 3
    b = b1 * 4
    c = a + b
    order = []
    _record_order(c.grad_fn, order)
    c.sum().backward()
    assert order == [
        "AddBackward0",
        "MulBackward0",  # b
        "MulBackward0",  # b1
        "torch::autograd::AccumulateGrad",  # x2's, ready once b1's ran: runs at once
        "MulBackward0",  # a
        "torch::autograd::AccumulateGrad",
    ]
    assert x1.grad.tolist() == [2.0, 2.0, 2.0]
    assert x2.grad.tolist() == [12.0, 12.0, 12.0]


def test_set_sequence_nr_reorders_the_nodes_ready_together():
    x, y, z = (torch.ones(4, requires_grad=True) for _ in range(3))
    a, b = x + y, y + z
    c = a + b
    a.grad_fn._set_sequence_nr(100)
    b.grad_fn._set_sequence_nr(99)
    c.grad_fn._set_sequence_nr(98)
    assert (a.grad_fn._sequence_nr(), b.grad_fn._sequence_nr()) == (100, 99)
    order = []
    for name, t in (("a", a), ("b", b), ("c", c)):
        t.register_hook(lambda g, name=name: order.append(name))
    c.sum().backward()
    assert order == ["c", "a", "b"]
    assert y.grad.tolist() == [2.0] * 4


def test_accumulate_grad_has_the_highest_sequence_number():
    x = torch.ones(2, requires_grad=True)
    node = (x * 2).grad_fn.next_functions[0][0]
    assert node._sequence_nr() == 2**64 - 1


def test_grad_under_create_graph_is_a_copy_through_copy_backwards():
    x = torch.ones(2, 2, requires_grad=True)
    go = torch.ones((), requires_grad=True)
    (x * x).sum().backward(go, create_graph=True)
    assert _names(x.grad.grad_fn) == (
        "CopyBackwards(None, AddBackward0(MulBackward0(ExpandBackward0(AccumulateGrad()), "
        "AccumulateGrad()), MulBackward0(ExpandBackward0(AccumulateGrad()), AccumulateGrad())))"
    )
    # a second accumulation adds out of place
    first = x.grad
    (x * 3).sum().backward(create_graph=True)
    assert type(x.grad.grad_fn).__name__ == "AddBackward0"
    assert first.tolist() == [[2.0, 2.0], [2.0, 2.0]]
    assert x.grad.tolist() == [[5.0, 5.0], [5.0, 5.0]]
    x.grad = None


def test_grad_under_create_graph_does_not_alias_the_incoming_gradient():
    # both leaves of an addition receive the same incoming gradient
    a = torch.ones(3, requires_grad=True)
    b = torch.ones(3, requires_grad=True)
    w = torch.full((3,), 2.0, requires_grad=True)
    ((a + b) * w).sum().backward(create_graph=True)
    with torch.no_grad():
        a.grad.mul_(5)
    assert a.grad.tolist() == [10.0, 10.0, 10.0]
    assert b.grad.tolist() == [2.0, 2.0, 2.0]
    a.grad = b.grad = w.grad = None


def test_retained_grad_under_create_graph_goes_through_clone_backward():
    z = torch.ones(2, requires_grad=True)
    x = z * 1
    x.retain_grad()
    w = torch.full((2,), 3.0, requires_grad=True)
    (x * w).sum().backward(create_graph=True)
    assert _names(x.grad.grad_fn) == "CloneBackward0(MulBackward0(None, AccumulateGrad()))"
    (g,) = torch.autograd.grad(x.grad.sum(), w)
    assert g.tolist() == [1.0, 1.0]
    z.grad = w.grad = None


def test_full_sum_expands_its_gradient_at_once():
    x = torch.ones(2, 3, requires_grad=True)
    go = torch.ones((), requires_grad=True)
    (g,) = torch.autograd.grad(x.sum(), x, go, create_graph=True)
    assert _names(g.grad_fn) == "ExpandBackward0(AccumulateGrad())"
    # over named dims, they are unsqueezed first
    go = torch.ones(3, requires_grad=True)
    (g,) = torch.autograd.grad(x.sum(0), x, go, create_graph=True)
    assert _names(g.grad_fn) == "ExpandBackward0(UnsqueezeBackward0(AccumulateGrad()))"


def test_once_differentiable_error_node_has_an_edge_per_value():
    class MyFunction(Function):
        @staticmethod
        def forward(ctx, t1, scalar, t2):
            ctx.scalar = scalar
            ctx.save_for_backward(t1, t2)
            return t1 + scalar * t2 + t1 * t2

        @staticmethod
        @once_differentiable
        def backward(ctx, grad_output):
            t1, t2 = ctx.saved_tensors
            return grad_output + grad_output * t2, None, grad_output * ctx.scalar + grad_output * t1

    x = torch.ones(2, requires_grad=True)
    y = torch.full((2,), 2.0, requires_grad=True)
    go = torch.ones((), requires_grad=True)
    MyFunction.apply(x, 2, y).sum().backward(go, create_graph=True)
    assert _names(x.grad.grad_fn) == (
        "CopyBackwards(None, Error(AccumulateGrad(), None, AccumulateGrad()))"
    )
    assert x.grad.tolist() == [3.0, 3.0]
    assert y.grad.tolist() == [3.0, 3.0]
    x.grad = y.grad = None


def test_custom_function_node_has_a_slot_per_returned_value():
    # PyTorch's node of a custom Function has one slot per value forward returned, tensors or
    # not: output_nr counts them all, hooks see one gradient per value (None where none came)
    class F(Function):
        @staticmethod
        def forward(ctx, x, a, y):
            return x * 2, a, x.sum() > 0, y * 2

        @staticmethod
        def backward(ctx, g1, ga, gb, g2):
            seen.append((ga, gb.dtype, gb.tolist(), g2.tolist()))
            return g1 * 2, None, g2 * 2

    seen = []
    x = torch.ones(2, requires_grad=True)
    y = torch.ones(2, requires_grad=True)
    c, a, b, d = F.apply(x, 3, y)
    assert (c.output_nr, d.output_nr, a) == (0, 3, 3)
    assert not b.requires_grad
    hooked = []
    c.grad_fn.register_prehook(lambda grads: hooked.append([g is None for g in grads]))
    c.sum().backward()
    assert hooked == [[False, True, True, True]]
    # tensors that got no gradient are materialized as zeros, the number's stays None
    assert seen == [(None, torch.bool, False, [0.0, 0.0])]
    assert x.grad.tolist() == [2.0, 2.0]
    assert y.grad.tolist() == [0.0, 0.0]


def test_checkpoint_early_stop_skips_what_follows_the_last_save():
    # PyTorch's test_nested_checkpoint_set_early_stop, shortened: clone saves nothing, so with
    # early stop (the default) the recomputation ends before it
    from ferrograd.utils.checkpoint import checkpoint, set_checkpoint_early_stop

    calls = []

    def fn(x):
        y = x.sin().cos()
        calls.append(1)
        return y.clone()

    for early_stop, runs in ((None, 1), (True, 1), (False, 2)):
        calls.clear()
        a = torch.tensor(1.0, requires_grad=True)
        kwargs = {} if early_stop is None else {"early_stop": early_stop}
        checkpoint(fn, a, use_reentrant=False, **kwargs).backward()
        assert len(calls) == runs, early_stop
        expected = -torch.sin(torch.sin(torch.tensor(1.0))) * torch.cos(torch.tensor(1.0))
        assert abs(a.grad.item() - expected.item()) < 1e-6
    calls.clear()
    a = torch.tensor(1.0, requires_grad=True)
    with set_checkpoint_early_stop(False):
        out = checkpoint(fn, a, use_reentrant=False)
    out.backward()
    assert len(calls) == 2


def test_nested_checkpoint_with_early_stop_frees_its_graph():
    # the early stop raises from a pack hook inside an op; the node that op made must not
    # keep the exception (its traceback's frames would keep the graph alive)
    import gc
    import weakref

    from ferrograd.utils.checkpoint import checkpoint

    def c(fn):
        return lambda x: checkpoint(fn, x, use_reentrant=False)

    def f(x):
        return x.sin().exp().sin()

    class Handle:
        pass

    def scope():
        a = torch.randn((), requires_grad=True)
        with torch.enable_grad():
            out = c(c(f))(a)
            (g,) = torch.autograd.grad(out, a, create_graph=True)
        refs, seen, stack = [], set(), [g.grad_fn]
        while stack:
            node = stack.pop()
            if node is None or node in seen:
                continue
            seen.add(node)
            handle = Handle()
            refs.append(weakref.ref(handle))
            node.metadata["handle"] = handle
            stack.extend(n for n, _ in node.next_functions)
        return refs

    refs = scope()
    gc.collect()
    assert refs and all(r() is None for r in refs)


def test_reentrant_checkpoint_refuses_grad_and_backward_inputs():
    from ferrograd.utils.checkpoint import checkpoint

    a = torch.randn(2, 2, requires_grad=True)
    assert torch.autograd._is_checkpoint_valid()
    message = "torch.utils.checkpoint is incompatible with .grad()"
    b = checkpoint(torch.exp, a, use_reentrant=True).sum()
    try:
        torch.autograd.grad(b, (a,))
        raise AssertionError("grad() through a reentrant checkpoint was not refused")
    except RuntimeError as e:
        assert message in str(e)
    b = checkpoint(torch.exp, a, use_reentrant=True).sum()
    try:
        b.backward(inputs=[a])
        raise AssertionError("backward(inputs=) through a reentrant checkpoint was not refused")
    except RuntimeError as e:
        assert message in str(e)
    assert a.grad is None
    # the flag is per backward call: a plain backward afterwards works
    seen = []
    c = checkpoint(torch.exp, a, use_reentrant=True).sum()
    c.grad_fn.register_prehook(lambda g: seen.append(torch.autograd._is_checkpoint_valid()))
    c.backward()
    assert seen == [True]
    assert torch.allclose(a.grad, a.detach().exp())
    d = (a * 2).sum()
    d.grad_fn.register_prehook(lambda g: seen.append(torch.autograd._is_checkpoint_valid()))
    torch.autograd.grad(d, a)
    assert seen == [True, False]


def test_anomaly_reports_the_node_whose_backward_made_the_failing_one():
    import warnings

    from ferrograd.autograd import detect_anomaly

    class Inner(Function):
        @staticmethod
        def forward(ctx, a, b):
            return a * 2.0 + b

        @staticmethod
        def backward(ctx, g):
            g2 = g.clone()
            g2[0] = float("nan")
            return g.clone(), g2

    class Outer(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.sum(0, keepdim=True)

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            g = g.clone().expand(4)
            return Inner.apply(g * x, g + x)

    x = torch.rand(4, requires_grad=True)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            with detect_anomaly():
                out = Outer.apply(x)
                (gx,) = torch.autograd.grad(out, (x,), create_graph=True)
                gx.sum().backward()
            raise AssertionError("the NaN was not reported")
        except RuntimeError as e:
            assert "Function 'InnerBackward' returned nan values in its 1th output." in str(e)
    messages = [str(m.message) for m in w]
    failing = [m for m in messages if m.startswith("Error detected in InnerBackward.")]
    induced = [m for m in messages if "Previous calculation was induced by OuterBackward." in m]
    assert len(failing) == 1 and "Inner.apply" in failing[0]
    assert len(induced) == 1 and "Outer.apply" in induced[0]
    assert messages.index(failing[0]) < messages.index(induced[0])


def test_custom_function_graph_built_by_its_backward_is_freed():
    # a Function returning its saved input as-is saves it as its output; unpacked in a
    # backward that builds a graph (create_graph), it leads back to the Function's own node,
    # which must not stay alive through its context (PyTorch's
    # test_nested_anomaly_printstack_cleanup, without the anomaly)
    import weakref

    class Same(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return x * g

    class Marker:
        pass

    def scope():
        inp = torch.rand(1, requires_grad=True)
        out = Same.apply(inp)
        (g,) = torch.autograd.grad(out, (inp,), create_graph=True)
        assert torch.allclose(g, inp)
        marker = Marker()
        out.grad_fn.metadata[0] = marker
        return out, weakref.ref(marker)

    out, ref = scope()
    assert ref() is not None
    del out
    assert ref() is None
