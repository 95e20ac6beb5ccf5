"""The ferrograd demo: fit a linear model by gradient descent (``python -m ferrograd.demo``).

This is the regression loop of F. Fleuret's autograd lecture, on synthetic data: a forward pass
recorded by autograd, ``loss.backward()``, and a parameter update under ``no_grad``.
"""

import time

import ferrograd as torch


def main(steps: int = 300, eta: float = 0.5) -> float:
    torch.manual_seed(0)
    n, d, k = 512, 64, 10
    x = torch.randn(n, d)
    w_true = torch.randn(k, d)
    y = x @ w_true.t() + 0.01 * torch.randn(n, k)

    w = torch.empty(k, d).normal_(0, 1e-3).requires_grad_()
    b = torch.empty(k).normal_(0, 1e-3).requires_grad_()

    start = time.perf_counter()
    for step in range(steps + 1):
        y_hat = x @ w.t() + b
        loss = (y_hat - y).pow(2).mean()

        w.grad, b.grad = None, None
        loss.backward()

        with torch.no_grad():
            assert w.grad is not None and b.grad is not None  # set by loss.backward()
            w -= eta * w.grad
            b -= eta * b.grad

        if step % 50 == 0:
            print(f"step {step:4d}  loss {loss.item():.6f}")
    elapsed = time.perf_counter() - start
    err = (w.detach() - w_true).abs().mean().item()
    print(f"mean |w - w_true| = {err:.5f}  ({steps} steps in {elapsed:.2f} s)")
    return loss.item()


if __name__ == "__main__":
    main()
