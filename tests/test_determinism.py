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
