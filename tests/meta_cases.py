"""The meta device as one program: factories with ``device="meta"`` and under ``torch.device
("meta")``, reprs, views and dispatched ops giving meta outputs (with their autograd nodes),
in-place ops and initializers doing nothing, ``Module.to("meta")``, ``to_empty``,
``load_state_dict`` into a meta module (assigning, and the no-op copy's warning), and the
errors for reading values. ``test_index_ops_golden.py`` runs it with ferrograd and compares
its output with PyTorch 2.15's (``golden/meta_torch.txt``, recorded with ``import torch``)."""

import warnings

import ferrograd as torch
from case_printing import refused

print(repr(torch.empty(2, 3, device="meta")))
print(repr(torch.zeros(2, dtype=torch.int64, device="meta")))
print(repr(torch.ones((), dtype=torch.float64, device=torch.device("meta"))))
print(repr(torch.randn(2, device="meta", requires_grad=True)))
print(repr(torch.full((2, 2), 7, device="meta")), repr(torch.arange(5, device="meta")))
print(repr(torch.tensor([1.0, 2.0], device="meta")), repr(torch.eye(3, device="meta")))
x = torch.empty(2, device="meta", requires_grad=True)
print(repr(x * 2), repr((x * 2).sum()))
print(repr(torch.nn.Parameter(torch.empty(2, 2, device="meta"))))
print(torch.empty(2, dtype=torch.bool, device="meta"))

m = torch.empty(3, device="meta")
refused(lambda: m.item())
refused(lambda: m.tolist())
refused(lambda: m.numpy())
refused(lambda: m.to("cpu"))
refused(lambda: m + torch.ones(3))
refused(lambda: m.cpu())
refused(lambda: float(m[0]))
refused(lambda: m.sum().item())
print(m.device, m.is_meta, torch.ones(2).is_meta, (m + 1).device, (m * torch.tensor(2.0)).device)
print(m.uniform_() is m, m.normal_() is m, m.zero_() is m, m.fill_(3) is m, m.add_(1) is m)
print(torch.zeros_like(m).device, torch.empty_like(m, device="cpu").device, m.to("meta") is m)

w = torch.empty(4, 5, device="meta")
v = torch.empty(5, 2, device="meta")
print((w @ v).shape, w.t().shape, w[1:].shape, w.view(20).shape, w.sum(0).shape)
print(w.clone().device, w.permute(1, 0).shape, w.exp().dtype, (w > 0).dtype, w.double().dtype)

linear = torch.nn.Linear(2, 3).to("meta")
print(linear.weight.device, type(linear.weight).__name__, linear.weight.requires_grad)
print(linear.weight.is_leaf, linear.bias.shape)
with torch.device("meta"):
    bn = torch.nn.BatchNorm1d(3)
    print(bn.running_mean, bn.num_batches_tracked, torch.empty(1).device)
    conv = torch.nn.Conv2d(2, 4, 3)
    print(conv.weight, torch.get_default_device())
print(torch.empty(1).device, torch.get_default_device())

real = torch.nn.Linear(2, 3, device="meta").to_empty(device="cpu")
print(real.weight.device, real.weight.shape, type(real.weight).__name__)

torch.manual_seed(0)
source = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4))
with torch.device("meta"):
    target = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4))
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    target.load_state_dict(source.state_dict())
print("copy into meta warns", len(caught), str(caught[0].message)[:60] if caught else "")
print(target[0].weight.device)
target.load_state_dict(source.state_dict(), assign=True)
print(target[0].weight.device, target[1].running_var.device, target[0].weight.requires_grad)
x = torch.randn(5, 3)
print(torch.equal(target.eval()(x), source.eval()(x)))
