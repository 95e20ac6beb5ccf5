"""``autograd.gradcheck`` and ``autograd.gradgradcheck`` over the op surface, table-driven.

Each case is ``(id, fn, specs)``: ``fn`` takes float64 tensors built from ``specs`` (shape plus
value range) and may return one tensor or a tuple. Inputs stay away from kinks and ties, views
and non-contiguous operands are created inside ``fn`` so that they are part of the graph.
"""

import ferrograd as torch
import numpy as np
import pytest

F = torch.nn.functional


# --------------------------------------------------------------------------------------------
# inputs
# --------------------------------------------------------------------------------------------


def anyv(*shape):
    """Values in [-1.5, 1.5]."""
    return ("any", shape)


def pos(*shape):
    """Values in [0.5, 2] (log, sqrt, fractional powers, divisors)."""
    return ("pos", shape)


def nonzero(*shape):
    """|x| in [0.3, 1.5], random sign (abs, relu, sign, leaky_relu, elu)."""
    return ("nonzero", shape)


def with_zero(*shape):
    """Like ``nonzero`` but the element at flat index 1 is exactly 0 (prod at a zero)."""
    return ("with_zero", shape)


def frac(*shape):
    """Integers plus a fraction in [0.15, 0.4] (floor, ceil, round: away from jumps)."""
    return ("frac", shape)


def distinct(*shape):
    """A shuffled grid with spacing 0.25 (max/min/amax/amin/maximum/clamp: no ties)."""
    return ("distinct", shape)


def make_inputs(specs, seed):
    rng = np.random.default_rng(seed)
    tensors = []
    for kind, shape in specs:
        n = int(np.prod(shape, dtype=np.int64))
        if kind == "any":
            a = rng.uniform(-1.5, 1.5, size=shape)
        elif kind == "pos":
            a = rng.uniform(0.5, 2.0, size=shape)
        elif kind == "nonzero":
            a = rng.uniform(0.3, 1.5, size=shape) * rng.choice([-1.0, 1.0], size=shape)
        elif kind == "with_zero":
            a = rng.uniform(0.3, 1.5, size=shape) * rng.choice([-1.0, 1.0], size=shape)
            a.reshape(-1)[1] = 0.0
        elif kind == "frac":
            a = rng.integers(-3, 3, size=shape) + rng.uniform(0.15, 0.4, size=shape)
        else:
            a = rng.permutation(np.arange(n) * 0.25 - 0.25 * n / 2 + 0.1).reshape(shape)
        tensors.append(torch.tensor(np.asarray(a, dtype=np.float64), requires_grad=True))
    return tensors


# --------------------------------------------------------------------------------------------
# helper functions used by the table
# --------------------------------------------------------------------------------------------

MASK34 = torch.tensor(
    [[True, False, True, False], [False, False, True, True], [True, True, False, False]]
)
IDX2D = torch.tensor([[0, 2], [1, 0]])
GATHER_IDX = torch.tensor([[0, 3, 3], [2, 2, 1], [1, 0, 0]])
GATHER0_IDX = torch.tensor([[0, 2, 1, 2], [2, 0, 0, 1]])
SCATTER_IDX = torch.tensor([[0, 1, 0], [3, 3, 2], [1, 1, 1]])
TARGET = torch.tensor([1, 0, 3])


def _setitem_list(x, v):
    y = x * 1
    y[[0, 0, 2]] = v
    return y


def _setitem_slice_col(x, v):
    y = x * 1
    y[1:, 0] = v
    return y


def _setitem_mask(x, v):
    y = x * 1
    y[MASK34] = v
    return y


def _setitem_scalar(x):
    y = x * 1
    y[:, 1] = 0.5
    return y


def _inplace_select_mul(x, v):
    y = x * 1
    y[0].mul_(v)
    return y


def _inplace_slice_add(x, v):
    y = x * 1
    y[:, 1:3].add_(v)
    return y


def _inplace_transposed_view(x, v):
    y = x * 1
    y.t()[1].mul_(v)
    return y


def _inplace_chain(x):
    y = x.sin()
    y.mul_(2.0)
    y.exp_()
    return y


def _setitem_list_unique(x, v):
    y = x * 1
    y[[2, 0]] = v
    return y


class Cube(torch.autograd.Function):
    """x**3 with a hand-written backward that is itself differentiable."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 3 * x**2 * g


# --------------------------------------------------------------------------------------------
# the table
# --------------------------------------------------------------------------------------------

TARGET_IGNORE = torch.tensor([1, -100, 3])
TARGET_3D = torch.tensor([[0, 3, 1], [2, 2, 0]])
WEIGHT = torch.tensor([0.5, 1.0, 2.0, 1.5], dtype=torch.float64)
SIGNS = torch.tensor([1, -1, 1])

CASES = [
    # ---- arithmetic, with broadcasting and non-contiguous operands
    ("add_bcast", lambda a, b: a + b, [anyv(3, 4), anyv(4)]),
    ("add_bcast_both", lambda a, b: a + b, [anyv(3, 1), anyv(1, 4)]),
    ("add_transposed", lambda a, b: a.t() + b, [anyv(4, 3), anyv(3, 4)]),
    ("add_strided", lambda a, b: a[:, ::2] + b, [anyv(3, 4), anyv(3, 2)]),
    ("add_alpha", lambda a, b: a.add(b, alpha=2.5), [anyv(2, 3), anyv(3)]),
    ("sub_bcast", lambda a, b: a - b, [anyv(2, 3, 1), anyv(3, 4)]),
    ("rsub_scalar", lambda a: 2.0 - a, [anyv(3, 2)]),
    ("mul_bcast", lambda a, b: a * b, [anyv(3, 1), anyv(1, 4)]),
    ("mul_transposed", lambda a, b: a.t() * b.t(), [anyv(3, 4), anyv(3, 4)]),
    ("mul_scalar", lambda a: a * 2.5 + 1, [anyv(2, 3)]),
    ("div_bcast", lambda a, b: a / b, [anyv(3, 4), pos(4)]),
    ("div_strided", lambda a, b: a[::2] / b[:, 1:], [anyv(4, 3), pos(2, 4)]),
    ("rdiv_scalar", lambda a: 3.0 / a, [pos(3, 2)]),
    ("pow_tensor", lambda a, b: a**b, [pos(3, 4), anyv(3, 4)]),
    ("pow_tensor_bcast", lambda a, b: a**b, [pos(3, 1), anyv(4)]),
    ("pow_int", lambda a: a**3, [anyv(3, 2)]),
    ("pow_frac", lambda a: a**2.5, [pos(3, 2)]),
    ("pow_neg", lambda a: a**-1.5, [pos(3, 2)]),
    ("pow_method", lambda a: a.pow(2), [anyv(3, 2)]),
    ("rpow", lambda a: 2.0**a, [anyv(3, 2)]),
    # ---- elementwise
    ("neg", lambda a: -a, [anyv(3, 2)]),
    ("neg_method", lambda a: a.t().neg(), [anyv(3, 2)]),
    ("exp", lambda a: a.exp(), [anyv(3, 2)]),
    ("log", lambda a: a.log(), [pos(3, 2)]),
    ("sin", lambda a: a.sin(), [anyv(3, 2)]),
    ("cos", lambda a: a.t().cos(), [anyv(3, 2)]),
    ("tanh", lambda a: a.tanh(), [anyv(3, 2)]),
    ("sigmoid", lambda a: a.sigmoid(), [anyv(3, 2)]),
    ("relu", lambda a: a.relu(), [nonzero(3, 4)]),
    ("abs", lambda a: a.abs(), [nonzero(3, 4)]),
    ("sqrt", lambda a: a.sqrt(), [pos(3, 2)]),
    ("reciprocal", lambda a: a.reciprocal(), [nonzero(3, 2)]),
    ("sign_times_x", lambda a: a.sign() * a, [nonzero(3, 4)]),
    ("floor_plus_x", lambda a: a.floor() + a, [frac(3, 4)]),
    ("ceil_plus_x", lambda a: a.ceil() + a, [frac(3, 4)]),
    ("round_plus_x", lambda a: a.round() + a, [frac(3, 4)]),
    ("exp2", lambda a: a.exp2(), [anyv(3, 2)]),
    ("log2", lambda a: a.log2(), [pos(3, 2)]),
    ("log10", lambda a: a.log10(), [pos(3, 2)]),
    ("log1p", lambda a: a.log1p(), [pos(3, 2)]),
    ("expm1", lambda a: a.expm1(), [anyv(3, 2)]),
    ("rsqrt", lambda a: a.rsqrt(), [pos(3, 2)]),
    ("square", lambda a: a.square(), [anyv(3, 2)]),
    ("erf", lambda a: a.erf(), [anyv(3, 2)]),
    ("clamp_min_max", lambda a: a.clamp(-0.6, 0.7), [distinct(3, 4)]),
    ("clamp_min", lambda a: a.clamp(min=0.05), [distinct(3, 4)]),
    ("clamp_max", lambda a: a.clamp(max=-0.2), [distinct(3, 4)]),
    ("clip", lambda a: a.clip(-0.6, 0.7), [distinct(3, 4)]),
    ("maximum", lambda a, b: a.maximum(b), [anyv(3, 4), anyv(3, 4)]),
    ("maximum_bcast", lambda a, b: torch.maximum(a, b), [anyv(3, 4), anyv(4)]),
    ("minimum", lambda a, b: a.minimum(b), [anyv(3, 4), anyv(3, 4)]),
    ("minimum_bcast", lambda a, b: torch.minimum(a.t(), b), [anyv(4, 3), anyv(3, 1)]),
    ("where", lambda a, b: torch.where(MASK34, a, b), [anyv(3, 4), anyv(3, 4)]),
    ("where_bcast", lambda a, b: torch.where(MASK34, a, b), [anyv(3, 1), anyv(4)]),
    ("where_cond_from_values", lambda a: torch.where(a > 0.1, a.exp(), a * 3), [nonzero(3, 4)]),
    ("masked_fill", lambda a: a.masked_fill(MASK34, 0.5), [anyv(3, 4)]),
    ("masked_fill_bcast", lambda a: a.masked_fill(MASK34[0], -1.0), [anyv(3, 4)]),
    # ---- activations
    ("gelu", lambda a: F.gelu(a), [anyv(3, 4)]),
    ("gelu_tanh", lambda a: F.gelu(a, approximate="tanh"), [anyv(3, 4)]),
    ("silu", lambda a: F.silu(a), [anyv(3, 4)]),
    ("softplus", lambda a: F.softplus(a), [anyv(3, 4)]),
    ("softplus_beta", lambda a: F.softplus(a, beta=2.0), [anyv(3, 4)]),
    ("leaky_relu", lambda a: F.leaky_relu(a, 0.2), [nonzero(3, 4)]),
    ("leaky_relu_default", lambda a: F.leaky_relu(a), [nonzero(3, 4)]),
    ("elu", lambda a: F.elu(a), [nonzero(3, 4)]),
    ("elu_alpha", lambda a: F.elu(a, alpha=1.5), [nonzero(3, 4)]),
    # ---- reductions
    ("sum_all", lambda a: a.sum(), [anyv(3, 4)]),
    ("sum_dim", lambda a: a.sum(1), [anyv(3, 4)]),
    ("sum_tuple_keepdim", lambda a: a.sum((0, 2), keepdim=True), [anyv(2, 3, 4)]),
    ("sum_neg_dim_transposed", lambda a: a.t().sum(-1), [anyv(3, 4)]),
    ("mean_all", lambda a: a.mean(), [anyv(3, 4)]),
    ("mean_dim_keepdim", lambda a: a.mean(-1, keepdim=True), [anyv(3, 4)]),
    ("mean_tuple", lambda a: a.mean((0, 1)), [anyv(2, 3, 4)]),
    ("prod_all", lambda a: a.prod(), [nonzero(2, 3)]),
    ("prod_dim", lambda a: a.prod(1), [nonzero(3, 4)]),
    ("prod_dim_keepdim", lambda a: a.prod(0, keepdim=True), [nonzero(3, 4)]),
    ("prod_with_zero", lambda a: a.prod(), [with_zero(2, 3)]),
    ("prod_dim_with_zero", lambda a: a.prod(1), [with_zero(2, 3)]),
    ("max_all", lambda a: a.max(), [distinct(3, 4)]),
    ("min_all", lambda a: a.min(), [distinct(3, 4)]),
    ("max_fn_all", lambda a: torch.max(a.t()), [distinct(3, 4)]),
    ("max_dim_values", lambda a: a.max(1).values, [distinct(3, 4)]),
    ("max_dim_keepdim", lambda a: a.max(0, keepdim=True)[0], [distinct(3, 4)]),
    ("min_dim_values", lambda a: a.min(-1).values, [distinct(3, 4)]),
    ("amax_int", lambda a: a.amax(1), [distinct(3, 4)]),
    ("amax_tuple", lambda a: a.amax((0, 2)), [distinct(2, 3, 4)]),
    ("amin_int", lambda a: a.amin(0), [distinct(3, 4)]),
    ("amin_tuple_keepdim", lambda a: a.amin((0, 1), keepdim=True), [distinct(2, 3, 4)]),
    ("var_all", lambda a: a.var(), [anyv(3, 4)]),
    ("var_dim", lambda a: a.var(1), [anyv(3, 4)]),
    ("var_unbiased_false", lambda a: a.var(1, unbiased=False), [anyv(3, 4)]),
    ("var_correction0", lambda a: a.var(0, correction=0), [anyv(3, 4)]),
    ("var_correction1_keepdim", lambda a: a.var(1, keepdim=True, correction=1), [anyv(3, 4)]),
    ("std_all", lambda a: a.std(), [anyv(3, 4)]),
    ("std_dim", lambda a: a.std(0), [anyv(3, 4)]),
    ("std_unbiased_false", lambda a: a.std(1, unbiased=False), [anyv(3, 4)]),
    ("std_correction0", lambda a: a.std(1, correction=0), [anyv(3, 4)]),
    ("logsumexp", lambda a: a.logsumexp(1), [anyv(3, 4)]),
    ("logsumexp_keepdim", lambda a: torch.logsumexp(a.t(), 0, keepdim=True), [anyv(3, 4)]),
    ("cumsum0", lambda a: a.cumsum(0), [anyv(3, 4)]),
    ("cumsum1_transposed", lambda a: a.t().cumsum(1), [anyv(3, 4)]),
    ("softmax1", lambda a: a.softmax(1), [anyv(3, 4)]),
    ("softmax0_transposed", lambda a: torch.softmax(a.t(), 0), [anyv(3, 4)]),
    ("log_softmax", lambda a: a.log_softmax(-1), [anyv(3, 4)]),
    ("log_softmax_3d", lambda a: F.log_softmax(a, 1), [anyv(2, 3, 2)]),
    ("norm_default", lambda a: a.norm(), [anyv(3, 4)]),
    ("norm_p2_dim", lambda a: a.norm(p=2, dim=1), [anyv(3, 4)]),
    ("norm_p1", lambda a: a.norm(p=1), [nonzero(3, 4)]),
    ("norm_p3_dim", lambda a: a.norm(p=3, dim=1), [nonzero(3, 4)]),
    ("norm_p3_dim_keepdim", lambda a: a.norm(p=3, dim=0, keepdim=True), [nonzero(3, 4)]),
    # ---- linear algebra
    ("matmul_1d_1d", lambda a, b: a @ b, [anyv(3), anyv(3)]),
    ("matmul_2d_1d", lambda a, b: a @ b, [anyv(2, 3), anyv(3)]),
    ("matmul_1d_2d", lambda a, b: a @ b, [anyv(3), anyv(3, 2)]),
    ("matmul_2d_2d", lambda a, b: a @ b, [anyv(2, 3), anyv(3, 4)]),
    ("matmul_transposed", lambda a, b: a.t() @ b.t(), [anyv(3, 2), anyv(4, 3)]),
    ("matmul_3d_2d", lambda a, b: a @ b, [anyv(2, 3, 4), anyv(4, 5)]),
    ("matmul_bcast_batch", lambda a, b: a @ b, [anyv(2, 1, 3, 4), anyv(5, 4, 2)]),
    ("matmul_1d_3d", lambda a, b: a @ b, [anyv(3), anyv(2, 3, 4)]),
    ("matmul_3d_1d", lambda a, b: torch.matmul(a, b), [anyv(2, 3, 4), anyv(4)]),
    ("matmul_2d_3d", lambda a, b: a.matmul(b), [anyv(2, 3), anyv(4, 3, 2)]),
    ("mm", lambda a, b: a.mm(b), [anyv(2, 3), anyv(3, 4)]),
    ("mm_transposed", lambda a, b: torch.mm(a, b.t()), [anyv(2, 3), anyv(4, 3)]),
    ("mv", lambda a, b: a.mv(b), [anyv(2, 3), anyv(3)]),
    ("dot", lambda a, b: a.dot(b), [anyv(4), anyv(4)]),
    ("dot_strided", lambda a, b: a[::2].dot(b), [anyv(6), anyv(3)]),
    ("bmm", lambda a, b: a.bmm(b), [anyv(2, 3, 4), anyv(2, 4, 2)]),
    ("bmm_transposed", lambda a, b: a.bmm(b.transpose(1, 2)), [anyv(2, 3, 4), anyv(2, 2, 4)]),
    ("outer", lambda a, b: a.outer(b), [anyv(3), anyv(4)]),
    # ---- shape ops and views
    ("t", lambda a: a.t() * 1, [anyv(3, 4)]),
    ("T", lambda a: a.T * 1, [anyv(3, 4)]),
    ("transpose", lambda a: a.transpose(0, 2), [anyv(2, 3, 4)]),
    ("permute", lambda a: a.permute(2, 0, 1), [anyv(2, 3, 4)]),
    ("view", lambda a: a.view(4, 3), [anyv(3, 4)]),
    ("view_infer", lambda a: a.view(-1, 2), [anyv(3, 4)]),
    ("reshape", lambda a: a.reshape(2, 6), [anyv(3, 4)]),
    ("reshape_noncontig", lambda a: a.t().reshape(-1), [anyv(3, 4)]),
    ("flatten_all", lambda a: a.flatten(), [anyv(2, 3, 4)]),
    ("flatten_range", lambda a: a.flatten(1, 2), [anyv(2, 3, 4)]),
    ("flatten_start", lambda a: a.flatten(0, 1), [anyv(2, 3, 4)]),
    ("unsqueeze", lambda a: a.unsqueeze(1), [anyv(3, 4)]),
    ("unsqueeze_neg", lambda a: a.unsqueeze(-1), [anyv(3, 4)]),
    ("squeeze_all", lambda a: a.squeeze(), [anyv(3, 1, 4, 1)]),
    ("squeeze_dim", lambda a: a.squeeze(1), [anyv(3, 1, 4, 1)]),
    ("expand", lambda a: a.expand(3, 4), [anyv(3, 1)]),
    ("expand_new_dims", lambda a: a.expand(2, 3, 4), [anyv(4)]),
    ("expand_as", lambda a, b: a.expand_as(b) * b, [anyv(1, 4), anyv(3, 4)]),
    ("narrow", lambda a: a.narrow(1, 1, 2), [anyv(3, 4)]),
    ("select", lambda a: a.select(0, 1), [anyv(3, 4)]),
    ("select_neg", lambda a: a.select(-1, -2), [anyv(3, 4)]),
    # ---- basic indexing
    ("index_int", lambda a: a[1], [anyv(3, 4)]),
    ("index_neg_int", lambda a: a[-1, -2], [anyv(3, 4)]),
    ("index_slices_steps", lambda a: a[1:, ::2], [anyv(3, 4)]),
    ("index_neg_slice", lambda a: a[:-1, -3:], [anyv(3, 4)]),
    ("index_step3", lambda a: a[::3, 1::2], [anyv(5, 4)]),
    ("index_none", lambda a: a[None, 1:3], [anyv(3, 4)]),
    ("index_ellipsis", lambda a: a[..., 1], [anyv(2, 3, 4)]),
    ("index_mixed", lambda a: a[0, ..., None, ::2], [anyv(2, 3, 4)]),
    ("index_of_transposed", lambda a: a.t()[1:, 0], [anyv(3, 4)]),
    # ---- advanced indexing
    ("adv_list_rows", lambda a: a[[0, 2, 0]], [anyv(3, 4)]),
    ("adv_list_cols", lambda a: a[:, [1, 1, 3]], [anyv(3, 4)]),
    ("adv_neg_list", lambda a: a[[-1, 0, -1]], [anyv(3, 4)]),
    ("adv_mask", lambda a: a[MASK34], [anyv(3, 4)]),
    ("adv_row_mask", lambda a: a[torch.tensor([True, False, True])], [anyv(3, 4)]),
    ("adv_tensor_2d", lambda a: a[IDX2D], [anyv(3, 4)]),
    ("adv_two_lists", lambda a: a[[0, 2, 2], [1, 3, 1]], [anyv(3, 4)]),
    ("gather", lambda a: a.gather(1, GATHER_IDX), [anyv(3, 4)]),
    ("gather_fn", lambda a: torch.gather(a, 0, GATHER0_IDX), [anyv(3, 4)]),
    ("scatter_add", lambda a, s: a.scatter_add(1, SCATTER_IDX, s), [anyv(3, 4), anyv(3, 3)]),
    (
        "scatter_add_dim0",
        lambda a, s: torch.scatter_add(a, 0, torch.tensor([[2, 0, 2, 1]]), s),
        [anyv(3, 4), anyv(1, 4)],
    ),
    ("index_select", lambda a: a.index_select(0, torch.tensor([2, 0, 2])), [anyv(3, 4)]),
    (
        "index_select_dim1",
        lambda a: torch.index_select(a, 1, torch.tensor([3, 3, 0])),
        [anyv(3, 4)],
    ),
    # ---- joining and splitting
    ("cat", lambda a, b: torch.cat([a, b], dim=1), [anyv(3, 2), anyv(3, 4)]),
    ("cat_dim0", lambda a, b: torch.cat((a.t(), b)), [anyv(3, 2), anyv(1, 3)]),
    ("stack", lambda a, b: torch.stack([a, b], dim=0), [anyv(3, 4), anyv(3, 4)]),
    ("stack_last", lambda a, b: torch.stack([a, b.t()], dim=-1), [anyv(3, 4), anyv(4, 3)]),
    ("split_size", lambda a: a.split(3, dim=1), [anyv(2, 5)]),
    ("split_sections", lambda a: torch.split(a, [1, 3], dim=1), [anyv(3, 4)]),
    ("chunk", lambda a: a.chunk(2, 0), [anyv(4, 3)]),
    ("unbind", lambda a: a.unbind(1), [anyv(3, 4)]),
    ("flip", lambda a: a.flip(0), [anyv(3, 4)]),
    ("flip_two", lambda a: torch.flip(a, (0, 1)), [anyv(3, 4)]),
    ("repeat", lambda a: a.repeat(2, 1, 3), [anyv(3, 2)]),
    ("repeat_same_rank", lambda a: a.repeat(2, 2), [anyv(2, 3)]),
    # ---- assignment and in-place on non-leaf views
    ("setitem_list_unique", _setitem_list_unique, [anyv(3, 4), anyv(2, 4)]),
    ("setitem_list_repeated", _setitem_list, [anyv(3, 4), anyv(3, 4)]),
    ("setitem_list_bcast_value", _setitem_list, [anyv(3, 4), anyv(4)]),
    ("setitem_slice_col", _setitem_slice_col, [anyv(3, 4), anyv(2)]),
    ("setitem_mask", _setitem_mask, [anyv(3, 4), anyv(6)]),
    ("setitem_scalar", _setitem_scalar, [anyv(3, 4)]),
    ("inplace_select_mul", _inplace_select_mul, [anyv(3, 4), anyv(4)]),
    ("inplace_slice_add", _inplace_slice_add, [anyv(3, 4), anyv(3, 2)]),
    ("inplace_transposed_view", _inplace_transposed_view, [anyv(3, 4), anyv(3)]),
    ("inplace_chain", _inplace_chain, [anyv(3, 4)]),
    # ---- losses and a custom Function
    ("cross_entropy", lambda a: F.cross_entropy(a, TARGET), [anyv(3, 4)]),
    ("cross_entropy_sum", lambda a: F.cross_entropy(a, TARGET, reduction="sum"), [anyv(3, 4)]),
    ("nll_loss", lambda a: F.nll_loss(a.log_softmax(1), TARGET), [anyv(3, 4)]),
    ("mse_loss", lambda a, b: F.mse_loss(a, b), [anyv(3, 4), anyv(3, 4)]),
    ("mse_loss_none", lambda a, b: F.mse_loss(a, b, reduction="none"), [anyv(3, 4), anyv(4)]),
    ("mse_loss_target", lambda a, b: F.mse_loss(a, b, reduction="sum"), [anyv(3, 4), anyv(3, 4)]),
    ("huber_loss", lambda a, b: F.huber_loss(a, b, delta=0.6), [anyv(3, 4), anyv(3, 4)]),
    ("smooth_l1_loss", lambda a, b: F.smooth_l1_loss(a, b, beta=0.7, reduction="none"),
     [anyv(3, 4), anyv(3, 4)]),
    ("nll_loss_weight_ignore", lambda a: F.nll_loss(a, TARGET_IGNORE, weight=WEIGHT),
     [anyv(3, 4)]),
    ("nll_loss_none_3d", lambda a: F.nll_loss(a, TARGET_3D, reduction="none"), [anyv(2, 4, 3)]),
    ("cross_entropy_smooth", lambda a: F.cross_entropy(a, TARGET, label_smoothing=0.2),
     [anyv(3, 4)]),
    ("cross_entropy_probs", lambda a, b: F.cross_entropy(a, b.softmax(1)),
     [anyv(3, 4), anyv(3, 4)]),
    ("bce", lambda a, b: F.binary_cross_entropy(a.sigmoid(), b.sigmoid(), weight=WEIGHT),
     [anyv(3, 4), anyv(3, 4)]),
    ("bce_with_logits", lambda a, b: F.binary_cross_entropy_with_logits(a, b.sigmoid()),
     [anyv(3, 4), anyv(3, 4)]),
    ("bce_with_logits_pos_weight",
     lambda a, b: F.binary_cross_entropy_with_logits(a, b.sigmoid(), pos_weight=WEIGHT,
                                                     reduction="sum"),
     [anyv(3, 4), anyv(3, 4)]),
    ("kl_div", lambda a, b: F.kl_div(a.log_softmax(1), b.softmax(1), reduction="batchmean"),
     [anyv(3, 4), anyv(3, 4)]),
    ("cosine_embedding_loss", lambda a, b: F.cosine_embedding_loss(a, b, SIGNS),
     [anyv(3, 4), anyv(3, 4)]),
    ("margin_ranking_loss", lambda a, b: F.margin_ranking_loss(a, b, SIGNS.double(), margin=3.0),
     [anyv(3), anyv(3)]),
    ("triplet_margin_loss", lambda a, b, c: F.triplet_margin_loss(a, b, c, margin=5.0),
     [anyv(3, 4), anyv(3, 4), anyv(3, 4)]),
    ("selu", lambda a: F.selu(a), [nonzero(3, 4)]),
    ("celu", lambda a: F.celu(a, alpha=0.8), [nonzero(3, 4)]),
    ("hardtanh", lambda a: F.hardtanh(a, -0.8, 1.0), [distinct(3, 4)]),
    ("relu6", lambda a: F.relu6(a * 4), [distinct(3, 4)]),
    ("hardswish", lambda a: F.hardswish(a * 3), [distinct(3, 4)]),
    ("mish", lambda a: F.mish(a), [anyv(3, 4)]),
    ("logsigmoid", lambda a: F.logsigmoid(a * 4), [anyv(3, 4)]),
    ("softsign", lambda a: F.softsign(a), [nonzero(3, 4)]),
    ("custom_cube", lambda a: Cube.apply(a), [anyv(3, 4)]),
    ("custom_cube_composed", lambda a, b: Cube.apply(a * b).sum(0), [anyv(3, 4), anyv(4)]),
]


@pytest.mark.parametrize("fn, specs", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_gradcheck_and_gradgradcheck(fn, specs):
    """First- and second-order analytical gradients match finite differences."""
    inputs = make_inputs(specs, seed=len(specs) * 7 + 1)
    assert torch.autograd.gradcheck(fn, inputs, eps=1e-6, atol=1e-5, rtol=1e-3)
    assert torch.autograd.gradgradcheck(fn, inputs, eps=1e-6, atol=1e-5, rtol=1e-3)
