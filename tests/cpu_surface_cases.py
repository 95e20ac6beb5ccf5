"""What real programs call on a machine without an accelerator, as one program: histograms,
NumPy's ``axis=``/``keepdims=`` names, ``range`` indices, ``torch.compile`` (eager
semantics), ``torch.amp.GradScaler("cpu")`` through a few steps (and one skipped for an
infinite gradient), ``dropout2d`` on 2-D and 3-D inputs, the flags of ``torch.backends``, the
seeding calls of ``torch.cuda`` and ``nn.DataParallel``. ``test_index_ops_golden.py`` runs it
with ferrograd and compares its output with PyTorch 2.15's (``golden/cpu_surface_torch.txt``,
recorded by running it with ``import torch``)."""

import warnings

import ferrograd as torch

warnings.simplefilter("ignore")


def r5(values):
    """Floats to 5 significant digits (histogram edges come from linspace, whose last bit
    depends on PyTorch's vector width)."""
    return [float(f"{v:.5g}") for v in values]


torch.manual_seed(0)
for data in [
    torch.randn(1000),
    torch.randn(257) * 3,
    torch.tensor([0.0, 1, 2, 2.5, 3, 10, -1]),
    torch.ones(3),
    torch.tensor([]),
    torch.linspace(0, 1, 11),
    torch.randn(100).double(),
]:
    print("histc", torch.histc(data, bins=7).tolist())
    print("histc range", torch.histc(data, bins=5, min=-1, max=1).tolist())
    h = torch.histogram(data, bins=9)
    print("histogram", type(h).__name__, h.hist.tolist(), r5(h.bin_edges.tolist()))
    h = torch.histogram(data, bins=4, range=(-1.0, 1.0), density=True)
    print("histogram density", r5(h.hist.tolist()))
    edges = torch.tensor([-1.0, 0.0, 0.5, 2.0], dtype=data.dtype)
    weights = torch.ones_like(data) * 2
    print("histogram edges", torch.histogram(data, bins=edges, weight=weights).hist.tolist())

x = torch.arange(12.0).reshape(3, 4)
print("keepdims", x.sum(1, keepdims=True).tolist(), x.mean(axis=0).tolist())
print("axis keepdims", x.sum(axis=1, keepdims=True).shape)
print("range index", torch.arange(10)[range(2, 5)].tolist(), x[range(3), [0, 1, 2]].tolist())

m = torch.compile(torch.nn.Linear(2, 2))
print("compile module", type(m).__name__, list(m.state_dict()), m.in_features)
f = torch.compile(lambda a: a * 2)
print("compile function", f(torch.ones(2)).tolist())
g = torch.compile(mode="reduce-overhead")(lambda a: a + 1)
print("compile decorator", g(torch.ones(2)).tolist())

s = torch.amp.GradScaler("cpu", init_scale=4.0, growth_interval=2)
p = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
opt = torch.optim.SGD([p], lr=0.1)
for _step in range(3):
    loss = (p**2).sum()
    scaled = s.scale(loss)
    print("scaled", scaled.item(), tuple(scaled.shape))
    scaled.backward()
    s.step(opt)
    s.update()
    opt.zero_grad()
    print("step", p.tolist(), s.get_scale(), s.state_dict())
loss = (p * float("inf")).sum()
s.scale(loss).backward()
print("inf step", s.step(opt), p.tolist())
s.update()
print("backed off", s.get_scale())
print(
    "disabled",
    torch.amp.GradScaler("cuda").is_enabled(),
    torch.amp.GradScaler("cuda").scale(loss) is loss,
)

torch.manual_seed(1)
print("dropout2d 2-D", torch.nn.functional.dropout2d(torch.ones(3, 4), 0.5).tolist())
print("dropout2d 3-D", torch.nn.functional.dropout2d(torch.ones(2, 3, 2), 0.5).tolist())
print("Dropout2d eval 1-D", torch.nn.Dropout2d(0.5).eval()(torch.ones(3)).tolist())

print("backends", torch.backends.cudnn.benchmark, torch.backends.cudnn.deterministic)
torch.backends.cudnn.benchmark = True
torch.backends.cuda.matmul.allow_tf32 = True
print("flags kept", torch.backends.cudnn.benchmark, torch.backends.cuda.matmul.allow_tf32)
print("cuda", torch.cuda.is_available(), torch.cuda.device_count(), torch.cuda.manual_seed_all(3))
print("cuda seeds", torch.cuda.manual_seed(3), torch.cuda.seed(), torch.cuda.seed_all())
print(
    "cuda memory",
    torch.cuda.memory_allocated(),
    torch.cuda.empty_cache(),
    torch.cuda.is_bf16_supported(),
)
print("mps", torch.backends.mps.is_available(), torch.backends.mps.is_built())
print("deterministic", torch.are_deterministic_algorithms_enabled())
torch.use_deterministic_algorithms(True)
print("deterministic set", torch.are_deterministic_algorithms_enabled())
torch.use_deterministic_algorithms(False)
print("precision", torch.get_float32_matmul_precision())
torch.set_float32_matmul_precision("high")
print("precision set", torch.get_float32_matmul_precision())
torch.set_default_device("cpu")
print("default device", torch.get_default_device())
torch.set_default_device(None)
print("tensor on", torch.ones(1).is_cuda, torch.ones(1).is_mps, torch.ones(1).is_xpu)
print("non_blocking", torch.ones(2).to("cpu", non_blocking=True).tolist())
print("autocast off", torch.is_grad_enabled())
with torch.autocast("cpu", enabled=False):
    print("inside", (torch.ones(2) * 2).tolist())
import ferrograd.onnx  # noqa: E402

print("onnx export", ferrograd.onnx.is_in_onnx_export())
print("flatten_parameters", torch.nn.LSTM(2, 3).flatten_parameters())

# indexing with a list holding sequences, slices, None or ... is indexing with a tuple (with
# PyTorch's deprecation warning); a list of numbers (or a NumPy array) is one index tensor
x = torch.arange(12.0).reshape(3, 4)
print("list of lists", x[[[0, 1], [2, 0]]].tolist(), x[[0, slice(1, 3)]].tolist())
print("list with None", tuple(x[[None, 0]].shape), x[[..., 1]].tolist(), tuple(x[[0, 1]].shape))
y = torch.zeros(3, 4)
y[[[0, 1], [2, 0]]] = 5.0
print("set list of lists", y.sum().item())
with warnings.catch_warnings(record=True) as seen:
    warnings.simplefilter("always")
    x[[[0, 1], [2, 0]]]
print("deprecation", [str(w.message)[:60] for w in seen])
print("legacy type", x.type(torch.DoubleTensor).dtype, x.type(torch.LongTensor).dtype)
print(torch.nn.Parameter(torch.ones(2)))

# nn.DataParallel without a GPU: the module called as it is, its state under "module."
torch.manual_seed(0)
dp = torch.nn.DataParallel(torch.nn.Linear(2, 3))
print(dp)
print(list(dp.state_dict().keys()), dp.device_ids, hasattr(dp, "dim"))
dx = torch.ones(4, 2, requires_grad=True)
dp(dx).sum().backward()
print(r5(dx.grad[0].tolist()), dp.module.weight.grad.tolist())
print(torch.nn.parallel.DataParallel is torch.nn.DataParallel)
try:
    torch.nn.parallel.data_parallel(torch.nn.Linear(2, 1), torch.ones(1, 2))
except RuntimeError as e:
    print("data_parallel:", e)
