"""Numerical gradient checks: analytical Jacobians (first and second order) vs finite differences.

Every case is a function of float64 tensors. Its analytical Jacobian is built row by row from
vector-Jacobian products with one-hot ``grad_outputs`` and compared with central differences
computed by perturbing the inputs in NumPy and rebuilding tensors from the perturbed arrays.
"""

import ferrograd as torch
import numpy as np
import pytest

EPS = 1e-6
ATOL = 1e-5
RTOL = 1e-4


# --------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------


def _as_tensors(arrays, requires_grad):
    return [torch.tensor(a, dtype=torch.float64, requires_grad=requires_grad) for a in arrays]


def _to_numpy(t):
    return np.asarray(t.detach().numpy(), dtype=np.float64)


def numerical_jacobian(fn, arrays, needs_grad=False):
    """Central-difference Jacobians of ``fn`` at ``arrays``: one (out.size, in.size) per input.

    ``fn`` gets fresh tensors built from perturbed copies of ``arrays``; it runs under
    ``no_grad`` unless ``needs_grad`` (then the inputs require grad, for functions that
    themselves differentiate).
    """

    def evaluate(perturbed):
        if needs_grad:
            return _to_numpy(fn(*_as_tensors(perturbed, True)))
        with torch.no_grad():
            return _to_numpy(fn(*_as_tensors(perturbed, False)))

    out_size = evaluate(arrays).size
    jacobians = []
    for k, a in enumerate(arrays):
        jac = np.zeros((out_size, a.size))
        for j in range(a.size):
            plus = [b.copy() for b in arrays]
            minus = [b.copy() for b in arrays]
            plus[k].reshape(-1)[j] += EPS
            minus[k].reshape(-1)[j] -= EPS
            jac[:, j] = (evaluate(plus).reshape(-1) - evaluate(minus).reshape(-1)) / (2 * EPS)
        jacobians.append(jac)
    return jacobians


def analytical_jacobian(fn, arrays):
    """Jacobians of ``fn`` at ``arrays`` from one ``autograd.grad`` call per output element."""
    inputs = _as_tensors(arrays, True)
    out = fn(*inputs)
    assert out.dtype == torch.float64
    out_shape = tuple(out.shape)
    out_size = int(np.prod(out_shape, dtype=np.int64))
    jacobians = [np.zeros((out_size, a.size)) for a in arrays]
    if not out.requires_grad:
        return jacobians
    for i in range(out_size):
        onehot = np.zeros(out_size)
        onehot[i] = 1.0
        grad_out = torch.tensor(onehot.reshape(out_shape), dtype=torch.float64)
        grads = torch.autograd.grad(
            out, inputs, grad_outputs=grad_out, retain_graph=True, allow_unused=True
        )
        for k, g in enumerate(grads):
            if g is not None:
                assert tuple(g.shape) == arrays[k].shape, "gradient shape differs from input"
                jacobians[k][i] = _to_numpy(g).reshape(-1)
    return jacobians


def assert_jacobians_close(analytical, numerical, what):
    """Raises with both Jacobians printed unless |a - n| <= ATOL + RTOL * |n| everywhere."""
    for k, (a, n) in enumerate(zip(analytical, numerical)):
        bad = np.abs(a - n) > ATOL + RTOL * np.abs(n)
        if bad.any():
            raise AssertionError(
                f"{what}: Jacobian w.r.t. input {k} differs from finite differences\n"
                f"analytical:\n{a}\nnumerical:\n{n}"
            )


def gradcheck(fn, arrays):
    """Asserts that the analytical Jacobian of ``fn`` matches finite differences."""
    assert_jacobians_close(
        analytical_jacobian(fn, arrays), numerical_jacobian(fn, arrays), "first order"
    )


def gradgradcheck(fn, arrays, seed=0):
    """Asserts that the Jacobian of ``g = grad(fn(x) . v, x)`` matches finite differences of g.

    ``v`` is a fixed random vector; each component ``g_k`` (gradient w.r.t. input ``k``) is
    checked against all inputs.
    """
    with torch.no_grad():
        out_shape = tuple(fn(*_as_tensors(arrays, False)).shape)
    v = np.random.default_rng(seed).uniform(0.5, 1.5, size=out_shape)

    for k in range(len(arrays)):

        def grad_k(*inputs, k=k):
            out = fn(*inputs)
            if not out.requires_grad:
                return torch.zeros(arrays[k].shape, dtype=torch.float64)
            g = torch.autograd.grad(
                out,
                inputs,
                grad_outputs=torch.tensor(v, dtype=torch.float64),
                create_graph=True,
                allow_unused=True,
            )[k]
            if g is None:
                return torch.zeros(arrays[k].shape, dtype=torch.float64)
            return g

        assert_jacobians_close(
            analytical_jacobian(grad_k, arrays),
            numerical_jacobian(grad_k, arrays, needs_grad=True),
            f"second order (gradient w.r.t. input {k})",
        )


# --------------------------------------------------------------------------------------------
# inputs
# --------------------------------------------------------------------------------------------


def anyval(*shape):
    """Values in [-1.5, 1.5]."""
    return ("any", shape)


def pos(*shape):
    """Values in [0.5, 2] (for log, sqrt, fractional powers, tensor exponents)."""
    return ("pos", shape)


def nonzero(*shape):
    """Values with |x| in [0.3, 1.5] and random sign (divisors, abs, relu)."""
    return ("nonzero", shape)


def make_arrays(specs, seed):
    rng = np.random.default_rng(seed)
    arrays = []
    for kind, shape in specs:
        if kind == "any":
            a = rng.uniform(-1.5, 1.5, size=shape)
        elif kind == "pos":
            a = rng.uniform(0.5, 2.0, size=shape)
        else:
            a = rng.uniform(0.3, 1.5, size=shape) * rng.choice([-1.0, 1.0], size=shape)
        arrays.append(np.array(a, dtype=np.float64))
    return arrays


def _mlp(x, w1, b1, w2):
    return (torch.tanh(x @ w1 + b1) @ w2).sum()


def _softmax(x):
    e = x.exp()
    return e / e.sum(1, keepdim=True)


def _inplace_on_view(x, y):
    z = x * 1
    z[0].mul_(y)
    return z


def _inplace_on_slice(x, y):
    z = x * 1
    z[:, 1:].add_(y)
    return z


def _zero_then_add(x, y):
    z = x * 1
    z.zero_()
    return z + y


def _fill_then_mul(x, y):
    z = x * 1
    z.fill_(2.0)
    return z * y


def _copy_into(x, y):
    z = x * 1
    z.copy_(y)
    return z * x


def _iadd(x, y):
    z = x * 1
    z += y
    return z


def _isub(x, y):
    z = x * 1
    z -= y
    return z


def _imul(x, y):
    z = x * 1
    z *= y
    return z


def _idiv(x, y):
    z = x * 1
    z /= y
    return z


def _chain_inplace(x, y):
    z = x.exp()
    z = z * 1
    z.mul_(y).add_(x).div_(2.0)
    return z.sin()


def _inplace_after_unsaving_use(x, y):
    z = x * 1
    w = z + 1  # add saves no tensors, so modifying z afterwards is allowed
    z.mul_(y)
    return z * w


C = 1.7  # a Python scalar operand

# (id, function, input specs)
CASES = [
    # ---- binary ops, same shape, broadcasting, scalar on either side ----
    ("add", lambda x, y: x + y, [anyval(2, 3), anyval(2, 3)]),
    ("add_bcast_31_4", lambda x, y: x + y, [anyval(3, 1), anyval(4)]),
    ("add_bcast_4_31", lambda x, y: x + y, [anyval(4), anyval(3, 1)]),
    ("add_bcast_0d_tensor", lambda x, y: x + y, [anyval(), anyval(3, 4)]),
    ("add_scalar_right", lambda x: x + C, [anyval(3)]),
    ("add_scalar_left", lambda x: C + x, [anyval(3)]),
    ("add_method", lambda x, y: x.add(y), [anyval(3, 1), anyval(4)]),
    ("add_function", lambda x, y: torch.add(x, y), [anyval(3, 1), anyval(4)]),
    ("sub", lambda x, y: x - y, [anyval(2, 3), anyval(2, 3)]),
    ("sub_bcast_31_4", lambda x, y: x - y, [anyval(3, 1), anyval(4)]),
    ("sub_bcast_4_31", lambda x, y: x - y, [anyval(4), anyval(3, 1)]),
    ("sub_scalar_right", lambda x: x - C, [anyval(3)]),
    ("sub_scalar_left", lambda x: C - x, [anyval(3)]),
    ("sub_method", lambda x, y: x.sub(y), [anyval(3, 1), anyval(4)]),
    ("mul", lambda x, y: x * y, [anyval(2, 3), anyval(2, 3)]),
    ("mul_bcast_31_4", lambda x, y: x * y, [anyval(3, 1), anyval(4)]),
    ("mul_bcast_4_31", lambda x, y: x * y, [anyval(4), anyval(3, 1)]),
    ("mul_bcast_0d_tensor", lambda x, y: x * y, [anyval(3, 4), anyval()]),
    ("mul_scalar_right", lambda x: x * C, [anyval(3)]),
    ("mul_scalar_left", lambda x: C * x, [anyval(3)]),
    ("mul_self", lambda x: x * x, [anyval(3)]),
    ("mul_method", lambda x, y: x.mul(y), [anyval(3, 1), anyval(4)]),
    ("div", lambda x, y: x / y, [anyval(2, 3), nonzero(2, 3)]),
    ("div_bcast_31_4", lambda x, y: x / y, [anyval(3, 1), nonzero(4)]),
    ("div_bcast_4_31", lambda x, y: x / y, [anyval(4), nonzero(3, 1)]),
    ("div_scalar_right", lambda x: x / C, [anyval(3)]),
    ("div_scalar_left", lambda x: C / x, [nonzero(3)]),
    ("div_method", lambda x, y: x.div(y), [anyval(3, 1), nonzero(4)]),
    ("pow_tensor_exp", lambda x, y: x**y, [pos(2, 3), anyval(2, 3)]),
    ("pow_tensor_exp_bcast_31_4", lambda x, y: x**y, [pos(3, 1), anyval(4)]),
    ("pow_tensor_exp_bcast_4_31", lambda x, y: x**y, [pos(4), anyval(3, 1)]),
    ("pow_tensor_exp_method", lambda x, y: x.pow(y), [pos(3), anyval(3)]),
    ("pow_scalar_base", lambda y: C**y, [anyval(3)]),
    ("pow_2", lambda x: x**2, [anyval(4)]),
    ("pow_2_float", lambda x: x**2.0, [anyval(4)]),
    ("pow_3", lambda x: x**3, [anyval(4)]),
    ("pow_0.5", lambda x: x**0.5, [pos(4)]),
    ("pow_-1", lambda x: x**-1, [nonzero(4)]),
    ("pow_1.5", lambda x: x**1.5, [pos(4)]),
    ("pow_method_3", lambda x: x.pow(3), [anyval(4)]),
    ("pow_function_1.5", lambda x: torch.pow(x, 1.5), [pos(4)]),
    # ---- unary ops ----
    ("neg", lambda x: -x, [anyval(2, 3)]),
    ("neg_method", lambda x: x.neg(), [anyval(2, 3)]),
    ("exp", lambda x: x.exp(), [anyval(2, 3)]),
    ("log", lambda x: x.log(), [pos(2, 3)]),
    ("sin", lambda x: x.sin(), [anyval(2, 3)]),
    ("cos", lambda x: x.cos(), [anyval(2, 3)]),
    ("tanh", lambda x: x.tanh(), [anyval(2, 3)]),
    ("sigmoid", lambda x: x.sigmoid(), [anyval(2, 3)]),
    ("relu", lambda x: x.relu(), [nonzero(2, 3)]),
    ("abs", lambda x: x.abs(), [nonzero(2, 3)]),
    ("sqrt", lambda x: x.sqrt(), [pos(2, 3)]),
    ("reciprocal", lambda x: x.reciprocal(), [nonzero(2, 3)]),
    ("exp_function", lambda x: torch.exp(x), [anyval(3)]),
    ("tanh_function", lambda x: torch.tanh(x), [anyval(3)]),
    ("sigmoid_function", lambda x: torch.sigmoid(x), [anyval(3)]),
    ("relu_function", lambda x: torch.relu(x), [nonzero(3)]),
    # ---- reductions ----
    ("sum", lambda x: x.sum(), [anyval(3, 4)]),
    ("sum_dim0", lambda x: x.sum(0), [anyval(3, 4)]),
    ("sum_dim1", lambda x: x.sum(1), [anyval(3, 4)]),
    ("sum_dim-1_keepdim", lambda x: x.sum(-1, keepdim=True), [anyval(3, 4)]),
    ("sum_dim0_keepdim", lambda x: x.sum(dim=0, keepdim=True), [anyval(3, 4)]),
    ("sum_3d_dim1", lambda x: x.sum(1), [anyval(2, 3, 2)]),
    ("sum_0d", lambda x: x.sum(), [anyval()]),
    ("sum_function", lambda x: torch.sum(x), [anyval(3, 4)]),
    ("mean", lambda x: x.mean(), [anyval(3, 4)]),
    ("mean_dim0", lambda x: x.mean(0), [anyval(3, 4)]),
    ("mean_dim1_keepdim", lambda x: x.mean(1, keepdim=True), [anyval(3, 4)]),
    ("mean_3d_dim-1", lambda x: x.mean(dim=-1), [anyval(2, 3, 2)]),
    ("norm", lambda x: x.norm(), [nonzero(3, 4)]),
    ("norm_1d", lambda x: x.norm(), [nonzero(5)]),
    ("norm_function", lambda x: torch.norm(x), [nonzero(4)]),
    # ---- linear algebra ----
    ("mm", lambda a, b: a.mm(b), [anyval(2, 3), anyval(3, 4)]),
    ("mm_function", lambda a, b: torch.mm(a, b), [anyval(2, 3), anyval(3, 4)]),
    ("matmul_2d_2d", lambda a, b: a @ b, [anyval(2, 3), anyval(3, 4)]),
    ("mv", lambda a, v: a.mv(v), [anyval(2, 3), anyval(3)]),
    ("matmul_2d_1d", lambda a, v: a @ v, [anyval(2, 3), anyval(3)]),
    ("matmul_1d_2d", lambda v, a: v @ a, [anyval(2), anyval(2, 3)]),
    ("matmul_1d_1d", lambda u, v: u @ v, [anyval(3), anyval(3)]),
    ("matmul_method", lambda a, b: a.matmul(b), [anyval(2, 3), anyval(3, 2)]),
    ("dot", lambda u, v: u.dot(v), [anyval(4), anyval(4)]),
    ("dot_self", lambda u: u.dot(u), [anyval(4)]),
    ("outer", lambda u, v: u.outer(v), [anyval(3), anyval(2)]),
    ("outer_function", lambda u, v: torch.outer(u, v), [anyval(3), anyval(2)]),
    # ---- views, reshapes, indexing ----
    ("t", lambda x: x.t(), [anyval(2, 3)]),
    ("T_property", lambda x: x.T, [anyval(2, 3)]),
    ("transpose", lambda x: x.transpose(0, 1), [anyval(2, 3)]),
    ("transpose_3d", lambda x: x.transpose(0, 2), [anyval(2, 3, 2)]),
    ("view", lambda x: x.view(3, 2), [anyval(2, 3)]),
    ("view_-1", lambda x: x.view(-1), [anyval(2, 3)]),
    ("reshape", lambda x: x.reshape(6, 1), [anyval(2, 3)]),
    ("reshape_tuple", lambda x: x.reshape((3, -1)), [anyval(2, 3)]),
    ("unsqueeze0", lambda x: x.unsqueeze(0), [anyval(2, 3)]),
    ("unsqueeze-1", lambda x: x.unsqueeze(-1), [anyval(2, 3)]),
    ("squeeze_all", lambda x: x.squeeze(), [anyval(3, 1, 2)]),
    ("squeeze_dim", lambda x: x.squeeze(1), [anyval(3, 1, 2)]),
    ("expand", lambda x: x.expand(3, 4), [anyval(3, 1)]),
    ("expand_-1", lambda x: x.expand(2, -1, 4), [anyval(3, 1)]),
    ("expand_0d", lambda x: x.expand(3), [anyval()]),
    ("index_int", lambda x: x[0], [anyval(3, 4)]),
    ("index_negative", lambda x: x[-1], [anyval(3, 4)]),
    ("index_scalar", lambda x: x[1, 2], [anyval(3, 4)]),
    ("slice", lambda x: x[1:3], [anyval(4, 2)]),
    ("slice_column", lambda x: x[:, 1], [anyval(3, 4)]),
    ("slice_step", lambda x: x[::2], [anyval(5, 2)]),
    ("slice_step_2d", lambda x: x[1::2, ::3], [anyval(5, 7)]),
    ("index_ellipsis_none", lambda x: x[..., None], [anyval(2, 3)]),
    ("index_none", lambda x: x[None], [anyval(2, 3)]),
    ("index_twice_same_element", lambda x: x[0] * x[0] + x[1], [anyval(3, 2)]),
    ("clone", lambda x: x.clone() * 2, [anyval(2, 3)]),
    # ---- non-contiguous inputs ----
    ("t_then_mul", lambda x, y: x.t() * y, [anyval(2, 3), anyval(3, 2)]),
    ("t_then_exp", lambda x: x.t().exp(), [anyval(2, 3)]),
    ("t_then_sum_dim0", lambda x: x.t().sum(0), [anyval(2, 3)]),
    ("t_then_mean_keepdim", lambda x: x.t().mean(1, keepdim=True), [anyval(2, 3)]),
    ("t_then_reshape", lambda x: x.t().reshape(-1), [anyval(2, 3)]),
    ("t_then_mm", lambda a, b: a.t().mm(b), [anyval(3, 2), anyval(3, 4)]),
    ("mm_with_t_right", lambda a, b: a @ b.t(), [anyval(2, 3), anyval(4, 3)]),
    ("t_then_mv", lambda a, v: a.t().mv(v), [anyval(3, 2), anyval(3)]),
    ("t_then_norm", lambda x: x.t().norm(), [nonzero(2, 3)]),
    ("t_then_contiguous_view", lambda x: x.t().contiguous().view(-1), [anyval(2, 3)]),
    ("column_slice_then_dot", lambda x, y: x[:, 1].dot(y[1]), [anyval(3, 3), anyval(3, 3)]),
    ("strided_slice_then_log", lambda x: x[:, ::2].log(), [pos(2, 5)]),
    ("expand_then_mul", lambda x, y: x.expand(3, 4) * y, [anyval(3, 1), anyval(3, 4)]),
    ("expand_then_sum", lambda x: x.expand(2, 3).sum(0), [anyval(3)]),
    ("transpose_then_matmul_1d", lambda v, a: v @ a.transpose(0, 1), [anyval(2), anyval(3, 2)]),
    # ---- in-place ops on non-leaf tensors ----
    ("inplace_mul_", lambda x, y: (x * 1).mul_(y), [anyval(2, 3), anyval(2, 3)]),
    ("inplace_mul_bcast", lambda x, y: (x * 1).mul_(y), [anyval(3, 4), anyval(4)]),
    ("inplace_add_", lambda x, y: (x * 1).add_(y), [anyval(2, 3), anyval(2, 3)]),
    ("inplace_sub_", lambda x, y: (x * 1).sub_(y), [anyval(2, 3), anyval(2, 3)]),
    ("inplace_div_", lambda x, y: (x * 1).div_(y), [anyval(2, 3), nonzero(2, 3)]),
    ("inplace_mul_scalar", lambda x: (x * 1).mul_(C), [anyval(3)]),
    ("inplace_add_scalar", lambda x: (x * 1).add_(C), [anyval(3)]),
    ("inplace_iadd", _iadd, [anyval(2, 3), anyval(2, 3)]),
    ("inplace_isub", _isub, [anyval(2, 3), anyval(2, 3)]),
    ("inplace_imul", _imul, [anyval(2, 3), anyval(2, 3)]),
    ("inplace_idiv", _idiv, [anyval(2, 3), nonzero(2, 3)]),
    ("inplace_exp_", lambda x: (x * 1).exp_(), [anyval(3)]),
    ("inplace_log_", lambda x: (x * 1).log_(), [pos(3)]),
    ("inplace_sin_", lambda x: (x * 1).sin_(), [anyval(3)]),
    ("inplace_cos_", lambda x: (x * 1).cos_(), [anyval(3)]),
    ("inplace_tanh_", lambda x: (x * 1).tanh_(), [anyval(3)]),
    ("inplace_sigmoid_", lambda x: (x * 1).sigmoid_(), [anyval(3)]),
    ("inplace_relu_", lambda x: (x * 1).relu_(), [nonzero(3)]),
    ("inplace_abs_", lambda x: (x * 1).abs_(), [nonzero(3)]),
    ("inplace_sqrt_", lambda x: (x * 1).sqrt_(), [pos(3)]),
    ("inplace_neg_", lambda x: (x * 1).neg_(), [anyval(3)]),
    ("inplace_reciprocal_", lambda x: (x * 1).reciprocal_(), [nonzero(3)]),
    ("inplace_pow_", lambda x: (x * 1).pow_(3), [anyval(3)]),
    ("inplace_zero_", _zero_then_add, [anyval(3), anyval(3)]),
    ("inplace_fill_", _fill_then_mul, [anyval(3), anyval(3)]),
    ("inplace_copy_", _copy_into, [anyval(3), anyval(3)]),
    ("inplace_chain", _chain_inplace, [anyval(3), anyval(3)]),
    ("inplace_after_unsaving_use", _inplace_after_unsaving_use, [anyval(3), anyval(3)]),
    ("inplace_on_view_row", _inplace_on_view, [anyval(2, 3), anyval(3)]),
    ("inplace_on_view_slice", _inplace_on_slice, [anyval(3, 3), anyval(3, 2)]),
    # ---- compositions ----
    ("mlp_tanh", _mlp, [anyval(2, 3), anyval(3, 4), anyval(4), anyval(4, 2)]),
    ("softmax", _softmax, [anyval(2, 3)]),
    ("logsumexp", lambda x: x.exp().sum(1).log(), [anyval(2, 3)]),
    ("normalize", lambda x: x / x.norm(), [nonzero(4)]),
    ("mse", lambda p, y: ((p - y) ** 2).mean(), [anyval(5), anyval(5)]),
    (
        "bce_with_sigmoid",
        lambda z, y: -(y * z.sigmoid().log() + (1 - y) * (1 - z.sigmoid()).log()).mean(),
        [anyval(4), pos(4)],
    ),
    ("poly", lambda x: 3 * x**3 - 2 * x**2 + x - 5, [anyval(4)]),
    ("sin_cos_product", lambda x, y: (x.sin() * y.cos()).sum(0), [anyval(3, 2), anyval(2)]),
    ("sqrt_of_sum_squares", lambda x: (x * x).sum(1).sqrt(), [nonzero(3, 2)]),
]

CASE_IDS = [c[0] for c in CASES]
assert len(set(CASE_IDS)) == len(CASE_IDS), "duplicate case ids"


@pytest.mark.parametrize("case_id, fn, specs", CASES, ids=CASE_IDS)
def test_gradcheck(case_id, fn, specs):
    """First-order Jacobian of each op matches central finite differences (float64)."""
    gradcheck(fn, make_arrays(specs, seed=CASE_IDS.index(case_id)))


@pytest.mark.parametrize("case_id, fn, specs", CASES, ids=CASE_IDS)
def test_gradgradcheck(case_id, fn, specs):
    """Second order: the Jacobian of grad(f(x) . v, x) built with create_graph=True matches
    finite differences of that gradient."""
    gradgradcheck(fn, make_arrays(specs, seed=CASE_IDS.index(case_id)))


# --------------------------------------------------------------------------------------------
# sanity checks of the checker itself
# --------------------------------------------------------------------------------------------


def test_checker_catches_wrong_gradient():
    """The helper rejects a function whose gradient was deliberately detached away."""
    arrays = make_arrays([anyval(3)], seed=0)
    with pytest.raises(AssertionError):
        gradcheck(lambda x: x.detach() * x.detach() + x, arrays)


def test_gradgradcheck_catches_wrong_second_derivative():
    """The second-order helper rejects a function whose gradient is cut off from the graph."""
    arrays = make_arrays([anyval(3)], seed=2)
    with pytest.raises(AssertionError):
        gradgradcheck(lambda x: x * x.detach() ** 2, arrays)


def test_numerical_jacobian_of_known_function():
    """Finite differences of x**2 give diag(2x) (the reference side of the check is sound)."""
    (a,) = make_arrays([anyval(3)], seed=1)
    (jac,) = numerical_jacobian(lambda x: x * x, [a])
    np.testing.assert_allclose(jac, np.diag(2 * a), atol=1e-8)


@pytest.mark.parametrize(
    "data",
    [0.1, -0.7, [0.1, 1.0 / 3.0], [[1e-50, 1e300]], (0.1, 0.2)],
    ids=["scalar_0.1", "scalar_-0.7", "list", "nested_extremes", "tuple"],
)
def test_float64_tensor_from_python_floats_keeps_precision(data):
    """torch.tensor(python floats, dtype=float64) stores the exact float64 values (no float32
    round trip), as gradient checks in float64 rely on."""
    expected = np.array(data, dtype=np.float64)
    for requires_grad in (False, True):
        t = torch.tensor(data, dtype=torch.float64, requires_grad=requires_grad)
        assert t.dtype == torch.float64
        np.testing.assert_array_equal(t.detach().numpy(), expected)


def test_modifying_a_saved_tensor_raises():
    """Backward through an op whose saved input was later modified in place is an error."""
    x = torch.tensor([0.5, 1.0], dtype=torch.float64, requires_grad=True)
    z = x * 1
    w = z * z  # saves z
    z.mul_(2.0)
    with pytest.raises(RuntimeError):
        w.sum().backward()


# --------------------------------------------------------------------------------------------
# float32
# --------------------------------------------------------------------------------------------

F32_CASES = [
    ("add_bcast", lambda x, y: x + y, [(3, 1), (4,)]),
    ("sub_scalar_left", lambda x, y: (2.5 - x) * y, [(3,), (3,)]),
    ("mul_bcast", lambda x, y: x * y, [(4,), (3, 1)]),
    ("div_scalar", lambda x, y: x / 2.0 + 1.5 / y, [(3,), (3,)]),
    ("pow_scalar", lambda x, y: x**2 + y**0.5, [(3,), (3,)]),
    ("pow_tensor", lambda x, y: x**y, [(2, 3), (2, 3)]),
    (
        "unary_chain",
        lambda x, y: (x.exp() + y.log() + x.sin() * y.cos()).tanh().sigmoid(),
        [(3,), (3,)],
    ),
    ("relu_abs_sqrt", lambda x, y: x.relu() + y.abs().sqrt() + x.reciprocal(), [(3,), (3,)]),
    (
        "reductions",
        lambda x, y: x.sum(0) + y.mean(1, keepdim=True).sum() + x.norm(),
        [(3, 4), (2, 3)],
    ),
    ("mm", lambda a, b: a.mm(b), [(2, 3), (3, 4)]),
    ("mv_dot_outer", lambda a, v: a.mv(v).dot(a.mv(v)) + v.outer(v).sum(), [(2, 3), (3,)]),
    (
        "views",
        lambda x, y: x.t().reshape(-1)[::2].unsqueeze(0).expand(2, 3) * y[:, 1:2],
        [(2, 3), (2, 3)],
    ),
    ("inplace_non_leaf", lambda x, y: (x * 1).mul_(y).add_(1.0), [(2, 3), (2, 3)]),
]


@pytest.mark.parametrize("fn, shapes", [c[1:] for c in F32_CASES], ids=[c[0] for c in F32_CASES])
def test_float32_gradients_are_float32(fn, shapes):
    """float32 inputs (mixed with Python scalars) give float32 outputs and float32 gradients
    of the inputs' shapes, matching the float64 gradients to float32 precision."""
    rng = np.random.default_rng(0)
    arrays = [rng.uniform(0.5, 2.0, size=s) for s in shapes]
    x32 = [torch.tensor(a, dtype=torch.float32, requires_grad=True) for a in arrays]
    out32 = fn(*x32)
    assert out32.dtype == torch.float32
    out32.sum().backward()
    x64 = _as_tensors(arrays, True)
    fn(*x64).sum().backward()
    for t32, t64, a in zip(x32, x64, arrays):
        assert t32.grad is not None
        assert t32.grad.dtype == torch.float32
        assert tuple(t32.grad.shape) == a.shape
        assert t32.grad.numpy().dtype == np.float32
        np.testing.assert_allclose(t32.grad.numpy(), t64.grad.numpy(), rtol=1e-4, atol=1e-5)


def test_float32_autograd_grad_dtype():
    """autograd.grad on a float32 graph returns float32 gradients, also with create_graph."""
    x = torch.tensor([0.5, 1.0, 2.0], dtype=torch.float32, requires_grad=True)
    (g,) = torch.autograd.grad((x**3).sum(), x, create_graph=True)
    assert g.dtype == torch.float32
    (gg,) = torch.autograd.grad(g.sum(), x)
    assert gg.dtype == torch.float32
    np.testing.assert_allclose(gg.numpy(), 6 * np.array([0.5, 1.0, 2.0]), rtol=1e-6)
