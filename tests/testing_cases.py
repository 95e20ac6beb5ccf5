"""``torch.testing`` as one program: ``assert_close`` on matching and mismatching inputs
(tensors of each dtype, 0-d tensors, Python and NumPy numbers, sequences, mappings, NaNs,
strides, subclasses, ``msg=``), the error each raises with its whole message, the deprecated
``assert_allclose``, and ``make_tensor``'s shapes, ranges, layouts and refusals.
``test_index_ops_golden.py`` runs it with ferrograd and compares its output with PyTorch 2.15's
(``golden/testing_torch.txt``, recorded by running it with ``import torch``)."""

import warnings

import ferrograd as torch
import numpy as np

T = torch.testing


def check(name, call):
    """Prints ``ok`` or the error's class and its whole message (module names as PyTorch's)."""
    print(f"== {name}")
    try:
        call()
        print("ok")
    except Exception as e:
        print(type(e).__name__ + ":", str(e).replace("ferrograd", "torch"))


t = torch.tensor
nan, inf = float("nan"), float("inf")
f32 = torch.tensor([1.0, 2.0, 3.0])
f64 = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=torch.float64)
F64 = torch.float64
CASES = [
    ("equal float32", lambda: T.assert_close(f32, f32.clone())),
    ("within default tolerance", lambda: T.assert_close(f32, f32 + 1e-6)),
    ("one of three", lambda: T.assert_close(f32, t([1.0, 2.5, 3.0]))),
    ("two of three", lambda: T.assert_close(t([1.0, 2.0, 3.0]), t([1.0, 4.0, 9.0]))),
    ("float64 2-d", lambda: T.assert_close(f64, f64 * t([1.0, 1.0, 1.0 + 1e-6], dtype=F64))),
    ("float64 2-d two rows", lambda: T.assert_close(f64, f64.flip(0))),
    ("relative beats absolute", lambda: T.assert_close(t([1e-3, 100.0]), t([2e-3, 100.5]))),
    ("expected zero", lambda: T.assert_close(t([0.5, 1.0]), t([0.0, 1.0]))),
    ("dtype", lambda: T.assert_close(f32, f32.double())),
    ("dtype reversed", lambda: T.assert_close(f32.double(), f32)),
    ("dtype int64 vs float32", lambda: T.assert_close(t([1, 2]), t([1.0, 2.0]))),
    ("check_dtype=False close", lambda: T.assert_close(f32, f32.double(), check_dtype=False)),
    ("check_dtype=False far", lambda: T.assert_close(f32, f32.double() + 1, check_dtype=False)),
    ("shape", lambda: T.assert_close(f32, t([1.0, 2.0]))),
    ("shape 2-d", lambda: T.assert_close(f64, f64.t())),
    ("int64", lambda: T.assert_close(t([1, 2, 3, 4]), t([1, 5, 3, -4]))),
    ("bool", lambda: T.assert_close(t([True, False]), t([True, True]))),
    ("0-d float32", lambda: T.assert_close(t(1.5), t(2.0))),
    ("0-d int64", lambda: T.assert_close(t(3), t(4))),
    ("rtol and atol", lambda: T.assert_close(f32, f32 + 0.01, rtol=0.0, atol=0.02)),
    ("rtol and atol exceeded", lambda: T.assert_close(f32, f32 + 0.01, rtol=1e-3, atol=1e-3)),
    ("zero tolerances", lambda: T.assert_close(f32, f32 + 0.25, rtol=0, atol=0)),
    ("rtol only", lambda: T.assert_close(f32, f32, rtol=1e-3)),
    ("atol only", lambda: T.assert_close(f32, f32, atol=1e-3)),
    ("nan", lambda: T.assert_close(t([1.0, nan]), t([1.0, nan]))),
    ("nan equal_nan", lambda: T.assert_close(t([1.0, nan]), t([1.0, nan]), equal_nan=True)),
    ("nan against a number", lambda: T.assert_close(t([nan, 2.0]), t([1.0, 3.0]))),
    ("inf", lambda: T.assert_close(t([inf, 1.0]), t([inf, 1.0]))),
    ("inf against -inf", lambda: T.assert_close(t([inf]), t([-inf]))),
    ("requires grad", lambda: T.assert_close(f32.clone().requires_grad_(), t([1.0, 2.0, 4.0]))),
    ("check_stride", lambda: T.assert_close(f64.t().contiguous(), f64.t(), check_stride=True)),
    ("strides ignored", lambda: T.assert_close(f64.t().contiguous(), f64.t())),
    ("msg str", lambda: T.assert_close(f32, f32 + 1, msg="Argh, the tensors are not close!")),
    (
        "msg callable",
        lambda: T.assert_close(f32, f32 + 1, msg=lambda m: f"Header\n\n{m}\n\nFooter"),
    ),
    ("msg on dtype", lambda: T.assert_close(f32, f32.double(), msg="custom")),
    ("numbers", lambda: T.assert_close(1.0, 1.0 + 1e-8)),
    ("numbers far", lambda: T.assert_close(1.0, 1.1)),
    ("number expected zero", lambda: T.assert_close(0.5, 0.0)),
    ("ints", lambda: T.assert_close(2, 3)),
    ("int against float", lambda: T.assert_close(1, 1.0)),
    ("int against float check_dtype=False", lambda: T.assert_close(1, 1.0, check_dtype=False)),
    ("numbers tolerance", lambda: T.assert_close(1.0, 1.05, rtol=0.1, atol=0.0)),
    ("number nan", lambda: T.assert_close(nan, nan)),
    ("number nan equal_nan", lambda: T.assert_close(nan, nan, equal_nan=True)),
    ("booleans", lambda: T.assert_close(True, False)),
    ("numpy numbers", lambda: T.assert_close(np.float32(1.5), np.float64(1.5))),
    ("numpy number far", lambda: T.assert_close(np.float64(1.5), 2.5)),
    ("numpy bool", lambda: T.assert_close(np.bool_(True), True)),
    ("None", lambda: T.assert_close(None, None)),
    ("None against a tensor", lambda: T.assert_close(None, f32)),
    ("tensor against a number", lambda: T.assert_close(t(1.0), 1.0)),
    ("tensor against a list", lambda: T.assert_close(f32, [1.0, 2.0, 3.0])),
    ("strings", lambda: T.assert_close("a", "a")),
    ("lists", lambda: T.assert_close([f32, 1.0], [f32.clone(), 1.0])),
    ("list item", lambda: T.assert_close([f32, f32], [f32, f32 * 2])),
    ("nested item", lambda: T.assert_close([[1.0, 2.0], (3.0, 4.0)], [[1.0, 2.0], (3.0, 5.0)])),
    ("list lengths", lambda: T.assert_close([1.0, 2.0], [1.0])),
    ("list and tuple", lambda: T.assert_close([1, 2], (1, 2))),
    ("mappings", lambda: T.assert_close({"a": f32, "b": 2}, {"b": 2, "a": f32})),
    ("mapping value", lambda: T.assert_close({"a": f32, "b": f32}, {"a": f32, "b": f32 + 1})),
    ("mapping keys", lambda: T.assert_close({"a": 1, "b": 2}, {"a": 1, "c": 2})),
    ("mapping nested", lambda: T.assert_close({"w": [f32, {"x": 1}]}, {"w": [f32, {"x": 2}]})),
    (
        "item with msg callable",
        lambda: T.assert_close([1.0, 2.0], [1.0, 3.0], msg=lambda m: "<" + m + ">"),
    ),
    ("numpy arrays", lambda: T.assert_close(np.array([1.0, 2.0]), np.array([1.0, 2.0]))),
    ("numpy arrays far", lambda: T.assert_close(np.array([1.0, 2.0]), np.array([1.0, 2.5]))),
    (
        "numpy float32 arrays",
        lambda: T.assert_close(
            np.array([1.0, 2.0], dtype=np.float32), np.array([1.0, 2.5], dtype=np.float32)
        ),
    ),
    ("numpy array against a tensor", lambda: T.assert_close(np.array([1.0]), t([1.0]))),
    ("parameter and tensor", lambda: T.assert_close(torch.nn.Parameter(f32.clone()), f32)),
    (
        "parameter and tensor, no subclasses",
        lambda: T.assert_close(torch.nn.Parameter(f32.clone()), f32, allow_subclasses=False),
    ),
    ("empty tensors", lambda: T.assert_close(torch.zeros(0, 3), torch.zeros(0, 3))),
    ("float32 rounding", lambda: T.assert_close(t([0.1, 0.2, 0.3]) * 3, t([0.3, 0.6, 0.9001]))),
]
for name, call in CASES:
    check(name, call)


def allclose(*args, **kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        T.assert_allclose(*args, **kwargs)
    for w in caught:
        print(w.category.__name__, str(w.message))


check("assert_allclose", lambda: allclose(f32, f32 + 5e-5))
check("assert_allclose far", lambda: allclose(f32, f32 + 1e-3))
check("assert_allclose dtypes", lambda: allclose(f32, f32.double()))
check("assert_allclose list", lambda: allclose([1.0, 2.0], [1.0, 2.0]))
check(
    "assert_allclose nan",
    lambda: allclose(torch.tensor([float("nan")]), torch.tensor([float("nan")])),
)
check("assert_allclose msg", lambda: allclose(f32, f32 + 1, msg="differs"))

# make_tensor: shapes, dtypes, ranges (over many draws), layouts, refusals
M = T.make_tensor
torch.manual_seed(0)
for dtype in (torch.float32, torch.float64):
    x = M(2000, dtype=dtype, device="cpu")
    print(dtype, tuple(x.shape), x.dtype, x.min().item() >= -9, x.max().item() < 9)
    print(x.min().item() < -8.9, x.max().item() > 8.9, x.requires_grad, x.is_leaf)
    y = M(4000, dtype=dtype, device="cpu", low=2.5, high=3)
    print(y.min().item() >= 2.5, y.max().item() < 3, y.min().item() < 2.51, y.max().item() > 2.99)
    y = M(100, dtype=dtype, device="cpu", low=-1e300, high=None)
    print(y.min().item() >= -1e300, y.max().item() < 9, bool(torch.isfinite(y).all().item()))
x = M(3000, dtype=torch.int64, device="cpu")
print(x.dtype, x.min().item(), x.max().item(), sorted(set(x.tolist())) == list(range(-9, 10)))
x = M(3000, dtype=torch.int64, device="cpu", low=0.5, high=3.5)
print(sorted(set(x.tolist())))
x = M(3000, dtype=torch.int64, device="cpu", low=-5)
print(sorted(set(x.tolist())))
x = M(200, dtype=torch.bool, device="cpu")
print(x.dtype, sorted(set(x.tolist())))
print(
    M(2, 3, dtype=torch.float32, device="cpu").shape,
    M((2, 3), dtype=torch.float32, device="cpu").shape,
)
print(M([4], dtype=torch.float64, device="cpu").shape, M(dtype=torch.float32, device="cpu").shape)
print(
    M(torch.Size([2, 1]), dtype=torch.int64, device="cpu").shape,
    M(0, 2, dtype=torch.float32, device="cpu").shape,
)
x = M(3, 4, dtype=torch.float32, device="cpu", noncontiguous=True)
print(x.shape, x.is_contiguous(), x.stride())
x = M(1, dtype=torch.float32, device="cpu", noncontiguous=True)
print(x.shape, x.is_contiguous(), x.stride())
x = M(2, 3, 4, 5, dtype=torch.float32, device="cpu", memory_format=torch.channels_last)
print(x.shape, x.stride(), x.is_contiguous(memory_format=torch.channels_last))
x = M(500, dtype=torch.int64, device="cpu", low=0, high=2, exclude_zero=True)
print(sorted(set(x.tolist())))
x = M(500, dtype=torch.bool, device="cpu", exclude_zero=True)
print(sorted(set(x.tolist())))
x = M(3, dtype=torch.float32, device="cpu", requires_grad=True)
print(x.requires_grad, x.is_leaf, x.grad_fn)
x = M(3, 2, dtype=torch.float64, device=torch.device("cpu"), requires_grad=True, noncontiguous=True)
print(x.requires_grad, x.is_leaf, x.is_contiguous())
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    x = M(3, dtype=torch.float32, device="cpu", low=2.0, high=2.0)
print(x.tolist(), [(w.category.__name__, str(w.message)) for w in caught])
check("low >= high", lambda: M(3, dtype=torch.float32, device="cpu", low=3, high=2))
check("low >= high int", lambda: M(3, dtype=torch.int64, device="cpu", low=2, high=2))
check("nan bound", lambda: M(3, dtype=torch.float32, device="cpu", low=float("nan")))
check("interval outside", lambda: M(3, dtype=torch.bool, device="cpu", low=5, high=7))
check("requires_grad int", lambda: M(3, dtype=torch.int64, device="cpu", requires_grad=True))
check("requires_grad bool", lambda: M(3, dtype=torch.bool, device="cpu", requires_grad=True))
check(
    "noncontiguous and memory_format",
    lambda: M(
        2,
        3,
        dtype=torch.float32,
        device="cpu",
        noncontiguous=True,
        memory_format=torch.channels_last,
    ),
)
check("no dtype", lambda: M(3, device="cpu"))

# after manual_seed, make_tensor draws PyTorch's numbers (the same uniform_ and randint draws)
torch.manual_seed(3)
print(M(5, dtype=torch.float32, device="cpu").tolist())
print(M(6, dtype=torch.float64, device="cpu", low=-1, high=1).tolist())
print(M(2, 3, dtype=torch.int64, device="cpu").tolist())
print(M(8, dtype=torch.bool, device="cpu").tolist())
print(M(4, 2, dtype=torch.float32, device="cpu", noncontiguous=True).tolist())
