"""Gradients are bitwise identical whatever the number of kernel threads."""

import ferrograd as torch
import numpy as np


def _gradients():
    torch.manual_seed(7)
    # depth 500: two blocks of the matrix product's depth loop; 300 columns: split by columns
    # with 2 threads, by rows with 8
    a = torch.randn(300, 500, requires_grad=True)
    b = torch.randn(500, 300, requires_grad=True)
    x = torch.randn(1 << 17, requires_grad=True)
    h = (a @ b).tanh()
    loss = h.sum() + (x.sin() * x).sum() + (h * h).mean()
    loss.backward()
    return [t.grad.numpy().copy() for t in (a, b, x)] + [np.array(loss.item())]


def test_gradients_do_not_depend_on_thread_count():
    """1, 2 and 8 threads give the same bits (fixed chunking, fixed summation order)."""
    before = torch.get_num_threads()
    try:
        results = []
        for n in (1, 2, 8):
            torch.set_num_threads(n)
            assert torch.get_num_threads() == n
            results.append(_gradients())
        for other in results[1:]:
            for ref, got in zip(results[0], other):
                assert ref.tobytes() == got.tobytes()
    finally:
        torch.set_num_threads(before)


def _fan_in(hook=None):
    """Six branches of different depths feed one node: its six gradients arrive in an order
    that depends on timing when several threads run the graph (128x128 nodes: small enough
    that the engine runs branches side by side, Note [When branches run in parallel])."""
    torch.manual_seed(3)
    x = torch.randn(128, 128, requires_grad=True)
    ws = [torch.randn(128, 128) / 11 for _ in range(6)]
    h = x.tanh()
    total = None
    for k, w in enumerate(ws):
        y = h
        for _ in range(k + 1):
            y = (y @ w).sin()
            if hook is not None and k == 3:
                y.register_hook(hook)
        part = y.sum() * (k + 1)
        total = part if total is None else total + part
    total.backward()
    return x.grad.numpy().copy()


def _with_threads(n, fn):
    before = torch.get_num_threads()
    try:
        torch.set_num_threads(n)
        return fn()
    finally:
        torch.set_num_threads(before)


def test_fan_in_sums_do_not_depend_on_thread_count_or_timing():
    ref = _with_threads(1, _fan_in)
    for n in (2, 8, 2, 8):
        assert _with_threads(n, _fan_in).tobytes() == ref.tobytes()
    # and they are the right sums: float64 by hand through the same graph
    torch.manual_seed(3)
    x = torch.randn(128, 128).numpy().astype(np.float64)
    ws = [(torch.randn(128, 128) / 11).numpy().astype(np.float64) for _ in range(6)]
    h = np.tanh(x)
    gh = np.zeros_like(h)
    for k, w in enumerate(ws):
        ys = [h]
        for _ in range(k + 1):
            ys.append(np.sin(ys[-1] @ w))
        g = np.full_like(h, k + 1.0)
        for j in range(k + 1, 0, -1):
            g = (g * np.cos(ys[j - 1] @ w)) @ w.T
        gh += g
    want = gh * (1 - h * h)
    assert np.allclose(ref, want, rtol=1e-3, atol=1e-3 * np.abs(want).max())


def test_hooks_run_and_errors_surface_when_nodes_run_on_several_threads():
    seen = []

    def double(g):
        seen.append(g.shape)
        return g * 2

    ref = _with_threads(1, lambda: _fan_in(double))
    calls = len(seen)
    assert calls == 4
    assert _with_threads(2, lambda: _fan_in(double)).tobytes() == ref.tobytes()
    assert len(seen) == 2 * calls

    def fail(g):
        raise ValueError("hook failed on purpose")

    for n in (1, 2):
        try:
            _with_threads(n, lambda: _fan_in(fail))
        except ValueError as e:
            assert "hook failed on purpose" in str(e)
        else:
            raise AssertionError("the hook's error did not surface")


def test_autograd_grad_captures_the_same_gradients_on_several_threads():
    def run():
        torch.manual_seed(5)
        x = torch.randn(128, 128, requires_grad=True)
        ws = [torch.randn(128, 128) / 11 for _ in range(4)]
        h = x.tanh()
        total = sum(((h @ w).sin() @ w).cos().sum() for w in ws)
        gx, gh = torch.autograd.grad(total, [x, h])
        assert x.grad is None  # grad() accumulates nothing
        return gx.numpy().copy(), gh.numpy().copy()

    gx1, gh1 = _with_threads(1, run)
    gx2, gh2 = _with_threads(2, run)
    assert gx1.tobytes() == gx2.tobytes() and gh1.tobytes() == gh2.tobytes()
    torch.manual_seed(5)
    h = np.tanh(torch.randn(128, 128).numpy().astype(np.float64))
    assert np.allclose(gx1, gh1 * (1 - h * h), rtol=1e-4, atol=1e-6)


def _double_backward():
    """A gradient penalty: the first backward builds a graph (create_graph) on several threads,
    the second runs through the nodes it made."""
    torch.manual_seed(11)
    x = torch.randn(200, 200, requires_grad=True)
    ws = [torch.randn(200, 200) / 15 for _ in range(5)]
    h = x.tanh()
    total = sum(((h @ w).sin() @ w).tanh().sum() * (k + 1) for k, w in enumerate(ws))
    (g,) = torch.autograd.grad(total, [h], create_graph=True)
    (g * g).sum().backward()
    return x.grad.numpy().copy()


def test_double_backward_does_not_depend_on_thread_count():
    ref = _with_threads(1, _double_backward)
    for n in (2, 8, 2, 8, 2):
        assert _with_threads(n, _double_backward).tobytes() == ref.tobytes()


def test_lstm_layers_do_not_depend_on_thread_count():
    """The batch rows of an LSTM layer run in groups on the kernel threads: outputs and every
    gradient are the same bits with one thread or two (batch 33: uneven groups)."""
    results, before = [], torch.get_num_threads()
    for threads in (1, 2):
        torch.set_num_threads(threads)
        torch.manual_seed(0)
        lstm = torch.nn.LSTM(8, 16, num_layers=2)
        x = torch.randn(7, 33, 8, requires_grad=True)
        out, (h, c) = lstm(x)
        (out.sin().sum() + h.sum() + c.pow(2).sum()).backward()
        grads = [p.grad.tolist() for p in lstm.parameters()]
        results.append((out.tolist(), x.grad.tolist(), grads))
    torch.set_num_threads(before)
    assert results[0] == results[1]


def _batched_products():
    """Batched products small enough to run one per thread (a head's scores), with a
    transposed operand, a broadcast batch and an odd batch count; values and gradients."""
    torch.manual_seed(5)
    q = torch.randn(2, 5, 48, 32, requires_grad=True)
    k = torch.randn(2, 5, 48, 32, requires_grad=True)
    w = torch.randn(32, 40, requires_grad=True)
    scores = q @ k.transpose(-2, -1)
    mixed = q @ w.expand(2, 5, 32, 40)
    (scores.tanh().sum() + mixed.sin().sum()).backward()
    outs = [scores, mixed, q.grad, k.grad, w.grad]
    return [t.detach().numpy().copy() for t in outs]


def test_batched_products_do_not_depend_on_thread_count_and_match_float64():
    results = [_with_threads(n, _batched_products) for n in (1, 2, 8, 2)]
    for other in results[1:]:
        for ref, got in zip(results[0], other):
            assert ref.tobytes() == got.tobytes()
    torch.manual_seed(5)
    q = torch.randn(2, 5, 48, 32).numpy().astype(np.float64)
    k = torch.randn(2, 5, 48, 32).numpy().astype(np.float64)
    w = torch.randn(32, 40).numpy().astype(np.float64)
    scores, mixed = results[0][:2]
    np.testing.assert_allclose(scores, q @ k.swapaxes(-2, -1), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(mixed, q @ w, rtol=1e-5, atol=1e-5)
