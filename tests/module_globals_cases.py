"""``torch.as_tensor``, ``torch.__future__``'s overwrite switch and the hooks common to all
modules (``nn.modules.module.register_module_*_hook``, the deprecated non-full
``register_backward_hook``) as one program. ``test_index_ops_golden.py`` runs it with ferrograd
and compares its output with PyTorch 2.15's (``golden/module_globals_torch.txt``, recorded by
running it with ``import torch``)."""

import warnings

import ferrograd as torch
import numpy as np
from ferrograd.nn.modules import module as module_hooks

a = np.arange(3.0)
t = torch.as_tensor(a)
a[0] = 9.0
print("as_tensor shares numpy memory", t.tolist(), t.dtype)
print("converted copy", torch.as_tensor(a, dtype=torch.float32).tolist())
x = torch.ones(2, requires_grad=True)
print("same tensor", torch.as_tensor(x) is x, torch.as_tensor(x, dtype=torch.float64).dtype)
print("lists and numbers", torch.as_tensor([[1, 2]]).tolist(), torch.as_tensor(2.5).item())
print("nested", torch.as_tensor([1.5, 2]).dtype, torch.as_tensor(np.int64(4)).dtype)

torch.manual_seed(0)
m = torch.nn.Linear(2, 2)
w = m.weight
print("overwrite default", torch.__future__.get_overwrite_module_params_on_conversion())
torch.__future__.set_overwrite_module_params_on_conversion(True)
m.float()
print("overwrite: new parameter", m.weight is w, torch.equal(m.weight, w))
m.double()
print("overwrite: double", m.weight.dtype, type(m.weight).__name__)
torch.__future__.set_overwrite_module_params_on_conversion(False)
w = m.weight
m.double()
print("in place again", m.weight is w)
print("swap default", torch.__future__.get_swap_module_params_on_conversion())

calls = []
handles = [
    module_hooks.register_module_forward_pre_hook(
        lambda mod, args: calls.append(("global pre", type(mod).__name__))
    ),
    module_hooks.register_module_forward_hook(
        lambda mod, args, out: calls.append(("global fwd", type(mod).__name__))
    ),
    module_hooks.register_module_full_backward_hook(
        lambda mod, gi, go: calls.append(("global bwd", type(mod).__name__, len(gi), len(go)))
    ),
]
torch.manual_seed(0)
net = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.Tanh())
net[0].register_forward_hook(lambda mod, args, out: calls.append(("local fwd", "Linear")))
inp = torch.randn(4, 3, requires_grad=True)
net(inp).sum().backward()
for c in calls:
    print(*c)
for h in handles:
    h.remove()
calls.clear()
net(inp).sum().backward()
print("after remove", calls)

# the forward hook may replace the output, the pre-hook the input
h1 = module_hooks.register_module_forward_pre_hook(lambda mod, args: (args[0] * 2,))
h2 = module_hooks.register_module_forward_hook(lambda mod, args, out: out + 1)
print("replaced", [round(v, 6) for v in torch.nn.Identity()(torch.ones(2)).tolist()])
h1.remove()
h2.remove()

registered = []
hb = module_hooks.register_module_buffer_registration_hook(
    lambda mod, name, buf: registered.append(("buffer", name)) or buf * 2
)
hp = module_hooks.register_module_parameter_registration_hook(
    lambda mod, name, p: registered.append(("parameter", name))
)
hm = module_hooks.register_module_module_registration_hook(
    lambda mod, name, sub: registered.append(("module", name))
)
holder = torch.nn.Module()
holder.register_buffer("scale", torch.ones(2))
holder.lin = torch.nn.Linear(1, 1)
holder.extra = torch.nn.Parameter(torch.zeros(1))
print("registrations", registered, holder.scale.tolist())
for h in (hb, hp, hm):
    h.remove()

# the deprecated non-full hook: the gradients of the output's last node
seen = []
sig = torch.nn.Sigmoid()
sig.register_backward_hook(lambda mod, gi, go: seen.append((len(gi), len(go))))
y = torch.tensor([0.5, -1.0], requires_grad=True)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    sig(y).sum().backward()
print("non-full hook", seen, [round(v, 6) for v in y.grad.tolist()], len(caught))
try:
    sig.register_full_backward_hook(lambda *a: None)
except RuntimeError as e:
    print("RuntimeError", e)
lin = torch.nn.Linear(2, 1)
lin.register_backward_hook(lambda mod, gi, go: seen.append(("linear", len(gi))))
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    lin(torch.ones(3, 2, requires_grad=True)).sum().backward()
print("linear non-full", seen[-1], [str(w.category.__name__) for w in caught])
