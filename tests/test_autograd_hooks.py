"""``Tensor.register_post_accumulate_grad_hook`` and ``autograd.graph.saved_tensors_hooks`` as
PyTorch runs them (the same assertions pass with ``torch``): when each hook runs, with what,
and what the backward pass computes from packed tensors."""

import ferrograd as torch
import pytest


def test_post_accumulate_hook_sees_the_accumulated_grad():
    seen = []
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    handle = x.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.tolist()))
    (x * x).sum().backward()
    (x * 3).sum().backward()
    assert seen == [[2.0, 4.0, 6.0], [5.0, 7.0, 9.0]]
    torch.autograd.grad((x * 2).sum(), [x])  # .grad is not written: the hook does not run
    assert len(seen) == 2
    handle.remove()
    (x * 3).sum().backward()
    assert len(seen) == 2 and x.grad.tolist() == [8.0, 10.0, 12.0]


def test_post_accumulate_hook_refused_on_non_leaves_and_may_return_only_none():
    x = torch.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="non-leaf"):
        (x * 2).register_post_accumulate_grad_hook(lambda t: None)
    x.register_post_accumulate_grad_hook(lambda t: t)  # the tensor itself is allowed
    (x * 2).sum().backward()
    assert x.grad.tolist() == [2.0]
    for hook, error in ((lambda t: t * 1, RuntimeError), (lambda t: 5, TypeError)):
        y = torch.tensor([1.0], requires_grad=True)
        y.register_post_accumulate_grad_hook(hook)
        with pytest.raises(error):
            (y * 2).sum().backward()


def test_an_optimizer_step_in_the_hook():
    """The use PyTorch documents: updating each parameter as soon as its gradient is ready."""
    w = torch.tensor([1.0, -2.0], requires_grad=True)

    def sgd(p):
        with torch.no_grad():
            p -= 0.1 * p.grad
        p.grad = None

    w.register_post_accumulate_grad_hook(sgd)
    (w * w).sum().backward()
    assert w.tolist() == pytest.approx([0.8, -1.6]) and w.grad is None


def test_saved_tensors_hooks_pack_and_unpack():
    packed = []

    def pack(t):
        packed.append(tuple(t.shape))
        return ("box", t * 1)

    a = torch.tensor([1.0, 2.0], requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda v: v[1] * 2):
        y = (a * a).sum()  # saves a twice
        a.exp()  # saves its output
    assert packed == [(2,), (2,), (2,)]
    y.backward()  # d/da of a*a read through unpack: 2a -> (2a)·2 per factor
    assert a.grad.tolist() == [4.0, 8.0]
    z = (a * a).sum()  # outside the context: saved as usual
    a.grad = None
    z.backward()
    assert a.grad.tolist() == [2.0, 4.0]


def test_unpack_must_give_a_tensor():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(lambda t: 1, lambda v: v):
        w = (a * a).sum()
    with pytest.raises(TypeError, match="unpack_hook expected to be a Tensor"):
        w.backward()


def test_save_on_cpu_keeps_gradients():
    a = torch.tensor([0.5, 1.5], requires_grad=True)
    with torch.autograd.graph.save_on_cpu():
        y = (a.sin() * a).sum()
    y.backward()
    expected = [(v.cos() * v + v.sin()).item() for v in torch.tensor([0.5, 1.5])]
    assert a.grad.tolist() == pytest.approx(expected)
