"""Hostile calls shared by ``tools/record_torch_errors.py`` and ``test_hostile_calls.py``.

``CASES`` lists ``(id, code)`` pairs. ``code`` is one or more lines of Python run with the names of
``namespace(mod)``: ``torch`` (the library under test), ``np`` and the fresh inputs of
``make_inputs(mod)``. Every line but the last is set-up, which must succeed; the last line is the
hostile call, which PyTorch refuses. The recorder runs each case with PyTorch and stores its
exception class and message in ``tests/golden/hostile_calls.json``; the test runs the same code with
ferrograd and checks that it is refused the same way and that no tensor bound in the namespace
(inputs and set-up results) changed: values, ``_version``, ``.grad``, ``requires_grad``.

This module imports only numpy; every function takes the tensor module as an argument.
"""

import warnings

import numpy as np

A = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
B = [[0.5, -1.0, 1.5, 2.0], [-0.5, 1.0, 0.25, -2.0], [3.0, -3.0, 0.75, 1.25]]
C = [
    [[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]],
    [[-1.0, -2.0, -3.0, -4.0], [-5.0, -6.0, -7.0, -8.0], [-9.0, -10.0, -11.0, -12.0]],
]
V = [1.0, -2.0, 3.0]
D = [[0.25, -0.5, 0.75], [1.25, -1.5, 1.75]]
INDEX = [0, 2, 1]
GATHER_INDEX = [[0, 2, 1], [1, 0, 2]]
MASK = [[True, False, True], [False, True, False]]
W = [[0.5, -1.0, 1.5], [-2.0, 2.5, -3.0]]
U = [0.5, -0.5]


def make_inputs(mod):
    """Fresh inputs built with ``mod`` from the fixed numbers above."""
    w = mod.tensor(W, requires_grad=True)
    return {
        "a": mod.tensor(A),  # float32 2x3
        "b": mod.tensor(B),  # float32 3x4
        "c": mod.tensor(C),  # float32 2x3x4
        "v": mod.tensor(V),  # float32 3
        "d": mod.tensor(D, dtype=mod.float64),  # float64 2x3
        "i": mod.tensor(INDEX),  # int64 3
        "j": mod.tensor(GATHER_INDEX),  # int64 2x3, valid gather index along either dim
        "m": mod.tensor(MASK),  # bool 2x3
        "s": mod.tensor(2.5),  # float32 0-d
        "e": mod.tensor([]),  # float32 (0,)
        "w": w,  # float32 2x3 leaf requiring grad
        "h": w * 2,  # non-leaf
        "u": mod.tensor(U, requires_grad=True),  # float32 2 leaf requiring grad, unused by h
    }


def namespace(mod):
    """The names a case runs with: ``torch``, ``np`` and fresh inputs built with ``mod``."""
    names = {"torch": mod, "np": np}
    names.update(make_inputs(mod))
    return names


def split_code(code):
    """``(setup, call)``: every line but the last, and the last line."""
    lines = code.strip().split("\n")
    return "\n".join(lines[:-1]), lines[-1]


def snapshot(names, mod):
    """Everything observable of each tensor bound in ``names``, by name."""
    state = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # .grad of a non-leaf warns
        for name, t in names.items():
            if not isinstance(t, mod.Tensor):
                continue
            grad = t.grad
            state[name] = {
                "values": t.tolist(),
                "shape": tuple(t.shape),
                "dtype": str(t.dtype),
                "_version": getattr(t, "_version", None),
                "grad": None if grad is None else (tuple(grad.shape), grad.tolist()),
                "requires_grad": t.requires_grad,
                "is_leaf": t.is_leaf,
            }
    return state


def changed(before, after):
    """Names whose snapshot differs, with the fields that differ."""
    out = {}
    for name, old in before.items():
        new = after.get(name)
        if new is None:
            out[name] = ["unbound"]
            continue
        fields = [k for k in old if old[k] != new[k]]
        if fields:
            out[name] = fields
    return out


CASES = [
    # shape mismatches: pointwise ------------------------------------------------------------------
    ("add_shape", "a + b"),
    ("add_fn_shape", "torch.add(a, b)"),
    ("mul_bcast_shape", "a * v.reshape(3, 1)"),
    ("sub_shape", "a - torch.ones(4)"),
    ("div_shape", "a / torch.ones(2)"),
    ("pow_shape", "a ** b"),
    ("pow_fn_shape", "torch.pow(a, torch.ones(2))"),
    ("lt_shape", "a < b"),
    ("eq_shape", "a == torch.ones(4)"),
    ("maximum_shape", "torch.maximum(a, b)"),
    ("minimum_shape", "torch.minimum(a, torch.ones(4))"),
    ("max_binary_shape", "torch.max(a, b)"),
    ("min_binary_shape", "torch.min(a, torch.ones(2))"),
    ("atan2_shape", "torch.atan2(a, b)"),
    ("hypot_shape", "torch.hypot(a, torch.ones(4))"),
    ("xlogy_shape", "torch.xlogy(a, b)"),
    ("lerp_shape", "torch.lerp(a, b, 0.5)"),
    ("lerp_end_dtype", "a.lerp(d, 0.5)"),
    ("lerp_weight_dtype", "torch.lerp(a, a, d)"),
    ("lerp_inplace_bcast_out", "v.lerp_(a, 0.5)"),
    ("addcmul_shape", "torch.addcmul(a, b, a)"),
    ("addcmul_inplace_bcast_out", "v.addcmul_(a, v)"),
    ("addcdiv_shape", "a.addcdiv(a, b)"),
    ("addcdiv_integers", "a.addcdiv(i, i)"),
    ("addcdiv_inplace_leaf", "w.addcdiv_(a, a)"),
    ("logical_and_shape", "torch.logical_and(m, torch.ones(3, 3, dtype=torch.bool))"),
    ("clamp_tensor_min_shape", "a.clamp(min=torch.ones(4))"),
    ("add_inplace_bcast_out", "v.add_(a)"),
    ("mul_inplace_shape", "a.mul_(b)"),
    ("sub_inplace_bcast_out", "a.sub_(torch.ones(2, 1, 3))"),
    ("div_inplace_shape", "a.div_(torch.ones(4))"),
    ("iadd_shape", "a += b"),
    ("imul_bcast_out", "v *= a"),
    ("pow_inplace_shape", "a.pow_(torch.ones(4))"),
    ("atan2_inplace_shape", "a.atan2_(b)"),
    ("copy_shape", "a.copy_(b)"),
    ("copy_bcast_out", "v.copy_(a)"),
    # shape mismatches: products -------------------------------------------------------------------
    ("matmul_shape", "a @ a"),
    ("matmul_fn_vec_shape", "torch.matmul(a, torch.ones(2))"),
    ("matmul_0d", "torch.matmul(s, a)"),
    ("matmul_batch_shape", "torch.matmul(c, torch.ones(3, 4, 5))"),
    ("matmul_dtype", "a @ b.double()"),
    ("mm_shape", "torch.mm(a, a)"),
    ("mm_method_shape", "a.mm(b.t())"),
    ("mm_vector", "torch.mm(a, v)"),
    ("mm_dtype", "torch.mm(a, b.double())"),
    ("mm_empty_shape", "torch.mm(torch.zeros(0, 3), torch.zeros(2, 1))"),
    ("bmm_shape", "torch.bmm(c, c)"),
    ("bmm_2d", "torch.bmm(a, b)"),
    ("bmm_batch_shape", "torch.bmm(c, torch.ones(3, 4, 2))"),
    ("bmm_dtype", "c.bmm(c.transpose(1, 2).double())"),
    ("mv_shape", "torch.mv(a, torch.ones(2))"),
    ("mv_matrix", "torch.mv(a, b)"),
    ("mv_dtype", "a.mv(v.double())"),
    ("dot_shape", "torch.dot(v, torch.ones(4))"),
    ("dot_2d", "torch.dot(a, a)"),
    ("dot_dtype", "torch.dot(v, v.double())"),
    ("dot_int_float", "v.dot(i)"),
    ("dot_empty", "torch.dot(e, v)"),
    ("outer_2d", "torch.outer(a, v)"),
    ("linear_shape", "torch.nn.functional.linear(a, b)"),
    # shape mismatches: joining --------------------------------------------------------------------
    ("cat_shape", "torch.cat([a, b])"),
    ("cat_ndim", "torch.cat([a, v])"),
    ("cat_empty_list", "torch.cat([])"),
    ("cat_dim_range", "torch.cat([a, a], dim=2)"),
    ("cat_neg_dim_range", "torch.cat([a, a], dim=-3)"),
    ("stack_shape", "torch.stack([a, b])"),
    ("stack_empty_shape", "torch.stack([e, v])"),
    ("stack_empty_list", "torch.stack([])"),
    ("stack_dim_range", "torch.stack([a, a], dim=4)"),
    ("stack_neg_dim_range", "torch.stack([a, a], dim=-4)"),
    # shape mismatches: views ----------------------------------------------------------------------
    ("view_numel", "a.view(4, 2)"),
    ("view_two_infer", "a.view(-1, -1)"),
    ("view_infer_indivisible", "a.view(-1, 4)"),
    ("view_zero_infer", "a.view(-1, 0)"),
    ("view_empty_infer", "e.view(-1, 0)"),
    ("view_non_contiguous", "a.t().view(6)"),
    ("view_as_shape", "a.view_as(torch.ones(4))"),
    ("view_neg_size", "a.view(-2, -3)"),
    ("reshape_numel", "a.reshape(5)"),
    ("reshape_fn_infer", "torch.reshape(a, (-1, 5))"),
    ("reshape_neg_size", "a.reshape(-2, 3)"),
    ("reshape_as_shape", "a.reshape_as(b)"),
    ("expand_shape", "a.expand(3, 3)"),
    ("expand_fewer_dims", "a.expand(3)"),
    ("expand_neg_new_dim", "a.expand(-1, 2, 3)"),
    ("expand_as_shape", "a.expand_as(b)"),
    ("repeat_fewer_dims", "a.repeat(2)"),
    ("repeat_negative", "a.repeat(-1, 1)"),
    ("narrow_length", "a.narrow(1, 2, 5)"),
    ("narrow_start", "a.narrow(0, -3, 1)"),
    ("split_sizes_sum", "a.split([1, 1], dim=1)"),
    ("split_fn_sizes_sum", "torch.split(a, [1, 2])"),
    ("t_3d", "c.t()"),
    ("permute_count", "a.permute(0)"),
    ("permute_duplicate", "a.permute(0, 0)"),
    ("flatten_order", "a.flatten(1, 0)"),
    # shape mismatches: indexing ops ---------------------------------------------------------------
    ("gather_ndim", "torch.gather(a, 1, torch.tensor([0, 1]))"),
    ("gather_index_size", "a.gather(1, torch.zeros(3, 2, dtype=torch.int64))"),
    ("gather_index_dtype", "a.gather(1, torch.zeros(2, 2))"),
    ("scatter_add_ndim", "torch.zeros(3).scatter_add(0, j, a)"),
    ("scatter_add_src_size", "a.scatter_add(1, j, torch.ones(1, 3))"),
    ("scatter_add_inplace_src_size", "a.scatter_add_(0, j, torch.ones(2, 2))"),
    ("scatter_add_index_dtype", "a.scatter_add(1, j.float(), a)"),
    ("index_select_2d_index", "a.index_select(0, torch.tensor([[0]]))"),
    ("index_select_float_index", "a.index_select(0, torch.tensor([0.0]))"),
    ("where_shape", "torch.where(m, a, b)"),
    ("where_cond_dtype", "torch.where(a, a, a)"),
    ("where_cond_shape", "torch.where(torch.tensor([True, False]), a, a)"),
    ("masked_fill_shape", "a.masked_fill(torch.tensor([True, False]), 0.0)"),
    ("masked_fill_inplace_bcast", "a.masked_fill_(torch.ones(3, 3, dtype=torch.bool), 1.0)"),
    ("masked_fill_float_mask", "a.masked_fill(a, 0.0)"),
    ("masked_fill_value_1d", "a.masked_fill(m, torch.ones(2))"),
    ("masked_fill_fn_shape", "torch.masked_fill(a, torch.ones(4, dtype=torch.bool), 0.0)"),
    # bad dims -------------------------------------------------------------------------------------
    ("sum_dim", "a.sum(dim=5)"),
    ("sum_neg_dim", "a.sum(dim=-3)"),
    ("sum_dup_dims", "a.sum(dim=(0, 0))"),
    ("sum_0d_dim", "s.sum(dim=1)"),
    ("mean_dim", "a.mean(dim=2)"),
    ("prod_dim", "a.prod(dim=2)"),
    ("max_dim", "a.max(dim=2)"),
    ("min_neg_dim", "a.min(dim=-3)"),
    ("argmax_dim", "a.argmax(dim=2)"),
    ("argmin_dim", "torch.argmin(a, dim=2)"),
    ("amax_dim", "a.amax(dim=2)"),
    ("amin_dup_dims", "a.amin(dim=(0, 0))"),
    ("std_dim", "a.std(dim=3)"),
    ("var_dim", "torch.var(a, dim=3)"),
    ("logsumexp_dim", "a.logsumexp(dim=3)"),
    ("cumsum_dim", "a.cumsum(dim=2)"),
    ("cumsum_neg_dim", "torch.cumsum(a, dim=-3)"),
    ("norm_dim", "a.norm(dim=2)"),
    ("all_dim", "m.all(dim=2)"),
    ("any_dim", "m.any(dim=-3)"),
    ("transpose_dim", "a.transpose(0, 7)"),
    ("transpose_neg_dim", "torch.transpose(a, -3, 0)"),
    ("softmax_dim", "a.softmax(dim=3)"),
    ("softmax_1d_dim", "torch.softmax(v, dim=1)"),
    ("log_softmax_neg_dim", "torch.log_softmax(a, dim=-3)"),
    ("squeeze_dim", "a.squeeze(5)"),
    ("squeeze_neg_dim", "torch.squeeze(a, dim=-3)"),
    ("unsqueeze_dim", "a.unsqueeze(3)"),
    ("unsqueeze_neg_dim", "a.unsqueeze(-4)"),
    ("split_dim", "a.split(1, dim=2)"),
    ("chunk_dim", "a.chunk(2, dim=2)"),
    ("flip_dim", "a.flip(2)"),
    ("flip_dup_dims", "a.flip((0, 0))"),
    ("permute_dim", "a.permute(0, 2)"),
    ("flatten_dim", "a.flatten(0, 5)"),
    ("flatten_0d_dim", "torch.flatten(s, 0, 1)"),
    ("unbind_dim", "a.unbind(2)"),
    ("index_select_dim", "a.index_select(2, i)"),
    ("gather_dim", "a.gather(2, j)"),
    ("scatter_add_dim", "a.scatter_add(2, j, a)"),
    ("narrow_dim", "a.narrow(3, 0, 1)"),
    ("select_dim", "a.select(2, 0)"),
    ("size_dim", "a.size(2)"),
    ("size_neg_dim", "a.size(dim=-3)"),
    # bad sizes / counts ---------------------------------------------------------------------------
    ("chunk_zero", "a.chunk(0)"),
    ("chunk_fn_negative", "torch.chunk(a, -1)"),
    ("split_zero", "a.split(0)"),
    ("split_negative", "a.split(-1)"),
    # bad indices ----------------------------------------------------------------------------------
    ("getitem_index", "a[5]"),
    ("getitem_neg_index", "a[-9]"),
    ("getitem_col_index", "a[:, 10]"),
    ("getitem_too_many", "a[0, 0, 0]"),
    ("getitem_1d_index", "v[3]"),
    ("getitem_0d", "s[0]"),
    ("getitem_empty", "e[0]"),
    ("getitem_tensor_index", "a[torch.tensor([0, 5])]"),
    ("getitem_tensor_neg_index", "a[torch.tensor([-3])]"),
    ("getitem_mask_shape", "a[m[:, :2]]"),
    ("getitem_mask_1d_shape", "v[torch.tensor([True, False])]"),
    ("getitem_mask_ndim", "v[torch.tensor([[True, False, True]])]"),
    ("getitem_float_tensor", "a[torch.tensor([0.0])]"),
    ("getitem_str", 'a["x"]'),
    ("getitem_float", "a[1.5]"),
    ("getitem_neg_step", "a[::-1]"),
    ("getitem_zero_step", "v[::0]"),
    ("setitem_index", "a[5] = 1.0"),
    ("setitem_mask_shape", "a[m[:, :2]] = 0.0"),
    ("setitem_column_index_number_out_of_range", "a[:, torch.tensor([-4])] = 1.0"),
    ("setitem_value_shape", "a[0] = torch.ones(4)"),
    ("setitem_col_value_shape", "a[:, 0] = b"),
    ("setitem_tensor_index", "a[torch.tensor([2])] = 0.0"),
    ("setitem_str_value", 'a[0] = "x"'),
    ("select_index", "a.select(0, 5)"),
    ("select_neg_index", "a.select(1, -4)"),
    ("index_select_index", "a.index_select(0, torch.tensor([2]))"),
    ("index_select_neg_index", "a.index_select(0, torch.tensor([-1]))"),
    ("index_select_1d_index", "torch.index_select(v, 0, torch.tensor([0, 3]))"),
    ("gather_index", "a.gather(1, torch.tensor([[3], [0]]))"),
    ("gather_neg_index", "torch.gather(a, 1, torch.tensor([[-1], [0]]))"),
    ("scatter_add_index", "torch.zeros(3).scatter_add(0, torch.tensor([3]), torch.ones(1))"),
    ("scatter_add_neg_index", "a.scatter_add(0, torch.tensor([[-1, 0, 0]]), torch.ones(1, 3))"),
    ("scatter_add_inplace_index", "a.scatter_add_(1, torch.tensor([[4, 0]]), torch.ones(1, 2))"),
    # wrong types ----------------------------------------------------------------------------------
    ("add_str", 'a + "a"'),
    ("radd_str", '"a" + a'),
    ("mul_str", 'a * "x"'),
    ("sub_none", "a - None"),
    ("matmul_list", "a @ [[1.0], [2.0], [3.0]]"),
    ("matmul_fn_list", "torch.matmul(a, [[1.0], [2.0], [3.0]])"),
    ("mm_list", "torch.mm(a, [[1.0], [2.0], [3.0]])"),
    ("tensor_str", 'torch.tensor("abc")'),
    ("tensor_mixed_str", 'torch.tensor([1, "a"])'),
    ("tensor_ragged", "torch.tensor([[1, 2], [3]])"),
    ("tensor_none", "torch.tensor(None)"),
    ("tensor_dict", "torch.tensor({1: 2})"),
    ("tensor_dtype_str", 'torch.tensor([1.0], dtype="float32")'),
    ("sum_dim_str", 'a.sum(dim="a")'),
    ("sum_dim_float", "a.sum(dim=1.5)"),
    ("view_float", "a.view(2.5)"),
    ("view_str", 'a.view("6")'),
    ("reshape_none", "a.reshape(None)"),
    ("reshape_float", "a.reshape(2, 1.5)"),
    ("transpose_str", 'a.transpose(0, "1")'),
    ("transpose_missing", "a.transpose(0)"),
    ("unsqueeze_float", "a.unsqueeze(1.0)"),
    ("unsqueeze_missing", "torch.unsqueeze(a)"),
    ("softmax_no_dim", "torch.softmax(a)"),
    ("expand_str", 'a.expand("2", 3)'),
    ("repeat_float", "a.repeat(2.5, 1)"),
    ("zeros_str", 'torch.zeros("a")'),
    ("ones_none", "torch.ones(2, None)"),
    ("full_size_int", "torch.full(2, 1.0)"),
    ("full_value_str", 'torch.full((2,), "a")'),
    ("cat_tensor", "torch.cat(a)"),
    ("cat_float_element", "torch.cat([a, 1.0])"),
    ("stack_list_element", "torch.stack([v, [1.0, 2.0, 3.0]])"),
    ("index_select_list", "a.index_select(0, [0])"),
    ("gather_list", "a.gather(1, [[0]])"),
    ("where_str", 'torch.where(m, a, "x")'),
    ("where_missing_other", "torch.where(m, a)"),
    ("masked_fill_str", 'a.masked_fill(m, "x")'),
    ("clamp_str", 'a.clamp(min="a")'),
    ("pow_str", 'a.pow("2")'),
    ("type_as_str", 'a.type_as("x")'),
    ("numel_int", "torch.numel(5)"),
    ("argmax_tuple_dim", "a.argmax(dim=(0, 1))"),
    ("cumsum_no_dim", "a.cumsum()"),
    ("linspace_no_steps", "torch.linspace(0, 1)"),
    ("linspace_float_steps", "torch.linspace(0, 1, 2.5)"),
    ("arange_no_args", "torch.arange()"),
    ("from_numpy_list", "torch.from_numpy([1, 2])"),
    ("from_numpy_str_array", 'torch.from_numpy(np.array(["a"]))'),
    ("polygamma_float_n", "torch.polygamma(1.5, a)"),
    ("zeros_like_dtype_str", 'torch.zeros_like(a, dtype="x")'),
    # conversions ----------------------------------------------------------------------------------
    ("item_many", "a.item()"),
    ("item_empty", "e.item()"),
    ("float_many", "float(a)"),
    ("int_many", "int(v)"),
    ("bool_many", "bool(a)"),
    ("len_0d", "len(s)"),
    ("iter_0d", "iter(s)"),
    ("numpy_requires_grad", "w.numpy()"),
    ("numpy_non_leaf", "h.numpy()"),
    ("index_float_tensor", "[1, 2, 3][s]"),
    # dtype problems -------------------------------------------------------------------------------
    ("tensor_int_requires_grad", "torch.tensor([1, 2], requires_grad=True)"),
    ("int_requires_grad_", "torch.tensor([1, 2]).requires_grad_()"),
    ("input_int_requires_grad_", "i.requires_grad_(True)"),
    ("input_int_requires_grad_attr", "i.requires_grad = True"),
    ("bool_requires_grad_", "m.requires_grad_()"),
    ("zeros_int_requires_grad", "torch.zeros(2, dtype=torch.int64, requires_grad=True)"),
    ("ones_int_requires_grad", "torch.ones(2, 3, dtype=torch.int64, requires_grad=True)"),
    ("arange_int_requires_grad", "torch.arange(3, requires_grad=True)"),
    ("long_requires_grad_", "a.long().requires_grad_()"),
    ("full_bool_requires_grad", "torch.full((2,), True, dtype=torch.bool, requires_grad=True)"),
    ("neg_bool", "-torch.tensor([True])"),
    ("neg_bool_input", "-m"),
    ("neg_fn_bool", "torch.neg(m)"),
    ("neg_inplace_bool", "m.neg_()"),
    ("sub_bool", "m - m"),
    ("sub_fn_bool", "torch.sub(m, m)"),
    ("invert_float", "~a"),
    ("and_float", "a & a"),
    ("or_float_bool", "a | m"),
    ("xor_float", "a ^ a"),
    ("mean_int", "i.mean()"),
    ("mean_fn_int", "torch.mean(i)"),
    ("mean_bool", "m.mean()"),
    ("std_int", "i.std()"),
    ("var_int", "torch.var(i)"),
    ("norm_int", "i.norm()"),
    ("softmax_int", "i.softmax(0)"),
    ("log_softmax_int", "torch.log_softmax(i, 0)"),
    ("add_inplace_int_float", "i.add_(1.5)"),
    ("mul_inplace_int_float", "i.mul_(0.5)"),
    ("div_inplace_int", "i.div_(2)"),
    ("itruediv_int", "i /= 2"),
    ("sub_inplace_int_tensor", "i.sub_(v)"),
    ("add_inplace_int_tensor", "i.add_(a[0])"),
    ("sqrt_inplace_int", "i.sqrt_()"),
    ("exp_inplace_int", "i.exp_()"),
    ("sin_inplace_int", "i.sin_()"),
    ("sigmoid_inplace_int", "i.sigmoid_()"),
    ("log_inplace_int", "i.log_()"),
    ("reciprocal_inplace_int", "i.reciprocal_()"),
    ("lgamma_inplace_int", "i.lgamma_()"),
    ("pow_inplace_int_float", "i.pow_(0.5)"),
    ("add_inplace_bool_int", "m.add_(1)"),
    ("mul_inplace_bool_float", "m.mul_(2.0)"),
    ("pow_int_neg_exp", "torch.tensor([1, 2]) ** -1"),
    ("pow_int_input_neg_exp", "i.pow(-2)"),
    ("pow_inplace_int_neg_exp", "i.pow_(-1)"),
    ("pow_fn_int_neg_exp", "torch.pow(i, -1)"),
    ("ipow_int_neg_exp", "i **= -3"),
    ("normal_int", "i.normal_()"),
    ("uniform_int", "i.uniform_()"),
    ("normal_bool", "torch.ones(2, dtype=torch.bool).normal_()"),
    ("rand_int_dtype", "torch.rand(2, dtype=torch.int64)"),
    ("randn_int_dtype", "torch.randn(2, dtype=torch.int64)"),
    ("arange_bool", "torch.arange(0, 5, 1, dtype=torch.bool)"),
    ("polygamma_neg_n", "torch.polygamma(-1, a)"),
    ("polygamma_inplace_neg_n", "a.polygamma_(-1)"),
    # nan / inf / range ----------------------------------------------------------------------------
    ("arange_nan", 'torch.arange(0, float("nan"))'),
    ("arange_inf", 'torch.arange(0, float("inf"))'),
    ("arange_zero_step", "torch.arange(0, 10, 0)"),
    ("arange_wrong_sign_step", "torch.arange(0, 10, -1)"),
    ("arange_descending", "torch.arange(10, 0)"),
    ("linspace_negative_steps", "torch.linspace(0, 1, -1)"),
    ("linspace_negative_steps_2", "torch.linspace(0, 1, steps=-2)"),
    ("int_nan", 'int(torch.tensor(float("nan")))'),
    ("normal_std_nan", 'a.normal_(std=float("nan"))'),
    ("uniform_reversed", "a.uniform_(1.0, 0.0)"),
    ("uniform_inf", 'a.uniform_(0.0, float("inf"))'),
    # creation -------------------------------------------------------------------------------------
    ("zeros_negative", "torch.zeros(-1)"),
    ("ones_negative", "torch.ones(-1, 2)"),
    ("zeros_tuple_negative", "torch.zeros((2, -1))"),
    ("empty_negative", "torch.empty(-2)"),
    ("full_negative", "torch.full((-1,), 0.0)"),
    ("randn_negative", "torch.randn(-1)"),
    ("rand_negative", "torch.rand(2, -3)"),
    ("normal_std_negative", "torch.ones(2, 3).normal_(std=-1)"),
    ("normal_input_std_negative", "a.normal_(mean=0.0, std=-0.5)"),
    ("tensor_int_overflow", "torch.tensor([2**70])"),
    ("manual_seed_str", 'torch.manual_seed("x")'),
    ("set_num_threads_zero", "torch.set_num_threads(0)"),
    ("set_num_threads_negative", "torch.set_num_threads(-1)"),
    # clamp ----------------------------------------------------------------------------------------
    ("clamp_no_bounds", "a.clamp()"),
    ("clamp_fn_none_bounds", "torch.clamp(a, min=None, max=None)"),
    ("clamp_inplace_no_bounds", "a.clamp_(min=None, max=None)"),
    ("clip_no_bounds", "a.clip()"),
    # empty reductions -----------------------------------------------------------------------------
    ("max_empty", "e.max()"),
    ("min_empty", "e.min()"),
    ("argmax_empty", "e.argmax()"),
    ("amax_empty", "e.amax()"),
    ("max_dim_empty", "torch.zeros(0, 3).max(dim=0)"),
    ("argmin_dim_empty", "torch.zeros(0, 3).argmin(dim=0)"),
    # autograd: backward / grad --------------------------------------------------------------------
    ("backward_non_scalar", "h.backward()"),
    ("backward_fn_non_scalar", "torch.autograd.backward(h)"),
    ("backward_leaf_non_scalar", "w.backward()"),
    ("backward_no_grad_fn", "a.sum().backward()"),
    ("backward_0d_no_grad_fn", "s.backward()"),
    ("backward_gradient_shape", "h.backward(torch.ones(3))"),
    ("backward_scalar_gradient_shape", "h.sum().backward(torch.ones(2, 3))"),
    ("backward_fn_gradient_shape", "torch.autograd.backward([h.sum()], [torch.ones(2)])"),
    ("backward_empty_inputs", "h.sum().backward(inputs=[])"),
    ("backward_twice", "y = (w * w).sum()\ny.backward()\ny.backward()"),
    ("backward_twice_exp", "y = w.exp().sum()\ny.backward()\ny.backward()"),
    ("grad_no_grad_fn", "torch.autograd.grad(a.sum(), a)"),
    ("grad_input_no_grad", "torch.autograd.grad(h.sum(), [w, a])"),
    ("grad_unused_input", "torch.autograd.grad(h.sum(), [w, u])"),
    ("grad_non_scalar", "torch.autograd.grad(h, w)"),
    ("grad_outputs_shape", "torch.autograd.grad(h, w, torch.ones(3))"),
    ("grad_outputs_count", "torch.autograd.grad([h.sum(), h.sum()], w, [torch.tensor(1.0)])"),
    ("grad_empty_inputs", "torch.autograd.grad(h.sum(), [])"),
    ("grad_twice", "y = (w * w).sum()\ntorch.autograd.grad(y, w)\ntorch.autograd.grad(y, w)"),
    ("grad_saved_modified", "y = w.exp()\nz = y.sum()\ny.add_(1)\ntorch.autograd.grad(z, w)"),
    ("saved_output_modified", "y = w.exp()\nz = y.sum()\ny.add_(1)\nz.backward()"),
    ("saved_input_modified", "x = w * 1\ny = (x * x).sum()\nx.mul_(2)\ny.backward()"),
    ("saved_sigmoid_modified", "y = h.sigmoid()\nz = y.sum()\ny.zero_()\nz.backward()"),
    ("saved_non_leaf_modified", "y = h.sin().sum()\nh.zero_()\ny.backward()"),
    ("saved_via_view_modified", "x = w * 1\ny = x.tanh()\nz = y.sum()\ny[0].mul_(2)\nz.backward()"),
    # autograd: in-place on leaves -----------------------------------------------------------------
    ("leaf_add_", "w.add_(1)"),
    ("leaf_mul_", "w.mul_(2)"),
    ("leaf_zero_", "w.zero_()"),
    ("leaf_fill_", "w.fill_(1.0)"),
    ("leaf_exp_", "w.exp_()"),
    ("leaf_iadd", "w += 1"),
    ("leaf_setitem", "w[0] = 1.0"),
    ("leaf_copy_", "w.copy_(a)"),
    ("leaf_normal_", "w.normal_()"),
    ("leaf_uniform_", "w.uniform_()"),
    ("leaf_clamp_", "w.clamp_(min=0.0)"),
    ("leaf_masked_fill_", "w.masked_fill_(m, 0.0)"),
    ("leaf_scatter_add_", "w.scatter_add_(1, j, a)"),
    ("leaf_relu_", "w.relu_()"),
    ("leaf_neg_", "w.neg_()"),
    ("leaf_1d_sub_", "u.sub_(1)"),
    ("leaf_view_add_", "w[0].add_(1)"),
    ("leaf_view_mul_", "w.view(6).mul_(2)"),
    ("leaf_t_zero_", "w.t().zero_()"),
    ("leaf_reshape_add_", "w.reshape(6).add_(1)"),
    ("leaf_unbind_add_", "w.unbind(0)[0].add_(1)"),
    ("leaf_split_mul_", "w.split(1)[0].mul_(2)"),
    ("leaf_select_setitem", "w[1][0] = 5.0"),
    # autograd: multi-output views -----------------------------------------------------------------
    ("unbind_view_add_", "h.unbind(0)[0].add_(1)"),
    ("split_view_mul_", "h.split(1)[0].mul_(2)"),
    ("chunk_view_zero_", "h.chunk(3, dim=1)[1].zero_()"),
    ("view_detach_", "h.view(6).detach_()"),
    # autograd: attributes -------------------------------------------------------------------------
    ("grad_assign_shape", "w.grad = torch.zeros(3)"),
    ("grad_assign_dtype", "w.grad = torch.zeros(2, 3, dtype=torch.float64)"),
    ("grad_assign_int", "w.grad = torch.zeros(2, 3, dtype=torch.int64)"),
    ("grad_assign_self", "w.grad = w"),
    ("grad_assign_str", 'w.grad = "a"'),
    ("grad_assign_list", "w.grad = [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]"),
    ("requires_grad_non_leaf", "h.requires_grad = False"),
    ("requires_grad_fn_non_leaf", "h.requires_grad_(False)"),
    ("register_hook_no_grad", "a.register_hook(lambda g: g)"),
    ("retain_grad_no_grad", "a.retain_grad()"),
    # nn -------------------------------------------------------------------------------------------
    ("nn_linear_shape", "torch.nn.Linear(3, 4)(torch.ones(2, 5))"),
    ("mse_loss_shape", "torch.nn.functional.mse_loss(a, b)"),
    ("cross_entropy_target_range", "torch.nn.functional.cross_entropy(a, torch.tensor([0, 3]))"),
    ("cross_entropy_target_count", "torch.nn.functional.cross_entropy(a, torch.tensor([0, 1, 2]))"),
    ("nll_loss_target_neg", "torch.nn.functional.nll_loss(a, torch.tensor([-1, 0]))"),
    ("cross_entropy_float_target_shape", "torch.nn.functional.cross_entropy(a, v)"),
]
