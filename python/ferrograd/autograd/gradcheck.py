"""Numerical gradient checks: analytical Jacobians against central finite differences (float64)."""

import warnings

import numpy as np

from .. import _core
from .._core import Tensor


class GradcheckError(RuntimeError):
    """Raised by ``gradcheck``/``gradgradcheck`` when the Jacobians disagree."""


def _as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _outputs(func, inputs):
    return [o for o in _as_tuple(func(*inputs)) if isinstance(o, Tensor)]


def _numerical(func, inputs, diff, eps):
    """d(outputs)/d(inputs) by central differences: a list (per input) of per-output matrices."""
    jac = []
    for i in diff:
        x = inputs[i]
        base = x.detach().numpy().astype(np.float64)
        flat = base.reshape(-1)
        cols = []
        for j in range(flat.size):
            vals = []
            for sign in (1.0, -1.0):
                pert = flat.copy()
                pert[j] += sign * eps
                trial = list(inputs)
                trial[i] = _core.tensor(
                    pert.reshape(base.shape), dtype=x.dtype, requires_grad=x.requires_grad
                )
                outs = _outputs(func, trial)
                vals.append([o.detach().numpy().astype(np.float64).reshape(-1) for o in outs])
            cols.append([(p - m) / (2 * eps) for p, m in zip(vals[0], vals[1])])
        jac.append(
            [np.stack([c[k] for c in cols], axis=1) for k in range(len(cols[0]))] if cols else []
        )
    return jac


def _analytical(func, inputs, diff):
    outs = _outputs(func, inputs)
    jac = [[np.zeros((o.numel(), inputs[i].numel())) for o in outs] for i in diff]
    for k, out in enumerate(outs):
        if not out.requires_grad:
            continue
        for r in range(out.numel()):
            seed = np.zeros(out.numel())
            seed[r] = 1.0
            grads = _core.grad(
                [out],
                [inputs[i] for i in diff],
                [_core.tensor(seed.reshape(tuple(out.shape)), dtype=out.dtype)],
                True,
                False,
                True,
                False,
            )
            for n, g in enumerate(grads):
                if g is not None:
                    jac[n][k][r] = g.detach().numpy().reshape(-1)
    return jac


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, **_ignored):
    """True if ``func``'s analytical gradients match finite differences at ``inputs``.

    Inputs that require grad must be float64 (float32 is too coarse for finite differences).
    """
    inputs = _as_tuple(inputs)
    diff = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]
    for i in diff:
        if inputs[i].dtype != _core.float64:
            warnings.warn(
                f"Input {i} requires gradient and is not a double precision floating point. "
                "gradcheck is only reliable with float64 inputs.",
                stacklevel=2,
            )
            if raise_exception:
                raise GradcheckError(
                    f"gradcheck expects float64 inputs; input {i} is {inputs[i].dtype}"
                )
            return False
    numerical = _numerical(func, inputs, diff, eps)
    analytical = _analytical(func, inputs, diff)
    for n, i in enumerate(diff):
        for k, (a, num) in enumerate(zip(analytical[n], numerical[n])):
            if not np.allclose(a, num, atol=atol, rtol=rtol):
                if raise_exception:
                    raise GradcheckError(
                        f"Jacobian mismatch for output {k} with respect to input {i},\n"
                        f"numerical:{num}\nanalytical:{a}\n"
                    )
                return False
    return True


def gradgradcheck(
    func,
    inputs,
    grad_outputs=None,
    *,
    eps=1e-6,
    atol=1e-5,
    rtol=1e-3,
    raise_exception=True,
    **_ignored,
):
    """True if the gradients of ``func``'s gradients (second order) match finite differences."""
    inputs = _as_tuple(inputs)
    diff = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]
    outs = _outputs(func, inputs)
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        grad_outputs = [
            _core.tensor(rng.standard_normal(tuple(o.shape)), dtype=o.dtype) for o in outs
        ]
    grad_outputs = list(_as_tuple(grad_outputs))

    def first_order(*xs):
        ys = [o for o in _outputs(func, xs) if o.requires_grad]
        gs = _core.grad(ys, [xs[i] for i in diff], grad_outputs[: len(ys)], True, True, True, False)
        return tuple(g if g is not None else _core.zeros_like(xs[i]) for g, i in zip(gs, diff))

    return gradcheck(
        first_order, inputs, eps=eps, atol=atol, rtol=rtol, raise_exception=raise_exception
    )


__all__ = ["GradcheckError", "gradcheck", "gradgradcheck"]
