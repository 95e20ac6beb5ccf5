"""``autograd.functional``: Jacobians, Hessians and their products with vectors, computed with
``autograd.grad`` as PyTorch's ``torch.autograd.functional`` does.

Every function takes ``func`` and ``inputs`` (a tensor or a tuple of tensors) and answers with
the same nesting PyTorch uses: a tensor where the inputs (and outputs) were single tensors, a
tuple where they were tuples, a tuple of tuples for ``jacobian``/``hessian`` when both are.

``jvp`` and ``hvp`` use the double-backward trick (ferrograd has no forward-mode AD), as PyTorch's
functions of the same names do. ``vectorize=True`` is a speed hint in PyTorch (batched gradients
through vmap); ferrograd has no vmap, so it computes the same Jacobian one row per
``autograd.grad`` call, with PyTorch's errors for the combinations PyTorch refuses.
"""

from .. import _core
from .._core import Tensor
from .._grad_mode import enable_grad, set_grad_enabled

__all__ = ["hessian", "hvp", "jacobian", "jvp", "vhp", "vjp"]


# ---- packing and unpacking of tensor-or-tuple arguments ---------------------------------------


def _tensors(value, what, fn_name):
    """``(was_tuple, tuple_of_tensors)``; anything but tensors is a TypeError naming ``what``."""
    was_tuple = isinstance(value, tuple)
    items = value if was_tuple else (value,)
    for index, item in enumerate(items):
        if isinstance(item, Tensor):
            continue
        where = f"the value at index {index}" if was_tuple else f"the given {what}"
        raise TypeError(
            f"The {what} given to {fn_name} must be either a Tensor or a tuple of Tensors but "
            f"{where} has type {type(item)}."
        )
    return was_tuple, items


def _unpack(result, was_tuple):
    """Undoes ``_tensors``: the only element when the caller gave a single tensor."""
    return result if was_tuple else result[0]


def _unpack2(result, outer_was_tuple, inner_was_tuple):
    """Undoes two levels of packing (outputs outside, inputs inside)."""
    if not inner_was_tuple:
        result = tuple(row[0] for row in result)
    return result if outer_was_tuple else result[0]


def _fresh(tensors, create_graph, need_graph):
    """New tensor objects for ``tensors``: a differentiable alias when the caller wants the
    result's graph to reach them, otherwise a detached copy that ``requires_grad`` iff
    ``need_graph``. A fresh object tells the given inputs apart from the same tensors captured
    by ``func`` (PyTorch's issue 32576)."""
    out = []
    for t in tensors:
        if create_graph and t.requires_grad:
            out.append(t.view_as(t))
        else:
            out.append(t.detach().requires_grad_(need_graph))
    return tuple(out)


def _finish(tensors, create_graph):
    """The results handed back: detached unless ``create_graph`` (nested tuples recursed)."""
    if create_graph:
        return tensors
    return tuple(t.detach() if isinstance(t, Tensor) else _finish(t, False) for t in tensors)


def _check_v(v, refs, refs_were_tuple):
    """``v`` must have one tensor of the matching size per reference tensor."""
    if len(v) != len(refs):
        if refs_were_tuple:
            raise RuntimeError(
                f"v is a tuple of invalid length: should be {len(refs)} but got {len(v)}."
            )
        raise RuntimeError("The given v should contain a single Tensor.")
    for index, (vi, ref) in enumerate(zip(v, refs)):
        if vi.size() != ref.size():
            where = f"Entry {index} in " if refs_were_tuple else ""
            raise RuntimeError(
                f"{where}v has invalid size: should be {ref.size()} but got {vi.size()}."
            )


def _prepare_v(v, refs, refs_were_tuple, create_graph, fn_name):
    v = _tensors(v, "v", fn_name)[1]
    v = _fresh(v, create_graph, need_graph=False)
    _check_v(v, refs, refs_were_tuple)
    return v


# ---- strict-mode checks -----------------------------------------------------------------------

_NOT_DIFFERENTIABLE = {
    "outputs": (
        "Output {i} of the user-provided function does not require gradients. The outputs must "
        "be computed in a differentiable manner from the input when running in strict mode."
    ),
    "grad_inputs": (
        "The gradient with respect to input {i} is independent of the inputs of the "
        "user-provided function. This is not allowed in strict mode."
    ),
    "jacobian": (
        "While computing the hessian, found that the jacobian of the user-provided function with "
        "respect to input {i} is independent of the input. This is not allowed in strict mode. "
        "You should ensure that your function is twice differentiable and that the jacobian "
        "depends on the inputs (this would be violated by a linear function for example)."
    ),
    "hessian": (
        "The hessian of the user-provided function with respect to input {i} is independent of "
        "the input. This is not allowed in strict mode. You should ensure that your function is "
        "thrice differentiable and that the hessian depends on the inputs."
    ),
}


def _strict_requires_grad(tensors, kind, strict):
    """In strict mode every tensor of ``tensors`` must exist and carry a graph."""
    if not strict:
        return
    for i, t in enumerate(tensors):
        if t is None:
            raise RuntimeError(
                f"The output of the user-provided function is independent of input {i}. This is "
                "not allowed in strict mode."
            )
        if not t.requires_grad:
            raise RuntimeError(_NOT_DIFFERENTIABLE[kind].format(i=i))


_INDEPENDENT = {
    "back": (
        "The output of the user-provided function is independent of input {i}. This is not "
        "allowed in strict mode."
    ),
    "back_trick": (
        "The gradient with respect to the input is independent of entry {i} in the grad_outputs "
        "when using the double backward trick to compute forward mode gradients. This is not "
        "allowed in strict mode."
    ),
    "double_back": (
        "The jacobian of the user-provided function is independent of input {i}. This is not "
        "allowed in strict mode."
    ),
    "double_back_trick": (
        "The hessian of the user-provided function is independent of entry {i} in the "
        "grad_jacobian. This is not allowed in strict mode as it prevents from using the double "
        "backward trick to replace forward mode AD."
    ),
}


def _zeros_for_missing(grads, refs, strict, create_graph, stage):
    """Replaces missing gradients by zeros shaped like ``refs`` (strict mode raises instead)."""
    out = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(_INDEPENDENT[stage].format(i=i))
            g = _core.zeros_like(refs[i])
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if stage.startswith("double") else "jacobian"
            raise RuntimeError(
                f"The {what} of the user-provided function is independent of input {i}. This is "
                "not allowed in strict mode when create_graph=True."
            )
        out.append(g)
    return tuple(out)


def _grad(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None):
    """``autograd.grad`` over the outputs that have a graph (``None`` where none reaches an
    input, and for every input when no output has a graph)."""
    from . import grad

    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    live = [(o, g) for o, g in zip(outputs, grad_outputs) if o is not None and o.requires_grad]
    if not live:
        return (None,) * len(inputs)
    return grad(
        tuple(o for o, _ in live),
        inputs,
        tuple(g for _, g in live),
        retain_graph=retain_graph,
        create_graph=create_graph,
        allow_unused=True,
    )


def _grad_mode_for_result(create_graph):
    return set_grad_enabled(True if create_graph else _core.is_grad_enabled())


def _single_element_output(outputs, was_tuple, fn_name):
    if was_tuple or not isinstance(outputs[0], Tensor):
        raise RuntimeError(f"The function given to {fn_name} should return a single Tensor")
    if outputs[0].nelement() != 1:
        raise RuntimeError(
            f"The Tensor returned by the function given to {fn_name} should contain a single "
            "element"
        )


# ---- public functions -------------------------------------------------------------------------


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), v^T J)``: the vector-Jacobian product, shaped like the inputs.

    ``v`` matches the outputs; it may be omitted when ``func`` returns a single one-element
    tensor. ``strict`` raises where an input does not influence the outputs instead of
    returning zeros; ``create_graph`` keeps both results differentiable."""
    with enable_grad():
        inputs_tuple, inputs = _tensors(inputs, "inputs", "vjp")
        inputs = _fresh(inputs, create_graph, need_graph=True)
        outputs_tuple, outputs = _tensors(
            func(*inputs), "outputs of the user-provided function", "vjp"
        )
        _strict_requires_grad(outputs, "outputs", strict)
        if v is not None:
            v = _prepare_v(v, outputs, outputs_tuple, create_graph, "vjp")
        elif len(outputs) != 1 or outputs[0].nelement() != 1:
            raise RuntimeError(
                "The vector v can only be None if the user-provided function returns a single "
                "Tensor with a single element."
            )
    with _grad_mode_for_result(create_graph):
        grads = _grad(outputs, inputs, v, create_graph=create_graph)
        result = _zeros_for_missing(grads, inputs, strict, create_graph, "back")
    return (
        _unpack(_finish(outputs, create_graph), outputs_tuple),
        _unpack(_finish(result, create_graph), inputs_tuple),
    )


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), J v)``: the Jacobian-vector product, shaped like the outputs.

    Computed by the double-backward trick: the gradient of ``u -> u^T J`` (linear in ``u``) with
    respect to ``u`` along ``v``. ``v`` matches the inputs; it may be omitted for a single
    one-element input."""
    with enable_grad():
        inputs_tuple, inputs = _tensors(inputs, "inputs", "jvp")
        inputs = _fresh(inputs, create_graph, need_graph=True)
        if v is not None:
            v = _prepare_v(v, inputs, inputs_tuple, create_graph, "jvp")
        elif len(inputs) != 1 or inputs[0].nelement() != 1:
            raise RuntimeError(
                "The vector v can only be None if the input to the user-provided function is a "
                "single Tensor with a single element."
            )
        outputs_tuple, outputs = _tensors(
            func(*inputs), "outputs of the user-provided function", "jvp"
        )
        _strict_requires_grad(outputs, "outputs", strict)
        # Any finite u works: u^T J is linear in u, so u's value never reaches the result.
        dummies = tuple(_core.zeros_like(o, requires_grad=True) for o in outputs)
        grad_inputs = _grad(outputs, inputs, dummies, create_graph=True)
        _strict_requires_grad(grad_inputs, "grad_inputs", strict)
    with _grad_mode_for_result(create_graph):
        grads = _grad(grad_inputs, dummies, v, create_graph=create_graph)
        result = _zeros_for_missing(grads, outputs, strict, create_graph, "back_trick")
    return (
        _unpack(_finish(outputs, create_graph), outputs_tuple),
        _unpack(_finish(result, create_graph), outputs_tuple),
    )


def _construct_standard_basis_for(tensors, tensor_numels):
    """The standard basis of the concatenated flattened ``tensors``, split per tensor (as
    PyTorch's helper of the same name): block ``i`` has shape ``(sum(numels), numels[i])``,
    ``tensors[i]``'s dtype, and the ones of the identity's columns for that tensor."""
    assert len(tensors) == len(tensor_numels)
    assert len(tensors) > 0
    total = sum(tensor_numels)
    chunks = tuple(t.new_zeros(total, n) for t, n in zip(tensors, tensor_numels))
    start = 0
    for chunk, n in zip(chunks, tensor_numels):
        for k in range(n):
            chunk[start + k, k] = 1
        start += n
    return chunks


def _jacobian_rows(outputs, inputs, create_graph, strict):
    """The Jacobian blocks ``[i][j]`` (output i, input j) from one ``grad`` call per output
    element: each call gives row ``k`` of every block of output i."""
    blocks = []
    for i, out in enumerate(outputs):
        rows = [[] for _ in inputs]
        flat = out.reshape(-1)
        for k in range(out.nelement()):
            row = _grad((flat[k],), inputs, retain_graph=True, create_graph=create_graph)
            for j, (g, inp) in enumerate(zip(row, inputs)):
                if g is None:
                    if strict:
                        raise RuntimeError(
                            f"Output {i} of the user-provided function is independent of input "
                            f"{j}. This is not allowed in strict mode."
                        )
                    g = _core.zeros_like(inp)
                elif strict and create_graph and not g.requires_grad:
                    raise RuntimeError(
                        f"The jacobian of the user-provided function is independent of input "
                        f"{i}. This is not allowed in strict mode when create_graph=True."
                    )
                rows[j].append(g)
        blocks.append(
            tuple(
                _core.stack(r, 0).view(tuple(out.size()) + tuple(inp.size()))
                for r, inp in zip(rows, inputs)
            )
        )
    return tuple(blocks)


def jacobian(
    func,
    inputs,
    create_graph=False,
    strict=False,
    vectorize=False,
    strategy="reverse-mode",
):
    """The Jacobian of ``func`` at ``inputs``: block ``[i][j]`` has the shape of output i
    followed by the shape of input j (a single tensor where both are single, a tuple where one
    is a tuple).

    ``strict`` raises where an output does not depend on an input instead of giving zeros;
    ``create_graph`` makes the Jacobian differentiable. ``vectorize=True`` computes the same
    rows one ``grad`` call at a time (no vmap in ferrograd). ``strategy="forward-mode"``
    requires ``vectorize=True`` as in PyTorch and gives the same Jacobian (computed by reverse
    mode) in PyTorch's forward-mode packing: lists instead of tuples."""
    return _jacobian(func, inputs, create_graph, strict, vectorize, strategy, None)


def _jacobian(func, inputs, create_graph, strict, vectorize, strategy, forward_graph):
    """``jacobian``; ``forward_graph`` says whether a forward-mode result carries a graph (in
    PyTorch it does when the tangents were computed from tensors that require grad; ``None``:
    when an input requires grad)."""
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError(
            'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
            'function has more outputs than inputs, "forward-mode" tends to be more performant. '
            'Otherwise, prefer to use "reverse-mode".'
        )
    forward = strategy == "forward-mode"
    if forward:
        if create_graph:
            raise NotImplementedError(
                "torch.autograd.functional.jacobian: `create_graph=True` and "
                '`strategy="forward-mode"` are not supported together (yet). Please either set '
                '`create_graph=False` or `strategy="reverse-mode"`.'
            )
        if strict:
            raise RuntimeError(
                "torch.autograd.functional.jacobian: `strict=True` and "
                '`strategy="forward-mode"` are not supported together (yet). Please either set '
                '`strict=False` or `strategy="reverse-mode"`.'
            )
    with enable_grad():
        inputs_tuple, inputs = _tensors(inputs, "inputs", "jacobian")
        if forward:
            if not vectorize:
                # PyTorch's message, missing space included.
                raise NotImplementedError(
                    "Computing Jacobian using forward-AD or forward-over-reverse Hessian is"
                    "only implemented for `vectorize=True`."
                )
            if forward_graph is None:
                forward_graph = any(t.requires_grad for t in inputs)
            create_graph = forward_graph
        inputs = _fresh(inputs, create_graph, need_graph=True)
        outputs_tuple, outputs = _tensors(
            func(*inputs), "outputs of the user-provided function", "jacobian"
        )
        _strict_requires_grad(outputs, "outputs", strict)
        if vectorize and strict:
            raise RuntimeError(
                "torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are "
                "not supported together. Please either set `strict=False` or "
                "`vectorize=False`."
            )
        blocks = _finish(_jacobian_rows(outputs, inputs, create_graph, strict), create_graph)
        if forward:
            blocks = [list(row) for row in blocks]
        return _unpack2(blocks, outputs_tuple, inputs_tuple)


def hessian(
    func,
    inputs,
    create_graph=False,
    strict=False,
    vectorize=False,
    outer_jacobian_strategy="reverse-mode",
):
    """The Hessian of the scalar function ``func`` at ``inputs``: the Jacobian of its gradient.
    Block ``[i][j]`` has the shape of input i followed by that of input j (a single tensor for a
    single input). The arguments are ``jacobian``'s (``outer_jacobian_strategy`` is the outer
    Jacobian's ``strategy``)."""
    inputs_tuple, inputs = _tensors(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def scalar_func(*args):
        out = func(*args)
        out_tuple, outs = _tensors(out, "outputs of the user-provided function", "hessian")
        _strict_requires_grad(outs, "outputs", strict)
        _single_element_output(outs, out_tuple, "hessian")
        return out.squeeze()

    def gradient(*args):
        jac = jacobian(scalar_func, args, create_graph=True)
        _strict_requires_grad(jac, "jacobian", strict)
        return jac

    # PyTorch's forward-mode outer Jacobian marks the inputs as requiring grad, so its result
    # carries a graph.
    result = _jacobian(
        gradient, inputs, create_graph, strict, vectorize, outer_jacobian_strategy, True
    )
    return _unpack2(result, inputs_tuple, inputs_tuple)


def _hessian_product_setup(func, inputs, v, create_graph, strict, fn_name):
    """Shared start of ``vhp``/``hvp``: fresh inputs, checked ``v``, the single-element output
    and its gradient with a graph."""
    inputs_tuple, inputs = _tensors(inputs, "inputs", fn_name)
    inputs = _fresh(inputs, create_graph, need_graph=True)
    if v is not None:
        v = _prepare_v(v, inputs, inputs_tuple, create_graph, fn_name)
    elif len(inputs) != 1 or inputs[0].nelement() != 1:
        raise RuntimeError(
            "The vector v can only be None if the input to the user-provided function is a "
            "single Tensor with a single element."
        )
    outputs_tuple, outputs = _tensors(
        func(*inputs), "outputs of the user-provided function", fn_name
    )
    _strict_requires_grad(outputs, "outputs", strict)
    _single_element_output(outputs, outputs_tuple, fn_name)
    jac = _grad(outputs, inputs, create_graph=True)
    _strict_requires_grad(jac, "jacobian", strict)
    return inputs_tuple, inputs, v, outputs_tuple, outputs, jac


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), v^T H)`` for a scalar ``func``: the gradient of ``grad(func) . v``,
    shaped like the inputs."""
    with enable_grad():
        inputs_tuple, inputs, v, outputs_tuple, outputs, jac = _hessian_product_setup(
            func, inputs, v, create_graph, strict, "vhp"
        )
    with _grad_mode_for_result(create_graph):
        grads = _grad(jac, inputs, v, create_graph=create_graph)
        result = _zeros_for_missing(grads, inputs, strict, create_graph, "double_back")
    return (
        _unpack(_finish(outputs, create_graph), outputs_tuple),
        _unpack(_finish(result, create_graph), inputs_tuple),
    )


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), H v)`` for a scalar ``func``, by the double-backward trick (equal to
    ``vhp`` for twice continuously differentiable functions, and slower)."""
    with enable_grad():
        inputs_tuple, inputs, v, outputs_tuple, outputs, jac = _hessian_product_setup(
            func, inputs, v, create_graph, strict, "hvp"
        )
        dummies = tuple(_core.zeros_like(inp, requires_grad=True) for inp in inputs)
        double_back = _grad(jac, inputs, dummies, create_graph=True)
        # PyTorch checks the Jacobian again here (not double_back); kept for equal errors.
        _strict_requires_grad(jac, "hessian", strict)
    with _grad_mode_for_result(create_graph):
        grads = _grad(double_back, dummies, v, create_graph=create_graph)
        result = _zeros_for_missing(grads, inputs, strict, create_graph, "double_back_trick")
    return (
        _unpack(_finish(outputs, create_graph), outputs_tuple),
        _unpack(_finish(result, create_graph), inputs_tuple),
    )
