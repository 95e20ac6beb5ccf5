"""Engine and surface behaviour found by PyTorch's own autograd suite (round 6): mutating
tensors saved for backward, pack-hook errors, ``_foreach_*``, ``_backward_hooks``, attributes
on tensors, and gradient edges as the outputs of ``grad``/``backward``.

Every expectation here is PyTorch 2.15's: the file also passes with ``import torch``."""

import copy
import pickle
from collections import OrderedDict

import ferrograd as torch
import pytest
from ferrograd.autograd.graph import allow_mutation_on_saved_tensors, get_gradient_edge

# --- allow_mutation_on_saved_tensors ---------------------------------------------------------


def test_mutating_a_saved_tensor_is_refused_outside_the_context():
    a = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    b = a.clone()
    out = (b**2).sum()
    b.sin_()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.backward()


def test_mutation_on_saved_tensors_keeps_the_saved_value():
    a = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    with allow_mutation_on_saved_tensors() as ctx:
        b = a.clone()
        out = (b**2).sum()
        b.sin_()
        assert len(ctx.cloned) == 1
        out.backward()
    assert a.grad.tolist() == [1.0, -2.0, 4.0]
    assert len(ctx.cloned) == 0


def test_mutation_through_a_view_of_the_saved_tensor():
    a = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    with allow_mutation_on_saved_tensors():
        b = a.clone()
        out = (b**3).sum()
        b[:1].mul_(10)
        out.backward()
    assert a.grad.tolist() == [[3.0, 12.0], [27.0, 48.0]]


def test_optimizer_step_on_a_saved_parameter_is_seen():
    with allow_mutation_on_saved_tensors() as ctx:
        w = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
        out = (w * w).sum()
        w.grad = torch.ones(2)
        torch.optim.SGD([w], lr=0.5).step()
        assert len(ctx.cloned) == 1
        w.grad = None
        out.backward()
    assert w.tolist() == [0.5, 1.5]
    assert w.grad.tolist() == [2.0, 4.0]


def test_mutation_context_refuses_nesting_and_backward_outside():
    with allow_mutation_on_saved_tensors():
        with pytest.raises(RuntimeError, match="cannot be nested"):
            with allow_mutation_on_saved_tensors():
                pass
        a = torch.tensor([1.0, 2.0], requires_grad=True)
        out = (a**2).sum()
    with pytest.raises(AssertionError, match="outside of the 'allow_mutation_on_saved_tensors'"):
        out.backward()


# --- saved-tensor hooks ----------------------------------------------------------------------


def test_pack_hook_error_is_raised_by_the_op():
    class PackError(Exception):
        pass

    def pack(t):
        raise PackError("pack")

    a = torch.tensor(1.0, requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        with pytest.raises(PackError, match="pack"):
            torch.sin(a)
    # the next op is not affected
    assert torch.sin(a).item() == pytest.approx(0.8414709848)


# --- _foreach_* --------------------------------------------------------------------------------


def test_foreach_values_and_gradients():
    a = [torch.tensor(1.0, requires_grad=True), torch.tensor(2.0, requires_grad=True)]
    with allow_mutation_on_saved_tensors():  # exp saves its result, which add_ changes
        b = torch._foreach_exp(a)
        assert isinstance(b, tuple)
        b = list(b)
        assert torch._foreach_add_(b, 1) is b
        (b[0] + b[1]).backward()
    assert [g.item() for g in (a[0].grad, a[1].grad)] == pytest.approx([2.718281828, 7.389056099])
    assert [t.item() for t in torch._foreach_mul(a, [2.0, 3.0])] == [2.0, 6.0]
    assert [t.item() for t in torch._foreach_sub(a, a, alpha=2)] == [-1.0, -2.0]
    assert [t.item() for t in torch._foreach_maximum(a, 1.5)] == [1.5, 2.0]
    c = [torch.zeros(()), torch.ones(())]
    torch._foreach_addcmul_(c, a, a, value=2)
    assert [t.item() for t in c] == [2.0, 9.0]
    assert [t.item() for t in torch._foreach_lerp(c, [torch.zeros(()), torch.zeros(())], 0.5)] == [
        1.0,
        4.5,
    ]
    assert [t.item() for t in torch._foreach_norm([torch.tensor([3.0, 4.0])])] == [5.0]


def test_foreach_errors():
    a = [torch.ones(2), torch.ones(2)]
    with pytest.raises(RuntimeError, match="same number of tensors, got 2 and 1"):
        torch._foreach_add(a, [a[0]])
    with pytest.raises(RuntimeError, match="at least one tensor"):
        torch._foreach_exp([])
    with pytest.raises(RuntimeError, match="same number of elements as scalar list"):
        torch._foreach_mul(a, [1.0, 2.0, 3.0])
    with pytest.raises(TypeError, match="must be tuple of Tensors, not Tensor"):
        torch._foreach_exp(torch.ones(2))


# --- _backward_hooks and attributes ------------------------------------------------------------


def test_legacy_backward_hooks_dict():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    assert x._backward_hooks is None
    x._backward_hooks = OrderedDict(scale=lambda g: g * 10)
    (x * 2).sum().backward()
    assert x.grad.tolist() == [20.0, 20.0]
    with pytest.raises(RuntimeError, match="Deletion of _backwards_hooks not allowed"):
        del x._backward_hooks
    # hooks on tensors that do not require grad are kept, never called
    y = torch.ones(2)
    y._backward_hooks = OrderedDict(fail=lambda g: 1 / 0)
    (y * x).sum().backward()


def test_attributes_on_parameters_are_kept_by_pickle():
    p = torch.nn.Parameter(torch.ones(2))
    p.tag = 1
    assert pickle.loads(pickle.dumps(p)).tag == 1
    assert not hasattr(copy.deepcopy(p), "tag")  # Parameter.__deepcopy__ copies data only


# --- gradient edges as outputs -----------------------------------------------------------------


def _two_step(x):
    mid = x.sin().cos().sum()
    out = mid.exp().sin()
    return out, get_gradient_edge(mid)


def test_grad_from_a_gradient_edge_equals_the_chain():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    out, edge = _two_step(x)
    (g_mid,) = torch.autograd.grad(out, (edge,))
    (g_x,) = torch.autograd.grad(edge, (x,), grad_outputs=(g_mid,))
    out, _ = _two_step(x)
    (reference,) = torch.autograd.grad(out, (x,))
    assert g_x.tolist() == pytest.approx(reference.tolist())
    # a scalar edge needs no gradient; backward from it accumulates the same
    _, edge = _two_step(x)
    torch.autograd.backward(edge)
    (direct,) = torch.autograd.grad(x.sin().cos().sum(), (x,))
    assert x.grad.tolist() == pytest.approx(direct.tolist())


def test_gradient_edge_outputs_are_checked_as_tensors():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    edge = get_gradient_edge(x.sin() * 1)
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar output"):
        torch.autograd.grad(edge, (x,), retain_graph=True)
    with pytest.raises(RuntimeError, match="Mismatch in shape"):
        torch.autograd.grad(edge, (x,), grad_outputs=torch.ones(3))


def test_backward_inputs_may_be_gradient_edges():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = torch.tensor([3.0, 4.0], requires_grad=True)
    mid = x * 2
    out = (mid * y).sum()
    torch.autograd.backward(out, inputs=(get_gradient_edge(mid), y))
    assert x.grad is None
    assert y.grad.tolist() == [2.0, 4.0]


# --- _raw_saved_<name>: SavedTensor --------------------------------------------------------------


def test_raw_saved_tensor_data_and_hooks():
    def pack(t):
        return t

    def unpack(t):
        return t

    a = torch.tensor(2.0, requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        b = a**2
    c = b.exp()
    d = c**2
    assert b.grad_fn._raw_saved_self.data is a  # the pack hook's value, as it is
    assert b.grad_fn._raw_saved_self.unpack_hook is unpack
    assert c.grad_fn._raw_saved_result.data is not c  # a saved output is kept detached
    assert c.grad_fn._raw_saved_result.unpack_hook is None
    assert d.grad_fn._raw_saved_self.data is c  # a saved input is kept itself


def test_register_hooks_on_one_saved_tensor():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    y = a * a
    y.grad_fn._raw_saved_self.register_hooks(lambda x: 2 * x, lambda x: x)
    assert y.grad_fn._saved_self.tolist() == [2.0, 4.0]
    with pytest.raises(RuntimeError, match="hooks have already been set"):
        y.grad_fn._raw_saved_self.register_hooks(lambda x: x, lambda x: x)
    y.sum().backward()
    assert a.grad.tolist() == [3.0, 6.0]  # a * 1 + (2 a) * 1


def test_register_hooks_refusals():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    y = a.exp()

    def inplace(x):
        x += 1
        return x

    with pytest.raises(RuntimeError, match="pack hook is modifying its input in place"):
        y.grad_fn._raw_saved_result.register_hooks(inplace, lambda x: x)
    y = a * a
    y.grad_fn._raw_saved_self.register_hooks(lambda x: x, lambda x: 1)
    with pytest.raises(
        TypeError, match="unpack_hook expected to be a Tensor but got result of type int"
    ):
        _ = y.grad_fn._saved_self
    y = a.exp()
    y.sum().backward()
    with pytest.raises(RuntimeError, match="after it has been freed"):
        y.grad_fn._raw_saved_result.register_hooks(lambda x: x, lambda x: x)
    with pytest.raises(RuntimeError, match="SavedTensor object from Python is forbidden"):
        torch.autograd.SavedTensor()


def test_saved_tensor_hooks_entered_during_backward_end_with_it():
    packed = []
    hooks = torch.autograd.graph.saved_tensors_hooks(lambda t: packed.append(1) or t, lambda t: t)

    def unpack(t):
        hooks.__enter__()  # never exited: the backward pass ends it
        return t

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(lambda t: t, unpack):
        y = x.sin().sum()
    y.backward()
    x.exp()
    assert packed == []


# --- out= ----------------------------------------------------------------------------------------


def test_out_writes_the_result_into_the_given_tensor():
    a, b = torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0])
    x = torch.zeros(2)
    assert torch.mul(a, b, out=x) is x
    assert x.tolist() == [3.0, 8.0] and x._version == 1
    torch.add(b, 1, alpha=2, out=x)
    assert x.tolist() == [5.0, 6.0]
    torch.matmul(torch.ones(2, 2), b, out=x)
    assert x.tolist() == [7.0, 7.0]
    xd = torch.zeros(2, dtype=torch.float64)
    torch.atan2(b, a, out=xd)
    assert xd.tolist() == pytest.approx([1.2490457724, 1.1071487178])
    with pytest.raises(
        RuntimeError, match="result type Float can't be cast to the desired output type Long"
    ):
        torch.mul(b, 0.5, out=torch.zeros(2, dtype=torch.long))


def test_out_is_refused_when_autograd_would_record():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    x = torch.zeros(2)
    with pytest.raises(
        RuntimeError, match=r"mul\(\): functions with out=\.\.\. arguments don't support"
    ):
        torch.mul(a, a, out=x)
    with pytest.raises(RuntimeError, match="out="):
        torch.div(torch.ones(2), 2, out=torch.zeros(2, requires_grad=True))
    with torch.no_grad():
        torch.mul(a, a, out=x)
    assert x.tolist() == [1.0, 4.0]
    with torch.inference_mode():
        c = torch.ones(2)
    with pytest.raises(
        RuntimeError, match="Inplace update to inference tensor outside InferenceMode"
    ):
        torch.mul(x, x, out=c)


def test_out_write_into_a_saved_tensor_is_seen():
    a = torch.tensor([1.0], requires_grad=True)
    b = torch.tensor([1.0])
    with allow_mutation_on_saved_tensors() as ctx:
        out = a * b
        torch.mul(torch.tensor([2.0]), 3, out=b)
        assert len(ctx.cloned) == 1
        out.backward()
    assert a.grad.tolist() == [1.0]


# --- deep reentrant backward -----------------------------------------------------------------


def test_deep_reentrant_backward_does_not_exhaust_the_stack():
    class Reentrant(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            with torch.enable_grad():
                ctx.x = torch.autograd.Variable(x.detach(), requires_grad=True) - 1
            return ctx.x.detach()

        @staticmethod
        def backward(ctx, g):
            if ctx.x < 0:
                return g
            with torch.enable_grad():
                Reentrant.apply(ctx.x).sum().backward()
            return g

    # each level nests a backward pass (and several Python frames) inside the one before
    v = torch.tensor(400.0, requires_grad=True)
    Reentrant.apply(v).sum().backward()
    assert v.grad.item() == 1.0


# --- profiler events ---------------------------------------------------------------------------


def test_profiler_events_nest_and_average_as_pytorch():
    from ferrograd.autograd.profiler_util import EventList, FunctionEvent, FunctionEventAvg

    events = EventList(
        FunctionEvent(id=k, name="op", thread=0, start_us=a, end_us=b)
        for k, (a, b) in enumerate([(0, 2), (1, 2), (1, 3)])
    )
    events._populate_cpu_children()
    assert [[c.id for c in e.cpu_children] for e in events] == [[], [], [1]]
    assert events[2].self_cpu_time_total == 1
    avg = FunctionEventAvg()
    for e in events:
        avg.add(e)
    assert (avg.key, avg.count, avg.cpu_time_total, avg.self_cpu_time_total) == ("op", 3, 5, 4)
    assert avg.cpu_time == 5 / 3


def test_profiler_records_ops():
    x = torch.ones(3, 3)
    with torch.autograd.profiler.profile() as prof:
        assert torch.autograd._profiler_enabled()
        x * 2 + 4
    assert not torch.autograd._profiler_enabled()
    names = {e.name for e in prof.function_events}
    assert {"aten::mul", "aten::add"} <= names


def test_bernoulli_method_draws_pytorchs_numbers():
    torch.manual_seed(0)
    assert torch.rand(6).bernoulli(0.5).tolist() == [0.0, 0.0, 0.0, 1.0, 1.0, 0.0]
    torch.manual_seed(0)
    a = torch.rand(4, 4).bernoulli()
    torch.manual_seed(0)
    assert torch.bernoulli(torch.rand(4, 4)).equal(a)
    assert a.sum().item() == 5.0


def test_gather_and_scatter_add_take_zero_dim_tensors_as_one_element():
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = torch.gather(x, 0, torch.tensor(2))
    assert out.shape == () and out.item() == 3.0
    out.backward(torch.tensor(2.0))
    assert x.grad.tolist() == [0.0, 0.0, 2.0]
    s = torch.tensor(0.5, requires_grad=True)
    both = torch.gather(s, 0, torch.tensor(0))
    both.backward(torch.tensor(3.0))
    assert s.grad.item() == 3.0
    assert torch.gather(s, 0, torch.zeros(2, dtype=torch.long)).tolist() == [0.5, 0.5]
    with pytest.raises(RuntimeError, match="index 1 is out of bounds for dimension 0 with size 1"):
        torch.gather(s, 0, torch.tensor(1))
    scattered = torch.zeros(3).scatter_add(0, torch.tensor(0), torch.tensor(5.0))
    assert scattered.tolist() == [5.0, 0.0, 0.0]


def test_views_of_inference_tensors_are_inference_tensors_without_history():
    with torch.inference_mode():
        c = torch.ones(1, 2, 3, requires_grad=True)
        inside = c.view(-1)
    assert not inside._is_view() and inside._base is None and not inside.requires_grad
    outside = c.view(-1)
    assert torch.is_inference(outside)
    assert not outside._is_view() and not outside.requires_grad and outside.is_leaf
    x = torch.ones(2)
    with torch.inference_mode():
        w = x.view(-1)  # a view of a normal tensor stays a view
    assert w._is_view() and w._base is x and not torch.is_inference(w)
