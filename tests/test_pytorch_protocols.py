"""Behaviours of the issue "Same answers as PyTorch" beyond values: what PyTorch refuses and
accepts, the Python protocols (pickle, deepcopy, ``del``), grad-mode decorators on generators,
hooks (on ``unbind`` outputs, changing the dtype, in reference cycles), ``backward(inputs=)``.
Every assertion holds under PyTorch 2.15 too (checked by running this file with ``torch``)."""

import copy
import gc
import math
import pickle
import weakref

import ferrograd as torch
import pytest


def test_in_place_on_an_expanded_tensor_is_refused_and_changes_nothing():
    base = torch.ones(3)
    x = base.expand(2, 3)
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        x.add_(1)
    assert base.tolist() == [1.0, 1.0, 1.0] and base._version == 0


def test_copy_between_partly_overlapping_views_is_refused():
    x = torch.arange(6.0)
    with pytest.raises(RuntimeError, match="some elements of the input tensor and the written-to"):
        x[1:].copy_(x[:-1])
    assert x.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    x.add_(x)  # the same elements: fine
    assert x.tolist() == [0.0, 2.0, 4.0, 6.0, 8.0, 10.0]


# (shape, op, whether PyTorch 2.15 refuses it as a partial overlap)
SAME_RANGE_CASES = [
    ((3,), lambda x: x.unsqueeze(0).add_(x), True),
    ((1, 3), lambda y: y.sub_(y[0]), True),
    ((1, 1), lambda u: u.add_(u.view(1)), True),
    ((1, 1), lambda u: u.add_(u[0, 0]), True),
    ((1, 1), lambda u: u.add_(u.t()), False),
    ((2, 3), lambda w: w.add_(w.view(2, 3)), False),
    ((2, 3), lambda w: w[0].add_(w[0]), False),
    ((3, 1), lambda v: v.add_(v.squeeze(1).unsqueeze(1)), False),
]


@pytest.mark.parametrize("shape,op,refused", SAME_RANGE_CASES)
def test_an_input_over_the_same_elements_with_other_strides_is_a_partial_overlap(
    shape, op, refused
):
    """PyTorch compares the strides of two tensors over the same memory range as they are: only
    equal strides are the same elements in the same order (size-1 dimensions included)."""
    t = torch.randn(*shape)
    before = t.tolist()
    if refused:
        with pytest.raises(RuntimeError, match="some elements of the input tensor and the"):
            op(t)
        assert t.tolist() == before
    else:
        op(t)


def test_an_in_place_change_to_an_input_that_no_running_formula_reads_is_no_error():
    """hypot's gradient for each input reads only that input (and the output): PyTorch saves
    an input only when it needs a gradient, so changing the other one in place is fine."""
    x = torch.tensor([3.0, 5.0], requires_grad=True)
    c = torch.tensor([4.0, 12.0])
    out = torch.hypot(c, x)
    c.clamp_(max=1.0)
    out.sum().backward()
    assert x.grad.tolist() == pytest.approx([3.0 / 5.0, 5.0 / 13.0])
    y = torch.tensor([3.0, 5.0], requires_grad=True)
    d = torch.tensor([4.0, 12.0], requires_grad=True) * 1.0
    out = torch.hypot(y, d)
    d.mul_(2.0)  # d needs a gradient: its formula reads it, so the change is refused
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


def test_data_is_an_untracked_alias_and_can_be_assigned():
    x = torch.ones(2, requires_grad=True)
    d = x.data
    assert not d.requires_grad and d.grad_fn is None
    d.add_(1)
    assert x.tolist() == [2.0, 2.0]
    x.data = torch.zeros(2)
    assert x.tolist() == [0.0, 0.0] and x.requires_grad and x.is_leaf


def test_writes_through_data_have_their_own_version_counter():
    x = torch.ones(2, requires_grad=True)
    y = (x * x).sum()  # saves x
    d = x.data
    d.add_(1)  # not seen by the saved-tensor check: backward uses the new values
    assert x._version == 0 and d._version == 1
    y.backward()
    assert x.grad.tolist() == [4.0, 4.0]
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z = (x * x).sum()
        with torch.no_grad():
            x.add_(1)  # through x itself it is seen
        z.backward()


def test_grad_mode_decorators_apply_inside_generators():
    @torch.no_grad()
    def no_grad_steps():
        yield torch.is_grad_enabled()
        yield torch.is_grad_enabled()

    @torch.enable_grad()
    def grad_steps():
        yield torch.is_grad_enabled()

    steps = no_grad_steps()
    assert next(steps) is False
    assert torch.is_grad_enabled()  # the caller's mode between steps
    assert next(steps) is False
    with torch.no_grad():
        assert list(grad_steps()) == [True]


def test_a_hook_on_an_unused_unbind_output_is_called_with_none():
    x = torch.ones(2, 3, requires_grad=True)
    a, b = x.unbind(0)
    seen = []
    a.register_hook(lambda g: seen.append(g))
    (b * 2).sum().backward()
    assert seen == [None]
    assert x.grad.tolist() == [[0.0, 0.0, 0.0], [2.0, 2.0, 2.0]]


def test_a_hook_may_not_change_the_dtype_or_shape():
    x = torch.ones(2, requires_grad=True)
    y = x * 2
    y.register_hook(lambda g: g.double())
    with pytest.raises(RuntimeError, match="has changed the type of value"):
        y.sum().backward()
    z = x * 2
    z.register_hook(lambda g: g.sum())
    with pytest.raises(RuntimeError, match="has changed the size of value"):
        z.sum().backward()


def test_a_hook_that_captures_its_tensor_is_collected():
    x = torch.ones(10, requires_grad=True)
    x.register_hook(lambda g, x=x: g * x)
    alive = weakref.ref(x)
    del x
    gc.collect()
    assert alive() is None


def test_backward_with_inputs_accumulates_only_into_them():
    x = torch.ones(2, requires_grad=True)
    w = torch.full((2,), 3.0, requires_grad=True)
    y = x * w
    (y * y).sum().backward(inputs=[x, y])
    assert x.grad.tolist() == [18.0, 18.0] and w.grad is None
    assert y.grad.tolist() == [6.0, 6.0]  # a non-leaf input gets its .grad too
    x.grad = None
    torch.autograd.backward([(x * w).sum()], inputs=[w])
    assert w.grad.tolist() == [1.0, 1.0] and x.grad is None


def test_pickle_and_deepcopy_keep_values_dtype_requires_grad_and_class():
    x = torch.tensor([[1.5, -2.0]], dtype=torch.float64, requires_grad=True)
    y = pickle.loads(pickle.dumps(x))
    assert y.tolist() == [[1.5, -2.0]] and y.dtype == torch.float64 and y.requires_grad
    p = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
    q = pickle.loads(pickle.dumps(p))
    assert isinstance(q, torch.nn.Parameter) and q.tolist() == [1.0, 2.0]
    assert pickle.loads(pickle.dumps(torch.float32)) == torch.float32
    x.sum().backward()
    z = copy.deepcopy(x)
    assert z is not x and z.tolist() == x.tolist() and z.requires_grad
    assert z.grad.tolist() == [[1.0, 1.0]] and z.grad is not x.grad
    assert isinstance(copy.deepcopy(p), torch.nn.Parameter)
    with pytest.raises(RuntimeError, match="graph leaves"):
        copy.deepcopy(x * 2)


def test_del_grad_clears_it():
    x = torch.ones(2, requires_grad=True)
    x.sum().backward()
    del x.grad
    assert x.grad is None


def test_extra_grad_outputs_are_ignored_as_pytorch_zips_them():
    x = torch.ones(2, requires_grad=True)
    (g,) = torch.autograd.grad([x * 2], [x], grad_outputs=[torch.ones(2), torch.ones(2)])
    assert g.tolist() == [2.0, 2.0]
    with pytest.raises(TypeError):
        torch.autograd.grad([(x * 2).sum()], [x], grad_outputs=[1])


def test_nan_and_infinity_cast_to_int64_as_on_x86():
    t = torch.tensor([math.nan, math.inf, -math.inf, 2.7, -2.7]).long()
    assert t.tolist() == [-(2**63), -(2**63), -(2**63), 2, -2]


def test_subtraction_with_a_bool_operand_is_refused():
    for f in (lambda: True - torch.ones(2), lambda: torch.ones(2) - True):
        with pytest.raises(NotImplementedError, match="with a bool tensor is not supported"):
            f()


def test_devices_other_than_the_cpu_are_refused():
    x = torch.ones(2)
    assert x.to("cpu") is x
    for device in ("cuda", "cuda:0", "foo"):
        with pytest.raises(RuntimeError):
            x.to(device)
    with pytest.raises(RuntimeError):
        torch.zeros(2, device="cuda")


def test_an_optimizer_needs_parameters():
    with pytest.raises(ValueError, match="empty parameter list"):
        torch.optim.SGD([], lr=0.1)


def test_a_0d_bool_mask_adds_a_dimension_and_repeated_ellipses_are_accepted():
    x = torch.ones(3)
    assert tuple(x[torch.tensor(True)].shape) == (1, 3)
    assert tuple(x[torch.tensor(False)].shape) == (0, 3)
    assert tuple(torch.ones(2, 3)[..., ...].shape) == (2, 3)


def test_views_made_under_no_grad_may_not_be_written_with_grad_mode_on():
    x1 = torch.tensor(-1.451)
    x10 = torch.tensor(2.0, requires_grad=True)
    with torch.no_grad():
        v4 = x1.permute([])
    with pytest.raises(RuntimeError, match="A view was created in no_grad mode and is being"):
        v4.add_(x10)
    assert x1.item() == pytest.approx(-1.451)
    x = torch.ones(3)
    with torch.no_grad():
        v = x[0:2]
    v.add_(1)  # nothing requires grad: allowed
    assert x.tolist() == [2.0, 2.0, 1.0]


def test_views_made_under_no_grad_are_invalid_after_their_base_is_written():
    w = torch.ones(3, requires_grad=True)
    with torch.no_grad():
        v = w[0]
        w.add_(1)
    assert "grad_fn=<Invalid>" in repr(v)
    with pytest.raises(RuntimeError, match="its base or another view of its base has been"):
        _ = v.grad_fn
    w = torch.ones(3, requires_grad=True)
    with torch.no_grad():
        u = w[0:2]
        w.add_(1)
    with pytest.raises(RuntimeError, match="created in no_grad mode"):
        y = u * 2  # PyTorch raises here already; ferrograd when the gradient is taken
        y.sum().backward()


def test_outputs_of_split_and_unbind_are_invalid_after_their_base_is_written():
    x = torch.ones(4, requires_grad=True) * 1
    a, _b = x.split(2)
    x.mul_(2)
    with pytest.raises(RuntimeError, match="Output 0 of Split is a view and its base"):
        _ = a.grad_fn
    x3 = torch.tensor([1.609, 0.397, 2.0], requires_grad=True)
    _p, q, _r = x3.unbind(0)
    with torch.no_grad():
        x3.div_(2)
    with pytest.raises(RuntimeError, match="Output 1 of Unbind is a view"):
        _ = q.grad_fn


def test_an_in_place_write_into_a_saved_result_is_detected():
    x2 = torch.tensor([[0.5]])
    x5 = torch.tensor(2.951, requires_grad=True)
    v = x2.pow_(x5)  # saves its result, x2 itself
    v.hypot_(x5)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        v.sum().backward()
    x = torch.tensor([3.0, 1.0, 2.0], requires_grad=True)
    m = torch.amin(x * 1)  # amin saves its result
    m.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        m.backward()


def test_nan_and_infinity_are_refused_when_building_an_int64_tensor():
    for value in (math.nan, math.inf, 2.0**64):
        with pytest.raises(RuntimeError, match="converted to type int64 without overflow"):
            torch.tensor([value, 1.5], dtype=torch.int64)
    assert torch.tensor([2.7, -1.5], dtype=torch.int64).tolist() == [2, -1]


def test_review_cases_inputs_listed_twice_overlap_with_alpha_and_transposed_and_fill():
    x = torch.ones(2, requires_grad=True)
    (x * 3).sum().backward(inputs=[x, x])
    assert x.grad.tolist() == [3.0, 3.0]  # accumulated once
    y = torch.arange(4.0)
    with pytest.raises(RuntimeError, match="some elements of the input tensor"):
        y[1:].add_(y[:-1], alpha=2)
    m = torch.arange(4.0).reshape(2, 2)
    with pytest.raises(RuntimeError, match="some elements of the input tensor"):
        m.add_(m.t())
    e = torch.zeros(3).expand(2, 3)
    e.fill_(1.0)  # fill_ is exempt from the expanded-tensor check, as PyTorch
    assert e.tolist() == [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]


def test_deepcopy_of_a_parameter_leaves_its_grad_behind():
    p = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
    p.sum().backward()
    q = copy.deepcopy(p)
    assert isinstance(q, torch.nn.Parameter) and q.grad is None and q.tolist() == [1.0, 2.0]


def test_format_of_a_0d_tensor_formats_its_value():
    loss = torch.tensor(1.23456)
    assert f"{loss:.2f}" == "1.23" and f"{torch.tensor(3)}" == "3"
    assert f"{torch.tensor([1.0, 2.0])}" == str(torch.tensor([1.0, 2.0]))
    with pytest.raises(TypeError):
        f"{torch.tensor([1.0, 2.0]):.2f}"
    with pytest.raises(TypeError):
        f"{torch.nn.Parameter(torch.tensor(1.0)):.2f}"


def test_isclose_allclose_and_equal_as_pytorch():
    a = torch.tensor([1.0, math.nan, math.inf, 1.0])
    b = torch.tensor([1.00001, math.nan, math.inf, 1.1])
    assert torch.isclose(a, b, equal_nan=True).tolist() == [False, True, True, False]
    assert a.isclose(b).tolist() == [False, False, True, False]
    assert torch.isclose(torch.tensor([1, 2]), torch.tensor([1, 3])).tolist() == [True, False]
    assert torch.allclose(torch.ones(2), torch.ones(2) + 1e-9) is True
    assert torch.ones(2).allclose(torch.ones(2) * 1.1) is False
    assert torch.equal(torch.ones(2), torch.ones(2, dtype=torch.float64)) is True
    assert torch.equal(torch.ones(2), torch.ones(3)) is False
    assert torch.tensor([math.nan]).equal(torch.tensor([math.nan])) is False
    with pytest.raises(RuntimeError, match="Float did not match Double"):
        torch.isclose(torch.ones(2), torch.ones(2, dtype=torch.float64))
    with pytest.raises(RuntimeError, match="rtol must be greater than or equal to zero"):
        torch.isclose(torch.ones(2), torch.ones(2), rtol=-1)


def test_randint_and_randperm_arguments_as_pytorch():
    assert torch.randint(0, 10, (2, 3)).dtype == torch.int64
    assert torch.randint(3, (4,), dtype=torch.float32).dtype == torch.float32
    assert torch.randperm(0).tolist() == []
    assert sorted(torch.randperm(9).tolist()) == list(range(9))
    with pytest.raises(RuntimeError, match="expects 'from' to be less than 'to'"):
        torch.randint(5, 5, (2,))


def test_pickled_model_and_optimizer_resume_identically():
    """A (model, optimizer) pair pickled together (or deep-copied) mid-training carries the
    optimizer's state and its tie to the model's parameters: both copies train on the same."""
    import copy
    import pickle

    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 1))
    opt = torch.optim.Adam(model.parameters(), lr=0.05)
    x, y = torch.randn(8, 3), torch.randn(8, 1)

    def train(m, o, steps):
        for _ in range(steps):
            o.zero_grad()
            torch.nn.functional.mse_loss(m(x), y).backward()
            o.step()

    train(model, opt, 3)
    copies = [pickle.loads(pickle.dumps((model, opt))), copy.deepcopy((model, opt))]
    train(model, opt, 4)
    for m, o in copies:
        assert o.param_groups[0]["params"][0] is m[0].weight
        assert m[0].weight is not model[0].weight
        train(m, o, 4)
        for a, b in zip(m.parameters(), model.parameters()):
            assert a.tolist() == b.tolist()


# (index, value, PyTorch 2.15's grad_fn of x after `x[index] = value` on a non-leaf (3, 4) x)
SETITEM_NODES = [
    ("mask", 2.0, "MaskedFillBackward0"),
    ("mask", "0-d", "IndexPutBackward0"),
    ("row mask", 2.0, "MaskedFillBackward0"),
    ("row mask", "row", "IndexPutBackward0"),
    ("index", "row", "IndexPutBackward0"),
    ("index", 2.0, "IndexFillBackward0"),
    ("column index", 2.0, "IndexFillBackward0"),
    ("column index", "columns", "IndexPutBackward0"),
    ("two indices", "pair", "IndexPutBackward0"),
    ("two indices", 1.0, "IndexPutBackward0"),
    ("slice and index", 2.0, "torch::autograd::CopySlices"),
    ("int and index", 2.0, "torch::autograd::CopySlices"),
    ("ellipsis and mask", 2.0, "MaskedFillBackward0"),
    ("True", 2.0, "torch::autograd::CopySlices"),
]


@pytest.mark.parametrize("index,value,node", SETITEM_NODES)
def test_setitem_writes_into_the_tensor_itself_unless_the_index_takes_a_view(index, value, node):
    """``x[index] = value`` is ``index_put_`` on ``x`` itself (or ``masked_fill_``/``index_fill_``
    for a lone bool mask/integer index and a Python number) when the basic part of the index
    selects everything, and goes through a view (CopySlices on ``x``) when it selects less."""
    x0 = torch.randn(3, 4, requires_grad=True)
    x = x0 * 1
    index = {
        "mask": x.detach() > 0,
        "row mask": torch.tensor([True, False, True]),
        "index": torch.tensor([0, 2]),
        "column index": (slice(None), torch.tensor([0, 2])),
        "two indices": (torch.tensor([0, 2]), torch.tensor([1, 3])),
        "slice and index": (slice(1, None), torch.tensor([0, 2])),
        "int and index": (0, torch.tensor([0, 2])),
        "ellipsis and mask": (Ellipsis, torch.tensor([True, False, True, False])),
        "True": True,
    }[index]
    value = {
        "0-d": torch.tensor(2.0),
        "row": torch.ones(4),
        "columns": torch.ones(3, 2),
        "pair": torch.ones(2),
    }.get(value, value)
    expected = x.detach().clone()
    expected[index] = value if not isinstance(value, torch.Tensor) else value.detach()
    x[index] = value
    assert x.grad_fn.name() == node
    assert x.tolist() == expected.tolist()
    x.sum().backward()
    assert x0.grad.shape == (3, 4)
