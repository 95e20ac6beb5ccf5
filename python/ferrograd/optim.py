"""``optim``: stochastic gradient descent."""

from ._grad_mode import no_grad


class SGD:
    """Plain SGD with optional momentum: ``p -= lr * (grad + momentum buffer)``."""

    def __init__(self, params, lr, momentum=0.0, weight_decay=0.0):
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        self.params = list(params)
        if not self.params:
            raise ValueError("optimizer got an empty parameter list")
        self.lr = lr
        self.momentum = momentum
        self.weight_decay = weight_decay
        self._buffers = [None] * len(self.params)

    def zero_grad(self, set_to_none=True):
        for p in self.params:
            if set_to_none:
                p.grad = None
            elif p.grad is not None:
                p.grad.zero_()

    @no_grad()
    def step(self):
        for i, p in enumerate(self.params):
            g = p.grad
            if g is None:
                continue
            if self.weight_decay:
                g = g + self.weight_decay * p
            if self.momentum:
                buf = self._buffers[i]
                if buf is None:
                    buf = g.clone()
                else:
                    buf.mul_(self.momentum).add_(g)
                self._buffers[i] = buf
                g = buf
            p.sub_(g, alpha=self.lr)


__all__ = ["SGD"]
