"""Behaviour of the newer op surface, with exact expected values.

Subgradient conventions, views and version counters, indexing, ``max(dim)`` results, type
promotion, numerical stability, ``var``/``std`` corrections, hooks, custom ``Function``s and
``gradcheck`` itself.
"""

import math
import warnings

import ferrograd as torch
import numpy as np
import pytest

F = torch.nn.functional
INPLACE_ERR = "modified by an inplace operation"
LEAF_VIEW_ERR = (
    "a view of a leaf Variable that requires grad is being used in an in-place operation."
)


def f64(data, requires_grad=False):
    return torch.tensor(data, dtype=torch.float64, requires_grad=requires_grad)


def values(t):
    return t.detach().numpy().tolist()


# --------------------------------------------------------------------------------------------
# subgradient conventions
# --------------------------------------------------------------------------------------------


def test_relu_gradient_at_zero_is_zero():
    """relu'(0) = 0."""
    x = f64([-1.0, 0.0, 2.0], requires_grad=True)
    x.relu().sum().backward()
    assert values(x.grad) == [0.0, 0.0, 1.0]


def test_abs_gradient_at_zero_is_zero():
    """abs'(0) = 0."""
    x = f64([-1.5, 0.0, 2.0], requires_grad=True)
    x.abs().sum().backward()
    assert values(x.grad) == [-1.0, 0.0, 1.0]


def test_max_all_ties_split_evenly():
    """x.max() over [1, 3, 3] sends half the gradient to each maximum."""
    x = f64([1.0, 3.0, 3.0], requires_grad=True)
    x.max().backward()
    assert values(x.grad) == [0.0, 0.5, 0.5]


def test_min_all_ties_split_evenly():
    """x.min() over [[2, 1], [1, 1]] sends a third to each minimum."""
    x = f64([[2.0, 1.0], [1.0, 1.0]], requires_grad=True)
    (x.min() * 3).backward()
    assert values(x.grad) == [[0.0, 1.0], [1.0, 1.0]]


def test_amax_ties_split_evenly():
    """amax(dim) shares the gradient among the tied elements of each slice."""
    x = f64([[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]], requires_grad=True)
    x.amax(1).sum().backward()
    assert values(x.grad) == [[0.0, 0.5, 0.5], [0.5, 0.5, 0.0]]


@pytest.mark.parametrize("op", ["max", "min"])
def test_max_dim_gradient_goes_to_returned_index(op):
    """max(dim)/min(dim) with ties: the whole gradient goes to the index it returns."""
    x = f64([[1.0, 3.0, 3.0], [5.0, 5.0, 5.0], [0.0, 0.0, 4.0]], requires_grad=True)
    res = getattr(x, op)(1)
    (res.values * f64([1.0, 2.0, 3.0])).sum().backward()
    expected = np.zeros((3, 3))
    for row, col in enumerate(res.indices.tolist()):
        expected[row, col] = row + 1.0
    assert values(x.grad) == expected.tolist()
    picked = [x.detach().numpy()[r, c] for r, c in enumerate(res.indices.tolist())]
    assert picked == values(res.values)


def test_maximum_minimum_ties_split_half():
    """maximum/minimum give 0.5 to each side where the operands are equal."""
    a = f64([1.0, 2.0, 3.0], requires_grad=True)
    b = f64([1.0, 0.0, 3.0], requires_grad=True)
    torch.maximum(a, b).sum().backward()
    assert values(a.grad) == [0.5, 1.0, 0.5]
    assert values(b.grad) == [0.5, 0.0, 0.5]
    a.grad = None
    b.grad = None
    torch.minimum(a, b).sum().backward()
    assert values(a.grad) == [0.5, 0.0, 0.5]
    assert values(b.grad) == [0.5, 1.0, 0.5]


def test_clamp_gradient_is_zero_at_the_bounds():
    """clamp (PyTorch 2.15): the gradient passes strictly inside the range; elements equal to
    min or max get 0, as do those outside. Also with min > max (everything is max)."""
    x = f64([-1.0, 0.0, 0.5, 1.0, 2.0], requires_grad=True)
    x.clamp(0.0, 1.0).sum().backward()
    assert values(x.grad) == [0.0, 0.0, 1.0, 0.0, 0.0]
    x.grad = None
    x.clamp(min=0.5).sum().backward()
    assert values(x.grad) == [0.0, 0.0, 0.0, 1.0, 1.0]
    x.grad = None
    x.clip(max=0.5).sum().backward()
    assert values(x.grad) == [1.0, 1.0, 0.0, 0.0, 0.0]
    assert values(x.clamp(3.0, 2.0)) == [2.0] * 5


@pytest.mark.parametrize("op", ["sign", "floor", "ceil", "round"])
def test_step_functions_have_zero_gradient(op):
    """sign/floor/ceil/round have gradient 0 everywhere, including at their jumps."""
    x = f64([-1.5, -1.0, 0.0, 0.5, 2.3], requires_grad=True)
    getattr(x, op)().sum().backward()
    assert values(x.grad) == [0.0] * 5


# --------------------------------------------------------------------------------------------
# views
# --------------------------------------------------------------------------------------------

VIEWS = [
    ("t", (3, 4), lambda x: x.t(), lambda a: a.T),
    ("T", (3, 4), lambda x: x.T, lambda a: a.T),
    ("transpose", (2, 3, 4), lambda x: x.transpose(0, 2), lambda a: a.transpose(2, 1, 0)),
    ("permute", (2, 3, 4), lambda x: x.permute(2, 0, 1), lambda a: a.transpose(2, 0, 1)),
    ("view", (2, 3, 4), lambda x: x.view(6, 4), lambda a: a.reshape(6, 4)),
    ("view_infer", (2, 3, 4), lambda x: x.view(-1), lambda a: a.reshape(-1)),
    ("reshape", (2, 3, 4), lambda x: x.reshape(4, 6), lambda a: a.reshape(4, 6)),
    ("flatten", (2, 3, 4), lambda x: x.flatten(), lambda a: a.reshape(-1)),
    ("flatten_range", (2, 3, 4), lambda x: x.flatten(1, 2), lambda a: a.reshape(2, 12)),
    ("squeeze", (3, 1, 4), lambda x: x.squeeze(), lambda a: a.reshape(3, 4)),
    ("squeeze_dim", (3, 1, 4), lambda x: x.squeeze(1), lambda a: a.reshape(3, 4)),
    ("unsqueeze", (3, 4), lambda x: x.unsqueeze(1), lambda a: a[:, None]),
    ("narrow", (3, 4), lambda x: x.narrow(1, 1, 2), lambda a: a[:, 1:3]),
    ("select", (3, 4), lambda x: x.select(1, 2), lambda a: a[:, 2]),
    ("index_int", (2, 3, 4), lambda x: x[1], lambda a: a[1]),
    ("index_steps", (3, 4), lambda x: x[:, ::2], lambda a: a[:, ::2]),
    ("index_negative", (3, 4), lambda x: x[-1, 1:], lambda a: a[-1, 1:]),
    ("index_none_ellipsis", (2, 3, 4), lambda x: x[None, ..., 1:], lambda a: a[None, ..., 1:]),
    ("view_of_view", (3, 4), lambda x: x.t()[1:], lambda a: a.T[1:]),
]
VIEW_IDS = [v[0] for v in VIEWS]


def _base_tensor(shape):
    a = np.arange(np.prod(shape), dtype=np.float64).reshape(shape)
    return torch.tensor(a), a


@pytest.mark.parametrize("shape, make, np_view", [v[1:] for v in VIEWS], ids=VIEW_IDS)
def test_view_base_is_the_root_tensor(shape, make, np_view):
    """A view's ``_base`` is the root tensor: same shape, same storage, no base of its own."""
    x, a = _base_tensor(shape)
    v = make(x)
    base = v._base
    assert base is not None
    assert tuple(base.shape) == shape
    assert base._base is None
    base.add_(100.0)
    assert values(x) == (a + 100.0).tolist()
    assert values(v) == np_view(a + 100.0).tolist()


@pytest.mark.parametrize("shape, make, np_view", [v[1:] for v in VIEWS], ids=VIEW_IDS)
def test_write_through_view_changes_base_and_shares_version(shape, make, np_view):
    """Writing through a view changes the base, and both see the same version counter."""
    x, a = _base_tensor(shape)
    v = make(x)
    assert v._version == x._version
    before = x._version
    v.mul_(-1.0)
    np_view(a)[...] *= -1.0
    assert values(x) == a.tolist()
    assert x._version > before
    assert v._version == x._version
    assert values(v) == np_view(a).tolist()


def test_expand_is_a_view_of_its_base():
    """expand shares storage and version with its base (writes to the base show through)."""
    x = f64([[1.0], [2.0], [3.0]])
    v = x.expand(3, 4)
    assert v._base is not None
    assert tuple(v._base.shape) == (3, 1)
    x.add_(10.0)
    assert values(v) == [[11.0] * 4, [12.0] * 4, [13.0] * 4]
    assert v._version == x._version == 1


def test_view_base_identity():
    """``x.t()._base is x`` (the base is the very same Python object)."""
    x = f64([[1.0, 2.0], [3.0, 4.0]])
    assert x.t()._base is x
    assert x[0]._base is x
    assert x.t()[0]._base is x


def test_non_views_have_no_base():
    """Leaves, op results and clones have ``_base`` None."""
    x = f64([[1.0, 2.0], [3.0, 4.0]])
    assert x._base is None
    assert (x + 1)._base is None
    assert x.t().clone()._base is None


def test_is_contiguous_is_honest():
    """t()/transpose/permute/strided slices are not contiguous; contiguous() is."""
    x = f64(np.arange(24.0).reshape(2, 3, 4))
    assert x.is_contiguous()
    assert not x[0].t().is_contiguous()
    assert not x.transpose(0, 1).is_contiguous()
    assert not x.permute(2, 0, 1).is_contiguous()
    assert not x[:, :, ::2].is_contiguous()
    assert x[1].is_contiguous()
    assert x.unsqueeze(0).is_contiguous()
    c = x.permute(2, 0, 1).contiguous()
    assert c.is_contiguous()
    assert values(c) == np.arange(24.0).reshape(2, 3, 4).transpose(2, 0, 1).tolist()


def test_contiguous_copy_does_not_alias():
    """contiguous() of a non-contiguous view is a copy: writing to it leaves the base alone."""
    x = f64([[1.0, 2.0], [3.0, 4.0]])
    c = x.t().contiguous()
    c.add_(1.0)
    assert values(x) == [[1.0, 2.0], [3.0, 4.0]]
    assert x._version == 0


def test_reshape_of_noncontiguous_copies():
    """reshape of a transposed tensor copies: the result does not alias the base."""
    x = f64([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    y = x.t().reshape(-1)
    assert values(y) == [1.0, 4.0, 2.0, 5.0, 3.0, 6.0]
    assert y.is_contiguous()
    y.add_(1.0)
    assert values(x) == [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    assert x._version == 0


def test_reshape_copy_is_not_a_view():
    """The copy made by reshape of a non-contiguous tensor is not a view: ``_base`` is None."""
    x = f64([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert x.t().reshape(-1)._base is None
    assert x.t().flatten()._base is None


def test_view_of_noncontiguous_raises():
    """view() of a transposed tensor is an error (reshape is the copying alternative)."""
    x = f64([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    with pytest.raises(RuntimeError):
        x.t().view(-1)


def test_saved_base_modified_through_view_is_caught():
    """A tensor saved for backward, then modified through one of its views, fails backward."""
    x = f64([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 1
    z = y * y
    y[0].mul_(2.0)
    with pytest.raises(RuntimeError, match=INPLACE_ERR):
        z.sum().backward()


def test_saved_view_modified_through_base_is_caught():
    """A saved view whose base is modified in place also fails the version check."""
    x = f64([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    y = x * 1
    row = y[0]
    z = row.sin()
    y.add_(1.0)
    with pytest.raises(RuntimeError, match=INPLACE_ERR):
        z.sum().backward()


@pytest.mark.parametrize(
    "write",
    [
        lambda x: x[0].add_(1.0),
        lambda x: x.t().mul_(2.0),
        lambda x: x[:, 1:].zero_(),
        lambda x: x.view(-1).fill_(1.0),
    ],
    ids=["select_add_", "t_mul_", "slice_zero_", "view_fill_"],
)
def test_inplace_on_view_of_leaf_requiring_grad_raises(write):
    """In-place through a view of a leaf that requires grad is refused and changes nothing."""
    x = f64([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    with pytest.raises(RuntimeError, match=LEAF_VIEW_ERR):
        write(x)
    assert values(x) == [[1.0, 2.0], [3.0, 4.0]]


def test_inplace_on_view_of_nonleaf_updates_graph():
    """y = x * 1; y[0].mul_(v): gradients of x and v follow the modified graph."""
    x = f64([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    v = f64([5.0, 6.0], requires_grad=True)
    y = x * 1
    y[0].mul_(v)
    assert values(y) == [[5.0, 12.0], [3.0, 4.0]]
    (y * f64([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
    assert values(x.grad) == [[5.0, 12.0], [3.0, 4.0]]
    assert values(v.grad) == [1.0, 4.0]


# --------------------------------------------------------------------------------------------
# indexing
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "index",
    [[0, 2], torch.tensor([1, 1]), torch.tensor([True, False, True])],
    ids=["list", "int_tensor", "bool_mask"],
)
def test_advanced_getitem_returns_a_copy(index):
    """Advanced indexing copies: the result has no base and writes do not reach the source."""
    x = f64([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    y = x[index]
    assert y._base is None
    y.add_(100.0)
    assert values(x) == [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]
    assert x._version == 0


def test_repeated_index_getitem_accumulates():
    """x[[0, 0, 1]] sends gradient 2 to element 0 and 1 to element 1."""
    x = f64([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    y = x[[0, 0, 1]]
    assert values(y) == [1.0, 1.0, 2.0]
    y.sum().backward()
    assert values(x.grad) == [2.0, 1.0, 0.0, 0.0]


def test_repeated_index_tensor_getitem_accumulates_rows():
    """x[idx] with a 2-D index tensor gathers rows; repeated rows accumulate their gradient."""
    x = f64([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], requires_grad=True)
    y = x[torch.tensor([[2, 0], [2, 2]])]
    assert tuple(y.shape) == (2, 2, 2)
    assert values(y) == [[[5.0, 6.0], [1.0, 2.0]], [[5.0, 6.0], [5.0, 6.0]]]
    y.sum().backward()
    assert values(x.grad) == [[1.0, 1.0], [0.0, 0.0], [3.0, 3.0]]


def test_bool_mask_getitem_values_and_gradient():
    """x[mask] selects in row-major order; the gradient lands on the selected elements."""
    x = f64([[1.0, -2.0, 3.0], [-4.0, 5.0, -6.0]], requires_grad=True)
    mask = x > 0
    y = x[mask]
    assert values(y) == [1.0, 3.0, 5.0]
    (y * f64([1.0, 2.0, 3.0])).sum().backward()
    assert values(x.grad) == [[1.0, 0.0, 2.0], [0.0, 3.0, 0.0]]


def test_bool_mask_setitem_scalar_and_tensor():
    """x[mask] = scalar and x[mask] = values (row-major order) write the selected elements."""
    x = f64([[1.0, -2.0, 3.0], [-4.0, 5.0, -6.0]])
    mask = x < 0
    x[mask] = 0.0
    assert values(x) == [[1.0, 0.0, 3.0], [0.0, 5.0, 0.0]]
    x[mask] = f64([7.0, 8.0, 9.0])
    assert values(x) == [[1.0, 7.0, 3.0], [8.0, 5.0, 9.0]]


def test_bool_mask_setitem_gradients():
    """y[mask] = v: v gets the gradient of the masked positions, x of the others."""
    x = f64([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    v = f64([10.0, 20.0], requires_grad=True)
    y = x * 1
    y[torch.tensor([[True, False], [False, True]])] = v
    assert values(y) == [[10.0, 2.0], [3.0, 20.0]]
    (y * f64([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
    assert values(x.grad) == [[0.0, 2.0], [3.0, 0.0]]
    assert values(v.grad) == [1.0, 4.0]


def test_setitem_value_requiring_grad_into_plain_tensor():
    """Assigning a value that requires grad into a plain tensor makes it part of the graph."""
    y = torch.zeros(4, dtype=torch.float64)
    v = f64([1.0, 2.0], requires_grad=True)
    y[[1, 3]] = v
    assert y.requires_grad
    assert y.grad_fn is not None
    assert values(y) == [0.0, 1.0, 0.0, 2.0]
    (y * f64([1.0, 2.0, 3.0, 4.0])).sum().backward()
    assert values(v.grad) == [2.0, 4.0]


def test_setitem_slice_value_gradient():
    """y[1:, 0] = v: v gets the gradient of column 0 below row 0; x loses those positions."""
    x = f64([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], requires_grad=True)
    v = f64([7.0, 8.0], requires_grad=True)
    y = x * 1
    y[1:, 0] = v
    assert values(y) == [[1.0, 2.0], [7.0, 4.0], [8.0, 6.0]]
    w = f64([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    (y * w).sum().backward()
    assert values(x.grad) == [[1.0, 2.0], [0.0, 4.0], [0.0, 6.0]]
    assert values(v.grad) == [3.0, 5.0]


def test_setitem_repeated_index_through_nonleaf():
    """x requires grad; y = x * 1; y[[0, 0, 2]] = 5: overwritten positions get no gradient."""
    x = f64([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    y = x * 1
    y[[0, 0, 2]] = 5.0
    assert values(y) == [5.0, 2.0, 5.0, 4.0]
    assert y.grad_fn is not None
    (y * f64([1.0, 2.0, 3.0, 4.0])).sum().backward()
    assert values(x.grad) == [0.0, 2.0, 0.0, 4.0]


def test_setitem_repeated_index_same_value_through_nonleaf():
    """y[[0, 0, 2]] = v (v broadcast): v's gradient is that of the positions it occupies."""
    x = f64([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    v = f64(9.0, requires_grad=True)
    y = x * 1
    y[[0, 0, 2]] = v
    assert values(y) == [9.0, 2.0, 9.0, 4.0]
    (y * f64([1.0, 2.0, 3.0, 4.0])).sum().backward()
    assert values(x.grad) == [0.0, 2.0, 0.0, 4.0]
    assert v.grad.item() == 4.0


def test_setitem_on_leaf_requiring_grad_raises():
    """Assigning into a leaf that requires grad is an in-place op on a leaf: RuntimeError."""
    x = f64([1.0, 2.0, 3.0], requires_grad=True)
    with pytest.raises(RuntimeError):
        x[[0, 1]] = 0.0
    assert values(x) == [1.0, 2.0, 3.0]


# --------------------------------------------------------------------------------------------
# max(dim), argmax, argmin
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("op", ["max", "min"])
def test_max_dim_named_tuple(op):
    """max(dim)/min(dim) return (values, indices); indices are int64 without grad_fn."""
    x = f64([[1.0, 7.0, 3.0], [9.0, 2.0, 4.0]], requires_grad=True)
    res = getattr(x, op)(1)
    vals, idx = res
    assert values(res[0]) == values(vals) == values(res.values)
    assert res._fields == ("values", "indices")
    if op == "max":
        assert values(res.values) == [7.0, 9.0]
        assert res.indices.tolist() == [1, 0]
    else:
        assert values(res.values) == [1.0, 2.0]
        assert res.indices.tolist() == [0, 1]
    assert res.values.requires_grad
    assert res.values.grad_fn is not None
    assert res.indices.dtype == torch.int64
    assert res.indices.grad_fn is None
    assert not res.indices.requires_grad
    assert values(idx) == res.indices.tolist()


def test_max_dim_keepdim_shapes():
    """keepdim=True keeps the reduced dimension with size 1 in values and indices."""
    x = f64([[1.0, 7.0, 3.0], [9.0, 2.0, 4.0]])
    res = torch.max(x, 0, keepdim=True)
    assert tuple(res.values.shape) == (1, 3)
    assert tuple(res.indices.shape) == (1, 3)
    assert res.indices.tolist() == [[1, 0, 1]]


def test_argmax_argmin_values():
    """argmax/argmin over all elements (flat index) and along a dim."""
    x = f64([[1.0, 7.0, 3.0], [9.0, -2.0, 4.0]])
    assert x.argmax().item() == 3
    assert x.argmin().item() == 4
    assert x.argmax(1).tolist() == [1, 0]
    assert x.argmin(0).tolist() == [0, 1, 0]
    assert torch.argmax(x, 0, keepdim=True).tolist() == [[1, 0, 1]]
    assert x.argmax().dtype == torch.int64
    assert torch.argmin(x, 1).dtype == torch.int64


# --------------------------------------------------------------------------------------------
# type promotion and conversions
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "make, dtype",
    [
        (lambda: torch.tensor([1, 2]) + torch.tensor([0.5, 1.5]), torch.float32),
        (lambda: torch.tensor([1.0, 2.0]) + f64([0.5, 1.5]), torch.float64),
        (lambda: torch.tensor([1.0, 2.0]) * 2.5, torch.float32),
        (lambda: torch.tensor([1, 2]) * 2.5, torch.float32),
        (lambda: torch.tensor([1, 2]) + 3, torch.int64),
        (lambda: torch.tensor([3, 4]) / torch.tensor([2, 2]), torch.float32),
        (lambda: torch.tensor([3, 4]) / 2, torch.float32),
        (lambda: f64(2.0) + torch.tensor([1.0, 2.0]), torch.float32),
        (lambda: torch.tensor([1.0, 2.0]) * f64(2.0), torch.float32),
        (lambda: torch.tensor(2) + torch.tensor([1.0, 2.0]), torch.float32),
        (lambda: torch.tensor([True, False]) + 1, torch.int64),
    ],
    ids=[
        "i64+f32",
        "f32+f64",
        "f32*2.5",
        "i64*2.5",
        "i64+3",
        "i64/i64",
        "i64/2",
        "f64_0d+f32_1d",
        "f32_1d*f64_0d",
        "i64_0d+f32_1d",
        "bool+1",
    ],
)
def test_type_promotion(make, dtype):
    """Result dtypes follow PyTorch's promotion rules."""
    assert make().dtype == dtype


def test_type_promotion_values():
    """Promoted arithmetic computes the right values (true division of ints)."""
    assert (torch.tensor([3, 4]) / torch.tensor([2, 8])).tolist() == [1.5, 0.5]
    assert (torch.tensor([1, 2]) * 2.5).tolist() == [2.5, 5.0]
    assert (f64(0.25) + torch.tensor([1.0, 2.0])).tolist() == [1.25, 2.25]


def test_dtype_conversions():
    """to(dtype), float(), double(), long() (truncates), bool(), type_as()."""
    x = torch.tensor([1.75, -1.75, 0.0])
    assert x.to(torch.float64).dtype == torch.float64
    assert x.to(torch.float64).tolist() == [1.75, -1.75, 0.0]
    assert x.double().dtype == torch.float64
    assert x.double().float().dtype == torch.float32
    assert x.long().dtype == torch.int64
    assert x.long().tolist() == [1, -1, 0]
    assert x.bool().dtype == torch.bool
    assert x.bool().tolist() == [True, True, False]
    assert x.type_as(torch.tensor([1])).dtype == torch.int64
    assert x.type_as(f64([1.0])).dtype == torch.float64
    assert torch.tensor([1, 0]).float().tolist() == [1.0, 0.0]
    assert x.dtype == torch.float32


def test_gradient_through_double_is_float32():
    """A float32 leaf used through .double() gets a float32 gradient."""
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x.double() * f64([3.0, 4.0])
    assert y.dtype == torch.float64
    y.sum().backward()
    assert x.grad.dtype == torch.float32
    assert x.grad.tolist() == [3.0, 4.0]


def test_gradient_through_to_float32_is_float64():
    """A float64 leaf used through .to(float32) gets a float64 gradient."""
    x = f64([1.0, 2.0], requires_grad=True)
    (x.to(torch.float32) * 2).sum().backward()
    assert x.grad.dtype == torch.float64
    assert values(x.grad) == [2.0, 2.0]


def test_mixed_precision_gradients_keep_leaf_dtypes():
    """float32 * float64: each leaf's gradient has the leaf's own dtype."""
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = f64([3.0, 4.0], requires_grad=True)
    (a * b).sum().backward()
    assert a.grad.dtype == torch.float32
    assert b.grad.dtype == torch.float64
    assert a.grad.tolist() == [3.0, 4.0]
    assert b.grad.tolist() == [1.0, 2.0]


# --------------------------------------------------------------------------------------------
# numerical stability
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["f32", "f64"])
def test_softmax_stable_for_large_inputs(dtype):
    """softmax/log_softmax of [1000, 0] and [-1000, 1000] are finite and exact."""
    x = torch.tensor([[1000.0, 0.0], [-1000.0, 1000.0]], dtype=dtype)
    assert x.softmax(1).tolist() == [[1.0, 0.0], [0.0, 1.0]]
    assert x.log_softmax(1).tolist() == [[0.0, -1000.0], [-2000.0, 0.0]]


def test_softmax_gradient_finite_for_large_inputs():
    """Backward through softmax/log_softmax of huge logits has no nan."""
    x = f64([[1000.0, 0.0], [-1000.0, 1000.0]], requires_grad=True)
    (x.log_softmax(1)[:, 0].sum() + x.softmax(1)[:, 1].sum()).backward()
    g = x.grad.numpy()
    assert np.isfinite(g).all()
    assert g.tolist() == [[0.0, 0.0], [1.0, -1.0]]


def test_logsumexp_stable():
    """logsumexp([1000, 1000]) == 1000 + log 2 and its gradient is [0.5, 0.5]."""
    x = f64([1000.0, 1000.0], requires_grad=True)
    y = x.logsumexp(0)
    assert y.item() == pytest.approx(1000.0 + math.log(2.0), rel=1e-15, abs=1e-12)
    y.backward()
    assert values(x.grad) == pytest.approx([0.5, 0.5], rel=1e-12)
    z = f64([[-1000.0, -1000.0], [1000.0, -1000.0]]).logsumexp(1)
    assert values(z) == pytest.approx([-1000.0 + math.log(2.0), 1000.0], rel=1e-15)


def test_cross_entropy_stable_for_large_logits():
    """cross_entropy of huge logits is finite: [1000, 0] with target 1 costs 1000."""
    x = f64([[1000.0, 0.0], [0.0, 1000.0]], requires_grad=True)
    loss = F.cross_entropy(x, torch.tensor([1, 1]))
    assert loss.item() == 500.0
    loss.backward()
    assert values(x.grad) == [[0.5, -0.5], [0.0, 0.0]]


# --------------------------------------------------------------------------------------------
# var / std
# --------------------------------------------------------------------------------------------

VAR_DATA = np.array([[1.0, 4.0, 2.5, -3.0], [0.5, 0.25, 8.0, 2.0], [7.0, -1.0, 0.0, 3.5]])


@pytest.mark.parametrize("op", ["var", "std"])
@pytest.mark.parametrize(
    "args, kwargs, axis, ddof",
    [
        ((), {}, None, 1),
        ((), {"unbiased": False}, None, 0),
        ((), {"unbiased": True}, None, 1),
        ((1,), {}, 1, 1),
        ((0,), {"unbiased": False}, 0, 0),
        ((1,), {"unbiased": True}, 1, 1),
        ((1,), {"correction": 0}, 1, 0),
        ((0,), {"correction": 1}, 0, 1),
        ((1,), {"correction": 2}, 1, 2),
        ((), {"dim": -1, "correction": 0}, -1, 0),
    ],
)
def test_var_std_match_numpy(op, args, kwargs, axis, ddof):
    """var/std with unbiased and correction match numpy with the matching ddof."""
    x = f64(VAR_DATA)
    got = getattr(x, op)(*args, **kwargs).numpy()
    expected = getattr(np, op)(VAR_DATA, axis=axis, ddof=ddof)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=0)


def test_var_keepdim_shape():
    """var(dim, keepdim=True) keeps the dimension."""
    x = f64(VAR_DATA)
    assert tuple(x.var(1, keepdim=True).shape) == (3, 1)
    assert tuple(torch.std(x, 0, keepdim=True).shape) == (1, 4)


# --------------------------------------------------------------------------------------------
# forward values against numpy
# --------------------------------------------------------------------------------------------

_RNG = np.random.default_rng(1234)
A = _RNG.uniform(-2.0, 2.0, size=(3, 4))
P = _RNG.uniform(0.5, 2.0, size=(3, 4))
B3 = _RNG.uniform(-2.0, 2.0, size=(2, 3, 4))
_erf = np.vectorize(math.erf)

FORWARD = [
    ("exp2", lambda a, p, b: a.exp2(), lambda a, p, b: 2.0**a),
    ("log2", lambda a, p, b: p.log2(), lambda a, p, b: np.log2(p)),
    ("log10", lambda a, p, b: p.log10(), lambda a, p, b: np.log10(p)),
    ("log1p", lambda a, p, b: p.log1p(), lambda a, p, b: np.log1p(p)),
    ("expm1", lambda a, p, b: a.expm1(), lambda a, p, b: np.expm1(a)),
    ("rsqrt", lambda a, p, b: p.rsqrt(), lambda a, p, b: 1.0 / np.sqrt(p)),
    ("erf", lambda a, p, b: a.erf(), lambda a, p, b: _erf(a)),
    ("gelu", lambda a, p, b: F.gelu(a), lambda a, p, b: 0.5 * a * (1 + _erf(a / math.sqrt(2)))),
    (
        "gelu_tanh",
        lambda a, p, b: F.gelu(a, approximate="tanh"),
        lambda a, p, b: 0.5 * a * (1 + np.tanh(math.sqrt(2 / math.pi) * (a + 0.044715 * a**3))),
    ),
    ("silu", lambda a, p, b: F.silu(a), lambda a, p, b: a / (1 + np.exp(-a))),
    (
        "softplus",
        lambda a, p, b: F.softplus(a, beta=2.0),
        lambda a, p, b: np.log1p(np.exp(2 * a)) / 2,
    ),
    (
        "leaky_relu",
        lambda a, p, b: F.leaky_relu(a, 0.2),
        lambda a, p, b: np.where(a > 0, a, 0.2 * a),
    ),
    (
        "elu",
        lambda a, p, b: F.elu(a, alpha=1.5),
        lambda a, p, b: np.where(a > 0, a, 1.5 * np.expm1(a)),
    ),
    ("prod_dim", lambda a, p, b: a.prod(1), lambda a, p, b: a.prod(1)),
    ("amax_tuple", lambda a, p, b: b.amax((0, 2)), lambda a, p, b: b.max((0, 2))),
    (
        "amin_keepdim",
        lambda a, p, b: a.amin(0, keepdim=True),
        lambda a, p, b: a.min(0, keepdims=True),
    ),
    ("logsumexp", lambda a, p, b: a.logsumexp(1), lambda a, p, b: np.log(np.exp(a).sum(1))),
    ("cumsum", lambda a, p, b: a.t().cumsum(1), lambda a, p, b: np.cumsum(a.T, 1)),
    (
        "softmax",
        lambda a, p, b: a.softmax(0),
        lambda a, p, b: np.exp(a) / np.exp(a).sum(0, keepdims=True),
    ),
    (
        "norm_p3",
        lambda a, p, b: a.norm(p=3, dim=1),
        lambda a, p, b: (np.abs(a) ** 3).sum(1) ** (1 / 3),
    ),
    ("norm_p1", lambda a, p, b: a.norm(p=1), lambda a, p, b: np.abs(a).sum()),
    ("matmul_3d_1d", lambda a, p, b: b @ a[0], lambda a, p, b: b @ a[0]),
    ("matmul_bcast", lambda a, p, b: b[:, None] @ p.t(), lambda a, p, b: b[:, None] @ p.T),
    ("flip", lambda a, p, b: b.flip(0, 2), lambda a, p, b: b[::-1, :, ::-1]),
    ("repeat", lambda a, p, b: a.repeat(2, 1, 3), lambda a, p, b: np.tile(a, (2, 1, 3))),
    ("stack", lambda a, p, b: torch.stack([a, p], 1), lambda a, p, b: np.stack([a, p], 1)),
    ("cat", lambda a, p, b: torch.cat([a, p], 1), lambda a, p, b: np.concatenate([a, p], 1)),
    (
        "gather",
        lambda a, p, b: a.gather(1, torch.tensor([[0, 3], [1, 1], [2, 0]])),
        lambda a, p, b: np.take_along_axis(a, np.array([[0, 3], [1, 1], [2, 0]]), 1),
    ),
    (
        "index_select",
        lambda a, p, b: a.index_select(1, torch.tensor([3, 0, 3])),
        lambda a, p, b: a[:, [3, 0, 3]],
    ),
    (
        "adv_two_lists",
        lambda a, p, b: a[[0, 2, 2], [1, 3, 1]],
        lambda a, p, b: a[[0, 2, 2], [1, 3, 1]],
    ),
    ("where", lambda a, p, b: torch.where(a > 0, a, p), lambda a, p, b: np.where(a > 0, a, p)),
    (
        "masked_fill",
        lambda a, p, b: a.masked_fill(a > 0, 7.0),
        lambda a, p, b: np.where(a > 0, 7.0, a),
    ),
    ("maximum", lambda a, p, b: a.maximum(p[0]), lambda a, p, b: np.maximum(a, p[0])),
    ("clamp", lambda a, p, b: a.clamp(-0.5, 0.5), lambda a, p, b: np.clip(a, -0.5, 0.5)),
]


@pytest.mark.parametrize("op, ref", [f[1:] for f in FORWARD], ids=[f[0] for f in FORWARD])
def test_forward_matches_numpy(op, ref):
    """Forward values of the newer ops match a NumPy reference (float64)."""
    got = op(f64(A), f64(P), f64(B3)).numpy()
    expected = np.asarray(ref(A, P, B3))
    assert got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-14)


def test_scatter_add_values():
    """scatter_add sums src into self at the indexed positions (repeats accumulate)."""
    out = torch.zeros(3, 4, dtype=torch.float64).scatter_add(
        1, torch.tensor([[0, 0], [1, 3], [2, 2]]), f64([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    )
    assert values(out) == [[3.0, 0.0, 0.0, 0.0], [0.0, 3.0, 0.0, 4.0], [0.0, 0.0, 11.0, 0.0]]


# --------------------------------------------------------------------------------------------
# hooks
# --------------------------------------------------------------------------------------------


def test_leaf_hook_sees_and_modifies_gradient():
    """A leaf hook receives the incoming gradient; its return value is what accumulates."""
    x = f64([1.0, 2.0], requires_grad=True)
    seen = []

    def hook(g):
        seen.append(values(g))
        return g * 2

    x.register_hook(hook)
    (x * 3).sum().backward()
    assert seen == [[3.0, 3.0]]
    assert values(x.grad) == [6.0, 6.0]


def test_nonleaf_hook_changes_what_flows_upstream():
    """A hook on a non-leaf replaces the gradient sent further back."""
    x = f64([1.0, 2.0], requires_grad=True)
    y = x * 3
    y.register_hook(lambda g: g * 10)
    (y * f64([1.0, 2.0])).sum().backward()
    assert values(x.grad) == [30.0, 60.0]


def test_hook_returning_none_keeps_gradient():
    """A hook returning None observes without changing the gradient."""
    x = f64([1.0, 2.0], requires_grad=True)
    seen = []
    y = x.exp()
    y.register_hook(lambda g: seen.append(values(g)))
    (y * 2).sum().backward()
    assert seen == [[2.0, 2.0]]
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.exp([1.0, 2.0]), rtol=1e-15)


def test_hooks_run_in_registration_order():
    """Several hooks on one tensor are chained in the order they were registered."""
    x = f64([1.0], requires_grad=True)
    y = x * 1
    y.register_hook(lambda g: g + 1)
    y.register_hook(lambda g: g * 2)
    y.sum().backward()
    assert values(x.grad) == [4.0]


def test_handle_remove_stops_hook():
    """handle.remove() unregisters the hook, on leaves and non-leaves."""
    x = f64([1.0, 2.0], requires_grad=True)
    calls = []
    h_leaf = x.register_hook(lambda g: calls.append("leaf") or g * 100)
    y = x * 2
    h_mid = y.register_hook(lambda g: calls.append("mid") or g * 100)
    h_leaf.remove()
    h_mid.remove()
    y.sum().backward()
    assert calls == []
    assert values(x.grad) == [2.0, 2.0]


def test_handle_remove_between_backward_passes():
    """A hook is applied while registered and not after removal."""
    x = f64([1.0], requires_grad=True)
    handle = x.register_hook(lambda g: g * 5)
    (x * 1).sum().backward()
    assert values(x.grad) == [5.0]
    handle.remove()
    (x * 1).sum().backward()
    assert values(x.grad) == [6.0]


@pytest.mark.parametrize("retain_first", [True, False], ids=["retain_then_hook", "hook_first"])
def test_retained_grad_reflects_hooks(retain_first):
    """The retained .grad of a non-leaf is the gradient after its hooks (either order)."""
    x = f64([1.0, 2.0], requires_grad=True)
    y = x * 2
    if retain_first:
        y.retain_grad()
        y.register_hook(lambda g: g * 3)
    else:
        y.register_hook(lambda g: g * 3)
        y.retain_grad()
    y.sum().backward()
    assert values(y.grad) == [3.0, 3.0]
    assert values(x.grad) == [6.0, 6.0]


@pytest.mark.parametrize("leaf", [True, False], ids=["leaf", "nonleaf"])
def test_hook_fires_once_with_total_gradient(leaf):
    """A tensor used several times gets its hook called once, with the summed gradient."""
    x = f64([1.0, 2.0], requires_grad=True)
    t = x if leaf else x * 1
    calls = []
    t.register_hook(lambda g: calls.append(values(g)))
    (t * t + t).sum().backward()
    assert calls == [[3.0, 5.0]]
    assert values(x.grad) == [3.0, 5.0]


def test_register_hook_on_tensor_without_grad_raises():
    """register_hook on a tensor that does not require grad is a RuntimeError."""
    x = f64([1.0, 2.0])
    with pytest.raises(RuntimeError):
        x.register_hook(lambda g: g)


def test_hook_exception_propagates():
    """An exception raised in a hook reaches the caller of backward with its type."""
    x = f64([1.0], requires_grad=True)

    def bad(g):
        raise KeyError("hook failed")

    y = x * 2
    y.register_hook(bad)
    with pytest.raises(KeyError, match="hook failed"):
        y.sum().backward()


# --------------------------------------------------------------------------------------------
# custom autograd.Function
# --------------------------------------------------------------------------------------------


class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 3 * x**2 * g


NEEDS_INPUT_GRAD_LOG = []


class ScaleBy(torch.autograd.Function):
    """forward(x, y, k) = x * y * k with a Python number k; records needs_input_grad."""

    @staticmethod
    def forward(ctx, x, y, k):
        NEEDS_INPUT_GRAD_LOG.append(ctx.needs_input_grad)
        ctx.save_for_backward(x, y)
        ctx.k = k
        return x * y * k

    @staticmethod
    def backward(ctx, g):
        x, y = ctx.saved_tensors
        return g * y * ctx.k, g * x * ctx.k, None


class SortLike(torch.autograd.Function):
    """Returns (2 * x, a float marker) with the marker non-differentiable."""

    @staticmethod
    def forward(ctx, x):
        marker = (x > 0).double()
        ctx.mark_non_differentiable(marker)
        return x * 2, marker

    @staticmethod
    def backward(ctx, g, g_marker):
        return g * 2


class Boom(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 1

    @staticmethod
    def backward(ctx, g):
        raise ValueError("boom from backward 42")


class WrongCube(torch.autograd.Function):
    """x**3 with a wrong backward (2 x^2 g)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 2 * x**2 * g


class DetachedCube(torch.autograd.Function):
    """x**3 whose backward is right at first order but not differentiable (uses detach)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 3 * x.detach() ** 2 * g


def test_function_values_and_gradient():
    """Cube.apply gives x**3 and gradient 3 x**2."""
    x = f64([1.5, -2.0], requires_grad=True)
    y = Cube.apply(x)
    assert values(y) == [3.375, -8.0]
    assert y.requires_grad
    y.sum().backward()
    assert values(x.grad) == [6.75, 12.0]


def test_function_grad_fn_name():
    """The node of a custom Function is named f"{ClassName}Backward"."""
    x = f64([1.0], requires_grad=True)
    assert Cube.apply(x).grad_fn.name() == "CubeBackward"
    assert ScaleBy.apply(x, x, 2.0).grad_fn.name() == "ScaleByBackward"


def test_function_without_grad_inputs_has_no_graph():
    """When no input requires grad the output has no grad_fn."""
    y = Cube.apply(f64([2.0]))
    assert values(y) == [8.0]
    assert not y.requires_grad
    assert y.grad_fn is None


def test_function_needs_input_grad_and_non_tensor_args():
    """needs_input_grad mirrors the inputs; a Python-number argument gets a None gradient."""
    NEEDS_INPUT_GRAD_LOG.clear()
    x = f64([1.0, 2.0], requires_grad=True)
    y = f64([3.0, 4.0])
    out = ScaleBy.apply(x, y, 2.0)
    assert NEEDS_INPUT_GRAD_LOG == [(True, False, False)]
    assert values(out) == [6.0, 16.0]
    out.sum().backward()
    assert values(x.grad) == [6.0, 8.0]
    assert y.grad is None


def test_function_needs_input_grad_second_input():
    """needs_input_grad is (False, True, False) when only the second tensor requires grad."""
    NEEDS_INPUT_GRAD_LOG.clear()
    x = f64([1.0, 2.0])
    y = f64([3.0, 4.0], requires_grad=True)
    ScaleBy.apply(x, y, 0.5).sum().backward()
    assert NEEDS_INPUT_GRAD_LOG == [(False, True, False)]
    assert values(y.grad) == [0.5, 1.0]


def test_function_saved_tensor_version_checked():
    """Modifying a saved tensor in place before backward raises the in-place error."""
    x = f64([1.0, 2.0], requires_grad=True)
    h = x * 1
    y = Cube.apply(h)
    h.add_(1.0)
    with pytest.raises(RuntimeError, match=INPLACE_ERR):
        y.sum().backward()


def test_function_mark_non_differentiable():
    """An output marked non-differentiable does not require grad; the other one does."""
    x = f64([-1.0, 2.0], requires_grad=True)
    out, marker = SortLike.apply(x)
    assert out.requires_grad
    assert not marker.requires_grad
    assert marker.grad_fn is None
    assert values(marker) == [0.0, 1.0]
    out.sum().backward()
    assert values(x.grad) == [2.0, 2.0]


def test_function_backward_exception_reaches_caller():
    """An exception raised in Python backward surfaces with the same type and message."""
    x = f64([1.0], requires_grad=True)
    y = Boom.apply(x)
    with pytest.raises(ValueError, match="boom from backward 42"):
        y.sum().backward()
    z = Boom.apply(x)
    with pytest.raises(ValueError, match="boom from backward 42"):
        torch.autograd.grad(z.sum(), x)


class SavedExp(torch.autograd.Function):
    """exp that saves its output for backward."""

    @staticmethod
    def forward(ctx, x):
        y = x.exp()
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return g * y


def test_function_saving_its_output():
    """A saved output works for first and second order and is version-checked."""
    x = f64([0.0, 1.0], requires_grad=True)
    (g,) = torch.autograd.grad(SavedExp.apply(x).sum(), x, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), np.exp([0.0, 1.0]), rtol=1e-15)
    g.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.exp([0.0, 1.0]), rtol=1e-15)
    y = SavedExp.apply(x)
    y.add_(1.0)
    with pytest.raises(RuntimeError, match=INPLACE_ERR):
        y.sum().backward()


def test_function_double_backward():
    """create_graph=True through Cube gives the second derivative 6 x."""
    x = f64([1.5, -2.0], requires_grad=True)
    (g,) = torch.autograd.grad(Cube.apply(x).sum(), x, create_graph=True)
    assert values(g) == [6.75, 12.0]
    assert g.requires_grad
    g.sum().backward()
    assert values(x.grad) == [9.0, -12.0]


# --------------------------------------------------------------------------------------------
# gradcheck itself
# --------------------------------------------------------------------------------------------


def test_gradcheck_true_on_correct_function():
    """gradcheck and gradgradcheck return True for a correct function."""
    x = f64([[0.3, -0.7], [1.1, 0.2]], requires_grad=True)
    y = f64([0.5, -1.2], requires_grad=True)

    def fn(a, b):
        return (a * b).sin() + Cube.apply(a)

    assert torch.autograd.gradcheck(fn, (x, y)) is True
    assert torch.autograd.gradgradcheck(fn, (x, y)) is True


def test_gradcheck_raises_on_wrong_backward():
    """A wrong custom backward raises GradcheckError, a RuntimeError subclass."""
    assert issubclass(torch.autograd.GradcheckError, RuntimeError)
    x = f64([0.5, -1.5, 2.0], requires_grad=True)
    with pytest.raises(torch.autograd.GradcheckError):
        torch.autograd.gradcheck(WrongCube.apply, (x,))
    with pytest.raises(RuntimeError):
        torch.autograd.gradcheck(WrongCube.apply, (x,))


def test_gradcheck_returns_false_without_raise():
    """raise_exception=False turns the failure into a False return value."""
    x = f64([0.5, -1.5, 2.0], requires_grad=True)
    assert torch.autograd.gradcheck(WrongCube.apply, (x,), raise_exception=False) is False


def test_gradgradcheck_catches_non_differentiable_backward():
    """A backward that is right at first order but detached fails gradgradcheck."""
    x = f64([0.5, -1.5, 2.0], requires_grad=True)
    assert torch.autograd.gradcheck(DetachedCube.apply, (x,)) is True
    with pytest.raises(torch.autograd.GradcheckError):
        torch.autograd.gradgradcheck(DetachedCube.apply, (x,))
    assert torch.autograd.gradgradcheck(DetachedCube.apply, (x,), raise_exception=False) is False


@pytest.mark.parametrize("raise_exception", [True, False])
def test_gradcheck_refuses_float32(raise_exception):
    """float32 inputs are refused: an exception, or False together with a warning."""
    x = torch.tensor([0.5, 1.5], requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = torch.autograd.gradcheck(
                lambda a: a.exp(), (x,), raise_exception=raise_exception
            )
        except RuntimeError:
            return
    assert result is False
    assert any(issubclass(w.category, UserWarning) for w in caught)
