"""Functions PyTorch composes of other ops (its ``CompositeImplicitAutograd`` kernels), composed
here the same way, so their values, gradients and refusals follow from the ops beneath:
stacking (``hstack``, ``vstack``, ``dstack``, ``column_stack``, ``atleast_*d``), rearranging
(``movedim``, ``swapaxes``, ``flipud``, ``fliplr``, ``ravel``, ``unflatten``,
``tile``), splitting (``tensor_split``, ``hsplit``, ``vsplit``, ``dsplit``) and products and
differences (``kron``, ``tensordot``, ``inner``, ``diff``, ``msort``); and ``torch.rot90``,
which calls the method (one op in the core). ``_install`` makes the ones PyTorch also has as
``Tensor`` methods methods."""

from __future__ import annotations

import builtins
import operator
from collections.abc import Sequence

from . import _core
from ._core import Tensor

__all__ = [
    "_weight_norm",
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "column_stack",
    "concat",
    "concatenate",
    "constant_pad_nd",
    "diff",
    "dsplit",
    "dstack",
    "fliplr",
    "flipud",
    "hsplit",
    "hstack",
    "inner",
    "kron",
    "moveaxis",
    "movedim",
    "msort",
    "norm_except_dim",
    "ravel",
    "repeat_interleave",
    "rot90",
    "row_stack",
    "swapaxes",
    "swapdims",
    "tensor_split",
    "tensordot",
    "tile",
    "unflatten",
    "vsplit",
    "vstack",
]

# the functions that are also Tensor methods in PyTorch
METHODS = (
    "diff",
    "dsplit",
    "fliplr",
    "flipud",
    "hsplit",
    "inner",
    "kron",
    "moveaxis",
    "movedim",
    "module_load",
    "msort",
    "ravel",
    "repeat_interleave",
    "swapaxes",
    "swapdims",
    "tensor_split",
    "tile",
    "unflatten",
    "vsplit",
)


def _each(tensors, one):
    """``one`` applied to a single tensor (given alone), else to each (given as arguments or
    as one list)."""
    if len(tensors) == 1 and isinstance(tensors[0], Tensor):
        return one(tensors[0])
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tensors[0]
    return tuple(one(t) for t in tensors)


def _atleast_1d(t):
    return t.reshape(1) if t.dim() == 0 else t


def _atleast_2d(t):
    if t.dim() == 0:
        return t.reshape(1, 1)
    return t.unsqueeze(0) if t.dim() == 1 else t


def _atleast_3d(t):
    if t.dim() == 0:
        return t.reshape(1, 1, 1)
    if t.dim() == 1:
        return t.unsqueeze(0).unsqueeze(-1)
    return t.unsqueeze(-1) if t.dim() == 2 else t


def atleast_1d(*tensors):
    """Each tensor with at least one dimension (a 0-d tensor as ``[1]``)."""
    return _each(tensors, _atleast_1d)


def atleast_2d(*tensors):
    """Each tensor with at least two dimensions (new ones in front)."""
    return _each(tensors, _atleast_2d)


def atleast_3d(*tensors):
    """Each tensor with at least three dimensions (``[n]`` as ``[1, n, 1]``, ``[m, n]`` as
    ``[m, n, 1]``)."""
    return _each(tensors, _atleast_3d)


def _stack_check(tensors, name):
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{name}(): argument 'tensors' must be tuple of Tensors, not Tensor")
    if len(tensors) == 0:
        raise RuntimeError(f"{name} expects a non-empty TensorList")


def hstack(tensors, *, out=None):
    """Joined along the columns: ``cat`` along dim 1 (dim 0 for 1-D tensors)."""
    _stack_check(tensors, "hstack")
    parts = [_atleast_1d(t) for t in tensors]
    return _core.cat(parts, 0 if parts[0].dim() == 1 else 1)


def vstack(tensors, *, out=None):
    """Joined along the rows: ``cat`` along dim 0 of the tensors as at least 2-D."""
    _stack_check(tensors, "vstack")
    return _core.cat([_atleast_2d(t) for t in tensors], 0)


row_stack = vstack


def dstack(tensors, *, out=None):
    """Joined along the depth: ``cat`` along dim 2 of the tensors as at least 3-D."""
    _stack_check(tensors, "dstack")
    return _core.cat([_atleast_3d(t) for t in tensors], 2)


def column_stack(tensors, *, out=None):
    """Columns side by side: 0-d and 1-D tensors as columns, then ``cat`` along dim 1."""
    _stack_check(tensors, "column_stack")
    parts = [t.reshape(t.numel(), 1) if t.dim() <= 1 else t for t in tensors]
    return _core.cat(parts, 1)


def concat(tensors, dim=0, *, out=None):
    """Alias of ``cat``."""
    return _core.cat(tensors, dim)


concatenate = concat


def constant_pad_nd(input, pad, value=0):
    """``input`` padded with ``value`` (``pad`` as ``F.pad`` takes it, from the last dim; a
    negative amount crops); a channels-last input gives a channels-last result."""
    from .nn._functional_conv import _in_layout
    from .nn.functional import pad as _pad

    out = _pad(input, list(pad), "constant", value)
    return _in_layout(input, out) if input.dim() in (4, 5) else out


def _dim(d, ndim):
    if not -builtins.max(ndim, 1) <= d < builtins.max(ndim, 1):
        raise IndexError(
            f"Dimension out of range (expected to be in range of "
            f"[{-builtins.max(ndim, 1)}, {builtins.max(ndim, 1) - 1}], but got {d})"
        )
    return d % builtins.max(ndim, 1)


def movedim(
    input: Tensor, source: int | Sequence[int], destination: int | Sequence[int]
) -> Tensor:
    """The dimensions ``source`` moved to ``destination`` (the others keep their order): a
    permutation view."""
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    if len(src) != len(dst):
        raise RuntimeError(
            f"movedim: Invalid source or destination dims: source ({src} dims) should "
            f"contain the same number of dims as destination ({dst} dims)"
        )
    n = input.dim()
    src = [_dim(d, n) for d in src]
    dst = [_dim(d, n) for d in dst]
    if len(set(src)) != len(src):
        raise RuntimeError(f"movedim: repeated dim in `source` ({src})")
    if len(set(dst)) != len(dst):
        raise RuntimeError(f"movedim: repeated dim in `destination` ({dst})")
    placed: list[int | None] = [None] * n
    for s, d in zip(src, dst):
        placed[d] = s
    rest = iter(d for d in range(n) if d not in src)
    order = [next(rest) if o is None else o for o in placed]
    return input.permute(*order)


moveaxis = movedim


def swapaxes(input: Tensor, axis0: int, axis1: int) -> Tensor:
    """Alias of ``transpose``."""
    return input.transpose(axis0, axis1)


swapdims = swapaxes


def repeat_interleave(
    input: Tensor,
    repeats: Tensor | int | None = None,
    dim: int | None = None,
    *,
    output_size: int | None = None,
) -> Tensor:
    """Each element (or slice along ``dim``) repeated ``repeats`` times in place; without
    ``dim`` the flattened input. An int count expands a new dimension and copies it out (so the
    graph is PyTorch's: ``ViewBackward0`` over ``CloneBackward0`` over ``ExpandBackward0``); a
    tensor of counts selects the rows (``IndexSelectBackward0``). With ``repeats`` alone
    (``torch.repeat_interleave(counts)``), the indices ``0, 1, ...`` each repeated."""
    if repeats is None:
        if input.dim() > 1:
            raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
        counts = input.reshape(-1)
        return _core.arange(counts.numel()).index_select(0, _repeated_indices(counts))
    if dim is None:
        input, dim = input.flatten(), 0
    dim = dim + input.dim() if dim < 0 else dim
    if isinstance(repeats, Tensor):
        if repeats.dim() > 1:
            raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
        if repeats.numel() == 1:
            repeats = repeats.reshape(1).expand(input.shape[dim])
        if repeats.shape[0] != input.shape[dim]:
            raise RuntimeError(
                "repeats must have the same size as input along dim, but got repeats.size(0) = "
                f"{repeats.shape[0]} and input.size({dim}) = {input.shape[dim]}"
            )
        return input.index_select(dim, _repeated_indices(repeats))
    repeats = operator.index(repeats)
    if repeats < 0:
        raise RuntimeError("Repeats must be non-negative")
    shape = list(input.shape)
    expanded = input.unsqueeze(dim + 1).expand(*shape[: dim + 1], repeats, *shape[dim + 1 :])
    return expanded.clone().view(*shape[:dim], shape[dim] * repeats, *shape[dim + 1 :])


def _repeated_indices(counts):
    """``i`` repeated ``counts[i]`` times, for each ``i`` (an int64 tensor)."""
    values = counts.tolist()
    if any(c < 0 for c in values):
        raise RuntimeError("repeats can not be negative")
    flat = [i for i, c in enumerate(values) for _ in range(int(c))]
    return _core.tensor(flat, dtype=_core.int64) if flat else _core.zeros(0, dtype=_core.int64)


def flipud(input: Tensor) -> Tensor:
    """Reversed along dim 0."""
    if input.dim() < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return input.flip(0)


def fliplr(input: Tensor) -> Tensor:
    """Reversed along dim 1."""
    if input.dim() < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return input.flip(1)


def rot90(input, k=1, dims=(0, 1)):
    """Rotated by ``k`` quarter turns in the plane of ``dims`` (the method, one op)."""
    return input.rot90(k, list(dims))


def ravel(input: Tensor) -> Tensor:
    """The elements as one dimension (a view when possible)."""
    return input.reshape(-1)


def unflatten(input: Tensor, dim: int, sizes: Sequence[int]) -> Tensor:
    """Dimension ``dim`` split into ``sizes`` (one of them may be -1)."""
    sizes = list(sizes)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    n = input.dim()
    d = _dim(dim, n)
    shape = list(input.shape)
    known = 1
    for s in sizes:
        if s != -1:
            known *= s
    if sizes.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    if -1 in sizes:
        if known == 0 or shape[d] % known:
            raise RuntimeError(
                f"unflatten: Provided sizes {sizes} don't multiply up to the size of dim "
                f"{dim} ({shape[d]}) in the input tensor"
            )
        sizes[sizes.index(-1)] = shape[d] // known
    elif known != shape[d]:
        raise RuntimeError(
            f"unflatten: Provided sizes {sizes} don't multiply up to the size of dim {dim} "
            f"({shape[d]}) in the input tensor"
        )
    return input.reshape(*shape[:d], *sizes, *shape[d + 1 :])


def tile(input: Tensor, dims: int | Sequence[int]) -> Tensor:
    """``input`` repeated ``dims[i]`` times along each dimension (missing leading ``dims``
    taken as 1)."""
    dims = [dims] if isinstance(dims, int) else list(dims)
    if len(dims) < input.dim():
        dims = [1] * (input.dim() - len(dims)) + dims
    return input.repeat(*dims)


def msort(input: Tensor) -> Tensor:
    """Sorted along dim 0 (the values of ``sort(dim=0)``)."""
    return input.sort(0).values


def tensor_split(
    input: Tensor, indices_or_sections: Tensor | int | Sequence[int], dim: int = 0
) -> tuple[Tensor, ...]:
    """Views splitting ``dim``: into ``n`` nearly equal parts (the first ``size % n`` one
    longer) when given a number, else at the given indices."""
    if input.dim() == 0:
        raise RuntimeError(
            "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims"
        )
    d = _dim(dim, input.dim())
    size = input.shape[d]
    if isinstance(indices_or_sections, Tensor):
        # a 0-d tensor gives its int, another its list of ints
        indices_or_sections = indices_or_sections.tolist()  # type: ignore[assignment]
    if isinstance(indices_or_sections, int):
        n = indices_or_sections
        if n <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {n}")
        small, extra = divmod(size, n)
        bounds, at = [], 0
        for i in range(n):
            length = small + (1 if i < extra else 0)
            bounds.append((at, at + length))
            at += length
    else:
        cuts = [operator.index(i) for i in indices_or_sections]
        bounds, start = [], 0
        for c in [*cuts, size]:
            c = builtins.min(builtins.max(c if c >= 0 else c + size, 0), size)
            bounds.append((start, builtins.max(c, start)))
            start = builtins.max(c, start)
    return tuple(input.narrow(d, a, b - a) for a, b in bounds)


def _split_along(input, sections, dim, name, min_dims):
    if input.dim() < min_dims:
        raise RuntimeError(
            f"torch.{name} requires a tensor with at least {min_dims} dimension, but got a "
            f"tensor with {input.dim()} dimensions!"
        )
    if isinstance(sections, int) and (sections == 0 or input.shape[dim] % sections):
        raise RuntimeError(
            f"torch.{name} attempted to split along dimension {dim}, but the size of the "
            f"dimension {input.shape[dim]} is not divisible by the split_size {sections}!"
        )
    return tensor_split(input, sections, dim)


def hsplit(input: Tensor, indices_or_sections: int | Sequence[int]) -> tuple[Tensor, ...]:
    """``tensor_split`` along dim 1 (dim 0 of a 1-D tensor), whole parts only."""
    return _split_along(input, indices_or_sections, 1 if input.dim() > 1 else 0, "hsplit", 1)


def vsplit(input: Tensor, indices_or_sections: int | Sequence[int]) -> tuple[Tensor, ...]:
    """``tensor_split`` along dim 0, whole parts only (at least 2-D)."""
    return _split_along(input, indices_or_sections, 0, "vsplit", 2)


def dsplit(input: Tensor, indices_or_sections: int | Sequence[int]) -> tuple[Tensor, ...]:
    """``tensor_split`` along dim 2, whole parts only (at least 3-D)."""
    return _split_along(input, indices_or_sections, 2, "dsplit", 3)


def diff(
    input: Tensor,
    n: int = 1,
    dim: int = -1,
    prepend: Tensor | None = None,
    append: Tensor | None = None,
) -> Tensor:
    """The ``n``-th forward difference along ``dim`` (``prepend``/``append`` joined first):
    ``x[1:] - x[:-1]``, repeated (``logical_xor`` for bool)."""
    if input.dim() == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = _dim(dim, input.dim())
    for extra in (prepend, append):
        if extra is not None and extra.dim() != input.dim():
            raise RuntimeError("diff expects prepend or append to be the same dimension as input")
    if n == 0:
        return input.clone()
    x = input
    if prepend is not None or append is not None:
        x = _core.cat([p for p in (prepend, input, append) if p is not None], d)
    length = x.shape[d] - 1
    for _ in range(builtins.min(n, x.shape[d])):
        later, earlier = x.narrow(d, 1, length), x.narrow(d, 0, length)
        x = later.logical_xor(earlier) if x.dtype == _core.bool else later - earlier
        length -= 1
    return x


def kron(input: Tensor, other: Tensor) -> Tensor:
    """The Kronecker product: every element of ``input`` times all of ``other``, as blocks."""
    n = builtins.max(input.dim(), other.dim())
    a = [1] * (n - input.dim()) + list(input.shape)
    b = [1] * (n - other.dim()) + list(other.shape)
    a_shape = [s for size in a for s in (size, 1)]
    b_shape = [s for size in b for s in (1, size)]
    product = input.reshape(*a_shape) * other.reshape(*b_shape)
    return product.reshape(*[x * y for x, y in zip(a, b)])


def tensordot(a, b, dims=2, out=None):
    """The sum of products over ``dims`` (a number: the last ``dims`` of ``a`` with the first
    of ``b``; or two lists of dimensions): permutes, a matrix product, a reshape."""
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        da = list(range(a.dim() - dims, a.dim()))
        db = list(range(dims))
    else:
        da, db = dims
        da = [da] if isinstance(da, int) else list(da)
        db = [db] if isinstance(db, int) else list(db)
    if len(da) != len(db):
        raise RuntimeError("both dimension lists should have same length")
    da = [_dim(d, a.dim()) for d in da]
    db = [_dim(d, b.dim()) for d in db]
    for x, y in zip(da, db):
        if a.shape[x] != b.shape[y]:
            raise RuntimeError(
                f"contracted dimensions need to match, but first has size {a.shape[x]} in "
                f"dim {x} and second has size {b.shape[y]} in dim {y}"
            )
    free_a = [d for d in range(a.dim()) if d not in da]
    free_b = [d for d in range(b.dim()) if d not in db]
    size = 1
    for d in da:
        size *= a.shape[d]
    left = a.permute(*free_a, *da).reshape(-1, size)
    right = b.permute(*db, *free_b).reshape(size, -1)
    shape = [a.shape[d] for d in free_a] + [b.shape[d] for d in free_b]
    return left.mm(right).reshape(*shape)


def inner(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The sum of products over the last dimension of both (a product when either is 0-d)."""
    if input.dim() == 0 or other.dim() == 0:
        return input * other
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(
            f"inner() the last dimension must match on both input tensors but got shapes "
            f"{list(input.shape)} and {list(other.shape)}"
        )
    return tensordot(input, other, ([-1], [-1]))


def norm_except_dim(v, pow=2, dim=0):
    """The ``pow``-norm of ``v`` over every dimension but ``dim``, shaped to broadcast against
    ``v`` (size 1 except at ``dim``); ``dim=-1`` means the norm of the whole tensor (a 0-d
    result), as PyTorch's (not the last dimension)."""
    if dim == -1:
        return v.norm(pow)
    if dim == 0:
        shape = [1] * v.dim()
        shape[0] = v.shape[0]
        return v.contiguous().view(v.shape[0], -1).norm(pow, 1).view(*shape)
    if dim == v.dim() - 1:
        shape = [1] * v.dim()
        shape[-1] = v.shape[-1]
        return v.contiguous().view(-1, v.shape[-1]).norm(pow, 0).view(*shape)
    return norm_except_dim(v.transpose(0, dim), pow, 0).transpose(0, dim)


def _weight_norm(v, g, dim=0):
    """Weight normalization, ``v * (g / norm_except_dim(v, 2, dim))``: the direction of ``v``
    scaled to the magnitude ``g`` (``dim=-1``: one norm for the whole tensor)."""
    return v * (g / norm_except_dim(v, 2, dim))


def module_load(self: Tensor, other: Tensor, assign: bool = False) -> Tensor:
    """What ``load_state_dict`` puts in this parameter or buffer's place when
    ``torch.__future__.set_swap_module_params_on_conversion(True)`` is on (it is then swapped
    in with ``torch.utils.swap_tensors``): ``other`` detached if ``assign``, else this tensor
    with ``other``'s values copied in, detached. Subclasses override it to load differently."""
    if assign:
        return other.detach()
    return self.copy_(other).detach()


def _install():
    for name in METHODS:
        setattr(Tensor, name, globals()[name])
