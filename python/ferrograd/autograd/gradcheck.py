"""Numerical gradient checks, as PyTorch's ``gradcheck``/``gradgradcheck``.

The numerical Jacobian perturbs each element of each input *in place* (so a function that
closes over its input sees the change), by central differences; the analytical one is built
from vector-Jacobian products, computed twice to check that backward is reentrant (within
``nondet_tol``). Then, as PyTorch: batched gradients (``check_batched_grad``, computed one
vector after another), backward multiplied by the output gradient, and outputs whose gradient
is undefined (``check_undefined_grad``). ``fast_mode`` is accepted and runs the full check
(stricter than PyTorch's random projection). Forward-mode checks are not available.
"""

import warnings

import numpy as np

from .. import _core
from .._core import Tensor


class GradcheckError(RuntimeError):
    """Raised by ``gradcheck``/``gradgradcheck`` when the Jacobians disagree."""


_UNDEFINED_BC_WARNING = (
    "Backwards compatibility: New undefined gradient support checking feature is enabled by "
    "default, but it may break existing callers of this function. If this is true for you, "
    'you can call this function with "check_undefined_grad=False" to disable the feature'
)
_UNDEFINED_NOTE = (
    'Please look at "Notes about undefined output gradients" in "tools/autograd/derivatives.yaml"'
)


def _as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _tensor_outputs(out):
    return [o for o in _as_tuple(out) if isinstance(o, Tensor)]


def _differentiable_outputs(out):
    return [o for o in _tensor_outputs(out) if o.requires_grad]


def _check_inputs(inputs):
    any_requires_grad = False
    for idx, inp in enumerate(inputs):
        if isinstance(inp, Tensor) and inp.requires_grad:
            if inp.dtype != _core.float64:
                warnings.warn(
                    f"Input #{idx} requires gradient and is not a double precision floating "
                    "point or complex. This check will likely fail if all the inputs are not "
                    "of double precision floating point or complex. ",
                    stacklevel=4,
                )
            strides = () if inp.is_sparse else inp.stride()
            if not all(st > 0 or sz <= 1 for st, sz in zip(strides, inp.shape)):
                raise RuntimeError(
                    f"The {idx}th input has a dimension with stride 0. gradcheck only supports "
                    "inputs that are non-overlapping to be able to compute the numerical "
                    "gradients correctly. You should call .contiguous on the input before "
                    "passing it to gradcheck."
                )
            any_requires_grad = True
    if not any_requires_grad:
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, "
            "but none of them have requires_grad=True."
        )


def _as_array(t):
    if getattr(type(t), "__torch_dispatch__", None) is not None:
        # a wrapper subclass has no elements of its own: its values through item(), which
        # its class computes
        flat = t.detach().reshape(-1)
        return np.array([flat[k].item() for k in range(flat.numel())], dtype=np.float64)
    if t.is_sparse:
        # (a sparse gradient of a dense input: compared made dense, as PyTorch's; its layout
        # is refused afterwards by the backward-multiplied-by-grad_output check)
        t = t.to_dense()
    return t.detach().numpy().astype(np.float64).reshape(-1)


def _entries(x):
    """What gradcheck perturbs and differentiates by: a dense tensor's elements, a sparse one's
    stored values (PyTorch's ``masked`` check of sparse inputs)."""
    return x._values() if x.is_sparse else x


def _entry_grad(g, x):
    """The gradient ``g`` of ``x`` at ``_entries(x)``: for a sparse ``x``, the (dense or sparse)
    gradient's values at ``x``'s stored positions, in ``x``'s order."""
    if not x.is_sparse:
        return g
    dense = g.to_dense() if g.is_sparse else g
    return dense[tuple(x._indices())]


def _numerical_jacobian(func, inputs, diff, reference, eps, pick):
    """[input][output] -> (output elements, input elements) by central differences, each
    input element perturbed in place and restored; ``pick`` selects the outputs of ``func``
    (as it selected ``reference``)."""
    jac = []
    for i in diff:
        # `.data`: the same elements without autograd tracking (no version bump), so func
        # runs on the perturbed input itself, with grad mode as the caller has it
        x = _entries(inputs[i].data)
        n = x.numel()
        cols = [[] for _ in reference]
        for j in range(n):
            index = tuple(int(v) for v in np.unravel_index(j, tuple(x.shape)))
            orig = x[index].item()
            values = []
            for delta in (eps, -eps):
                x[index] = orig + delta
                outs = pick(func(*inputs))
                _check_same_outputs(reference, outs, eps, i)
                values.append([_as_array(o) for o in outs])
            x[index] = orig
            for k in range(len(reference)):
                cols[k].append((values[0][k] - values[1][k]) / (2 * eps))
        jac.append(
            [
                np.stack(c, axis=1) if c else np.zeros((reference[k].numel(), 0))
                for k, c in enumerate(cols)
            ]
        )
    return jac


def _check_same_outputs(reference, outs, eps, idx):
    assert len(outs) == len(reference), (
        "Expected `func` to return the same number of outputs when inputs are perturbed"
    )
    for a, b in zip(reference, outs):
        assert tuple(a.shape) == tuple(b.shape), (
            "Expected `func` to return outputs with the same shape when inputs are perturbed "
            f"on index {idx} by {eps}, but got: shapes {tuple(a.shape)} and {tuple(b.shape)}."
        )
        assert a.dtype == b.dtype, (
            "Expected `func` to return outputs with the same dtype when inputs are perturbed "
            f"on index {idx} by {eps}, but got: dtypes {a.dtype} and {b.dtype}."
        )


def _vjp_rows(output, inputs, diff):
    """Rows of d(output)/d(inputs[diff]) from one vector-Jacobian product per output element."""
    rows = [np.zeros((output.numel(), _entries(inputs[i]).numel())) for i in diff]
    for r in range(output.numel()):
        seed = np.zeros(output.numel())
        seed[r] = 1.0
        go = _core.tensor(seed.reshape(tuple(output.shape)), dtype=output.dtype)
        grads = _core.grad([output], [inputs[i] for i in diff], [go], True, False, True, False)
        for n, g in enumerate(grads):
            if g is not None:
                if tuple(g.shape) != tuple(inputs[diff[n]].shape):
                    raise GradcheckError("Analytical gradient has incorrect size")
                rows[n][r] = _as_array(_entry_grad(g, inputs[diff[n]]))
    return rows


def _analytical_jacobian(outputs, inputs, diff, nondet_tol):
    """[input][output] Jacobians from backward, checked to be reentrant within nondet_tol."""
    jac = [[None] * len(outputs) for _ in diff]
    for k, out in enumerate(outputs):
        first = _vjp_rows(out, inputs, diff)
        second = _vjp_rows(out, inputs, diff)
        for n in range(len(diff)):
            if first[n].size and np.max(np.abs(first[n] - second[n])) > nondet_tol:
                raise GradcheckError(
                    "Backward is not reentrant, i.e., running backward with same input and "
                    "grad_output multiple times gives different values, although analytical "
                    "gradient matches numerical gradient.The tolerance for nondeterminism was "
                    f"{nondet_tol}."
                )
            jac[n][k] = first[n]
    return jac


def _show(a):
    return _core.tensor(a, dtype=_core.float64)


def _test_batched_grad(inputs, diff, output, k):
    """The gradients of a batch of output gradients equal those of each one."""
    from . import grad as autograd_grad

    batch = [_core.randn(*output.shape, dtype=output.dtype) for _ in range(2)]
    targets = [inputs[i] for i in diff]
    batched = autograd_grad(
        output,
        targets,
        _core.stack(batch),
        retain_graph=True,
        allow_unused=True,
        is_grads_batched=True,
    )
    for b, go in enumerate(batch):
        single = _core.grad([output], targets, [go], True, False, True, False)
        for n, (g, s) in enumerate(zip(batched, single)):
            if (g is None) != (s is None) or (g is not None and not g[b].allclose(s)):
                raise GradcheckError(
                    "gradcheck or gradgradcheck failed while testing batched gradient "
                    f"computation (output {k}, input {diff[n]}, vector {b})."
                )


def _test_backward_mul_by_grad_output(outputs, inputs, diff, masked):
    # (an input none of whose gradients is defined, as a zero-norm's, passes: PyTorch checks
    # only the gradients that are defined)
    if not diff:
        raise GradcheckError("no Tensors requiring grad found in input")
    grads = _core.grad(
        outputs,
        [inputs[i] for i in diff],
        [_core.zeros_like(o) for o in outputs],
        True,
        False,
        True,
        False,
    )
    for g, i in zip(grads, diff):
        if g is None:
            continue
        x = inputs[i]
        # (a dense gradient of a sparse input is fine, as PyTorch's engine allows it)
        if g.is_sparse:
            if g.layout != x.layout:
                raise GradcheckError(f"grad is incorrect layout ({g.layout} is not {x.layout})")
            for what, got, expected in (
                ("sparse_dim", g.sparse_dim(), x.sparse_dim()),
                ("dense_dim", g.dense_dim(), x.dense_dim()),
            ):
                if got != expected:
                    raise GradcheckError(
                        f"grad is sparse tensor, but has incorrect {what} {got}, expected "
                        f"{expected}"
                    )
        g = g.to_dense()
        zero = g.allclose(_core.zeros_like(g)) if masked else bool((g == 0).all())
        if not zero:
            raise GradcheckError("backward not multiplied by grad_output")
        if g.dtype != x.dtype:
            raise GradcheckError("grad is incorrect type")
        if tuple(g.shape) != tuple(x.shape):
            raise GradcheckError("grad is incorrect size")


def _test_undefined_backward_mode(func, inputs, diff):
    from .function import Function

    class _UndefinedGrad(Function):
        """Passes the value through; its backward gives no (an undefined) gradient."""

        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, g):
            return None

    targets = [inputs[i] for i in diff]

    def check(outs):
        try:
            grads = _core.grad(
                outs, targets, [_core.zeros_like(o) for o in outs], True, False, True, False
            )
        except RuntimeError as e:
            warnings.warn(_UNDEFINED_BC_WARNING, stacklevel=4)
            raise GradcheckError(
                f"Expected backward function to handle undefined output grads. {_UNDEFINED_NOTE}"
            ) from e
        for g in grads:
            if g is not None and not bool((g == 0).all()):
                warnings.warn(_UNDEFINED_BC_WARNING, stacklevel=4)
                raise GradcheckError(
                    "Expected all input grads to be undefined or zero when all output grads "
                    f"are undefined or zero. {_UNDEFINED_NOTE}"
                )

    check([_UndefinedGrad.apply(o) for o in _differentiable_outputs(func(*inputs))])


def gradcheck(
    func,
    inputs,
    *,
    eps=1e-6,
    atol=1e-5,
    rtol=1e-3,
    raise_exception=True,
    nondet_tol=0.0,
    check_undefined_grad=True,
    check_grad_dtypes=False,
    check_batched_grad=False,
    check_batched_forward_grad=False,
    check_forward_ad=False,
    check_backward_ad=True,
    fast_mode=False,
    masked=None,
):
    """True if ``func``'s analytical gradients match finite differences at ``inputs``; a
    ``GradcheckError`` (or False with ``raise_exception=False``) otherwise. Other errors
    ``func`` raises propagate."""
    try:
        if check_forward_ad:
            raise NotImplementedError(
                "gradcheck(check_forward_ad=True): ferrograd has no forward-mode AD yet"
            )
        inputs = _as_tuple(inputs)
        _check_inputs(inputs)
        if not check_backward_ad:
            return True
        func_out = func(*inputs)
        outputs = _differentiable_outputs(func_out)
        diff = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]
        if not outputs:
            # no differentiable outputs: the numerical gradient must be zero
            reference = _tensor_outputs(func_out)
            for per_input in _numerical_jacobian(
                func, inputs, diff, reference, eps, _tensor_outputs
            ):
                for j in per_input:
                    if np.any(j != 0):
                        raise GradcheckError("Numerical gradient for function expected to be zero")
            return True
        numerical = _numerical_jacobian(func, inputs, diff, outputs, eps, _differentiable_outputs)
        analytical = _analytical_jacobian(outputs, inputs, diff, nondet_tol)
        for n, i in enumerate(diff):
            for k in range(len(outputs)):
                a, num = analytical[n][k], numerical[n][k]
                if not np.allclose(a, num, rtol=rtol, atol=atol):
                    raise GradcheckError(
                        f"Jacobian mismatch for output {k} with respect to input {i},\n"
                        f"numerical:{_show(num)}\nanalytical:{_show(a)}\n"
                    )
        if check_batched_grad:
            for k, o in enumerate(outputs):
                _test_batched_grad(inputs, diff, o, k)
        _test_backward_mul_by_grad_output(outputs, inputs, diff, masked)
        if check_undefined_grad:
            _test_undefined_backward_mode(func, inputs, diff)
        return True
    except GradcheckError:
        if raise_exception:
            raise
        return False


def gradgradcheck(
    func,
    inputs,
    grad_outputs=None,
    *,
    eps=1e-6,
    atol=1e-5,
    rtol=1e-3,
    gen_non_contig_grad_outputs=False,
    raise_exception=True,
    nondet_tol=0.0,
    check_undefined_grad=True,
    check_grad_dtypes=False,
    check_batched_grad=False,
    check_fwd_over_rev=False,
    check_rev_over_rev=True,
    fast_mode=False,
    masked=False,
):
    """True if the gradients of ``func``'s gradients (second order) match finite differences:
    ``gradcheck`` of the map from (inputs, output gradients) to the first-order gradients."""
    inputs = _as_tuple(inputs)
    diff = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]
    outs = _differentiable_outputs(func(*inputs))
    if grad_outputs is None:
        grad_outputs = [_core.randn(*o.shape, dtype=o.dtype).requires_grad_(True) for o in outs]
    grad_outputs = list(_as_tuple(grad_outputs))
    n_in = len(inputs)

    def first_order(*args):
        xs, gos = args[:n_in], args[n_in:]
        ys = _differentiable_outputs(func(*xs))
        gs = _core.grad(ys, [xs[i] for i in diff], list(gos), True, True, True, False)
        return tuple(g for g in gs if g is not None)

    return gradcheck(
        first_order,
        tuple(inputs) + tuple(grad_outputs),
        eps=eps,
        atol=atol,
        rtol=rtol,
        raise_exception=raise_exception,
        nondet_tol=nondet_tol,
        check_undefined_grad=check_undefined_grad,
        check_batched_grad=check_batched_grad,
        check_forward_ad=check_fwd_over_rev,
        check_backward_ad=check_rev_over_rev,
        fast_mode=fast_mode,
    )


def _private_api_warning(name):
    warnings.warn(
        f"`{name}` was part of PyTorch's private API and not meant to be exposed. We are "
        "deprecating it and it will be removed in a future version of PyTorch. If you have a "
        "specific use for this or feature request for this to be a stable API, please file us "
        "an issue at https://github.com/pytorch/pytorch/issues/new",
        FutureWarning,
        stacklevel=3,
    )


def get_numerical_jacobian(fn, inputs, target=None, eps=1e-3, grad_out=1.0):
    """Deprecated (as in PyTorch): the Jacobians of ``fn(inputs)``'s first output with respect
    to each tensor of ``target`` (default ``inputs``) that requires grad, by central
    differences; each of shape (target elements, output elements)."""
    _private_api_warning("get_numerical_jacobian")
    if grad_out != 1.0:
        raise ValueError(
            "Expected grad_out to be 1.0. get_numerical_jacobian no longer supports values of "
            "grad_out != 1.0."
        )
    inputs = _as_tuple(inputs)
    targets = inputs if target is None else _as_tuple(target)
    diff = [i for i, t in enumerate(targets) if isinstance(t, Tensor) and t.requires_grad]

    def first_output(out):
        return _tensor_outputs(out)[:1]

    reference = first_output(fn(inputs))
    jac = _numerical_jacobian(lambda *_: fn(inputs), targets, diff, reference, eps, first_output)
    return tuple(_show(per_output[0].T.copy()) for per_output in jac)


def get_analytical_jacobian(inputs, output, nondet_tol=0.0, grad_out=1.0):
    """Deprecated (as in PyTorch): ``(jacobians, reentrant, correct_grad_sizes,
    correct_grad_types)``: the Jacobians of ``output`` with respect to each input that
    requires grad, from backward (each of shape (input elements, output elements)), and
    whether backward computed twice gave the same values within ``nondet_tol``."""
    _private_api_warning("get_analytical_jacobian")
    if grad_out != 1.0:
        raise ValueError(
            "Expected grad_out to be 1.0. get_analytical_jacobian no longer supports values of "
            "grad_out != 1.0."
        )
    inputs = _as_tuple(inputs)
    diff = [i for i, t in enumerate(inputs) if isinstance(t, Tensor) and t.requires_grad]
    first = _vjp_rows(output, inputs, diff)
    second = _vjp_rows(output, inputs, diff)
    reentrant = all(
        a.size == 0 or np.max(np.abs(a - b)) <= nondet_tol for a, b in zip(first, second)
    )
    jacobians = tuple(_show(rows.T.copy()) for rows in first)
    return jacobians, reentrant, True, True


__all__ = [
    "GradcheckError",
    "get_analytical_jacobian",
    "get_numerical_jacobian",
    "gradcheck",
    "gradgradcheck",
]
