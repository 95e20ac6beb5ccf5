"""``optim.SparseAdam``: Adam for sparse gradients (``nn.Embedding(sparse=True)``), which
updates the moments and the parameter only at the gradient's indices, with PyTorch's
arithmetic step for step (``torch.optim._functional.sparse_adam``), composed of the core's
indexing ops: the rows a step reads are gathered, their new values computed, and added back."""

import math

from .._grad_mode import no_grad
from . import Optimizer, _evaluate


class SparseAdam(Optimizer):
    """Adam restricted to the entries a sparse gradient touches (``lr``, ``betas``, ``eps``,
    ``maximize``); dense gradients and sparse parameters are refused, as PyTorch refuses them."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, maximize=False):
        if not 0.0 < lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        for i, beta in enumerate(betas):
            if not 0.0 <= beta < 1.0:
                raise ValueError(f"Invalid beta parameter at index {i}: {beta}")
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, maximize=maximize))
        sparse = [
            [g, p]
            for g, group in enumerate(self.param_groups)
            for p, param in enumerate(group["params"])
            if param.is_sparse
        ]
        if sparse:
            raise ValueError(
                f"Sparse params at indices {sparse}: SparseAdam requires dense parameter tensors"
            )

    def _sparse_refusal(self, group):
        return None

    def step(self, closure=None):
        """One update of every parameter with a (sparse) gradient; returns ``closure()``."""
        loss = _evaluate(closure)
        with no_grad():
            for group in self.param_groups:
                beta1, beta2 = group["betas"]
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    if not p.grad.is_sparse:
                        raise RuntimeError(
                            "SparseAdam does not support dense gradients, please consider Adam "
                            "instead"
                        )
                    state = self.state[p]
                    if not state:
                        state["step"] = 0
                        state["exp_avg"] = p.detach().new_zeros(p.shape)
                        state["exp_avg_sq"] = p.detach().new_zeros(p.shape)
                    state["step"] += 1
                    grad = -p.grad if group.get("maximize", False) else p.grad
                    _update(p, grad, state, beta1, beta2, group["lr"], group["eps"])
        return loss


def _rows(t, sparse_dims):
    """``t`` seen as one row per position of its first ``sparse_dims`` dimensions (a view when
    ``t`` is contiguous)."""
    return t.view(-1, *t.shape[sparse_dims:])


def _update(param, grad, state, beta1, beta2, lr, eps):
    grad = grad.coalesce()  # the update is not linear: each index once
    values = grad._values()
    if values.numel() == 0:
        return
    indices, k = grad._indices(), grad.sparse_dim()
    at = indices[0]
    for d in range(1, k):  # the row of each entry, counting in the sparse dimensions
        at = at * param.shape[d] + indices[d]
    exp_avg, exp_avg_sq = _rows(state["exp_avg"], k), _rows(state["exp_avg_sq"], k)
    old_avg = exp_avg.index_select(0, at)
    avg_update = values.sub(old_avg).mul_(1 - beta1)
    exp_avg.index_add_(0, at, avg_update)
    old_sq = exp_avg_sq.index_select(0, at)
    sq_update = values.pow(2).sub_(old_sq).mul_(1 - beta2)
    exp_avg_sq.index_add_(0, at, sq_update)
    numer = avg_update.add_(old_avg)
    denom = sq_update.add_(old_sq).sqrt_().add_(eps)
    step = state["step"]
    step_size = lr * math.sqrt(1 - beta2**step) / (1 - beta1**step)
    target = param if param.is_contiguous() else param.contiguous()
    _rows(target, k).index_add_(0, at, -step_size * numer.div_(denom))
    if target is not param:
        param.copy_(target)
