"""The autograd examples of the seed documents, run with ``import ferrograd as torch``.

Test names start with the seed they come from:

* ``kathuria``: 000, "Getting Started with PyTorch Part 1: Understanding How Automatic
  Differentiation Works" (A. Kathuria);
* ``hub``: 001, "PyTorch Autograd: Automatic Differentiation";
* ``fleuret``: 002, "Deep learning 4.2. Autograd" (F. Fleuret);
* ``quickref``: 003, "PyTorch Auto grad -- quick reference" (geekgirldecodes).

Seed errors quote old PyTorch texts; ferrograd uses modern ones, so errors are matched on the
stable key phrase. Examples with undefined names get small synthetic data; examples with random
data assert mathematical relations instead of fixed numbers.
"""

import math
import re

import ferrograd as torch
import pytest
from ferrograd.autograd import Variable

NODE_REPR = r"<{name} object at 0x[0-9a-f]+>"
INT_REQUIRES_GRAD = "only Tensors of floating point dtype can require gradients"
INPLACE_MODIFIED = (
    "one of the variables needed for gradient computation has been modified by an inplace operation"
)
LEAF_INPLACE = "a leaf Variable that requires grad is being used in an in-place operation"


@pytest.fixture(autouse=True)
def _grad_mode_on():
    """Every test starts and ends with grad mode on."""
    torch.set_grad_enabled(True)
    yield
    torch.set_grad_enabled(True)


def node_name(fn):
    """The class name PyTorch prints for a backward node (``MulBackward0`` ...)."""
    return fn.name()


def values(t):
    """The tensor's values as a flat list of Python floats."""
    return t.detach().flatten().tolist()


def numeric_grad(f, arrays, which, index, eps=1e-6):
    """Central difference of ``f`` (tensors -> scalar) w.r.t. ``arrays[which][index]``."""
    plus = [a.copy() for a in arrays]
    minus = [a.copy() for a in arrays]
    plus[which][index] += eps
    minus[which][index] -= eps
    f_plus = f(*[torch.tensor(a) for a in plus]).item()
    f_minus = f(*[torch.tensor(a) for a in minus]).item()
    return (f_plus - f_minus) / (2 * eps)


def check_against_finite_differences(f, leaves, entries):
    """Backpropagates ``f(*leaves)`` and compares the leaves' ``.grad`` with finite differences."""
    for leaf in leaves:
        assert leaf.dtype == torch.float64
    f(*leaves).backward()
    arrays = [leaf.detach().numpy().copy() for leaf in leaves]
    for which, index in entries:
        analytic = leaves[which].grad.numpy()[index]
        numeric = numeric_grad(f, arrays, which, index)
        assert analytic == pytest.approx(numeric, rel=1e-5, abs=1e-9), (which, index)


# --------------------------------------------------------------------------------------------
# Seed 000: Kathuria, "Getting Started with PyTorch Part 1"
# --------------------------------------------------------------------------------------------


def test_kathuria_variable_wraps_tensor():
    """``Variable(torch.randn((4,3)))`` is the tensor; ``.data``, ``.grad``, ``.grad_fn`` work."""
    t = torch.randn((4, 3))
    var_ex = Variable(t)
    assert torch.is_tensor(var_ex)
    assert var_ex.shape == (4, 3)
    assert values(var_ex.data) == values(t)
    assert var_ex.data.requires_grad is False
    assert var_ex.grad is None
    assert var_ex.grad_fn is None


def test_kathuria_add_grad_fn_is_add_backward():
    """``c = a + b`` of variables gets an ``AddBackward`` grad_fn."""
    a = torch.randn(3, requires_grad=True)
    b = torch.randn(3, requires_grad=True)
    c = a + b
    assert re.fullmatch(NODE_REPR.format(name="AddBackward0?"), repr(c.grad_fn))


def _kathuria_graph():
    """The article's graph: b = w1*a, c = w2*a, d = w3*b + w4*c, L = 10 - d."""
    a = Variable(torch.randn((3, 3)), requires_grad=True)
    w1 = Variable(torch.randn((3, 3)), requires_grad=True)
    w2 = Variable(torch.randn((3, 3)), requires_grad=True)
    w3 = Variable(torch.randn((3, 3)), requires_grad=True)
    w4 = Variable(torch.randn((3, 3)), requires_grad=True)
    b = w1 * a
    c = w2 * a
    d = w3 * b + w4 * c
    loss = 10 - d
    return a, w1, w2, w3, w4, b, c, d, loss


def test_kathuria_graph_nodes_are_grad_fns():
    """Leaves have no grad_fn; d is an addition of two multiplications; L is a subtraction."""
    torch.manual_seed(0)
    a, w1, w2, w3, w4, b, _c, d, loss = _kathuria_graph()
    for leaf in (a, w1, w2, w3, w4):
        assert leaf.is_leaf
        assert leaf.grad_fn is None
    assert node_name(b.grad_fn) == "MulBackward0"
    assert node_name(d.grad_fn) == "AddBackward0"
    assert [node_name(fn) for fn, _ in d.grad_fn.next_functions] == ["MulBackward0", "MulBackward0"]
    assert node_name(loss.grad_fn) == "RsubBackward1"
    assert [node_name(fn) for fn, _ in loss.grad_fn.next_functions if fn is not None] == [
        "AddBackward0"
    ]


def test_kathuria_graph_backward_gradients():
    """Backward from L = 10 - (w3*w1*a + w4*w2*a) gives the chain-rule gradients on the leaves."""
    torch.manual_seed(0)
    a, w1, w2, w3, w4, b, c, _d, loss = _kathuria_graph()
    loss.backward(torch.ones(3, 3))
    assert values(w3.grad) == pytest.approx([-v for v in values(b)], rel=1e-6)
    assert values(w4.grad) == pytest.approx([-v for v in values(c)], rel=1e-6)
    assert values(w1.grad) == pytest.approx(values(-w3 * a), rel=1e-6)
    assert values(w2.grad) == pytest.approx(values(-w4 * a), rel=1e-6)
    assert values(a.grad) == pytest.approx(values(-(w3 * w1 + w4 * w2)), rel=1e-5, abs=1e-6)


def test_kathuria_gradient_descent_update():
    """``w1 = w1 - learning_rate * w1.grad`` moves w1 against its gradient."""
    torch.manual_seed(1)
    _a, w1, _w2, _w3, _w4, _b, _c, _d, loss = _kathuria_graph()
    loss.backward(torch.ones(3, 3))
    learning_rate = 0.01
    old, grad = values(w1), values(w1.grad)
    w1 = w1 - learning_rate * w1.grad
    assert values(w1) == pytest.approx([o - learning_rate * g for o, g in zip(old, grad)], rel=1e-6)


def test_kathuria_non_leaf_grad_needs_retain_grad():
    """Non-leaf ``.grad`` is not kept by default; ``.retain_grad()`` keeps it."""
    torch.manual_seed(2)
    _a, w1, _w2, w3, _w4, b, _c, d, loss = _kathuria_graph()
    loss.backward(torch.ones(3, 3))
    assert w1.grad is not None
    assert d.grad is None

    _a, w1, _w2, w3, _w4, b, _c, d, loss = _kathuria_graph()
    d.retain_grad()
    b.retain_grad()
    loss.backward(torch.ones(3, 3))
    assert values(d.grad) == [-1.0] * 9
    assert values(b.grad) == pytest.approx([-v for v in values(w3)])


def test_kathuria_backward_twice_errors():
    """Calling backward() a second time on the same graph is an error (buffers are freed)."""
    torch.manual_seed(3)
    _a, _w1, _w2, _w3, _w4, _b, _c, _d, loss = _kathuria_graph()
    loss.backward(torch.ones(3, 3))
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        loss.backward(torch.ones(3, 3))


def test_kathuria_new_forward_builds_new_graph():
    """Calling forward again builds a new graph that can be backwarded once more."""
    torch.manual_seed(4)
    a, w1, w2, w3, w4, _b, _c, _d, loss = _kathuria_graph()
    loss.backward(torch.ones(3, 3))
    first = values(w3.grad)
    loss = 10 - (w3 * (w1 * a) + w4 * (w2 * a))
    loss.backward(torch.ones(3, 3))
    assert values(w3.grad) == pytest.approx([2 * g for g in first], rel=1e-6)


def test_kathuria_requires_grad_is_contagious():
    """If one operand requires grad, so does the result."""
    a = torch.randn(3)
    w = torch.randn(3, requires_grad=True)
    assert a.requires_grad is False
    assert (a * 2).requires_grad is False
    assert (w * a).requires_grad is True
    assert (a + w).requires_grad is True


def test_kathuria_frozen_leaf_gets_no_gradient():
    """Setting a leaf's requires_grad to False freezes it: it receives no gradient."""
    torch.manual_seed(5)
    a, w1, w2, w3, w4, _b, _c, _d, loss = _kathuria_graph()
    w1.requires_grad = False
    loss = 10 - (w3 * (w1 * a) + w4 * (w2 * a))
    loss.backward(torch.ones(3, 3))
    assert w1.grad is None
    assert w2.grad is not None


def test_kathuria_branch_excluded_from_graph():
    """With b excluded from the graph, a only gets gradients from c and w1 gets none."""
    torch.manual_seed(6)
    a, w1, w2, w3, w4, _, _, _, _ = _kathuria_graph()
    b = (w1 * a).detach()
    c = w2 * a
    assert b.requires_grad is False
    assert b.grad_fn is None
    loss = 10 - (w3 * b + w4 * c)
    loss.backward(torch.ones(3, 3))
    assert w1.grad is None
    assert values(a.grad) == pytest.approx(values(-(w4 * w2)), rel=1e-6)


def test_kathuria_no_grad_inference_builds_no_graph():
    """Under ``torch.no_grad()`` no graph is created for b or anything depending on b."""
    torch.manual_seed(7)
    a, w1, w2, w3, w4, _, _, _, _ = _kathuria_graph()
    with torch.no_grad():
        b = w1 * a
        c = w2 * a
        d = w3 * b + w4 * c
        loss = 10 - d
    for t in (b, c, d, loss):
        assert t.requires_grad is False
        assert t.grad_fn is None


# --------------------------------------------------------------------------------------------
# Seed 001: "PyTorch Autograd: Automatic Differentiation"
# --------------------------------------------------------------------------------------------


def _hub_basic():
    x = torch.tensor(2.0, requires_grad=True)
    y = torch.tensor(3.0, requires_grad=True)
    a = x + y
    b = x * y
    c = a * b
    return x, y, a, b, c


def test_hub_basic_autograd_prints_and_grad_fns():
    """x, y, a, b, c print as PyTorch 2.15 does (an f-string formats a 0-d tensor's value;
    str() shows the tensor); grad_fn is None / AddBackward0 / MulBackward0."""
    x, y, a, b, c = _hub_basic()
    assert f"x: {x}, y: {y}" == "x: 2.0, y: 3.0"
    assert f"a = x + y = {a}" == "a = x + y = 5.0"
    assert f"b = x * y = {b}" == "b = x * y = 6.0"
    assert f"c = a * b = {c}" == "c = a * b = 30.0"
    assert str(x) == "tensor(2., requires_grad=True)"
    assert str(a) == "tensor(5., grad_fn=<AddBackward0>)"
    assert str(c) == "tensor(30., grad_fn=<MulBackward0>)"
    assert x.grad_fn is None
    assert f"x.grad_fn: {x.grad_fn}" == "x.grad_fn: None"
    assert re.fullmatch(NODE_REPR.format(name="AddBackward0"), f"{a.grad_fn}")
    assert re.fullmatch(NODE_REPR.format(name="MulBackward0"), f"{c.grad_fn}")


def test_hub_basic_autograd_gradients():
    """c = (x + y) * (x * y) at x=2, y=3: dc/dx = 21, dc/dy = 16."""
    x, y, _a, _b, c = _hub_basic()
    c.backward()
    assert x.grad.item() == 21.0
    assert y.grad.item() == 16.0
    assert repr(x.grad) == "tensor(21.)"
    assert repr(y.grad) == "tensor(16.)"


def test_hub_vector_jacobian_product():
    """For y = 2**k * x built by the norm loop, ``y.backward(v)`` gives x.grad = 2**k * v."""
    torch.manual_seed(0)
    x = torch.randn(3, requires_grad=True)
    y = x * 2
    k = 1
    while y.norm() < 1000:
        y = y * 2
        k += 1
    assert y.norm().item() >= 1000
    assert values(y) == pytest.approx([2**k * v for v in values(x)], rel=1e-6)
    v = torch.tensor([0.1, 1.0, 0.0001], dtype=torch.float32)
    y.backward(v)
    assert values(x.grad) == pytest.approx([2**k * e for e in values(v)], rel=1e-6)


def test_hub_no_grad_and_detach():
    """y = x*2 requires grad; x*3 under no_grad and x.detach() do not."""
    x = torch.tensor(5.0, requires_grad=True)
    y = x * 2
    assert y.requires_grad is True
    with torch.no_grad():
        z = x * 3
        assert z.requires_grad is False
    w = x.detach()
    assert w.requires_grad is False
    assert z.grad_fn is None
    assert w.grad_fn is None


def test_hub_backward_through_no_grad_result_errors():
    """``z.backward()`` on a no_grad result raises and leaves x.grad untouched."""
    x = torch.tensor(5.0, requires_grad=True)
    with torch.no_grad():
        z = x * 3
    with pytest.raises(
        RuntimeError, match="element 0 of tensors does not require grad and does not have a grad_fn"
    ):
        z.backward()
    assert x.grad is None


def test_hub_linear_inference_no_grad():
    """nn.Linear(1, 1) output: requires_grad False under no_grad, True outside."""
    model = torch.nn.Linear(1, 1)
    input_data = torch.randn(1, 1)
    with torch.no_grad():
        output = model(input_data)
    assert output.requires_grad is False
    output_with_grad = model(input_data)
    assert output_with_grad.requires_grad is True
    assert values(output) == values(output_with_grad)


# --------------------------------------------------------------------------------------------
# Seed 002: Fleuret, "Deep learning 4.2. Autograd"
# --------------------------------------------------------------------------------------------


def test_fleuret_requires_grad_contagion():
    """(x + y).requires_grad is False; after z.requires_grad = True, (x + z) requires grad."""
    x = torch.tensor([1.0, 2.0])
    y = torch.tensor([4.0, 5.0])
    z = torch.tensor([7.0, 3.0])
    assert x.requires_grad is False
    assert (x + y).requires_grad is False
    z.requires_grad = True
    assert (x + z).requires_grad is True


def test_fleuret_float_tensor_can_require_grad():
    """A float tensor accepts ``requires_grad = True``."""
    x = torch.tensor([1.0, 10.0])
    x.requires_grad = True
    assert x.requires_grad is True


def test_fleuret_integer_tensor_cannot_require_grad():
    """An integer tensor rejects ``requires_grad = True`` and stays as it was."""
    x = torch.tensor([1, 10])
    with pytest.raises(RuntimeError, match=INT_REQUIRES_GRAD):
        x.requires_grad = True
    assert x.requires_grad is False
    assert x.tolist() == [1, 10]


def test_fleuret_requires_grad_method():
    """``requires_grad_(value=True)`` sets the flag to value and returns the tensor.

    PyTorch names the parameter ``requires_grad`` (the seed writes it ``value``).
    """
    x = torch.tensor([1.0, 2.0])
    assert x.requires_grad_() is x
    assert x.requires_grad is True
    assert x.requires_grad_(False) is x
    assert x.requires_grad is False
    x.requires_grad_(requires_grad=True)
    assert x.requires_grad is True


def test_fleuret_autograd_grad_values_and_repr():
    """``torch.autograd.grad(a, (t, u))`` is ([2, 4, 8], [0.1, 0.05]) printed as in the seed."""
    t = torch.tensor([1.0, 2.0, 4.0]).requires_grad_()
    u = torch.tensor([10.0, 20.0]).requires_grad_()
    a = t.pow(2).sum() + u.log().sum()
    result = torch.autograd.grad(a, (t, u))
    assert isinstance(result, tuple)
    assert len(result) == 2
    assert values(result[0]) == [2.0, 4.0, 8.0]
    assert values(result[1]) == pytest.approx([0.1, 0.05], rel=1e-6)
    assert repr(result) == "(tensor([2., 4., 8.]), tensor([0.1000, 0.0500]))"
    assert t.grad is None
    assert u.grad is None


def test_fleuret_autograd_grad_single_input_gives_tuple():
    """With a single tensor as inputs, the result is still a one-element tuple."""
    t = torch.tensor([1.0, 2.0, 4.0]).requires_grad_()
    a = t.pow(2).sum()
    result = torch.autograd.grad(a, t)
    assert isinstance(result, tuple)
    assert len(result) == 1
    assert values(result[0]) == [2.0, 4.0, 8.0]


def test_fleuret_autograd_grad_tuple_outputs_are_summed():
    """With a tuple of outputs, the result is the sum of the gradients of its elements."""
    t = torch.tensor([1.0, 2.0, 4.0]).requires_grad_()
    a = t.pow(2).sum()
    b = (3 * t).sum()
    (g,) = torch.autograd.grad((a, b), t)
    assert values(g) == [5.0, 7.0, 11.0]


def test_fleuret_pow_backward_accumulates():
    """x.grad is None, then ``x.pow(3).sum().backward()`` gives tensor([27., 12., 75.])."""
    x = torch.tensor([-3.0, 2.0, 5.0]).requires_grad_()
    u = x.pow(3).sum()
    assert x.grad is None
    u.backward()
    assert values(x.grad) == [27.0, 12.0, 75.0]
    assert repr(x.grad) == "tensor([27., 12., 75.])"


def test_fleuret_backward_accumulates_into_grad():
    """backward() accumulates: a second pass adds up; zeroing the grad starts over."""
    x = torch.tensor([-3.0, 2.0, 5.0]).requires_grad_()
    x.pow(3).sum().backward()
    x.pow(3).sum().backward()
    assert values(x.grad) == [54.0, 24.0, 150.0]
    x.grad.zero_()
    x.pow(2).sum().backward()
    assert values(x.grad) == [-6.0, 4.0, 10.0]
    x.grad = None
    x.sum().backward()
    assert values(x.grad) == [1.0, 1.0, 1.0]


def test_fleuret_backward_sum_of_minibatch_losses():
    """Accumulating over mini-batches gives the gradient of the summed loss."""
    torch.manual_seed(0)
    w = torch.randn(4, requires_grad=True)
    batches = [torch.randn(5, 4) for _ in range(3)]
    for batch in batches:
        (batch @ w).pow(2).sum().backward()
    accumulated = values(w.grad)
    (g,) = torch.autograd.grad(sum((batch @ w).pow(2).sum() for batch in batches), w)
    assert accumulated == pytest.approx(values(g), rel=1e-5, abs=1e-6)


def test_fleuret_forward_backward_graph_matches_finite_differences():
    """The w1/w2 graph (x1 = w1@x0, x2 = x0 + w2@x1, x3 = w1@(x1 + x2), q = ||x3||)."""
    torch.manual_seed(0)
    w1 = torch.rand(5, 5, dtype=torch.float64).requires_grad_()
    w2 = torch.rand(5, 5, dtype=torch.float64).requires_grad_()
    x = torch.randn(5, dtype=torch.float64)

    def forward(w1, w2):
        x0 = x
        x1 = w1 @ x0
        x2 = x0 + w2 @ x1
        x3 = w1 @ (x1 + x2)
        q = x3.norm()
        return q

    q = forward(w1, w2)
    assert q.requires_grad is True
    entries = [(0, (0, 0)), (0, (2, 3)), (0, (4, 1)), (1, (1, 1)), (1, (3, 4)), (1, (0, 2))]
    check_against_finite_differences(forward, [w1, w2], entries)


def test_fleuret_next_functions_of_abs_sum():
    """s = x.abs().sum() prints tensor(10., grad_fn=<SumBackward0>); graph: Abs, AccumulateGrad."""
    x = torch.tensor([1.0, -2.0, 3.0, -4.0]).requires_grad_()
    a = x.abs()
    s = a.sum()
    assert repr(s) == "tensor(10., grad_fn=<SumBackward0>)"
    nf = s.grad_fn.next_functions
    assert isinstance(nf, tuple)
    assert len(nf) == 1
    assert re.fullmatch(r"\(\(" + NODE_REPR.format(name="AbsBackward0?") + r", 0\),\)", repr(nf)), (
        repr(nf)
    )
    nf2 = s.grad_fn.next_functions[0][0].next_functions
    assert re.fullmatch(
        r"\(\(" + NODE_REPR.format(name="AccumulateGrad") + r", 0\),\)", repr(nf2)
    ), repr(nf2)
    assert nf2[0][0].next_functions == ()


def test_fleuret_norm_graph():
    """q = ||[1, 2, 2]|| = 3 and dq/dx = x / 3."""
    x = torch.tensor([1.0, 2.0, 2.0]).requires_grad_()
    q = x.norm()
    assert q.item() == pytest.approx(3.0)
    assert q.grad_fn is not None
    q.backward()
    assert values(x.grad) == pytest.approx([1 / 3, 2 / 3, 2 / 3], rel=1e-6)


def test_fleuret_mlp_matches_finite_differences():
    """The tanh MLP with ``loss = (y - targets).pow(2).mean()`` backpropagates correct gradients."""
    torch.manual_seed(1)
    w1 = torch.rand(20, 10, dtype=torch.float64).requires_grad_()
    b1 = torch.rand(20, dtype=torch.float64).requires_grad_()
    w2 = torch.rand(5, 20, dtype=torch.float64).requires_grad_()
    b2 = torch.rand(5, dtype=torch.float64).requires_grad_()
    x = torch.rand(10, dtype=torch.float64)
    targets = torch.rand(5, dtype=torch.float64)

    def forward(w1, b1, w2, b2):
        h = torch.tanh(w1 @ x + b1)
        y = torch.tanh(w2 @ h + b2)
        loss = (y - targets).pow(2).mean()
        return loss

    entries = [
        (0, (0, 0)),
        (0, (7, 3)),
        (0, (19, 9)),
        (1, (0,)),
        (1, (11,)),
        (2, (0, 0)),
        (2, (4, 19)),
        (3, (2,)),
    ]
    check_against_finite_differences(forward, [w1, b1, w2, b2], entries)


def test_fleuret_blah_shared_weights_matches_finite_differences():
    """``blah(k, x)`` with ``w[i] @ x`` reuses w[0]; q = u.dot(v) has the right gradient on w."""
    torch.manual_seed(2)
    w = torch.rand(3, 10, 10, dtype=torch.float64).requires_grad_()
    xu = torch.rand(10, dtype=torch.float64)
    xv = torch.rand(10, dtype=torch.float64)

    def forward(w):
        def blah(k, x):
            for i in range(k):
                x = torch.tanh(w[i] @ x)
            return x

        u = blah(1, xu)
        v = blah(3, xv)
        q = u.dot(v)
        return q

    entries = [(0, (0, 0, 0)), (0, (0, 5, 7)), (0, (1, 2, 3)), (0, (1, 9, 0)), (0, (2, 4, 4))]
    check_against_finite_differences(forward, [w], entries)
    assert w.grad.shape == (3, 10, 10)


def test_fleuret_no_grad_parameter_update_linear_regression():
    """The no_grad gradient-descent loop for ``x @ w.t() + b`` drives the loss down."""
    torch.manual_seed(3)
    x = torch.randn(100, 784)
    w_true = torch.randn(10, 784) * 0.05
    y = x @ w_true.t() + 0.5
    eta = 0.1

    w = torch.empty(10, 784).normal_(0, 1e-3).requires_grad_()
    b = torch.empty(10).normal_(0, 1e-3).requires_grad_()

    losses = []
    for _ in range(201):
        y_hat = x @ w.t() + b
        loss = (y_hat - y).pow(2).mean()
        losses.append(loss.item())

        w.grad, b.grad = None, None
        loss.backward()

        with torch.no_grad():
            w -= eta * w.grad
            b -= eta * b.grad

    assert w.is_leaf and b.is_leaf
    assert w.requires_grad and b.requires_grad
    assert losses[-1] < 1e-3 * losses[0]


def _fleuret_descent(detach):
    eta = 0.1
    a = torch.tensor(0.5).requires_grad_()
    b = torch.tensor(-0.5).requires_grad_()

    for _ in range(100):
        a_term = a.detach() if detach else a
        loss = (a - 1) ** 2 + (b + 1) ** 2 + (a_term - b) ** 2
        ga, gb = torch.autograd.grad(loss, (a, b))
        with torch.no_grad():
            a -= eta * ga
            b -= eta * gb

    print(a, b)
    return a, b


def test_fleuret_gradient_descent_prints(capsys):
    """100 steps of gradient descent (eta = 0.1) print the seed's values."""
    a, b = _fleuret_descent(detach=False)
    out = capsys.readouterr().out
    assert out == "tensor(0.3333, requires_grad=True) tensor(-0.3333, requires_grad=True)\n"
    assert a.item() == pytest.approx(1 / 3, abs=1e-4)
    assert b.item() == pytest.approx(-1 / 3, abs=1e-4)


def test_fleuret_detach_gradient_descent_prints(capsys):
    """With ``a.detach()`` in the coupling term the loop prints the seed's values."""
    _fleuret_descent(detach=True)
    out = capsys.readouterr().out
    assert out == "tensor(1.0000, requires_grad=True) tensor(-8.2480e-08, requires_grad=True)\n"


def test_fleuret_detach_shares_data_and_leaves_graph():
    """``detach()`` shares the data, does not require grad and is not connected to the graph."""
    a = torch.tensor([1.0, 2.0]).requires_grad_()
    y = a * 3
    d = y.detach()
    assert d.requires_grad is False
    assert d.grad_fn is None
    assert d.is_leaf
    d.add_(1)
    assert values(y) == [4.0, 7.0]
    a_data = a.detach()
    a_data.mul_(2)
    assert values(a) == [2.0, 4.0]


def test_fleuret_graph_freed_after_grad():
    """grad(z, x) is (tensor([-1.]),); reusing the freed graph for z * z raises."""
    x = torch.tensor([1.0]).requires_grad_()
    z = 1 / x
    result = torch.autograd.grad(z, x)
    assert repr(result) == "(tensor([-1.]),)"
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        torch.autograd.grad(z * z, x)


def test_fleuret_retain_graph_keeps_graph():
    """With retain_graph=True, grad(z * z, x) afterwards gives (tensor([-2.]),)."""
    x = torch.tensor([1.0]).requires_grad_()
    z = 1 / x
    assert repr(torch.autograd.grad(z, x, retain_graph=True)) == "(tensor([-1.]),)"
    assert repr(torch.autograd.grad(z * z, x)) == "(tensor([-2.]),)"


def test_fleuret_create_graph_higher_order():
    """Gradient of ||grad psi||^2 for psi = log(x1) + x2^2 at (2, 3) is (-2/x1^3, 8 x2)."""
    x = torch.tensor([2.0, 3.0]).requires_grad_()
    psi = x[0].log() + x[1].pow(2)
    (g,) = torch.autograd.grad(psi, x, create_graph=True)
    assert values(g) == pytest.approx([0.5, 6.0])
    assert g.requires_grad is True
    result = torch.autograd.grad(g.pow(2).sum(), x)
    assert values(result[0]) == pytest.approx([-0.25, 24.0], rel=1e-6)
    assert repr(result) == "(tensor([-0.2500, 24.0000]),)"


def test_fleuret_inplace_modification_detected():
    """``y = x.sin(); y *= y`` then backward raises the in-place modification error."""
    x = torch.tensor([1.0, 2.0, 3.0]).requires_grad_()
    y = x.sin()
    y *= y
    loss = y.sum()
    with pytest.raises(RuntimeError) as info:
        loss.backward()
    message = str(info.value)
    assert INPLACE_MODIFIED in message
    assert (
        "which is output 0 of SinBackward0, is at version 1; expected version 0 instead" in message
    )
    assert x.grad is None


def test_fleuret_inplace_on_leaf_prohibited():
    """In-place operations on a leaf that requires grad are prohibited."""
    x = torch.tensor([1.0, 2.0, 3.0]).requires_grad_()
    with pytest.raises(RuntimeError, match=LEAF_INPLACE):
        x.mul_(2)
    assert values(x) == [1.0, 2.0, 3.0]


# --------------------------------------------------------------------------------------------
# Seed 003: geekgirldecodes, "PyTorch Auto grad -- quick reference"
# --------------------------------------------------------------------------------------------


def test_quickref_linspace_sin_graph():
    """a = linspace(0, 2 pi, 25), b = sin(a) has SinBackward0; out.backward(): a.grad = 2 cos(a)."""
    a = torch.linspace(0.0, 2.0 * math.pi, steps=25, requires_grad=True)
    assert a.shape == (25,)
    assert a.is_leaf
    assert a.grad_fn is None
    b = torch.sin(a)
    assert repr(b).endswith("grad_fn=<SinBackward0>)")
    c = 2 * b
    d = c + 1
    out = d.sum()
    assert node_name(d.grad_fn) == "AddBackward0"
    ops = [node_name(fn) for fn, _ in d.grad_fn.next_functions if fn is not None]
    assert ops == ["MulBackward0"]
    mul = d.grad_fn.next_functions[0][0]
    assert [node_name(fn) for fn, _ in mul.next_functions if fn is not None] == ["SinBackward0"]
    out.backward()
    expected = [2 * math.cos(v) for v in values(a)]
    assert values(a.grad) == pytest.approx(expected, abs=1e-6)
    for intermediate in (b, c, d):
        assert intermediate.grad is None


def test_quickref_backward_then_optimizer_step():
    """backward() computes gradients, leaving weights; step() applies them; zero_grad() clears."""
    torch.manual_seed(0)
    model = torch.nn.Linear(3, 1)
    inputs = torch.randn(8, 3)
    ideal_out = torch.randn(8, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.001)

    prediction = model(inputs)
    loss = (ideal_out - prediction).pow(2).sum()
    before = values(model.weight)
    loss.backward()
    assert model.weight.grad is not None
    assert model.bias.grad is not None
    assert values(model.weight) == before

    grad = values(model.weight.grad)
    optimizer.step()
    assert values(model.weight) == pytest.approx(
        [w - 0.001 * g for w, g in zip(before, grad)], rel=1e-6, abs=1e-7
    )
    optimizer.zero_grad()
    assert model.weight.grad is None
    assert model.bias.grad is None


def test_quickref_sgd_training_loop_reduces_loss():
    """A model/SGD training loop with zero_grad after each step drives the loss down."""
    torch.manual_seed(1)
    model = torch.nn.Linear(3, 1)
    inputs = torch.randn(20, 3)
    true_w = torch.tensor([[1.5, -2.0, 0.5]])
    ideal_out = inputs @ true_w.t() + 0.3
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)

    losses = []
    for _ in range(100):
        prediction = model(inputs)
        loss = (ideal_out - prediction).pow(2).sum()
        losses.append(loss.item())
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()

    assert losses[-1] < 1e-2 * losses[0]
    assert values(model.weight) == pytest.approx([1.5, -2.0, 0.5], abs=0.05)
    assert model.bias.item() == pytest.approx(0.3, abs=0.05)


def test_quickref_no_grad_and_enable_grad():
    """``torch.no_grad()`` turns autograd off; ``torch.enable_grad()`` turns it back on inside."""
    a = torch.rand(2, 3, requires_grad=True)
    with torch.no_grad():
        assert (a * 2).requires_grad is False
        with torch.enable_grad():
            assert (a * 2).requires_grad is True
        assert (a * 2).requires_grad is False
    assert (a * 2).requires_grad is True


def test_quickref_detach_clone_copy():
    """``a.detach().clone()`` is a copy without history that does not share memory with a."""
    a = torch.rand(2, 3, requires_grad=True)
    b = a.detach().clone()
    assert b.requires_grad is False
    assert b.grad_fn is None
    assert values(b) == values(a)
    b.add_(1)
    assert values(b) == pytest.approx([v + 1 for v in values(a)])
    assert a.requires_grad is True


def test_quickref_inplace_on_tensor_requiring_grad_errors():
    """An in-place operation on a tensor that requires grad raises a RuntimeError."""
    a = torch.rand(2, 3, requires_grad=True)
    before = values(a)
    with pytest.raises(RuntimeError, match=LEAF_INPLACE):
        a.add_(1)
    assert values(a) == before


def test_quickref_profiler():
    """The autograd profiler example: ``profile(use_cuda=True)`` (CPU only here: a warning),
    some computations, then ``key_averages().table()`` lists them."""
    a = torch.rand(2, 3, requires_grad=True)
    with pytest.warns(UserWarning, match="CPU only"):
        with torch.autograd.profiler.profile(use_cuda=True) as prf:
            (a.exp() * a).sum().backward()
    table = prf.key_averages().table()
    for name in ("aten::exp", "aten::mul", "aten::sum", "MulBackward0", "ExpBackward0"):
        assert name in table
