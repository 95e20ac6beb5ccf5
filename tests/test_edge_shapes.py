"""Empty and 0-d shapes and resource limits: PyTorch's result or its exception, never a panic
or an abort (expected values from PyTorch 2.15)."""

import math

import ferrograd as torch
import pytest


def test_zero_dim_and_empty_results():
    assert math.isinf(torch.ones(0).logsumexp(0).item())
    assert torch.tensor(2.0).flip(0).item() == 2.0
    assert torch.ones(0, 3)[1:].numpy().shape == (0, 3)


@pytest.mark.parametrize(
    "code, error",
    [
        ("torch.tensor(2.).split(1)", RuntimeError),
        ("torch.tensor(2.).chunk(1)", RuntimeError),
        ("torch.tensor(2.).unbind()", IndexError),
        ("torch.ones(0).argmax()", IndexError),
        ("torch.ones(2, 0).max(dim=1)", IndexError),
        ("torch.zeros(2**40, 2**40)", RuntimeError),
        ("torch.zeros(2**45)", RuntimeError),
        ("torch.rand(2**45)", RuntimeError),
        ("torch.ones(3).repeat(2**62)", RuntimeError),
        # fuzzer fz-307724: the default p is 'fro', which PyTorch refuses over three dims
        ("torch.ones(2, 1, 3).norm(dim=(2, 0, 1))", RuntimeError),
    ],
)
def test_refused_without_a_panic(code, error):
    with pytest.raises(error) as info:
        eval(code)
    assert "internal error" not in str(info.value)


def test_deeply_nested_data_is_refused_not_a_stack_overflow():
    data = [1.0]
    for _ in range(100_000):
        data = [data]
    with pytest.raises(RuntimeError, match="nested"):
        torch.tensor(data)


def test_lane_ops_on_an_empty_view_with_an_offset():
    # fuzzer fz-106920: a (0, 1) chunk starting at column 2 of a (0, 3) tensor; PyTorch 2.15
    # returns empty results and a zero (0, 3) gradient
    x = torch.zeros((0, 3), dtype=torch.float64, requires_grad=True)
    _, right = x.chunk(2, 1)
    assert right.cumsum(1).shape == (0, 1)
    assert right.softmax(1).shape == (0, 1)
    assert right.log_softmax(1).shape == (0, 1)
    x.sum().backward()
    assert x.grad.shape == (0, 3)


def test_signs_of_zero_as_pytorch():
    # fuzzer fz-109270 and fz-317632: PyTorch 2.15's -0.0 and +0.0 from products with one
    # term and from relu (the sign decides inf/-inf after a division and atan2's +-pi)
    neg = [math.copysign(1.0, v) < 0 for v in torch.tensor([-0.0, 0.0, -1.0]).relu().tolist()]
    assert neg == [True, False, False]
    row = torch.tensor([[-0.257]]).mm(torch.tensor([[-2.758, 0.0, -1.544]]))
    assert math.copysign(1.0, row[0, 1].item()) > 0  # a matrix-vector product: +0.0
    outer = torch.tensor([[0.0], [-0.176]]).mm(torch.tensor([[0.176, 2.76, 0.0]]))
    assert math.copysign(1.0, outer[1, 2].item()) < 0  # a matrix product's one term: -0.0


def _signs(t):
    return ["-0" if v == 0 and math.copysign(1.0, v) < 0 else "+0" for v in t.flatten().tolist()]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_zero_sums_of_products_have_pytorchs_signs_in_both_float_types(dtype):
    """Sums of -0.0 terms are +0.0 (PyTorch's BLAS starts every sum from +0.0), except an outer
    product's single term (fuzzer fz-9074: float64 products kept -0.0, and rsqrt gave -inf)."""

    def t(*rows):
        return torch.tensor(list(rows), dtype=dtype)

    z = lambda *shape: torch.zeros(*shape, dtype=dtype)  # noqa: E731
    assert _signs(t([-2.0]) @ z(1, 3)) == ["+0"] * 3
    assert _signs(t([-2.0], [-3.0]) @ z(1, 1)) == ["+0"] * 2
    assert _signs(t([-2.0], [-3.0]) @ z(1, 2)) == ["-0"] * 4  # an outer product: the term
    assert _signs(t([-2.0, -1.0]) @ z(2, 2)) == ["+0"] * 2
    assert _signs(t([-2.0, -1.0], [-1.0, -3.0]) @ z(2, 2)) == ["+0"] * 4
    assert _signs(t([-2.0, -1.0], [-1.0, -3.0]) @ z(2)) == ["+0"] * 2
    assert _signs(torch.tensor([-2.0, -1.0], dtype=dtype) @ z(2)) == ["+0"]
    assert _signs(t([[-2.0]]) @ z(1, 1, 2)) == ["+0"] * 2
    assert (t([[-2.0]]) @ z(1, 1, 2)).rsqrt().tolist() == [[[math.inf, math.inf]]]


def test_matmul_folds_a_batch_as_pytorch_which_decides_the_graph_and_zero_signs():
    """PyTorch 2.15's matmul folds the larger operand's batch into one mm when the smaller
    operand requires grad (or the larger one is a viewable 3-D+ left operand), else it runs a
    batched product: the graphs differ, and so do the signs of zero sums (an mm outer product
    keeps -0.0 terms, a batched one starts from +0.0)."""
    a, z = -torch.ones(3, 1), torch.zeros(2, 1, 3)
    assert _signs(a @ z) == ["+0"] * 18  # batched
    out = a.requires_grad_() @ z
    assert _signs(out) == ["-0"] * 18 and out.is_contiguous()
    assert out.grad_fn.name() == "CloneBackward0"  # (zᵀ @ aᵀ)ᵀ made contiguous
    x = torch.randn(2, 3, 4, requires_grad=True)
    y = x @ torch.randn(4, 5)
    assert y.grad_fn.name() == "UnsafeViewBackward0"
    assert y.grad_fn.next_functions[0][0].name() == "MmBackward0"
