"""Engine semantics where ferrograd once gave silent wrong answers, against PyTorch 2.15's
recorded behaviour (each value and refusal below was printed by PyTorch on the same program)."""

import ferrograd as torch
import pytest
from ferrograd.autograd import Variable

F = torch.nn.functional

SECOND_TIME = "Trying to backward through the graph a second time"

# ops whose node PyTorch frees after a backward without retain_graph (it saves a wrapped number,
# indices or a mask), so a second backward is refused
REFUSED_TWICE = {
    "x*2": lambda x: x * 2,
    "2*x": lambda x: 2 * x,
    "x/2": lambda x: x / 2,
    "x[[0,2]]": lambda x: x[[0, 2]],
    "x[mask]": lambda x: x[x > 0],
    "max(0)": lambda x: x.max(0)[0],
    "index_select": lambda x: x.index_select(0, torch.tensor([0, 1])),
    "gather": lambda x: x.gather(0, torch.tensor([0, 1])),
    "masked_fill": lambda x: x.masked_fill(x > 0, 0.0),
    "sort": lambda x: x.sort()[0],
    "topk": lambda x: x.topk(2)[0],
}
# ops whose nodes save nothing in PyTorch: a second backward runs and accumulates again
ALLOWED_TWICE = {
    "x+2": lambda x: x + 2,
    "x-2": lambda x: x - 2,
    "x[0]": lambda x: x[0],
    "x[1:]": lambda x: x[1:],
    "sum": lambda x: x.sum(),
    "clone": lambda x: x.clone(),
    "neg": lambda x: -x,
    "cat": lambda x: torch.cat([x, x]),
    "reshape": lambda x: x.reshape(3, 1),
    "flip": lambda x: x.flip(0),
    "cumsum": lambda x: x.cumsum(0),
}


@pytest.mark.parametrize("name", sorted(REFUSED_TWICE))
def test_second_backward_refused_where_pytorch_freed_the_node(name):
    x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    y = REFUSED_TWICE[name](x).sum()
    y.backward()
    first = x.grad.clone()
    with pytest.raises(RuntimeError, match=SECOND_TIME):
        y.backward()
    assert torch.equal(x.grad, first)  # the refused pass left the gradient alone


@pytest.mark.parametrize("name", sorted(ALLOWED_TWICE))
def test_second_backward_allowed_where_pytorch_saved_nothing(name):
    x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    y = ALLOWED_TWICE[name](x).sum()
    y.backward()
    first = x.grad.clone()
    y.backward()
    assert torch.equal(x.grad, first * 2)


def test_retain_grad_under_autograd_grad():
    # PyTorch: retained gradients are stored by autograd.grad too, for every node it visits
    a = torch.tensor(1.0, requires_grad=True)
    b = a * 2
    b.retain_grad()
    c = b * 3
    torch.autograd.grad(c, a, retain_graph=True)
    assert b.grad.item() == 3.0
    torch.autograd.grad(c, b, retain_graph=True)
    assert b.grad.item() == 6.0
    c.backward(inputs=[a], retain_graph=True)
    assert (b.grad.item(), a.grad.item()) == (9.0, 6.0)


def test_backward_inputs_non_leaf_retains_its_grad():
    a = torch.tensor(1.0, requires_grad=True)
    b = a.clone()
    log = []
    b.register_hook(lambda g: log.append("tensor") or g * 3)
    b.grad_fn.register_prehook(lambda gs: log.append("node") or tuple(g * 2 for g in gs))
    b.sum().backward(inputs=(b,))
    # the retained gradient sees the tensor hook's result, not the node pre-hook's
    assert log == ["tensor", "node"]
    assert b.grad.item() == 3.0 and b.retains_grad and a.grad is None


def test_variable_is_a_new_leaf():
    x = torch.ones(3, requires_grad=True)
    v = Variable(x, requires_grad=True)
    assert v is not x and v.is_leaf and v.requires_grad
    (v * 2).sum().backward()
    assert x.grad is None and v.grad.tolist() == [2.0, 2.0, 2.0]
    with torch.no_grad():
        v.add_(1)
    assert x.tolist() == [2.0, 2.0, 2.0]  # the elements are shared


def test_accumulate_grad_hook_order():
    # PyTorch: tensor pre-hook, AccumulateGrad pre-hook, post-accumulate hook, AccumulateGrad
    # post-hook, so .grad is ((1 - 2) / 5 + 0.5) * 10 = 3
    t = torch.tensor([1.0, 1.0, 1.0], requires_grad=True)
    acc = t.view_as(t).grad_fn.next_functions[0][0]
    t.register_hook(lambda g: g.sub(2.0))
    acc.register_prehook(lambda gs: (gs[0].div(5.0),))

    def post_accumulate(x):
        x.grad.add_(0.5)

    t.register_post_accumulate_grad_hook(post_accumulate)

    def post(grad_in, grad_out):
        t.grad = grad_out[0].mul(10)

    acc.register_hook(post)
    t.sum().backward()
    assert [round(v, 5) for v in t.grad.tolist()] == [3.0, 3.0, 3.0]


def test_grad_with_respect_to_gradient_edges():
    from ferrograd.autograd.graph import get_gradient_edge, increment_version

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    h = x.clone()
    out = (h * h).sum()
    ref = torch.autograd.grad(out, (x, h), retain_graph=True)
    edges = (get_gradient_edge(x), get_gradient_edge(h))
    assert type(edges[0].node).__name__ == "AccumulateGrad" and edges[1].output_nr == 0
    new = torch.autograd.grad(out, edges)
    assert [g.tolist() for g in new] == [g.tolist() for g in ref] == [[2.0, 4.0]] * 2
    # the edge stays where the gradient flows even once the tensor has moved on
    y = x.clone()
    y_edge = get_gradient_edge(y)
    out = (y * 3).sum()
    with torch.no_grad():
        y.mul_(2)
    assert torch.autograd.grad(out, y_edge)[0].tolist() == [3.0, 3.0]
    v = x._version
    increment_version(x)
    assert x._version == v + 1


@pytest.mark.parametrize(
    ("hook_forward", "hook_backward", "factor"),
    [(True, False, 2.0), (False, True, 4.0), (True, True, 8.0)],
)
def test_saved_tensor_hooks_through_double_backward(hook_forward, hook_backward, factor):
    # PyTorch's test_default_saved_tensors_hooks_double_backward: the unpacked tensor takes the
    # saved tensor's place in the graph (the pack hook's `2 * x` is not differentiated), so
    # d2/da2 of sum(a**3) is 6a times 2 per saved copy of a that the hook doubled
    import contextlib

    def hooks():
        return torch.autograd.graph.saved_tensors_hooks(lambda x: 2 * x, lambda x: x)

    a = torch.ones(5, requires_grad=True)
    with hooks() if hook_forward else contextlib.nullcontext():
        s = torch.sum(a**3)
    with hooks() if hook_backward else contextlib.nullcontext():
        (g,) = torch.autograd.grad(s, (a,), create_graph=True)
        g.sum().backward()
    assert a.grad.tolist() == [6.0 * factor] * 5


def test_custom_function_saved_tensors_unpack_at_each_access():
    # PyTorch 2.15: ctx.saved_tensors unpacks at every access (the unpack hook runs each time,
    # giving new tensors), the saved tensors are freed after a backward without retain_graph
    calls = []

    class Twice(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            (b,) = ctx.saved_tensors
            calls.append(a is b)
            return g * a + g * b

    def pack(t):
        calls.append("pack")
        return t

    def unpack(t):
        calls.append("unpack")
        return t * 10

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        y = Twice.apply(x)
    y.sum().backward(retain_graph=True)
    assert calls == ["pack", "unpack", "unpack", False]
    assert x.grad.tolist() == [20.0, 40.0]
    calls.clear()
    y.sum().backward()
    assert calls == ["unpack", "unpack", False]
    assert x.grad.tolist() == [40.0, 80.0]
    with pytest.raises(RuntimeError, match=SECOND_TIME):
        y.sum().backward()


def test_legacy_resize_and_type_functions():
    # PyTorch 2.15's torch.autograd._functions.Resize / Type on the same program
    import warnings

    from ferrograd.autograd._functions import Resize, Type

    x = torch.arange(6.0, requires_grad=True)
    y = Resize.apply(x, (2, 3))
    assert (list(y.shape), y.grad_fn.name(), y._base is None) == ([2, 3], "ResizeBackward", False)
    (y * torch.arange(6.0).view(2, 3)).sum().backward()
    assert x.grad.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    with pytest.raises(RuntimeError, match=r"requested resize to 4x2 \(8 elements in total\)"):
        Resize.apply(x, (4, 2))
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        z = Type.apply(x, "torch.DoubleTensor")
    assert seen and seen[0].category is FutureWarning
    assert (z.dtype, z.grad_fn.name()) == (torch.float64, "TypeBackward")
    z.sum().backward()
    assert (x.grad.dtype, x.grad.tolist()) == (torch.float32, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0])


def test_out_of_another_shape_is_resized():
    # PyTorch 2.15: an out= tensor of another shape is resized (a warning when it had elements)
    import warnings

    o = torch.empty(2)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        r = torch.matmul(torch.ones(3), torch.ones(3), out=o)
    assert r is o and list(o.shape) == [] and o.item() == 3.0
    assert [w.category for w in seen] == [UserWarning]
    assert str(seen[0].message).startswith(
        "An output with one or more elements was resized since it had shape [2], which does "
        "not match the required output shape []."
    )
    e = torch.empty(0)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        torch.add(torch.ones(2, 2), 1, out=e)
    assert (list(e.shape), len(seen)) == ([2, 2], 0)
    o2 = torch.zeros(5)
    version = o2._version
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.add(torch.ones(2, 2), 1, out=o2)
    assert (o2.stride(), o2.tolist(), o2._version > version) == ((2, 1), [[2.0, 2.0]] * 2, True)


def test_autograd_log_of_executed_nodes():
    # PyTorch 2.15 with torch._logging.set_logs(autograd=logging.DEBUG): one record per node a
    # backward pass executes, in the engine's order (addresses elided)
    import logging
    import re

    records = []

    class Capture(logging.Handler):
        def emit(self, record):
            records.append(re.sub(r"0x[0-9a-f]+", "0x", record.getMessage()))

    logger = logging.getLogger("ferrograd.autograd")
    capture = Capture()
    logger.addHandler(capture)
    try:
        torch._logging.set_logs(autograd=logging.DEBUG)
        a = torch.rand(10, requires_grad=True)
        b = a.mul(2).div(3).sum()
        torch.autograd.backward((b, b.clone()))
        x = torch.ones(2, 3, dtype=torch.float64, requires_grad=True)
        (x * 2).sum().backward()
        i = torch.ones(2, requires_grad=True)
        torch.autograd.grad((i[[0]] * 1).sum(), i)
        torch._logging.set_logs()
        (x * 3).sum().backward()
    finally:
        logger.removeHandler(capture)
        torch._logging.set_logs()
    expected = [
        ("CloneBackward0", "f32[]"),
        ("SumBackward0", "f32[]"),
        ("DivBackward0", "f32[10]"),
        ("MulBackward0", "f32[10]"),
        ("AccumulateGrad", "f32[10]"),
        ("SumBackward0", "f64[]"),
        ("MulBackward0", "f64[2, 3]"),
        ("AccumulateGrad", "f64[2, 3]"),
        ("SumBackward0", "f32[]"),
        ("MulBackward0", "f32[1]"),
        ("IndexBackward0", "f32[1]"),
    ]
    assert records == [
        f"Executing: <{node} object at 0x> with grad_outputs: [{grad}]" for node, grad in expected
    ]
    with pytest.raises(TypeError, match="unexpected keyword argument 'nonsense'"):
        torch._logging.set_logs(nonsense=1)


def test_one_tensor_functions_take_out():
    # PyTorch 2.15 on the same calls: torch.sin(x, out=o) writes into o and returns it
    x = torch.tensor([0.5, 1.0, 2.0])
    o = torch.empty(3)
    assert torch.sin(x, out=o) is o
    assert [round(v, 6) for v in o.tolist()] == [0.479426, 0.841471, 0.909297]
    resized = torch.empty(0)
    torch.exp(x, out=resized)
    assert [round(v, 5) for v in resized.tolist()] == [1.64872, 2.71828, 7.38906]
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired"):
        torch.sqrt(torch.tensor([1, 2]), out=torch.empty(2, dtype=torch.int64))
    g = torch.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"neg\(\): functions with out=\.\.\. arguments"):
        torch.neg(g, out=torch.empty(3))
    with torch.no_grad():
        torch.neg(g, out=o)
    assert o.tolist() == [-1.0, -1.0, -1.0]
    with pytest.raises(TypeError):
        torch.sin(3)


def test_the_grad_object_lives_as_long_as_the_gradient():
    """PyTorch's PyObject preservation for ``.grad`` (test_grad_thread_safety): a weak
    reference to ``x.grad`` stays alive while ``x`` holds that gradient, and dies when it is
    replaced."""
    import gc
    import weakref

    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (x**2).sum().backward()
    ref = weakref.ref(x.grad)
    gc.collect()
    assert ref() is x.grad and ref().tolist() == [2.0, 4.0, 6.0]
    (x**2).sum().backward()  # accumulated in place: the same gradient, the same object
    assert ref() is x.grad and x.grad.tolist() == [4.0, 8.0, 12.0]
    x.grad = None
    gc.collect()
    assert ref() is None
