"""``einsum``, ``meshgrid`` and ``broadcast_tensors``: functions of several tensors built from
views, ``mul``, ``sum`` and ``bmm`` as PyTorch builds them, so their graphs (and gradients, to any
order) come from those ops."""

from __future__ import annotations

import warnings

from ._core import Tensor

_ELLIPSIS = "..."


def _label_index(c: str) -> int:
    """PyTorch's order of labels: ``a``-``z`` then ``A``-``Z``."""
    return ord(c) - ord("a") if c.islower() else 26 + ord(c) - ord("A")


def _invalid(at: int) -> RuntimeError:
    return RuntimeError(
        f"einsum(): invalid subscript given at index {at} in the equation string, subscripts "
        "must be in [a-zA-Z]"
    )


def _parse_operand(term: str, i: int, start: int) -> list[str]:
    """The labels of one operand's subscripts (``"..."`` for an ellipsis); ``term`` begins at
    index ``start`` of the equation."""
    labels: list[str] = []
    k = 0
    while k < len(term):
        c = term[k]
        if c == " ":
            k += 1
        elif c == ".":
            if _ELLIPSIS in labels:
                raise RuntimeError(
                    f"einsum(): found '.' for operand {i} for which an ellipsis was already found"
                )
            if term[k : k + 3] != _ELLIPSIS:
                raise RuntimeError(
                    f"einsum(): found '.' for operand {i} that is not part of any ellipsis"
                )
            labels.append(_ELLIPSIS)
            k += 3
        elif c.isascii() and c.isalpha():
            labels.append(c)
            k += 1
        else:
            raise _invalid(start + k)
    return labels


def _parse_output(rhs: str, counts: dict[str, int], start: int) -> list[str]:
    labels: list[str] = []
    k = 0
    while k < len(rhs):
        c = rhs[k]
        if c == " ":
            k += 1
        elif c == ".":
            if _ELLIPSIS in labels:
                raise RuntimeError(
                    "einsum(): found '.' for output but an ellipsis (...) was already found"
                )
            if rhs[k : k + 3] != _ELLIPSIS:
                raise RuntimeError(
                    "einsum(): found '.' for output that is not part of any ellipsis (...)"
                )
            labels.append(_ELLIPSIS)
            k += 3
        elif c.isascii() and c.isalpha():
            if c in labels:
                raise RuntimeError(
                    f"einsum(): output subscript {c} appears more than once in the output"
                )
            if counts.get(c, 0) == 0:
                raise RuntimeError(
                    f"einsum(): output subscript {c} does not appear in the equation for any input "
                    "operand"
                )
            labels.append(c)
            k += 1
        else:
            raise _invalid(start + k)
    return labels


def _sumproduct_pair(left: Tensor, right: Tensor, sum_dims: list[int]) -> Tensor:
    """``(left * right).sum(sum_dims, keepdim=True)`` by one batched matrix product: the dims of
    both and the output (batch), of one side and the output, and the summed ones are grouped by
    a permute and a reshape each side, multiplied, and put back."""
    if not sum_dims:
        return left.mul(right)
    ndim = left.dim()
    lro, lo, ro = [], [], []
    lro_size = lo_size = ro_size = sum_size = 1
    for d in range(ndim):
        sl, sr = left.shape[d] != 1, right.shape[d] != 1
        if d in sum_dims:
            if sl and sr:
                sum_size *= left.shape[d]
        elif sl and sr:
            lro.append(d)
            lro_size *= left.shape[d]
        elif sl:
            lo.append(d)
            lo_size *= left.shape[d]
        else:
            ro.append(d)
            ro_size *= right.shape[d]
    out_size = (
        [left.shape[d] for d in lro]
        + [left.shape[d] for d in lo]
        + [1] * len(sum_dims)
        + [right.shape[d] for d in ro]
    )
    lperm = lro + lo + sum_dims + ro
    rperm = lro + sum_dims + ro + lo
    operm = [0] * ndim
    for i, d in enumerate(lro + lo + sum_dims + ro):
        operm[d] = i
    a = left.permute(*lperm).reshape(lro_size, lo_size, sum_size)
    b = right.permute(*rperm).reshape(lro_size, sum_size, ro_size)
    return a.bmm(b).view(*out_size).permute(*operm)


def einsum(equation: str, *operands: Tensor) -> Tensor:
    """Einstein summation: ``einsum("ij,jk->ik", a, b)`` is ``a @ b``; repeated subscripts of
    one operand take its diagonal, subscripts missing from the output are summed, ``...`` stands
    for broadcast dimensions, and without ``->`` the output is the subscripts seen once, in
    alphabetical order."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not operands:
        raise RuntimeError("einsum(): must provide at least one operand")
    for t in operands:
        if not isinstance(t, Tensor):
            raise TypeError(f"einsum(): operands must be Tensors, not {type(t).__name__}")
    lhs, arrow, rhs = equation.partition("->")
    terms = lhs.split(",")
    if len(terms) > len(operands):
        raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
    if len(terms) < len(operands):
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    starts = [sum(len(t) + 1 for t in terms[:i]) for i in range(len(terms))]
    op_labels = [
        _parse_operand(term, i, start) for i, (term, start) in enumerate(zip(terms, starts))
    ]

    counts: dict[str, int] = {}
    ell_dims = 0
    for i, (t, labels) in enumerate(zip(operands, op_labels)):
        named = [c for c in labels if c != _ELLIPSIS]
        has_ell = len(named) < len(labels)
        for c in named:
            counts[c] = counts.get(c, 0) + 1
        if has_ell:
            if len(named) > t.dim():
                raise RuntimeError(
                    f"einsum(): the number of subscripts in the equation ({len(named)}) is more "
                    f"than the number of dimensions ({t.dim()}) for operand {i}"
                )
            ell_dims = max(ell_dims, t.dim() - len(named))
        elif len(named) != t.dim():
            raise RuntimeError(
                f"einsum(): the number of subscripts in the equation ({len(named)}) does not match "
                f"the number of dimensions ({t.dim()}) for operand {i} and no ellipsis was given"
            )

    # the aligned order: the output's labels (with the ellipsis dims where it puts them), then
    # the contracted ones
    if arrow:
        out_labels = _parse_output(rhs, counts, len(lhs) + 2)
    else:
        once = sorted((c for c, n in counts.items() if n == 1), key=_label_index)
        out_labels = [_ELLIPSIS, *once]
    position: dict[str, int] = {}
    index = 0
    ell_start = None
    for c in out_labels:
        if c == _ELLIPSIS:
            ell_start = index
            index += ell_dims
        else:
            position[c] = index
            index += 1
    out_size = index
    if ell_start is None:
        ell_start = index
        index += ell_dims
    for c in sorted(counts, key=_label_index):
        if c not in position:
            position[c] = index
            index += 1
    total = index

    aligned = []
    for i, (t, labels) in enumerate(zip(operands, op_labels)):
        perm = [-1] * total
        seen: dict[str, int] = {}
        op = t
        j = 0
        for c in labels:
            if c == _ELLIPSIS:
                n_named = len(labels) - 1
                for _ in range(ell_dims - (t.dim() - n_named)):
                    op = op.unsqueeze(j)
                for k in range(ell_dims):
                    perm[ell_start + k] = j
                    j += 1
            elif c in seen:
                dim = seen[c]
                if op.shape[j] != op.shape[dim]:
                    raise RuntimeError(
                        f"einsum(): subscript {c} is repeated for operand {i} but the sizes don't "
                        f"match, {op.shape[j]} != {op.shape[dim]}"
                    )
                op = op.diagonal(0, dim, j)
                moved = list(range(op.dim() - 1))
                moved.insert(dim, op.dim() - 1)
                op = op.permute(*moved)
            else:
                seen[c] = j
                perm[position[c]] = j
                j += 1
        for k in range(total):
            if perm[k] == -1:
                op = op.unsqueeze(-1)
                perm[k] = j
                j += 1
        aligned.append(op.permute(*perm))

    # sizes must broadcast
    for d in range(total):
        size = 1
        for i, op in enumerate(aligned):
            s = op.shape[d]
            if s != 1:
                if size != 1 and s != size:
                    label = next((c for c, p in position.items() if p == d), "...")
                    raise RuntimeError(
                        f"einsum(): subscript {label} has size {s} for operand {i} which does not "
                        f"broadcast with previously seen size {size}"
                    )
                size = s

    contracted = list(range(out_size, total))
    if len(aligned) == 1:
        result = aligned[0]
        return result.sum(contracted) if contracted else result

    # operands left to right: a contracted dim is summed once no later operand needs it
    holders = {d: sum(1 for op in aligned if op.shape[d] != 1) for d in contracted}
    result = aligned[0]
    for b in aligned[1:]:
        sum_dims, a_only, b_only = [], [], []
        for d in contracted:
            in_a, in_b = result.shape[d] != 1, b.shape[d] != 1
            if in_a and in_b:
                holders[d] -= 1
                if holders[d] == 1:
                    sum_dims.append(d)
                    holders[d] = 0
            elif holders[d] == 1:
                if in_a:
                    a_only.append(d)
                    holders[d] = 0
                elif in_b:
                    b_only.append(d)
                    holders[d] = 0
        if a_only:
            result = result.sum(a_only, keepdim=True)
        if b_only:
            b = b.sum(b_only, keepdim=True)
        result = _sumproduct_pair(result, b, sum_dims)
    if contracted:
        result = result.view(*result.shape[:out_size])
    return result


def meshgrid(*tensors: Tensor, indexing: str | None = None) -> tuple[Tensor, ...]:
    """Coordinate grids of 0-D or 1-D tensors: output ``i`` holds ``tensors[i]`` along dimension
    ``i`` (``indexing="ij"``; ``"xy"`` swaps the first two), expanded over the others."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        warnings.warn(
            "torch.meshgrid: in an upcoming release, it will be required to pass the indexing "
            "argument.",
            UserWarning,
            stacklevel=2,
        )
        indexing = "ij"
    if indexing not in ("xy", "ij"):
        raise RuntimeError(
            f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}'
        )
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for t in tensors:
        if t.dim() > 1:
            raise RuntimeError(
                "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got a tensor of "
                f"{t.dim()} dimensions"
            )
        if t.dtype != tensors[0].dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    # "xy": the grid of (y, x, ...) in "ij" order, with the first two outputs swapped back
    swap = indexing == "xy" and len(tensors) >= 2
    order = list(tensors)
    if swap:
        order[0], order[1] = order[1], order[0]
    shape = [t.numel() for t in order]
    grids = []
    for i, t in enumerate(order):
        view = [1] * len(order)
        view[i] = -1
        grids.append(t.view(*view).expand(*shape))
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


def broadcast_tensors(*tensors: Tensor) -> tuple[Tensor, ...]:
    """The tensors expanded to their common broadcast shape (a tensor already of that shape is
    returned itself)."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    shape: list[int] = []
    for t in tensors:
        dims = list(t.shape)
        if len(dims) > len(shape):
            shape = [1] * (len(dims) - len(shape)) + shape
        dims = [1] * (len(shape) - len(dims)) + dims
        for k, (a, b) in enumerate(zip(shape, dims)):
            if a != b and a != 1 and b != 1:
                raise RuntimeError(
                    f"The size of tensor a ({a}) must match the size of tensor b ({b}) at "
                    f"non-singleton dimension {k}"
                )
            shape[k] = b if a == 1 else a
    return tuple(t if list(t.shape) == shape else t.expand(*shape) for t in tensors)
