"""Single behaviours found by the differential fuzzer, each checked against the value PyTorch 2.15
gives (recorded by running this file with ``import torch``): gradients at NaN and infinite
inputs, gradients of overwritten elements, where ``retain_grad`` goes after an in-place op,
which results are views, and special functions at their poles."""

import math
import weakref

import ferrograd as torch
import pytest

nan, inf = math.nan, math.inf


def grad_of(f, values, dtype=torch.float64):
    x = torch.tensor(values, dtype=dtype, requires_grad=True)
    f(x).sum().backward()
    return x.grad.tolist()


def same(a, b):
    return len(a) == len(b) and all(
        (math.isnan(p) and math.isnan(q)) or p == q for p, q in zip(a, b)
    )


def test_relu_passes_the_gradient_of_a_nan_output():
    # PyTorch's threshold_backward zeroes where the output is <= 0; NaN is not
    assert same(grad_of(torch.relu, [nan, -1.0, 0.0, 2.0]), [1.0, 0.0, 0.0, 1.0])


def test_clamp_with_one_bound_tests_only_that_bound():
    assert same(grad_of(lambda x: x.clamp(max=-0.5), [-inf, -0.5, 0.3]), [1.0, 0.0, 0.0])
    assert same(grad_of(lambda x: x.clamp(min=-0.5), [inf, -0.5, -1.0]), [1.0, 0.0, 0.0])


def test_elu_passes_nan_and_has_no_second_derivative_at_zero():
    import ferrograd.nn.functional as F

    x = torch.tensor([-1.0, 0.0, 1.0, nan], dtype=torch.float64, requires_grad=True)
    (g,) = torch.autograd.grad(F.elu(x).sum(), x, create_graph=True)
    assert g.grad_fn.name() == "EluBackwardBackward0"
    assert same(g.tolist(), [math.exp(-1.0), 1.0, 1.0, 1.0])
    (gg,) = torch.autograd.grad((g * g).sum(), x)
    assert same(gg.tolist(), [2 * math.exp(-2.0), 0.0, 0.0, 0.0])


def test_amax_of_a_nan_lane_gives_nan_gradients_max_does_not():
    assert same(grad_of(lambda x: x.amax(), [1.0, nan, 2.0]), [nan, nan, nan])
    assert same(grad_of(lambda x: x.amax(dim=0), [1.0, nan, 2.0]), [nan, nan, nan])
    assert same(grad_of(lambda x: x.max(), [1.0, nan, 2.0]), [0.0, 1.0, 0.0])


def test_amin_of_a_0d_tensor_is_not_an_alias():
    x = torch.tensor(-2.5)
    y = torch.amin(x)
    y.fill_(3.0)
    assert x.item() == -2.5


def test_overwritten_elements_get_zero_gradient_even_when_the_rest_is_nan():
    x = torch.tensor([[-0.921, 0.444, 1.0]], requires_grad=True)
    v = x.lgamma()
    v[torch.tensor([0])] = torch.tensor([[1.814, 1.23, 0.435]])
    torch.asin(v).sum().backward()  # asin(>1) is NaN with a NaN gradient
    assert [abs(g) for g in x.grad.tolist()[0]] == [0.0, 0.0, 0.0]
    x = torch.tensor([1.236, nan, 1.51], dtype=torch.float64, requires_grad=True)
    v = x * 1
    v[0:1] = torch.tensor([-0.123], dtype=torch.float64)
    v.rsqrt().sum().backward()
    assert same([round(g, 4) for g in x.grad.tolist()], [0.0, nan, -0.2695])


def test_repeat_result_is_not_a_view_so_assignment_keeps_its_history():
    x = torch.tensor([-0.005, 0.34, 0.876], dtype=torch.float64, requires_grad=True)
    v = x.repeat(2)
    assert v._base is None
    v[3] = 3
    assert v.grad_fn.name() == "torch::autograd::CopySlices"
    assert v.grad_fn.next_functions[0][0].name() == "RepeatBackward0"
    v.sum().backward()
    assert x.grad.tolist() == [1.0, 2.0, 2.0]


@pytest.mark.parametrize(
    "op",
    [
        lambda x: x.amax(dim=1),
        lambda x: x.amin(),
        lambda x: x.logsumexp(dim=1),
        lambda x: x.reshape(2, 3, 2) @ x.reshape(2, 2, 3),
        lambda x: x.detach(),
        lambda x: x[0].detach(),
    ],
)
def test_results_of_computing_ops_are_not_views(op):
    x = torch.rand(3, 4, dtype=torch.float64, requires_grad=True)
    assert op(x)._base is None


def test_retain_grad_follows_the_tensor_through_an_in_place_op():
    x = torch.tensor([0.522, -0.722, 0.054], dtype=torch.float64, requires_grad=True)
    v = torch.maximum(torch.tensor([1.101, 2.998, 0.541], dtype=torch.float64), x)
    v.retain_grad()
    v.div_(0.5)
    v.sum().backward()
    assert v.grad.tolist() == [1.0, 1.0, 1.0]  # the gradient of the value after div_
    assert x.grad.tolist() == [0.0, 0.0, 0.0]


def test_detach_of_a_view_is_not_regenerated_by_a_write_to_its_base():
    x = torch.ones(3, requires_grad=True)
    y = x * 1
    d = y[1:].detach()
    y.mul_(2)
    assert not d.requires_grad and d.grad_fn is None
    d.add_(1)  # an untracked write through the detached alias
    assert y.tolist() == [2.0, 3.0, 3.0] and y.grad_fn.name() == "MulBackward0"


def test_view_of_a_non_contiguous_tensor_where_no_copy_is_needed():
    x = torch.arange(24.0).reshape(2, 3, 4).clone()
    v = x[:, 1].view(2, 2, 2)  # rows of 4 at stride 12: each row splits without a copy
    assert v._base is x
    assert v.tolist() == [[[4.0, 5.0], [6.0, 7.0]], [[16.0, 17.0], [18.0, 19.0]]]
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        x[:, 1].view(8)  # merging the rows would need a copy
    w = x.permute(1, 0, 2)[0].view(2, 2, 2)
    assert w.tolist() == [[[0.0, 1.0], [2.0, 3.0]], [[12.0, 13.0], [14.0, 15.0]]]
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        x.transpose(1, 2).view(24)


def test_polygamma_at_the_poles_is_huge_and_finite_as_pytorch():
    # the reflection formula with sin(pi x) rounded in the input's precision
    assert torch.polygamma(1, torch.tensor([-1.0])).tolist() == [1291369695936512.0]
    x = torch.tensor([-1.0, -3.0], dtype=torch.float64)
    assert torch.polygamma(1, x).tolist() == [6.580790147320947e32, 7.311989052578831e31]
    y = torch.polygamma(2, torch.tensor([inf, -inf, -3.0, -2.5], dtype=torch.float64))
    assert same(y.tolist()[:3], [nan, -inf, -inf]) and abs(y.tolist()[3] + 0.1082) < 1e-4
    assert torch.polygamma(0, x.requires_grad_()).grad_fn.name() == "PolygammaBackward0"


def test_prod_of_a_0d_tensor_passes_the_gradient_untouched():
    x = torch.tensor(0.928, dtype=torch.float64, requires_grad=True)
    (g,) = torch.autograd.grad(x.prod(dim=-1).sum(), [x], create_graph=True)
    assert g.item() == 1.0 and not g.requires_grad


def test_cat_gives_a_1d_empty_input_a_gradient_without_history():
    e = torch.zeros(0, dtype=torch.float64, requires_grad=True)
    x = torch.tensor([1.0, 2.0], dtype=torch.float64)
    (g,) = torch.autograd.grad(torch.tan(torch.cat((x, e))).sum(), [e], create_graph=True)
    assert g.shape == (0,) and not g.requires_grad


def test_second_derivative_of_division_at_a_zero_divisor_is_infinite():
    a = torch.tensor([[1.534, 0.0]], requires_grad=True)
    b = torch.tensor([[-1.312]])
    (g,) = torch.autograd.grad(torch.div(b, a).sum(), [a], create_graph=True)
    (gg,) = torch.autograd.grad((g * g).sum(), [a])
    assert gg.tolist()[0][1] == -inf


def test_full_slice_assignment_writes_into_the_tensor_itself():
    # PyTorch's slice optimization: `v[:] = t` is `v.copy_(t)`, no CopySlices
    for index in (slice(None), ..., (slice(0, 3), slice(None))):
        x = torch.ones(3, 2, requires_grad=True)
        v = x * 2
        v[index] = torch.zeros(3, 2)
        assert v.grad_fn.name() == "torch::autograd::CopyBackwards"
    x = torch.tensor([0.5, 1.5], dtype=torch.float64, requires_grad=True)
    w = torch.tensor([2.0], dtype=torch.float64, requires_grad=True)
    v = torch.cat((x, x))
    v[:] = torch.tensor([1.0, 2.0, 3.0, 4.0], dtype=torch.float64)
    (g,) = torch.autograd.grad((v * w).sum(), [x], create_graph=True)
    assert g.tolist() == [0.0, 0.0] and not g.requires_grad


def test_pow_by_half_and_minus_half_are_sqrt_and_rsqrt():
    x = torch.tensor([-inf, -0.0, 4.0], dtype=torch.float64)
    assert same((x**0.5).tolist(), [nan, -0.0, 2.0])
    assert same((x**-0.5).tolist(), [nan, -inf, 0.5])


def test_pow_by_a_zero_exponent_tensor_has_zero_gradient_even_for_nan():
    x = torch.tensor([-2.151, 4.0], requires_grad=True)
    e = torch.tensor([0.0, 1.5])
    y = torch.pow(x, e) * torch.tensor([nan, 1.0])
    y.sum().backward()
    assert same(x.grad.tolist(), [0.0, 3.0])  # not NaN * 0 at the zero exponent


def test_logit_with_eps_at_nan_depends_on_create_graph_as_in_pytorch():
    def grad(create_graph):
        x = torch.tensor([nan, 0.5, 2.0], requires_grad=True)
        (g,) = torch.autograd.grad(torch.logit(x, 0.001).sum(), [x], create_graph=create_graph)
        return g.tolist()

    assert same(grad(False), [nan, 4.0, 0.0])  # the kernel: NaN is not outside [eps, 1-eps]
    assert same(grad(True), [0.0, 4.0, 0.0])  # the differentiable where: NaN is not inside


def test_norm_second_derivative_at_zero_is_nan_as_pytorch():
    x = torch.tensor([[0.0, 0.0]], dtype=torch.float64, requires_grad=True)
    (g,) = torch.autograd.grad(x.norm(dim=1).sum(), [x], create_graph=True)
    assert g.tolist() == [[0.0, 0.0]]
    (gg,) = torch.autograd.grad((g * g).sum(), [x])
    assert all(math.isnan(v) for v in gg.tolist()[0])


def test_atan2_at_the_origin():
    x = torch.tensor([0.0, 1.0], requires_grad=True)
    (g,) = torch.autograd.grad(torch.atan2(x, x).sum(), [x], create_graph=True)
    assert g.tolist() == [0.0, 0.0]
    (gg,) = torch.autograd.grad((g * g).sum(), [x])
    assert same(gg.tolist(), [nan, 0.0])


def test_var_without_degrees_of_freedom_has_a_constant_gradient():
    x = torch.tensor([[inf]], dtype=torch.float64, requires_grad=True)
    (g,) = torch.autograd.grad(torch.var(x), [x], create_graph=True)
    assert same(g.tolist()[0], [nan]) and not g.requires_grad
    y = torch.tensor([2.0], dtype=torch.float64, requires_grad=True)
    (g,) = torch.autograd.grad(torch.var(y), [y])
    assert same(g.tolist(), [nan])


def test_max_shares_a_nan_gradient_only_with_the_maxima():
    x = torch.tensor([0.518, 1.913, -2.0], requires_grad=True)
    x.max().logit().backward()  # logit(1.913) is NaN, and so is its gradient
    assert same(x.grad.tolist(), [0.0, nan, 0.0])


def test_vector_matrix_product_is_not_a_view():
    v = torch.tensor([1.0, 2.0], requires_grad=True)
    m = torch.ones(2, 3, requires_grad=True)
    y = v @ m
    assert y._base is None and y.grad_fn.name() == "SqueezeBackward4"
    w = torch.tensor([1.0, 0.0, 2.0], requires_grad=True)
    y.zero_()
    gs = torch.autograd.grad((w @ y).sum(), [v, m, w], create_graph=True)
    terms = sum((g * g).sum() for g in gs if g.requires_grad)
    # zero_ cut y from v and m: nothing of the first-order gradients depends on w
    assert torch.autograd.grad(terms, [w], allow_unused=True) == (None,)


def test_negation_and_abs_of_zero_keep_ieee_signs():
    z = torch.tensor([0.0, -0.0])
    assert [math.copysign(1.0, v) for v in (-z).tolist()] == [-1.0, 1.0]
    assert torch.atan2(-z[:1], -z[:1]).item() == pytest.approx(-math.pi)
    assert [math.copysign(1.0, v) for v in z.abs().tolist()] == [1.0, 1.0]


def test_softplus_second_derivative_is_zero_from_the_threshold_on():
    import ferrograd.nn.functional as F

    x = torch.tensor([0.5, 1.0, 2.0], dtype=torch.float64, requires_grad=True)
    (g,) = torch.autograd.grad(F.softplus(x, beta=1.0, threshold=1.0).sum(), [x], create_graph=True)
    assert g.grad_fn.name() == "SoftplusBackwardBackward0"
    s = 1 / (1 + math.exp(-0.5))
    assert g.tolist() == pytest.approx([s, 1 / (1 + math.exp(-1.0)), 1.0])
    (gg,) = torch.autograd.grad(g.sum(), [x])
    assert gg.tolist() == pytest.approx([s * (1 - s), 0.0, 0.0])


def test_a_product_saves_each_operand_only_for_the_other_gradient():
    x1 = torch.tensor([[-0.314, -1.236, -2.0]], requires_grad=True)
    v2 = x1.sign()
    v5 = torch.matmul(v2, torch.tensor([0.0, -2.411, 0.845]))
    v2.sub_(torch.tensor([[1.172, 2.918, 1.372]]))  # v2 is not saved: the vector needs no grad
    v5.sum().backward()
    assert x1.grad.tolist() == [[0.0, 0.0, 0.0]]


def test_frobenius_norm_over_more_than_two_dims_is_refused():
    x = torch.ones(2, 2, 1)
    with pytest.raises(RuntimeError, match="dim must be a 2-tuple"):
        x.norm(p="fro", dim=(0, 2, 1))
    assert x.norm(p="fro", dim=(0, 1)).tolist() == [2.0]


def test_maximum_of_equal_infinities_is_a_tie():
    x = torch.tensor([-math.inf, 1.0, math.inf], requires_grad=True)
    torch.maximum(x, x).sum().backward()
    assert x.grad.tolist() == [1.0, 1.0, 1.0]  # half to each side, both sides are x


def test_prod_over_a_dim_of_one_with_zeros_passes_the_gradient():
    x = torch.tensor([[math.nan, 0.0, -0.626]], requires_grad=True)
    (g,) = torch.autograd.grad(x.prod(dim=0).sum(), [x], create_graph=True)
    assert g.tolist() == [[1.0, 1.0, 1.0]] and not g.requires_grad


def test_repr_width_comes_from_the_nonzero_finite_values_only():
    """PyTorch 2.15's reprs: infinities, NaN and zeros never widen the columns."""
    nan, inf = float("nan"), float("inf")
    cases = {
        (nan, inf, 0.0): "tensor([nan, inf, 0.])",
        (nan, 1.0, 10.0): "tensor([nan,  1., 10.])",
        (inf, -inf, 0.0): "tensor([inf, -inf, 0.])",
        (-inf, 1.0): "tensor([-inf, 1.])",
        (inf, 0.25, 100.0): "tensor([     inf,   0.2500, 100.0000])",
    }
    for values, text in cases.items():
        assert repr(torch.tensor(list(values))) == text


def test_size_slices_and_sums_stay_sizes():
    # PyTorch 2.15: torch.Size([2, 3, 4])[1:] -> torch.Size([3, 4]); s + (5,), (1,) + s, s * 2
    # and 2 * s are Sizes too; an element is an int; a Size equals and hashes as its tuple
    s = torch.zeros(2, 3, 4).shape
    assert repr(s[1:]) == "torch.Size([3, 4])"
    assert repr(s + (5,)) == "torch.Size([2, 3, 4, 5])"  # noqa: RUF005 (the operator itself)
    assert repr((1,) + s) == "torch.Size([1, 2, 3, 4])"  # noqa: RUF005
    assert repr(s * 2) == repr(2 * s) == repr(s + s) == "torch.Size([2, 3, 4, 2, 3, 4])"
    assert type(s[0]) is int and s[-1] == 4
    assert s == (2, 3, 4) and hash(s) == hash((2, 3, 4))
    assert (s.count(2), s.index(3), s.numel()) == (1, 1, 24)


def test_swap_module_params_switch_swaps_parameter_contents():
    # PyTorch swaps each parameter's contents (torch.utils.swap_tensors) when this is on: the
    # Parameter objects stay; one with a weak reference cannot be swapped, and the module says
    # which
    m = torch.nn.Linear(2, 2)
    w = m.weight
    torch.__future__.set_swap_module_params_on_conversion(True)
    try:
        assert torch.__future__.get_swap_module_params_on_conversion() is True
        m.double()
        assert m.weight is w and w.dtype is torch.float64
        ref = weakref.ref(w)
        with pytest.raises(RuntimeError, match=r"^_apply\(\): Couldn't swap Linear.weight$"):
            m.float()
        assert w.dtype is torch.float64 and ref() is w
    finally:
        torch.__future__.set_swap_module_params_on_conversion(False)


def test_nn_modules_utils_helpers():
    # PyTorch 2.15 gives these (torch.nn.modules.utils), including the metadata key 'module'
    # becoming '' (then overwriting the DDP wrapper's own '' entry)
    from collections import OrderedDict

    from ferrograd.nn.modules.utils import (
        _pair,
        _reverse_repeat_tuple,
        _triple,
        consume_prefix_in_state_dict_if_present,
    )

    d = OrderedDict([("module.a", 1), ("b", 2)])
    d._metadata = {"": {}, "module": {}, "module.x": {}}
    consume_prefix_in_state_dict_if_present(d, "module.")
    assert list(d.items()) == [("b", 2), ("a", 1)]
    assert list(d._metadata) == ["", "x"]
    assert _pair(3) == (3, 3) and _triple([1, 2, 3]) == (1, 2, 3)
    assert _reverse_repeat_tuple((1, 2), 2) == (2, 2, 1, 1)


def test_scheduler_stepped_before_the_optimizer_warns_as_pytorch():
    # PyTorch 2.15 warns once, at the scheduler's second step, if the optimizer never stepped
    opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)
    sched = torch.optim.lr_scheduler.StepLR(opt, 1)
    with pytest.warns(UserWarning, match="before `optimizer.step\\(\\)`"):
        sched.step()
    opt2 = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)
    sched2 = torch.optim.lr_scheduler.StepLR(opt2, 1)
    opt2.step()
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sched2.step()


def test_return_types_print_and_pickle_as_pytorchs():
    # PyTorch 2.15: print(torch.ones(2, 3).max(1)) and torch.aminmax(torch.ones(2))
    import pickle

    r = torch.ones(2, 3).max(1)
    assert repr(r) == str(r) == (
        "torch.return_types.max(\nvalues=tensor([1., 1.]),\nindices=tensor([0, 0]))"
    )
    assert repr(torch.aminmax(torch.ones(2))) == (
        "torch.return_types.aminmax(\nmin=tensor(1.),\nmax=tensor(1.))"
    )
    back = pickle.loads(pickle.dumps(r))
    assert type(back) is torch.return_types.max and back.indices.tolist() == [0, 0]


def test_tensor_reads_any_sequence_as_pytorch():
    # PyTorch 2.15: a deque, a range and mixed sequences are data; a string is refused, and a
    # string inside a sequence is "too many dimensions"
    import collections

    assert torch.tensor(collections.deque([1.0, 2.0])).tolist() == [1.0, 2.0]
    r = torch.tensor(range(3))
    assert r.tolist() == [0, 1, 2] and r.dtype == torch.int64
    assert torch.tensor([range(2), (3, 4)]).tolist() == [[0, 1], [3, 4]]
    with pytest.raises(TypeError, match="invalid data type 'str'"):
        torch.tensor("abc")
    with pytest.raises(ValueError, match="too many dimensions 'str'"):
        torch.tensor(["a"])


def test_generators_live_in_c():
    # PyTorch: repr(torch.Generator()) starts with "<torch._C.Generator object"
    assert repr(torch.Generator()).startswith("<torch._C.Generator object at 0x")
    assert type(torch.Generator()).__module__ == "ferrograd._C"
    assert torch._C.Generator is torch.Generator


def test_node_hook_returning_the_wrong_count_names_the_hook():
    x = torch.ones(2, requires_grad=True)
    z = x * 3

    def myhook(grad_outputs):
        return (grad_outputs[0], grad_outputs[0])

    z.grad_fn.register_prehook(myhook)
    with pytest.raises(RuntimeError, match=r"hook 'myhook' has returned an incorrect number of "
                       r"values \(got 2, but expected 1\)"):  # fmt: skip
        z.sum().backward()
