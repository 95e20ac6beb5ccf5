"""Graph lifetime and engine behaviour: deep graphs without recursion, freeing, retain_grad,
per-thread grad mode, concurrent backward, higher-order derivatives and gradient accumulation."""

import gc
import json
import math
import os
import subprocess
import sys
import textwrap
import threading
import time
import weakref

import ferrograd as torch
import numpy as np
import pytest

CHAIN_LENGTH = 1_000_000
FACTOR = 1.0000001
SMALL_STACK = 256 * 1024


def f64(data, requires_grad=False):
    """A float64 tensor (tests pass NumPy arrays or exactly representable Python floats)."""
    return torch.tensor(data, dtype=torch.float64, requires_grad=requires_grad)


def run_in_small_stack_thread(fn):
    """Runs ``fn`` in a thread with a 256 KiB stack; re-raises its exception, returns its result."""
    result = {}

    def target():
        try:
            result["value"] = fn()
        except Exception as exc:
            result["error"] = exc

    old = threading.stack_size(SMALL_STACK)
    try:
        worker = threading.Thread(target=target)
        worker.start()
    finally:
        threading.stack_size(old)
    worker.join()
    if "error" in result:
        raise result["error"]
    return result["value"]


# --------------------------------------------------------------------------------------------
# deep chains
# --------------------------------------------------------------------------------------------


def deep_chain_backward_then_free():
    """Builds a 1,000,000-op chain, backpropagates, checks the gradient, then frees the graph."""
    timings = {}
    start = time.perf_counter()
    x = f64(1.0, requires_grad=True)
    y = x
    for _ in range(CHAIN_LENGTH):
        y = y * FACTOR
    timings["build"] = time.perf_counter() - start

    start = time.perf_counter()
    y.backward()
    timings["backward"] = time.perf_counter() - start
    assert x.grad is not None
    assert math.isclose(x.grad.item(), FACTOR**CHAIN_LENGTH, rel_tol=1e-6)
    assert math.isclose(y.item(), FACTOR**CHAIN_LENGTH, rel_tol=1e-6)

    start = time.perf_counter()
    del y
    gc.collect()
    timings["free"] = time.perf_counter() - start
    return timings


def deep_chain_dropped_without_backward():
    """Builds a 1,000,000-op chain and drops it without backward."""
    timings = {}
    start = time.perf_counter()
    x = f64(1.0, requires_grad=True)
    y = x
    for _ in range(CHAIN_LENGTH):
        y = y * FACTOR
    timings["build"] = time.perf_counter() - start
    assert y.requires_grad and y.grad_fn is not None

    start = time.perf_counter()
    del y
    gc.collect()
    timings["free"] = time.perf_counter() - start
    assert x.grad is None
    return timings


def _report(label, timings):
    parts = ", ".join(f"{k} {v:.2f}s" for k, v in timings.items())
    print(f"\n{label}: {parts}")


def test_deep_chain_backward_and_free_main_thread():
    """A 1,000,000-node chain backpropagates with the right gradient and is freed by ``del``
    without overflowing the main thread's stack."""
    _report("main thread, backward + free", deep_chain_backward_then_free())


def test_deep_chain_free_without_backward_main_thread():
    """A 1,000,000-node chain dropped without backward is freed without a crash."""
    _report("main thread, drop only", deep_chain_dropped_without_backward())


def test_deep_chain_backward_and_free_small_stack_thread():
    """Same deep chain backward and free inside a thread with a 256 KiB stack (no recursion)."""
    _report(
        "256 KiB thread, backward + free", run_in_small_stack_thread(deep_chain_backward_then_free)
    )


def test_deep_chain_free_without_backward_small_stack_thread():
    """Same deep chain dropped without backward inside a thread with a 256 KiB stack."""
    _report(
        "256 KiB thread, drop only", run_in_small_stack_thread(deep_chain_dropped_without_backward)
    )


def test_small_stack_helper_restores_stack_size():
    """The helper leaves the process-wide thread stack size as it found it."""
    before = threading.stack_size()
    run_in_small_stack_thread(lambda: None)
    assert threading.stack_size() == before


# --------------------------------------------------------------------------------------------
# freeing
# --------------------------------------------------------------------------------------------


def test_intermediate_freed_after_loss_deleted():
    """A weakref to an intermediate dies once the intermediate and the loss (which saved it)
    are deleted."""
    x = f64([1.0, 2.0, 3.0], requires_grad=True)
    h = x * 2
    loss = (h * h).sum()  # mul saves h
    ref = weakref.ref(h)
    del h
    gc.collect()
    del loss
    gc.collect()
    assert ref() is None


def test_intermediate_freed_after_backward_and_delete():
    """After backward, deleting the loss and the intermediate frees the intermediate; the
    leaf keeps its gradient."""
    x = f64([1.0, 2.0, 3.0], requires_grad=True)
    h = x.exp()
    loss = (h * x).sum()
    loss.backward()
    ref = weakref.ref(h)
    del h, loss
    gc.collect()
    assert ref() is None
    np.testing.assert_allclose(x.grad.numpy(), np.exp([1.0, 2.0, 3.0]) * (1 + np.array([1, 2, 3])))


def test_leaf_freed_after_graph_deleted():
    """Deleting the leaf and everything built from it frees the leaf (and its .grad)."""
    x = f64([1.0, 2.0], requires_grad=True)
    y = (x.sin() * x).sum()
    y.backward()
    leaf_ref = weakref.ref(x)
    grad_ref = weakref.ref(x.grad)
    del x, y
    gc.collect()
    assert leaf_ref() is None
    assert grad_ref() is None


def test_retained_grad_intermediate_freed():
    """An intermediate with retain_grad() is freed once nothing references it."""
    x = f64([1.0, 2.0], requires_grad=True)
    h = x * 3
    h.retain_grad()
    loss = (h * h).sum()
    loss.backward()
    ref = weakref.ref(h)
    del h, loss
    gc.collect()
    assert ref() is None


# Memory checks run in a fresh interpreter: in a long test session freed buffers stay in the
# allocator's heap and the resident set size no longer shows what the graph holds.
MEMORY_PRELUDE = """
import gc, json, os, sys
import ferrograd as torch

def rss_mb():
    gc.collect()
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20

BIG = 10_000_000  # float64 elements: 80 MB per tensor
x = torch.ones(BIG, dtype=torch.float64, requires_grad=True)
"""
BIG_MB = 10_000_000 * 8 / 2**20

needs_statm = pytest.mark.skipif(
    not os.path.exists("/proc/self/statm"), reason="needs /proc/self/statm (Linux)"
)


def run_memory_script(body):
    """Runs MEMORY_PRELUDE + ``body`` in a new interpreter; returns the dict it prints as JSON."""
    proc = subprocess.run(
        [sys.executable, "-c", MEMORY_PRELUDE + textwrap.dedent(body)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


@needs_statm
def test_saved_tensor_memory_released_when_graph_deleted():
    """The 80 MB intermediate saved by the graph is released once the loss is deleted
    (checks the Rust-side graph, not only the Python wrapper)."""
    r = run_memory_script(
        """
        h = x * 2
        loss = (h * h).sum()  # saves h
        del h
        with_graph = rss_mb()
        del loss
        print(json.dumps({"with_graph": with_graph, "without_graph": rss_mb()}))
        """
    )
    assert r["with_graph"] - r["without_graph"] > 0.75 * BIG_MB, r


@needs_statm
def test_backward_releases_saved_tensors():
    """backward() without retain_graph frees the saved 80 MB intermediate even though the
    loss tensor itself is still alive."""
    r = run_memory_script(
        """
        h = x * 2
        loss = (h * h).sum()
        del h
        before = rss_mb()
        loss.backward()
        x.grad = None
        assert loss.grad_fn is not None
        print(json.dumps({"before": before, "after": rss_mb()}))
        """
    )
    assert r["before"] - r["after"] > 0.75 * BIG_MB, r


@needs_statm
def test_retain_graph_keeps_saved_tensors():
    """backward(retain_graph=True) keeps the saved intermediate until the loss is deleted."""
    r = run_memory_script(
        """
        h = x * 2
        loss = (h * h).sum()
        del h
        loss.backward(retain_graph=True)
        x.grad = None
        retained = rss_mb()
        del loss
        print(json.dumps({"retained": retained, "released": rss_mb()}))
        """
    )
    assert r["retained"] - r["released"] > 0.75 * BIG_MB, r


@needs_statm
def test_repeated_chains_do_not_leak():
    """Building and dropping a 200,000-node chain repeatedly (with and without backward) does
    not grow memory: each chain's nodes are returned and reused by the next."""
    r = run_memory_script(
        """
        del x
        leaf = torch.tensor(1.0, dtype=torch.float64, requires_grad=True)
        start = rss_mb()
        after = []
        for i in range(4):
            y = leaf
            for _ in range(200_000):
                y = y * 1.0000001
            if i % 2:
                y.backward()
            del y
            after.append(rss_mb())
        print(json.dumps({"start": start, "after": after}))
        """
    )
    first_chain = r["after"][0] - r["start"]
    growth = r["after"][-1] - r["after"][0]
    # a leaked 200,000-node chain is tens of MiB; freed memory may also go back to the OS
    # entirely, making the first chain's footprint zero or negative
    assert growth < max(0.5 * first_chain, 4.0), r


def test_graph_freed_after_backward_second_backward_raises():
    """Without retain_graph the saved tensors are released by backward: a second backward
    through the same graph raises."""
    x = f64([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    y.backward()
    with pytest.raises(RuntimeError):
        y.backward()


def test_retain_graph_allows_second_backward():
    """With retain_graph=True a second backward works and accumulates."""
    x = f64([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), [4.0, 8.0])


# --------------------------------------------------------------------------------------------
# retain_grad
# --------------------------------------------------------------------------------------------


def test_retain_grad_on_non_leaf():
    """retain_grad() on a non-leaf populates its .grad after backward."""
    x = f64([1.0, 2.0, 3.0], requires_grad=True)
    h = x * 2
    h.retain_grad()
    assert h.retains_grad
    (h * h).sum().backward()
    assert h.grad is not None
    np.testing.assert_allclose(h.grad.numpy(), 2 * np.array([2.0, 4.0, 6.0]))
    np.testing.assert_allclose(x.grad.numpy(), 8 * np.array([1.0, 2.0, 3.0]))


def test_non_leaf_grad_is_none_without_retain_grad():
    """A non-leaf's .grad stays None after backward unless retain_grad() was called."""
    x = f64([1.0, 2.0, 3.0], requires_grad=True)
    h = x * 2
    assert not h.is_leaf
    assert not h.retains_grad
    (h * h).sum().backward()
    assert h.grad is None
    assert x.grad is not None


def test_retain_grad_accumulates():
    """A retained non-leaf gradient accumulates across backward calls like a leaf's."""
    x = f64([1.0, 2.0], requires_grad=True)
    h = x * 2
    h.retain_grad()
    loss = h.sum()
    loss.backward(retain_graph=True)
    loss.backward()
    np.testing.assert_allclose(h.grad.numpy(), [2.0, 2.0])


# --------------------------------------------------------------------------------------------
# threads
# --------------------------------------------------------------------------------------------


def test_no_grad_in_main_thread_does_not_affect_worker():
    """Inside ``no_grad`` on the main thread, a worker thread still records graphs."""
    x = f64([1.0, 2.0], requires_grad=True)
    seen = {}

    def worker():
        seen["enabled"] = torch.is_grad_enabled()
        seen["requires_grad"] = (x * 2).requires_grad

    with torch.no_grad():
        assert not torch.is_grad_enabled()
        t = threading.Thread(target=worker)
        t.start()
        t.join()
        assert not (x * 2).requires_grad
    assert seen == {"enabled": True, "requires_grad": True}


def test_no_grad_in_worker_does_not_affect_main_thread():
    """While a worker sits inside ``no_grad``, the main thread still records graphs."""
    x = f64([1.0, 2.0], requires_grad=True)
    inside = threading.Event()
    release = threading.Event()
    seen = {}

    def worker():
        with torch.no_grad():
            seen["worker_requires_grad"] = (x * 2).requires_grad
            inside.set()
            release.wait(10)
            seen["worker_requires_grad_after"] = (x * 2).requires_grad
        seen["worker_restored"] = (x * 2).requires_grad

    t = threading.Thread(target=worker)
    t.start()
    try:
        assert inside.wait(10)
        assert torch.is_grad_enabled()
        assert (x * 2).requires_grad
    finally:
        release.set()
        t.join()
    assert seen == {
        "worker_requires_grad": False,
        "worker_requires_grad_after": False,
        "worker_restored": True,
    }


def test_set_grad_enabled_false_is_per_thread():
    """set_grad_enabled(False) in a worker leaves the main thread's grad mode alone."""
    seen = {}

    def worker():
        torch.set_grad_enabled(False)
        seen["worker"] = torch.is_grad_enabled()

    t = threading.Thread(target=worker)
    t.start()
    t.join()
    assert seen["worker"] is False
    assert torch.is_grad_enabled()


def test_concurrent_backward_on_independent_graphs():
    """8 threads each run 50 backward passes on their own small graphs with correct results."""
    n_threads, n_graphs = 8, 50
    barrier = threading.Barrier(n_threads)
    errors = []

    def worker(tid):
        try:
            rng = np.random.default_rng(tid)
            barrier.wait(10)
            for _ in range(n_graphs):
                xa = rng.uniform(-1.0, 1.0, size=(3, 4))
                wa = rng.uniform(-1.0, 1.0, size=(4,))
                x = f64(xa, requires_grad=True)
                w = f64(wa, requires_grad=True)
                loss = ((x @ w).tanh() ** 2).sum() + (x * x).mean()
                loss.backward()
                t = np.tanh(xa @ wa)
                dz = 2 * t * (1 - t**2)
                np.testing.assert_allclose(
                    x.grad.numpy(), np.outer(dz, wa) + 2 * xa / xa.size, rtol=1e-10, atol=1e-12
                )
                np.testing.assert_allclose(w.grad.numpy(), xa.T @ dz, rtol=1e-10, atol=1e-12)
        except Exception as exc:
            errors.append((tid, exc))

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(n_threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


def test_concurrent_backward_into_shared_leaf_accumulates():
    """Concurrent backward passes from 8 threads (100 each) into one shared 10,000-element
    leaf accumulate every contribution (no lost updates)."""
    n_threads, n_graphs = 8, 100
    values = np.linspace(-1.0, 1.0, 10_000)
    w = f64(values, requires_grad=True)
    barrier = threading.Barrier(n_threads)
    errors = []

    def worker():
        try:
            barrier.wait(10)
            for _ in range(n_graphs):
                (w * w).sum().backward()
        except Exception as exc:
            errors.append(exc)

    threads = [threading.Thread(target=worker) for _ in range(n_threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    np.testing.assert_allclose(w.grad.numpy(), n_threads * n_graphs * 2 * values, rtol=1e-12)


# --------------------------------------------------------------------------------------------
# higher-order derivatives
# --------------------------------------------------------------------------------------------

POINTS = [-1.3, -0.2, 0.4, 1.7]


def _sigmoid(v):
    return 1 / (1 + np.exp(-v))


def second_derivative(fn, values):
    x = f64(values, requires_grad=True)
    (g,) = torch.autograd.grad(fn(x).sum(), x, create_graph=True)
    assert g.requires_grad
    (gg,) = torch.autograd.grad(g.sum(), x)
    return gg.numpy()


@pytest.mark.parametrize(
    "fn, expected",
    [
        (lambda x: x**3, lambda v: 6 * v),
        (lambda x: x.sin(), lambda v: -np.sin(v)),
        (lambda x: x.cos(), lambda v: -np.cos(v)),
        (lambda x: x.exp(), np.exp),
        (lambda x: x.tanh(), lambda v: -2 * np.tanh(v) * (1 - np.tanh(v) ** 2)),
        (lambda x: x.sigmoid(), lambda v: _sigmoid(v) * (1 - _sigmoid(v)) * (1 - 2 * _sigmoid(v))),
        (lambda x: x * x.sin(), lambda v: 2 * np.cos(v) - v * np.sin(v)),
    ],
    ids=["cube", "sin", "cos", "exp", "tanh", "sigmoid", "x_sin_x"],
)
def test_second_derivatives(fn, expected):
    """create_graph=True gives the known second derivative of elementary functions."""
    values = np.array(POINTS)
    np.testing.assert_allclose(second_derivative(fn, values), expected(values), rtol=1e-10)


def test_third_and_fourth_derivative_of_x4():
    """Differentiating x**4 three times gives 24x, four times gives 24."""
    values = np.array(POINTS)
    x = f64(values, requires_grad=True)
    (g1,) = torch.autograd.grad((x**4).sum(), x, create_graph=True)
    (g2,) = torch.autograd.grad(g1.sum(), x, create_graph=True)
    (g3,) = torch.autograd.grad(g2.sum(), x, create_graph=True)
    (g4,) = torch.autograd.grad(g3.sum(), x)
    np.testing.assert_allclose(g1.detach().numpy(), 4 * values**3, rtol=1e-12)
    np.testing.assert_allclose(g2.detach().numpy(), 12 * values**2, rtol=1e-12)
    np.testing.assert_allclose(g3.detach().numpy(), 24 * values, rtol=1e-12)
    np.testing.assert_allclose(g4.numpy(), np.full_like(values, 24.0), rtol=1e-12)


def test_backward_create_graph_grad_is_differentiable():
    """backward(create_graph=True) leaves a .grad that itself has a graph (d/dx of 3x^2)."""
    x = f64([0.5, 2.0], requires_grad=True)
    (x**3).sum().backward(create_graph=True)
    g = x.grad
    assert g.requires_grad
    (gg,) = torch.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(gg.numpy(), [3.0, 12.0])


def test_mixed_second_derivative():
    """d2/dxdy of x^2 y^3 is 6 x y^2."""
    x = f64(np.array(1.5), requires_grad=True)
    y = f64(np.array(-0.7), requires_grad=True)
    (gx,) = torch.autograd.grad(x**2 * y**3, x, create_graph=True)
    (gxy,) = torch.autograd.grad(gx, y)
    assert math.isclose(gxy.item(), 6 * 1.5 * 0.49, rel_tol=1e-12)


# --------------------------------------------------------------------------------------------
# accumulation and gradient identity
# --------------------------------------------------------------------------------------------


def test_gradients_accumulate_across_backward_calls():
    """Each backward adds into .grad; setting .grad = None resets accumulation."""
    x = f64([1.0, -2.0], requires_grad=True)
    (x * x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, -4.0])
    (x * x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [4.0, -8.0])
    (3 * x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [7.0, -5.0])
    x.grad = None
    assert x.grad is None
    (x * x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, -4.0])


def test_grad_zero_then_accumulate():
    """Zeroing .grad in place under no_grad restarts accumulation from zero."""
    x = f64([1.0, 2.0], requires_grad=True)
    (x * 5).sum().backward()
    with torch.no_grad():
        x.grad.zero_()
    (x * x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 4.0])


def test_x_plus_x():
    """d(x + x)/dx = 2."""
    x = f64([1.0, -3.0, 0.5], requires_grad=True)
    (x + x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 2.0, 2.0])


def test_x_times_x():
    """d(x * x)/dx = 2x."""
    x = f64([1.0, -3.0, 0.5], requires_grad=True)
    y = x * x
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, -6.0, 1.0])


def test_leaf_used_by_two_branches_gets_summed_gradient():
    """w feeding two branches x = 2w and y = sin(w) gets d(x + y)/dw = 2 + cos(w)."""
    values = np.array([0.3, -1.2])
    w = f64(values, requires_grad=True)
    x = w * 2
    y = w.sin()
    (x + y).sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), 2 + np.cos(values), rtol=1e-12)


def test_leaves_sharing_upstream_gradient_get_independent_grads():
    """Two leaves receiving the same upstream gradient (a + b) get distinct .grad tensors:
    mutating one in place does not change the other."""
    a = f64([1.0, 2.0], requires_grad=True)
    b = f64([3.0, 4.0], requires_grad=True)
    (a + b).sum().backward()
    assert a.grad is not b.grad
    with torch.no_grad():
        a.grad.add_(10.0)
    np.testing.assert_allclose(a.grad.numpy(), [11.0, 11.0])
    np.testing.assert_allclose(b.grad.numpy(), [1.0, 1.0])


def test_leaves_sharing_upstream_gradient_via_backward_gradient():
    """With an explicit upstream gradient g for a + b, neither leaf's .grad aliases g or the
    other leaf's .grad."""
    a = f64([1.0, 2.0], requires_grad=True)
    b = f64([3.0, 4.0], requires_grad=True)
    g = f64([0.5, -0.5])
    (a + b).backward(gradient=g)
    with torch.no_grad():
        a.grad.mul_(4.0)
    np.testing.assert_allclose(a.grad.numpy(), [2.0, -2.0])
    np.testing.assert_allclose(b.grad.numpy(), [0.5, -0.5])
    np.testing.assert_allclose(g.numpy(), [0.5, -0.5])


def test_leaf_grad_does_not_alias_user_gradient():
    """A leaf's .grad does not alias the gradient tensor passed to backward."""
    x = f64([1.0, 2.0], requires_grad=True)
    g = f64([1.0, 1.0])
    (x * 1).backward(gradient=g)
    with torch.no_grad():
        x.grad.add_(5.0)
    np.testing.assert_allclose(g.numpy(), [1.0, 1.0])
    np.testing.assert_allclose(x.grad.numpy(), [6.0, 6.0])


def test_grad_of_leaf_backward_directly_does_not_alias_gradient():
    """Calling backward(g) on a leaf itself copies g into .grad rather than aliasing it."""
    x = f64([1.0, 2.0], requires_grad=True)
    g = f64([3.0, 4.0])
    x.backward(gradient=g)
    with torch.no_grad():
        x.grad.add_(1.0)
    np.testing.assert_allclose(g.numpy(), [3.0, 4.0])
    np.testing.assert_allclose(x.grad.numpy(), [4.0, 5.0])


# ----- fused backward kernels write over an incoming gradient only when no one else sees it -----


def test_user_gradient_is_not_overwritten():
    x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    g = torch.tensor([1.0, 2.0, 3.0])
    x.tanh().backward(g)
    assert g.tolist() == [1.0, 2.0, 3.0]
    expected = [gi * (1 - math.tanh(v) ** 2) for gi, v in zip([1.0, 2.0, 3.0], [0.5, -1.0, 2.0])]
    assert x.grad.tolist() == pytest.approx(expected, rel=1e-6)


def test_gradient_kept_by_a_hook_is_not_overwritten():
    x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    y = x * 3.0
    z = y.sin()
    seen = []
    z.register_hook(lambda g: seen.append(g))
    (z * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert seen[0].tolist() == [1.0, 2.0, 3.0]
    expected = [3 * w * math.cos(3 * v) for w, v in zip([1.0, 2.0, 3.0], [0.5, -1.0, 2.0])]
    assert x.grad.tolist() == pytest.approx(expected, rel=1e-6)


def test_captured_gradient_is_not_overwritten():
    """grad() returns the gradient flowing into y, which y's node also reads."""
    x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    y = x.tanh()
    w = torch.tensor([1.0, 2.0, 3.0])
    gy, gx = torch.autograd.grad((y.sin() * w).sum(), [y, x])
    ty = [math.tanh(v) for v in [0.5, -1.0, 2.0]]
    expected_gy = [wi * math.cos(t) for wi, t in zip([1, 2, 3], ty)]
    assert gy.tolist() == pytest.approx(expected_gy, rel=1e-6)
    expected = [wi * math.cos(t) * (1 - t * t) for wi, t in zip([1, 2, 3], ty)]
    assert gx.tolist() == pytest.approx(expected, rel=1e-6)


def test_product_gradients_leave_seen_incoming_gradients_alone():
    """MulBackward writes x's gradient over the incoming one only when nobody else holds it."""
    xs, ws, ks = [0.5, -1.0, 2.0], [3.0, -2.0, 0.25], [1.0, 2.0, 3.0]
    # a gradient the user passed in
    x = torch.tensor(xs, requires_grad=True)
    w = torch.tensor(ws, requires_grad=True)
    g = torch.tensor(ks)
    (x * w).backward(g)
    assert g.tolist() == ks
    assert x.grad.tolist() == [k * v for k, v in zip(ks, ws)]
    assert w.grad.tolist() == [k * v for k, v in zip(ks, xs)]
    # one a hook kept, and one grad() returns
    x = torch.tensor(xs, requires_grad=True)
    w = torch.tensor(ws, requires_grad=True)
    z = x * w
    seen = []
    z.register_hook(lambda gz: seen.append(gz))
    gz, gx, gw = torch.autograd.grad((z * torch.tensor(ks)).sum(), [z, x, w])
    assert seen[0].tolist() == ks and gz.tolist() == ks
    assert gx.tolist() == [k * v for k, v in zip(ks, ws)]
    assert gw.tolist() == [k * v for k, v in zip(ks, xs)]
    # and when nobody holds it, the result is the same
    x = torch.tensor(xs, requires_grad=True)
    w = torch.tensor(ws, requires_grad=True)
    (x * w * torch.tensor(ks)).sum().backward()
    assert x.grad.tolist() == [k * v for k, v in zip(ks, ws)]
    assert w.grad.tolist() == [k * v for k, v in zip(ks, xs)]
