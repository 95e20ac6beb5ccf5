"""``torch.func``: composable function transforms (``grad``, ``grad_and_value``, ``vjp``,
``jvp``, ``jacrev``, ``jacfwd``, ``hessian``, ``vmap``) and ``functional_call`` /
``stack_module_state``, with PyTorch's signatures, pytree handling, results and errors.

Note [How these transforms work here]
    A transform lifts its differentiated inputs (a tensor that already requires gradients gets
    a fresh alias in its graph, so an outer transform or outer autograd still sees through it;
    any other gets a fresh leaf), calls the function with gradients enabled, and takes the
    derivative with the reverse-mode engine. The graph of a derivative is kept only when someone
    can use it: an enclosing transform is running (``_depth``) or the function's output reaches
    a tensor that required gradients before the transform (a closure's parameters, an input of an
    outer ``backward``); otherwise results are returned detached, as PyTorch's transforms do not
    leak ``requires_grad``. So transforms nest in any order (``jacrev(jacrev(f))``,
    ``jvp(grad(f))``, ``vmap(grad(f))``).

    Until forward-mode AD exists (the transforms issue), ``jvp`` is computed by the double-vjp
    identity (J t = d/du <J^T u, t>) and ``jacfwd`` row by row as ``jacrev``: the same values,
    not the same cost. ``vmap`` runs the function once per index of the mapped dimension and
    stacks the results (PyTorch's own fallback for operators without a batching rule), so its
    results equal PyTorch's up to rounding and it costs what the loop costs.
"""

from __future__ import annotations

import contextlib
import functools

from .. import Tensor, autograd, enable_grad, stack, zeros_like
from .._creation import get_rng_state, set_rng_state
from ..nn.utils.stateless import _functional_call
from ..utils._pytree import tree_flatten, tree_map, tree_unflatten

__all__ = [
    "functional_call",
    "grad",
    "grad_and_value",
    "hessian",
    "jacfwd",
    "jacrev",
    "jvp",
    "stack_module_state",
    "vjp",
    "vmap",
]

_depth = [0]  # transforms whose function is running (Note [How these transforms work here])


@contextlib.contextmanager
def _inside_transform():
    _depth[0] += 1
    try:
        with enable_grad():
            yield
    finally:
        _depth[0] -= 1


def _lift(x, own):
    """The tensor a transform differentiates in place of ``x``; fresh leaves go into ``own``."""
    if not isinstance(x, Tensor):
        raise ValueError(f"Thing passed to transform API must be Tensor, got {type(x)}")
    if x.requires_grad:
        return x.view_as(x)
    leaf = x.detach().requires_grad_()
    own.add(id(leaf))
    return leaf


def _reaches_outer(tensors, own):
    """Whether any of ``tensors`` depends on a tensor that required gradients before the
    transform (a leaf not in ``own``): its graph is then worth keeping."""
    stack_, seen = [], set()
    for t in tensors:
        if isinstance(t, Tensor) and t.requires_grad:
            if t.grad_fn is None:
                if id(t) not in own:
                    return True
            else:
                stack_.append(t.grad_fn)
    while stack_:
        node = stack_.pop()
        if node is None or node in seen:  # nodes compare as the graph's nodes they show
            continue
        seen.add(node)
        variable = getattr(node, "variable", None)
        if variable is not None and id(variable) not in own:
            return True
        stack_.extend(n for n, _ in node.next_functions)
    return False


class _Leaf:
    def __repr__(self):
        return "*"


def _spec_text(spec):
    """A pytree structure as PyTorch's ``treespec_pprint`` writes it: ``(*, *)``, ``*``."""
    return repr(tree_unflatten([_Leaf() for _ in range(spec.num_leaves)], spec))


def _settle(tree, keep_graph):
    """Detaches the tensors of ``tree`` unless their graph is to be kept."""
    if keep_graph:
        return tree
    return tree_map(lambda t: t.detach() if isinstance(t, Tensor) else t, tree)


def _argnums_tuple(argnums, num_args):
    nums = (argnums,) if isinstance(argnums, int) else argnums
    if not isinstance(nums, tuple):
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    if not nums:
        raise RuntimeError("argnums must be non-empty")
    if len(set(nums)) != len(nums):
        raise RuntimeError(f"argnums elements must be unique, got {argnums}")
    for n in nums:
        if not isinstance(n, int):
            raise RuntimeError(f"argnum must be int, got: {type(n)}")
        if not -num_args <= n < num_args:
            raise RuntimeError(f"Got argnum={n}, but only {num_args} positional inputs")
    return tuple(n % num_args for n in nums)


def _lift_args(args, argnums, own):
    """``args`` with the arguments at ``argnums`` lifted; also those arguments (an int argnums
    gives the argument itself, a tuple a tuple of them)."""
    args = list(args)
    nums = _argnums_tuple(argnums, len(args))
    for n in nums:
        args[n] = tree_map(lambda x: _lift(x, own), args[n])
    diff = args[nums[0]] if isinstance(argnums, int) else tuple(args[n] for n in nums)
    return args, diff


def _grad_or_zeros(outputs, inputs, grad_outputs, keep_graph):
    """``autograd.grad`` of ``outputs`` (those that require gradients) with zeros for inputs
    they do not reach."""
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o.requires_grad]
    if pairs:
        grads = autograd.grad(
            [o for o, _ in pairs],
            inputs,
            [g for _, g in pairs],
            retain_graph=True,
            create_graph=keep_graph,
            allow_unused=True,
        )
    else:
        grads = (None,) * len(inputs)
    return [zeros_like(x) if g is None else g for g, x in zip(grads, inputs)]


def _split_aux(output, has_aux, api):
    if not has_aux:
        return output, None
    if not (isinstance(output, tuple) and len(output) == 2):
        raise RuntimeError(
            f"{api}: output of function f should be a tuple: (output, aux) if has_aux is True"
        )
    return output


def grad_and_value(func, argnums=0, has_aux=False):
    """``func``'s gradient with respect to the arguments at ``argnums`` and its value (with
    ``has_aux``, ``(gradient, (value, aux))``); ``func`` must return a scalar tensor."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        own: set[int] = set()
        with _inside_transform():
            args, diff = _lift_args(args, argnums, own)
            output, aux = _split_aux(func(*args, **kwargs), has_aux, "grad_and_value(f)(*args)")
            if not isinstance(output, Tensor):
                raise RuntimeError(
                    f"grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got "
                    f"{type(output)}"
                )
            if output.dim() != 0:
                raise RuntimeError(
                    "grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got "
                    f"tensor with {output.dim()} dims. Maybe you wanted to use the vjp or jacrev "
                    "APIs instead?"
                )
            flat, spec = tree_flatten(diff)
            keep = _depth[0] > 1 or _reaches_outer([output], own)
            grads = _grad_or_zeros([output], flat, [None], keep)
        grads = _settle(tree_unflatten(grads, spec), keep)
        output = _settle(output, keep)
        if has_aux:
            return grads, (output, _settle(aux, keep))
        return grads, output

    return wrapper


def grad(func, argnums=0, has_aux=False):
    """``func``'s gradient with respect to the arguments at ``argnums`` (with ``has_aux``,
    ``(gradient, aux)``); ``func`` must return a scalar tensor."""
    gv = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        grads, value = gv(*args, **kwargs)
        return (grads, value[1]) if has_aux else grads

    return wrapper


def _check_tensor_outputs(flat, api):
    for o in flat:
        if not isinstance(o, Tensor):
            raise RuntimeError(
                f"{api}: Expected f to return only tensors, got unsupported type {type(o)}"
            )


def vjp(func, *primals, has_aux=False):
    """``(func(*primals), vjp_fn)``: ``vjp_fn(cotangents)`` gives the vector-Jacobian product
    for each primal (``(output, vjp_fn, aux)`` with ``has_aux``)."""
    own: set[int] = set()
    with _inside_transform():
        lifted = [tree_map(lambda x: _lift(x, own), p) for p in primals]
        output, aux = _split_aux(func(*lifted), has_aux, "vjp(f, *primals)")
        flat_out, out_spec = tree_flatten(output)
        _check_tensor_outputs(flat_out, "vjp(f, *primals)")
        for o in flat_out:
            if not o.is_floating_point():
                raise RuntimeError(
                    "vjp(f, ...): All outputs of f must be floating-point or complex Tensors, "
                    f"got Tensor with dtype {o.dtype}"
                )
        outer = _depth[0] > 1 or _reaches_outer(flat_out, own)
    flat_in, in_spec = tree_flatten(tuple(lifted))

    def vjp_fn(cotangents, retain_graph=True, create_graph=None):
        flat_cot, cot_spec = tree_flatten(cotangents)
        if cot_spec != out_spec:
            raise RuntimeError(
                "Expected pytree structure of cotangents to be the same as pytree structure of "
                f"outputs to the function. cotangents: {_spec_text(cot_spec)}, primal output: "
                f"{_spec_text(out_spec)}"
            )
        keep = bool(create_graph) or outer or _depth[0] > 0
        keep = keep or any(isinstance(c, Tensor) and c.requires_grad for c in flat_cot)
        with enable_grad():
            grads = _grad_or_zeros(flat_out, flat_in, flat_cot, keep)
        return _settle(tree_unflatten(grads, in_spec), keep)

    output = _settle(output, outer)
    if has_aux:
        return output, vjp_fn, _settle(aux, outer)
    return output, vjp_fn


def _check_tuple(value, api, argname):
    if not isinstance(value, tuple):
        raise RuntimeError(
            f"{api}: Expected {argname} to be a tuple. E.g. it should be valid to call "
            f"f(*{argname})."
        )


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """``(func(*primals), J·tangents)``: the Jacobian-vector product (computed here by the
    double-vjp identity, Note [How these transforms work here])."""
    api = "jvp(f, primals, tangents)"
    _check_tuple(primals, api, "primals")
    flat_p, p_spec = tree_flatten(primals)
    flat_t, t_spec = tree_flatten(tangents)
    if p_spec != t_spec:
        raise RuntimeError(
            f"{api}: Expected primals and tangents to have the same python structure. For "
            "example, if primals is a tuple of 3 tensors, tangents also must be. Got primals "
            f"with structure {p_spec} and tangents with structure {t_spec}"
        )
    own: set[int] = set()
    with _inside_transform():
        lifted = [_lift(x, own) for x in flat_p]
        output, aux = _split_aux(
            func(*tree_unflatten(lifted, p_spec)), has_aux, "jvp(f, primals, tangents)"
        )
        flat_out, out_spec = tree_flatten(output)
        _check_tensor_outputs(flat_out, api)
        probes = [zeros_like(o).requires_grad_() for o in flat_out]
        own.update(id(u) for u in probes)
        pulled = _grad_or_zeros(flat_out, lifted, probes, True)
        if strict and not any(p.requires_grad for p in pulled):
            raise RuntimeError(
                "jvp(f, primals, tangents, strict=True): The output of f is independent of the "
                "inputs. This is not allowed with strict=True."
            )
        keep = _depth[0] > 1 or _reaches_outer(flat_out + list(flat_t), own)
        pushed = _grad_or_zeros(pulled, probes, flat_t, keep)
    result = (_settle(output, keep), _settle(tree_unflatten(pushed, out_spec), keep))
    return (*result, _settle(aux, keep)) if has_aux else result


def _jacobian(func, argnums, has_aux, api):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        own: set[int] = set()
        with _inside_transform():
            args, diff = _lift_args(args, argnums, own)
            output, aux = _split_aux(func(*args, **kwargs), has_aux, f"{api}(f, ...)(*args)")
            flat_out, out_spec = tree_flatten(output)
            _check_tensor_outputs(flat_out, api)
            flat_in, in_spec = tree_flatten(diff)
            keep = _depth[0] > 1 or _reaches_outer(flat_out, own)
            per_output = []
            for o in flat_out:
                rows = [[] for _ in flat_in]
                for k in range(o.numel()):
                    basis = zeros_like(o).reshape(-1)
                    basis[k] = 1
                    for r, g in zip(rows, _grad_or_zeros([o], flat_in, [basis.view_as(o)], keep)):
                        r.append(g)
                jac = [
                    (stack(r) if r else o.new_zeros((0, *x.shape))).reshape(*o.shape, *x.shape)
                    for r, x in zip(rows, flat_in)
                ]
                per_output.append(tree_unflatten(jac, in_spec))
        jacobian = _settle(tree_unflatten(per_output, out_spec), keep)
        return (jacobian, _settle(aux, keep)) if has_aux else jacobian

    return wrapper


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """The Jacobian of ``func`` with respect to the arguments at ``argnums``, by reverse mode
    (one vector-Jacobian product per output element); shaped ``output.shape + input.shape``."""
    if chunk_size is not None and chunk_size <= 0:
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")
    return _jacobian(func, argnums, has_aux, "jacrev")


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """The Jacobian of ``func`` with respect to the arguments at ``argnums`` (PyTorch computes
    it by forward mode; here by reverse mode, with the same values: Note [How these transforms
    work here])."""
    _check_randomness(randomness)
    return _jacobian(func, argnums, has_aux, "jacfwd")


def hessian(func, argnums=0):
    """The Hessian of scalar-valued ``func`` with respect to the arguments at ``argnums``
    (``jacfwd(jacrev(func))``)."""
    return jacfwd(jacrev(func, argnums), argnums)


def _check_randomness(randomness):
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(
            "Only allowed values for randomness are 'error', 'different', or 'same'. "
            f"Got {randomness}"
        )


def _name(func):
    if hasattr(func, "__name__"):
        return func.__name__
    if isinstance(func, functools.partial):
        return f"functools.partial({_name(func.func)}, ...)"
    return repr(func)


def _broadcast_dims(dims, tree, what, func, all_dims):
    """Per leaf of ``tree``, its mapped dimension (``dims`` an int or None for a whole subtree,
    else a tuple/list/dict of the same structure)."""
    if dims is None or isinstance(dims, int):
        return [dims] * len(tree_flatten(tree)[0])
    if (
        isinstance(dims, (tuple, list))
        and isinstance(tree, (tuple, list))
        and len(dims) == len(tree)
    ):
        return [
            d
            for sub_d, sub in zip(dims, tree)
            for d in _broadcast_dims(sub_d, sub, what, func, all_dims)
        ]
    if isinstance(dims, dict) and isinstance(tree, dict) and dims.keys() == tree.keys():
        return [d for k in tree for d in _broadcast_dims(dims[k], tree[k], what, func, all_dims)]
    raise ValueError(
        f"vmap({_name(func)}, {what}={all_dims}, ...)(<inputs>): {what} is not compatible with "
        f"the structure of `{'inputs' if what == 'in_dims' else 'outputs'}`. {what} has "
        f"structure {tree_flatten(all_dims)[1]} but {'inputs' if what == 'in_dims' else 'outputs'}"
        f" has structure {tree_flatten(tree)[1]}."
    )


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """``func`` mapped over dimension ``in_dims`` of its inputs, results stacked at
    ``out_dims`` (computed one index at a time: Note [How these transforms work here]).
    ``randomness``: ``"error"`` refuses random operations in ``func``, ``"same"`` gives every
    index the same random numbers, ``"different"`` its own."""
    _check_randomness(randomness)
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size <= 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        name = _name(func)
        if not isinstance(in_dims, (int, tuple)) and in_dims is not None:
            raise ValueError(
                f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` to be int "
                "or a (potentially nested) tuple matching the structure of inputs, got: "
                f"{type(in_dims)}."
            )
        if not args:
            raise ValueError(
                f"vmap({name})(<inputs>): got no inputs. Maybe you forgot to add inputs, or you "
                "are trying to vmap over a function with no inputs. The latter is unsupported."
            )
        dims_tree = in_dims if isinstance(in_dims, tuple) else (in_dims,) * len(args)
        if len(dims_tree) != len(args):
            _broadcast_dims(dims_tree, args, "in_dims", func, in_dims)  # raises
        flat_args, args_spec = tree_flatten(args)
        flat_dims = _broadcast_dims(dims_tree, args, "in_dims", func, in_dims)
        sizes = []
        for x, d in zip(flat_args, flat_dims):
            if d is None:
                continue
            if not isinstance(d, int):
                raise ValueError(
                    f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for an "
                    "input but in_dim must be either an integer dimension or None."
                )
            if not isinstance(x, Tensor):
                raise ValueError(
                    f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for an "
                    f"input but the input is of type {type(x)}. We cannot vmap over non-Tensor "
                    "arguments, please use None as the respective in_dim"
                )
            if not -x.dim() <= d < max(x.dim(), 1) or x.dim() == 0:
                raise ValueError(
                    f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for some "
                    f"input, but that input is a Tensor of dimensionality {x.dim()} so expected "
                    f"in_dim to satisfy -{x.dim()} <= in_dim < {x.dim()}."
                )
            sizes.append(x.shape[d])
        if not sizes:
            raise ValueError("vmap: Expected at least one Tensor to vmap over")
        if len(set(sizes)) != 1:
            raise ValueError(
                "vmap: Expected all tensors to have the same size in the mapped dimension, got "
                f"sizes {sizes} for the mapped dimension"
            )
        results = []
        start_state = get_rng_state() if randomness != "different" else None
        for b in range(sizes[0]):
            if randomness == "same":
                set_rng_state(start_state)
            sliced = [x if d is None else x.select(d, b) for x, d in zip(flat_args, flat_dims)]
            results.append(func(*tree_unflatten(sliced, args_spec), **kwargs))
            if randomness == "error" and not get_rng_state().equal(start_state):
                set_rng_state(start_state)  # PyTorch refuses before drawing
                raise RuntimeError(
                    "vmap: called random operation while in randomness error mode. Please "
                    "either use the 'same' or 'different' randomness flags on vmap or perform "
                    "the randomness operation out of vmap"
                )
        return _stack_results(results, out_dims, name)

    return wrapped


def _stack_results(results, out_dims, name):
    flat_first, out_spec = tree_flatten(results[0])
    if out_dims is None or isinstance(out_dims, int):
        flat_dims = [out_dims] * len(flat_first)
    else:
        flat_dims = _broadcast_dims(out_dims, results[0], "out_dims", lambda: None, out_dims)
    columns = [tree_flatten(r)[0] for r in results]
    stacked = []
    for i, d in enumerate(flat_dims):
        if d is None:
            stacked.append(flat_first[i])
            continue
        if not isinstance(flat_first[i], Tensor):
            raise ValueError(
                f"vmap({name}, ...): `{name}` must only return Tensors, got type "
                f"{type(flat_first[i])}. Did you mean to set out_dims= to None for output?"
            )
        stacked.append(stack([c[i] for c in columns], dim=d))
    return tree_unflatten(stacked, out_spec)


def functional_call(
    module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights=True, strict=False
):
    """Calls ``module`` with the tensors of ``parameter_and_buffer_dicts`` (a dict, or a tuple of
    dicts without repeated keys) in place of its parameters and buffers of the same names."""
    return _functional_call(
        module, parameter_and_buffer_dicts, args, kwargs, tie_weights=tie_weights, strict=strict
    )


def stack_module_state(models):
    """``(params, buffers)``: each parameter and buffer name of identical ``models`` mapped to
    the stack of the models' tensors (parameters detached into new leaves that require
    gradients as the originals did)."""
    models = list(models)
    if not models:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise RuntimeError(
            "stack_module_state: Expected all models to have the same training/eval mode."
        )
    kind = type(models[0])
    if not all(type(m) is kind for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")

    def stacked(tensors, name):
        needs = [t.requires_grad for t in tensors]
        if any(needs) and not all(needs):
            raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
        result = stack(tensors)
        return result.detach().requires_grad_() if all(needs) else result

    names = [n for n, _ in models[0].named_parameters()]
    params = {n: stacked([dict(m.named_parameters())[n] for m in models], n) for n in names}
    names = [n for n, _ in models[0].named_buffers()]
    buffers = {n: stacked([dict(m.named_buffers())[n] for m in models], n) for n in names}
    return params, buffers
