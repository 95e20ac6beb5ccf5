"""The integer dtypes (uint8, int8, int16, int32 beside int64 and bool) as one program:
type promotion over every pair, arithmetic and its wrapping, division, conversions from
floats (PyTorch's x86 casts), reductions (which accumulate in int64), printing, NumPy
round-trips, indexing with int32 indices and the refusals (no gradient for integers).
``test_index_ops_golden.py`` runs it with ferrograd and compares its output with PyTorch
2.15's (``golden/int_dtypes_torch.txt``, recorded by running it with ``import torch``)."""

import ferrograd as torch
import numpy as np
from case_printing import refused as refused_in_full


def refused(call):
    """The exception's class and PyTorch's message (ferrograd may add a parenthesised detail
    after it, which is not compared)."""
    try:
        call()
        print("no error")
    except Exception as e:
        print(type(e).__name__, str(e).split(" (")[0][:150])


assert refused_in_full

INTS = [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64]
ALL = [torch.bool, *INTS, torch.float32, torch.float64]


def show(name, t):
    """Values, dtype and shape of a result."""
    print(name, t.tolist(), t.dtype, tuple(t.shape))


print("names", [str(d) for d in ALL], torch.int is torch.int32, torch.short is torch.int16)
print("aliases", torch.long is torch.int64, torch.uint8.itemsize, torch.int16.itemsize)
print("signed", [d.is_signed for d in ALL])
print("floating", [d.is_floating_point for d in ALL])
for a in ALL:
    print("promote", a, [str(torch.promote_types(a, b)).removeprefix("torch.") for b in ALL])
print("iinfo", [(torch.iinfo(d).min, torch.iinfo(d).max, torch.iinfo(d).bits) for d in INTS])
print("iinfo repr", repr(torch.iinfo(torch.int32)), repr(torch.iinfo(torch.uint8)))
print("finfo", repr(torch.finfo(torch.float32)), torch.finfo(torch.float64).eps)
refused(lambda: torch.iinfo(torch.float32))

floats = torch.tensor([-300.7, -129.5, -1.5, -0.5, 0.0, 0.5, 1.9, 127.5, 200.2, 255.9, 70000.3])
for d in INTS:
    show(f"cast float->{d}", floats.to(d))
wide = torch.tensor([-129, -1, 0, 127, 128, 255, 256, 40000, 3000000000])
for d in INTS:
    show(f"cast int64->{d}", wide.to(d))
show("cast bool->uint8", torch.tensor([True, False]).to(torch.uint8))
show("cast int8->bool", torch.tensor([-1, 0, 2], dtype=torch.int8).bool())
show("methods", torch.stack([floats.int().long(), floats.short().long(), floats.char().long()]))
show("byte", floats.byte())

for d in INTS:
    x = torch.tensor([0, 1, 100, 127], dtype=d)
    y = torch.tensor([3, 2, 100, 2], dtype=d)
    show(f"{d} add", x + y)
    show(f"{d} sub", x - y)
    show(f"{d} mul", x * y)
    show(f"{d} div", x / y)
    show(f"{d} floordiv", x // y)
    show(f"{d} rem", x % y)
    show(f"{d} pow", x**2)
    show(f"{d} neg", -x)
    show(f"{d} abs", (x - 120).abs())
    show(f"{d} +int", x + 200)
    show(f"{d} *float", x * 1.5)
    show(f"{d} +0d int64", x + torch.tensor(5))
    show(f"{d} +0d float", x + torch.tensor(0.5, dtype=torch.float64))
    show(f"{d} eq", x == y)
    show(f"{d} lt", x < 100)
    show(f"{d} max", torch.maximum(x, y))
    show(f"{d} clamp", x.clamp(1, 50))
    show(f"{d} sum", x.sum())
    show(f"{d} sum dim", torch.stack([x, y]).sum(0))
    show(f"{d} prod", y.prod())
    show(f"{d} cumsum", x.cumsum(0))
    show(f"{d} amax", x.max())
    show(f"{d} argmax", x.argmax())
    show(f"{d} sort", torch.sort(y).values)
    show(f"{d} where", torch.where(x > 50, x, y))
    show(f"{d} zeros", torch.zeros(2, dtype=d))
    show(f"{d} ones_like", torch.ones_like(x))
    show(f"{d} full", torch.full((2,), 7, dtype=d))
    show(f"{d} arange", torch.arange(3, dtype=d))
    show(f"{d} float", x.float())
    show(f"{d} item", torch.tensor([x[2].item()]))
    refused(x.mean)
    refused(x.requires_grad_)
    refused(lambda d=d: torch.zeros(2, dtype=d, requires_grad=True))
    arr = x.numpy()
    print(f"{d} numpy", arr.dtype, arr.tolist(), torch.from_numpy(arr).dtype)
    print(f"{d} repr", repr(x), repr(torch.tensor(3, dtype=d)))

u = torch.tensor([250, 10], dtype=torch.uint8)
show("uint8 wrap add", u + torch.tensor([10, 20], dtype=torch.uint8))
show("uint8 wrap sub", torch.tensor([5], dtype=torch.uint8) - 10)
show("int8 wrap mul", torch.tensor([100], dtype=torch.int8) * 3)
show("uint8+int8", u + torch.tensor([1, -1], dtype=torch.int8))
show("int32+int64", torch.tensor([1], dtype=torch.int32) + torch.tensor([1]))
show("int32+bool", torch.tensor([1], dtype=torch.int32) + torch.tensor([True]))
show("int16+float32", torch.tensor([1], dtype=torch.int16) + torch.tensor([0.5]))
show("cat int32 int64", torch.cat([torch.tensor([1], dtype=torch.int32), torch.tensor([2])]))
show("int8 float div", torch.tensor([-7], dtype=torch.int8) / 2)
show("int8 floordiv neg", torch.tensor([-7], dtype=torch.int8) // 2)
show("int8 rem neg", torch.tensor([-7], dtype=torch.int8) % 3)
refused(lambda: torch.tensor([1], dtype=torch.int32) // torch.tensor([0], dtype=torch.int32))
refused(lambda: torch.tensor([1], dtype=torch.int32).add_(1.5))
inplace = torch.tensor([1, 2], dtype=torch.int32)
inplace += 3
show("int32 iadd", inplace)
inplace *= torch.tensor([2, 2], dtype=torch.uint8)
show("int32 imul uint8", inplace)

data = torch.arange(10.0) * 10
idx32 = torch.tensor([1, 3, 5], dtype=torch.int32)
show("index int32", data[idx32])
show("index_select int32", data.index_select(0, idx32))
emb = torch.nn.Embedding(10, 2)
with torch.no_grad():
    emb.weight.copy_(torch.arange(20.0).reshape(10, 2))
show("embedding int32", emb(idx32))
show("uint8 mask", data[torch.tensor([1, 0, 1, 0, 0, 0, 0, 0, 0, 1], dtype=torch.bool)])
refused(lambda: data.gather(0, idx32))
refused(lambda: torch.nn.functional.cross_entropy(torch.zeros(3, 4), idx32))

img = np.arange(24, dtype=np.uint8).reshape(2, 3, 4)
t = torch.from_numpy(img)
img[0, 0, 0] = 99
print("from_numpy uint8 shares", t.dtype, t[0, 0, 0].item(), t.float().div(255).dtype)
for npd in (np.int32, np.int16, np.int8, np.uint8):
    a = np.array([1, -2, 3]).astype(npd)
    print(
        "numpy",
        np.dtype(npd).name,
        torch.from_numpy(a).dtype,
        torch.tensor(a).dtype,
        torch.as_tensor(a).dtype,
    )
x = torch.tensor([1.5, 2.5], requires_grad=True)
y = x.int()
print("int of grad tensor", y.requires_grad, y.grad_fn, y.dtype)
i8, i16, i32, u8 = torch.int8, torch.int16, torch.int32, torch.uint8
print(
    "legacy",
    torch.IntTensor([1, 2]).dtype,
    torch.ByteTensor([1, 300 - 256]).tolist(),
    isinstance(torch.tensor([1], dtype=i16), torch.ShortTensor),
    torch.tensor([1], dtype=i8).type(),
    torch.tensor([1.7]).type(torch.IntTensor).tolist(),
    torch.tensor([3]).type("torch.CharTensor").dtype,
)
print(
    "result_type",
    torch.result_type(torch.tensor([1], dtype=u8), 1),
    torch.result_type(torch.tensor([1], dtype=i8), torch.tensor(1)),
    torch.result_type(torch.tensor([1], dtype=i16), 1.0),
)
print(
    "can_cast",
    torch.can_cast(i32, i8),
    torch.can_cast(torch.float32, i32),
    torch.can_cast(i32, torch.bool),
)
print(
    "randint",
    torch.randint(0, 5, (3,), dtype=i32).dtype,
    torch.randperm(3, dtype=i32).dtype,
)
print(
    "bitwise",
    (torch.tensor([12], dtype=u8) & 10).tolist(),
    (torch.tensor([12], dtype=i32) | 3).tolist(),
    (~torch.tensor([0], dtype=u8)).tolist(),
    (torch.tensor([5], dtype=i16) ^ torch.tensor([1], dtype=i16)).tolist(),
)
print(
    "shift",
    (torch.tensor([1], dtype=i32) << 4).tolist(),
    (torch.tensor([64], dtype=u8) >> 3).tolist(),
)

image = torch.from_numpy(np.arange(2 * 3 * 3, dtype=np.uint8).reshape(3, 3, 2) * 14)
chw = image.permute(2, 0, 1)
show("image to float", (chw.float() / 255).flatten()[:5])
show("float to uint8", (torch.tensor([0.0, 0.25, 0.999, 1.0]) * 255).to(torch.uint8))
mixed = torch.cat([torch.tensor([200], dtype=torch.uint8), torch.tensor([-3], dtype=torch.int8)])
show("cat uint8 int8", mixed)
show("sum dtype=int32", torch.tensor([1, 2, 3], dtype=torch.int8).sum(dtype=torch.int32))
show("min dim int16", torch.tensor([[5, 1], [2, 8]], dtype=torch.int16).min(dim=1).values)
show("topk int32", torch.tensor([5, 1, 9, 3], dtype=torch.int32).topk(2).values)
show("argsort int8", torch.tensor([5, -1, 9, 3], dtype=torch.int8).argsort())
show("unique int32", torch.unique(torch.tensor([3, 1, 3, 2], dtype=torch.int32)))
show("bincount int32", torch.bincount(torch.tensor([0, 2, 2, 1], dtype=torch.int32)))
show(
    "masked_fill uint8",
    torch.tensor([1, 2, 3], dtype=torch.uint8).masked_fill(torch.tensor([True, False, True]), 9),
)
s = torch.zeros(4, dtype=torch.int32)
s[torch.tensor([0, 2])] = torch.tensor([7, 8], dtype=torch.int32)
show("index_put int32", s)
show(
    "scatter_add int16",
    torch.zeros(3, dtype=torch.int16).scatter_add(
        0, torch.tensor([0, 0, 2]), torch.tensor([1, 2, 3], dtype=torch.int16)
    ),
)
show("randint uint8 range", torch.randint(3, 4, (2,), dtype=torch.uint8))
show("scalar uint8 from numpy", torch.tensor(np.uint8(200)))
show("eq int32 int64", torch.tensor([1, 2], dtype=torch.int32) == torch.tensor([1, 3]))
show("clamp int32 float", torch.tensor([1, 5], dtype=torch.int32).clamp(max=2.5))
refused(lambda: torch.nn.functional.one_hot(torch.tensor([1, 0], dtype=torch.int32), 3))
show("one_hot", torch.nn.functional.one_hot(torch.tensor([1, 0]), 3).to(torch.uint8))
print("str", torch.tensor([[1, -2], [3, 4]], dtype=torch.int16))
